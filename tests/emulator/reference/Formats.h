// Floating-point formats for the references, in the value domain: encodings
// are decoded to exact __float128 values, and values are rounded into a
// format by scaling to its last place and rounding the integer part. (The
// emulator rounds on bit patterns in Fp.cpp; this is a different method on
// purpose.)
#pragma once

#include <cstdint>

namespace ref {

using Quad = __float128;

struct Format {
  enum Kind : uint8_t { Ieee, NaNOnly, Finite } kind;
  int expBits, manBits;
};
/// A nonzero value with a zero exponent field.
inline bool isSubnormal(uint64_t bits, Format f) {
  uint64_t e = (bits >> f.manBits) & ((1ull << f.expBits) - 1), m = bits & ((1ull << f.manBits) - 1);
  return e == 0 && m != 0;
}
inline constexpr Format kF64{Format::Ieee, 11, 52}, kF32{Format::Ieee, 8, 23}, kF16{Format::Ieee, 5, 10},
    kBF16{Format::Ieee, 8, 7}, kTF32{Format::Ieee, 8, 10}, kE5M2{Format::Ieee, 5, 2},
    kE4M3{Format::NaNOnly, 4, 3}, kE3M2{Format::Finite, 3, 2}, kE2M3{Format::Finite, 2, 3},
    kE2M1{Format::Finite, 2, 1};

enum class Rounding : uint8_t { NearestEven, Zero, Down, Up, NearestAway };

Quad quadNaN();
Quad quadInf();
bool isNaN(Quad v);
bool isInf(Quad v);
bool signOf(Quad v);         // sign bit, -0 and -NaN included
Quad scale(Quad v, int exp); // v * 2^exp, exactly
Quad absOf(Quad v);
/// floor(log2 |v|) for a finite nonzero v.
int exponentOf(Quad v);

/// The exact value of an encoding (NaN as NaN, infinities as infinities).
Quad decode(uint64_t bits, Format f);
bool isNaNEncoding(uint64_t bits, Format f);
/// All ones but the sign (f32 0x7FFFFFFF, f16 0x7FFF, e4m3 0x7F).
uint64_t canonicalNaN(Format f);
/// The largest finite value's encoding, sign clear.
uint64_t largestFinite(Format f);
/// v rounded into the format: NaN gives the canonical NaN; overflow gives
/// infinity or the largest finite value as IEEE 754 says for the mode, or
/// the largest finite value with `satfinite` or without infinities.
uint64_t encode(Quad v, Format f, Rounding r, bool satfinite = false);

/// a + b rounded to odd at 113 bits (exact when the sum fits): rounding the
/// result once more into any format of at most 111 bits is then correct.
Quad sumToOdd(Quad a, Quad b);

} // namespace ref
