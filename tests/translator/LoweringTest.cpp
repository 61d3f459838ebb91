// Forms that compiled code computes itself rather than through the
// interpreter's services, against the interpreter over launch shapes that
// take each path: special registers (lane constants, per-warp fields, %tid
// of 1-D blocks in compiled code and of 2-D/3-D blocks through the service)
// and cvta between every window.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Every thread stores 24 words: its special registers and cvta results.
const char *kKernel = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<30>;
  .reg .b64 %d<12>;
  .shared .align 4 .b32 s[4];
  .local .align 4 .b32 l[4];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %tid.y;
  mov.u32 %r2, %tid.z;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %ntid.z;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ctaid.z;
  mov.u32 %r9, %nctaid.x;
  mov.u32 %r10, %nctaid.y;
  mov.u32 %r11, %nctaid.z;
  mov.u32 %r12, %laneid;
  mov.u32 %r13, %warpid;
  mov.u32 %r14, %nwarpid;
  mov.u32 %r15, %lanemask_eq;
  mov.u32 %r16, %lanemask_le;
  mov.u32 %r17, %lanemask_lt;
  mov.u32 %r18, %lanemask_ge;
  mov.u32 %r19, %lanemask_gt;
  mov.u64 %d1, s;
  cvta.shared.u64 %d2, %d1;
  cvta.to.shared.u64 %d3, %d2;
  cvt.u32.u64 %r20, %d3;
  cvt.u32.u64 %r21, %d2;
  mov.u64 %d4, l;
  cvta.local.u64 %d5, %d4;
  cvta.to.local.u64 %d6, %d5;
  xor.b32 %r22, %r21, 12345;
  cvta.shared.u32 %r23, %r22;
  cvta.to.global.u64 %d7, %d5;
  cvt.u32.u64 %r24, %d7;
  cvt.u32.u64 %r25, %d6;
  mov.u32 %r26, %nsmid;
  mov.u32 %r27, %clock;
  // out + (linear thread index) * 96
  mad.lo.u32 %r28, %r1, %r3, %r0;
  mul.lo.u32 %r29, %r3, %r4;
  mad.lo.u32 %r28, %r2, %r29, %r28;
  mul.lo.u32 %r29, %r29, %r5;
  mad.lo.u32 %r29, %r6, %r29, %r28;
  ld.param.u64 %d8, [out];
  mul.wide.u32 %d9, %r29, 96;
  add.u64 %d10, %d8, %d9;
  st.global.v4.u32 [%d10], {%r0, %r1, %r2, %r3};
  st.global.v4.u32 [%d10+16], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%d10+32], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%d10+48], {%r12, %r13, %r14, %r15};
  st.global.v4.u32 [%d10+64], {%r16, %r17, %r18, %r19};
  st.global.v4.u32 [%d10+80], {%r20, %r23, %r24, %r25};
  ret;
}
)";

/// What a launch of kernel `name` (one parameter: a buffer of 96 bytes per
/// thread) left: the buffer's words, the diagnostics, whether it completed.
struct LoweringOutcome {
  std::vector<uint32_t> words;
  std::string diagnostics;
  bool ok = false;
};

LoweringOutcome launch(const ptx::Module &m, const char *name, emu::Dim3 grid, emu::Dim3 block,
                       bool compiled) {
  emu::Device device;
  LoweringOutcome out;
  const ptxvm::test::TestKernel t = ptxvm::test::decodeForTest(device, m, name, compiled, out.diagnostics);
  if (!t.kernel) return out;
  const emu::Kernel *k = t.kernel.get();
  ptx::DiagnosticList diags;
  emu::LaunchConfig config;
  config.engine = t.engine.get();
  const uint64_t threads = grid.count() * block.count();
  const uint64_t address = device.global.allocate(threads * 96);
  config.grid = grid;
  config.block = block;
  config.threads = 1;
  config.params.assign(k->paramBytes, 0);
  std::memcpy(&config.params[k->paramOffsets[0]], &address, 8);
  out.ok = device.launch(*k, config, diags).ok;
  out.diagnostics = diags.renderText();
  out.words.resize(threads * 24);
  device.global.read(address, out.words.data(), out.words.size() * 4);
  return out;
}

/// The two engines' outcomes agree: completion, diagnostics, every word.
void expectSame(const LoweringOutcome &interpreted, const LoweringOutcome &compiled) {
  EXPECT_EQ(interpreted.ok, compiled.ok);
  EXPECT_EQ(interpreted.diagnostics, compiled.diagnostics);
  ASSERT_EQ(interpreted.words.size(), compiled.words.size());
  for (size_t i = 0; i < interpreted.words.size(); ++i)
    ASSERT_EQ(interpreted.words[i], compiled.words[i]) << "thread " << i / 24 << ", word " << i % 24;
}

/// Kernel `name`, the only one of `ptx`, on 64 CTAs of 256 threads, 24
/// words out per thread: both engines, which must agree. The words (empty
/// when it did not run).
std::vector<uint32_t> wordsOnBothEngines(const char *ptx, const char *name) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::ptxModule(ptx), std::string(name) + ".ptx", diags);
  EXPECT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  if (!m || diags.hasErrors()) return {};
  const LoweringOutcome interpreted = launch(*m, name, {64, 1, 1}, {256, 1, 1}, false),
                        compiled = launch(*m, name, {64, 1, 1}, {256, 1, 1}, true);
  EXPECT_TRUE(interpreted.ok) << interpreted.diagnostics;
  expectSame(interpreted, compiled);
  return interpreted.ok ? compiled.words : std::vector<uint32_t>{};
}

TEST(Lowering, SpecialRegistersAndCvtaReadAsOnTheInterpreter) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::ptxModule(kKernel), "sreg.ptx", diags);
  ASSERT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  // 1-D blocks (whole and partial warps), 2-D and 3-D ones whose rows do
  // and do not fill warps.
  for (emu::Dim3 block : {emu::Dim3{64, 1, 1}, emu::Dim3{48, 1, 1}, emu::Dim3{8, 4, 2}, emu::Dim3{5, 3, 3},
                          emu::Dim3{32, 2, 1}}) {
    SCOPED_TRACE("block " + std::to_string(block.x) + "x" + std::to_string(block.y) + "x" +
                 std::to_string(block.z));
    const LoweringOutcome interpreted = launch(*m, "k", {3, 1, 1}, block, false),
                          compiled = launch(*m, "k", {3, 1, 1}, block, true);
    ASSERT_TRUE(interpreted.ok) << interpreted.diagnostics;
    expectSame(interpreted, compiled);
    // The kernel really read what it claims (thread 1's %tid.x or %tid.y).
    EXPECT_EQ(compiled.words[24 + (block.x > 1 ? 0 : 1)], 1u);
  }
}

// Warp collectives: every shuffle mode with immediate and register lane
// operands and segment/clamp values, votes, reductions and activemask, on
// full warps (compiled), a partial warp and half-warp member masks (the
// handler's path), and a member mask that names lanes elsewhere (a report).
std::string warpKernel(bool wrongMask) {
  std::string body = R"(
.visible .entry w(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<40>;
  .reg .b64 %d<4>;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %laneid;
  mul.lo.u32 %r2, %r0, 2654435761;
  shr.u32 %r3, %r1, 2;
  and.b32 %r4, %r0, 3;
  setp.eq.u32 %p0, %r4, 1;
  shfl.sync.up.b32 %r10|%p1, %r2, 3, 0, -1;
  shfl.sync.down.b32 %r11|%p2, %r2, %r3, 0x1f, -1;
  shfl.sync.bfly.b32 %r12, %r2, 5, 0x1f, -1;
  shfl.sync.idx.b32 %r13|%p3, %r2, %r3, 0x0c1f, -1;
  shfl.sync.idx.b32 %r14, %r2, 7, 0x1807, -1;
  shfl.sync.down.b32 %r15, %r2, 1, 0x101f, -1;
  selp.u32 %r16, 1, 0, %p1;
  selp.u32 %r17, 2, 0, %p2;
  selp.u32 %r18, 4, 0, %p3;
  or.b32 %r16, %r16, %r17;
  or.b32 %r16, %r16, %r18;
  vote.sync.ballot.b32 %r19, %p0, -1;
  vote.sync.any.pred %p4, %p0, -1;
  vote.sync.all.pred %p5, !%p0, -1;
  selp.u32 %r20, 1, 0, %p4;
  selp.u32 %r21, 1, 0, %p5;
  vote.sync.uni.pred %p4, %p0, -1;
  selp.u32 %r22, 1, 0, %p4;
  redux.sync.add.u32 %r23, %r2, -1;
  redux.sync.min.s32 %r24, %r2, -1;
  redux.sync.max.u32 %r25, %r2, -1;
  redux.sync.xor.b32 %r26, %r2, -1;
  redux.sync.and.b32 %r27, %r3, -1;
  redux.sync.or.b32 %r28, %r4, -1;
  activemask.b32 %r29;
  // Tiles: each half of the warp names itself, all lanes executing.
  setp.lt.u32 %p0, %r1, 16;
  selp.u32 %r35, 0xffff, 0xffff0000, %p0;
  redux.sync.max.s32 %r36, %r2, %r35;
  vote.sync.ballot.b32 %r37, %p1, %r35;
  shfl.sync.idx.b32 %r38, %r2, 0, 0x1f, %r35;
  add.u32 %r28, %r28, %r36;
  xor.b32 %r28, %r28, %r37;
  add.u32 %r28, %r28, %r38;
  // Half-warp member masks, each half on its own (divergent) path.
  setp.lt.u32 %p0, %r1, 16;
  mov.u32 %r30, 0xffff;
  @!%p0 mov.u32 %r30, 0xffff0000;
  @%p0 bra LOW;
  shfl.sync.bfly.b32 %r31, %r2, 1, 0x1f, %r30;
  vote.sync.ballot.b32 %r32, %p1, %r30;
  redux.sync.max.s32 %r33, %r2, %r30;
  bra.uni JOIN;
LOW:
  shfl.sync.bfly.b32 %r31, %r2, 2, 0x1f, %r30;
  vote.sync.ballot.b32 %r32, %p1, %r30;
  redux.sync.max.s32 %r33, %r2, %r30;
)";
  // The low half shuffles with the whole warp named: the high half is not there.
  if (wrongMask) body += "  shfl.sync.idx.b32 %r34, %r2, 0, 0x1f, -1;\n";
  body += R"(JOIN:
  ld.param.u64 %d0, [out];
  mul.wide.u32 %d1, %r0, 96;
  add.u64 %d2, %d0, %d1;
  st.global.v4.u32 [%d2], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%d2+16], {%r14, %r15, %r16, %r19};
  st.global.v4.u32 [%d2+32], {%r20, %r21, %r22, %r23};
  st.global.v4.u32 [%d2+48], {%r24, %r25, %r26, %r27};
  st.global.v4.u32 [%d2+64], {%r28, %r29, %r31, %r32};
  st.global.v4.u32 [%d2+80], {%r33, %r33, %r33, %r33};
  ret;
}
)";
  return body;
}

TEST(Lowering, WarpCollectivesComputeAndReportAsOnTheInterpreter) {
  for (bool wrongMask : {false, true}) {
    ptx::DiagnosticList diags;
    auto m = ptx::parseModule(ptxvm::test::ptxModule(warpKernel(wrongMask)), "warp.ptx", diags);
    ASSERT_TRUE(m && !diags.hasErrors()) << diags.renderText();
    for (emu::Dim3 block : {emu::Dim3{64, 1, 1}, emu::Dim3{48, 1, 1}}) {
      SCOPED_TRACE(std::string(wrongMask ? "wrong mask, " : "") + "block " + std::to_string(block.x));
      const LoweringOutcome interpreted = launch(*m, "w", {1, 1, 1}, block, false),
                            compiled = launch(*m, "w", {1, 1, 1}, block, true);
      expectSame(interpreted, compiled);
      // A member mask naming lanes elsewhere is reported; full warps run clean.
      EXPECT_EQ(wrongMask, compiled.diagnostics.find("warp-sync-mismatch") != std::string::npos)
          << compiled.diagnostics;
    }
  }
}

// Local memory: each thread's frame, stored and (after a barrier, so that
// frames mixed up between warps would show) read back at per-lane
// offsets and widths (sign-extending loads too), and an access past the
// frame, which the handler reports for its lane.
std::string localKernel(bool outOfBounds) {
  std::string body = R"(
.visible .entry l(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %d<8>;
  .local .align 8 .b8 frame[64];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %laneid;
  mov.u64 %d0, frame;
  and.b32 %r2, %r1, 7;
  mul.wide.u32 %d1, %r2, 8;
  add.u64 %d2, %d0, %d1;
  mul.lo.u32 %r3, %r0, -1640531535;
  st.local.u32 [%d2], %r3;
  st.local.u32 [%d2+4], %r0;
  st.local.u8 [frame+63], %r3;
  // Every warp has written its frames before any reads them back.
  bar.sync 0;
  ld.local.u32 %r4, [%d2];
  ld.local.s8 %r5, [frame+63];
  ld.local.u16 %r6, [%d2+2];
  ld.local.u64 %d3, [frame];
  cvt.u32.u64 %r7, %d3;
  setp.lt.u32 %p0, %r1, 16;
  @%p0 st.local.u32 [%d2+4], 5;
  ld.local.s16 %r8, [%d2+4];
)";
  if (outOfBounds) body += "  setp.eq.u32 %p1, %r1, 9;\n  @%p1 st.local.u32 [%d2+60], %r0;\n";
  body += R"(
  ld.param.u64 %d4, [out];
  mul.wide.u32 %d5, %r0, 96;
  add.u64 %d6, %d4, %d5;
  st.global.v4.u32 [%d6], {%r4, %r5, %r6, %r7};
  st.global.u32 [%d6+16], %r8;
  ret;
}
)";
  return body;
}

TEST(Lowering, LocalMemoryReadsWritesAndReportsAsOnTheInterpreter) {
  for (bool outOfBounds : {false, true}) {
    ptx::DiagnosticList diags;
    auto m = ptx::parseModule(ptxvm::test::ptxModule(localKernel(outOfBounds)), "local.ptx", diags);
    ASSERT_TRUE(m && !diags.hasErrors()) << diags.renderText();
    for (emu::Dim3 block : {emu::Dim3{64, 1, 1}, emu::Dim3{40, 1, 1}}) {
      SCOPED_TRACE(std::string(outOfBounds ? "out of bounds, " : "") + "block " + std::to_string(block.x));
      const LoweringOutcome interpreted = launch(*m, "l", {2, 1, 1}, block, false),
                            compiled = launch(*m, "l", {2, 1, 1}, block, true);
      EXPECT_EQ(interpreted.ok, !outOfBounds);
      expectSame(interpreted, compiled);
    }
  }
}

// Registers copied from one another between two barriers: at the second,
// the copies hold what the first one's reload read from another register's
// slot, so they must be written back (Gen::dropCleanWriteBacks keeps only
// a register's own reloads).
const char *kCopyKernel = R"(
.visible .entry c(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %d<4>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %d0, [out];
  mul.wide.u32 %d1, %r0, 96;
  add.u64 %d2, %d0, %d1;
  add.u32 %r1, %r0, 7;
  mov.u32 %r5, 100;
  bar.sync 0;
  mov.u32 %r2, %r1;
  mov.u32 %r3, %r5;
  mov.u32 %r5, %r1;
  bar.sync 0;
  add.u32 %r4, %r2, %r3;
  st.global.v4.u32 [%d2], {%r1, %r2, %r3, %r4};
  st.global.u32 [%d2+16], %r5;
  ret;
}
)";

TEST(Lowering, CopiesOfReloadedRegistersAreWrittenBackAtABarrier) {
  auto m = ptxvm::test::parseTestModule(kCopyKernel, "copy.ptx");
  ASSERT_TRUE(m);
  const LoweringOutcome interpreted = launch(*m, "c", {1, 1, 1}, {64, 1, 1}, false),
                        compiled = launch(*m, "c", {1, 1, 1}, {64, 1, 1}, true);
  ASSERT_TRUE(interpreted.ok) << interpreted.diagnostics;
  EXPECT_EQ(interpreted.words[24 * 5 + 3], 5u + 7 + 100);
  EXPECT_EQ(interpreted.words[24 * 5 + 4], 5u + 7);
  expectSame(interpreted, compiled);
}

} // namespace

// ex2.approx.f32 and lg2.approx.f32 are compiled (Lowering::approxF32,
// emu::vecmath's exp2 and log2 step for step): both engines give the same
// bits, with and without .ftz, over a sweep from underflow to overflow (and
// its magnitudes), inputs near zero, and random bit patterns (NaNs,
// infinities, subnormals, negatives).
constexpr const char *kExp2Kernel = R"(
.visible .entry ex2(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<20>;
  .reg .b64 %d<4>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r0, %r1, %r2, %r3;
  cvt.rn.f32.u32 %f1, %r0;
  fma.rn.f32 %f2, %f1, 0f3CA3D70A, 0fC32A0000;
  mul.lo.u32 %r4, %r0, 0x9E3779B1;
  xor.b32 %r5, %r4, 0x5BD1E995;
  mov.b32 %f3, %r4;
  mov.b32 %f4, %r5;
  mul.f32 %f5, %f2, 0f3A83126F;
  ex2.approx.f32 %f10, %f2;
  ex2.approx.ftz.f32 %f11, %f2;
  ex2.approx.f32 %f12, %f3;
  ex2.approx.ftz.f32 %f13, %f3;
  ex2.approx.f32 %f14, %f4;
  ex2.approx.ftz.f32 %f15, %f4;
  ex2.approx.f32 %f16, %f5;
  ex2.approx.ftz.f32 %f17, %f5;
  ld.param.u64 %d1, [out];
  mul.wide.u32 %d2, %r0, 96;
  add.u64 %d3, %d1, %d2;
  st.global.v4.f32 [%d3], {%f10, %f11, %f12, %f13};
  st.global.v4.f32 [%d3+16], {%f14, %f15, %f16, %f17};
  st.global.v4.f32 [%d3+32], {%f2, %f3, %f4, %f5};
  abs.f32 %f6, %f2;
  lg2.approx.f32 %f10, %f6;
  lg2.approx.ftz.f32 %f11, %f6;
  lg2.approx.f32 %f12, %f3;
  lg2.approx.ftz.f32 %f13, %f3;
  lg2.approx.f32 %f14, %f4;
  lg2.approx.ftz.f32 %f15, %f4;
  lg2.approx.f32 %f16, %f5;
  lg2.approx.ftz.f32 %f17, %f5;
  st.global.v4.f32 [%d3+48], {%f10, %f11, %f12, %f13};
  st.global.v4.f32 [%d3+64], {%f14, %f15, %f16, %f17};
  ret;
}
)";

TEST(Lowering, Exp2AndLog2ApproxGiveTheInterpretersBits) {
  const std::vector<uint32_t> words = wordsOnBothEngines(kExp2Kernel, "ex2");
  ASSERT_EQ(words.size(), 16384u * 24);
  // The sweep reaches both ends: +inf above 128, zero (or a subnormal
  // without .ftz) below -126, and 2^-170 is flushed with .ftz.
  const auto word = [&](unsigned thread, unsigned i) { return words[thread * 24 + i]; };
  EXPECT_EQ(word(16383, 0), 0x7F800000u);
  EXPECT_EQ(word(0, 0), 0u);    // 2^-170 is below f32's subnormals
  EXPECT_GT(word(1500, 0), 0u); // 2^-140: a subnormal
  EXPECT_LT(word(1500, 0), 0x00800000u);
  EXPECT_EQ(word(1500, 1), 0u); // flushed
  // log2 of |-170|, and of +0.
  EXPECT_EQ(word(0, 12) >> 16, 0x40EDu) << "log2 170 = 7.41";
  EXPECT_EQ(word(0, 14), 0xFF800000u) << "the random bits of thread 0 are +0: log2 is -inf";
}

/// sin, cos and tanh .approx: a sweep within the range VecMath reduces
/// exactly; a CTA of random bits (most warps beyond it: libm); one lane
/// beyond it in warp 0 of each CTA, executing (libm for that warp) and
/// predicated off (VecMath for the others, as in a warp without it).
constexpr const char *kTrigKernel = R"(
.visible .entry trig(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .f32 %f<32>;
  .reg .b64 %d<4>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r0, %r1, %r2, %r3;
  cvt.rn.f32.u32 %f1, %r0;
  fma.rn.f32 %f2, %f1, 0f3CA3D70A, 0fC32A0000;
  mul.f32 %f7, %f2, 0f3D4CCCCD;
  mul.lo.u32 %r4, %r0, 0x9E3779B1;
  mov.b32 %f3, %r4;
  and.b32 %r6, %r1, 1;
  setp.eq.u32 %p1, %r6, 0;
  selp.f32 %f8, %f7, %f3, %p1;
  setp.eq.u32 %p2, %r3, 5;
  selp.f32 %f9, 0f4B000000, %f7, %p2;
  sin.approx.f32 %f10, %f7;
  sin.approx.ftz.f32 %f11, %f7;
  cos.approx.f32 %f12, %f7;
  cos.approx.ftz.f32 %f13, %f7;
  tanh.approx.f32 %f14, %f7;
  tanh.approx.f32 %f15, %f2;
  sin.approx.f32 %f16, %f8;
  cos.approx.ftz.f32 %f17, %f8;
  sin.approx.f32 %f18, %f9;
  cos.approx.f32 %f19, %f9;
  mov.f32 %f20, 0f00000000;
  @!%p2 sin.approx.f32 %f20, %f9;
  ld.param.u64 %d1, [out];
  mul.wide.u32 %d2, %r0, 96;
  add.u64 %d3, %d1, %d2;
  st.global.v4.f32 [%d3], {%f10, %f11, %f12, %f13};
  st.global.v4.f32 [%d3+16], {%f14, %f15, %f16, %f17};
  st.global.v4.f32 [%d3+32], {%f18, %f19, %f20, %f7};
  st.global.v4.f32 [%d3+48], {%f8, %f9, %f2, %f3};
  ret;
}
)";

TEST(Lowering, TrigAndTanhApproxGiveTheInterpretersBits) {
  const std::vector<uint32_t> words = wordsOnBothEngines(kTrigKernel, "trig");
  ASSERT_EQ(words.size(), 16384u * 24);
  const auto word = [&](unsigned thread, unsigned i) { return words[thread * 24 + i]; };
  EXPECT_EQ(word(0, 11), 0xC1080000u) << "the sweep starts at -8.5";
  EXPECT_EQ(word(0, 4), 0xBF7FFFFFu) << "tanh(-8.5) rounds to just above -1";
  EXPECT_EQ(word(0, 5), 0xBF800000u) << "tanh(-170) is -1";
  // sin(-8.5) = -0.7985, cos(-8.5) = -0.6020.
  EXPECT_EQ(word(0, 0) >> 12, 0xBF4C6u);
  EXPECT_EQ(word(0, 2) >> 12, 0xBF1A1u);
  // Lanes other than 5 of a warp whose lane 5 is predicated off take the
  // path of a warp without the large input: the sweep's own bits.
  for (unsigned t = 0; t < 32; ++t) {
    if (t == 5) continue;
    EXPECT_EQ(word(t, 10), word(t, 0)) << "thread " << t;
  }
  EXPECT_EQ(word(5, 10), 0u);
}

/// rcp, sqrt, rsqrt and div .approx/.full over random bits (NaN, inf,
/// subnormals, zeros), divisors whose reciprocal is subnormal (flushed by
/// div.approx), and in lane 3 a quotient that rounds up to FLT_MIN from
/// below (flushed under .ftz: the handler's tiny-before-rounding case); in
/// lane 7 a division by a subnormal whose reciprocal is inf.
constexpr const char *kReciprocalKernel = R"(
.visible .entry recip(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .f32 %f<32>;
  .reg .b64 %d<4>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r0, %r1, %r2, %r3;
  cvt.rn.f32.u32 %f1, %r0;
  fma.rn.f32 %f2, %f1, 0f3CA3D70A, 0fC32A0000;
  mul.lo.u32 %r4, %r0, 0x9E3779B1;
  xor.b32 %r5, %r4, 0x5BD1E995;
  mov.b32 %f3, %r4;
  mov.b32 %f4, %r5;
  and.b32 %r6, %r5, 0x807FFFFF;
  or.b32 %r7, %r6, 0x7E800000;
  mov.b32 %f5, %r7;
  and.b32 %r8, %r3, 31;
  setp.eq.u32 %p1, %r8, 3;
  selp.f32 %f6, 0f00FFFFFF, %f2, %p1;
  rcp.approx.f32 %f10, %f3;
  rcp.approx.ftz.f32 %f11, %f3;
  sqrt.approx.f32 %f12, %f3;
  sqrt.approx.ftz.f32 %f13, %f3;
  rsqrt.approx.f32 %f14, %f3;
  rsqrt.approx.ftz.f32 %f15, %f3;
  div.approx.f32 %f16, %f3, %f4;
  div.approx.ftz.f32 %f17, %f3, %f4;
  div.full.f32 %f18, %f3, %f4;
  div.full.ftz.f32 %f19, %f3, %f4;
  div.approx.f32 %f20, %f2, %f5;
  div.approx.ftz.f32 %f21, %f6, 0f40000000;
  div.full.ftz.f32 %f22, %f6, 0f40000000;
  div.full.f32 %f23, %f6, 0f40000000;
  rcp.approx.ftz.f32 %f24, %f2;
  sqrt.approx.f32 %f25, %f1;
  setp.eq.u32 %p2, %r8, 7;
  selp.f32 %f7, 0f30800000, %f2, %p2;
  selp.f32 %f8, 0f00000003, %f4, %p2;
  div.approx.f32 %f26, %f7, %f8;
  ld.param.u64 %d1, [out];
  mul.wide.u32 %d2, %r0, 96;
  add.u64 %d3, %d1, %d2;
  st.global.v4.f32 [%d3], {%f10, %f11, %f12, %f13};
  st.global.v4.f32 [%d3+16], {%f14, %f15, %f16, %f17};
  st.global.v4.f32 [%d3+32], {%f18, %f19, %f20, %f21};
  st.global.v4.f32 [%d3+48], {%f22, %f23, %f24, %f25};
  st.global.v4.f32 [%d3+64], {%f2, %f3, %f4, %f5};
  st.global.v4.f32 [%d3+80], {%f26, %f7, %f8, %f1};
  ret;
}
)";

TEST(Lowering, ReciprocalRootAndDivisionApproxGiveTheInterpretersBits) {
  const std::vector<uint32_t> words = wordsOnBothEngines(kReciprocalKernel, "recip");
  ASSERT_EQ(words.size(), 16384u * 24);
  const auto word = [&](unsigned thread, unsigned i) { return words[thread * 24 + i]; };
  EXPECT_EQ(word(3, 12), 0u) << "div.full.ftz: (2 FLT_MIN - ulp) / 2 is tiny before rounding";
  EXPECT_EQ(word(3, 11), 0u) << "div.approx.ftz: the same";
  EXPECT_EQ(word(3, 13), 0x00800000u) << "div.full without .ftz rounds to FLT_MIN";
  EXPECT_EQ(word(0, 14), 0xBBC0C0C1u) << "rcp.approx(-170)";
  EXPECT_EQ(word(16, 15), 0x40800000u) << "sqrt.approx(16)";
  unsigned flushedQuotients = 0, nans = 0;
  for (unsigned t = 0; t < 16384; ++t) {
    flushedQuotients += word(t, 10) == 0u || word(t, 10) == 0x80000000u;
    nans += word(t, 2) == 0x7FFFFFFFu;
  }
  EXPECT_GT(flushedQuotients, 8000u) << "div.approx by |b| in [2^126, 2^127) flushes the reciprocal";
  // div.approx by a subnormal (not flushed) is the quotient, not a * inf.
  unsigned bySubnormal = 0;
  for (unsigned t = 0; t < 16384; ++t) {
    const uint32_t a = word(t, 17), b = word(t, 18);
    if ((b & 0x7F800000u) != 0 || (b & 0x7FFFFFu) == 0 || (a & 0x7F800000u) == 0x7F800000u) continue;
    ++bySubnormal;
    EXPECT_EQ(word(t, 6), std::bit_cast<uint32_t>(std::bit_cast<float>(a) / std::bit_cast<float>(b))) << t;
  }
  EXPECT_GT(bySubnormal, 20u);
  EXPECT_EQ(word(7, 20), std::bit_cast<uint32_t>(0x1p-30f / 0x3p-149f))
      << "2^-30 / (3 2^-149), not 2^-30 * inf";
  EXPECT_GT(nans, 8000u) << "sqrt.approx of the negative half of the random bits";
}
