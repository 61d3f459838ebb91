// Conversions between every pair of integer and floating-point types (cvt
// with .irnd/.frnd, .ftz, .sat, .relu, .satfinite), the packed .f16x2 and
// .bf16x2 forms with .rn/.rz and stochastic .rs, and cvt.pack. The narrow
// formats are in ConvertNarrow.cpp.
#include "emulator/semantics/Convert.h"
#include "emulator/semantics/Fp.h"

#include <cmath>
#include <limits>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
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
  case Type::F16x2: return {TypeInfo::Float, 16, fp::kF16};
  case Type::BF16:
  case Type::BF16x2: return {TypeInfo::Float, 16, fp::kBF16};
  case Type::F32: return {TypeInfo::Float, 32, fp::kF32};
  case Type::F64: return {TypeInfo::Float, 64, fp::kF64};
  default: return {};
  }
}

/// One conversion: the types from DInstr, the saturation modes as chosen at
/// decode time.
struct Plan {
  TypeInfo dst, src;
  Mod rounding = Mod::None;
  bool ftz = false, sat = false, relu = false, satfinite = false;
};

uint64_t mask(unsigned bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }

/// An integer result of `bits` bits as the register holds it: sign- or
/// zero-extended (PTX ISA: a destination wider than the type is extended
/// according to the type's signedness).
uint64_t extendResult(uint64_t v, const TypeInfo &t) {
  v &= mask(t.bits);
  if (t.kind == TypeInfo::Signed && t.bits < 64 && (v >> (t.bits - 1)) & 1) v |= ~mask(t.bits);
  return v;
}

fp::Round floatRound(Mod m) {
  switch (m) {
  case Mod::Rz: return fp::Round::Zero;
  case Mod::Rm: return fp::Round::Down;
  case Mod::Rp: return fp::Round::Up;
  case Mod::Rna: return fp::Round::NearestAway;
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

/// A NaN converted to another float format (measured on H100): from f64,
/// and to f64, the sign and the payload's top bits are kept and the quiet
/// bit is set; bf16 to f32 without .ftz only moves the bits (bf16 is the top
/// half of an f32); every other conversion gives the canonical NaN.
uint64_t nanResult(uint64_t a, const Plan &p) {
  const fp::Format s = p.src.fmt, d = p.dst.fmt;
  if (p.src.bits == 64 || p.dst.bits == 64) {
    const unsigned sw = p.src.bits, dw = p.dst.bits;
    uint64_t sign = (a >> (sw - 1)) & 1, mant = a & ((1ull << s.manBits) - 1);
    mant = s.manBits > d.manBits ? mant >> (s.manBits - d.manBits) : mant << (d.manBits - s.manBits);
    uint64_t exp = ((1ull << d.expBits) - 1) << d.manBits, quiet = 1ull << (d.manBits - 1);
    return sign << (dw - 1) | exp | quiet | mant;
  }
  if (s.expBits == 8 && p.src.bits == 16 && p.dst.bits == 32 && !p.ftz) return (a & 0xFFFF) << 16;
  return fp::canonicalNaN(d);
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
      return extendResult(uint64_t(v), d);
    }
    bool neg = v < 0;
    uint64_t mag = uint64_t(neg ? -v : v);
    return finishFloat(fp::roundBits(neg, mag, 0, false, d.fmt, floatRound(p.rounding)), p);
  }
  double v = floatValue(a, s, p.ftz);
  if (d.kind != TypeInfo::Float) {
    // Float to integer saturates: NaN gives 0, out-of-range values the
    // nearest end of the destination's range (PTX ISA, cvt). Measured on
    // H100: a NaN from an f64, or into a 64-bit integer, gives the
    // destination's top bit alone (0x80000000 for .s32 from .f64,
    // 0x8000000000000000 for .s64 and .u64).
    if (std::isnan(v)) return (s.bits == 64 || d.bits == 64) ? 1ull << (d.bits - 1) : 0;
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
    return extendResult(uint64_t(iv), d);
  }
  if (std::isnan(v)) return finishFloat(nanResult(a, p), p);
  if (isIntegerRounding(p.rounding)) v = roundToIntegral(v, p.rounding); // same format: exact
  return finishFloat(fp::fromDouble(v, d.fmt, floatRound(p.rounding)), p);
}

Plan planOf(const DInstr &in, bool relu, bool satfinite) {
  Plan p;
  p.dst = infoOf(in.type0);
  p.src = infoOf(in.type);
  p.rounding = in.rounding;
  p.ftz = in.ftz;
  p.sat = in.sat;
  p.relu = relu;
  p.satfinite = satfinite;
  return p;
}

/// cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype d, a
template <bool Relu, bool SatFinite> void cvt(Exec &x, const DInstr &in) {
  const Plan p = planOf(in, Relu, SatFinite);
  const DOp &d = x.kernel().op(in, 0), &a = x.kernel().op(in, 1);
  forLanes(x.mask, [&](unsigned l) { writeOperand(x, d, l, convert(p, readOperand(x, a, l))); });
}

/// cvt{.rnd}{.ftz}{.sat}.f32.f32: the value is exact in its own format, so
/// only .ftz, the canonical NaN and .sat change it. convert()'s result, 32
/// lanes at a time (expf and logf use it to clamp).
template <bool Ftz, bool Sat> void cvtF32ToF32(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  uint32_t a[32], out[32];
  gather(x, k.op(in, 1), a);
  for (unsigned l = 0; l < 32; ++l) {
    uint32_t v = a[l];
    const uint32_t magnitude = v & 0x7FFFFFFFu;
    if (Ftz && magnitude < 0x00800000u) v &= 0x80000000u; // a subnormal: a zero of its sign
    if (magnitude > 0x7F800000u) v = 0x7FFFFFFFu;         // NaN: the canonical one
    // .sat: NaN and everything with the sign bit (-0 too) lie above +inf's
    // bits and become +0; positive values order as their bits, so 1.0
    // caps them (+inf included).
    if (Sat) v = v > 0x7F800000u ? 0u : std::min(v, 0x3F800000u);
    out[l] = v;
  }
  scatter(x, k.op(in, 0), out);
}

/// cvt.rn{.sat}.f32.(s32|u32): the host's conversion rounds to nearest even,
/// as PTX's .rn does; .sat clamps to [0, 1] (integers give no NaN).
template <bool Signed, bool Sat> void cvtF32FromInt(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  uint32_t a[32];
  float out[32];
  gather(x, k.op(in, 1), a);
  for (unsigned l = 0; l < 32; ++l) {
    float v = Signed ? static_cast<float>(static_cast<int32_t>(a[l])) : static_cast<float>(a[l]);
    if (Sat) v = std::clamp(v, 0.0f, 1.0f);
    out[l] = v;
  }
  scatter(x, k.op(in, 0), out);
}

/// The handlers above for the conversions they serve, else null.
Handler fastCvt(const DInstr &in, bool relu, bool satfinite) {
  if (relu || satfinite || in.numOps != 2 || in.type0 != Type::F32) return nullptr;
  const bool sat = in.sat;
  if (in.type == Type::F32 && !isIntegerRounding(in.rounding)) {
    if (in.ftz) return sat ? cvtF32ToF32<true, true> : cvtF32ToF32<true, false>;
    return sat ? cvtF32ToF32<false, true> : cvtF32ToF32<false, false>;
  }
  if ((in.type == Type::S32 || in.type == Type::U32) && in.rounding == Mod::Rn) {
    if (in.type == Type::S32) return sat ? cvtF32FromInt<true, true> : cvtF32FromInt<true, false>;
    return sat ? cvtF32FromInt<false, true> : cvtF32FromInt<false, false>;
  }
  return nullptr;
}

/// cvt.frnd{.relu}{.satfinite}.(f16x2|bf16x2).f32 d, a, b: a converted into
/// the upper half, b into the lower.
template <bool Relu, bool SatFinite> void cvtPack(Exec &x, const DInstr &in) {
  const Plan p = planOf(in, Relu, SatFinite);
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint64_t hi = convert(p, readOperand(x, k.op(in, 1), l)), lo = convert(p, readOperand(x, k.op(in, 2), l));
    writeOperand(x, k.op(in, 0), l, (hi << 16) | lo);
  });
}

/// cvt.rs{.relu}{.satfinite}.(f16x2|bf16x2).f32 d, a, b, rbits: stochastic
/// rounding. The random bits (13 per value for f16, taken from bits 12..0
/// of each half of rbits; 16 for bf16) are added to the f32 magnitude's
/// bits below the destination's last place, and the sum is truncated (PTX
/// ISA, cvt). a uses the upper half of rbits, b the lower.
template <bool Relu, bool SatFinite> void cvtStochastic(Exec &x, const DInstr &in) {
  Plan p = planOf(in, Relu, SatFinite);
  p.rounding = Mod::Rz;
  const bool isBF16 = in.type0 == Type::BF16x2;
  const unsigned dropped = isBF16 ? 16 : 13;
  const Kernel &k = x.kernel();
  auto one = [&](uint32_t f, uint32_t random) -> uint64_t {
    float v = as<float>(f);
    if (v != v || std::isinf(v)) return convert(p, f);
    uint32_t mag = f & 0x7FFFFFFFu, sum = mag + (random & ((1u << dropped) - 1));
    if (sum >= 0x7F800000u) sum = 0x7F800000u; // rounded past the largest finite value
    return convert(p, (f & 0x80000000u) | sum);
  };
  forLanes(x.mask, [&](unsigned l) {
    uint32_t a = static_cast<uint32_t>(readOperand(x, k.op(in, 1), l));
    uint32_t b = static_cast<uint32_t>(readOperand(x, k.op(in, 2), l));
    uint32_t r = static_cast<uint32_t>(readOperand(x, k.op(in, 3), l));
    writeOperand(x, k.op(in, 0), l, (one(a, r >> 16) << 16) | one(b, r & 0xFFFF));
  });
}

/// cvt.pack.sat.(u16|s16).s32 d, a, b and cvt.pack.sat.(u8|s8|u4|s4|u2|s2).s32.b32
/// d, a, b, c: a and b saturated to the narrow type, a above b, and (for the
/// types narrower than 16 bits) c's bits above them.
template <unsigned Size, bool Signed> void cvtPackSat(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const int64_t lo = Signed ? -(int64_t{1} << (Size - 1)) : 0;
  const int64_t hi = Signed ? (int64_t{1} << (Size - 1)) - 1 : (int64_t{1} << Size) - 1;
  const uint32_t m = (1u << Size) - 1;
  forLanes(x.mask, [&](unsigned l) {
    int64_t a = std::clamp<int64_t>(arg<int32_t>(x, in, 1, l), lo, hi);
    int64_t b = std::clamp<int64_t>(arg<int32_t>(x, in, 2, l), lo, hi);
    uint32_t d = (static_cast<uint32_t>(a) & m) << Size | (static_cast<uint32_t>(b) & m);
    if (Size < 16) d |= arg<uint32_t>(x, in, 3, l) << (2 * Size);
    writeOperand(x, k.op(in, 0), l, d);
  });
}

Handler packSatFor(Type t) {
  switch (t) {
  case Type::U16: return cvtPackSat<16, false>;
  case Type::S16: return cvtPackSat<16, true>;
  case Type::U8: return cvtPackSat<8, false>;
  case Type::S8: return cvtPackSat<8, true>;
  case Type::U4: return cvtPackSat<4, false>;
  case Type::S4: return cvtPackSat<4, true>;
  case Type::U2: return cvtPackSat<2, false>;
  case Type::S2: return cvtPackSat<2, true>;
  default: return nullptr;
  }
}

#define PTXVM_BY_MODES(fn)                                                                                   \
  (relu ? (satfinite ? fn<true, true> : fn<true, false>) : (satfinite ? fn<false, true> : fn<false, false>))

Handler pickCvtPack(const DInstr &in) { return packSatFor(in.type0); }

Handler pickCvt(const DInstr &in) {
  TypeInfo d = infoOf(in.type0), s = infoOf(in.type);
  if (d.kind == TypeInfo::None || s.kind == TypeInfo::None || in.type == Type::F16x2 ||
      in.type == Type::BF16x2)
    return selectNarrowConvert(in);
  const bool relu = in.mods & dmod::Relu, satfinite = in.mods & dmod::SatFinite;
  bool packed = in.type0 == Type::F16x2 || in.type0 == Type::BF16x2;
  bool floatDst = d.kind == TypeInfo::Float, floatSrc = s.kind == TypeInfo::Float;
  if (packed) {
    if (in.type != Type::F32) return nullptr;
    if (in.rounding == Mod::Rs && in.numOps == 4) return PTXVM_BY_MODES(cvtStochastic);
    if (in.numOps != 3 || (in.rounding != Mod::Rn && in.rounding != Mod::Rz)) return nullptr;
    return PTXVM_BY_MODES(cvtPack);
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
    return nullptr; // .rna and .rs: only the formats of ConvertNarrow.cpp
  }
  if (Handler fast = fastCvt(in, relu, satfinite)) return fast;
  return PTXVM_BY_MODES(cvt);
}
#undef PTXVM_BY_MODES

// cvt's types decide everything: one row, and the narrow formats in
// ConvertNarrow.cpp.
constexpr HandlerRow kRows[] = {
    row(Opcode::Cvt, tclass::All, pickCvt),
    row(Opcode::CvtPack, tclass::All, pickCvtPack),
};

} // namespace

std::span<const HandlerRow> convertHandlers() { return kRows; }

} // namespace emu
