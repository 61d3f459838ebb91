// Exact rounding of values into binary floating-point formats of any size
// (f64 down to the 4-bit e2m1), shared by the float arithmetic, conversions
// and atomics: PTX results are computed exactly (or rounded to odd) in
// double and rounded once into their format here.
#pragma once

#include <cstdint>

namespace emu::fp {

/// A binary floating-point format. `specials` says what the all-ones
/// exponent means: IEEE infinities and NaNs (f16, bf16, f32, f64, e5m2),
/// only NaN with an all-ones significand (e4m3), or nothing special (the
/// fp6/fp4 formats, whose every encoding is a finite number).
struct Format {
  enum Specials : uint8_t { Ieee, NaNOnly, Finite };
  int expBits, manBits;
  Specials specials = Ieee;
};
inline constexpr Format kF64{11, 52}, kF32{8, 23}, kTF32{8, 10}, kF16{5, 10}, kBF16{8, 7};
inline constexpr Format kE5M2{5, 2}, kE4M3{4, 3, Format::NaNOnly};
inline constexpr Format kE3M2{3, 2, Format::Finite}, kE2M3{2, 3, Format::Finite}, kE2M1{2, 1, Format::Finite};

/// Nearest: ties to even; NearestAway: ties away from zero (.rna).
enum class Round : uint8_t { Nearest, Zero, Down, Up, NearestAway };

/// Bits of the format, sign included.
inline unsigned width(Format f) { return 1u + unsigned(f.expBits + f.manBits); }
/// PTX's canonical NaN: sign clear, every other bit set (f32 0x7FFFFFFF,
/// f16/bf16 0x7FFF, e4m3/e5m2 0x7F).
uint64_t canonicalNaN(Format f);
/// The largest finite magnitude's encoding (sign clear).
uint64_t maxFinite(Format f);
bool isNaN(uint64_t bits, Format f);
bool isInf(uint64_t bits, Format f);

/// The format's encoding of (mant + sticky·ε)·2^exp (sticky: nonzero bits
/// lie below mant, so the exact magnitude is a little larger), rounded in
/// mode r, subnormals included. An overflow gives infinity or the largest
/// finite value as IEEE 754 says for the mode, or the largest finite value
/// with `satfinite` or in a format without infinities.
uint64_t roundBits(bool neg, uint64_t mant, int exp, bool sticky, Format f, Round r, bool satfinite = false);
/// A double (exact or rounded to odd) rounded into the format; NaN gives
/// the canonical NaN, infinity the format's infinity (or, without one, its
/// largest finite value).
uint64_t fromDouble(double v, Format f, Round r, bool satfinite = false);
/// The exact value of an encoding.
double toDouble(uint64_t bits, Format f);

/// a + b rounded to odd in double: rounding the result once more into a
/// format of at most 51 significand bits then gives the correctly rounded
/// sum (no double rounding).
double addOdd(double a, double b);

} // namespace emu::fp
