// Register allocation (regalloc/) against random programs: each is a kernel over 24 32-bit and 6
// 64-bit registers with values of every class (divergent, warp-uniform, CTA-uniform, affine,
// constants), arithmetic, guarded writes, selects, bounded loops (uniform trip counts) and
// divergent branches, that stores every register at the end. Allocated at budgets from 8 to 24
// registers with both allocators and every spill placement, it must store what the original
// stores, bit for bit, and the allocation must pass checkAllocation.
#include "analysis/Analyses.h"
#include "analysis/Passes.h"
#include "ptx/Parser.h"
#include "ptx/Writer.h"
#include "regalloc/RegAlloc.h"
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {

constexpr int kWords = 24, kWides = 6;

class ProgramWriter {
public:
  explicit ProgramWriter(uint32_t seed) : rng_(seed) {}

  std::string kernel() {
    out_ = ".visible .entry f(.param .u64 out, .param .u32 s)\n{\n"
           "\t.reg .pred %p<4>;\n\t.reg .b32 %a<" +
           std::to_string(kWords) + ">;\n\t.reg .b64 %d<" + std::to_string(kWides) +
           ">;\n\t.reg .b32 %c<8>;\n\t.reg .b64 %x<4>;\n";
    // Every register starts with a value of its own class.
    emit("mov.u32 %a0, %tid.x;");       // divergent
    emit("mov.u32 %a1, %ctaid.x;");     // CTA-uniform
    emit("ld.param.u32 %a2, [s];");     // CTA-uniform, read-only
    emit("shr.u32 %a3, %a0, 5;");       // warp-uniform
    emit("mul.lo.u32 %a4, %a1, %a2;");  // CTA-uniform
    emit("mad.lo.s32 %a5, %a0, 4, 8;"); // affine
    emit("mov.u32 %a6, 12345;");        // constant
    emit("xor.b32 %a7, %a0, %a2;");     // divergent
    for (int i = 8; i < kWords; ++i)
      emit("add.u32 %a" + std::to_string(i) + ", " + word() + ", " + std::to_string(i * 977) + ";");
    emit("cvt.u64.u32 %d0, %a0;");
    emit("mul.wide.u32 %d1, %a2, 1000003;");
    for (int i = 2; i < kWides; ++i)
      emit("mul.wide.u32 %d" + std::to_string(i) + ", " + word() + ", " + word() + ";");
    emit("setp.lt.u32 %p0, %a0, 40;");
    emit("setp.ne.u32 %p1, %a3, 1;");
    block(24, 0);
    // out[(ctaid * ntid + tid) * words] = every register.
    emit("mov.u32 %c0, %ntid.x;");
    emit("mov.u32 %c1, %ctaid.x;");
    emit("mov.u32 %c2, %tid.x;");
    emit("mad.lo.u32 %c0, %c1, %c0, %c2;");
    emit("mul.wide.u32 %x1, %c0, " + std::to_string(4 * (kWords + 2 * kWides)) + ";");
    emit("ld.param.u64 %x0, [out];");
    emit("add.s64 %x0, %x0, %x1;");
    for (int i = 0; i < kWords; ++i)
      emit("st.global.u32 [%x0+" + std::to_string(4 * i) + "], %a" + std::to_string(i) + ";");
    for (int i = 0; i < kWides; ++i)
      emit("st.global.u64 [%x0+" + std::to_string(4 * kWords + 8 * i) + "], %d" + std::to_string(i) + ";");
    out_ += "\tret;\n}\n";
    return out_;
  }

private:
  void emit(const std::string &line) { out_ += "\t" + line + "\n"; }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string word() { return "%a" + std::to_string(pick(kWords)); }
  std::string wide() { return "%d" + std::to_string(pick(kWides)); }
  std::string pred() { return "%p" + std::to_string(pick(4)); }

  /// `n` statements; loops and branches nest to depth 2.
  void block(int n, int depth) {
    for (int k = 0; k < n; ++k) {
      const int what = pick(depth < 2 ? 12 : 10);
      switch (what) {
      case 0: emit("add.u32 " + word() + ", " + word() + ", " + word() + ";"); break;
      case 1: emit("xor.b32 " + word() + ", " + word() + ", " + word() + ";"); break;
      case 2:
        emit("mul.lo.u32 " + word() + ", " + word() + ", " + std::to_string(pick(1000) + 1) + ";");
        break;
      case 3: emit("shr.u32 " + word() + ", " + word() + ", " + std::to_string(pick(31)) + ";"); break;
      case 4: emit("add.u64 " + wide() + ", " + wide() + ", " + wide() + ";"); break;
      case 5: emit("mul.wide.u32 " + wide() + ", " + word() + ", " + word() + ";"); break;
      case 6: emit("cvt.u32.u64 " + word() + ", " + wide() + ";"); break;
      case 7: emit("setp.lt.u32 " + pred() + ", " + word() + ", " + word() + ";"); break;
      case 8: emit("selp.b32 " + word() + ", " + word() + ", " + word() + ", " + pred() + ";"); break;
      case 9: emit("@" + pred() + " add.u32 " + word() + ", " + word() + ", 7;"); break;
      case 10: { // a loop of 1 to 4 iterations, the same count in every thread
        const std::string c = "%c" + std::to_string(4 + depth), label = "$L" + std::to_string(labels_++);
        emit("and.b32 %c3, %a2, 3;");
        emit("mov.u32 " + c + ", 0;");
        out_ += label + ":\n";
        block(4 + pick(5), depth + 1);
        emit("add.u32 " + c + ", " + c + ", 1;");
        emit("setp.le.u32 %p3, " + c + ", %c3;");
        emit("@%p3 bra " + label + ";");
        emit("and.b32 %c3, %a2, 3;"); // a new value: the inner block may have changed %c3's source
        break;
      }
      default: { // a divergent branch on a thread-id bit
        const std::string label = "$L" + std::to_string(labels_++);
        emit("and.b32 %c2, %a0, " + std::to_string(1 << pick(6)) + ";");
        emit("setp.eq.u32 %p2, %c2, 0;");
        emit("@%p2 bra " + label + ";");
        block(3 + pick(4), depth + 1);
        out_ += label + ":\n";
        break;
      }
      }
    }
  }

  std::mt19937 rng_;
  std::string out_;
  int labels_ = 0;
};

std::string allocate(const std::string &ptx, const analysis::PassOptions &options, std::string &problem) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptx, "random.ptx", diags);
  std::string error;
  std::optional<analysis::PassManager> pm = analysis::makePipeline("regalloc,verify", diags, error, options);
  if (!pm) {
    problem = error;
    return "";
  }
  analysis::AnalysisManager am(*m);
  if (!pm->run(*m, am)) {
    problem = diags.all().empty() ? "the pipeline failed" : diags.all().front().renderText();
    return "";
  }
  for (const std::string &remark : pm->passes()[0]->remarks())
    if (remark.find("unchanged") != std::string::npos) problem = remark;
  const unsigned budget = static_cast<unsigned>(std::stoul(options.at("max-registers")));
  for (const ptx::Function &fn : m->functions)
    if (std::string wrong = regalloc::checkAllocation(*m, fn, am, budget); !wrong.empty()) problem = wrong;
  return ptx::writeModule(*m);
}

TEST(RegAllocFuzz, RandomProgramsComputeTheSameAfterAllocation) {
  regalloc::registerPasses();
  using ptxvm::test::Arg;
  const size_t bytes = 2 * 64 * 4 * (kWords + 2 * kWides);
#ifdef PTXVM_SANITIZED
  const uint32_t seeds = 8; // the sanitizer build: the same paths on fewer programs
#else
  const uint32_t seeds = 60;
#endif
  for (uint32_t seed = 0; seed < seeds; ++seed) {
    const std::string ptx = ptxvm::test::ptxModule(ProgramWriter(seed).kernel());
    const std::vector<Arg> args = {Arg::array(std::vector<uint8_t>(bytes, 0)),
                                   Arg::scalar<uint32_t>(seed * 7 + 3)};
    ptxvm::test::EmuRun want = ptxvm::test::runKernel(ptx, "f", {2, 1, 1}, {64, 1, 1}, args);
    ASSERT_TRUE(want.result.ok) << "seed " << seed << ": the original does not run\n" << ptx;
    for (const char *k : {"8", "10", "12", "16", "24"})
      for (const char *allocator : {"linear-scan", "graph-coloring"})
        for (const std::string mode : {"divergence", "local", "auto", "reload", "spill-everywhere"}) {
          const std::string spill = mode == "reload" || mode == "spill-everywhere" ? "divergence" : mode;
          const std::string reload = mode == "reload" ? "yes" : "no";
          const std::string split = mode == "spill-everywhere" ? "no" : "yes";
          SCOPED_TRACE("seed " + std::to_string(seed) + " --max-registers=" + k + " --allocator=" +
                       allocator + " --spill=" + spill + " --reload=" + reload + " --split=" + split);
          std::string problem;
          const std::string allocated = allocate(ptx,
                                                 {{"max-registers", k},
                                                  {"allocator", allocator},
                                                  {"spill", spill},
                                                  {"reload", reload},
                                                  {"split", split}},
                                                 problem);
          if (spill != "auto") {
            ASSERT_EQ(problem, "") << ptx;
          }
          ptxvm::test::EmuRun got = ptxvm::test::runKernel(allocated, "f", {2, 1, 1}, {64, 1, 1}, args);
          ASSERT_TRUE(got.result.ok) << allocated;
          if (got.buffers != want.buffers) {
            // The first word that differs, by register.
            const auto &a = want.buffers[0], &b = got.buffers[0];
            size_t at = 0;
            while (at < a.size() && a[at] == b[at]) ++at;
            const size_t perThread = 4 * (kWords + 2 * kWides), word = (at % perThread) / 4;
            FAIL() << "the allocated program stores something else: thread " << at / perThread << ", "
                   << (word < kWords ? "%a" + std::to_string(word)
                                     : "%d" + std::to_string((word - kWords) / 2))
                   << "\n--- original\n"
                   << ptx << "\n--- allocated\n"
                   << allocated;
          }
        }
  }
}

} // namespace
