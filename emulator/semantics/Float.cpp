// Floating-point arithmetic (f32, f64, f16, bf16 and packed x2 forms): add,
// sub, mul, fma, mad, div, abs, neg, min, max, rcp, sqrt, rsqrt, sin, cos,
// lg2, ex2, tanh, copysign, testp.
//
// f32/f64 results are the host's IEEE arithmetic, in the instruction's
// rounding mode (fesetround around the lane loop). f16/bf16 results are
// computed exactly or rounded to odd in double, then rounded once into the
// format in software (fp:: in Convert.cpp). NaN results are PTX's canonical
// NaN (f32 0x7FFFFFFF, f16/bf16 0x7FFF). The .approx functions return the
// correctly rounded (or double-precision) value, inside the ISA's error
// bounds.
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

#include <cfenv>
#include <cmath>
#include <limits>

namespace emu {
namespace fp {
// Defined in Convert.cpp.
struct Format {
  int expBits, manBits;
};
enum class Round : uint8_t { Nearest, Zero, Down, Up };
uint64_t canonicalNaN(Format f);
uint64_t fromDouble(double v, Format f, Round r);
double toDouble(uint64_t bits, Format f);
} // namespace fp

namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

// ---- Modifiers the decoder does not carry in DInstr ----

struct Flags {
  bool approx = false, full = false, relu = false, nan = false, xorsignAbs = false, abs = false, oob = false;
};

Flags flagsOf(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const ptx::InstrDesc &d = k.desc(in);
  Flags f;
  f.approx = d.has(Mod::Approx);
  f.full = d.has(Mod::Full);
  f.relu = d.has(Mod::Relu);
  f.nan = d.has(Mod::NaN);
  f.xorsignAbs = d.has(Mod::XorSign);
  f.abs = d.has(Mod::Abs) && !f.xorsignAbs;
  f.oob = d.has(Mod::Oob);
  return f;
}

// ---- Rounding modes ----

/// Runs Body with the host rounding mode set to the instruction's. Bodies are
/// noipa, so no floating-point operation of theirs can move across the
/// fesetround calls.
template <void (*Body)(Exec &, const DInstr &)> void rounded(Exec &x, const DInstr &in) {
  int mode = in.rounding == Mod::Rz   ? FE_TOWARDZERO
             : in.rounding == Mod::Rm ? FE_DOWNWARD
             : in.rounding == Mod::Rp ? FE_UPWARD
                                      : FE_TONEAREST;
  if (mode == FE_TONEAREST) return Body(x, in);
  int old = std::fegetround();
  std::fesetround(mode);
  Body(x, in);
  std::fesetround(old);
}

// ---- f32 and f64 ----

template <typename T> struct Bits;
template <> struct Bits<float> {
  using U = uint32_t;
  static constexpr U kCanonicalNaN = 0x7FFFFFFFu;
};
template <> struct Bits<double> {
  using U = uint64_t;
  // PTX names no canonical f64 NaN; all ones like f32's. Unverified on
  // hardware: tests compare f64 NaNs as NaNs only.
  static constexpr U kCanonicalNaN = 0x7FFFFFFFFFFFFFFFull;
};

/// .ftz: a subnormal f32 becomes a zero of the same sign (f64 has no .ftz
/// forms, except the .approx.ftz.f64 ones, which flush as well).
template <typename T> inline T flush(T v, bool ftz) {
  if (ftz && v != 0 && std::fabs(v) < std::numeric_limits<T>::min()) return std::copysign(T(0), v);
  return v;
}

/// The register bits of a result: .ftz, then .sat (clamp to [0, 1], NaN to
/// +0), and NaN made canonical.
template <typename T> inline uint64_t result(T r, bool ftz, bool sat) {
  r = flush(r, ftz);
  if (sat) {
    if (!(r > T(0))) return 0; // NaN, -0 and negatives
    if (r > T(1)) r = T(1);
  }
  if (r != r) return Bits<T>::kCanonicalNaN;
  return bitsOf<T>(r);
}

/// d = f(a, b, ...) over the lanes, inputs flushed with .ftz.
template <typename T, unsigned N, typename F>
inline void lanes(Exec &x, const DInstr &in, bool ftz, bool sat, F f) {
  // Gather all 32 lanes, compute branch-free, write the executing lanes:
  // inactive lanes compute on stale values, which has no effect.
  const Kernel &k = x.kernel();
  T a[32], b[32], c[32];
  gather(x, k.op(in, 1), a);
  if constexpr (N > 1) gather(x, k.op(in, 2), b);
  if constexpr (N > 2) gather(x, k.op(in, 3), c);
  uint64_t out[32];
  for (unsigned l = 0; l < 32; ++l) {
    T r;
    if constexpr (N == 1)
      r = f(flush(a[l], ftz));
    else if constexpr (N == 2)
      r = f(flush(a[l], ftz), flush(b[l], ftz));
    else
      r = f(flush(a[l], ftz), flush(b[l], ftz), flush(c[l], ftz));
    out[l] = result<T>(r, ftz, sat);
  }
  scatter(x, k.op(in, 0), out);
}

/// Which of two values min/max picks: 0 = a, 1 = b, 2 = NaN. -0.0 counts as
/// less than +0.0. Without .NaN a NaN input is ignored (the result is NaN
/// only when both are); with .NaN any NaN input gives NaN (PTX ISA, min/max).
template <typename V> inline int pick(V a, V b, bool isMax, bool nanMode) {
  bool na = a != a, nb = b != b;
  if (na && nb) return 2;
  if (na || nb) return nanMode ? 2 : na ? 1 : 0;
  if (a == b) return std::signbit(a) == isMax ? 1 : 0; // ±0: min takes the negative one
  return (isMax ? a > b : a < b) ? 0 : 1;
}

template <typename T> struct F {
  using U = typename Bits<T>::U;

  [[gnu::noipa]] static void add(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, in.sat, [](T a, T b) { return a + b; });
  }
  [[gnu::noipa]] static void sub(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, in.sat, [](T a, T b) { return a - b; });
  }
  [[gnu::noipa]] static void mul(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, in.sat, [](T a, T b) { return a * b; });
  }
  [[gnu::noipa]] static void fma(Exec &x, const DInstr &in) {
    lanes<T, 3>(x, in, in.ftz, in.sat, [](T a, T b, T c) { return std::fma(a, b, c); });
  }
  [[gnu::noipa]] static void div(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, false, [](T a, T b) { return a / b; });
  }
  [[gnu::noipa]] static void rcp(Exec &x, const DInstr &in) {
    lanes<T, 1>(x, in, in.ftz, false, [](T a) { return T(1) / a; });
  }
  [[gnu::noipa]] static void sqrt(Exec &x, const DInstr &in) {
    lanes<T, 1>(x, in, in.ftz, false, [](T a) { return std::sqrt(a); });
  }
  // div.approx.f32 computes a * (1/b): for 2^126 < |b| < 2^128 the
  // reciprocal is subnormal and flushes, giving 0 (PTX ISA, div). div.full
  // is accurate to 2 ulp over the whole range; the correctly rounded
  // quotient is within that.
  static void divApprox(Exec &x, const DInstr &in) {
    if (flagsOf(x, in).full)
      return lanes<float, 2>(x, in, in.ftz, false, [](float a, float b) { return a / b; });
    lanes<float, 2>(x, in, in.ftz, false, [](float a, float b) { return a * flush(1.0f / b, true); });
  }
  // .approx forms: computed in double, rounded once.
  template <double (*Fn)(double)> static void approx(Exec &x, const DInstr &in) {
    lanes<T, 1>(x, in, in.ftz, false, [](T a) { return T(Fn(double(a))); });
  }
  static void abs(Exec &x, const DInstr &in) {
    const DOp &d = x.kernel().op(in, 0);
    forLanes(x.mask, [&](unsigned l) {
      U a = bitsOf<T>(flush(arg<T>(x, in, 1, l), in.ftz));
      writeOperand(x, d, l, a & (std::numeric_limits<U>::max() >> 1));
    });
  }
  static void neg(Exec &x, const DInstr &in) {
    const DOp &d = x.kernel().op(in, 0);
    forLanes(x.mask, [&](unsigned l) {
      U a = bitsOf<T>(flush(arg<T>(x, in, 1, l), in.ftz));
      writeOperand(x, d, l, a ^ (U(1) << (sizeof(T) * 8 - 1)));
    });
  }
  template <bool IsMax> static void minmax(Exec &x, const DInstr &in) {
    const Flags fl = flagsOf(x, in);
    const DOp &d = x.kernel().op(in, 0);
    const U signBit = U(1) << (sizeof(T) * 8 - 1);
    forLanes(x.mask, [&](unsigned l) {
      T a = flush(arg<T>(x, in, 1, l), in.ftz), b = flush(arg<T>(x, in, 2, l), in.ftz);
      U sign = 0;
      if (fl.xorsignAbs) sign = (bitsOf<T>(a) ^ bitsOf<T>(b)) & signBit;
      if (fl.xorsignAbs || fl.abs) a = std::fabs(a), b = std::fabs(b);
      int p = pick(a, b, IsMax, fl.nan);
      T r = p == 0 ? a : b;
      if (p != 2 && in.numOps > 3) {
        T c = flush(arg<T>(x, in, 3, l), in.ftz);
        if (fl.abs) c = std::fabs(c);
        int q = pick(r, c, IsMax, fl.nan);
        p = q == 2 ? 2 : p;
        r = q == 0 ? r : c;
      } else if (p == 2 && in.numOps > 3 && !fl.nan) {
        // Both NaN: the third input decides.
        T c = flush(arg<T>(x, in, 3, l), in.ftz);
        if (fl.abs) c = std::fabs(c);
        if (c == c) p = 0, r = c;
      }
      writeOperand(x, d, l, p == 2 ? uint64_t{Bits<T>::kCanonicalNaN} : uint64_t{U(bitsOf<T>(r) | sign)});
    });
  }
  /// copysign d, a, b: b's magnitude with a's sign.
  static void copysign(Exec &x, const DInstr &in) {
    const DOp &d = x.kernel().op(in, 0);
    const U signBit = U(1) << (sizeof(T) * 8 - 1);
    forLanes(x.mask, [&](unsigned l) {
      U a = bitsOf<T>(arg<T>(x, in, 1, l)), b = bitsOf<T>(arg<T>(x, in, 2, l));
      writeOperand(x, d, l, (a & signBit) | (b & ~signBit));
    });
  }
  static void testp(Exec &x, const DInstr &in) {
    const DOp &d = x.kernel().op(in, 0);
    forLanes(x.mask, [&](unsigned l) {
      T a = arg<T>(x, in, 1, l);
      bool r = false;
      switch (in.op) {
      case Mod::TestFinite: r = std::isfinite(a); break;
      case Mod::TestInfinite: r = std::isinf(a); break;
      case Mod::TestNumber: r = !std::isnan(a); break;
      case Mod::TestNotANumber: r = std::isnan(a); break;
      case Mod::TestNormal: r = std::isnormal(a); break;
      case Mod::TestSubnormal: r = std::fpclassify(a) == FP_SUBNORMAL; break;
      default: break;
      }
      writeOperand(x, d, l, r);
    });
  }
};

double rsqrtD(double v) { return 1.0 / std::sqrt(v); }
double rcpD(double v) { return 1.0 / v; }
double sqrtD(double v) { return std::sqrt(v); }
double sinD(double v) { return std::sin(v); }
double cosD(double v) { return std::cos(v); }
double lg2D(double v) { return std::log2(v); }
double ex2D(double v) { return std::exp2(v); }
double tanhD(double v) { return std::tanh(v); }

// ---- f16, bf16 and their x2 packings ----

/// a + b rounded to odd in double: exact for any rounding into a format of
/// at most 51 significand bits afterwards (no double rounding).
double addOdd(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return s;
  double bb = s - a, err = (a - (s - bb)) + (b - bb); // TwoSum: s + err is exact
  if (err == 0) return s;
  uint64_t bits = bitsOf<double>(s);
  if ((err < 0) != (s < 0)) bits -= 1; // truncate toward zero
  return as<double>(bits | 1);
}

constexpr fp::Format kF16{5, 10}, kBF16{8, 7};

template <bool IsBF16> struct H {
  static constexpr fp::Format kFmt = IsBF16 ? kBF16 : kF16;

  static double value(uint64_t bits, bool ftz) {
    bits &= 0xFFFF;
    if (ftz && (bits & 0x7FFF) != 0 && (bits & 0x7FFF) < (1u << kFmt.manBits)) bits &= 0x8000;
    return fp::toDouble(bits, kFmt);
  }
  static bool isNaN(uint64_t bits) { return (bits & 0x7FFF) > (((1u << kFmt.expBits) - 1) << kFmt.manBits); }
  /// Rounds v (exact, or rounded to odd) into the format with .ftz, .sat and
  /// .relu applied.
  static uint64_t finish(double v, bool ftz, bool sat, bool relu) {
    uint64_t r = fp::fromDouble(v, kFmt, fp::Round::Nearest);
    if (ftz && (r & 0x7FFF) < (1u << kFmt.manBits)) r &= 0x8000;
    if (isNaN(r)) return sat ? 0 : r;
    if ((sat || relu) && (r & 0x8000)) return 0;
    if (sat && v > 1.0) return fp::fromDouble(1.0, kFmt, fp::Round::Nearest);
    return r;
  }

  /// Runs the element operation once per 16-bit half (twice for x2).
  template <unsigned N, typename Fn> static void lanes(Exec &x, const DInstr &in, Fn f) {
    const Kernel &k = x.kernel();
    const unsigned elems = (in.type == Type::F16x2 || in.type == Type::BF16x2) ? 2 : 1;
    forLanes(x.mask, [&](unsigned l) {
      uint64_t src[3] = {};
      for (unsigned i = 0; i < N; ++i) src[i] = readOperand(x, k.op(in, 1 + i), l);
      uint64_t out = 0;
      for (unsigned e = 0; e < elems; ++e) {
        uint64_t a = (src[0] >> (16 * e)) & 0xFFFF, b = (src[1] >> (16 * e)) & 0xFFFF,
                 c = (src[2] >> (16 * e)) & 0xFFFF;
        out |= (f(a, b, c) & 0xFFFF) << (16 * e);
      }
      writeOperand(x, k.op(in, 0), l, out);
    });
  }

  static void add(Exec &x, const DInstr &in) {
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) {
      return finish(addOdd(value(a, in.ftz), value(b, in.ftz)), in.ftz, in.sat, false);
    });
  }
  static void sub(Exec &x, const DInstr &in) {
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) {
      return finish(addOdd(value(a, in.ftz), -value(b, in.ftz)), in.ftz, in.sat, false);
    });
  }
  static void mul(Exec &x, const DInstr &in) {
    // The product of two 11-bit (8-bit) significands is exact in double.
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) {
      return finish(value(a, in.ftz) * value(b, in.ftz), in.ftz, in.sat, false);
    });
  }
  static void fma(Exec &x, const DInstr &in) {
    const Flags fl = flagsOf(x, in);
    if (fl.oob) return unsupportedAtRun(x, in);
    lanes<3>(x, in, [&](uint64_t a, uint64_t b, uint64_t c) {
      return finish(addOdd(value(a, in.ftz) * value(b, in.ftz), value(c, in.ftz)), in.ftz, in.sat, fl.relu);
    });
  }
  static void neg(Exec &x, const DInstr &in) {
    lanes<1>(x, in, [&](uint64_t a, uint64_t, uint64_t) { return flushBits(a, in.ftz) ^ 0x8000; });
  }
  static void abs(Exec &x, const DInstr &in) {
    lanes<1>(x, in, [&](uint64_t a, uint64_t, uint64_t) { return flushBits(a, in.ftz) & 0x7FFF; });
  }
  static uint64_t flushBits(uint64_t a, bool ftz) {
    return ftz && (a & 0x7FFF) < (1u << kFmt.manBits) ? a & 0x8000 : a;
  }
  template <bool IsMax> static void minmax(Exec &x, const DInstr &in) {
    const Flags fl = flagsOf(x, in);
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
      a = flushBits(a, in.ftz), b = flushBits(b, in.ftz);
      uint64_t sign = fl.xorsignAbs ? (a ^ b) & 0x8000 : 0;
      if (fl.xorsignAbs) a &= 0x7FFF, b &= 0x7FFF;
      int p = pick(value(a, false), value(b, false), IsMax, fl.nan);
      return p == 2 ? fp::canonicalNaN(kFmt) : (p == 0 ? a : b) | sign;
    });
  }
  template <double (*Fn)(double)> static void approx(Exec &x, const DInstr &in) {
    lanes<1>(x, in, [&](uint64_t a, uint64_t, uint64_t) {
      return finish(Fn(value(a, in.ftz)), in.ftz, false, false);
    });
  }

  static void unsupportedAtRun(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    x.cta.report(ptx::DiagKind::Unsupported, ptx::Severity::Error, x.pc, x.warp, x.mask,
                 "the emulator cannot execute '" + ptx::instructionName(*k.module, k.instr(in)) + "' yet");
  }
};

// ---- Selection ----

template <typename T> Handler selectFor(const DInstr &in) {
  using Ops = F<T>;
  constexpr bool isF32 = std::is_same_v<T, float>;
  const bool ieee =
      in.rounding == Mod::Rn || in.rounding == Mod::Rz || in.rounding == Mod::Rm || in.rounding == Mod::Rp;
  if (in.rounding != Mod::None && !ieee) return nullptr;
  switch (in.opcode) {
  case Opcode::Add: return &rounded<&Ops::add>;
  case Opcode::Sub: return &rounded<&Ops::sub>;
  case Opcode::Mul: return &rounded<&Ops::mul>;
  case Opcode::Fma:
  case Opcode::Mad: return ieee ? &rounded<&Ops::fma> : nullptr;
  case Opcode::Div:
    if (ieee) return &rounded<&Ops::div>;
    if constexpr (isF32) return &Ops::divApprox; // .approx or .full
    return nullptr;
  case Opcode::Rcp: return ieee ? &rounded<&Ops::rcp> : &Ops::template approx<rcpD>;
  case Opcode::Sqrt: return ieee ? &rounded<&Ops::sqrt> : &Ops::template approx<sqrtD>;
  case Opcode::Rsqrt: return ieee ? nullptr : &Ops::template approx<rsqrtD>;
  case Opcode::Abs: return &Ops::abs;
  case Opcode::Neg: return &Ops::neg;
  case Opcode::Min: return &Ops::template minmax<false>;
  case Opcode::Max: return &Ops::template minmax<true>;
  case Opcode::Copysign: return &Ops::copysign;
  case Opcode::Testp: return &Ops::testp;
  default: break;
  }
  if constexpr (isF32) {
    switch (in.opcode) {
    case Opcode::Sin: return &Ops::template approx<sinD>;
    case Opcode::Cos: return &Ops::template approx<cosD>;
    case Opcode::Lg2: return &Ops::template approx<lg2D>;
    case Opcode::Ex2: return &Ops::template approx<ex2D>;
    case Opcode::Tanh: return &Ops::template approx<tanhD>;
    default: break;
    }
  }
  return nullptr;
}

template <bool IsBF16> Handler selectHalf(const DInstr &in) {
  using Ops = H<IsBF16>;
  // Half-precision arithmetic rounds to nearest only.
  if (in.rounding != Mod::None && in.rounding != Mod::Rn) return nullptr;
  switch (in.opcode) {
  case Opcode::Add: return &Ops::add;
  case Opcode::Sub: return &Ops::sub;
  case Opcode::Mul: return &Ops::mul;
  case Opcode::Fma: return &Ops::fma;
  case Opcode::Neg: return &Ops::neg;
  case Opcode::Abs: return &Ops::abs;
  case Opcode::Min: return &Ops::template minmax<false>;
  case Opcode::Max: return &Ops::template minmax<true>;
  case Opcode::Ex2: return &Ops::template approx<ex2D>;
  case Opcode::Tanh: return &Ops::template approx<tanhD>;
  default: return nullptr;
  }
}

} // namespace

Handler selectFloatArith(const DInstr &in) {
  if (in.vec > 1) return nullptr;
  // Mixed-precision forms (add.f32.f16, fma.f32.bf16) name two types.
  if (in.type0 != in.type && in.opcode != Opcode::Testp) return nullptr;
  switch (in.type) {
  case Type::F32: return selectFor<float>(in);
  case Type::F64: return selectFor<double>(in);
  case Type::F16:
  case Type::F16x2: return selectHalf<false>(in);
  case Type::BF16:
  case Type::BF16x2: return selectHalf<true>(in);
  default: return nullptr;
  }
}

} // namespace emu
