// The affine abstraction: forms, merges, and uniformity of functions of the
// thread id under launch shapes, on the forms and on kernels.
#include "analysis/Affine.h"
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace analysis::test {
namespace {

using U = Uniformity;

TEST(Affine, ArithmeticOnForms) {
  Affine tx = Affine::threadId(1, 32), ty = Affine::threadId(2, 32);
  Affine base = Affine::unknown(U::CtaUniform, 32);
  EXPECT_EQ(add(scale(tx, 4), Affine::constant(3, 32)).str(), "3 + 4*tid.x");
  EXPECT_EQ(sub(tx, ty).str(), "tid.x - tid.y");
  EXPECT_EQ(add(mul(base, Affine::constant(128, 32)), tx).str(), "128*U + tid.x");
  EXPECT_EQ(mul(base, ty).str(), "(U)*tid.y");
  EXPECT_TRUE(mul(tx, ty).isTop());
  // Wrapping at the width.
  EXPECT_EQ(add(Affine::constant(0x7fffffff, 32), Affine::constant(1, 32)).str(), "-2147483648");
  // Widening is exact only when no thread's value can wrap.
  EXPECT_EQ(convert(add(tx, Affine::constant(5, 32)), 64, false).str(), "5 + tid.x");
  EXPECT_TRUE(convert(add(tx, Affine::constant(-5, 32)), 64, false).isTop());
  EXPECT_EQ(convert(add(tx, Affine::constant(-5, 32)), 64, true).str(), "-5 + tid.x");
}

TEST(Affine, MergeUnderAGate) {
  Affine a = Affine::constant(0, 32), b = Affine::constant(128, 32);
  EXPECT_EQ(merge(a, b, U::CtaUniform).str(), "128*U");
  EXPECT_EQ(merge(a, b, U::WarpUniform).str(), "128*W");
  EXPECT_TRUE(merge(a, b, U::Divergent).isTop());
  Affine tx = Affine::threadId(1, 32);
  // Equal thread-id functions stay exact whatever the gate.
  EXPECT_EQ(merge(tx, tx, U::Divergent).str(), "tid.x");
  EXPECT_EQ(merge(add(tx, a), add(tx, b), U::CtaUniform).str(), "128*U + tid.x");
  EXPECT_EQ(merge(Affine::bottom(), tx, U::Divergent).str(), "tid.x");
}

TEST(Affine, ShapeDecidesWarpUniformityOfThreadIdFunctions) {
  Affine tx = Affine::threadId(1, 32), ty = Affine::threadId(2, 32);
  ThreadSpace linear(LaunchShape::exact(128)), rows(LaunchShape::exact(48, 2)), any(LaunchShape{});
  ThreadSpace columns(LaunchShape::exact(32, 4)), bounded(LaunchShape::linear(256));
  EXPECT_EQ(refineShiftRight(tx, 5, false, linear), U::WarpUniform);
  EXPECT_EQ(refineShiftRight(tx, 5, false, rows), U::Divergent);
  EXPECT_EQ(refineShiftRight(tx, 5, false, any), U::Divergent);
  EXPECT_EQ(refineShiftRight(tx, 5, false, bounded), U::WarpUniform);
  EXPECT_EQ(refineShiftRight(tx, 4, false, linear), U::Divergent);
  EXPECT_EQ(refineShiftRight(tx, 10, false, linear), U::CtaUniform);
  EXPECT_EQ(refineAnd(tx, ~uint64_t{31}, linear), U::WarpUniform);
  EXPECT_EQ(refineAnd(tx, 31, linear), U::Divergent);
  EXPECT_EQ(refineAnd(tx, 0x60, linear), U::WarpUniform);
  EXPECT_EQ(refineDivRem(tx, 32, false, false, linear), U::WarpUniform);
  EXPECT_EQ(refineDivRem(tx, 32, true, false, linear), U::Divergent);
  EXPECT_EQ(refineDivRem(tx, 64, false, true, linear), U::WarpUniform);
  EXPECT_EQ(refineCompare(tx, Affine::constant(64, 32), ptx::Mod::Lt, false, linear), U::WarpUniform);
  EXPECT_EQ(refineCompare(tx, Affine::constant(48, 32), ptx::Mod::Lt, false, linear), U::Divergent);
  EXPECT_EQ(refineCompare(tx, Affine::constant(40, 32), ptx::Mod::Lt, false, rows), U::Divergent);
  // In a 48x2 block tid.x < 64 always holds.
  EXPECT_EQ(refineCompare(tx, Affine::constant(64, 32), ptx::Mod::Lt, false, rows), U::CtaUniform);
  EXPECT_EQ(refineCompare(tx, Affine::constant(4096, 32), ptx::Mod::Lt, false, linear), U::CtaUniform);
  // tid.y is constant within a warp of 32x4, and 0 everywhere in 128x1x1.
  EXPECT_EQ(levelOf(ty, columns), U::WarpUniform);
  EXPECT_EQ(levelOf(ty, linear), U::CtaUniform);
  EXPECT_EQ(levelOf(tx, linear), U::Divergent);
  // An unknown CTA-uniform multiple of 128 plus tid.x, shifted by 5.
  Affine global = add(Affine::unknown(U::CtaUniform, 32, 7), tx);
  EXPECT_EQ(refineShiftRight(global, 5, false, linear), U::WarpUniform);
  EXPECT_EQ(refineShiftRight(global, 8, false, linear), U::CtaUniform);
  // ... but an unknown multiple of 16 is not enough.
  EXPECT_EQ(refineShiftRight(add(Affine::unknown(U::CtaUniform, 32, 4), tx), 5, false, linear), U::Divergent);
}

const char kShiftKernel[] = R"(
.visible .entry k()
DIRECTIVE{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, -32;
  setp.lt.u32 %p1, %r1, 64;
  setp.lt.u32 %p2, %r1, 48;
  div.u32 %r4, %r1, 32;
  rem.u32 %r5, %r1, 32;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mad.lo.s32 %r8, %r6, %r7, %r1;
  shr.u32 %r9, %r8, 5;
  mov.u32 %r10, %tid.y;
  ret;
}
)";

std::string shiftKernel(const std::string &directive) {
  std::string text = kShiftKernel;
  text.replace(text.find("DIRECTIVE"), 9, directive);
  return text;
}

TEST(AffineDivergence, ConversionsWrapUnlessTheySaturate) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .b16 %rs<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  cvt.u16.u32 %rs1, %r1;
  cvt.sat.u16.s32 %rs2, %r1;
  cvt.u64.u32 %rd1, %r1;
  ret;
}
)");
  EXPECT_EQ(k.formAt("cvt.u16.u32"), "tid.x");
  EXPECT_EQ(k.formAt("cvt.sat.u16.s32"), "top");
  EXPECT_EQ(k.formAt("cvt.u64.u32"), "tid.x");
}

TEST(AffineDivergence, BlockShapeFromTheCommandLine) {
  DivergenceOptions block128;
  block128.block = LaunchShape::exact(128);
  Kernel k(shiftKernel(""), "sm_80", block128);
  EXPECT_EQ(k.at("shr.u32 %r2"), U::WarpUniform);
  EXPECT_EQ(k.at("and.b32 %r3"), U::WarpUniform);
  EXPECT_EQ(k.at("setp.lt.u32 %p1"), U::WarpUniform);
  EXPECT_EQ(k.at("setp.lt.u32 %p2"), U::Divergent);
  EXPECT_EQ(k.at("div.u32 %r4"), U::WarpUniform);
  EXPECT_EQ(k.at("rem.u32 %r5"), U::Divergent);
  EXPECT_EQ(k.formAt("mad.lo.s32 %r8"), "128*U + tid.x");
  EXPECT_EQ(k.at("shr.u32 %r9"), U::WarpUniform);
  EXPECT_EQ(k.at("%r10, %tid.y"), U::CtaUniform);

  DivergenceOptions rows;
  rows.block = LaunchShape::exact(48, 2);
  Kernel r(shiftKernel(""), "sm_80", rows);
  EXPECT_EQ(r.at("shr.u32 %r2"), U::Divergent);
  EXPECT_EQ(r.at("and.b32 %r3"), U::Divergent);
  EXPECT_EQ(r.at("setp.lt.u32 %p1"), U::CtaUniform); // tid.x < 48 < 64 everywhere
  EXPECT_EQ(r.at("%r10, %tid.y"), U::Divergent);

  Kernel any(shiftKernel(""));
  EXPECT_EQ(any.at("shr.u32 %r2"), U::Divergent);
  EXPECT_EQ(any.at("and.b32 %r3"), U::Divergent);
  EXPECT_EQ(any.formAt("mad.lo.s32 %r8"), "U + tid.x");
}

TEST(AffineDivergence, BlockShapeFromTheKernelsDirectives) {
  Kernel req(shiftKernel(".reqntid 128\n"));
  EXPECT_EQ(req.at("shr.u32 %r2"), U::WarpUniform);
  EXPECT_EQ(req.at("shr.u32 %r9"), U::WarpUniform);
  Kernel max(shiftKernel(".maxntid 256\n"));
  EXPECT_EQ(max.at("shr.u32 %r2"), U::WarpUniform);
  EXPECT_EQ(max.at("setp.lt.u32 %p1"), U::WarpUniform);
  // %ntid.x is not known from .maxntid, so the global index is not aligned.
  EXPECT_EQ(max.at("shr.u32 %r9"), U::Divergent);
  Kernel max2d(shiftKernel(".maxntid 16, 16, 1\n"));
  EXPECT_EQ(max2d.at("shr.u32 %r2"), U::Divergent);
  Kernel columns(shiftKernel(".reqntid 32, 4\n"));
  EXPECT_EQ(columns.at("%r10, %tid.y"), U::WarpUniform);
}

// A block-strided loop: i = tid.x + 128k stays affine, so i >> 5 is
// warp-uniform although i is not.
TEST(AffineDivergence, BlockStridedLoopKeepsTheForm) {
  Kernel k(R"(
.visible .entry k(.param .u32 n)
.reqntid 128
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
LOOP:
  shr.u32 %r3, %r2, 5;
  add.u32 %r2, %r2, 128;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  ret;
}
)");
  EXPECT_EQ(k.at("shr.u32 %r3"), U::WarpUniform);
  EXPECT_EQ(k.at("add.u32 %r2"), U::Divergent);
  EXPECT_EQ(k.formAt("add.u32 %r2"), "128*W + tid.x");
}

// Every claim of refineCompare and maskedForm about U·2^A + c·tid.x (an
// unknown multiple of 2^A) checked against every value of U, at 8 and 12 bits
// where the values wrap within a block, over block shapes whose warps split
// rows: whatever U is, the lanes of a warp (the threads of a CTA) agree.
namespace {

struct Brute {
  ThreadSpace space;
  unsigned width;
  uint64_t mask() const { return (uint64_t{1} << width) - 1; }
  uint64_t value(uint64_t u, int64_t c, uint32_t t) const {
    return (u + static_cast<uint64_t>(c) * space.tid(t)[0]) & mask();
  }
  /// Whether key(u, thread) agrees within each warp (or the whole CTA) for every u.
  template <class Key> bool holds(unsigned align, Uniformity level, Key key) const {
    for (uint64_t u = 0; u <= mask(); u += uint64_t{1} << align)
      for (uint32_t w = 0; w < space.size(); w += 32)
        for (uint32_t t = w; t < w + 32 && t < space.size(); ++t) {
          const uint32_t lead = level == Uniformity::CtaUniform ? 0 : w;
          if (key(u, t) != key(u, lead)) return false;
        }
    return true;
  }
};

int64_t asSignedBits(uint64_t v, unsigned w) { return static_cast<int64_t>(v << (64 - w)) >> (64 - w); }

} // namespace

TEST(Affine, AlignedUnknownsAgainstEveryValue) {
  const ptx::Mod cmps[] = {ptx::Mod::Eq, ptx::Mod::Ne, ptx::Mod::Lt,
                           ptx::Mod::Le, ptx::Mod::Gt, ptx::Mod::Ge};
  const LaunchShape shapes[] = {LaunchShape::exact(128), LaunchShape::exact(96), LaunchShape::exact(48),
                                LaunchShape::exact(48, 2), LaunchShape::exact(16, 8)};
  const int64_t coefs[] = {1, 2, 3, -1};
  size_t uniformClaims = 0, forms = 0;
  for (const LaunchShape &shape : shapes)
    for (unsigned width : {8u, 12u}) {
      Brute b{ThreadSpace(shape), width};
      for (unsigned align = 0; align < width; ++align)
        for (int64_t c : coefs) {
          const Affine a =
              add(Affine::unknown(U::WarpUniform, width, align), scale(Affine::threadId(1, width), c));
          for (uint64_t k : {uint64_t{0}, uint64_t{32}, uint64_t{64}, uint64_t{100}, uint64_t{128},
                             uint64_t{255}, b.mask() >> 1, (b.mask() >> 1) + 1, uint64_t{1} << (width - 2)})
            for (ptx::Mod cmp : cmps)
              for (bool isSigned : {false, true}) {
                const Uniformity level =
                    refineCompare(a, Affine::constant(asSignedBits(k, width), width), cmp, isSigned, b.space);
                if (level == U::Divergent) continue;
                ++uniformClaims;
                ASSERT_TRUE(b.holds(align, level,
                                    [&](uint64_t u, uint32_t t) {
                                      return *compareIntegers(cmp, b.value(u, c, t), k, width, isSigned);
                                    }))
                    << shape.str() << " width " << width << " align " << align << " c " << c << " k " << k;
                // The mirrored comparison says the same.
                EXPECT_EQ(refineCompare(Affine::constant(asSignedBits(k, width), width), a,
                                        cmp == ptx::Mod::Lt   ? ptx::Mod::Gt
                                        : cmp == ptx::Mod::Gt ? ptx::Mod::Lt
                                        : cmp == ptx::Mod::Le ? ptx::Mod::Ge
                                        : cmp == ptx::Mod::Ge ? ptx::Mod::Le
                                                              : cmp,
                                        isSigned, b.space),
                          level);
              }
          // a & mask = (its form's constant part: uniform as the form says,
          // a multiple of 2^its alignment) + its thread terms.
          for (uint64_t m :
               {uint64_t{31}, uint64_t{63}, uint64_t{7}, uint64_t{62}, ~uint64_t{31}, uint64_t{0x60}})
            for (Uniformity given : {refineAnd(a, m, b.space), U::Divergent}) {
              const Affine f = maskedForm(a, m, given, b.space);
              if (!f.known()) continue;
              ++forms;
              const Coef &c0 = f.coef(0);
              const Uniformity level = c0.isConst() ? U::CtaUniform : c0.level;
              const unsigned fAlign = c0.isConst() ? width : c0.align;
              auto rest = [&](uint64_t u, uint32_t t) {
                return ((b.value(u, c, t) & m) - static_cast<uint64_t>(f.coef(1).value) * b.space.tid(t)[0]) &
                       b.mask();
              };
              ASSERT_TRUE(f.coef(1).isConst() && f.coef(2).isZero() && f.coef(3).isZero()) << f.str();
              ASSERT_TRUE(b.holds(align, level, rest))
                  << shape.str() << " " << a.str() << " & " << m << " = " << f.str();
              if (c0.isConst()) {
                for (uint64_t u = 0; u <= b.mask(); u += uint64_t{1} << align)
                  ASSERT_EQ(rest(u, 0), static_cast<uint64_t>(c0.value) & b.mask()) << f.str();
              } else if (fAlign < width) {
                for (uint64_t u = 0; u <= b.mask(); u += uint64_t{1} << align)
                  for (uint32_t t = 0; t < b.space.size(); ++t)
                    ASSERT_EQ(rest(u, t) % (uint64_t{1} << fAlign), 0u) << f.str();
              }
            }
        }
    }
  // The rules do decide something: the block-strided loop's exit, lane indices.
  EXPECT_GT(uniformClaims, 1000u);
  EXPECT_GT(forms, 100u);
  ThreadSpace linear(LaunchShape::exact(128));
  const Affine strided = add(Affine::unknown(U::WarpUniform, 32, 7), Affine::threadId(1, 32));
  EXPECT_EQ(refineCompare(strided, Affine::constant(256, 32), ptx::Mod::Lt, true, linear), U::WarpUniform);
  EXPECT_EQ(refineCompare(strided, Affine::constant(250, 32), ptx::Mod::Lt, true, linear), U::Divergent);
  EXPECT_EQ(maskedForm(Affine::threadId(1, 32), 31, U::Divergent, linear).str(), "32*W + tid.x");
  EXPECT_TRUE(
      maskedForm(Affine::threadId(1, 32), 31, U::Divergent, ThreadSpace(LaunchShape::exact(48, 2))).isTop());
}

// ---- Bounded unknowns: a launch's %ctaid, arithmetic on it -------------------------------

TEST(Affine, BoundedUnknownsKeepTheirRangeThroughArithmetic) {
  const Affine cta = Affine::unknownIn(U::CtaUniform, 32, 0, 3), tx = Affine::threadId(1, 32);
  EXPECT_EQ(cta.str(), "(U: 0..3)");
  const Affine base = scale(cta, 128);
  EXPECT_EQ(base.str(), "(128*U: 0..384)");
  EXPECT_EQ(add(base, tx).str(), "(128*U: 0..384) + tid.x");
  EXPECT_EQ(mul(cta, Affine::constant(128, 32)).str(), "(128*U: 0..384)");
  EXPECT_EQ(mul(cta, Affine::unknownIn(U::CtaUniform, 32, 1, 5)).constantTermRange(), std::pair(0ul, 15ul));
  // One number is a constant, the same in every thread.
  EXPECT_EQ(Affine::unknownIn(U::WarpUniform, 32, 5, 5).str(), "5");
  EXPECT_EQ(Affine::unknownIn(U::CtaUniform, 32, 0, 100, 5).constantTermRange(), std::pair(0ul, 96ul));
  // Modular: a shift that stays one interval keeps it, one that wraps
  // around 2^32 in the middle drops it.
  EXPECT_EQ(sub(base, Affine::constant(1000, 32)).constantTermRange(), std::pair(4294966296ul, 4294966680ul));
  EXPECT_FALSE(add(Affine::unknownIn(U::CtaUniform, 32, 0xFFFFFF00u, 0xFFFFFFF0u), Affine::constant(0x80, 32))
                   .constantTermRange());
  EXPECT_EQ(neg(Affine::unknownIn(U::CtaUniform, 32, 1, 3)).constantTermRange(),
            std::pair(4294967293ul, 4294967295ul));
  EXPECT_FALSE(neg(cta).constantTermRange()); // 0 and 2^32 - 3 .. 2^32 - 1
  EXPECT_EQ(scale(Affine::unknownIn(U::CtaUniform, 32, 1, 3), -2).constantTermRange(),
            std::pair(4294967290ul, 4294967294ul));
  EXPECT_FALSE(scale(Affine::unknownIn(U::CtaUniform, 32, 0, 1u << 30), 8).constantTermRange());
  // Widening: unsigned bounds stay, signed ones extend unless they straddle the sign.
  EXPECT_EQ(convert(add(base, tx), 64, false).str(), "(128*U: 0..384) + tid.x");
  EXPECT_EQ(
      convert(Affine::unknownIn(U::CtaUniform, 32, 0xFFFFFFF0u, 0xFFFFFFFFu), 64, true).constantTermRange(),
      std::pair(0xFFFFFFFFFFFFFFF0ul, 0xFFFFFFFFFFFFFFFFul));
  EXPECT_FALSE(
      convert(Affine::unknownIn(U::CtaUniform, 32, 0x7FFFFFF0u, 0x80000010u), 64, true).constantTermRange());
  // ... and with thread terms only when no thread's value can wrap.
  EXPECT_TRUE(convert(add(Affine::unknownIn(U::CtaUniform, 32, 0, 0xFFFFFF00u), tx), 64, false).isTop());
  EXPECT_TRUE(convert(add(Affine::unknown(U::CtaUniform, 32, 7), tx), 64, false).isTop());
  // Narrowing keeps bounds that fit.
  EXPECT_EQ(convert(Affine::unknownIn(U::CtaUniform, 64, 0, 100), 32, false).constantTermRange(),
            std::pair(0ul, 100ul));
  EXPECT_FALSE(
      convert(Affine::unknownIn(U::CtaUniform, 64, 0, uint64_t{1} << 33), 32, false).constantTermRange());
  // Merges keep equal bounds only (a loop would climb by a stride a round).
  EXPECT_EQ(merge(base, base, U::CtaUniform).constantTermRange(), std::pair(0ul, 384ul));
  EXPECT_FALSE(merge(base, add(base, Affine::constant(512, 32)), U::CtaUniform).constantTermRange());
  // a & mask of a uniform a is at most the mask.
  EXPECT_EQ(maskedForm(Affine::unknown(U::CtaUniform, 32), 0xFF, U::CtaUniform, ThreadSpace(LaunchShape{}))
                .constantTermRange(),
            std::pair(0ul, 255ul));
}

// Every operation's result range holds every result of operands in their
// ranges, over small widths exhaustively.
TEST(Affine, BoundedArithmeticHoldsEveryResult) {
  const unsigned w = 8;
  const uint64_t mask = 0xFF;
  const std::pair<uint64_t, uint64_t> ranges[] = {{0, 3},     {1, 3},     {5, 9},     {0, 200},
                                                  {250, 255}, {120, 136}, {100, 100}, {0, 255}};
  size_t checked = 0, bounded = 0;
  auto inRange = [](const Affine &r, uint64_t v) {
    auto range = r.constantTermRange();
    return !range || (range->first <= v && v <= range->second);
  };
  for (auto [alo, ahi] : ranges)
    for (auto [blo, bhi] : ranges) {
      const Affine a = Affine::unknownIn(U::CtaUniform, w, alo, ahi),
                   b = Affine::unknownIn(U::CtaUniform, w, blo, bhi);
      const Affine sum = add(a, b), product = mul(a, b), negated = neg(a),
                   scaled = scale(a, int64_t(blo) - 4), signedWide = convert(a, 16, true),
                   unsignedWide = convert(a, 16, false);
      for (const Affine *r : {&sum, &product, &negated, &scaled, &signedWide, &unsignedWide})
        bounded += r->constantTermRange().has_value();
      for (uint64_t x = alo; x <= ahi; ++x) {
        ASSERT_TRUE(inRange(negated, (0 - x) & mask)) << a.str() << " " << negated.str();
        ASSERT_TRUE(inRange(scaled, (x * static_cast<uint64_t>(int64_t(blo) - 4)) & mask)) << scaled.str();
        ASSERT_TRUE(inRange(signedWide, static_cast<uint64_t>(static_cast<int8_t>(x)) & 0xFFFF))
            << signedWide.str();
        ASSERT_TRUE(inRange(unsignedWide, x)) << unsignedWide.str();
        for (uint64_t y = blo; y <= bhi; ++y, ++checked) {
          ASSERT_TRUE(inRange(sum, (x + y) & mask)) << a.str() << " + " << b.str() << " = " << sum.str();
          ASSERT_TRUE(inRange(product, (x * y) & mask))
              << a.str() << " * " << b.str() << " = " << product.str();
        }
      }
    }
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(bounded, 200u); // of 384 results: most keep a range
}

// Widening U + c·tid.x keeps the form only when no thread's value wraps in
// the source width: then every thread's value, extended, is the bounded
// term's extension plus c·tid.x.
TEST(Affine, BoundedWideningHoldsEveryThread) {
  const unsigned w = 12;
  size_t kept = 0;
  for (auto [lo, hi] : {std::pair(0ul, 3ul), std::pair(0ul, 2000ul), std::pair(2000ul, 3000ul),
                        std::pair(3000ul, 4095ul), std::pair(1500ul, 2100ul)})
    for (int64_t c : {1, 2, -1})
      for (bool isSigned : {false, true}) {
        const Affine a = add(Affine::unknownIn(U::CtaUniform, w, lo, hi), scale(Affine::threadId(1, w), c));
        const Affine wide = convert(a, 24, isSigned);
        if (!wide.known()) continue;
        ++kept;
        const auto range = wide.constantTermRange();
        ASSERT_TRUE(range) << a.str() << " -> " << wide.str();
        auto extend = [&](uint64_t v) {
          v &= 0xFFF;
          return isSigned && (v & 0x800) ? (v | ~uint64_t{0xFFF}) & 0xFFFFFF : v;
        };
        for (uint64_t u = lo; u <= hi; ++u) {
          ASSERT_TRUE(range->first <= extend(u) && extend(u) <= range->second) << wide.str() << " u " << u;
          for (uint64_t t = 0; t < 1024; t += 7)
            ASSERT_EQ(extend(u + static_cast<uint64_t>(c) * t),
                      (extend(u) + static_cast<uint64_t>(c) * t) & 0xFFFFFF)
                << a.str() << " -> " << wide.str() << " u " << u << " tid " << t;
        }
      }
  EXPECT_GT(kept, 3u);
}

// Comparisons and shifts of (bounded unknown + thread terms) against every
// constant: what is claimed holds for every number in the range.
TEST(Affine, BoundedUnknownsAgainstEveryValue) {
  const ptx::Mod cmps[] = {ptx::Mod::Eq, ptx::Mod::Ne, ptx::Mod::Lt,
                           ptx::Mod::Le, ptx::Mod::Gt, ptx::Mod::Ge};
  const unsigned w = 12;
  const uint64_t mask = 0xFFF;
  size_t claims = 0, exact = 0;
  for (const LaunchShape &shape :
       {LaunchShape::exact(128), LaunchShape::exact(48, 2), LaunchShape::exact(96)}) {
    const ThreadSpace space(shape);
    for (auto [lo, hi, align] : {std::tuple(0u, 3u, 0u), std::tuple(0u, 384u, 7u), std::tuple(64u, 200u, 3u),
                                 std::tuple(4000u, 4095u, 0u), std::tuple(0u, 4095u, 5u)})
      for (int64_t c : {1, 2, -1}) {
        const Affine u = Affine::unknownIn(U::CtaUniform, w, lo, hi, align);
        const Affine a = add(u, scale(Affine::threadId(1, w), c));
        const auto range = u.constantTermRange();
        ASSERT_TRUE(range);
        auto forEach = [&](auto key, Uniformity level) {
          for (uint64_t v = range->first; v <= range->second; v += uint64_t{1} << align)
            for (uint32_t t = 0; t < space.size(); ++t) {
              const uint32_t lead = level == U::CtaUniform ? 0 : t / 32 * 32;
              if (key(v, t) != key(v, lead)) return false;
            }
          return true;
        };
        auto value = [&](uint64_t v, uint32_t t) {
          return (v + static_cast<uint64_t>(c) * space.tid(t)[0]) & mask;
        };
        for (uint64_t k : {0ul, 100ul, 300ul, 320ul, 1000ul, 2048ul, 4000ul, 4095ul})
          for (ptx::Mod cmp : cmps)
            for (bool isSigned : {false, true}) {
              const Uniformity level =
                  refineCompare(a, Affine::constant(asSignedBits(k, w), w), cmp, isSigned, space);
              if (level == U::Divergent) continue;
              ++claims;
              ASSERT_TRUE(forEach(
                  [&](uint64_t v, uint32_t t) { return *compareIntegers(cmp, value(v, t), k, w, isSigned); },
                  level))
                  << shape.str() << " " << a.str() << " cmp " << k;
            }
        for (unsigned shift : {5u, 7u, 9u}) {
          const Uniformity level = refineShiftRight(a, shift, false, space);
          if (level == U::Divergent) continue;
          ++exact;
          ASSERT_TRUE(forEach([&](uint64_t v, uint32_t t) { return value(v, t) >> shift; }, level))
              << shape.str() << " " << a.str() << " >> " << shift;
        }
      }
  }
  EXPECT_GT(claims, 200u);
  EXPECT_GT(exact, 10u);
  // What the range decides that alignment alone does not: ctaid in [0, 3]
  // with 128 threads against n = 1000 (no thread reaches it) and n = 300
  // (a warp of CTA 2 holds 288..319).
  const ThreadSpace linear(LaunchShape::exact(128));
  const Affine i = add(scale(Affine::unknownIn(U::CtaUniform, 32, 0, 3), 128), Affine::threadId(1, 32));
  EXPECT_EQ(refineCompare(i, Affine::constant(1000, 32), ptx::Mod::Ge, true, linear), U::CtaUniform);
  EXPECT_EQ(refineCompare(i, Affine::constant(300, 32), ptx::Mod::Ge, true, linear), U::Divergent);
  EXPECT_EQ(refineCompare(i, Affine::constant(320, 32), ptx::Mod::Ge, true, linear), U::WarpUniform);
  EXPECT_EQ(refineShiftRight(add(Affine::unknownIn(U::CtaUniform, 32, 0, 2), Affine::threadId(1, 32)), 10,
                             false, linear),
            U::CtaUniform);
  // Too many numbers to try: nothing is claimed from the range.
  const Affine wide = add(Affine::unknownIn(U::CtaUniform, 32, 0, 1u << 30), Affine::threadId(1, 32));
  EXPECT_EQ(refineCompare(wide, Affine::constant(1000, 32), ptx::Mod::Ge, true, linear), U::Divergent);
}

const char kLaunchKernel[] = R"(
.visible .entry k(.param .u64 k_buf, .param .u32 k_n, .param .s16 k_small)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_buf];
  ld.param.u32 %r1, [k_n];
  ld.param.s16 %rs1, [k_small];
  ld.param.u16 %rs2, [k_small];
  ld.param.u32 %r9, [k_n+4];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r6, %nctaid.x;
  mov.u32 %r7, %ctaid.y;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  add.s32 %r8, %r5, 1;
DONE:
  ret;
}
)";

std::vector<uint8_t> bytesOf(uint64_t v, size_t n) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  return b;
}

TEST(AffineDivergence, TheLaunchsGridAndArguments) {
  auto launch = [](uint32_t n, uint32_t grid) {
    DivergenceOptions o;
    o.block = LaunchShape::exact(128);
    o.grid = {grid, 0, 0};
    o.arguments = {{}, bytesOf(n, 4), bytesOf(0xFFFE, 2)};
    return o;
  };
  Kernel k(kLaunchKernel, "sm_80", launch(1000, 4));
  EXPECT_EQ(k.formAt("ld.param.u32 %r1"), "1000");
  EXPECT_EQ(k.formAt("ld.param.s16"), "-2");
  EXPECT_EQ(k.formAt("ld.param.u16"), "-2"); // 0xFFFE: the same 16 bits
  EXPECT_EQ(k.formAt("ld.param.u64"), "U");  // a buffer: no bytes given
  EXPECT_EQ(k.formAt("[k_n+4]"), "U");       // past the argument's bytes
  EXPECT_EQ(k.formAt("%nctaid.x"), "4");
  EXPECT_EQ(k.formAt("%ctaid.x"), "(U: 0..3)");
  EXPECT_EQ(k.formAt("%ctaid.y"), "U"); // grid.y unknown
  EXPECT_EQ(k.formAt("mad.lo.s32"), "(128*U: 0..384) + tid.x");
  // No thread of the 512 reaches element 1000.
  EXPECT_EQ(k.at("setp.ge.s32"), U::CtaUniform);
  EXPECT_EQ(k.branchAt("@%p1 bra"), U::CtaUniform);
  // 300: a warp of CTA 2 holds 288..319.
  EXPECT_EQ(Kernel(kLaunchKernel, "sm_80", launch(300, 4)).branchAt("@%p1 bra"), U::Divergent);
  // 320: every warp on one side, whatever the grid.
  EXPECT_EQ(Kernel(kLaunchKernel, "sm_80", launch(320, 0)).branchAt("@%p1 bra"), U::WarpUniform);
  // Without the launch: the bound is unknown.
  DivergenceOptions shapeOnly;
  shapeOnly.block = LaunchShape::exact(128);
  EXPECT_EQ(Kernel(kLaunchKernel, "sm_80", shapeOnly).branchAt("@%p1 bra"), U::Divergent);
}

// (x | y) & m is (x & m) | (y & m): uniform when both sides are, as in the
// test of a 64-bit division's 32-bit fast path, `(i | n) >> 32 == 0`.
const char kMaskKernel[] = R"(
.visible .entry k(.param .u64 k_n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [k_n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mul.wide.u32 %rd2, %r1, %r2;
  mov.u32 %r3, %tid.x;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd4, 1000000;
  or.b64 %rd6, %rd5, %rd1;
  and.b64 %rd7, %rd6, -4294967296;
  setp.eq.s64 %p1, %rd7, 0;
  xor.b64 %rd8, %rd5, %rd1;
  and.b64 %rd9, %rd8, 16;
  and.b64 %rd10, %rd8, -64;
  ret;
}
)";

TEST(AffineDivergence, MasksLookThroughBitwiseOperands) {
  DivergenceOptions block256;
  block256.block = LaunchShape::exact(256);
  Kernel k(kMaskKernel, "sm_80", block256);
  EXPECT_EQ(k.formAt("add.s64 %rd5"), "64*U + tid.x");
  EXPECT_EQ(k.at("and.b64 %rd7"), U::WarpUniform);
  EXPECT_EQ(k.at("setp.eq.s64 %p1"), U::WarpUniform);
  EXPECT_EQ(k.at("and.b64 %rd9"), U::Divergent); // bit 4 of tid.x
  EXPECT_EQ(k.at("and.b64 %rd10"), U::WarpUniform);
  // Without the shape the high part of 64*U + tid.x may differ in a warp.
  EXPECT_EQ(Kernel(kMaskKernel).at("and.b64 %rd7"), U::Divergent);
}

} // namespace
} // namespace analysis::test
