// Conversions between every pair of types (cvt, cvt.pack), and the exact
// rounding of a value into any binary floating-point format (fp::), which the
// half-precision arithmetic in Float.cpp uses as well.
#include "emulator/Semantics.h"

#include <cmath>
#include <limits>

namespace emu {
namespace fp {

// A binary floating-point format: f16 {5, 10}, bf16 {8, 7}, f32 {8, 23},
// f64 {11, 52}. (Declared again in Float.cpp; a shared header would be the
// better home.)
struct Format {
  int expBits, manBits;
};
enum class Round : uint8_t { Nearest, Zero, Down, Up };

uint64_t canonicalNaN(Format f);
uint64_t roundBits(bool neg, uint64_t mant, int exp, bool sticky, Format f, Round r);
uint64_t fromDouble(double v, Format f, Round r);
double toDouble(uint64_t bits, Format f);

/// PTX's canonical NaN: sign clear, exponent and fraction all ones (f32
/// 0x7FFFFFFF, f16 and bf16 0x7FFF).
uint64_t canonicalNaN(Format f) {
  unsigned width = 1 + f.expBits + f.manBits;
  return width == 64 ? 0x7FFFFFFFFFFFFFFFull : (1ull << (width - 1)) - 1;
}

/// The format's encoding of (mant + sticky·ε) · 2^exp, where sticky says that
/// nonzero bits lie below mant (the exact value is a little larger in
/// magnitude), rounded in mode r. Correct for every mode, subnormals and
/// overflow (to infinity or the largest finite value, as IEEE 754 says).
uint64_t roundBits(bool neg, uint64_t mant, int exp, bool sticky, Format f, Round r) {
  const int M = f.manBits, bias = (1 << (f.expBits - 1)) - 1, emin = 1 - bias;
  const uint64_t sign = uint64_t{neg} << (f.expBits + M);
  const uint64_t inf = ((1ull << f.expBits) - 1) << M;
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
  }
  q += up;
  // A carry out of the significand moves into the exponent field by itself.
  uint64_t bits = e < emin ? q : (uint64_t(e - emin + 1) << M) + q - (1ull << M);
  if (bits >= inf) {
    bool toInf = r == Round::Nearest || (r == Round::Down && neg) || (r == Round::Up && !neg);
    bits = toInf ? inf : inf - 1;
  }
  return sign | bits;
}

uint64_t fromDouble(double v, Format f, Round r) {
  uint64_t b = bitsOf<double>(v);
  bool neg = b >> 63;
  unsigned ef = (b >> 52) & 0x7FF;
  uint64_t frac = b & ((1ull << 52) - 1);
  uint64_t sign = uint64_t{neg} << (f.expBits + f.manBits);
  if (ef == 0x7FF) return frac ? canonicalNaN(f) : sign | (((1ull << f.expBits) - 1) << f.manBits);
  if (ef == 0) return roundBits(neg, frac, -1074, false, f, r);
  return roundBits(neg, frac | (1ull << 52), int(ef) - 1075, false, f, r);
}

double toDouble(uint64_t bits, Format f) {
  const int M = f.manBits, bias = (1 << (f.expBits - 1)) - 1;
  if (M == 52) return as<double>(bits);
  bool neg = (bits >> (f.expBits + M)) & 1;
  uint64_t ef = (bits >> M) & ((1ull << f.expBits) - 1), frac = bits & ((1ull << M) - 1);
  double v;
  if (ef == (1ull << f.expBits) - 1)
    v = frac ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else if (ef == 0)
    v = std::ldexp(double(frac), 1 - bias - M);
  else
    v = std::ldexp(double(frac | (1ull << M)), int(ef) - bias - M);
  return neg ? -v : v;
}

} // namespace fp

namespace {

using ptx::Mod;
using ptx::Type;

/// What a cvt operand is: an integer of some width and signedness, or a
/// floating-point format.
struct TypeInfo {
  enum Kind : uint8_t { None, Signed, Unsigned, Float } kind = None;
  unsigned bits = 0;
  fp::Format fmt{0, 0};
};

TypeInfo infoOf(Type t) {
  switch (t) {
  case Type::S8: return {TypeInfo::Signed, 8};
  case Type::S16: return {TypeInfo::Signed, 16};
  case Type::S32: return {TypeInfo::Signed, 32};
  case Type::S64: return {TypeInfo::Signed, 64};
  case Type::U8: return {TypeInfo::Unsigned, 8};
  case Type::U16: return {TypeInfo::Unsigned, 16};
  case Type::U32: return {TypeInfo::Unsigned, 32};
  case Type::U64: return {TypeInfo::Unsigned, 64};
  case Type::F16:
  case Type::F16x2: return {TypeInfo::Float, 16, {5, 10}};
  case Type::BF16:
  case Type::BF16x2: return {TypeInfo::Float, 16, {8, 7}};
  case Type::F32: return {TypeInfo::Float, 32, {8, 23}};
  case Type::F64: return {TypeInfo::Float, 64, {11, 52}};
  default: return {};
  }
}

/// One conversion, as decided once per executed instruction.
struct Plan {
  TypeInfo dst, src;
  Mod rounding = Mod::None;
  bool ftz = false, sat = false, relu = false, satfinite = false;
};

uint64_t mask(unsigned bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }

fp::Round floatRound(Mod m) {
  switch (m) {
  case Mod::Rz: return fp::Round::Zero;
  case Mod::Rm: return fp::Round::Down;
  case Mod::Rp: return fp::Round::Up;
  default: return fp::Round::Nearest;
  }
}

bool isIntegerRounding(Mod m) { return m == Mod::Rni || m == Mod::Rzi || m == Mod::Rmi || m == Mod::Rpi; }

double roundToIntegral(double v, Mod m) {
  switch (m) {
  case Mod::Rzi: return std::trunc(v);
  case Mod::Rmi: return std::floor(v);
  case Mod::Rpi: return std::ceil(v);
  default: return std::nearbyint(v); // .rni: the host runs in round-to-nearest-even
  }
}

/// A float operand's value, with .ftz flushing a subnormal f32 to a
/// sign-preserving zero.
double floatValue(uint64_t bits, const TypeInfo &t, bool ftz) {
  double v = fp::toDouble(bits & mask(t.bits), t.fmt);
  if (ftz && t.bits == 32 && v != 0 && std::fabs(v) < 0x1p-126) v = std::signbit(v) ? -0.0 : 0.0;
  return v;
}

/// .relu, .satfinite, .sat and .ftz on a float result.
uint64_t finishFloat(uint64_t bits, const Plan &p) {
  const fp::Format f = p.dst.fmt;
  const uint64_t signBit = 1ull << (f.expBits + f.manBits);
  const uint64_t inf = ((1ull << f.expBits) - 1) << f.manBits;
  bool nan = (bits & ~signBit) > inf, neg = bits & signBit;
  if (p.relu) {
    // .relu: negative results become +0, NaN the canonical NaN.
    if (nan) return fp::canonicalNaN(f);
    if (neg) return 0;
  }
  if (p.satfinite && !nan && (bits & ~signBit) == inf) bits = (bits & signBit) | (inf - 1);
  if (p.sat) {
    // .sat clamps to [0.0, 1.0]; NaN becomes +0.0.
    if (nan || neg) return 0;
    uint64_t one = fp::fromDouble(1.0, f, fp::Round::Nearest);
    if (bits > one) return one;
  }
  if (p.ftz && p.dst.bits == 32 && (bits & ~signBit) < (1ull << f.manBits)) bits &= signBit;
  return bits;
}

/// The lane operation: convert the source bits `a` as the plan says.
uint64_t convert(const Plan &p, uint64_t a) {
  const TypeInfo &d = p.dst, &s = p.src;
  if (s.kind != TypeInfo::Float) {
    // Integer source: its exact value, sign- or zero-extended.
    __int128 v = s.kind == TypeInfo::Signed ? __int128(int64_t(a << (64 - s.bits)) >> (64 - s.bits))
                                            : __int128(a & mask(s.bits));
    if (d.kind != TypeInfo::Float) {
      if (p.sat) {
        __int128 lo = d.kind == TypeInfo::Signed ? -(__int128(1) << (d.bits - 1)) : 0;
        __int128 hi = (__int128(1) << (d.bits - (d.kind == TypeInfo::Signed))) - 1;
        v = std::clamp(v, lo, hi);
      }
      return uint64_t(v) & mask(d.bits);
    }
    bool neg = v < 0;
    uint64_t mag = uint64_t(neg ? -v : v);
    return finishFloat(fp::roundBits(neg, mag, 0, false, d.fmt, floatRound(p.rounding)), p);
  }
  double v = floatValue(a, s, p.ftz);
  if (d.kind != TypeInfo::Float) {
    // Float to integer saturates: NaN gives 0, out-of-range values the
    // nearest end of the destination's range (PTX ISA, cvt).
    if (std::isnan(v)) return 0;
    double r = roundToIntegral(v, p.rounding);
    bool isSigned = d.kind == TypeInfo::Signed;
    double hi = std::ldexp(1.0, int(d.bits) - isSigned), lo = isSigned ? -hi : 0.0;
    __int128 iv;
    if (r >= hi)
      iv = (__int128(1) << (d.bits - isSigned)) - 1;
    else if (r <= lo)
      iv = isSigned ? -(__int128(1) << (d.bits - 1)) : 0;
    else
      iv = __int128(r);
    return uint64_t(iv) & mask(d.bits);
  }
  if (std::isnan(v)) return finishFloat(fp::canonicalNaN(d.fmt), p);
  if (isIntegerRounding(p.rounding)) v = roundToIntegral(v, p.rounding); // same format: exact
  return finishFloat(fp::fromDouble(v, d.fmt, floatRound(p.rounding)), p);
}

Plan planOf(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const ptx::InstrDesc &desc = k.desc(in);
  Plan p;
  p.dst = infoOf(in.type0);
  p.src = infoOf(in.type);
  p.rounding = in.rounding;
  p.ftz = in.ftz;
  p.sat = in.sat;
  p.relu = desc.has(Mod::Relu);
  p.satfinite = desc.has(Mod::SatF);
  return p;
}

/// cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype d, a
void cvt(Exec &x, const DInstr &in) {
  const Plan p = planOf(x, in);
  const DOp &d = x.kernel().op(in, 0), &a = x.kernel().op(in, 1);
  forLanes(x.mask, [&](unsigned l) { writeOperand(x, d, l, convert(p, readOperand(x, a, l))); });
}

/// cvt.frnd{.relu}{.satfinite}.(f16x2|bf16x2).f32 d, a, b: a converted into
/// the upper half, b into the lower.
void cvtPack(Exec &x, const DInstr &in) {
  const Plan p = planOf(x, in);
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint64_t hi = convert(p, readOperand(x, k.op(in, 1), l)), lo = convert(p, readOperand(x, k.op(in, 2), l));
    writeOperand(x, k.op(in, 0), l, (hi << 16) | lo);
  });
}

} // namespace

Handler selectConvert(const DInstr &in) {
  if (in.opcode != ptx::Opcode::Cvt) return nullptr;
  TypeInfo d = infoOf(in.type0), s = infoOf(in.type);
  if (d.kind == TypeInfo::None || s.kind == TypeInfo::None) return nullptr;
  bool packed = in.type0 == Type::F16x2 || in.type0 == Type::BF16x2;
  if (in.type == Type::F16x2 || in.type == Type::BF16x2) return nullptr;
  bool floatDst = d.kind == TypeInfo::Float, floatSrc = s.kind == TypeInfo::Float;
  if (packed) {
    if (in.type != Type::F32 || in.numOps != 3 || (in.rounding != Mod::Rn && in.rounding != Mod::Rz))
      return nullptr;
    return cvtPack;
  }
  if (in.numOps != 2) return nullptr;
  if (isIntegerRounding(in.rounding)) {
    // .rni/.rzi/.rmi/.rpi: float to integer, or a float rounded to an
    // integral value in its own format.
    if (!floatSrc || (floatDst && in.type0 != in.type)) return nullptr;
  } else if (floatSrc && !floatDst) {
    return nullptr; // float to integer needs an integer rounding modifier
  } else if (in.rounding != Mod::None && in.rounding != Mod::Rn && in.rounding != Mod::Rz &&
             in.rounding != Mod::Rm && in.rounding != Mod::Rp) {
    return nullptr; // .rna, .rs: other formats
  }
  return cvt;
}

} // namespace emu
