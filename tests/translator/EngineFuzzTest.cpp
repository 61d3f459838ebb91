// Compiled code (translator/) against the interpreter on random kernels
// whose control flow takes every shape the engine hands back and forth:
// nested if/else on divergent, warp-uniform and data-dependent conditions
// (joins that are themselves branches, empty arms), loops with uniform and
// divergent trip counts, early exits of some lanes, barriers, shared and
// global memory with every access pattern (one address, consecutive,
// scattered). Both engines must store the same bytes, report the same
// diagnostics, and count the same warp and thread instructions per warp
// (in 1-D blocks, and in a 2-D one where the analyses' "consecutive lanes"
// facts do not hold):
// the counts pin down that compiled code stops exactly where the
// interpreter's loop would (reconvergence points, budget, divergence).
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "tests/emulator/Harness.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kRegs = 12;

class KernelWriter {
public:
  explicit KernelWriter(uint32_t seed) : rng_(seed) {}

  std::string kernel() {
    out_ = ".visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n)\n{\n"
           "\t.reg .pred %p<8>;\n\t.reg .b32 %r<" +
           std::to_string(kRegs) +
           ">;\n\t.reg .b32 %t<4>;\n\t.reg .b64 %d<6>;\n"
           "\t.shared .align 4 .b32 s[64];\n";
    emit("mov.u32 %r0, %tid.x;");    // divergent
    emit("mov.u32 %r1, %ctaid.x;");  // CTA-uniform
    emit("mov.u32 %r2, %laneid;");   // divergent
    emit("shr.u32 %r3, %r0, 5;");    // warp-uniform
    emit("ld.param.u32 %r4, [n];");  // uniform
    emit("ld.param.u64 %d0, [in];"); // the input buffer (256 words)
    emit("cvta.to.global.u64 %d0, %d0;");
    for (int i = 5; i < kRegs; ++i)
      emit("mad.lo.u32 %r" + std::to_string(i) + ", %r" + std::to_string(i % 5) + ", " +
           std::to_string(i * 7 + 1) + ", " + std::to_string(i) + ";");
    for (int i = 0; i < 6; ++i) statement(0);
    // out[(ctaid * ntid + tid) * kRegs + i] = %r_i
    emit("mov.u32 %t0, %ntid.x;");
    emit("mad.lo.u32 %t0, %r1, %t0, %r0;");
    emit("mul.wide.u32 %d1, %t0, " + std::to_string(4 * kRegs) + ";");
    emit("ld.param.u64 %d2, [out];");
    emit("cvta.to.global.u64 %d2, %d2;");
    emit("add.s64 %d2, %d2, %d1;");
    for (int i = 0; i < kRegs; ++i)
      emit("st.global.u32 [%d2+" + std::to_string(4 * i) + "], %r" + std::to_string(i) + ";");
    emit("ret;");
    out_ += "}\n";
    return out_;
  }

private:
  void emit(const std::string &line) { out_ += "\t" + line + "\n"; }
  void label(const std::string &l) { out_ += l + ":\n"; }
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  std::string reg() { return "%r" + std::to_string(pick(kRegs)); }
  std::string writable() { return "%r" + std::to_string(5 + pick(kRegs - 5)); }
  std::string fresh() { return "L" + std::to_string(labels_++); }

  /// A condition into %p<depth>: divergent, warp-uniform or data-dependent.
  std::string condition(int depth) {
    std::string p = "%p" + std::to_string(depth % 8);
    switch (pick(4)) {
    case 0: emit("and.b32 %t1, %r2, " + std::to_string(1 << pick(5)) + ";"); break; // lane bits
    case 1: emit("and.b32 %t1, %r3, 1;"); break;                                    // warp index
    case 2: emit("and.b32 %t1, " + reg() + ", 3;"); break;                          // data
    default: emit("and.b32 %t1, %r1, 1;"); break;                                   // CTA index
    }
    emit("setp.ne.u32 " + p + ", %t1, 0;");
    return p;
  }

  void statement(int depth) {
    int kind = pick(depth >= 3 ? 3 : 9);
    switch (kind) {
    case 0:
    case 1:
    case 2: arithmetic(); return;
    case 3: ifElse(depth); return;
    case 4: ifElse(depth); return;
    case 5: loop(depth); return;
    case 6: memory(); return;
    case 7:
      if (depth == 0) {
        // Barriers only where every thread comes, so that both engines
        // run the kernel to its end.
        emit("bar.sync 0;");
        return;
      }
      memory();
      return;
    default:
      if (depth > 0 && pick(3) == 0) {
        // Some lanes leave early (the rest store their registers).
        std::string p = condition(depth);
        emit("and.b32 %t2, %r0, 7;");
        emit("setp.eq.and.u32 " + p + ", %t2, 5, " + p + ";");
        emit("@" + p + " ret;");
        return;
      }
      arithmetic();
      return;
    }
  }

  void arithmetic() {
    static const char *ops[] = {"add.u32", "sub.u32", "mul.lo.u32", "xor.b32", "and.b32",
                                "or.b32",  "min.s32", "max.u32",    "shl.b32", "shr.s32"};
    std::string op = ops[pick(10)];
    std::string b = pick(3) == 0 ? std::to_string(pick(40)) : reg();
    emit(op + " " + writable() + ", " + reg() + ", " + b + ";");
    if (pick(4) == 0) {
      std::string p = "%p7";
      emit("setp.lt.u32 " + p + ", " + reg() + ", " + reg() + ";");
      emit("selp.b32 " + writable() + ", " + reg() + ", " + reg() + ", " + p + ";");
    }
    if (pick(5) == 0) {
      // A guarded write: only the lanes whose predicate holds.
      emit("setp.gt.u32 %p7, " + reg() + ", " + std::to_string(pick(100)) + ";");
      emit("@%p7 add.u32 " + writable() + ", " + reg() + ", 3;");
    }
    if (pick(6) == 0) {
      // An instruction compiled code hands to the interpreter's handler: its
      // operands go through the register file.
      emit("rem.s32 " + writable() + ", " + reg() + ", " + std::to_string(3 + pick(9)) + ";");
    }
    if (pick(6) == 0) {
      // A shuffle among the executing lanes of a register they just wrote:
      // a lane whose partner is not executing reads the value the partner
      // had before (the interpreter's register file).
      emit("add.u32 %t2, " + reg() + ", " + std::to_string(1 + pick(9)) + ";");
      emit("activemask.b32 %t3;");
      emit("shfl.sync.bfly.b32 " + writable() + ", %t2, " + std::to_string(1 << pick(5)) + ", 31, %t3;");
    }
  }

  void ifElse(int depth) {
    std::string p = condition(depth), other = fresh(), end = fresh();
    const bool hasElse = pick(2) == 0;
    emit("@" + p + " bra " + other + ";");
    int n = pick(3); // an empty arm too
    for (int i = 0; i < n; ++i) statement(depth + 1);
    if (hasElse) {
      emit("bra " + end + ";");
      label(other);
      for (int i = 0, m = pick(3); i < m; ++i) statement(depth + 1);
      label(end);
    } else {
      label(other);
    }
    // The join is often a branch itself (another if follows at once).
    if (pick(2) == 0) ifElse(depth + 1 > 3 ? 3 : depth + 1);
  }

  void loop(int depth) {
    std::string top = fresh();
    // Trip count 1..4, uniform or per lane.
    if (pick(2) == 0)
      emit("and.b32 %t3, %r2, 3;");
    else
      emit("and.b32 %t3, %r3, 3;");
    emit("add.u32 %t3, %t3, 1;");
    std::string keep = writable();
    emit("mov.u32 " + keep + ", %t3;");
    label(top);
    for (int i = 0, n = 1 + pick(2); i < n; ++i) {
      if (depth < 2 && pick(3) == 0)
        ifElse(depth + 1);
      else
        arithmetic();
    }
    emit("sub.u32 " + keep + ", " + keep + ", 1;");
    std::string p = "%p" + std::to_string((depth + 4) % 8);
    emit("setp.ne.u32 " + p + ", " + keep + ", 0;");
    emit("@" + p + " bra " + top + ";");
  }

  void memory() {
    switch (pick(7)) {
    case 0: // consecutive global loads
      emit("and.b32 %t0, %r0, 255;");
      emit("mul.wide.u32 %d3, %t0, 4;");
      emit("add.s64 %d4, %d0, %d3;");
      emit("ld.global.u32 " + writable() + ", [%d4];");
      return;
    case 1: // scattered global loads
      emit("and.b32 %t0, " + reg() + ", 255;");
      emit("mul.wide.u32 %d3, %t0, 4;");
      emit("add.s64 %d4, %d0, %d3;");
      emit("ld.global.u32 " + writable() + ", [%d4+" + std::to_string(4 * pick(2)) + "];");
      return;
    case 2: // one address for the warp
      emit("ld.global.u32 " + writable() + ", [%d0+" + std::to_string(4 * pick(200)) + "];");
      return;
    case 3: // shared store by lane, then a read of another word
      emit("and.b32 %t0, %r0, 63;");
      emit("shl.b32 %t0, %t0, 2;");
      emit("mov.u32 %t1, s;");
      emit("add.u32 %t0, %t1, %t0;");
      emit("st.shared.u32 [%t0], " + reg() + ";");
      emit("and.b32 %t2, " + reg() + ", 60;");
      emit("add.u32 %t2, %t1, %t2;");
      emit("ld.shared.u32 " + writable() + ", [%t2];");
      return;
    case 4: // base + 4 * %tid.x: consecutive lanes the analyses prove (Facts.h)
      emit("mul.wide.u32 %d3, %r0, 4;");
      emit("add.s64 %d4, %d0, %d3;");
      emit("ld.global.u32 " + writable() + ", [%d4+" + std::to_string(4 * pick(3)) + "];");
      return;
    case 5: // base + 4 * (u + %tid.x) widened from 32 bits, u warp-uniform and unknown to the
            // analyses (0 or 1 here): consecutive lanes the facts assume, checked as the code runs
      emit("ld.global.u32 %t1, [%d0+" + std::to_string(4 * pick(200)) + "];");
      emit("shr.u32 %t1, %t1, 31;");
      emit("add.s32 %t0, %t1, %r0;");
      emit("mul.wide.s32 %d3, %t0, 4;");
      emit("add.s64 %d4, %d0, %d3;");
      emit("ld.global.u32 " + writable() + ", [%d4];");
      return;
    default: // a possibly out-of-bounds index, checked: lanes past the buffer fault
      emit("and.b32 %t0, " + reg() + ", 1023;");
      emit("setp.lt.u32 %p6, %t0, 256;");
      emit("mul.wide.u32 %d3, %t0, 4;");
      emit("add.s64 %d4, %d0, %d3;");
      emit("@%p6 ld.global.u32 " + writable() + ", [%d4];");
      return;
    }
  }

  std::mt19937 rng_;
  std::string out_;
  int labels_ = 0;
};

struct Outcome {
  emu::LaunchResult result;
  std::vector<uint8_t> out;
  std::string diagnostics;
};

Outcome launch(const ptx::Module &m, emu::Dim3 grid, emu::Dim3 block, bool compiled, std::string &problem) {
  Outcome o;
  emu::Device device;
  ptx::DiagnosticList diags;
  auto k = device.decode(m, "k", diags);
  if (!k) {
    problem = "does not decode: " + diags.renderText();
    return o;
  }
  std::unique_ptr<emu::Engine> engine;
  emu::LaunchConfig config;
  if (compiled && !(engine = ptxvm::test::compiledEngine(*k, problem))) return o;
  config.engine = engine.get();
  const uint64_t threads = grid.count() * block.count();
  std::vector<uint32_t> input(256);
  for (uint32_t i = 0; i < 256; ++i) input[i] = i * 2654435761u;
  uint64_t in = device.global.allocate(input.size() * 4), out = device.global.allocate(threads * kRegs * 4);
  device.global.write(in, input.data(), input.size() * 4);
  config.grid = grid;
  config.block = block;
  config.threads = 1;
  config.maxInstructions = 10'000'000;
  config.params.assign(k->paramBytes, 0);
  uint32_t n = 77;
  std::memcpy(&config.params[k->paramOffsets[0]], &out, 8);
  std::memcpy(&config.params[k->paramOffsets[1]], &in, 8);
  std::memcpy(&config.params[k->paramOffsets[2]], &n, 4);
  o.result = device.launch(*k, config, diags);
  o.out.resize(threads * kRegs * 4);
  device.global.read(out, o.out.data(), o.out.size());
  o.diagnostics = diags.renderText();
  return o;
}

TEST(EngineFuzz, CompiledCodeRunsRandomControlFlowAsTheInterpreterDoes) {
#if PTXVM_SANITIZED
  uint32_t first = 1, programs = 6;
#else
  uint32_t first = 1, programs = 48;
#endif
  // PTXVM_ENGINE_FUZZ_SEEDS=FIRST:COUNT: the re-runs with other JIT settings
  // (tests/CMakeLists.txt) take programs of their own, fewer of them.
  if (const char *seeds = std::getenv("PTXVM_ENGINE_FUZZ_SEEDS")) {
    ASSERT_EQ(std::sscanf(seeds, "%u:%u", &first, &programs), 2) << "PTXVM_ENGINE_FUZZ_SEEDS=" << seeds;
  }
  for (uint32_t seed = first; seed < first + programs; ++seed) {
    std::string text = ptxvm::test::ptxModule(KernelWriter(seed).kernel());
    ptx::DiagnosticList diags;
    auto m = ptx::parseModule(text, "fuzz.ptx", diags);
    ASSERT_FALSE(diags.hasErrors()) << diags.renderText() << text;
    ptx::verifyModule(*m, diags);
    ASSERT_FALSE(diags.hasErrors()) << diags.renderText() << text;
    for (emu::Dim3 block :
         {emu::Dim3{96, 1, 1}, emu::Dim3{48, 1, 1}, emu::Dim3{16, 4, 1}, emu::Dim3{32, 3, 1}}) {
      std::string problem;
      Outcome interpreted = launch(*m, {2, 1, 1}, block, false, problem);
      Outcome compiled = launch(*m, {2, 1, 1}, block, true, problem);
      ASSERT_TRUE(problem.empty()) << problem << text;
      SCOPED_TRACE("seed " + std::to_string(seed) + ", block " + std::to_string(block.x) + "\n" + text);
      EXPECT_EQ(interpreted.result.ok, compiled.result.ok);
      EXPECT_EQ(interpreted.diagnostics, compiled.diagnostics);
      EXPECT_TRUE(interpreted.out == compiled.out) << "stored values differ";
      EXPECT_EQ(interpreted.result.warpInstructions, compiled.result.warpInstructions);
      EXPECT_EQ(interpreted.result.threadInstructions, compiled.result.threadInstructions);
      EXPECT_EQ(interpreted.result.perWarp, compiled.result.perWarp);
      if (HasFailure()) return;
    }
  }
}

} // namespace
