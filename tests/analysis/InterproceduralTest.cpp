// Device functions: parameters as uniform as the arguments of their calls,
// results as uniform as the callee's returns, conservative answers for code
// the analysis cannot see.
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

using U = Uniformity;

const char kTwice[] = R"(
.func (.param .b32 ret) twice(.param .b32 a)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  shl.b32 %r2, %r1, 1;
  st.param.b32 [ret], %r2;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<8>;
  mov.u32 %r1, %SOURCE;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), twice, (param0);
  ld.param.b32 %r2, [retval0];
  }
  ret;
}
)";

std::string twice(const char *source) {
  std::string text = kTwice;
  text.replace(text.find("SOURCE"), 6, source);
  return text;
}

TEST(Interprocedural, ResultsFollowTheArguments) {
  Kernel cta(twice("ctaid.x"));
  EXPECT_EQ(cta.atIn("twice", "ld.param.b32 %r1"), U::CtaUniform);
  EXPECT_EQ(cta.at("ld.param.b32 %r2"), U::CtaUniform);
  Kernel div(twice("tid.x"));
  EXPECT_EQ(div.atIn("twice", "ld.param.b32 %r1"), U::Divergent);
  EXPECT_EQ(div.atIn("twice", "shl.b32"), U::Divergent);
  EXPECT_EQ(div.at("ld.param.b32 %r2"), U::Divergent);
}

TEST(Interprocedural, ReturnsUnderADivergentBranchAreDivergent) {
  Kernel k(R"(
.func (.param .b32 ret) sign(.param .b32 a)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  setp.lt.s32 %p1, %r1, 0;
  @%p1 bra NEG;
  st.param.b32 [ret], 1;
  ret;
NEG:
  st.param.b32 [ret], -1;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, %ctaid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), sign, (param0);
  ld.param.b32 %r2, [retval0];
  }
  ret;
}
)");
  EXPECT_EQ(k.at("ld.param.b32 %r2"), U::Divergent);
}

TEST(Interprocedural, RegisterParametersAndResults) {
  Kernel k(R"(
.func (.reg .b32 q, .reg .b32 r) divmod(.reg .b32 a, .reg .b32 b)
{
  div.u32 q, a, b;
  rem.u32 r, a, b;
  ret;
}
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  call.uni (%r3, %r4), divmod, (%r1, 7);
  ret;
}
)");
  EXPECT_EQ(k.at("call.uni", 0), U::CtaUniform);
  EXPECT_EQ(k.at("call.uni", 1), U::CtaUniform);
  EXPECT_EQ(k.atIn("divmod", "div.u32"), U::CtaUniform);
}

TEST(Interprocedural, UnknownCalleesGiveDivergentResults) {
  Kernel k(R"(
.extern .func (.param .b32 ret) outside(.param .b32 a);
.func (.param .b32 ret) inside(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [ret], %r1;
  ret;
}
.global .align 8 .u64 table[1] = {inside};
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %ctaid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), outside, (param0);
  ld.param.b32 %r2, [retval0];
  }
  ld.global.u64 %rd1, [table];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call.uni (retval0), %rd1, (param0), proto;
  ld.param.b32 %r3, [retval0];
  }
  ret;
}
)");
  EXPECT_EQ(k.at("ld.param.b32 %r2"), U::Divergent);
  EXPECT_EQ(k.at("ld.param.b32 %r3"), U::Divergent);
  // `inside` may be called through the table from anywhere.
  EXPECT_EQ(k.atIn("inside", "ld.param.b32 %r1"), U::Divergent);
}

TEST(Interprocedural, RecursionReachesAFixpoint) {
  Kernel k(R"(
.func (.param .b32 ret) fact(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [n];
  setp.eq.s32 %p1, %r1, 0;
  mov.u32 %r2, 1;
  @%p1 bra DONE;
  sub.s32 %r3, %r1, 1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r3;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r4, [retval0];
  }
  mul.lo.s32 %r2, %r4, %r1;
DONE:
  st.param.b32 [ret], %r2;
  ret;
}
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [n];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r2, [retval0];
  }
  ret;
}
)");
  // Two calls reach fact (the kernel's and its own) with different
  // arguments: uniform in a warp, but the k-th execution of fact is not the
  // same call in every warp as far as the analysis knows.
  EXPECT_EQ(k.at("ld.param.b32 %r2"), U::WarpUniform);
  EXPECT_EQ(k.atIn("fact", "mul.lo.s32"), U::WarpUniform);
  EXPECT_EQ(k.atIn("fact", "ld.param.b32 %r1"), U::WarpUniform);
}

// The k-th execution of a function called from two places is not the same
// call in every warp: its parameters are at best warp-uniform unless every
// call passes the same constant.
TEST(Interprocedural, SeveralCallSitesMakeParametersWarpUniform) {
  const char *text = R"(
.func (.reg .b32 r) id(.reg .b32 a)
{
  mov.b32 r, a;
  ret;
}
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %warpid;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra SECOND;
  call.uni (%r2), id, (FIRST_ARG);
  bra DONE;
SECOND:
  call.uni (%r3), id, (7);
DONE:
  ret;
}
)";
  auto with = [&](const char *first) {
    std::string t = text;
    t.replace(t.find("FIRST_ARG"), 9, first);
    return t;
  };
  Kernel differ(with("5"));
  EXPECT_EQ(differ.atIn("id", "mov.b32"), U::WarpUniform);
  EXPECT_EQ(differ.at("call.uni (%r2)"), U::WarpUniform);
  Kernel same(with("7"));
  EXPECT_EQ(same.atIn("id", "mov.b32"), U::CtaUniform);
}

// nvcc writes a prototype of each device function before the kernels and
// its body after them: calls reach the body, not an unknown function.
TEST(Interprocedural, APrototypeBeforeTheBodyIsTheSameFunction) {
  std::string text = twice("ctaid.x");
  std::string proto = ".func (.param .b32 ret) twice(.param .b32 a);\n";
  size_t body = text.find(".func");
  size_t kernel = text.find(".visible .entry");
  std::string moved = proto + text.substr(kernel) + text.substr(body, kernel - body);
  Kernel k(moved);
  EXPECT_EQ(k.atIn("twice", "ld.param.b32 %r1"), U::CtaUniform);
  EXPECT_EQ(k.at("ld.param.b32 %r2"), U::CtaUniform);
}

} // namespace
} // namespace analysis::test
