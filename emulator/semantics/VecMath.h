// exp2, log2, sin, cos and tanh of doubles without calls or branches, so that the
// .approx lane loops (semantics/Float.cpp) vectorize: libm's functions are
// calls, one per lane. Each is within a few 1e-16 (relative; sin and cos
// absolute near their zeros) of the exact value over every f32 input, far
// inside the PTX ISA's .approx bounds, so rounding the result to f32 gives
// libm's f32 result except at near-ties (tests/emulator/VecMathTest.cpp
// measures both over the whole f32 range).
#pragma once

#include <cstdint>
#include <cstring>

namespace emu::vecmath {

inline double fromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t toBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

inline bool isNaN(uint64_t bits) { return (bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

/// Adding this rounds a double of magnitude below 2^51 to an integer, which
/// the low bits of the sum then hold (two's complement).
constexpr double kRoundShift = 6755399441055744.0; // 1.5 * 2^52

/// 2^n for an integer n in [-1022, 1023] given as the low bits of
/// `shifted` (a kRoundShift sum).
inline double powerOfTwo(uint64_t shifted) { return fromBits((shifted - toBits(kRoundShift) + 1023) << 52); }

/// 2^x. NaN gives NaN, +inf inf, -inf 0; results below double's normal
/// range underflow gradually (f32 results that small flush anyway).
[[gnu::always_inline]] inline double exp2(double x) {
  // Clamped so that the two factors of the scale stay in 2^[-1022, 1023]
  // (a NaN becomes ±2000 here and is put back at the end). Compared as
  // bits: GCC neither if-converts ordered comparisons of doubles under
  // -ftrapping-math nor vectorizes fmin/fmax.
  const uint64_t bits = toBits(x);
  const double c =
      (bits & 0x7FFFFFFFFFFFFFFFull) > toBits(2000.0) ? fromBits((bits & (1ull << 63)) | toBits(2000.0)) : x;
  const double shifted = c + kRoundShift;
  const double n = shifted - kRoundShift; // c rounded to an integer
  const double f = c - n;                 // in [-0.5, 0.5]
  // 2^f = e^(f ln2): Taylor to degree 13 (the remainder is below 1e-17).
  const double t = f * 0.6931471805599453094;
  double p = 1.0 / 6227020800.0;
  p = p * t + 1.0 / 479001600.0;
  p = p * t + 1.0 / 39916800.0;
  p = p * t + 1.0 / 3628800.0;
  p = p * t + 1.0 / 362880.0;
  p = p * t + 1.0 / 40320.0;
  p = p * t + 1.0 / 5040.0;
  p = p * t + 1.0 / 720.0;
  p = p * t + 1.0 / 120.0;
  p = p * t + 1.0 / 24.0;
  p = p * t + 1.0 / 6.0;
  p = p * t + 0.5;
  p = p * t + 1.0;
  p = p * t + 1.0;
  // 2^n as two factors, each representable: n / 2 rounded, and the rest.
  const double half = (n * 0.5) + kRoundShift;
  const double first = half - kRoundShift;
  const double rest = (n - first) + kRoundShift;
  const double r = p * powerOfTwo(toBits(half)) * powerOfTwo(toBits(rest));
  return isNaN(bits) ? x : r;
}

/// log2(x): NaN for x < 0 and NaN, -inf for ±0, inf for inf. Every finite
/// f32 value widened is a normal double, which is all this is exact for.
[[gnu::always_inline]] inline double log2(double x) {
  const uint64_t bits = toBits(x);
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)).
  const uint64_t mantissa = bits & 0x000FFFFFFFFFFFFFull;
  const bool high = mantissa > 0x6A09E667F3BCDull; // m >= sqrt(2) before halving
  const double m = fromBits(mantissa | (high ? 0x3FE0000000000000ull : 0x3FF0000000000000ull));
  // The exponent as a double without an integer conversion instruction
  // (x86-64-v3 has none for 64-bit lanes): 2^52 + biased exponent, less 2^52.
  const uint64_t biased = ((bits >> 52) & 0x7FF) + (high ? 1 : 0);
  const double e = (fromBits(0x4330000000000000ull | biased) - 4503599627370496.0) - 1023.0;
  // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716: odd series to
  // s^23 (the remainder is below 1e-18).
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double p = 1.0 / 23;
  p = p * s2 + 1.0 / 21;
  p = p * s2 + 1.0 / 19;
  p = p * s2 + 1.0 / 17;
  p = p * s2 + 1.0 / 15;
  p = p * s2 + 1.0 / 13;
  p = p * s2 + 1.0 / 11;
  p = p * s2 + 1.0 / 9;
  p = p * s2 + 1.0 / 7;
  p = p * s2 + 1.0 / 5;
  p = p * s2 + 1.0 / 3;
  p = p * s2 + 1.0;
  const double r = e + (2.0 * s * p) * 1.4426950408889634074;
  // The special cases blended in as bits: a chain of selects between
  // doubles becomes branches around the series, which do not vectorize.
  const uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
  const uint64_t nan = 0 - static_cast<uint64_t>(isNaN(bits) || (bits >> 63 && magnitude != 0));
  const uint64_t zero = 0 - static_cast<uint64_t>(magnitude == 0);
  const uint64_t inf = 0 - static_cast<uint64_t>(magnitude == 0x7FF0000000000000ull);
  uint64_t out = toBits(r);
  out = (out & ~inf) | (0x7FF0000000000000ull & inf);
  out = (out & ~zero) | (0xFFF0000000000000ull & zero);
  out = (out & ~nan) | (0x7FF8000000000000ull & nan);
  return fromBits(out);
}

/// tanh(x): from e^(2|x|) - 1, as a series below 0.55 (where 1 - 2/(e^(2|x|)
/// + 1) would cancel) and through exp2 above; the sign put back as a bit.
[[gnu::always_inline]] inline double tanh(double x) {
  const uint64_t bits = toBits(x);
  const double a = fromBits(bits & 0x7FFFFFFFFFFFFFFFull);
  const bool small = (bits & 0x7FFFFFFFFFFFFFFFull) < toBits(0.55);
  // e^y - 1 for y = 2|x| < 1.1: Taylor to degree 21 (remainder below 1e-19).
  const double y = small ? 2.0 * a : 0.0;
  double p = 1.0 / 51090942171709440000.0;
  p = p * y + 1.0 / 2432902008176640000.0;
  p = p * y + 1.0 / 121645100408832000.0;
  p = p * y + 1.0 / 6402373705728000.0;
  p = p * y + 1.0 / 355687428096000.0;
  p = p * y + 1.0 / 20922789888000.0;
  p = p * y + 1.0 / 1307674368000.0;
  p = p * y + 1.0 / 87178291200.0;
  p = p * y + 1.0 / 6227020800.0;
  p = p * y + 1.0 / 479001600.0;
  p = p * y + 1.0 / 39916800.0;
  p = p * y + 1.0 / 3628800.0;
  p = p * y + 1.0 / 362880.0;
  p = p * y + 1.0 / 40320.0;
  p = p * y + 1.0 / 5040.0;
  p = p * y + 1.0 / 720.0;
  p = p * y + 1.0 / 120.0;
  p = p * y + 1.0 / 24.0;
  p = p * y + 1.0 / 6.0;
  p = p * y + 0.5;
  p = p * y + 1.0;
  const double em1 = p * y;
  const double fromSeries = em1 / (em1 + 2.0);
  const double fromExp = 1.0 - 2.0 / (exp2(2.0 * 1.4426950408889634074 * (small ? 0.0 : a)) + 1.0);
  const double t = small ? fromSeries : fromExp;
  return isNaN(bits) ? x : fromBits(toBits(t) | (bits & (1ull << 63)));
}

/// Largest |x| sin and cos reduce here; beyond it (and for inf and NaN)
/// they return NaN and the caller asks libm.
constexpr double kTrigLimit = 1048576.0; // 2^20

/// sin(x) or cos(x) for |x| <= kTrigLimit, NaN otherwise.
template <bool Cosine> [[gnu::always_inline]] inline double sinCos(double x) {
  // x - k pi/2 in three parts (Cody and Waite): k < 2^20 and the first two
  // parts have 32 significant bits, so k * part is exact.
  const bool within = (toBits(x) & 0x7FFFFFFFFFFFFFFFull) <= toBits(kTrigLimit);
  const double inRange = within ? x : 0.0;
  const double shifted = inRange * 0.63661977236758134308 + kRoundShift;
  const double k = shifted - kRoundShift;
  const double r = ((inRange - k * 1.5707963267341256) - k * 6.077100506303966e-11) -
                   k * 2.0222662487959506e-21; // pi/2 = the sum of the three to 1e-37
  const uint64_t quadrant = (toBits(shifted) + (Cosine ? 1 : 0)) & 3;
  const double r2 = r * r;
  // |r| <= pi/4: Taylor to degree 23 and 22 (remainders below 1e-19).
  double sp = -1.0 / 25852016738884976640000.0;
  sp = sp * r2 + 1.0 / 51090942171709440000.0;
  sp = sp * r2 - 1.0 / 121645100408832000.0;
  sp = sp * r2 + 1.0 / 355687428096000.0;
  sp = sp * r2 - 1.0 / 1307674368000.0;
  sp = sp * r2 + 1.0 / 6227020800.0;
  sp = sp * r2 - 1.0 / 39916800.0;
  sp = sp * r2 + 1.0 / 362880.0;
  sp = sp * r2 - 1.0 / 5040.0;
  sp = sp * r2 + 1.0 / 120.0;
  sp = sp * r2 - 1.0 / 6.0;
  const double sinR = r + r * r2 * sp;
  double cp = 1.0 / 1124000727777607680000.0;
  cp = cp * r2 - 1.0 / 2432902008176640000.0;
  cp = cp * r2 + 1.0 / 6402373705728000.0;
  cp = cp * r2 - 1.0 / 20922789888000.0;
  cp = cp * r2 + 1.0 / 87178291200.0;
  cp = cp * r2 - 1.0 / 479001600.0;
  cp = cp * r2 + 1.0 / 3628800.0;
  cp = cp * r2 - 1.0 / 40320.0;
  cp = cp * r2 + 1.0 / 720.0;
  cp = cp * r2 - 1.0 / 24.0;
  cp = cp * r2 + 0.5;
  const double cosR = 1.0 - r2 * cp;
  // sin(r + q pi/2) for q = 0..3: sin, cos, -sin, -cos (cos: q + 1).
  const double v = quadrant & 1 ? cosR : sinR;
  const double signed_ = fromBits(toBits(v) ^ ((quadrant & 2) << 62));
  // sin(-0) is -0, which the series (-0 + +0) loses.
  const double result = !Cosine && (toBits(x) << 1) == 0 ? x : signed_;
  return within ? result : fromBits(0x7FF8000000000000ull);
}

} // namespace emu::vecmath
