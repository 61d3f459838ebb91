// The divergence analysis on hand-written PTX, one rule per test: sources
// of divergence, uniform instructions, data and control dependence (γ, η,
// irreducible loops), loads by state space, warp collectives, guarded writes,
// and device functions.
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

using U = Uniformity;

TEST(Divergence, SourcesOfDivergenceAndUniformSpecialRegisters) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .local .u32 loc[4];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %laneid;
  mov.u32 %r5, %warpid;
  mov.u32 %r6, %clock;
  mov.u32 %r7, %lanemask_lt;
  ld.param.u32 %r8, [n];
  mov.u64 %rd1, loc;
  ld.local.u32 %r9, [%rd1];
  atom.global.add.u32 %r10, [%rd2], 1;
  add.u32 %r11, %r2, %r8;
  add.u32 %r12, %r11, %r1;
  mov.u32 %r13, %nctaid.x;
  mov.u64 %rd3, %globaltimer;
  ret;
}
)");
  EXPECT_EQ(k.at("%r1, %tid.x"), U::Divergent);
  EXPECT_EQ(k.at("%r2, %ctaid.x"), U::CtaUniform);
  EXPECT_EQ(k.at("%r3, %ntid.x"), U::CtaUniform);
  EXPECT_EQ(k.at("%r4, %laneid"), U::Divergent);
  EXPECT_EQ(k.at("%r5, %warpid"), U::WarpUniform);
  // Sampled once per issue: one value in the lanes that read together,
  // another in other warps.
  EXPECT_EQ(k.at("%r6, %clock"), U::WarpUniform);
  EXPECT_EQ(k.at("%rd3, %globaltimer"), U::WarpUniform);
  EXPECT_EQ(k.at("%r7, %lanemask_lt"), U::Divergent);
  EXPECT_EQ(k.at("ld.param.u32 %r8"), U::CtaUniform);
  EXPECT_EQ(k.at("ld.local.u32"), U::Divergent);
  EXPECT_EQ(k.at("atom.global.add"), U::Divergent);
  EXPECT_EQ(k.at("add.u32 %r11"), U::CtaUniform);
  EXPECT_EQ(k.at("add.u32 %r12"), U::Divergent);
  EXPECT_EQ(k.at("%nctaid.x"), U::CtaUniform);
}

// A join after a divergent branch: the φ is divergent, values from before
// the branch stay uniform; under a warp-uniform branch the φ is warp-uniform.
TEST(Divergence, GammaAtTheJoinOfADivergentBranch) {
  const char *body = R"(
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %SOURCE;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra THEN;
  mov.u32 %r3, 1;
  bra JOIN;
THEN:
  mov.u32 %r3, 2;
JOIN:
  add.u32 %r4, %r3, 0;
  add.u32 %r5, %r1, 1;
  ret;
}
)";
  auto with = [&](const char *source) {
    std::string text = body;
    text.replace(text.find("SOURCE"), 6, source);
    return text;
  };
  Kernel div(with("tid.x"));
  EXPECT_EQ(div.branchAt("@%p1 bra"), U::Divergent);
  EXPECT_EQ(div.at("add.u32 %r4"), U::Divergent);
  EXPECT_EQ(div.at("add.u32 %r5"), U::CtaUniform);
  EXPECT_EQ(div.at("mov.u32 %r3, 1"), U::CtaUniform);
  Kernel warp(with("warpid"));
  EXPECT_EQ(warp.branchAt("@%p1 bra"), U::WarpUniform);
  EXPECT_EQ(warp.at("add.u32 %r4"), U::WarpUniform);
  Kernel cta(with("ctaid.x"));
  EXPECT_EQ(cta.branchAt("@%p1 bra"), U::CtaUniform);
  EXPECT_EQ(cta.at("add.u32 %r4"), U::CtaUniform);
}

// LLVM's temporal divergence: the loop counter is uniform inside a loop
// whose exit is divergent, but not after it.
TEST(Divergence, TemporalDivergenceOutOfALoop) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 1;
  mul.lo.u32 %r3, %r2, 4;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  add.u32 %r4, %r2, 0;
  add.u32 %r5, %r3, 0;
  ret;
}
)");
  EXPECT_EQ(k.branchAt("@%p1 bra"), U::Divergent);
  EXPECT_EQ(k.at("add.u32 %r2, %r2, 1"), U::WarpUniform); // not CTA: warps iterate differently
  EXPECT_EQ(k.at("mul.lo.u32 %r3"), U::WarpUniform);
  EXPECT_EQ(k.at("add.u32 %r4"), U::Divergent);
  EXPECT_EQ(k.at("add.u32 %r5"), U::Divergent);
}

TEST(Divergence, UniformLoopStaysCtaUniformAfterItsExit) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.u32 %r6, %tid.x;
LOOP:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r6, 16;
  @%p2 bra SKIP;
  add.u32 %r7, %r6, 1;
SKIP:
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  add.u32 %r4, %r2, 0;
  ret;
}
)");
  EXPECT_EQ(k.branchAt("@%p1 bra"), U::CtaUniform);
  EXPECT_EQ(k.at("add.u32 %r2, %r2, 1"), U::CtaUniform);
  EXPECT_EQ(k.at("add.u32 %r4"), U::CtaUniform);
  // The divergent if inside the loop rejoins before the latch.
  EXPECT_EQ(k.branchAt("@%p2 bra"), U::Divergent);
}

// LLVM's irreducible case: a divergent branch into either header of a loop
// with two entries makes the values merged at the headers divergent.
TEST(Divergence, IrreducibleLoopEnteredDivergently) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, 0;
  setp.lt.u32 %p1, %r2, 8;
  @%p1 bra B;
A:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r1;
  @%p2 bra B;
  bra DONE;
B:
  add.u32 %r3, %r3, 2;
  setp.lt.u32 %p3, %r3, %r1;
  @%p3 bra A;
DONE:
  add.u32 %r4, %r3, 0;
  ret;
}
)");
  EXPECT_EQ(k.at("add.u32 %r3, %r3, 1"), U::Divergent);
  EXPECT_EQ(k.at("add.u32 %r3, %r3, 2"), U::Divergent);
  EXPECT_EQ(k.at("add.u32 %r4"), U::Divergent);
}

TEST(Divergence, BackToTheHeaderBeforeReconvergingIsDivergentAtTheMeetingPoint) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, 0;
LOOP:
  setp.lt.u32 %p1, %r1, %r5;
  @%p1 bra SKIP;
  add.u32 %r5, %r5, 1;
  bra LOOP;
SKIP:
  add.u32 %r6, %r5, 2;
  setp.lt.u32 %p2, %r6, 100;
  @%p2 bra LOOP;
  ret;
}
)");
  EXPECT_EQ(k.at("add.u32 %r6"), U::Divergent);
}

TEST(Divergence, GuardedWriteIsAsUniformAsItsGuard) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.lt.u32 %p1, %r2, 16;
  setp.lt.u32 %p2, %r1, 16;
  mov.u32 %r3, 0;
  @%p1 mov.u32 %r3, 1;
  mov.u32 %r4, 0;
  @%p2 mov.u32 %r4, 1;
  mov.u32 %r5, 7;
  @%p1 mov.u32 %r5, 7;
  ret;
}
)");
  EXPECT_EQ(k.at("@%p1 mov.u32 %r3"), U::Divergent);
  EXPECT_EQ(k.at("@%p2 mov.u32 %r4"), U::CtaUniform);
  // Both choices are the same constant.
  EXPECT_EQ(k.at("@%p1 mov.u32 %r5"), U::CtaUniform);
}

TEST(Divergence, LoadsByStateSpaceAndAddress) {
  Kernel k(R"(
.global .align 4 .u32 table[64];
.const .align 4 .u32 coef[64];
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 4 .u32 buf[64];
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [%rd2];
  ld.global.nc.u32 %r2, [%rd2];
  ld.const.u32 %r3, [coef+8];
  ld.shared.u32 %r4, [buf];
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r6, [%rd4];
  ld.u32 %r7, [%rd1];
  ldu.global.u32 %r8, [%rd2];
  mov.u32 %r9, %warpid;
  mul.wide.u32 %rd5, %r9, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.nc.u32 %r10, [%rd6];
  ret;
}
)");
  EXPECT_EQ(k.at("ld.global.u32 %r1"), U::WarpUniform);
  EXPECT_EQ(k.at("ld.global.nc.u32 %r2"), U::CtaUniform);
  EXPECT_EQ(k.at("ld.const.u32 %r3"), U::CtaUniform);
  // No write of shared memory anywhere: the word is the same for the CTA
  // (SharedBroadcastTest has the rest).
  EXPECT_EQ(k.at("ld.shared.u32 %r4"), U::CtaUniform);
  EXPECT_EQ(k.at("ld.global.u32 %r6"), U::Divergent);
  // Generic, through the kernel's pointer parameter: global memory (the
  // host has no local or shared address to pass).
  EXPECT_EQ(k.at("ld.u32 %r7"), U::WarpUniform);
  EXPECT_EQ(k.at("ldu.global.u32 %r8"), U::CtaUniform);
  EXPECT_EQ(k.at("ld.global.nc.u32 %r10"), U::WarpUniform);
}

TEST(Divergence, WarpCollectivesAreWarpUniform) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<8>;
  .reg .b32 %r<30>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 5;
  vote.sync.all.pred %p2, %p1, 0xffffffff;
  vote.sync.ballot.b32 %r2, %p1, 0xffffffff;
  shfl.sync.idx.b32 %r3, %r1, 0, 31, 0xffffffff;
  shfl.sync.idx.b32 %r4, %r1, %r1, 31, 0xffffffff;
  shfl.sync.down.b32 %r5, %r1, 1, 31, 0xffffffff;
  shfl.sync.idx.b32 %r6, %r1, 0, 4127, 0xffffffff;
  redux.sync.add.u32 %r7, %r1, 0xffffffff;
  match.any.sync.b32 %r8, %r1, 0xffffffff;
  match.all.sync.b32 %r9|%p3, %r1, 0xffffffff;
  activemask.b32 %r10;
  mov.u32 %r11, 3;
  shfl.sync.down.b32 %r12, %r11, 1, 31, 0xffffffff;
  elect.sync %r13|%p4, 0xffffffff;
  shr.u32 %r14, %r1, 4;
  and.b32 %r15, %r14, 1;
  mov.u32 %r16, 65535;
  shl.b32 %r17, %r16, %r15;
  redux.sync.add.u32 %r18, %r1, %r17;
  ret;
}
)",
           "sm_90");
  EXPECT_EQ(k.at("vote.sync.all"), U::WarpUniform);
  EXPECT_EQ(k.at("vote.sync.ballot"), U::WarpUniform);
  EXPECT_EQ(k.at("shfl.sync.idx.b32 %r3"), U::WarpUniform);
  EXPECT_EQ(k.at("shfl.sync.idx.b32 %r4"), U::Divergent);
  EXPECT_EQ(k.at("shfl.sync.down.b32 %r5"), U::Divergent);
  EXPECT_EQ(k.at("shfl.sync.idx.b32 %r6"), U::Divergent); // 16-lane segments
  EXPECT_EQ(k.at("redux.sync.add"), U::WarpUniform);
  EXPECT_EQ(k.at("match.any.sync"), U::Divergent);
  EXPECT_EQ(k.at("match.all.sync", 0), U::WarpUniform);
  EXPECT_EQ(k.at("match.all.sync", 1), U::WarpUniform);
  EXPECT_EQ(k.at("activemask"), U::WarpUniform);
  EXPECT_EQ(k.at("shfl.sync.down.b32 %r12"), U::CtaUniform);
  EXPECT_EQ(k.at("elect.sync", 0), U::WarpUniform);
  EXPECT_EQ(k.at("elect.sync", 1), U::Divergent);
  // Half-warp tiles (a member mask per 16 lanes) reduce separately.
  EXPECT_EQ(k.at("redux.sync.add.u32 %r18"), U::Divergent);
}

// The in-range predicate of shfl: with c = 0x1f and no segments, .idx and
// .bfly never name a lane outside the warp, whatever the lane operand, so it
// is true everywhere; .up and .down fall off the ends in some lanes, and
// segments make the bound depend on the lane.
TEST(Divergence, ShuffleInRangePredicates) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<8>;
  .reg .b32 %r<30>;
  mov.u32 %r1, %tid.x;
  shfl.sync.idx.b32 %r2|%p1, %r1, %r1, 31, 0xffffffff;
  shfl.sync.bfly.b32 %r3|%p2, %r1, %r1, 31, 0xffffffff;
  shfl.sync.down.b32 %r4|%p3, %r1, 1, 31, 0xffffffff;
  shfl.sync.up.b32 %r5|%p4, %r1, 1, 0, 0xffffffff;
  shfl.sync.bfly.b32 %r6|%p5, %r1, 1, 6175, 0xffffffff;
  shfl.sync.idx.b32 %r7|%p6, %r1, 3, 30, 0xffffffff;
  ret;
}
)",
           "sm_80");
  EXPECT_EQ(k.at("shfl.sync.idx.b32 %r2", 1), U::CtaUniform);
  EXPECT_EQ(k.at("shfl.sync.idx.b32 %r2", 0), U::Divergent);
  EXPECT_EQ(k.at("shfl.sync.bfly.b32 %r3", 1), U::CtaUniform);
  EXPECT_EQ(k.at("shfl.sync.down.b32 %r4", 1), U::Divergent);
  EXPECT_EQ(k.at("shfl.sync.up.b32 %r5", 1), U::Divergent);
  EXPECT_EQ(k.at("shfl.sync.bfly.b32 %r6", 1), U::Divergent);  // 8-lane segments
  EXPECT_EQ(k.at("shfl.sync.idx.b32 %r7", 1), U::WarpUniform); // lane 3 <= 30 in every lane
}

// bar.red gives every participant of a generation one result: without a
// thread count that is every thread of the CTA; with one, the warps of one
// generation, which other warps need not share.
// A generic address made from a shared or global one (cvta, an offset
// added, a pointer stepped around a loop, a kernel's pointer parameter)
// reads that space: one address, one value per warp. One that may be local
// (a call's result, cvta.local) may differ in every lane.
TEST(Divergence, GenericLoadsReadTheSpaceTheirAddressCameFrom) {
  Kernel k(R"(
.func (.param .b64 r) any()
{
  .reg .b64 %rd<2>;
  st.param.b64 [r], %rd1;
  ret;
}
.visible .entry k(.param .u64 p)
{
  .shared .align 4 .b8 s[64];
  .local .align 4 .b8 l[64];
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  mov.u64 %rd1, s;
  cvta.shared.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [p];
  add.s64 %rd4, %rd2, 8;
  mov.u32 %r1, %warpid;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd5, %rd4;
  ld.u32 %r2, [%rd6];
  mov.u64 %rd7, %rd3;
LOOP:
  ld.u32 %r3, [%rd7];
  add.s64 %rd7, %rd7, 4;
  setp.lt.u32 %p1, %r3, 7;
  @%p1 bra LOOP;
  {
  .param .b64 retval0;
  call.uni (retval0), any, ();
  ld.param.b64 %rd8, [retval0];
  }
  ld.u32 %r4, [%rd8];
  mov.u64 %rd9, l;
  cvta.local.u64 %rd10, %rd9;
  ld.param.u64 %rd11, [p];
  ld.global.u64 %rd12, [%rd11];
  add.s64 %rd13, %rd10, %rd12;
  ld.u32 %r5, [%rd13];
  ret;
}
)");
  EXPECT_EQ(k.at("ld.u32 %r2"), U::WarpUniform);
  EXPECT_EQ(k.at("ld.u32 %r3"), U::WarpUniform);
  EXPECT_EQ(k.at("ld.u32 %r4"), U::Divergent);
  EXPECT_EQ(k.at("ld.u32 %r5"), U::Divergent);
}

TEST(Divergence, BarrierReductionsOfTheWholeCtaAreCtaUniform) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 5;
  bar.red.popc.u32 %r2, 0, %p1;
  bar.red.or.pred %p2, 0, %p1;
  bar.red.popc.u32 %r3, 1, 64, %p1;
  ret;
}
)");
  EXPECT_EQ(k.at("bar.red.popc.u32 %r2"), U::CtaUniform);
  EXPECT_EQ(k.at("bar.red.or.pred"), U::CtaUniform);
  EXPECT_EQ(k.at("bar.red.popc.u32 %r3"), U::WarpUniform);
}

TEST(Divergence, CarryFlagCarriesDivergence) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  add.cc.u32 %r3, %r2, %r1;
  addc.u32 %r4, %r1, %r1;
  add.cc.u32 %r5, %r1, %r1;
  addc.u32 %r6, %r1, %r1;
  ret;
}
)");
  EXPECT_EQ(k.at("addc.u32 %r4"), U::Divergent);
  EXPECT_EQ(k.at("addc.u32 %r6"), U::CtaUniform);
}

// Warps that run an inner loop a different number of times (its exit is
// warp-uniform, not CTA-uniform) reach its blocks out of step: the k-th
// execution of the inner body is not the same iteration in every warp.
TEST(Divergence, InnerLoopWithWarpUniformTripCountIsNotCtaUniform) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %warpid;
  mov.u32 %r3, 0;
OUTER:
  mov.u32 %r4, 0;
INNER:
  add.u32 %r4, %r4, 1;
  mad.lo.u32 %r5, %r3, 100, %r4;
  setp.lt.u32 %p1, %r4, %r2;
  @%p1 bra INNER;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r1;
  @%p2 bra OUTER;
  ret;
}
)");
  EXPECT_EQ(k.branchAt("@%p1 bra"), U::WarpUniform);
  EXPECT_EQ(k.branchAt("@%p2 bra"), U::CtaUniform);
  EXPECT_EQ(k.at("add.u32 %r4, %r4, 1"), U::WarpUniform);
  EXPECT_EQ(k.at("mad.lo.u32 %r5"), U::WarpUniform);
  EXPECT_EQ(k.at("add.u32 %r3, %r3, 1"), U::CtaUniform);
}

} // namespace
} // namespace analysis::test
