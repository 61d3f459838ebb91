// --unchecked (JitOptions::checked off): a warp's scattered accesses are
// checked at the first executing lane only and the other lanes clamped into
// that lane's allocation. In-bounds kernels compute what they compute
// checked; a stray lane reads and writes inside its warp's allocation,
// never a neighbouring allocation or host memory; a stray first lane is
// reported as always.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

// out[idx[t]] = a[idx[t]]: the index load is consecutive, the load of a and
// the store to out are scattered (no fact settles them).
const char *kGather = R"(
.visible .entry g(.param .u64 a, .param .u64 idx, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %d<8>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %d0, [a];
  ld.param.u64 %d1, [idx];
  ld.param.u64 %d2, [out];
  mul.wide.u32 %d3, %r0, 4;
  add.u64 %d4, %d1, %d3;
  ld.global.u32 %r1, [%d4];
  mul.wide.s32 %d5, %r1, 4;
  add.u64 %d6, %d0, %d5;
  ld.global.u32 %r2, [%d6];
  add.u64 %d7, %d2, %d5;
  st.global.u32 [%d7], %r2;
  ret;
}
)";

// out[t] = buf[idx[t]] from shared memory that every thread filled with
// 1000 + its index (64 words, 64 threads): a scattered shared load.
const char *kShared = R"(
.visible .entry s(.param .u64 idx, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %d<6>;
  .shared .align 4 .b32 buf[64];
  mov.u32 %r0, %tid.x;
  ld.param.u64 %d1, [idx];
  ld.param.u64 %d2, [out];
  mul.wide.u32 %d3, %r0, 4;
  add.u64 %d4, %d1, %d3;
  ld.global.u32 %r1, [%d4];
  mov.u32 %r5, buf;
  shl.b32 %r6, %r0, 2;
  add.u32 %r2, %r5, %r6;
  add.u32 %r7, %r0, 1000;
  st.shared.u32 [%r2], %r7;
  bar.sync 0;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r5, %r3;
  ld.shared.u32 %r6, [%r4];
  add.u64 %d5, %d2, %d3;
  st.global.u32 [%d5], %r6;
  ret;
}
)";

constexpr unsigned kWords = 64;

enum class Engine { Interpreter, Checked, Unchecked };

struct UncheckedOutcome {
  bool ok = false;
  std::string diagnostics;
  std::vector<uint32_t> out, neighbours; // out's words; the words of the allocations around a and out
};

UncheckedOutcome run(const ptx::Module &m, Engine engine, const std::vector<int32_t> &idx) {
  emu::Device device;
  ptx::DiagnosticList diags;
  UncheckedOutcome o;
  auto k = device.decode(m, "g", diags);
  if (!k) {
    o.diagnostics = diags.renderText();
    return o;
  }
  std::unique_ptr<emu::Engine> compiled;
  if (engine != Engine::Interpreter) {
    translator::JitOptions options;
    options.eager = true;
    options.diskCache = false;
    options.checked = engine == Engine::Checked;
    translator::CompileReport report;
    compiled = translator::CompiledEngine::compile(*k, options, report);
    if (!compiled) {
      o.diagnostics = report.error;
      return o;
    }
    EXPECT_EQ(report.unchecked, engine == Engine::Unchecked);
  }
  // Each buffer between two others, all filled with a marker.
  std::vector<uint64_t> buffers;
  for (int i = 0; i < 7; ++i) buffers.push_back(device.global.allocate(kWords * 4));
  const std::vector<uint32_t> marker(kWords, 0xDEADBEEF);
  for (uint64_t b : buffers) device.global.write(b, marker.data(), kWords * 4);
  const uint64_t a = buffers[1], index = buffers[3], out = buffers[5];
  std::vector<uint32_t> values(kWords);
  for (unsigned i = 0; i < kWords; ++i) values[i] = 100 + i;
  device.global.write(a, values.data(), kWords * 4);
  device.global.write(index, idx.data(), idx.size() * 4);
  emu::LaunchConfig config;
  config.engine = compiled.get();
  config.grid = {1, 1, 1};
  config.block = {static_cast<uint32_t>(idx.size()), 1, 1};
  config.threads = 1;
  config.params.assign(k->paramBytes, 0);
  std::memcpy(&config.params[k->paramOffsets[0]], &a, 8);
  std::memcpy(&config.params[k->paramOffsets[1]], &index, 8);
  std::memcpy(&config.params[k->paramOffsets[2]], &out, 8);
  o.ok = device.launch(*k, config, diags).ok;
  o.diagnostics = diags.renderText();
  o.out.resize(kWords);
  device.global.read(out, o.out.data(), kWords * 4);
  for (int i : {0, 2, 4, 6}) {
    std::vector<uint32_t> words(kWords);
    device.global.read(buffers[i], words.data(), kWords * 4);
    o.neighbours.insert(o.neighbours.end(), words.begin(), words.end());
  }
  return o;
}

/// Lane l reads and writes word 1 + (l * 37) % 60 (a permutation of part of
/// 1..60: scattered, never consecutive), for a warp of `lanes` lanes.
std::vector<int32_t> scattered(unsigned lanes) {
  std::vector<int32_t> idx(lanes);
  for (unsigned l = 0; l < lanes; ++l) idx[l] = static_cast<int32_t>(1 + (l * 37) % 60);
  return idx;
}

std::unique_ptr<ptx::Module> parse() {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::ptxModule(kGather), "gather.ptx", diags);
  EXPECT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  return m;
}

TEST(Unchecked, InBoundsScatteredAccessesComputeAsChecked) {
  auto m = parse();
  ASSERT_TRUE(m);
  for (unsigned lanes : {32u, 23u}) {
    SCOPED_TRACE("lanes " + std::to_string(lanes));
    const std::vector<int32_t> idx = scattered(lanes);
    const UncheckedOutcome interpreted = run(*m, Engine::Interpreter, idx),
                           checked = run(*m, Engine::Checked, idx),
                           unchecked = run(*m, Engine::Unchecked, idx);
    ASSERT_TRUE(interpreted.ok) << interpreted.diagnostics;
    for (unsigned l = 0; l < lanes; ++l) EXPECT_EQ(interpreted.out[idx[l]], 100u + idx[l]);
    for (const UncheckedOutcome *o : {&checked, &unchecked}) {
      EXPECT_TRUE(o->ok) << o->diagnostics;
      EXPECT_EQ(o->out, interpreted.out);
      EXPECT_EQ(o->neighbours, interpreted.neighbours);
    }
  }
}

TEST(Unchecked, StrayLanesStayInsideTheirWarpsAllocation) {
  auto m = parse();
  ASSERT_TRUE(m);
  std::vector<int32_t> idx = scattered(32);
  idx[3] = 1000;    // far past the end of a and out
  idx[7] = -5;      // before their start
  idx[9] = 1 << 29; // into other allocations' range, were it not clamped
  idx[11] = 64;     // one past the end
  const UncheckedOutcome interpreted = run(*m, Engine::Interpreter, idx),
                         checked = run(*m, Engine::Checked, idx), unchecked = run(*m, Engine::Unchecked, idx);
  // Checked, as on the interpreter: the first stray lane is reported.
  EXPECT_FALSE(interpreted.ok);
  EXPECT_NE(interpreted.diagnostics.find("out-of-bounds"), std::string::npos) << interpreted.diagnostics;
  EXPECT_EQ(checked.ok, interpreted.ok);
  EXPECT_EQ(checked.diagnostics, interpreted.diagnostics);
  // Unchecked: no report; the other lanes computed as ever, strays past the
  // end went to the last word (reading a's last word), strays before the
  // start to the first; every neighbouring allocation untouched.
  EXPECT_TRUE(unchecked.ok) << unchecked.diagnostics;
  EXPECT_EQ(unchecked.diagnostics, "");
  for (unsigned l = 0; l < 32; ++l) {
    if (idx[l] >= 1 && idx[l] <= 60) {
      EXPECT_EQ(unchecked.out[idx[l]], 100u + idx[l]) << "lane " << l;
    }
  }
  EXPECT_EQ(unchecked.out[kWords - 1], 100u + kWords - 1);
  EXPECT_EQ(unchecked.out[0], 100u);
  EXPECT_EQ(unchecked.neighbours, std::vector<uint32_t>(4 * kWords, 0xDEADBEEF));
}

TEST(Unchecked, AStrayFirstLaneIsReportedAsChecked) {
  auto m = parse();
  ASSERT_TRUE(m);
  for (int32_t stray : {1000, -5}) {
    std::vector<int32_t> idx = scattered(32);
    idx[0] = stray;
    const UncheckedOutcome interpreted = run(*m, Engine::Interpreter, idx),
                           unchecked = run(*m, Engine::Unchecked, idx);
    EXPECT_FALSE(unchecked.ok);
    EXPECT_EQ(unchecked.diagnostics, interpreted.diagnostics);
    EXPECT_NE(unchecked.diagnostics.find("out-of-bounds"), std::string::npos) << unchecked.diagnostics;
  }
}

TEST(Unchecked, StraySharedLanesStayInsideSharedMemory) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::ptxModule(kShared), "shared.ptx", diags);
  ASSERT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  std::vector<int32_t> idx(64);
  for (unsigned t = 0; t < 64; ++t) idx[t] = static_cast<int32_t>((t * 37) % 64);
  idx[5] = 1000, idx[6] = -3, idx[40] = 1 << 28;
  for (bool checked : {true, false}) {
    emu::Device device;
    auto k = device.decode(*m, "s", diags);
    ASSERT_TRUE(k);
    translator::JitOptions options;
    options.eager = true;
    options.diskCache = false;
    options.checked = checked;
    translator::CompileReport report;
    auto engine = translator::CompiledEngine::compile(*k, options, report);
    ASSERT_TRUE(engine) << report.error;
    const uint64_t in = device.global.allocate(256), out = device.global.allocate(256);
    device.global.write(in, idx.data(), 256);
    emu::LaunchConfig config;
    config.engine = engine.get();
    config.grid = {1, 1, 1};
    config.block = {64, 1, 1};
    config.threads = 1;
    config.params.assign(k->paramBytes, 0);
    std::memcpy(&config.params[k->paramOffsets[0]], &in, 8);
    std::memcpy(&config.params[k->paramOffsets[1]], &out, 8);
    ptx::DiagnosticList runDiags;
    const bool ok = device.launch(*k, config, runDiags).ok;
    std::vector<uint32_t> got(64);
    device.global.read(out, got.data(), 256);
    if (checked) {
      EXPECT_FALSE(ok);
      EXPECT_NE(runDiags.renderText().find("out-of-bounds"), std::string::npos) << runDiags.renderText();
      continue;
    }
    ASSERT_TRUE(ok) << runDiags.renderText();
    for (unsigned t = 0; t < 64; ++t) {
      if (t == 5 || t == 6 || t == 40) {
        EXPECT_GE(got[t], 1000u) << "lane " << t << " read inside shared memory";
        EXPECT_LT(got[t], 1064u) << "lane " << t;
      } else {
        EXPECT_EQ(got[t], 1000u + idx[t]) << "lane " << t;
      }
    }
  }
}

} // namespace
