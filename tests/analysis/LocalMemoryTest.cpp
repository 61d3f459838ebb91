// Values through local memory (issue 17, item 5): a load from a thread's
// local place takes the uniformity of the stores that reach it, as -G builds
// keep every variable in a local frame; pointers that escape let calls and
// writes through unknown pointers change the places; .param arguments die
// at the call that passes them.
#include "analysis/LocalSlots.h"
#include "ptx/Parser.h"
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

using U = Uniformity;

std::string withSource(std::string text, const char *source) {
  for (size_t at; (at = text.find("SOURCE")) != std::string::npos;) text.replace(at, 6, source);
  return text;
}

// What nvcc -G writes: a frame, its generic address in %SP, and each
// variable at a constant offset.
const char kFrame[] = R"(
.visible .entry k(.param .u32 n)
{
  .local .align 8 .b8 __local_depot0[16];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b32 %r<8>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  mov.u32 %r1, %SOURCE;
  st.u32 [%SP+4], %r1;
  mov.u32 %r2, %ctaid.x;
  st.u32 [%SP+8], %r2;
  ld.u32 %r3, [%SP+4];
  ld.u32 %r4, [%SP+8];
  ld.local.u32 %r5, [%SPL+8];
  ld.local.u32 %r6, [__local_depot0+4];
  ld.u32 %r7, [%SP+12];
  ret;
}
)";

TEST(LocalMemory, ALoadTakesTheUniformityOfTheStoreThatReachesIt) {
  Kernel cta(withSource(kFrame, "ctaid.y"));
  EXPECT_EQ(cta.at("ld.u32 %r3"), U::CtaUniform);
  EXPECT_EQ(cta.at("ld.u32 %r4"), U::CtaUniform);
  EXPECT_EQ(cta.at("ld.local.u32 %r5"), U::CtaUniform) << "the same place through the local window";
  EXPECT_EQ(cta.at("ld.local.u32 %r6"), U::CtaUniform) << "the same place named by the symbol";
  EXPECT_EQ(cta.at("ld.u32 %r7"), U::Divergent) << "never written: what earlier code left there";
  Kernel div(withSource(kFrame, "tid.x"));
  EXPECT_EQ(div.at("ld.u32 %r3"), U::Divergent);
  EXPECT_EQ(div.at("ld.u32 %r4"), U::CtaUniform) << "another place";
  EXPECT_EQ(div.at("ld.local.u32 %r6"), U::Divergent);
  Kernel warp(withSource(kFrame, "warpid"));
  EXPECT_EQ(warp.at("ld.u32 %r3"), U::WarpUniform);
}

// Stores on both sides of a branch meet in a φ of the place, gated by the
// branch.
const char kBranch[] = R"(
.visible .entry k(.param .u32 n)
{
  .local .align 4 .b8 frame[8];
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  mov.u64 %rd1, frame;
  mov.u32 %r1, %SOURCE;
  setp.lt.u32 %p1, %r1, 5;
  @%p1 bra ELSE;
  st.local.u32 [%rd1], 1;
  bra JOIN;
ELSE:
  st.local.u32 [%rd1], 2;
JOIN:
  ld.local.u32 %r2, [%rd1];
  ret;
}
)";

TEST(LocalMemory, StoresUnderABranchMeetThroughItsGate) {
  EXPECT_EQ(Kernel(withSource(kBranch, "ctaid.x")).at("ld.local.u32 %r2"), U::CtaUniform);
  EXPECT_EQ(Kernel(withSource(kBranch, "tid.x")).at("ld.local.u32 %r2"), U::Divergent);
}

// An array indexed by a register: a store at an unknown offset may write
// every place of the variable; a load at an unknown offset reads them all.
const char kArray[] = R"(
.visible .entry k(.param .u32 n)
{
  .local .align 4 .b8 arr[16];
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  mov.u64 %rd1, arr;
  mov.u32 %r1, %ctaid.x;
  st.local.u32 [%rd1], %r1;
  st.local.u32 [%rd1+4], %r1;
  st.local.u32 [%rd1+8], %r1;
  st.local.u32 [%rd1+12], %r1;
  ld.param.u32 %r2, [n];
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.local.u32 %r3, [%rd3];
  mov.u32 %r4, %SOURCE;
  st.local.u32 [%rd3], %r4;
  ld.local.u32 %r5, [%rd1+8];
  ld.local.u32 %r6, [%rd3];
  ret;
}
)";

TEST(LocalMemory, AccessesAtUnknownOffsetsReachEveryPlace) {
  Kernel uniform(withSource(kArray, "ctaid.y"));
  EXPECT_EQ(uniform.at("ld.local.u32 %r3"), U::CtaUniform) << "every byte was written with a uniform value";
  EXPECT_EQ(uniform.at("ld.local.u32 %r5"), U::CtaUniform);
  Kernel div(withSource(kArray, "tid.x"));
  EXPECT_EQ(div.at("ld.local.u32 %r3"), U::CtaUniform) << "before the divergent store";
  EXPECT_EQ(div.at("ld.local.u32 %r5"), U::Divergent) << "the store at an unknown offset may have hit it";
  EXPECT_EQ(div.at("ld.local.u32 %r6"), U::Divergent);
}

// The frame's address passed to a callee, which writes through it: the call
// writes the place with what the callee stores.
const char kEscapeToCall[] = R"(
.func set(.param .b64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %SOURCE;
  st.u32 [%rd1], %r1;
  ret;
}
.visible .entry k()
{
  .local .align 8 .b8 __local_depot0[8];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  mov.u32 %r1, %ctaid.x;
  st.u32 [%SP+0], %r1;
  ld.u32 %r2, [%SP+0];
  add.u64 %rd1, %SP, 0;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  call.uni set, (param0);
  }
  ld.u32 %r3, [%SP+0];
  ret;
}
)";

TEST(LocalMemory, ACallWritesWhatTheCalleeStoresThroughItsPointers) {
  Kernel cta(withSource(kEscapeToCall, "ctaid.y"));
  EXPECT_EQ(cta.at("ld.u32 %r2"), U::CtaUniform);
  EXPECT_EQ(cta.at("ld.u32 %r3"), U::CtaUniform);
  Kernel div(withSource(kEscapeToCall, "tid.x"));
  EXPECT_EQ(div.at("ld.u32 %r2"), U::CtaUniform) << "before the call";
  EXPECT_EQ(div.at("ld.u32 %r3"), U::Divergent) << "the callee stored %tid.x through the frame's address";
}

// A pointer into the frame stored to memory and loaded back: writes through
// the loaded pointer (of unknown origin) may write the frame.
const char kEscapeToMemory[] = R"(
.visible .entry k()
{
  .local .align 8 .b8 __local_depot0[16];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  mov.u32 %r1, %ctaid.x;
  st.u32 [%SP+0], %r1;
  add.u64 %rd1, %SP, 0;
  st.u64 [%SP+8], %rd1;
  ld.u64 %rd2, [%SP+8];
  mov.u32 %r2, %SOURCE;
  st.u32 [%rd2], %r2;
  ld.u32 %r3, [%SP+0];
  ret;
}
)";

TEST(LocalMemory, AWriteThroughAnUnknownPointerMayHitAnEscapedPlace) {
  EXPECT_EQ(Kernel(withSource(kEscapeToMemory, "ctaid.y")).at("ld.u32 %r3"), U::CtaUniform);
  EXPECT_EQ(Kernel(withSource(kEscapeToMemory, "tid.x")).at("ld.u32 %r3"), U::Divergent);
}

// A register that is a pointer on one path and a loaded value on another
// is no pointer: accesses through it are of unknown origin, and the frame
// address it was computed from has escaped.
TEST(LocalMemory, ARegisterWrittenOtherwiseIsNoPointer) {
  Kernel k(R"(
.visible .entry k(.param .u64 q)
{
  .local .align 8 .b8 frame[16];
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, frame;
  mov.u32 %r1, %ctaid.x;
  st.local.u32 [%rd1], %r1;
  ld.param.u64 %rd2, [q];
  setp.eq.u64 %p1, %rd2, 0;
  add.u64 %rd3, %rd1, 0;
  @%p1 ld.global.u64 %rd3, [%rd2];
  mov.u32 %r2, %tid.x;
  st.u32 [%rd3], %r2;
  ld.local.u32 %r3, [%rd1];
  ret;
}
)");
  EXPECT_EQ(k.at("ld.local.u32 %r3"), U::Divergent);
}

// nvcc names the arguments of every call param0, param1, ...: a divergent
// argument of one call does not leak into the next call's.
TEST(LocalMemory, ACallConsumesItsParamArguments) {
  Kernel k(R"(
.func (.param .b32 r) other(.param .b32 a);
.func (.param .b32 r) id(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<6>;
  mov.u32 %r1, %tid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), id, (param0);
  ld.param.b32 %r2, [retval0];
  }
  mov.u32 %r3, %ctaid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r3;
  .param .b32 retval0;
  call.uni (retval0), other, (param0);
  ld.param.b32 %r4, [retval0];
  }
  ret;
}
.func (.param .b32 r) other(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [r], %r1;
  ret;
}
)");
  EXPECT_EQ(k.at("ld.param.b32 %r2"), U::Divergent);
  EXPECT_EQ(k.atIn("other", "ld.param.b32 %r1"), U::CtaUniform);
  EXPECT_EQ(k.at("ld.param.b32 %r4"), U::CtaUniform);
}

// A store that fills the whole .param variable replaces its value, even
// where the previous one came through a divergent join.
TEST(LocalMemory, AStoreOfAWholeParamReplacesIt) {
  Kernel k(R"(
.func (.param .b32 r) f(.param .b64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  cvt.u32.u64 %r1, %rd1;
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), f, (param0);
  ld.param.b32 %r2, [retval0];
  }
SKIP:
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), f, (param0);
  ld.param.b32 %r3, [retval0];
  }
  ret;
}
)");
  EXPECT_EQ(k.atIn("f", "ld.param.u64 %rd1"), U::WarpUniform) << "two call sites, the same uniform argument";
  EXPECT_EQ(k.at("ld.param.b32 %r3"), U::WarpUniform);
}

TEST(LocalMemory, PlacesAreTheUnionsOfOverlappingAccesses) {
  std::string text = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .local .align 8 .b8 frame[32];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, frame;
  st.local.u64 [%rd1], %rd2;
  ld.local.u32 %r1, [%rd1+4];
  st.local.v2.u32 [%rd1+16], {%r1, %r2};
  ld.local.u32 %r3, [%rd1+20];
  st.local.u32 [%rd1+24], %r3;
  ret;
}
)";
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(text, "places.ptx", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  LocalSlots slots(*m, *m->findFunction("k"));
  ASSERT_EQ(slots.places().size(), 3u);
  EXPECT_EQ(slots.places()[0].begin, 0);
  EXPECT_EQ(slots.places()[0].end, 8);
  EXPECT_EQ(slots.places()[1].begin, 16);
  EXPECT_EQ(slots.places()[1].end, 24);
  EXPECT_EQ(slots.places()[2].begin, 24);
  EXPECT_FALSE(slots.symbols()[0].escapes);
  ASSERT_EQ(slots.accesses(1).size(), 1u);
  EXPECT_TRUE(slots.accesses(1)[0].exact);  // st.u64 [frame] covers [0, 8)
  EXPECT_FALSE(slots.accesses(2)[0].write); // ld.u32 [frame+4] reads [0, 8)
  EXPECT_TRUE(slots.accesses(3)[0].exact);  // st.v2.u32 covers [16, 24)
  EXPECT_EQ(slots.accesses(4)[0].first, 1u);
}

} // namespace
} // namespace analysis::test
