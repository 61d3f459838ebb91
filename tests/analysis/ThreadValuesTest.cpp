// Exact uniformity of thread-id arithmetic under a known block shape (issue
// 17, item 3): values computed from %tid alone are evaluated in every
// thread and compared warp by warp; blocks that branches on such values let
// at most one lane of a warp into compute warp-uniform values.
#include "analysis/ThreadValues.h"
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

using U = Uniformity;

DivergenceOptions shape(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
  DivergenceOptions o;
  o.block = LaunchShape::exact(x, y, z);
  return o;
}

const char kArithmetic[] = R"(
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  xor.b32 %r3, %r2, %r1;
  mul.lo.s32 %r4, %r1, 3;
  add.s32 %r5, %r4, 1;
  shr.u32 %r6, %r5, 5;
  setp.eq.s32 %p1, %r6, 2;
  rem.u32 %r7, %r1, 48;
  div.u32 %r8, %r7, 16;
  mov.u32 %r9, %tid.y;
  and.b32 %r10, %r9, 1;
  xor.b32 %r11, %r9, %r10;
  shl.b32 %r12, %r1, 1;
  sub.s32 %r13, %r12, %r2;
  min.u32 %r14, %r3, 64;
  selp.b32 %r15, %r14, 7, %p1;
  ret;
}
)";

TEST(ThreadValues, ArithmeticOnTheThreadIdIsEvaluatedExactly) {
  Kernel k(kArithmetic, "sm_80", shape(128));
  EXPECT_EQ(k.at("and.b32 %r2"), U::Divergent) << "the lane";
  EXPECT_EQ(k.at("xor.b32 %r3"), U::WarpUniform) << "tid & ~31";
  EXPECT_EQ(k.at("setp.eq.s32 %p1"), U::Divergent) << "(3*tid + 1) >> 5 == 2 holds for part of warp 1";
  EXPECT_EQ(k.at("div.u32 %r8"), U::Divergent) << "tid % 48 / 16 changes inside warp 0";
  EXPECT_EQ(k.at("min.u32 %r14"), U::WarpUniform);
  EXPECT_EQ(k.at("selp.b32 %r15"), U::Divergent);
  EXPECT_EQ(k.at("xor.b32 %r11"), U::CtaUniform) << "tid.y is 0 in a 1-D block";
  // Without a shape nothing about the thread id is known.
  Kernel any(kArithmetic);
  EXPECT_EQ(any.at("xor.b32 %r3"), U::Divergent);
}

TEST(ThreadValues, TwoDimensionalBlocksFollowTheLinearIndex) {
  // 16x4: a warp holds rows 0-1 or 2-3, so tid.y & ~1 is warp-uniform, and
  // tid.x + 16*tid.y >> 5 too; with 32x4 tid.x & 16 is not.
  Kernel k(kArithmetic, "sm_80", shape(16, 4));
  EXPECT_EQ(k.at("xor.b32 %r11"), U::WarpUniform);
  EXPECT_EQ(k.at("xor.b32 %r3"), U::CtaUniform) << "tid.x < 16: tid.x & ~31 is 0";
  Kernel wide(kArithmetic, "sm_80", shape(32, 4));
  EXPECT_EQ(wide.at("xor.b32 %r11"), U::WarpUniform);
  EXPECT_EQ(wide.at("and.b32 %r2"), U::Divergent);
}

// if (threadIdx.x % 32 == 0) { ... } runs one lane per warp; if
// (threadIdx.x == 0) one thread of the CTA; if (threadIdx.x < 2) two lanes.
const char kFew[] = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, MASK;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra END;
  atom.global.add.u32 %r3, [%rd1], 1;
  mov.u32 %r4, %tid.x;
  setp.lt.u32 %p1, %r3, 5;
  @%p1 bra END;
  add.u32 %r5, %r3, %r4;
END:
  ret;
}
)";

std::string few(const char *mask) {
  std::string text = kFew;
  text.replace(text.find("MASK"), 4, mask);
  return text;
}

TEST(ThreadValues, BlocksOnlyOneLaneOfAWarpRunsComputeUniformValues) {
  Kernel lane0(few("31"), "sm_80", shape(128));
  EXPECT_EQ(lane0.at("atom.global.add.u32"), U::WarpUniform);
  EXPECT_EQ(lane0.at("mov.u32 %r4"), U::WarpUniform);
  EXPECT_EQ(lane0.at("add.u32 %r5"), U::WarpUniform) << "below a branch on other values";
  Kernel thread0(few("-1"), "sm_80", shape(128));
  EXPECT_EQ(thread0.at("atom.global.add.u32"), U::CtaUniform);
  EXPECT_EQ(thread0.at("add.u32 %r5"), U::CtaUniform);
  Kernel twoLanes(few("30"), "sm_80", shape(128));
  EXPECT_EQ(twoLanes.at("atom.global.add.u32"), U::Divergent);
  Kernel any(few("31"));
  EXPECT_EQ(any.at("atom.global.add.u32"), U::Divergent);
}

TEST(ThreadValues, NothingIsEvaluatedWithoutAShapeOrBeyondACta) {
  EXPECT_FALSE(ThreadValues(ThreadSpace(LaunchShape{})).active());
  EXPECT_FALSE(ThreadValues(ThreadSpace(LaunchShape::exact(2048))).active());
  ThreadValues t(ThreadSpace(LaunchShape::exact(64)));
  ASSERT_TRUE(t.active());
  ptx::InstrDesc div{};
  div.opcode = ptx::Opcode::Div;
  div.numMods = 1;
  div.mods[0] = ptx::Mod::U32;
  ThreadValues::Vector tid = t.specialRegister(ptx::SpecialReg::Tid, 1);
  ThreadValues::Vector sources[] = {t.constant(100), tid};
  EXPECT_EQ(t.evaluate(div, sources), nullptr) << "thread 0 divides by zero";
  ThreadValues::Vector byFour[] = {tid, t.constant(4)};
  ThreadValues::Vector q = t.evaluate(div, byFour);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q[63], 15u);
  EXPECT_EQ(t.level(q), U::Divergent);
}

} // namespace
} // namespace analysis::test
