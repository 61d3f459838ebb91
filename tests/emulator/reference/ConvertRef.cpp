// Conversion references (PTX ISA, cvt and cvt.pack): integer to integer
// (truncating, or clamping with .sat); integer to float (rounded in the
// instruction's mode); float to integer (.rni/.rzi/.rmi/.rpi, saturating,
// NaN to 0); float to float (rounded, or to an integral value with .rXi;
// .ftz, .sat, .relu, .satfinite); the packed f16x2/bf16x2, tf32, fp8, fp6,
// fp4 and ue8m0 forms; cvt.pack.sat. Destination registers wider than the
// type get the value sign- or zero-extended by the type's signedness.
#include "tests/emulator/reference/Formats.h"
#include "tests/emulator/reference/Operands.h"

#include <cmath>

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;
using I128 = __int128;

struct Side {
  enum Kind : uint8_t { Signed, Unsigned, Float, Other } kind = Other;
  unsigned bits = 0;
  Format f{};
};

Side sideOf(Type t) {
  switch (t) {
  case Type::F16: return {Side::Float, 16, kF16};
  case Type::BF16: return {Side::Float, 16, kBF16};
  case Type::F32: return {Side::Float, 32, kF32};
  case Type::F64: return {Side::Float, 64, kF64};
  default: break;
  }
  ptx::TypeClass c = ptx::typeClass(t);
  if (c == ptx::TypeClass::Signed) return {Side::Signed, typeBits(t)};
  if (c == ptx::TypeClass::Unsigned || c == ptx::TypeClass::Bits) return {Side::Unsigned, typeBits(t)};
  return {};
}

Rounding roundingOf(Mod m) {
  switch (m) {
  case Mod::Rz:
  case Mod::Rzi: return Rounding::Zero;
  case Mod::Rm:
  case Mod::Rmi: return Rounding::Down;
  case Mod::Rp:
  case Mod::Rpi: return Rounding::Up;
  case Mod::Rna: return Rounding::NearestAway;
  default: return Rounding::NearestEven;
  }
}

/// v rounded to an integral value in mode r (exact in quad for these sizes).
Quad integral(Quad v, Rounding r) {
  if (isNaN(v) || isInf(v) || absOf(v) >= scale(1, 112)) return v;
  bool neg = signOf(v);
  Quad a = absOf(v);
  unsigned __int128 n = static_cast<unsigned __int128>(a);
  Quad frac = a - Quad(n);
  bool up = false;
  switch (r) {
  case Rounding::NearestEven: up = frac > Quad(0.5) || (frac == Quad(0.5) && (n & 1)); break;
  case Rounding::NearestAway: up = frac >= Quad(0.5); break;
  case Rounding::Zero: break;
  case Rounding::Down: up = neg && frac > 0; break;
  case Rounding::Up: up = !neg && frac > 0; break;
  }
  Quad m = Quad(n + up);
  return neg ? -m : m;
}

uint64_t extendTo(uint64_t v, const Side &d) {
  return d.kind == Side::Signed ? static_cast<uint64_t>(signExtend(v, d.bits)) : v & widthMask(d.bits);
}

/// A scalar conversion of `a` (source bits). The NaN result is canonical.
uint64_t scalar(const Instr &ri, uint64_t a, const Side &d, const Side &s) {
  const Mod rnd = ri.first(ptx::ModKind::Rounding);
  const bool ftz = ri.has(Mod::Ftz), sat = ri.has(Mod::Sat), relu = ri.has(Mod::Relu),
             satfinite = ri.has(Mod::SatF);
  if (s.kind != Side::Float) {
    I128 v = s.kind == Side::Signed ? I128(signExtend(a, s.bits)) : I128(a & widthMask(s.bits));
    if (d.kind != Side::Float) {
      if (sat) {
        I128 lo = d.kind == Side::Signed ? -(I128(1) << (d.bits - 1)) : 0;
        I128 hi = d.kind == Side::Signed ? (I128(1) << (d.bits - 1)) - 1 : (I128(1) << d.bits) - 1;
        v = v < lo ? lo : v > hi ? hi : v;
      }
      return extendTo(static_cast<uint64_t>(v), d);
    }
    Quad q = static_cast<Quad>(v); // exact: at most 64 bits
    uint64_t r = encode(q, d.f, roundingOf(rnd));
    if (sat) {
      Quad x = decode(r, d.f);
      r = x <= 0 ? 0 : x > 1 ? encode(1, d.f, Rounding::NearestEven) : r;
    }
    return r;
  }
  uint64_t ab = a & widthMask(s.bits);
  Quad v = decode(ab, s.f);
  if (ftz && s.bits == 32 && isSubnormal(ab, s.f)) v = signOf(v) ? -Quad(0) : Quad(0);
  if (d.kind != Side::Float) {
    // Saturating, NaN to 0; measured on H100: from an f64 or into 64 bits a
    // NaN gives the destination's top bit alone.
    if (isNaN(v)) return (s.bits == 64 || d.bits == 64) ? uint64_t(1) << (d.bits - 1) : 0;
    Quad i = integral(v, roundingOf(rnd));
    I128 lo = d.kind == Side::Signed ? -(I128(1) << (d.bits - 1)) : 0;
    I128 hi = d.kind == Side::Signed ? (I128(1) << (d.bits - 1)) - 1 : (I128(1) << d.bits) - 1;
    I128 r = i <= Quad(lo) ? lo : i >= Quad(hi) ? hi : static_cast<I128>(i);
    return extendTo(static_cast<uint64_t>(r), d);
  }
  if (isNaN(v)) {
    // The canonical NaN, but (measured on H100) conversions from or to f64
    // keep the sign and as much payload as fits, quieted, and bf16 -> f32
    // without .ftz moves the bits.
    uint64_t n = canonicalNaN(d.f);
    if (s.bits == 64 || d.bits == 64) {
      uint64_t sign = (ab >> (s.bits - 1)) & 1, payload = ab & widthMask(s.f.manBits);
      payload = s.f.manBits > d.f.manBits ? payload >> (s.f.manBits - d.f.manBits)
                                          : payload << (d.f.manBits - s.f.manBits);
      n = sign << (d.bits - 1) | (widthMask(d.f.expBits) << d.f.manBits) | uint64_t(1) << (d.f.manBits - 1) |
          payload;
    }
    if (s.f.expBits == 8 && s.bits == 16 && d.bits == 32 && !ftz) n = ab << 16;
    if (relu) n = canonicalNaN(d.f);
    return sat ? 0 : n;
  }
  Quad x = v;
  Rounding r = roundingOf(rnd);
  if (rnd == Mod::Rni || rnd == Mod::Rzi || rnd == Mod::Rmi || rnd == Mod::Rpi) x = integral(v, r);
  uint64_t bits = encode(x, d.f, r, satfinite);
  const uint64_t sign = uint64_t(1) << (d.bits - 1);
  if (relu && (bits & sign)) bits = 0;
  if (sat) {
    Quad y = decode(bits, d.f);
    bits = !(y > 0) ? 0 : y > 1 ? encode(1, d.f, Rounding::NearestEven) : bits;
  }
  if (ftz && d.bits == 32 && isSubnormal(bits, d.f)) bits &= sign;
  return bits;
}

uint64_t nanAware(const Instr &ri, uint64_t a, const Side &d, const Side &s) {
  uint64_t r = scalar(ri, a, d, s);
  if (s.kind == Side::Float && d.kind == Side::Float && isNaN(decode(a & widthMask(s.bits), s.f)) &&
      ri.has(Mod::Sat))
    return 0;
  return r;
}

// ---- Narrow formats ----

bool narrow(Type t, Format &f, unsigned &bits) {
  switch (t) {
  case Type::E4M3x2: f = kE4M3, bits = 8; return true;
  case Type::E5M2x2: f = kE5M2, bits = 8; return true;
  case Type::E2M3x2: f = kE2M3, bits = 8; return true;
  case Type::E3M2x2: f = kE3M2, bits = 8; return true;
  case Type::E2M1x2: f = kE2M1, bits = 4; return true;
  default: return false;
  }
}

/// Into a narrow format: .rn.satfinite (NaN to the format's NaN, or to its
/// largest value for the fp6/fp4 formats, which have none), .relu.
uint64_t toNarrow(Quad v, Format f, bool relu) {
  if (isNaN(v)) return f.kind == Format::Finite ? largestFinite(f) : canonicalNaN(f);
  if (relu && signOf(v)) return 0;
  return encode(v, f, Rounding::NearestEven, true);
}

uint64_t toHalf(uint64_t bits, Format f, bool relu) {
  if (isNaNEncoding(bits, f)) return canonicalNaN(kF16);
  Quad v = decode(bits, f);
  if (relu && signOf(v)) return 0;
  return encode(v, kF16, Rounding::NearestEven); // exact
}

uint64_t ue8m0(uint64_t f32bits, bool up, bool satfinite) {
  uint64_t e = (f32bits >> 23) & 0xFF, m = f32bits & 0x7FFFFF;
  if (e == 0xFF) return m ? 0xFF : satfinite ? 0xFE : 0xFF;
  Quad v = absOf(decode(f32bits & 0xFFFFFFFF, kF32));
  // The largest power of two not above |v| (rz) or the smallest not below (rp).
  int k = v == 0 ? -127 : exponentOf(v);
  if (k < -127) k = -127;
  if (up && v != 0 && scale(1, k) < v) ++k;
  if (k > 127) return satfinite ? 0xFE : 0xFF;
  return uint64_t(k + 127);
}

bool narrowForms(const Instr &ri, std::vector<Thread> &warp) {
  const Type dt = ri.type(0), st = ri.lastType();
  const bool relu = ri.has(Mod::Relu), satfinite = ri.has(Mod::SatF);
  Format f;
  unsigned bits;
  if (dt == Type::TF32) {
    const Mod rm = ri.first(ptx::ModKind::Rounding);
    const Rounding r = roundingOf(rm);
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & 0xFFFFFFFF;
      Quad v = decode(a, kF32);
      uint64_t out;
      if (rm == Mod::Rna) {
        // Measured on H100: .rna rounds the bit pattern, NaNs included
        // (half an ulp of tf32 added to the magnitude, then the 13 low bits
        // cleared); .satfinite then takes one unit off an all-ones exponent.
        out = (isNaN(v) ? a : a + 0x1000) & 0xFFFFE000; // NaNs truncated
        if (satfinite && (out & 0x7F800000) == 0x7F800000) out -= 0x2000;
      } else if (isNaN(v)) {
        out = 0x7FFFE000; // measured on H100 for .rn/.rz
      } else if (relu && signOf(v)) {
        out = 0;
      } else {
        out = encode(v, kTF32, r, satfinite) << 13;
      }
      expectD(ri, th, exact(out));
    });
    return true;
  }
  if (narrow(dt, f, bits)) {
    eachThread(warp, [&](Thread &th) {
      Quad hi, lo;
      if (st == Type::F16x2) {
        uint64_t a = src(ri, th, 1);
        hi = decode((a >> 16) & 0xFFFF, kF16), lo = decode(a & 0xFFFF, kF16);
      } else {
        hi = decode(src(ri, th, 1) & 0xFFFFFFFF, kF32), lo = decode(src(ri, th, 2) & 0xFFFFFFFF, kF32);
      }
      expectD(ri, th, exact(toNarrow(hi, f, relu) << bits | toNarrow(lo, f, relu)));
    });
    return true;
  }
  if (dt == Type::F16x2 && narrow(st, f, bits)) {
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1);
      uint64_t hi = (a >> bits) & widthMask(bits), lo = a & widthMask(bits);
      expectD(ri, th, exact(toHalf(hi, f, relu) << 16 | toHalf(lo, f, relu)));
    });
    return true;
  }
  if (dt == Type::UE8M0x2) {
    const bool up = ri.first(ptx::ModKind::Rounding) == Mod::Rp;
    eachThread(warp, [&](Thread &th) {
      uint64_t a, b;
      if (st == Type::BF16x2) {
        uint64_t v = src(ri, th, 1);
        a = ((v >> 16) & 0xFFFF) << 16, b = (v & 0xFFFF) << 16;
      } else {
        a = src(ri, th, 1), b = src(ri, th, 2);
      }
      expectD(ri, th, exact(ue8m0(a, up, satfinite) << 8 | ue8m0(b, up, satfinite)));
    });
    return true;
  }
  if (dt == Type::BF16x2 && st == Type::UE8M0x2) {
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1), r = 0;
      for (unsigned h = 0; h < 2; ++h) {
        uint64_t e = (a >> (8 * h)) & 0xFF;
        uint64_t v =
            e == 0xFF ? canonicalNaN(kBF16) : encode(scale(1, int(e) - 127), kBF16, Rounding::NearestEven);
        r |= v << (16 * h);
      }
      expectD(ri, th, exact(r));
    });
    return true;
  }
  return false;
}

} // namespace

bool convertReference(const Instr &ri, std::vector<Thread> &warp) {
  if (ri.opcode == Opcode::CvtPack) {
    const Type dt = ri.type(0);
    const unsigned n = typeBits(dt);
    const bool sgn = isSignedType(dt);
    eachThread(warp, [&](Thread &th) {
      auto clamp = [&](uint64_t v) {
        I128 x = signExtend(v, 32);
        I128 lo = sgn ? -(I128(1) << (n - 1)) : 0, hi = sgn ? (I128(1) << (n - 1)) - 1 : (I128(1) << n) - 1;
        return static_cast<uint64_t>(x < lo ? lo : x > hi ? hi : x) & widthMask(n);
      };
      uint64_t d = clamp(src(ri, th, 1)) << n | clamp(src(ri, th, 2));
      if (n < 16) d |= (src(ri, th, 3) << (2 * n)) & 0xFFFFFFFF;
      expectD(ri, th, exact(d & 0xFFFFFFFF));
    });
    return true;
  }
  if (ri.opcode != Opcode::Cvt) return false;
  if (narrowForms(ri, warp)) return true;
  const Type dt = ri.type(0), st = ri.lastType();
  if (dt == Type::F16x2 || dt == Type::BF16x2) {
    if (st != Type::F32) return false;
    const Side d = sideOf(dt == Type::F16x2 ? Type::F16 : Type::BF16), s = sideOf(Type::F32);
    if (ri.first(ptx::ModKind::Rounding) == Mod::Rs) {
      // Stochastic: the random bits (13 for f16, 16 for bf16; a from the upper
      // half of rbits) are added to the f32 magnitude below the destination's
      // last place, then the sum is truncated.
      const unsigned dropped = dt == Type::BF16x2 ? 16 : 13;
      Instr rz = ri;
      for (Mod &m : rz.mods)
        if (m == Mod::Rs) m = Mod::Rz;
      eachThread(warp, [&](Thread &th) {
        auto one = [&](uint64_t f, uint64_t random) {
          f &= 0xFFFFFFFF;
          Quad v = decode(f, kF32);
          if (isNaN(v) || isInf(v)) return scalar(rz, f, d, s);
          uint64_t mag = (f & 0x7FFFFFFF) + (random & widthMask(dropped));
          if (mag >= 0x7F800000) mag = 0x7F800000;
          return scalar(rz, (f & 0x80000000) | mag, d, s);
        };
        uint64_t r = src(ri, th, 3);
        expectD(ri, th, exact(one(src(ri, th, 1), r >> 16) << 16 | one(src(ri, th, 2), r & 0xFFFF)));
      });
      return true;
    }
    eachThread(warp, [&](Thread &th) {
      expectD(ri, th, exact(nanAware(ri, src(ri, th, 1), d, s) << 16 | nanAware(ri, src(ri, th, 2), d, s)));
    });
    return true;
  }
  const Side d = sideOf(dt), s = sideOf(st);
  if (d.kind == Side::Other || s.kind == Side::Other) return false;
  eachThread(warp, [&](Thread &th) {
    uint64_t r = nanAware(ri, src(ri, th, 1), d, s);
    expectD(ri, th, exact(r));
  });
  return true;
}

} // namespace ref
