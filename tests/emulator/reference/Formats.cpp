#include "tests/emulator/reference/Formats.h"

#include <cstring>

namespace ref {

namespace {
using U128 = unsigned __int128;
U128 bitsOf(Quad v) {
  U128 u;
  std::memcpy(&u, &v, 16);
  return u;
}
Quad fromBits(U128 u) {
  Quad v;
  std::memcpy(&v, &u, 16);
  return v;
}
int bias(Format f) { return (1 << (f.expBits - 1)) - 1; }
} // namespace

// From their encodings (GCC's __builtin_nanq/__builtin_infq are not clang's).
Quad quadNaN() { return fromBits((U128(0x7FFF) << 112) | (U128(1) << 111)); }
Quad quadInf() { return fromBits(U128(0x7FFF) << 112); }
bool isNaN(Quad v) { return v != v; }
bool isInf(Quad v) { return v == quadInf() || v == -quadInf(); }
bool signOf(Quad v) { return (bitsOf(v) >> 127) & 1; }
Quad absOf(Quad v) { return fromBits(bitsOf(v) & ~(U128(1) << 127)); }

Quad scale(Quad v, int exp) {
  // Powers of two are exact; step in chunks that stay inside the range.
  while (exp > 1000) v *= fromBits(U128(16383 + 1000) << 112), exp -= 1000;
  while (exp < -1000) v *= fromBits(U128(16383 - 1000) << 112), exp += 1000;
  return v * fromBits(U128(16383 + exp) << 112);
}

int exponentOf(Quad v) {
  U128 u = bitsOf(v);
  int e = static_cast<int>((u >> 112) & 0x7FFF);
  if (e == 0) { // subnormal quad: never for the values used here
    U128 m = u & ((U128(1) << 112) - 1);
    int top = 111;
    while (top > 0 && !((m >> top) & 1)) --top;
    return -16382 - (112 - top);
  }
  return e - 16383;
}

Quad decode(uint64_t bits, Format f) {
  const unsigned man = f.manBits, w = 1 + f.expBits + f.manBits;
  bool neg = (bits >> (w - 1)) & 1;
  uint64_t e = (bits >> man) & ((1ull << f.expBits) - 1), m = bits & ((1ull << man) - 1);
  if (isNaNEncoding(bits, f)) return neg ? -quadNaN() : quadNaN();
  Quad v;
  if (f.kind == Format::Ieee && e == (1ull << f.expBits) - 1)
    v = quadInf();
  else if (e == 0)
    v = scale(Quad(m), 1 - bias(f) - int(man));
  else
    v = scale(Quad(m + (1ull << man)), int(e) - bias(f) - int(man));
  return neg ? -v : v;
}

bool isNaNEncoding(uint64_t bits, Format f) {
  const unsigned man = f.manBits;
  uint64_t e = (bits >> man) & ((1ull << f.expBits) - 1), m = bits & ((1ull << man) - 1);
  uint64_t allExp = (1ull << f.expBits) - 1;
  switch (f.kind) {
  case Format::Ieee: return e == allExp && m != 0;
  case Format::NaNOnly: return e == allExp && m == (1ull << man) - 1;
  case Format::Finite: return false;
  }
  return false;
}

uint64_t canonicalNaN(Format f) {
  unsigned w = 1 + f.expBits + f.manBits;
  return w >= 64 ? ~0ull >> 1 : (1ull << (w - 1)) - 1;
}

uint64_t largestFinite(Format f) {
  uint64_t allOnes = canonicalNaN(f);
  switch (f.kind) {
  case Format::Ieee: return (uint64_t((1ull << f.expBits) - 1) << f.manBits) - 1;
  case Format::NaNOnly: return allOnes - 1;
  case Format::Finite: return allOnes;
  }
  return 0;
}

uint64_t encode(Quad v, Format f, Rounding r, bool satfinite) {
  const unsigned w = 1 + f.expBits + f.manBits;
  if (isNaN(v)) return canonicalNaN(f);
  const bool neg = signOf(v);
  const uint64_t sign = uint64_t{neg} << (w - 1);
  const uint64_t inf = uint64_t((1ull << f.expBits) - 1) << f.manBits;
  auto overflow = [&]() {
    bool toInf = f.kind == Format::Ieee && !satfinite &&
                 (r == Rounding::NearestEven || r == Rounding::NearestAway || (r == Rounding::Down && neg) ||
                  (r == Rounding::Up && !neg));
    return sign | (toInf ? inf : largestFinite(f));
  };
  Quad a = absOf(v);
  if (a == 0) return sign;
  // An infinite value is exact: infinity, or without one the largest value.
  if (isInf(a)) return sign | (f.kind == Format::Ieee && !satfinite ? inf : largestFinite(f));
  const int emin = 1 - bias(f), man = f.manBits;
  int e = exponentOf(a);
  int q = (e > emin ? e : emin) - man; // exponent of the last place
  Quad scaled = scale(a, -q);          // exact
  if (scaled >= Quad(1ull << 62)) return overflow();
  uint64_t n = static_cast<uint64_t>(scaled); // truncates: floor for positives
  Quad frac = scaled - Quad(n);
  bool up = false;
  switch (r) {
  case Rounding::NearestEven: up = frac > Quad(0.5) || (frac == Quad(0.5) && (n & 1)); break;
  case Rounding::NearestAway: up = frac >= Quad(0.5); break;
  case Rounding::Zero: break;
  case Rounding::Down: up = neg && frac > 0; break;
  case Rounding::Up: up = !neg && frac > 0; break;
  }
  n += up;
  Quad rounded = scale(Quad(n), q);
  if (rounded > decode(largestFinite(f), f)) return overflow();
  if (n < (1ull << man)) return sign | n; // subnormal (or zero): q == emin - man
  int re = exponentOf(rounded);
  uint64_t mant = static_cast<uint64_t>(scale(rounded, man - re)) - (1ull << man);
  return sign | uint64_t(re - emin + 1) << man | mant;
}

Quad sumToOdd(Quad a, Quad b) {
  Quad s = a + b;
  if (isNaN(s) || isInf(s)) return s;
  Quad bb = s - a;
  Quad err = (a - (s - bb)) + (b - bb);
  if (err == 0) return s;
  U128 u = bitsOf(s);
  if ((err < 0) != (s < 0)) u -= 1; // toward zero
  return fromBits(u | 1);
}

} // namespace ref
