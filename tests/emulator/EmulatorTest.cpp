// The emulator end to end: kernels with branches, divergence, shared memory,
// barriers, faults and deadlocks.
#include "tests/emulator/Harness.h"

#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

using namespace ptxvm::test;
using ptx::DiagKind;

namespace {

const char kVectorAdd[] = R"(
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd5, %r5, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r2, [%rd6];
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  ld.global.u32 %r3, [%rd8];
  add.s32 %r2, %r2, %r3;
  cvta.to.global.u64 %rd9, %rd3;
  add.s64 %rd9, %rd9, %rd5;
  st.global.u32 [%rd9], %r2;
DONE:
  ret;
}
)";

TEST(Emulator, VectorAddMatchesTheHost) {
  const uint32_t n = 1000;
  std::vector<uint32_t> a(1024), b(1024), c(1024, 7);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 100);
  for (unsigned threads : {1u, 2u}) {
    EmuRun r = runKernel(ptxModule(kVectorAdd), "vadd", {4}, {256},
                         {Arg::array(a), Arg::array(b), Arg::array(c), Arg::scalar(n)}, threads);
    ASSERT_TRUE(r.result.ok) << r.diags.renderText();
    auto out = r.buffer<uint32_t>(2);
    for (uint32_t i = 0; i < 1024; ++i) ASSERT_EQ(out[i], i < n ? a[i] + b[i] : 7u) << i;
    EXPECT_GT(r.result.stats.threadInstructions, 0u);
  }
}

TEST(Emulator, WarpSzIsThirtyTwo) {
  // nvcc reads CUDA's warpSize as PTX's predefined WARP_SZ; loops such as
  // `for (i = warpSize / 2; i > 0; i /= 2)` depend on it.
  const char *body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, WARP_SZ;
  shr.u32 %r2, %r1, 1;
  mul.lo.u32 %r3, %r2, WARP_SZ;
  st.global.v2.u32 [%rd1], {%r1, %r3};
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {1}, {Arg::array(std::vector<uint32_t>(2, 0))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  EXPECT_EQ(r.buffer<uint32_t>(0), (std::vector<uint32_t>{32, 512}));
}

TEST(Emulator, DivergentBranchesReconverge) {
  // Odd lanes add 100, even lanes add 1; all lanes then add 1000.
  const char *body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p, %r2, 1;
  @%p bra ODD;
  add.u32 %r3, %r1, 1;
  bra.uni JOIN;
ODD:
  add.u32 %r3, %r1, 100;
JOIN:
  add.u32 %r3, %r3, 1000;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {64}, {Arg::array(std::vector<uint32_t>(64))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  auto out = r.buffer<uint32_t>(0);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(out[i], i + (i % 2 ? 100 : 1) + 1000) << i;
  // The reconverged tail ran once per warp, not once per side.
  EXPECT_LT(r.result.stats.warpInstructions, 2u * 16);
}

TEST(Emulator, SharedMemoryReductionWithBarriers) {
  const char *body = R"(
.visible .entry reduce(.param .u64 in, .param .u64 out)
{
  .shared .align 4 .b32 buf[256];
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mov.u32 %r3, buf;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  mov.u32 %r6, 128;
LOOP:
  setp.ge.u32 %p1, %r1, %r6;
  @%p1 bra SKIP;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r5, %r7;
  ld.shared.u32 %r9, [%r8];
  ld.shared.u32 %r2, [%r5];
  add.u32 %r2, %r2, %r9;
  st.shared.u32 [%r5], %r2;
SKIP:
  bar.sync 0;
  shr.u32 %r6, %r6, 1;
  setp.ne.u32 %p2, %r6, 0;
  @%p2 bra LOOP;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  ld.shared.u32 %r2, [buf];
  st.global.u32 [%rd2], %r2;
END:
  ret;
}
)";
  std::vector<uint32_t> in(256);
  std::iota(in.begin(), in.end(), 1);
  EmuRun r = runKernel(ptxModule(body), "reduce", {1}, {256},
                       {Arg::array(in), Arg::array(std::vector<uint32_t>(1))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  EXPECT_EQ(r.buffer<uint32_t>(1)[0], 256u * 257 / 2);
}

TEST(Emulator, OutOfBoundsWriteIsReportedWithTheNearestAllocation) {
  const char *body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";
  // 32 threads write 32 words into a 31-word buffer: one past the end.
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {Arg::array(std::vector<uint32_t>(31))});
  EXPECT_FALSE(r.result.ok);
  EXPECT_EQ(r.result.error, "cudaErrorIllegalAddress");
  const ptx::Diagnostic *d = r.first(DiagKind::OutOfBounds);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_EQ(d->loc.line, 13u);
  EXPECT_NE(d->message.find("write of 4 bytes"), std::string::npos) << d->message;
  bool nearest = false;
  for (auto &[k, v] : d->fields)
    nearest |= k == "nearest" && v.find("0 bytes past its end") != std::string::npos;
  EXPECT_TRUE(nearest) << d->renderText();
}

TEST(Emulator, UnsupportedInstructionsAreReportedNotSkipped) {
  const char *body = R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 1;
  bfind.u32 %r2, %r1;
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {});
  // Either bfind runs, or it is reported: never silently skipped.
  if (!r.result.ok) {
    const ptx::Diagnostic *d = r.first(DiagKind::Unsupported);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    EXPECT_EQ(d->loc.line, 9u);
    EXPECT_EQ(r.result.error, "cudaErrorNotSupported");
  }
}

TEST(Emulator, InfiniteLoopStopsAtTheInstructionLimit) {
  const char *body = R"(
.visible .entry k()
{
LOOP:
  bra.uni LOOP;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {}, 1, 0, 100000);
  EXPECT_FALSE(r.result.ok);
  EXPECT_TRUE(r.has(DiagKind::InstructionLimit)) << r.diags.renderText();
}

} // namespace

namespace {

std::string readSource(const std::string &relative) {
  return readTextFile(std::string(PTXVM_SOURCE_DIR) + "/" + relative);
}

TEST(Emulator, IndexedBranchesSplitTheWarpPerTarget) {
  const uint32_t n = 200;
  std::vector<int32_t> ops(256), vals(256), out(256);
  uint64_t seed = 42;
  for (uint32_t i = 0; i < 256; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    ops[i] = static_cast<int32_t>(seed >> 33);
    vals[i] = static_cast<int32_t>(seed >> 7);
  }
  for (bool random : {false, true}) {
    EmuRun r = runKernel(readSource("kernels/ptx/brx_idx.ptx"), "jt_dispatch", {2}, {128},
                         {Arg::array(ops), Arg::array(vals), Arg::array(out), Arg::scalar(n)}, random ? 2 : 1,
                         0, 100'000'000, random, 7, false, /*statistics=*/true);
    ASSERT_TRUE(r.result.ok) << r.diags.renderText();
    auto got = r.buffer<int32_t>(2);
    for (uint32_t i = 0; i < 256; ++i) {
      int32_t x = vals[i], want = 0;
      switch (ops[i] & 7) {
      case 0: want = x + 1; break;
      case 1: want = static_cast<int32_t>(static_cast<uint32_t>(x) * 3u); break;
      case 2: want = x - 7; break;
      case 3: want = x ^ 0x5a; break;
      case 4: want = static_cast<int32_t>(static_cast<uint32_t>(x) << 2); break;
      case 5: want = x >> 1; break;
      case 6: want = ~x; break;
      case 7: want = static_cast<int32_t>(0u - static_cast<uint32_t>(x)); break;
      }
      ASSERT_EQ(got[i], i < n ? want : 0) << "element " << i;
    }
    EXPECT_GT(r.result.stats.divergentBranches, 0u);
  }
}

} // namespace

namespace {

// Device-function calls with the PTX calling convention: .param arguments
// and results, recursion with a register frame per call, and an indirect
// call through a register and a .callprototype.
const char kCalls[] = R"(
.func (.param .b32 ret) fib(.param .b32 n)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [n];
  setp.lt.u32 %p, %r1, 2;
  @%p bra BASE;
  add.u32 %r2, %r1, -1;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r3, [r0];
  }
  add.u32 %r2, %r1, -2;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r4, [r0];
  }
  add.u32 %r5, %r3, %r4;
  st.param.b32 [ret], %r5;
  ret;
BASE:
  st.param.b32 [ret], %r1;
  ret;
}

.func (.param .b32 ret) twice(.param .b32 x)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [x];
  shl.b32 %r1, %r1, 1;
  st.param.b32 [ret], %r1;
  ret;
}

.visible .entry calls(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 15;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r3, [r0];
  }
  mov.u64 %rd2, twice;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r3;
    call (r0), %rd2, (a0), proto;
    ld.param.b32 %r4, [r0];
  }
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

TEST(Emulator, CallsRecursionAndIndirectCalls) {
  EmuRun r = runKernel(ptxModule(kCalls), "calls", {1}, {64}, {Arg::array(std::vector<uint32_t>(64))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  auto out = r.buffer<uint32_t>(0);
  auto fib = [](uint32_t n) {
    uint32_t a = 0, b = 1;
    for (uint32_t i = 0; i < n; ++i) b = a + b, a = b - a;
    return a;
  };
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(out[i], 2 * fib(i & 15)) << i;
}

TEST(Emulator, CallsToFunctionsWithoutBodiesAreReported) {
  const char *body = R"(
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.visible .entry k()
{
  .reg .b64 %rd;
  {
    .param .b64 p0;
    .param .b64 p1;
    .param .b32 r0;
    st.param.b64 [p0], 0;
    st.param.b64 [p1], 0;
    call.uni (r0), vprintf, (p0, p1);
  }
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {});
  EXPECT_FALSE(r.result.ok);
  const ptx::Diagnostic *d = r.first(DiagKind::Unsupported);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_NE(d->message.find("'vprintf'"), std::string::npos) << d->message;
}

} // namespace

namespace {

// --racecheck: thread t writes s[t], then reads the word of thread
// t ^ (xorBytes / 4): for 128 that is a thread of the other warp, for 4 a
// lane of its own warp. `between` may order the two (bar.sync, bar.warp.sync).
std::string exchangeKernel(unsigned xorBytes, const std::string &between) {
  return ptxModule(R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b32 s[64];
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
)" + between + "  xor.b32 %r3, %r3, " +
                   std::to_string(xorBytes) + R"(;
  add.u32 %r4, %r2, %r3;
  ld.shared.u32 %r5, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)");
}
std::string raceKernel(bool withBarrier) { return exchangeKernel(128, withBarrier ? "  bar.sync 0;\n" : ""); }

TEST(Racecheck, ReportsUnorderedSharedAccessesOfDifferentWarps) {
  EmuRun racy = runKernel(raceKernel(false), "k", {1}, {64}, {Arg::array(std::vector<uint32_t>(64))}, 1, 0,
                          100'000'000, false, 0, true);
  EXPECT_TRUE(racy.result.ok) << "a race does not stop the kernel";
  const ptx::Diagnostic *d = racy.first(DiagKind::SharedRace);
  ASSERT_NE(d, nullptr) << racy.diags.renderText();
  EXPECT_NE(d->message.find("warp 1"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("warp 0"), std::string::npos) << d->message;
  // Both accesses are named: the store (line 15) and the load (line 18).
  std::string other;
  for (auto &[k, v] : d->fields)
    if (k == "other_line") other = v;
  EXPECT_TRUE((d->loc.line == 15 && other == "18") || (d->loc.line == 18 && other == "15"))
      << d->renderText();
}

TEST(Racecheck, BarriersOrderTheAccesses) {
  EmuRun ok = runKernel(raceKernel(true), "k", {2}, {64}, {Arg::array(std::vector<uint32_t>(128))}, 2, 0,
                        100'000'000, false, 0, true);
  ASSERT_TRUE(ok.result.ok) << ok.diags.renderText();
  EXPECT_FALSE(ok.has(DiagKind::SharedRace)) << ok.diags.renderText();
  auto out = ok.buffer<uint32_t>(0);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], t ^ 32u);
}

// Lanes of one warp run independently (sm_70+): only a bar.warp.sync or a
// barrier between lane l's write and its neighbour's read orders the two,
// running in lockstep does not.
TEST(Racecheck, LanesOfOneWarpAreOrderedOnlyBySyncwarpOrABarrier) {
  auto run = [](const char *between) {
    return runKernel(exchangeKernel(4, between), "k", {1}, {32}, {Arg::array(std::vector<uint32_t>(32))}, 1,
                     0, 100'000'000, false, 0, true);
  };
  EmuRun racy = run("");
  ASSERT_TRUE(racy.result.ok) << racy.diags.renderText();
  const ptx::Diagnostic *d = racy.first(DiagKind::SharedRace);
  ASSERT_NE(d, nullptr) << "lanes of one warp exchanged words without __syncwarp";
  EXPECT_NE(d->message.find("bar.warp.sync"), std::string::npos) << d->message;
  for (const char *sync : {"  bar.warp.sync -1;\n", "  bar.sync 0;\n"}) {
    EmuRun ok = run(sync);
    ASSERT_TRUE(ok.result.ok) << ok.diags.renderText();
    EXPECT_FALSE(ok.has(DiagKind::SharedRace)) << sync << ok.diags.renderText();
    auto out = ok.buffer<uint32_t>(0);
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t ^ 1u);
  }
}

// Atomics on one shared word from every warp do not race with each other;
// a plain read of the word by another warp without a barrier does.
TEST(Racecheck, AtomicsDoNotRaceWithAtomics) {
  auto kernel = [](bool plainRead) {
    return ptxModule(std::string(R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b32 s[1];
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  atom.shared.add.u32 %r2, [s], 1;
  red.shared.add.u32 [s], 1;
)") + (plainRead ? "  setp.eq.u32 %p1, %r1, 64;\n  @%p1 ld.shared.u32 %r2, [s];\n" : "") +
                     R"(
  bar.sync 0;
  ld.shared.u32 %r3, [s];
  st.global.u32 [%rd1], %r3;
  ret;
}
)");
  };
  EmuRun clean = runKernel(kernel(false), "k", {1}, {96}, {Arg::array(std::vector<uint32_t>(1))}, 1, 0,
                           100'000'000, false, 0, true);
  ASSERT_TRUE(clean.result.ok) << clean.diags.renderText();
  EXPECT_FALSE(clean.has(DiagKind::SharedRace)) << clean.diags.renderText();
  EXPECT_EQ(clean.buffer<uint32_t>(0)[0], 192u);
  EmuRun racy = runKernel(kernel(true), "k", {1}, {96}, {Arg::array(std::vector<uint32_t>(1))}, 1, 0,
                          100'000'000, false, 0, true);
  EXPECT_TRUE(racy.has(DiagKind::SharedRace)) << racy.diags.renderText();
}

} // namespace

namespace {

// cuda::barrier and cuda::memcpy_async as nvcc compiles them: mbarrier
// arrive/test_wait loops, cp.async (sm_80) and cp.async.bulk with
// mbarrier::complete_tx (sm_90), from the corpus (kernels/async_copy.cu).
std::string corpusPtx(const std::string &file) {
  return readTextFile(std::string(PTXVM_CORPUS_DIR) + "/" + file);
}

TEST(Async, MbarrierPhasesOrderSharedMemory) {
  std::string ptx = corpusPtx("async_copy.sm_80.ptx");
  if (ptx.empty()) GTEST_SKIP() << "corpus not built (nvcc missing): async_copy.sm_80.ptx";
  std::vector<int32_t> in(256);
  std::iota(in.begin(), in.end(), 7);
  EmuRun r = runKernel(ptx, "async_barrier_basic", {2}, {128},
                       {Arg::array(in), Arg::array(std::vector<int32_t>(256)), Arg::scalar(int32_t{256})}, 2);
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  auto out = r.buffer<int32_t>(1);
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 128; ++t) {
      int src = 127 - t;
      EXPECT_EQ(out[c * 128 + t], in[c * 128 + (src + 1) % 128] + 2 * src) << c << " " << t;
    }
}

TEST(Async, MemcpyAsyncThroughCpAsyncAndBulkCopies) {
  for (const char *file : {"async_copy.sm_80.ptx", "async_copy.sm_90.ptx"}) {
    std::string ptx = corpusPtx(file);
    if (ptx.empty()) GTEST_SKIP() << "corpus not built (nvcc missing): " << file;
    std::vector<float> in(1024);
    for (int i = 0; i < 1024; ++i) in[i] = static_cast<float>(i) * 0.5f;
    EmuRun r = runKernel(ptx, "async_memcpy_barrier", {2}, {128},
                         {Arg::array(in), Arg::array(std::vector<float>(1024)), Arg::scalar(int32_t{2})});
    ASSERT_TRUE(r.result.ok) << file << r.diags.renderText();
    auto out = r.buffer<float>(1);
    for (int i = 0; i < 1024; ++i) ASSERT_EQ(out[i], in[i] * 3.0f) << file << " " << i;
  }
}

} // namespace

namespace {

// A buffer freed by the host before the launch: the store is reported as
// use-after-free, with the freed allocation named.
TEST(Emulator, UseAfterFreeIsReported) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxModule(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], 1;
  ret;
}
)"),
                            "uaf.ptx", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  emu::Device device;
  auto k = device.decode(*m, "k", diags);
  ASSERT_NE(k, nullptr);
  uint64_t buffer = device.global.allocate(64);
  ASSERT_TRUE(device.global.free(buffer));
  EXPECT_FALSE(device.global.free(buffer)) << "a double free is refused";
  emu::LaunchConfig config;
  config.params.assign(k->paramBytes, 0);
  std::memcpy(config.params.data(), &buffer, 8);
  std::unique_ptr<emu::Engine> engine = testEngine(*k);
  config.engine = engine.get();
  emu::LaunchResult r = device.launch(*k, config, diags);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(runtime::launchError(diags), "cudaErrorIllegalAddress");
  ASSERT_FALSE(diags.all().empty());
  const ptx::Diagnostic &d = diags.all()[0];
  EXPECT_NE(d.message.find("use-after-free"), std::string::npos) << d.renderText();
  bool nearest = false;
  for (auto &[key, value] : d.fields)
    nearest |= key == "nearest" && value.find("freed allocation") != std::string::npos;
  EXPECT_TRUE(nearest) << d.renderText();
}

// A module that was not verified may name a symbol nothing defines: the
// decoder reports it at its line instead of giving it address 0.
TEST(Emulator, UnresolvedSymbolsAreReportedByTheDecoder) {
  const std::string text = ptxModule(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [missing];
  mov.u64 %rd2, nowhere;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  auto lineOf = [&](const std::string &s) {
    return 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + text.find(s), '\n'));
  };
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(text, "unresolved.ptx", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  emu::Device device;
  auto k = device.decode(*m, "k", diags);
  EXPECT_EQ(k, nullptr);
  ASSERT_EQ(diags.all().size(), 2u) << diags.renderText();
  const ptx::Diagnostic &load = diags.all()[0], &mov = diags.all()[1];
  EXPECT_EQ(load.severity, ptx::Severity::Error);
  EXPECT_EQ(load.loc.file, "unresolved.ptx");
  EXPECT_EQ(load.loc.line, lineOf("ld.global.u32 %r1, [missing]")) << load.renderText();
  EXPECT_EQ(load.loc.function, "k");
  EXPECT_NE(load.message.find("'missing'"), std::string::npos) << load.message;
  EXPECT_NE(load.sourceLine.find("ld.global.u32 %r1, [missing]"), std::string::npos) << load.renderText();
  EXPECT_EQ(mov.loc.line, lineOf("mov.u64 %rd2, nowhere")) << mov.renderText();
  EXPECT_NE(mov.message.find("'nowhere'"), std::string::npos) << mov.message;
}

// The barrier facts of the table's BARRIER rows, decoded once into each
// instruction for the barrier unit (kind, .aligned, where the id is).
TEST(Emulator, TheDecoderCopiesTheTablesBarrierFacts) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxModule(R"(
.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  bar.sync 1;
  barrier.sync 1, 64;
  barrier.sync.aligned 2;
  bar.arrive 3, 64;
  barrier.red.popc.u32 %r1, 4, %p1;
  barrier.cluster.arrive.aligned;
  add.u32 %r1, %r1, 1;
  ret;
}
)",
                                      "sm_90"),
                            "barriers.ptx", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  emu::Device device;
  auto k = device.decode(*m, "k", diags);
  ASSERT_NE(k, nullptr) << diags.renderText();
  using ptx::BarrierKind;
  struct Want {
    BarrierKind kind;
    bool aligned;
    uint8_t idOperand;
  } want[] = {{BarrierKind::Sync, true, 0},    {BarrierKind::Sync, false, 0},
              {BarrierKind::Sync, true, 0},    {BarrierKind::Arrive, true, 0},
              {BarrierKind::Reduce, false, 1}, {BarrierKind::ClusterArrive, true, 0},
              {BarrierKind::None, false, 0}};
  for (size_t i = 0; i < std::size(want); ++i) {
    const emu::DInstr &d = k->code[i];
    EXPECT_EQ(d.barrier, want[i].kind) << i;
    EXPECT_EQ(d.aligned, want[i].aligned) << i;
    EXPECT_EQ(d.barrierIdOperand, want[i].idOperand) << i;
  }
}

// Names that are not values stay out of it: labels, functions, prototypes.
TEST(Emulator, LabelsFunctionsAndPrototypesAreNotUnresolvedSymbols) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxModule(R"(
.func (.param .b32 r) twice(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  add.s32 %r1, %r1, %r1;
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, twice;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], 21;
    call (r0), %rd2, (a0), proto;
    ld.param.b32 %r1, [r0];
  }
  bra DONE;
DONE:
  st.global.u32 [%rd1], %r1;
  ret;
}
)"),
                            "names.ptx", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  emu::Device device;
  EXPECT_NE(device.decode(*m, "k", diags), nullptr) << diags.renderText();
  EXPECT_TRUE(diags.all().empty()) << diags.renderText();
}

} // namespace

namespace {

// isspacep on generic addresses of each space, made by cvta.
TEST(Emulator, IsspacepClassifiesGenericAddresses) {
  const char *body = R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b32 s[4];
  .local .align 4 .b32 loc[4];
  .reg .pred %p<7>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd2, s;
  cvta.shared.u64 %rd2, %rd2;
  mov.u64 %rd3, loc;
  cvta.local.u64 %rd3, %rd3;
  isspacep.global %p1, %rd1;
  isspacep.shared %p2, %rd2;
  isspacep.local %p3, %rd3;
  isspacep.global %p4, %rd2;
  isspacep.shared %p5, %rd3;
  isspacep.local %p6, %rd1;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 2, 0, %p2;
  selp.u32 %r3, 4, 0, %p3;
  selp.u32 %r4, 8, 0, %p4;
  selp.u32 %r5, 16, 0, %p5;
  selp.u32 %r6, 32, 0, %p6;
  or.b32 %r1, %r1, %r2;
  or.b32 %r1, %r1, %r3;
  or.b32 %r1, %r1, %r4;
  or.b32 %r1, %r1, %r5;
  or.b32 %r1, %r1, %r6;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {1}, {Arg::array(std::vector<uint32_t>(1))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  EXPECT_EQ(r.buffer<uint32_t>(0)[0], 7u);
}

// A host thread reuses the register file of the CTA it ran before (no
// allocation, no full clearing per CTA): registers a lane may read before
// writing them — live on entry, or read from another lane by a shuffle —
// still start at 0 in every CTA, whatever the previous CTA left there.
TEST(Emulator, RecycledRegisterFilesStartWhatALaneCanReadAtZero) {
  const char *body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %d<4>;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r5, %laneid;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 mov.u32 %r1, 0xdeadbeef;
  @%p0 mov.u32 %r3, 0xfeedface;
  setp.lt.u32 %p1, %r5, 16;
  @%p1 mov.u32 %r3, 7;
  shfl.sync.idx.b32 %r4, %r3, 20, 0x1f, -1;
  mov.u32 %r6, %tid.x;
  mad.lo.u32 %r7, %r0, 64, %r6;
  ld.param.u64 %d0, [out];
  mul.wide.u32 %d1, %r7, 8;
  add.u64 %d2, %d0, %d1;
  st.global.v2.u32 [%d2], {%r1, %r4};
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {3}, {64}, {Arg::array(std::vector<uint32_t>(3 * 64 * 2, 1))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  std::vector<uint32_t> out = r.buffer<uint32_t>(0);
  for (uint32_t cta = 0; cta < 3; ++cta)
    for (uint32_t t = 0; t < 64; ++t) {
      SCOPED_TRACE("CTA " + std::to_string(cta) + ", thread " + std::to_string(t));
      EXPECT_EQ(out[(cta * 64 + t) * 2], cta == 0 ? 0xdeadbeefu : 0u);
      EXPECT_EQ(out[(cta * 64 + t) * 2 + 1], cta == 0 ? 0xfeedfaceu : 0u);
    }
}

} // namespace
