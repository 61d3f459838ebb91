#include "emulator/semantics/Fp.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace emu::fp {

namespace {
uint64_t doubleBits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
double bitsDouble(uint64_t b) {
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}
uint64_t expMask(Format f) { return ((1ull << f.expBits) - 1) << f.manBits; }
} // namespace

uint64_t canonicalNaN(Format f) {
  unsigned w = width(f);
  return w == 64 ? 0x7FFFFFFFFFFFFFFFull : (1ull << (w - 1)) - 1;
}

uint64_t maxFinite(Format f) {
  switch (f.specials) {
  case Format::Ieee: return expMask(f) - 1;
  case Format::NaNOnly: return canonicalNaN(f) - 1;
  case Format::Finite: return canonicalNaN(f);
  }
  return 0;
}

bool isNaN(uint64_t bits, Format f) {
  uint64_t mag = bits & canonicalNaN(f);
  switch (f.specials) {
  case Format::Ieee: return mag > expMask(f);
  case Format::NaNOnly: return mag == canonicalNaN(f);
  case Format::Finite: return false;
  }
  return false;
}

bool isInf(uint64_t bits, Format f) {
  return f.specials == Format::Ieee && (bits & canonicalNaN(f)) == expMask(f);
}

uint64_t roundBits(bool neg, uint64_t mant, int exp, bool sticky, Format f, Round r, bool satfinite) {
  const int M = f.manBits, bias = (1 << (f.expBits - 1)) - 1, emin = 1 - bias;
  const uint64_t sign = uint64_t{neg} << (f.expBits + M);
  if (mant == 0 && !sticky) return sign;
  int e = mant ? exp + 63 - std::countl_zero(mant) : exp - 1; // floor(log2 |v|)
  int qexp = std::max(e, emin) - M;                           // exponent of one unit in the last place
  int shift = qexp - exp;
  uint64_t q = 0;
  bool half = false, rest = sticky;
  if (shift <= 0) {
    q = mant << -shift; // exact: e - qexp <= M
  } else if (shift < 64) {
    q = mant >> shift;
    half = (mant >> (shift - 1)) & 1;
    rest |= (mant & ((1ull << (shift - 1)) - 1)) != 0;
  } else if (shift == 64) {
    half = mant >> 63;
    rest |= (mant << 1) != 0;
  } else {
    rest |= mant != 0;
  }
  bool inexact = half || rest, up = false;
  switch (r) {
  case Round::Nearest: up = half && (rest || (q & 1)); break;
  case Round::Zero: break;
  case Round::Down: up = neg && inexact; break;
  case Round::Up: up = !neg && inexact; break;
  case Round::NearestAway: up = half; break;
  }
  q += up;
  // A carry out of the significand moves into the exponent field by itself.
  // Exponents far above the format's range are capped first, so the shift
  // cannot overflow.
  uint64_t bits = e < emin ? q : (uint64_t(std::min(e - emin + 1, 1 << f.expBits)) << M) + q - (1ull << M);
  const uint64_t largest = maxFinite(f);
  if (bits > largest) {
    bool toInf = f.specials == Format::Ieee && !satfinite &&
                 (r == Round::Nearest || r == Round::NearestAway || (r == Round::Down && neg) ||
                  (r == Round::Up && !neg));
    bits = toInf ? expMask(f) : largest;
  }
  return sign | bits;
}

uint64_t fromDouble(double v, Format f, Round r, bool satfinite) {
  uint64_t b = doubleBits(v);
  bool neg = b >> 63;
  unsigned ef = (b >> 52) & 0x7FF;
  uint64_t frac = b & ((1ull << 52) - 1);
  uint64_t sign = uint64_t{neg} << (f.expBits + f.manBits);
  if (ef == 0x7FF) {
    if (frac) return canonicalNaN(f);
    return sign | (f.specials == Format::Ieee && !satfinite ? expMask(f) : maxFinite(f));
  }
  if (ef == 0) return roundBits(neg, frac, -1074, false, f, r, satfinite);
  return roundBits(neg, frac | (1ull << 52), int(ef) - 1075, false, f, r, satfinite);
}

double toDouble(uint64_t bits, Format f) {
  const int M = f.manBits, bias = (1 << (f.expBits - 1)) - 1;
  if (M == 52) return bitsDouble(bits);
  bool neg = (bits >> (f.expBits + M)) & 1;
  uint64_t ef = (bits >> M) & ((1ull << f.expBits) - 1), frac = bits & ((1ull << M) - 1);
  double v;
  if (isNaN(bits, f))
    v = std::numeric_limits<double>::quiet_NaN();
  else if (isInf(bits, f))
    v = INFINITY;
  else if (ef == 0)
    v = std::ldexp(double(frac), 1 - bias - M);
  else
    v = std::ldexp(double(frac | (1ull << M)), int(ef) - bias - M);
  return neg ? -v : v;
}

double addOdd(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return s;
  double bb = s - a, err = (a - (s - bb)) + (b - bb); // TwoSum: s + err is exact
  if (err == 0) return s;
  uint64_t bits = doubleBits(s);
  if ((err < 0) != (s < 0)) bits -= 1; // truncate toward zero
  return bitsDouble(bits | 1);
}

} // namespace emu::fp
