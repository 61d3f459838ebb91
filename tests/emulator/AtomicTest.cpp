// Atomics under contention: many threads (on several host threads, in a
// random schedule) hitting one word. The differential test checks each
// atom/red form on private words; this checks what only sharing shows:
// no update lost, every old value handed out once, inc/dec wrapping, a
// compare-and-swap loop, and floating-point adds rounding one at a time.
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

using namespace ptxvm::test;

namespace {

constexpr unsigned kBlocks = 8, kThreads = 128, kTotal = kBlocks * kThreads;

/// A kernel where each thread runs `body` with %rd1 = the shared word's
/// address (parameter 0), %rd2 = its own output slot (8 bytes, parameter 1)
/// and %r1 = its global index.
std::string kernel(const std::string &body) {
  return ptxModule(R"(
.visible .entry k(.param .u64 word, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b16 %h<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  .shared .align 8 .b64 sword;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r1, %r2, %r3, %r4;
  ld.param.u64 %rd1, [word];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd2, %rd2, %rd3;
)" + body + R"(
  ret;
}
)",
                   "sm_90", "8.0");
}

/// Runs `body` over kTotal threads on 4 host threads in a random schedule;
/// the shared word starts as `initial`. Returns {final word, outputs}.
std::pair<uint64_t, std::vector<uint64_t>> run(const std::string &body, uint64_t initial) {
  EmuRun r =
      runKernel(kernel(body), "k", {kBlocks}, {kThreads},
                {Arg::array(std::vector<uint64_t>{initial}), Arg::array(std::vector<uint64_t>(kTotal))},
                /*hostThreads=*/4, 0, 100'000'000, /*randomSchedule=*/true, /*seed=*/7);
  EXPECT_TRUE(r.result.ok) << body << "\n" << r.diags.renderText();
  if (!r.result.ok) return {0, std::vector<uint64_t>(kTotal)};
  return {r.buffer<uint64_t>(0)[0], r.buffer<uint64_t>(1)};
}

TEST(EmulatorAtomic, AddHandsOutEveryOldValueOnce) {
  auto [word, old] =
      run("  atom.global.add.u32 %r5, [%rd1], 1;\n  cvt.u64.u32 %rd4, %r5;\n  st.u64 [%rd2], %rd4;", 0);
  EXPECT_EQ(word, kTotal);
  std::sort(old.begin(), old.end());
  for (unsigned i = 0; i < kTotal; ++i) ASSERT_EQ(old[i], i);
}

TEST(EmulatorAtomic, SixtyFourBitAddCarriesAcrossTheHalves) {
  // Each thread adds 2^31 + its index: the sum passes 2^32 many times.
  auto [word, old] = run(R"(
  cvt.u64.u32 %rd4, %r1;
  add.u64 %rd4, %rd4, 2147483648;
  atom.global.add.u64 %rd5, [%rd1], %rd4;
  st.u64 [%rd2], %rd5;)",
                         5);
  uint64_t want = 5 + uint64_t(kTotal) * (1ull << 31) + uint64_t(kTotal) * (kTotal - 1) / 2;
  EXPECT_EQ(word, want);
}

TEST(EmulatorAtomic, MinMaxAndBitwiseOpsAgreeWithTheSequentialResult) {
  // Values 1000 - i (signed): min is 1000 - 1023 = -23, max stays 1000.
  auto [minWord, o1] = run("  sub.s32 %r5, 1000, %r1;\n  atom.global.min.s32 %r6, [%rd1], %r5;", 1000);
  EXPECT_EQ(uint32_t(minWord), uint32_t(-23));
  auto [maxWord, o2] = run("  sub.s32 %r5, 1000, %r1;\n  atom.global.max.u32 %r6, [%rd1], %r5;", 0);
  EXPECT_EQ(uint32_t(maxWord), 0xFFFFFFFFu) << "1000 - 1001 is the largest as unsigned";
  auto [orWord, o3] =
      run("  and.b32 %r5, %r1, 31;\n  shl.b32 %r5, 1, %r5;\n  atom.global.or.b32 %r6, [%rd1], %r5;", 0);
  EXPECT_EQ(uint32_t(orWord), 0xFFFFFFFFu);
  // Each bit is flipped 32 times by xor: back to the start.
  auto [xorWord, o4] = run(
      "  and.b32 %r5, %r1, 31;\n  shl.b32 %r5, 1, %r5;\n  atom.global.xor.b32 %r6, [%rd1], %r5;", 0x12345678);
  EXPECT_EQ(uint32_t(xorWord), 0x12345678u);
  auto [andWord, o5] = run("  not.b32 %r5, %r1;\n  atom.global.and.b32 %r6, [%rd1], %r5;", 0xFFFFFFFF);
  EXPECT_EQ(uint32_t(andWord), 0xFFFFFC00u) << "every index below 1024 cleared its bits";
}

TEST(EmulatorAtomic, IncAndDecWrapAtTheBound) {
  // inc: old >= 9 ? 0 : old + 1. 1024 increments from 0 end at 1024 mod 10.
  auto [inc, incOld] =
      run("  atom.global.inc.u32 %r5, [%rd1], 9;\n  cvt.u64.u32 %rd4, %r5;\n  st.u64 [%rd2], %rd4;", 0);
  EXPECT_EQ(inc, 4u);
  std::map<uint64_t, unsigned> seen;
  for (uint64_t v : incOld) ++seen[v];
  ASSERT_EQ(seen.size(), 10u);
  for (auto [v, n] : seen) EXPECT_EQ(n, v < 4 ? 103u : 102u) << "old value " << v;
  // dec: (old == 0 || old > 9) ? 9 : old - 1. From 0: 9, 8, ..., 0, 9, ...
  auto [dec, decOld] = run("  atom.global.dec.u32 %r5, [%rd1], 9;", 0);
  EXPECT_EQ(dec, 6u);
  // A start above the bound wraps at once: inc gives 0, dec gives 9.
  auto [inc2, o1] = run("  setp.eq.u32 %p1, %r1, 0;\n  @%p1 atom.global.inc.u32 %r5, [%rd1], 9;", 50);
  EXPECT_EQ(inc2, 0u);
  auto [dec2, o2] = run("  setp.eq.u32 %p1, %r1, 0;\n  @%p1 atom.global.dec.u32 %r5, [%rd1], 9;", 50);
  EXPECT_EQ(dec2, 9u);
}

TEST(EmulatorAtomic, CompareAndSwapLoopLosesNoIncrement) {
  // Global, then shared (each block counts its own threads into the shared
  // word, then one thread adds the block's count to the global word).
  auto [global, o1] = run(R"(
  ld.global.u32 %r5, [%rd1];
RETRY:
  add.u32 %r6, %r5, 3;
  atom.global.cas.b32 %r7, [%rd1], %r5, %r6;
  setp.ne.u32 %p1, %r7, %r5;
  mov.u32 %r5, %r7;
  @%p1 bra RETRY;)",
                          0);
  EXPECT_EQ(global, 3u * kTotal);
  auto [shared, o2] = run(R"(
  setp.eq.u32 %p2, %r4, 0;
  @%p2 st.shared.u32 [sword], 0;
  bar.sync 0;
  ld.shared.u32 %r5, [sword];
RETRY:
  add.u32 %r6, %r5, 1;
  atom.shared.cas.b32 %r7, [sword], %r5, %r6;
  setp.ne.u32 %p1, %r7, %r5;
  mov.u32 %r5, %r7;
  @%p1 bra RETRY;
  bar.sync 0;
  ld.shared.u32 %r8, [sword];
  @%p2 red.global.add.u32 [%rd1], %r8;)",
                          0);
  EXPECT_EQ(shared, kTotal);
}

TEST(EmulatorAtomic, ExchangeChainsEveryValue) {
  // Each thread swaps in its index + 1: the old values and the final word
  // are the initial 0 and 1..1024, each once.
  auto [word, old] = run(R"(
  add.u32 %r5, %r1, 1;
  atom.global.exch.b32 %r6, [%rd1], %r5;
  cvt.u64.u32 %rd4, %r6;
  st.u64 [%rd2], %rd4;)",
                         0);
  old.push_back(word);
  std::sort(old.begin(), old.end());
  for (unsigned i = 0; i <= kTotal; ++i) ASSERT_EQ(old[i], i);
}

TEST(EmulatorAtomic, FloatingAddsRoundOneAtATime) {
  // 0.25 and 0.5 sums are exact in f32/f64 in any order.
  auto [f32, o1] = run("  atom.global.add.f32 %f1, [%rd1], 0f3E800000;", 0);
  EXPECT_EQ(uint32_t(f32), 0x43800000u) << "256.0";
  auto [f64, o2] = run("  atom.global.add.f64 %fd1, [%rd1], 0d3FE0000000000000;", 0);
  EXPECT_EQ(f64, 0x4080000000000000ull) << "512.0";
  // f16x2: +1.0 in the low half, +2.0 in the high half, both exact to 2048.
  auto [h2, o3] = run("  mov.b32 %r5, 0x40003C00;\n  atom.global.add.noftz.f16x2 %r6, [%rd1], %r5;", 0);
  EXPECT_EQ(uint32_t(h2), 0x68006400u) << "{2048.0, 1024.0}";
  // bf16 keeps 8 significant bits: once the sum is 256, adding 1.0 rounds
  // back to 256 (ties to even), whatever the order.
  auto [bf, o4] = run("  mov.b16 %h1, 0x3F80;\n  atom.global.add.noftz.bf16 %h2, [%rd1], %h1;", 0);
  EXPECT_EQ(uint16_t(bf), 0x4380u) << "256.0";
}

} // namespace

namespace {

/// One thread reduces 64 bytes of shared memory (filled with `fill`, a
/// 32-bit pattern) into global memory (`initial`) with `reduce` (operands
/// [%rd1] global, [%r1] shared, size 64); returns the global bytes.
std::vector<uint32_t> bulkReduce(const std::string &reduce, uint32_t fill,
                                 const std::vector<uint32_t> &initial) {
  std::string ptx = ptxModule(R"(
.visible .entry k(.param .u64 g)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 src[64];
  ld.param.u64 %rd1, [g];
  mov.u32 %r1, src;
  st.shared.v4.u32 [src], {)" + std::to_string(fill) +
                                  ", " + std::to_string(fill) + ", " + std::to_string(fill) + ", " +
                                  std::to_string(fill) + R"(};
  st.shared.v4.u32 [src+16], {)" + std::to_string(fill) +
                                  ", " + std::to_string(fill) + ", " + std::to_string(fill) + ", " +
                                  std::to_string(fill) + R"(};
  st.shared.v4.u32 [src+32], {)" + std::to_string(fill) +
                                  ", " + std::to_string(fill) + ", " + std::to_string(fill) + ", " +
                                  std::to_string(fill) + R"(};
  st.shared.v4.u32 [src+48], {)" + std::to_string(fill) +
                                  ", " + std::to_string(fill) + ", " + std::to_string(fill) + ", " +
                                  std::to_string(fill) + R"(};
  fence.proxy.async.shared::cta;
  createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
  )" + reduce + R"(;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)",
                              "sm_90", "8.0");
  EmuRun r = runKernel(ptx, "k", {1}, {1}, {Arg::array(initial)});
  EXPECT_TRUE(r.result.ok) << reduce << "\n" << r.diags.renderText();
  return r.result.ok ? r.buffer<uint32_t>(0) : std::vector<uint32_t>();
}

TEST(EmulatorAtomic, BulkReduceAppliesTheOperationPerElement) {
  const std::string into = "cp.reduce.async.bulk.global.shared::cta.bulk_group";
  // u32 add: 16 words.
  std::vector<uint32_t> start(16);
  for (unsigned i = 0; i < 16; ++i) start[i] = 0xFFFFFFF0u + i;
  auto d = bulkReduce(into + ".add.u32 [%rd1], [%r1], 64", 0x10, start);
  ASSERT_EQ(d.size(), 16u);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], i) << "wraps modulo 2^32";
  // s64 min: the pattern 0x80000001_80000001 is negative.
  d = bulkReduce(into + ".min.s64 [%rd1], [%r1], 64", 0x80000001u, std::vector<uint32_t>(16, 7));
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], 0x80000001u);
  // f32 add into global flushes a subnormal sum (as red.global.add.f32).
  d = bulkReduce(into + ".add.f32 [%rd1], [%r1], 64", 0x00000001u, std::vector<uint32_t>(16, 0x00000002u));
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], 0u);
  d = bulkReduce(into + ".add.f32 [%rd1], [%r1], 64", 0x3F800000u, std::vector<uint32_t>(16, 0x40000000u));
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], 0x40400000u) << "1 + 2 = 3";
  // f16 .noftz add keeps subnormals: 0x0001 + 0x0001 in each half.
  d = bulkReduce(into + ".add.noftz.f16 [%rd1], [%r1], 64", 0x00010001u,
                 std::vector<uint32_t>(16, 0x00010001u));
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], 0x00020002u);
  // bf16 min with a cache policy: -1.0 (0xBF80) against 2.0 (0x4000) and NaN.
  d = bulkReduce(into + ".L2::cache_hint.min.bf16 [%rd1], [%r1], 64, %rd2", 0xBF80BF80u,
                 std::vector<uint32_t>(16, 0x7FC04000u));
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], 0xBF80BF80u) << "NaN is ignored, -1 < 2";
  // A size of 0 changes nothing.
  d = bulkReduce(into + ".add.u32 [%rd1], [%r1], 0", 5, std::vector<uint32_t>(16, 9));
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(d[i], 9u);
}

TEST(EmulatorAtomic, BulkReduceIntoSharedCompletesTheTransactionBytes) {
  // inc with bound 3 from shared to shared, completing 32 bytes on an
  // mbarrier that expects them; the wait returns, and each word wrapped.
  std::string ptx = ptxModule(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b32 src[8];
  .shared .align 16 .b32 dst[8];
  .shared .align 8 .b64 bar;
  st.shared.v4.u32 [src], {3, 3, 3, 3};
  st.shared.v4.u32 [src+16], {3, 3, 3, 3};
  st.shared.v4.u32 [dst], {0, 1, 2, 3};
  st.shared.v4.u32 [dst+16], {4, 5, 6, 7};
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 32;
  mov.u32 %r1, dst;
  mov.u32 %r2, src;
  mov.u32 %r3, bar;
  cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.inc.u32 [%r1], [%r2], 32, [%r3];
WAIT:
  mbarrier.try_wait.shared::cta.b64 %p, [bar], %rd1;
  @!%p bra WAIT;
  ld.param.u64 %rd2, [out];
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [dst];
  st.global.v4.u32 [%rd2], {%r4, %r5, %r6, %r7};
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [dst+16];
  st.global.v4.u32 [%rd2+16], {%r4, %r5, %r6, %r7};
  ret;
}
)",
                              "sm_90", "8.0");
  EmuRun r = runKernel(ptx, "k", {1}, {1}, {Arg::array(std::vector<uint32_t>(8))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  // inc: old >= 3 ? 0 : old + 1.
  EXPECT_EQ(r.buffer<uint32_t>(0), (std::vector<uint32_t>{1, 2, 3, 0, 0, 0, 0, 0}));
}

} // namespace

namespace {

// .b128 (sm_90): 64 threads add 1 to a 128-bit counter with a cas loop (the
// carry crosses from the low to the high half), and swap a 128-bit value in
// with exch; ld/st.b128 and mov.b128 pack and unpack around them.
TEST(EmulatorAtomic, Cas128AndExch128) {
  std::string ptx = ptxModule(R"(
.visible .entry k(.param .u64 counter, .param .u64 slot, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b128 %q<6>;
  .reg .b64 %rd<16>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [slot];
  ld.param.u64 %rd3, [out];
  ld.global.b128 %q1, [%rd1];
RETRY:
  mov.b128 {%rd4, %rd5}, %q1;
  add.cc.u64 %rd6, %rd4, 1;
  addc.u64 %rd7, %rd5, 0;
  mov.b128 %q2, {%rd6, %rd7};
  atom.global.cas.b128 %q3, [%rd1], %q1, %q2;
  mov.b128 {%rd8, %rd9}, %q3;
  setp.ne.u64 %p1, %rd8, %rd4;
  setp.ne.u64 %p2, %rd9, %rd5;
  or.pred %p1, %p1, %p2;
  mov.b128 %q1, %q3;
  @%p1 bra RETRY;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd10, %r1;
  add.u64 %rd11, %rd10, 1000;
  mov.b128 %q4, {%rd10, %rd11};
  atom.exch.b128 %q5, [%rd2], %q4;
  mul.wide.u32 %rd12, %r1, 16;
  add.u64 %rd13, %rd3, %rd12;
  st.global.b128 [%rd13], %q5;
  ret;
}
)",
                              "sm_90", "8.3");
  const uint64_t start = ~uint64_t{0} - 31; // 2^64 - 32: the 33rd increment carries
  EmuRun r = runKernel(ptx, "k", {1}, {64},
                       {Arg::array(std::vector<uint64_t>{start, 5}),
                        Arg::array(std::vector<uint64_t>{77, 78}), Arg::array(std::vector<uint64_t>(128))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  auto counter = r.buffer<uint64_t>(0);
  EXPECT_EQ(counter[0], 32u);
  EXPECT_EQ(counter[1], 6u);
  // Every exchange returned what was there before it: the first one the
  // initial value, the others another thread's; together with what is left
  // in the slot, each value once.
  auto slot = r.buffer<uint64_t>(1);
  auto out = r.buffer<uint64_t>(2);
  std::vector<uint64_t> seen{slot[0]};
  EXPECT_EQ(slot[1], slot[0] + 1000);
  for (unsigned t = 0; t < 64; ++t) {
    if (out[2 * t] == 77) {
      EXPECT_EQ(out[2 * t + 1], 78u);
      continue;
    }
    EXPECT_EQ(out[2 * t + 1], out[2 * t] + 1000);
    seen.push_back(out[2 * t]);
  }
  std::sort(seen.begin(), seen.end());
  for (uint64_t t = 0; t < 64; ++t) EXPECT_EQ(seen.at(t), t);
}

} // namespace

// A vector access of at most 16 bytes is one access per thread, as on the GPU: a reader never
// sees half of another CTA's store. CUB's decoupled look-back (Thrust's reduce_by_key, scans)
// packs a tile's status with its value into 16 bytes, written with one st.relaxed.gpu.v2.u64
// and read with one ld.relaxed.gpu.v2.u64 by CTAs running on other host threads. Here every
// CTA stores {v, v} (and {w, w, w, w}) with its own v and loads the slot back, counting the
// loads whose parts differ, while CTAs on the other host thread do the same.
TEST(EmulatorAtomic, VectorAccessesOfSixteenBytesAreNeverTorn) {
  const std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry tear(.param .u64 slots, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<8>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [slots];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
LOOP:
  mov.b64 %rd3, {%r3, %r2};
  st.relaxed.gpu.global.v2.u64 [%rd1], {%rd3, %rd3};
  xor.b32 %r5, %r3, %r2;
  st.relaxed.gpu.global.v4.u32 [%rd1+16], {%r5, %r5, %r5, %r5};
  ld.relaxed.gpu.global.v2.u64 {%rd4, %rd5}, [%rd1];
  setp.ne.u64 %p1, %rd4, %rd5;
  selp.u32 %r6, 1, 0, %p1;
  add.u32 %r4, %r4, %r6;
  ld.relaxed.gpu.global.v4.u32 {%r7, %r8, %r9, %r10}, [%rd1+16];
  setp.ne.u32 %p1, %r7, %r10;
  setp.ne.u32 %p2, %r8, %r9;
  or.pred %p1, %p1, %p2;
  setp.ne.u32 %p2, %r7, %r8;
  or.pred %p1, %p1, %p2;
  selp.u32 %r6, 1, 0, %p1;
  add.u32 %r4, %r4, %r6;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p3, %r3, %r1;
  @%p3 bra LOOP;
  red.global.add.u32 [%rd2], %r4;
  red.global.add.u32 [%rd2+4], %r3;
  ret;
}
)";
  EmuRun r = runKernel(ptx, "tear", {64}, {1},
                       {Arg::array(std::vector<uint32_t>(8)), Arg::array(std::vector<uint32_t>(2)),
                        Arg::scalar<uint32_t>(20000)},
                       2);
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  const std::vector<uint32_t> out = r.buffer<uint32_t>(1);
  EXPECT_EQ(out[0], 0u) << "torn reads in " << out[1] << " loops";
  EXPECT_EQ(out[1], 64u * 20000u);
}
