// Conversions into and out of the narrow floating-point formats: .tf32 from
// .f32 (.rna/.rn/.rz, .relu, .satfinite); pairs of .f32 (or an .f16x2) to
// .e4m3x2/.e5m2x2 and back to .f16x2 (sm_89/sm_90); pairs of .f32 to the
// fp6/fp4 pairs .e2m3x2/.e3m2x2/.e2m1x2 and back (sm_100); and the .ue8m0x2
// scale factors (sm_100).
//
// Values are rounded once, exactly (Fp.h). Formats without infinities take
// .satfinite's largest finite value for overflows and infinities; e4m3 and
// e5m2 have NaN (0x7F); the fp6/fp4 formats have none, and a NaN input gives
// their largest finite value (an assumption: no sm_100 hardware was at hand
// to check, see tests/gpu/pending_cases.md).
#include "emulator/semantics/Convert.h"
#include "emulator/semantics/Fp.h"

#include <cmath>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Type;

/// An element format of a packed narrow type, and its width in the packing.
struct Narrow {
  fp::Format fmt;
  unsigned bits; // bits per element in the destination/source register
};

bool narrowOf(Type t, Narrow &out) {
  switch (t) {
  case Type::E4M3x2: out = {fp::kE4M3, 8}; return true;
  case Type::E5M2x2: out = {fp::kE5M2, 8}; return true;
  case Type::E2M3x2: out = {fp::kE2M3, 8}; return true; // 6 bits, 2 zero bits above
  case Type::E3M2x2: out = {fp::kE3M2, 8}; return true;
  case Type::E2M1x2: out = {fp::kE2M1, 4}; return true;
  default: return false;
  }
}

/// One value into a narrow format: .rn, .satfinite (mandatory for these
/// destinations), .relu.
template <bool Relu> uint64_t toNarrow(double v, fp::Format f) {
  if (v != v) return f.specials == fp::Format::Finite ? fp::maxFinite(f) : fp::canonicalNaN(f);
  if (Relu && (v < 0 || (v == 0 && std::signbit(v)))) return 0;
  return fp::fromDouble(v, f, fp::Round::Nearest, true);
}

/// One narrow value to f16 (exact); .relu makes negatives +0.
template <bool Relu> uint64_t fromNarrow(uint64_t bits, fp::Format f) {
  if (fp::isNaN(bits, f)) return fp::canonicalNaN(fp::kF16);
  double v = fp::toDouble(bits, f);
  if (Relu && (v < 0 || (v == 0 && std::signbit(v)))) return 0;
  return fp::fromDouble(v, fp::kF16, fp::Round::Nearest);
}

/// cvt.rn.satfinite{.relu}.<narrow>x2.f32 d, a, b: a into the upper element.
template <bool Relu> void pairFromF32(Exec &x, const DInstr &in) {
  Narrow n{};
  narrowOf(in.type0, n);
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    double a = as<float>(readOperand(x, k.op(in, 1), l)), b = as<float>(readOperand(x, k.op(in, 2), l));
    writeOperand(x, k.op(in, 0), l, toNarrow<Relu>(a, n.fmt) << n.bits | toNarrow<Relu>(b, n.fmt));
  });
}

/// cvt.rn.satfinite{.relu}.(e4m3x2|e5m2x2).f16x2 d, a: each half of a.
template <bool Relu> void pairFromF16x2(Exec &x, const DInstr &in) {
  Narrow n{};
  narrowOf(in.type0, n);
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    double hi = fp::toDouble((a >> 16) & 0xFFFF, fp::kF16), lo = fp::toDouble(a & 0xFFFF, fp::kF16);
    writeOperand(x, k.op(in, 0), l, toNarrow<Relu>(hi, n.fmt) << n.bits | toNarrow<Relu>(lo, n.fmt));
  });
}

/// cvt.rn{.relu}.f16x2.<narrow>x2 d, a: the upper element into the upper half.
template <bool Relu> void pairToF16x2(Exec &x, const DInstr &in) {
  Narrow n{};
  narrowOf(in.type, n);
  const Kernel &k = x.kernel();
  const uint64_t m = (1ull << n.bits) - 1;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    uint64_t hi = (a >> n.bits) & m, lo = a & m;
    writeOperand(x, k.op(in, 0), l, fromNarrow<Relu>(hi, n.fmt) << 16 | fromNarrow<Relu>(lo, n.fmt));
  });
}

/// cvt.(rna|rn|rz){.satfinite}{.relu}.tf32.f32 d, a: f32 rounded to 10
/// significand bits, kept in the f32 layout with the low 13 bits zero.
/// Measured on H100: .rna (sm_80) works on the bits alone: round half away
/// on the low 13 bits, NaNs just truncated (0x7F800001 becomes infinity);
/// with .satfinite a result with an all-ones exponent loses one unit
/// (infinity becomes the largest finite value, NaN 0x7FC00000 0x7FBFE000);
/// .rn/.rz (sm_90) round as IEEE 754 does, NaN giving 0x7FFFE000.
template <Mod Rounding, bool Relu, bool SatFinite> void toTf32(Exec &x, const DInstr &in) {
  constexpr fp::Round mode = Rounding == Mod::Rz ? fp::Round::Zero : fp::Round::Nearest;
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint32_t bits = static_cast<uint32_t>(readOperand(x, k.op(in, 1), l));
    float v = as<float>(bits);
    uint64_t r;
    if constexpr (Rounding == Mod::Rna) {
      // NaNs are truncated, not rounded (0x7FEA9721 gives 0x7FEA8000).
      r = ((v != v ? bits : bits + 0x1000u) & 0xFFFFE000u);
      if (SatFinite && (r & 0x7F800000u) == 0x7F800000u) r -= 0x2000u;
    } else if (v != v) {
      r = 0x7FFFE000u;
    } else if (Relu && (v < 0 || (v == 0 && std::signbit(v)))) {
      r = 0;
    } else {
      r = fp::fromDouble(v, fp::kTF32, mode, SatFinite) << 13;
    }
    writeOperand(x, k.op(in, 0), l, r);
  });
}

/// A value's ue8m0 encoding (2^(e-127), 0xFF is NaN): the f32 exponent
/// field, rounded up with .rp when significand bits are set. The sign is
/// ignored (an assumption, see tests/gpu/pending_cases.md).
template <bool Up, bool SatFinite> uint64_t toUe8m0(uint32_t f) {
  uint32_t e = (f >> 23) & 0xFF, m = f & 0x7FFFFF;
  if (e == 0xFF) return m ? 0xFF : (SatFinite ? 0xFE : 0xFF);
  // Subnormals: the smallest scale is 2^-127 (m = 2^22); above it .rp
  // rounds up to 2^-126.
  if (e == 0) return Up && m > (1u << 22) ? 1 : 0;
  if (Up && m) ++e;
  if (e == 0xFF) return SatFinite ? 0xFE : 0xFF;
  return e;
}

/// cvt.(rz|rp){.satfinite}.ue8m0x2.f32 d, a, b and ...ue8m0x2.bf16x2 d, a.
template <bool Up, bool SatFinite, bool FromBF16x2> void toUe8m0x2(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint32_t a, b;
    if constexpr (FromBF16x2) {
      uint64_t v = readOperand(x, k.op(in, 1), l);
      a = static_cast<uint32_t>((v >> 16) & 0xFFFF) << 16, b = static_cast<uint32_t>(v & 0xFFFF) << 16;
    } else {
      a = static_cast<uint32_t>(readOperand(x, k.op(in, 1), l)),
      b = static_cast<uint32_t>(readOperand(x, k.op(in, 2), l));
    }
    writeOperand(x, k.op(in, 0), l, toUe8m0<Up, SatFinite>(a) << 8 | toUe8m0<Up, SatFinite>(b));
  });
}

/// cvt.rn.bf16x2.ue8m0x2 d, a: 2^(e-127) as bf16 (e = 0 is the subnormal
/// 0x0040, e = 0xFF NaN).
void ue8m0x2ToBf16x2(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  auto one = [](uint64_t e) -> uint64_t { return e == 0xFF ? 0x7FFF : e == 0 ? 0x0040 : e << 7; };
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    writeOperand(x, k.op(in, 0), l, one((a >> 8) & 0xFF) << 16 | one(a & 0xFF));
  });
}

template <Mod Rounding> Handler tf32For(bool relu, bool satfinite) {
  if (relu) return satfinite ? toTf32<Rounding, true, true> : toTf32<Rounding, true, false>;
  return satfinite ? toTf32<Rounding, false, true> : toTf32<Rounding, false, false>;
}

} // namespace

Handler selectNarrowConvert(const DInstr &in) {
  const Type dst = in.type0, src = in.type;
  Narrow n{};
  if (dst == Type::TF32 && src == Type::F32 && in.numOps == 2) {
    bool relu = in.mods & dmod::Relu, satfinite = in.mods & dmod::SatFinite;
    if (in.rounding == Mod::Rna) return relu ? nullptr : tf32For<Mod::Rna>(false, satfinite);
    if (in.rounding == Mod::Rn) return tf32For<Mod::Rn>(relu, satfinite);
    if (in.rounding == Mod::Rz) return tf32For<Mod::Rz>(relu, satfinite);
    return nullptr;
  }
  // The .rs forms with four inputs (e4m3x4 ... e2m1x4, sm_100a) stay
  // unsupported: the ISA text leaves open where rbits meet the dropped
  // significand bits, and no sm_100 hardware was at hand to measure it.
  if (in.rounding == Mod::Rs) return nullptr;
  if (narrowOf(dst, n) && in.rounding == Mod::Rn) {
    bool relu = in.mods & dmod::Relu;
    if (src == Type::F32 && in.numOps == 3) return relu ? pairFromF32<true> : pairFromF32<false>;
    if (src == Type::F16x2 && in.numOps == 2 && n.bits == 8 && n.fmt.specials != fp::Format::Finite)
      return relu ? pairFromF16x2<true> : pairFromF16x2<false>;
    return nullptr;
  }
  if (dst == Type::F16x2 && narrowOf(src, n) && in.rounding == Mod::Rn && in.numOps == 2)
    return (in.mods & dmod::Relu) ? pairToF16x2<true> : pairToF16x2<false>;
  if (dst == Type::UE8M0x2 && (in.rounding == Mod::Rz || in.rounding == Mod::Rp)) {
    bool up = in.rounding == Mod::Rp, sf = in.mods & dmod::SatFinite;
    if (src == Type::F32 && in.numOps == 3) {
      if (up) return sf ? toUe8m0x2<true, true, false> : toUe8m0x2<true, false, false>;
      return sf ? toUe8m0x2<false, true, false> : toUe8m0x2<false, false, false>;
    }
    if (src == Type::BF16x2 && in.numOps == 2) {
      if (up) return sf ? toUe8m0x2<true, true, true> : toUe8m0x2<true, false, true>;
      return sf ? toUe8m0x2<false, true, true> : toUe8m0x2<false, false, true>;
    }
    return nullptr;
  }
  if (dst == Type::BF16x2 && src == Type::UE8M0x2 && in.numOps == 2) return ue8m0x2ToBf16x2;
  return nullptr;
}

} // namespace emu
