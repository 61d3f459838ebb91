// emu::vecmath (emulator/semantics/VecMath.h) as <32 x double> LLVM IR: the
// same steps in the same order (fused Horner steps, the same constants), so
// that the .approx forms compiled code computes (Lowering.cpp, approxF32)
// give the interpreter's bits. Internal to translator/.
#pragma once

#include "emulator/semantics/VecMath.h"
#include "translator/Gen.h"

#include <cmath>
#include <limits>

namespace translator {

class VecMathIR {
public:
  explicit VecMathIR(llvm::IRBuilder<> &b) : b(b) {}

  /// emu::vecmath::exp2.
  llvm::Value *exp2(llvm::Value *x) {
    using emu::vecmath::kRoundShift;
    llvm::Value *xb = b.CreateBitCast(x, i64());
    llvm::Value *magnitude = b.CreateAnd(xb, bits(0x7FFFFFFFFFFFFFFFull));
    llvm::Value *big = b.CreateICmpUGT(magnitude, bitsOf(2000.0));
    llvm::Value *clamped = b.CreateOr(b.CreateAnd(xb, bits(uint64_t{1} << 63)), bitsOf(2000.0));
    llvm::Value *c = b.CreateBitCast(b.CreateSelect(big, clamped, xb), f64());
    llvm::Value *n = b.CreateFSub(b.CreateFAdd(c, real(kRoundShift)), real(kRoundShift));
    llvm::Value *p =
        horner(b.CreateFMul(b.CreateFSub(c, n), real(0.6931471805599453094)), emu::vecmath::kExp);
    llvm::Value *half = b.CreateFAdd(b.CreateFMul(n, real(0.5)), real(kRoundShift));
    llvm::Value *first = b.CreateFSub(half, real(kRoundShift));
    llvm::Value *rest = b.CreateFAdd(b.CreateFSub(n, first), real(kRoundShift));
    auto powerOfTwo = [&](llvm::Value *shifted) {
      llvm::Value *e =
          b.CreateAdd(b.CreateSub(b.CreateBitCast(shifted, i64()), bitsOf(kRoundShift)), bits(1023));
      return b.CreateBitCast(b.CreateShl(e, bits(52)), f64());
    };
    llvm::Value *r = b.CreateFMul(b.CreateFMul(p, powerOfTwo(half)), powerOfTwo(rest));
    return b.CreateSelect(b.CreateICmpUGT(magnitude, bits(0x7FF0000000000000ull)), x, r);
  }

  /// emu::vecmath::log2, its special cases as values an f32 result rounds
  /// to the same bits from (any NaN: the caller makes it canonical).
  llvm::Value *log2(llvm::Value *x) {
    llvm::Value *xb = b.CreateBitCast(x, i64());
    llvm::Value *mantissa = b.CreateAnd(xb, bits(0x000FFFFFFFFFFFFFull));
    llvm::Value *high = b.CreateICmpUGT(mantissa, bits(0x6A09E667F3BCDull));
    llvm::Value *m = b.CreateBitCast(
        b.CreateOr(mantissa, b.CreateSelect(high, bits(0x3FE0000000000000ull), bits(0x3FF0000000000000ull))),
        f64());
    llvm::Value *biased =
        b.CreateAdd(b.CreateAnd(b.CreateLShr(xb, bits(52)), bits(0x7FF)), b.CreateZExt(high, i64()));
    llvm::Value *e =
        b.CreateFSub(b.CreateFSub(b.CreateBitCast(b.CreateOr(biased, bits(0x4330000000000000ull)), f64()),
                                  real(4503599627370496.0)),
                     real(1023.0));
    llvm::Value *s = b.CreateFDiv(b.CreateFSub(m, real(1.0)), b.CreateFAdd(m, real(1.0)));
    llvm::Value *p = horner(b.CreateFMul(s, s), emu::vecmath::kAtanhOverS);
    llvm::Value *r = b.CreateFAdd(
        e, b.CreateFMul(b.CreateFMul(b.CreateFMul(real(2.0), s), p), real(1.4426950408889634074)));
    llvm::Value *magnitude = b.CreateAnd(xb, bits(0x7FFFFFFFFFFFFFFFull));
    llvm::Value *negative = b.CreateAnd(b.CreateICmpSLT(xb, bits(0)), b.CreateICmpNE(magnitude, bits(0)));
    llvm::Value *nan = b.CreateOr(b.CreateICmpUGT(magnitude, bits(0x7FF0000000000000ull)), negative);
    r = b.CreateSelect(b.CreateICmpEQ(magnitude, bits(0x7FF0000000000000ull)), x, r);
    r = b.CreateSelect(b.CreateICmpEQ(magnitude, bits(0)), real(-HUGE_VAL), r);
    return b.CreateSelect(nan, real(std::numeric_limits<double>::quiet_NaN()), r);
  }

  /// emu::vecmath::tanh.
  llvm::Value *tanh(llvm::Value *x) {
    llvm::Value *xb = b.CreateBitCast(x, i64());
    llvm::Value *magnitude = b.CreateAnd(xb, bits(0x7FFFFFFFFFFFFFFFull));
    llvm::Value *small = b.CreateICmpULT(magnitude, bitsOf(0.55));
    llvm::Value *absX = b.CreateBitCast(magnitude, f64());
    llvm::Value *y = b.CreateSelect(small, b.CreateFMul(real(2.0), absX), real(0.0));
    llvm::Value *em1 = b.CreateFMul(y, horner(y, emu::vecmath::kExpm1OverY));
    llvm::Value *fromSeries = b.CreateFDiv(em1, b.CreateFAdd(em1, real(2.0)));
    llvm::Value *large = b.CreateSelect(small, real(0.0), absX);
    llvm::Value *e = exp2(b.CreateFMul(real(2.0 * 1.4426950408889634074), large));
    llvm::Value *fromExp = b.CreateFSub(real(1.0), b.CreateFDiv(real(2.0), b.CreateFAdd(e, real(1.0))));
    llvm::Value *t = b.CreateBitCast(b.CreateSelect(small, fromSeries, fromExp), i64());
    llvm::Value *sign = b.CreateAnd(xb, bits(uint64_t{1} << 63));
    llvm::Value *nan = b.CreateICmpUGT(magnitude, bits(0x7FF0000000000000ull));
    return b.CreateBitCast(b.CreateSelect(nan, xb, b.CreateOr(t, sign)), f64());
  }

  /// emu::vecmath::sinCos<Cosine> for |x| <= kTrigLimit (the caller hands
  /// anything else to the handler, which asks libm).
  llvm::Value *sinCos(llvm::Value *x, bool cosine) {
    using emu::vecmath::kRoundShift;
    llvm::Value *shifted = b.CreateFAdd(b.CreateFMul(x, real(0.63661977236758134308)), real(kRoundShift));
    llvm::Value *k = b.CreateFSub(shifted, real(kRoundShift));
    llvm::Value *r = b.CreateFSub(b.CreateFSub(b.CreateFSub(x, b.CreateFMul(k, real(1.5707963267341256))),
                                               b.CreateFMul(k, real(6.077100506303966e-11))),
                                  b.CreateFMul(k, real(2.0222662487959506e-21)));
    llvm::Value *quadrant =
        b.CreateAnd(b.CreateAdd(b.CreateBitCast(shifted, i64()), bits(cosine ? 1 : 0)), bits(3));
    llvm::Value *r2 = b.CreateFMul(r, r);
    llvm::Value *sinR = b.CreateFMul(r, horner(r2, emu::vecmath::kSinOverR));
    llvm::Value *cosR = horner(r2, emu::vecmath::kCos);
    llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(quadrant, bits(1)), bits(0));
    llvm::Value *v = b.CreateBitCast(b.CreateSelect(odd, cosR, sinR), i64());
    llvm::Value *sign = b.CreateShl(b.CreateAnd(quadrant, bits(2)), bits(62));
    return b.CreateBitCast(b.CreateXor(v, sign), f64());
  }

private:
  llvm::Type *f64() { return llvm::FixedVectorType::get(b.getDoubleTy(), kLanes); }
  llvm::Type *i64() { return llvm::FixedVectorType::get(b.getInt64Ty(), kLanes); }
  llvm::Value *real(double v) { return llvm::ConstantFP::get(f64(), v); }
  llvm::Value *bits(uint64_t v) { return llvm::ConstantInt::get(i64(), v); }
  llvm::Value *bitsOf(double v) { return bits(emu::vecmath::toBits(v)); }
  template <size_t N> llvm::Value *horner(llvm::Value *x, const std::array<double, N> &c) {
    llvm::Value *p = real(c.back());
    for (size_t i = N - 1; i-- > 0;) p = b.CreateIntrinsic(llvm::Intrinsic::fma, {f64()}, {p, x, real(c[i])});
    return p;
  }

  llvm::IRBuilder<> &b;
};

} // namespace translator
