// Floating-point arithmetic (f32, f64, f16, bf16 and packed x2 forms, the
// f32x2 and mixed-precision .f32.f16/.f32.bf16 forms of sm_100): add, sub,
// mul, fma, mad, div, abs, neg, min, max, rcp, sqrt, rsqrt, sin, cos, lg2,
// ex2, tanh, copysign, testp.
//
// f32/f64 results are the host's IEEE arithmetic, in the instruction's
// rounding mode (MXCSR set around the lane loop). f16/bf16 and mixed
// results are computed exactly or rounded to odd in double, then rounded
// once into the format in software (Fp.h). NaN results are PTX's canonical
// NaN (f32 0x7FFFFFFF, f16/bf16 0x7FFF). The .approx functions return the
// correctly rounded (or double-precision) value, inside the ISA's error
// bounds. The modifiers decoded into DInstr::mods (.full, .NaN, .xorsign,
// .abs, .relu) are template parameters chosen when the instruction is
// decoded.
#include "emulator/Semantics.h"
#include "emulator/semantics/Fp.h"
#include "emulator/semantics/VecMath.h"

#include <bit>
#include <cfenv>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <cmath>
#include <initializer_list>
#include <limits>

// A body whose floating-point operations must stay between the rounding-mode
// calls around it: GCC's noipa keeps the optimizer from looking into it
// (clang, used for the fuzz build only, has no such attribute).
#if defined(__clang__)
#define PTXVM_NOIPA [[gnu::noinline]]
#else
#define PTXVM_NOIPA [[gnu::noipa]]
#endif

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

// ---- Rounding modes ----

int hostMode(Mod rounding) {
  return rounding == Mod::Rz   ? FE_TOWARDZERO
         : rounding == Mod::Rm ? FE_DOWNWARD
         : rounding == Mod::Rp ? FE_UPWARD
                               : FE_TONEAREST;
}

// The handlers' f32/f64 arithmetic is SSE/AVX code, which rounds as MXCSR
// says: setting MXCSR alone costs a fraction of glibc's fesetround, which
// also rewrites the x87 control word (fesetround was 9% of compiled
// Black-Scholes, whose expf has three fma.rm in 160 instructions).
#if defined(__x86_64__)
static_assert(FE_TONEAREST == 0 && FE_DOWNWARD == 0x400 && FE_UPWARD == 0x800 && FE_TOWARDZERO == 0xC00,
              "the x87 encoding of <cfenv>'s modes, three bits below MXCSR's");
using RoundingState = unsigned;
inline RoundingState currentRounding() { return _mm_getcsr(); }
inline void setRounding(RoundingState current, int mode) {
  _mm_setcsr((current & ~0x6000u) | (static_cast<unsigned>(mode) << 3));
}
inline void restoreRounding(RoundingState saved) { _mm_setcsr(saved); }
#else
using RoundingState = int;
inline RoundingState currentRounding() { return std::fegetround(); }
inline void setRounding(RoundingState, int mode) { std::fesetround(mode); }
inline void restoreRounding(RoundingState saved) { std::fesetround(saved); }
#endif

/// Runs Body with the host rounding mode set to the instruction's. Bodies are
/// noipa, so no floating-point operation of theirs can move across the
/// mode switches.
template <void (*Body)(Exec &, const DInstr &)> void rounded(Exec &x, const DInstr &in) {
  int mode = hostMode(in.rounding);
  if (mode == FE_TONEAREST) return Body(x, in);
  const RoundingState saved = currentRounding();
  setRounding(saved, mode);
  Body(x, in);
  restoreRounding(saved);
}

fp::Round softMode(Mod rounding) {
  return rounding == Mod::Rz   ? fp::Round::Zero
         : rounding == Mod::Rm ? fp::Round::Down
         : rounding == Mod::Rp ? fp::Round::Up
                               : fp::Round::Nearest;
}

// ---- f32 and f64 ----

template <typename T> struct Bits;
template <> struct Bits<float> {
  using U = uint32_t;
  static constexpr U kCanonicalNaN = 0x7FFFFFFFu;
};
template <> struct Bits<double> {
  using U = uint64_t;
  // f64 has no canonical NaN (measured on H100): a NaN operand comes back
  // quieted, the last NaN operand when there are several (see nanOf64),
  // and an invalid operation gives the default NaN.
  static constexpr U kCanonicalNaN = 0xFFF8000000000000ull;
};

/// The NaN an f64 operation returns: a NaN operand, quieted, or the default
/// NaN 0xFFF8000000000000 for an invalid operation. When several operands
/// are NaN, `first` (an operand index) wins, then the others from the last
/// down (measured on H100: add, sub and min keep b's, fma and mad b's over
/// c's, div a's). The hardware's rule is positional in SASS - DADD, DMUL and
/// DMNMX return their second source's NaN, DFMA its second multiplicand's,
/// then the addend's - and ptxas may commute the operands of add, mul, min,
/// max and fma (tests/gpu/cases/flt_f64_exact: it did); PTX order is what
/// it emits when it does not. Everything else about f64 results, in every
/// rounding mode, matches the H100 bit for bit (that case: 115,200 results).
inline uint64_t nanOf64(std::initializer_list<double> operands, int first = -1) {
  uint64_t r = Bits<double>::kCanonicalNaN;
  int i = 0;
  bool fixed = false;
  for (double v : operands) {
    if (v != v && !fixed) r = bitsOf<double>(v) | 0x0008000000000000ull;
    if (v != v && i == first) fixed = true;
    ++i;
  }
  return r;
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

/// Whether an f32 operation whose rounded result is ±FLT_MIN is "tiny" in
/// IEEE 754's after-rounding sense: its exact result, rounded to 24 bits
/// with an unbounded exponent range, lies below FLT_MIN. .ftz flushes such
/// results too (measured on H100: mul.rn.ftz.f32 of 2^-126 and 1 - 2^-24,
/// whose exact product has 24 bits, gives 0; an fma.rn.ftz.f16x2 whose exact
/// result only rounds up to the smallest normal keeps it). The exact result
/// is computed in double, rounding to nearest.
template <unsigned N> [[gnu::noinline]] bool tinyBeforeRounding(Opcode op, float a, float b, float c) {
  const RoundingState instruction = currentRounding();
  setRounding(instruction, FE_TONEAREST);
  double e;
  switch (op) {
  case Opcode::Add: e = fp::addOdd(a, b); break;
  case Opcode::Sub: e = fp::addOdd(a, -double(b)); break;
  case Opcode::Mul: e = double(a) * double(b); break;
  case Opcode::Fma:
  case Opcode::Mad: e = fp::addOdd(double(a) * double(b), c); break;
  case Opcode::Div: e = double(a) / double(b); break;
  default: e = std::numeric_limits<float>::min(); break;
  }
  // Rounded to 24 bits in the instruction's mode, scaled into float's normal
  // range so that the exponent does not limit it.
  restoreRounding(instruction);
  float scaled = static_cast<float>(std::ldexp(e, 64));
  (void)N;
  return std::fabs(scaled) < std::ldexp(std::numeric_limits<float>::min(), 64);
}

/// Whether any of 32 f32 results (zero-extended bits) is a NaN, or with
/// `tinyToo` exactly ±FLT_MIN. Integer compares OR-ed into an integer: a
/// loop GCC vectorizes.
inline bool anySpecialF32(const uint64_t (&bits)[32], bool tinyToo) {
  uint32_t special = 0;
  for (unsigned l = 0; l < 32; ++l) {
    const uint32_t magnitude = static_cast<uint32_t>(bits[l]) & 0x7FFFFFFFu;
    special |= static_cast<uint32_t>(magnitude > 0x7F800000u) |
               (static_cast<uint32_t>(magnitude == 0x00800000u) & static_cast<uint32_t>(tinyToo));
  }
  return special != 0;
}
/// Whether any of 32 f64 results is a NaN.
inline bool anyNaNF64(const uint64_t (&bits)[32]) {
  uint64_t nan = 0;
  for (unsigned l = 0; l < 32; ++l)
    nan |= static_cast<uint64_t>((bits[l] & ~(1ull << 63)) > 0x7FF0000000000000ull);
  return nan != 0;
}

/// d = f(a, b, ...) over the lanes, inputs (all 32 lanes, gathered)
/// flushed with .ftz.
template <typename T, unsigned N, typename F>
inline void lanesOf(Exec &x, const DInstr &in, bool ftz, bool sat, const T (&a)[32], const T (&b)[32],
                    const T (&c)[32], F f) {
  // Compute branch-free, write the executing lanes: inactive lanes compute
  // on stale values, which has no effect.
  const Kernel &k = x.kernel();
  uint64_t out[32];
  // The fast paths compute all 32 lanes in a pure loop and then look for
  // the rare results that need more in a second, integer loop over their
  // bits: GCC does not vectorize a loop that also ORs a bool, so one loop
  // doing both ran lane by lane (2x slower on fma-heavy kernels).
  if constexpr (std::is_same_v<T, float>) {
    if (ftz && !sat) {
      // .ftz (all of fast-math code's f32 arithmetic): inputs and results
      // flushed branch-free. A NaN, or a result of exactly ±FLT_MIN (tiny
      // before rounding, perhaps), takes the general loop below.
      for (unsigned l = 0; l < 32; ++l) {
        float r;
        if constexpr (N == 1)
          r = f(flush(a[l], true));
        else if constexpr (N == 2)
          r = f(flush(a[l], true), flush(b[l], true));
        else
          r = f(flush(a[l], true), flush(b[l], true), flush(c[l], true));
        out[l] = bitsOf<float>(flush(r, true));
      }
      if (!anySpecialF32(out, true)) return scatter(x, k.op(in, 0), out);
    }
  }
  if (!ftz && !sat) {
    // The common case, without .ftz or .sat. Only a NaN result needs more
    // (its canonical or propagated bits), and then the general loop below
    // recomputes the instruction.
    for (unsigned l = 0; l < 32; ++l) {
      T r;
      if constexpr (N == 1)
        r = f(a[l]);
      else if constexpr (N == 2)
        r = f(a[l], b[l]);
      else
        r = f(a[l], b[l], c[l]);
      out[l] = bitsOf<T>(r);
    }
    bool anyNaN;
    if constexpr (std::is_same_v<T, float>)
      anyNaN = anySpecialF32(out, false);
    else
      anyNaN = anyNaNF64(out);
    if (!anyNaN) return scatter(x, k.op(in, 0), out);
  }
  for (unsigned l = 0; l < 32; ++l) {
    T r;
    if constexpr (N == 1)
      r = f(flush(a[l], ftz));
    else if constexpr (N == 2)
      r = f(flush(a[l], ftz), flush(b[l], ftz));
    else
      r = f(flush(a[l], ftz), flush(b[l], ftz), flush(c[l], ftz));
    if constexpr (std::is_same_v<T, float>)
      if (ftz && std::fabs(r) == std::numeric_limits<float>::min() &&
          tinyBeforeRounding<N>(in.opcode, flush(a[l], true), N > 1 ? flush(b[l], true) : 0.0f,
                                N > 2 ? flush(c[l], true) : 0.0f))
        r = std::copysign(0.0f, r);
    if constexpr (std::is_same_v<T, double>)
      if (r != r && !sat) {
        int first = in.opcode == Opcode::Div ? 0 : N > 1 ? 1 : 0;
        out[l] = nanOf64({a[l], N > 1 ? b[l] : 0.0, N > 2 ? c[l] : 0.0}, first);
        continue;
      }
    out[l] = result<T>(r, ftz, sat);
  }
  scatter(x, k.op(in, 0), out);
}

/// d = f(a, b, ...) over the lanes, inputs flushed with .ftz.
template <typename T, unsigned N, typename F>
inline void lanes(Exec &x, const DInstr &in, bool ftz, bool sat, F f) {
  const Kernel &k = x.kernel();
  T a[32], b[32], c[32];
  gather(x, k.op(in, 1), a);
  if constexpr (N > 1) gather(x, k.op(in, 2), b);
  if constexpr (N > 2) gather(x, k.op(in, 3), c);
  lanesOf<T, N>(x, in, ftz, sat, a, b, c, f);
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

double rsqrtD(double v) { return 1.0 / std::sqrt(v); }
double rcpD(double v) { return 1.0 / v; }
double sqrtD(double v) { return std::sqrt(v); }
double sinD(double v) { return std::sin(v); }
double cosD(double v) { return std::cos(v); }
// Without calls, so that their lane loops vectorize (VecMath.h; sin and cos
// reduce exactly only within its kTrigLimit, so F::trig picks per warp).
[[gnu::always_inline]] inline double lg2D(double v) { return vecmath::log2(v); }
[[gnu::always_inline]] inline double ex2D(double v) { return vecmath::exp2(v); }
[[gnu::always_inline]] inline double tanhD(double v) { return vecmath::tanh(v); }

template <typename T> struct F {
  using U = typename Bits<T>::U;

  PTXVM_NOIPA static void add(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, in.sat, [](T a, T b) { return a + b; });
  }
  PTXVM_NOIPA static void sub(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, in.sat, [](T a, T b) { return a - b; });
  }
  PTXVM_NOIPA static void mul(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, in.sat, [](T a, T b) { return a * b; });
  }
  PTXVM_NOIPA static void fma(Exec &x, const DInstr &in) {
    lanes<T, 3>(x, in, in.ftz, in.sat, [](T a, T b, T c) { return std::fma(a, b, c); });
  }
  PTXVM_NOIPA static void div(Exec &x, const DInstr &in) {
    lanes<T, 2>(x, in, in.ftz, false, [](T a, T b) { return a / b; });
  }
  PTXVM_NOIPA static void rcp(Exec &x, const DInstr &in) {
    lanes<T, 1>(x, in, in.ftz, false, [](T a) { return T(1) / a; });
  }
  PTXVM_NOIPA static void sqrt(Exec &x, const DInstr &in) {
    lanes<T, 1>(x, in, in.ftz, false, [](T a) { return std::sqrt(a); });
  }
  // div.approx.f32 computes a * (1/b): for 2^126 < |b| < 2^128 the
  // reciprocal is subnormal and flushes, giving 0 (PTX ISA, div). A
  // subnormal b still gives the quotient (measured on H100: 2^-149 / -2^-149
  // is -1, 0 / -2^-149 is -0), not a * inf.
  static void divApprox(Exec &x, const DInstr &in) {
    lanes<float, 2>(x, in, in.ftz, false, [](float a, float b) {
      return std::fabs(b) < std::numeric_limits<float>::min() ? a / b : a * flush(1.0f / b, true);
    });
  }
  // div.full is accurate to 2 ulp over the whole range; the correctly
  // rounded quotient is within that.
  static void divFull(Exec &x, const DInstr &in) {
    lanes<float, 2>(x, in, in.ftz, false, [](float a, float b) { return a / b; });
  }
  // .approx forms: computed in double, rounded once. A NaN result of the
  // .approx.ftz.f64 forms is 0x7FFFFFFF00000000 (they work on the high word,
  // measured on H100); of rsqrt.approx.f64 the default NaN.
  template <double (*Fn)(double)> static void approx(Exec &x, const DInstr &in) {
    lanes<T, 1>(
        x, in, in.ftz, false, [](T a) __attribute__((always_inline)) { return T(Fn(double(a))); });
    if constexpr (std::is_same_v<T, double>) {
      const DOp &d = x.kernel().op(in, 0);
      forLanes(x.mask, [&](unsigned l) {
        uint64_t r = x.reg(d.reg, l);
        if (d.kind == DOp::Reg && as<double>(r) != as<double>(r) && in.ftz)
          x.reg(d.reg, l) = 0x7FFFFFFF00000000ull;
      });
    }
  }
  /// sin.approx/cos.approx.f32: a vectorized loop when every executing
  /// lane's input is within the range VecMath reduces exactly, libm lane by
  /// lane when not (decided on executing lanes only, as compiled code
  /// decides, translator/Lowering.cpp).
  template <bool Cosine> static void trig(Exec &x, const DInstr &in) {
    static_assert(std::is_same_v<T, float>);
    T a[32];
    gather(x, x.kernel().op(in, 1), a);
    uint32_t outside = 0;
    for (unsigned l = 0; l < 32; ++l)
      outside |=
          static_cast<uint32_t>((std::bit_cast<uint32_t>(a[l]) & 0x7FFFFFFFu) > vecmath::kTrigLimitF32) &
          (x.mask >> l);
    if (outside == 0)
      lanesOf<T, 1>(
          x, in, in.ftz, false, a, a, a,
          [](T v) __attribute__((always_inline)) { return T(vecmath::sinCos<Cosine>(double(v))); });
    else
      approx<Cosine ? cosD : sinD>(x, in);
  }
  // abs and neg change the sign bit. A NaN gives the canonical NaN for f32,
  // and stays as it is for f64 (both measured on H100).
  static U nanResult(U a) { return std::is_same_v<T, float> ? U(Bits<T>::kCanonicalNaN) : a; }
  /// abs clears the sign bit, neg flips it: 32 lanes at a time.
  template <bool IsAbs> static void signOp(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    T a[32];
    U out[32];
    gather(x, k.op(in, 1), a);
    const U signBit = U(1) << (sizeof(T) * 8 - 1);
    for (unsigned l = 0; l < 32; ++l) {
      T v = flush(a[l], in.ftz);
      U b = U(bitsOf<T>(v));
      out[l] = v != v ? nanResult(b) : IsAbs ? U(b & ~signBit) : U(b ^ signBit);
    }
    scatter(x, k.op(in, 0), out);
  }
  static void abs(Exec &x, const DInstr &in) { signOp<true>(x, in); }
  static void neg(Exec &x, const DInstr &in) { signOp<false>(x, in); }
  /// min/max{.ftz}{.NaN}{.xorsign.abs}{.abs} d, a, b{, c}.
  template <bool IsMax, bool NaNMode, bool XorSign, bool Abs> static void minmax(Exec &x, const DInstr &in) {
    const DOp &d = x.kernel().op(in, 0);
    const U signBit = U(1) << (sizeof(T) * 8 - 1);
    forLanes(x.mask, [&](unsigned l) {
      T a = flush(arg<T>(x, in, 1, l), in.ftz), b = flush(arg<T>(x, in, 2, l), in.ftz);
      U sign = 0;
      if (XorSign) sign = (bitsOf<T>(a) ^ bitsOf<T>(b)) & signBit;
      if (XorSign || Abs) a = std::fabs(a), b = std::fabs(b);
      int p = pick(a, b, IsMax, NaNMode);
      T r = p == 0 ? a : b;
      if (p != 2 && in.numOps > 3) {
        T c = flush(arg<T>(x, in, 3, l), in.ftz);
        if (Abs) c = std::fabs(c);
        int q = pick(r, c, IsMax, NaNMode);
        p = q == 2 ? 2 : p;
        r = q == 0 ? r : c;
      } else if (p == 2 && in.numOps > 3 && !NaNMode) {
        // Both NaN: the third input decides.
        T c = flush(arg<T>(x, in, 3, l), in.ftz);
        if (Abs) c = std::fabs(c);
        if (c == c) p = 0, r = c;
      }
      uint64_t nan = Bits<T>::kCanonicalNaN;
      if constexpr (std::is_same_v<T, double>) nan = nanOf64({a, b}); // measured on H100: b's NaN
      writeOperand(x, d, l, p == 2 ? nan : uint64_t{U(bitsOf<T>(r) | sign)});
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
      // Measured on H100 (tests/gpu/cases/flt_float_compare): ±0 tests
      // normal; subnormals, infinities and NaNs do not.
      case Mod::TestNormal: r = std::isnormal(a) || a == T(0); break;
      case Mod::TestSubnormal: r = std::fpclassify(a) == FP_SUBNORMAL; break;
      default: break;
      }
      writeOperand(x, d, l, r);
    });
  }
};

// ---- f32x2 (sm_100): two f32 lanes in a 64-bit register -----------------------------------------

/// add/sub/mul/fma{.rnd}{.ftz}.f32x2: the f32 operation on bits 31..0 and on
/// bits 63..32 of each operand.
template <unsigned N, typename Fn> void pairLanes(Exec &x, const DInstr &in, Fn f) {
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint64_t src[3] = {};
    for (unsigned i = 0; i < N; ++i) src[i] = readOperand(x, k.op(in, 1 + i), l);
    uint64_t out = 0;
    for (unsigned h = 0; h < 2; ++h) {
      float a = flush(as<float>(src[0] >> (32 * h)), in.ftz),
            b = flush(as<float>(src[1] >> (32 * h)), in.ftz),
            c = flush(as<float>(src[2] >> (32 * h)), in.ftz);
      out |= result<float>(f(a, b, c), in.ftz, false) << (32 * h);
    }
    writeOperand(x, k.op(in, 0), l, out);
  });
}
PTXVM_NOIPA void addX2(Exec &x, const DInstr &in) {
  pairLanes<2>(x, in, [](float a, float b, float) { return a + b; });
}
PTXVM_NOIPA void subX2(Exec &x, const DInstr &in) {
  pairLanes<2>(x, in, [](float a, float b, float) { return a - b; });
}
PTXVM_NOIPA void mulX2(Exec &x, const DInstr &in) {
  pairLanes<2>(x, in, [](float a, float b, float) { return a * b; });
}
PTXVM_NOIPA void fmaX2(Exec &x, const DInstr &in) {
  pairLanes<3>(x, in, [](float a, float b, float c) { return std::fma(a, b, c); });
}

// ---- f16, bf16 and their x2 packings ----

template <bool IsBF16> struct H {
  static constexpr fp::Format kFmt = IsBF16 ? fp::kBF16 : fp::kF16;

  static double value(uint64_t bits, bool ftz) {
    bits &= 0xFFFF;
    if (ftz && (bits & 0x7FFF) != 0 && (bits & 0x7FFF) < (1u << kFmt.manBits)) bits &= 0x8000;
    return fp::toDouble(bits, kFmt);
  }
  static bool isNaN(uint64_t bits) { return fp::isNaN(bits & 0xFFFF, kFmt); }
  /// Rounds v (exact, or rounded to odd) into the format with .ftz, .sat and
  /// .relu applied.
  static uint64_t finish(double v, bool ftz, bool sat, bool relu) {
    uint64_t r = fp::fromDouble(v, kFmt, fp::Round::Nearest);
    // .ftz flushes results that are tiny after rounding with an unbounded
    // exponent range (as for f32, measured on H100).
    const double minNormal = std::ldexp(1.0, 2 - (1 << (kFmt.expBits - 1)));
    const fp::Format wide{11, kFmt.manBits};
    bool tiny = std::fabs(fp::toDouble(fp::fromDouble(v, wide, fp::Round::Nearest), wide)) < minNormal;
    if (ftz && ((r & 0x7FFF) < (1u << kFmt.manBits) || tiny)) r &= 0x8000;
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
      return finish(fp::addOdd(value(a, in.ftz), value(b, in.ftz)), in.ftz, in.sat, false);
    });
  }
  static void sub(Exec &x, const DInstr &in) {
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) {
      return finish(fp::addOdd(value(a, in.ftz), -value(b, in.ftz)), in.ftz, in.sat, false);
    });
  }
  static void mul(Exec &x, const DInstr &in) {
    // The product of two 11-bit (8-bit) significands is exact in double.
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) {
      return finish(value(a, in.ftz) * value(b, in.ftz), in.ftz, in.sat, false);
    });
  }
  /// fma.rn{.ftz}{.sat}{.relu}, and fma.rn.oob{.relu}. .oob makes the
  /// result 0 when an input is the NaN that an out-of-bounds tensor load
  /// fills in; no NaN a register can be given acts so (measured on H100:
  /// 0x7FFF, 0x7E00, 0x7C01 ... all propagate as in fma.rn), so it is fma.rn.
  template <bool Relu> static void fma(Exec &x, const DInstr &in) {
    lanes<3>(x, in, [&](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
      return finish(fp::addOdd(value(a, in.ftz) * value(b, in.ftz), value(c, in.ftz)), in.ftz, in.sat, Relu);
    });
  }
  // A NaN gives the canonical NaN (measured on H100).
  static void neg(Exec &x, const DInstr &in) {
    lanes<1>(x, in, [&](uint64_t a, uint64_t, uint64_t) {
      return isNaN(a) ? fp::canonicalNaN(kFmt) : flushBits(a, in.ftz) ^ 0x8000;
    });
  }
  static void abs(Exec &x, const DInstr &in) {
    lanes<1>(x, in, [&](uint64_t a, uint64_t, uint64_t) {
      return isNaN(a) ? fp::canonicalNaN(kFmt) : flushBits(a, in.ftz) & 0x7FFF;
    });
  }
  static uint64_t flushBits(uint64_t a, bool ftz) {
    return ftz && (a & 0x7FFF) < (1u << kFmt.manBits) ? a & 0x8000 : a;
  }
  template <bool IsMax, bool NaNMode, bool XorSign> static void minmax(Exec &x, const DInstr &in) {
    lanes<2>(x, in, [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
      a = flushBits(a, in.ftz), b = flushBits(b, in.ftz);
      uint64_t sign = XorSign ? (a ^ b) & 0x8000 : 0;
      if (XorSign) a &= 0x7FFF, b &= 0x7FFF;
      int p = pick(value(a, false), value(b, false), IsMax, NaNMode);
      return p == 2 ? fp::canonicalNaN(kFmt) : (p == 0 ? a : b) | sign;
    });
  }
  template <double (*Fn)(double)> static void approx(Exec &x, const DInstr &in) {
    lanes<1>(x, in, [&](uint64_t a, uint64_t, uint64_t) {
      return finish(Fn(value(a, in.ftz)), in.ftz, false, false);
    });
  }
};

// ---- Mixed precision (sm_100): .f32 results from .f16/.bf16 sources ------------------------------

/// add/sub{.rnd}{.sat}.f32.{f16,bf16} d, a, c (a half, c f32) and
/// fma{.rnd}{.sat}.f32.{f16,bf16} d, a, b, c (a, b half; c f32): the exact
/// result rounded once to f32.
template <bool IsBF16, Opcode Op> void mixed(Exec &x, const DInstr &in) {
  constexpr fp::Format half = IsBF16 ? fp::kBF16 : fp::kF16;
  const Kernel &k = x.kernel();
  const fp::Round mode = softMode(in.rounding);
  forLanes(x.mask, [&](unsigned l) {
    double a = fp::toDouble(readOperand(x, k.op(in, 1), l) & 0xFFFF, half), r;
    if constexpr (Op == Opcode::Fma) {
      double b = fp::toDouble(readOperand(x, k.op(in, 2), l) & 0xFFFF, half);
      double c = as<float>(readOperand(x, k.op(in, 3), l));
      r = fp::addOdd(a * b, c); // a * b is exact in double
    } else {
      double c = as<float>(readOperand(x, k.op(in, 2), l));
      r = fp::addOdd(a, Op == Opcode::Sub ? -c : c);
    }
    uint64_t bits = fp::fromDouble(r, fp::kF32, mode);
    if (in.sat) {
      float v = as<float>(bits);
      bits = !(v > 0.0f) ? 0 : v > 1.0f ? bitsOf<float>(1.0f) : bits;
    }
    writeOperand(x, k.op(in, 0), l, bits);
  });
}

// ---- Selection ----

bool ieeeRounding(Mod r) { return r == Mod::Rn || r == Mod::Rz || r == Mod::Rm || r == Mod::Rp; }

template <typename T, bool IsMax> Handler minmaxFor(const DInstr &in) {
  using Ops = F<T>;
  bool nan = in.mods & dmod::NaN, xorsign = in.mods & dmod::XorSign, abs = !xorsign && (in.mods & dmod::Abs);
  if (xorsign)
    return nan ? &Ops::template minmax<IsMax, true, true, false>
               : &Ops::template minmax<IsMax, false, true, false>;
  if (abs)
    return nan ? &Ops::template minmax<IsMax, true, false, true>
               : &Ops::template minmax<IsMax, false, false, true>;
  return nan ? &Ops::template minmax<IsMax, true, false, false>
             : &Ops::template minmax<IsMax, false, false, false>;
}

template <typename T> Handler selectFor(const DInstr &in) {
  using Ops = F<T>;
  constexpr bool isF32 = std::is_same_v<T, float>;
  const bool ieee = ieeeRounding(in.rounding);
  if (in.rounding != Mod::None && !ieee) return nullptr;
  switch (in.opcode) {
  case Opcode::Add: return &rounded<&Ops::add>;
  case Opcode::Sub: return &rounded<&Ops::sub>;
  case Opcode::Mul: return &rounded<&Ops::mul>;
  case Opcode::Fma:
  case Opcode::Mad: return ieee ? &rounded<&Ops::fma> : nullptr;
  case Opcode::Div:
    if (ieee) return &rounded<&Ops::div>;
    if constexpr (isF32) return (in.mods & dmod::Full) ? &Ops::divFull : &Ops::divApprox;
    return nullptr;
  case Opcode::Rcp: return ieee ? &rounded<&Ops::rcp> : &Ops::template approx<rcpD>;
  case Opcode::Sqrt: return ieee ? &rounded<&Ops::sqrt> : &Ops::template approx<sqrtD>;
  case Opcode::Rsqrt: return ieee ? nullptr : &Ops::template approx<rsqrtD>;
  case Opcode::Abs: return &Ops::abs;
  case Opcode::Neg: return &Ops::neg;
  case Opcode::Min: return minmaxFor<T, false>(in);
  case Opcode::Max: return minmaxFor<T, true>(in);
  case Opcode::Copysign: return &Ops::copysign;
  case Opcode::Testp: return &Ops::testp;
  default: break;
  }
  if constexpr (isF32) {
    switch (in.opcode) {
    case Opcode::Sin: return &Ops::template trig<false>;
    case Opcode::Cos: return &Ops::template trig<true>;
    case Opcode::Lg2: return &Ops::template approx<lg2D>;
    case Opcode::Ex2: return &Ops::template approx<ex2D>;
    case Opcode::Tanh: return &Ops::template approx<tanhD>;
    default: break;
    }
  }
  return nullptr;
}

template <bool IsBF16, bool IsMax> Handler halfMinmaxFor(const DInstr &in) {
  using Ops = H<IsBF16>;
  bool nan = in.mods & dmod::NaN, xorsign = in.mods & dmod::XorSign;
  if (xorsign)
    return nan ? &Ops::template minmax<IsMax, true, true> : &Ops::template minmax<IsMax, false, true>;
  return nan ? &Ops::template minmax<IsMax, true, false> : &Ops::template minmax<IsMax, false, false>;
}

template <bool IsBF16> Handler selectHalf(const DInstr &in) {
  using Ops = H<IsBF16>;
  // Half-precision arithmetic rounds to nearest only.
  if (in.rounding != Mod::None && in.rounding != Mod::Rn) return nullptr;
  switch (in.opcode) {
  case Opcode::Add: return &Ops::add;
  case Opcode::Sub: return &Ops::sub;
  case Opcode::Mul: return &Ops::mul;
  case Opcode::Fma: // .oob computes as fma.rn (see fma)
    return (in.mods & dmod::Relu) ? &Ops::template fma<true> : &Ops::template fma<false>;
  case Opcode::Neg: return &Ops::neg;
  case Opcode::Abs: return &Ops::abs;
  case Opcode::Min: return halfMinmaxFor<IsBF16, false>(in);
  case Opcode::Max: return halfMinmaxFor<IsBF16, true>(in);
  case Opcode::Ex2: return &Ops::template approx<ex2D>;
  case Opcode::Tanh: return &Ops::template approx<tanhD>;
  default: return nullptr;
  }
}

Handler selectPair(const DInstr &in) {
  if (in.rounding != Mod::None && !ieeeRounding(in.rounding)) return nullptr;
  switch (in.opcode) {
  case Opcode::Add: return &rounded<&addX2>;
  case Opcode::Sub: return &rounded<&subX2>;
  case Opcode::Mul: return &rounded<&mulX2>;
  case Opcode::Fma: return ieeeRounding(in.rounding) ? &rounded<&fmaX2> : nullptr;
  default: return nullptr;
  }
}

template <bool IsBF16> Handler selectMixed(const DInstr &in) {
  if (in.rounding != Mod::None && !ieeeRounding(in.rounding)) return nullptr;
  switch (in.opcode) {
  case Opcode::Add: return mixed<IsBF16, Opcode::Add>;
  case Opcode::Sub: return mixed<IsBF16, Opcode::Sub>;
  case Opcode::Fma: return mixed<IsBF16, Opcode::Fma>;
  default: return nullptr;
  }
}

/// The handler for the instruction's float type; mixed-precision forms
/// (add.f32.f16, fma.f32.bf16) name two types.
Handler pickFloat(const DInstr &in) {
  if (in.vec > 1) return nullptr;
  if (in.type0 == Type::F32 && (in.type == Type::F16 || in.type == Type::BF16))
    return in.type == Type::BF16 ? selectMixed<true>(in) : selectMixed<false>(in);
  if (in.type0 != in.type && in.opcode != Opcode::Testp) return nullptr;
  switch (in.type) {
  case Type::F32: return selectFor<float>(in);
  case Type::F64: return selectFor<double>(in);
  case Type::F32x2: return selectPair(in);
  case Type::F16:
  case Type::F16x2: return selectHalf<false>(in);
  case Type::BF16:
  case Type::BF16x2: return selectHalf<true>(in);
  default: return nullptr;
  }
}

constexpr uint16_t kFloats = tclass::Float | tclass::FloatPair | tclass::Half;

// Comparisons: Integer.cpp (setp on f32/f64) and Compare.cpp.
constexpr HandlerRow kRows[] = {
    row(Opcode::Add, kFloats, pickFloat),   row(Opcode::Sub, kFloats, pickFloat),
    row(Opcode::Mul, kFloats, pickFloat),   row(Opcode::Fma, kFloats, pickFloat),
    row(Opcode::Mad, kFloats, pickFloat),   row(Opcode::Div, kFloats, pickFloat),
    row(Opcode::Rcp, kFloats, pickFloat),   row(Opcode::Sqrt, kFloats, pickFloat),
    row(Opcode::Rsqrt, kFloats, pickFloat), row(Opcode::Abs, kFloats, pickFloat),
    row(Opcode::Neg, kFloats, pickFloat),   row(Opcode::Min, kFloats, pickFloat),
    row(Opcode::Max, kFloats, pickFloat),   row(Opcode::Copysign, kFloats, pickFloat),
    row(Opcode::Testp, kFloats, pickFloat), row(Opcode::Sin, kFloats, pickFloat),
    row(Opcode::Cos, kFloats, pickFloat),   row(Opcode::Lg2, kFloats, pickFloat),
    row(Opcode::Ex2, kFloats, pickFloat),   row(Opcode::Tanh, kFloats, pickFloat),
};

} // namespace

std::span<const HandlerRow> floatHandlers() { return kRows; }

} // namespace emu
