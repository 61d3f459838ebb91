// exp2, log2, sin, cos and tanh of doubles without calls or branches, so that the
// .approx lane loops (semantics/Float.cpp) vectorize: libm's functions are
// calls, one per lane. Each is within a few 1e-16 (relative; sin and cos
// absolute near their zeros) of the exact value over every f32 input, far
// inside the PTX ISA's .approx bounds, so rounding the result to f32 gives
// libm's f32 result except at near-ties (tests/emulator/VecMathTest.cpp
// measures both over the whole f32 range).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

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

/// c[0] + x (c[1] + x (c[2] + ...)): Horner's rule over a constant table in
/// fused steps (as compiled code computes exp2 and log2, translator/
/// Lowering.cpp: both engines give the same bits), unrolled at compile time
/// (a loop left for the optimizer to unroll stays a loop past 16 terms, and
/// then the lane loop around it does not vectorize).
template <size_t N, size_t... I>
[[gnu::always_inline]] inline double hornerSteps(double x, const std::array<double, N> &c,
                                                 std::index_sequence<I...>) {
  double p = c[N - 1];
  ((p = std::fma(p, x, c[N - 2 - I])), ...);
  return p;
}
template <size_t N> [[gnu::always_inline]] inline double horner(double x, const std::array<double, N> &c) {
  return hornerSteps(x, c, std::make_index_sequence<N - 1>());
}

/// Taylor coefficients: sign^k / (first + step k)! for k = 0..N-1.
template <size_t N>
constexpr std::array<double, N> inverseFactorials(unsigned first, unsigned step, double sign) {
  std::array<double, N> c{};
  double factorial = 1, power = 1;
  unsigned k = 1;
  for (size_t i = 0; i < N; ++i) {
    for (; k <= first + step * i; ++k) factorial *= k;
    c[i] = power / factorial;
    power *= sign;
  }
  return c;
}

// e^t = sum t^k / k! (degree 13: below 1e-17 for |t| <= ln2 / 2); sin r / r
// and cos r as series in r^2 (degrees 23 and 22: below 1e-19 for |r| <=
// pi/4); (e^y - 1) / y (degree 21: below 1e-19 for y < 1.1).
constexpr auto kExp = inverseFactorials<14>(0, 1, 1.0);
constexpr auto kSinOverR = inverseFactorials<12>(1, 2, -1.0);
constexpr auto kCos = inverseFactorials<12>(0, 2, -1.0);
constexpr auto kExpm1OverY = inverseFactorials<21>(1, 1, 1.0);
/// atanh(s) / s = sum s^2k / (2k + 1) (to s^22: below 1e-18 for |s| < 0.1716).
constexpr std::array<double, 12> kAtanhOverS = {1.0,      1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
                                                1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};

/// 2^x. NaN gives NaN, +inf inf, -inf 0; results below double's normal
/// range underflow gradually (f32 results that small flush anyway).
[[gnu::always_inline]] inline double exp2(double x) {
  // Clamped so that the two factors of the scale stay in 2^[-1022, 1023]
  // (a NaN becomes ±2000 here and is put back at the end). Compared as
  // bits and blended with masks: GCC turns selects of doubles into branches
  // (and does not vectorize fmin/fmax), masks it leaves alone.
  const uint64_t bits = toBits(x);
  const uint64_t big = 0 - static_cast<uint64_t>((bits & 0x7FFFFFFFFFFFFFFFull) > toBits(2000.0));
  const double c = fromBits((bits & ~big) | (((bits & (1ull << 63)) | toBits(2000.0)) & big));
  const double shifted = c + kRoundShift;
  const double n = shifted - kRoundShift;                   // c rounded to an integer
  const double f = c - n;                                   // in [-0.5, 0.5]
  const double p = horner(f * 0.6931471805599453094, kExp); // 2^f = e^(f ln2)
  // 2^n as two factors, each representable: n / 2 rounded, and the rest.
  const double half = (n * 0.5) + kRoundShift;
  const double first = half - kRoundShift;
  const double rest = (n - first) + kRoundShift;
  const double r = p * powerOfTwo(toBits(half)) * powerOfTwo(toBits(rest));
  const uint64_t nan = 0 - static_cast<uint64_t>(isNaN(bits));
  return fromBits((bits & nan) | (toBits(r) & ~nan));
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
  // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716.
  const double s = (m - 1.0) / (m + 1.0), p = horner(s * s, kAtanhOverS);
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
  const uint64_t bits = toBits(x), magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
  // All-ones below 0.55; the selects are masks, which GCC does not turn
  // back into branches around the exp2 (a select of doubles, it did).
  const uint64_t small = 0 - static_cast<uint64_t>(magnitude < toBits(0.55));
  const double y = fromBits(toBits(2.0 * fromBits(magnitude)) & small); // e^y - 1 for y = 2|x| < 1.1
  const double em1 = y * horner(y, kExpm1OverY);
  const double fromSeries = em1 / (em1 + 2.0);
  const double fromExp = 1.0 - 2.0 / (exp2(2.0 * 1.4426950408889634074 * fromBits(magnitude & ~small)) + 1.0);
  const uint64_t t = (toBits(fromSeries) & small) | (toBits(fromExp) & ~small);
  const uint64_t nan = 0 - static_cast<uint64_t>(isNaN(bits));
  return fromBits((bits & nan) | ((t | (bits & (1ull << 63))) & ~nan));
}

/// Largest |x| sin and cos reduce here; beyond it (and for inf and NaN)
/// they return NaN and the caller asks libm.
constexpr double kTrigLimit = 1048576.0; // 2^20
/// kTrigLimit as the bits of an f32: a larger |bits| is beyond it, inf or NaN.
constexpr uint32_t kTrigLimitF32 = 0x49800000u;

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
  const double sinR = r * horner(r2, kSinOverR), cosR = horner(r2, kCos);
  // sin(r + q pi/2) for q = 0..3: sin, cos, -sin, -cos (cos: q + 1).
  const double v = quadrant & 1 ? cosR : sinR;
  const double signed_ = fromBits(toBits(v) ^ ((quadrant & 2) << 62));
  return within ? signed_ : fromBits(0x7FF8000000000000ull);
}

} // namespace emu::vecmath
