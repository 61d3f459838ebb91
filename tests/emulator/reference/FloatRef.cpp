// Floating-point references (PTX ISA, "Floating-Point Instructions", "Half
// Precision Floating-Point Instructions", "Mixed Precision Floating-Point
// Instructions"): every result is computed exactly, or rounded to odd at 113
// bits, in __float128 and rounded once into its format in the instruction's
// mode (Formats.h); then .ftz, .sat, .relu and PTX's NaN rules are applied.
// The .approx functions are compared with long-double values within the
// error bounds the ISA documents.
#include "tests/emulator/reference/Formats.h"
#include "tests/emulator/reference/Operands.h"

#include <cmath>

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

struct Kind {
  Format f;
  unsigned bits; // per element
  unsigned lanes;
  Type lane; // element type, for NaN-tolerant checks
};

bool kindOf(Type t, Kind &k) {
  switch (t) {
  case Type::F32: k = {kF32, 32, 1, Type::F32}; return true;
  case Type::F64: k = {kF64, 64, 1, Type::F64}; return true;
  case Type::F16: k = {kF16, 16, 1, Type::F16}; return true;
  case Type::BF16: k = {kBF16, 16, 1, Type::BF16}; return true;
  case Type::F16x2: k = {kF16, 16, 2, Type::F16}; return true;
  case Type::BF16x2: k = {kBF16, 16, 2, Type::BF16}; return true;
  case Type::F32x2: k = {kF32, 32, 2, Type::F32}; return true;
  default: return false;
  }
}

Rounding roundingOf(const Instr &ri) {
  switch (ri.first(ptx::ModKind::Rounding)) {
  case Mod::Rz: return Rounding::Zero;
  case Mod::Rm: return Rounding::Down;
  case Mod::Rp: return Rounding::Up;
  default: return Rounding::NearestEven;
  }
}

/// An input with .ftz: a subnormal becomes a zero of its sign.
Quad input(uint64_t bits, Format f, bool ftz) {
  bits &= widthMask(1 + f.expBits + f.manBits);
  if (ftz && isSubnormal(bits, f)) return (bits >> (f.expBits + f.manBits)) & 1 ? -Quad(0) : Quad(0);
  return decode(bits, f);
}

/// A result: rounded, flushed with .ftz (after rounding), clamped with .sat
/// (NaN to +0), made +0 with .relu when negative; a NaN is the canonical NaN.
uint64_t result(Quad v, Format f, Rounding r, bool ftz, bool sat, bool relu) {
  const unsigned w = 1 + f.expBits + f.manBits;
  if (isNaN(v)) return sat ? 0 : canonicalNaN(f);
  uint64_t bits = encode(v, f, r);
  // .ftz flushes a result that is tiny after rounding with an unbounded
  // exponent range (IEEE 754's definition; measured on H100): one whose
  // exact value only rounds up to the smallest normal is flushed as well.
  const Quad minNormal = scale(1, 2 - (1 << (f.expBits - 1)));
  // (The wide format must fit 64 bits: f64 has no .ftz forms that get here.)
  const Format unbounded{Format::Ieee, 15, f.manBits};
  const bool tiny =
      ftz && f.manBits <= 48 && v != 0 && absOf(decode(encode(v, unbounded, r), unbounded)) < minNormal;
  if (ftz && (isSubnormal(bits, f) || tiny)) bits &= uint64_t(1) << (w - 1);
  if (sat) {
    Quad x = decode(bits, f);
    if (!(x > 0)) return 0;
    if (x > 1) return encode(1, f, Rounding::NearestEven);
  }
  if (relu && (bits >> (w - 1)) & 1) return 0;
  return bits;
}

/// sqrt of a quad: long-double estimate, two Newton steps at 113 bits (well
/// below the distance of any sqrt from an f64 rounding boundary).
Quad sqrtQuad(Quad x) {
  if (isNaN(x) || x < 0) return quadNaN();
  if (x == 0 || isInf(x)) return x;
  Quad y = static_cast<Quad>(std::sqrt(static_cast<long double>(x)));
  y = (y + x / y) / 2;
  y = (y + x / y) / 2;
  return y;
}

/// The expectation for a result: bit for bit (f64 NaN payloads included,
/// measured on H100).
Check checkFor(uint64_t bits, const Kind &) { return exact(bits); }

// ---- Element operations ----

using Op3 = Quad (*)(Quad, Quad, Quad);
Quad addQ(Quad a, Quad b, Quad) { return sumToOdd(a, b); }
Quad subQ(Quad a, Quad b, Quad) { return sumToOdd(a, -b); }
Quad mulQ(Quad a, Quad b, Quad) { return a * b; } // exact up to f64 (106 bits)
Quad fmaQ(Quad a, Quad b, Quad c) { return sumToOdd(a * b, c); }
Quad divQ(Quad a, Quad b, Quad) { return a / b; }
Quad rcpQ(Quad a, Quad, Quad) { return Quad(1) / a; }
Quad sqrtQ(Quad a, Quad, Quad) { return sqrtQuad(a); }

/// Element-wise arithmetic with rounding: add/sub/mul/fma/div/rcp/sqrt.
bool rounded(const Instr &ri, std::vector<Thread> &warp, const Kind &k, Op3 op, unsigned nsrc) {
  const Rounding r = roundingOf(ri);
  const bool ftz = ri.has(Mod::Ftz), sat = ri.has(Mod::Sat), relu = ri.has(Mod::Relu), oob = ri.has(Mod::Oob);
  eachThread(warp, [&](Thread &th) {
    uint64_t s[3] = {};
    for (unsigned i = 0; i < nsrc; ++i) s[i] = src(ri, th, 1 + i);
    uint64_t d = 0;
    for (unsigned lane = 0; lane < k.lanes; ++lane) {
      unsigned sh = lane * k.bits;
      Quad v[3] = {};
      bool oobNaN = false;
      for (unsigned i = 0; i < nsrc; ++i) {
        uint64_t b = (s[i] >> sh) & widthMask(k.bits);
        oobNaN |= b == canonicalNaN(k.f);
        v[i] = input(b, k.f, ftz);
      }
      Quad x = op(v[0], v[1], v[2]);
      // An exact zero sum: x + x keeps x's sign; otherwise +0, or -0 when
      // rounding down (IEEE 754, 6.3).
      if (x == 0 && (op == addQ || op == subQ || op == fmaQ)) {
        Quad p = op == fmaQ ? v[0] * v[1] : v[0], q = op == fmaQ ? v[2] : op == subQ ? -v[1] : v[1];
        bool neg = (p == 0 && q == 0 && signOf(p) == signOf(q)) ? signOf(p) : r == Rounding::Down;
        x = neg ? -Quad(0) : Quad(0);
      }
      // .oob zeroes the result for the NaN an out-of-bounds tensor load fills
      // in, which no register value is: every NaN given propagates as in
      // fma.rn (measured on H100 with 0x7FFF, 0x7E00, 0x7C01, ...).
      (void)oob, (void)oobNaN;
      uint64_t e = result(x, k.f, r, ftz, sat, relu);
      // f64 has no canonical NaN (measured on H100): a NaN operand, quieted,
      // or the default NaN for an invalid operation; with several NaN
      // operands div keeps a's, the others b's (then the later ones').
      if (k.bits == 64 && isNaN(x)) {
        e = 0xFFF8000000000000ull;
        const unsigned order[3][3] = {{0, 0, 0}, {1, 0, 0}, {1, 2, 0}};
        unsigned firstIndex = ri.opcode == Opcode::Div ? 0 : nsrc >= 2 ? 1 : 0;
        bool found = false;
        if (isNaNEncoding(s[firstIndex], k.f)) e = s[firstIndex] | 0x0008000000000000ull, found = true;
        for (unsigned j = 0; j < nsrc && !found; ++j) {
          unsigned i = order[nsrc - 1][j];
          if (isNaNEncoding(s[i], k.f)) e = s[i] | 0x0008000000000000ull, found = true;
        }
      }
      d |= e << sh;
    }
    expectD(ri, th, checkFor(d, k));
  });
  return true;
}

/// Mixed precision: add/sub{.rnd}{.sat}.f32.f16 d, a(half), c(f32);
/// fma{.rnd}{.sat}.f32.f16 d, a, b (half), c (f32).
bool mixed(const Instr &ri, std::vector<Thread> &warp) {
  const Format half = ri.type(1) == Type::BF16 ? kBF16 : kF16;
  const Rounding r = roundingOf(ri);
  const bool sat = ri.has(Mod::Sat);
  eachThread(warp, [&](Thread &th) {
    Quad v;
    if (ri.opcode == Opcode::Fma) {
      Quad a = decode(src(ri, th, 1) & 0xFFFF, half), b = decode(src(ri, th, 2) & 0xFFFF, half);
      v = sumToOdd(a * b, decode(src(ri, th, 3) & 0xFFFFFFFF, kF32));
    } else {
      Quad a = decode(src(ri, th, 1) & 0xFFFF, half), c = decode(src(ri, th, 2) & 0xFFFFFFFF, kF32);
      v = sumToOdd(a, ri.opcode == Opcode::Sub ? -c : c);
    }
    if (v == 0) { // exact zero sums: as IEEE 754 says (see rounded())
      Quad p, q;
      if (ri.opcode == Opcode::Fma)
        p = decode(src(ri, th, 1) & 0xFFFF, half) * decode(src(ri, th, 2) & 0xFFFF, half),
        q = decode(src(ri, th, 3) & 0xFFFFFFFF, kF32);
      else
        p = decode(src(ri, th, 1) & 0xFFFF, half),
        q = (ri.opcode == Opcode::Sub ? -1 : 1) * decode(src(ri, th, 2) & 0xFFFFFFFF, kF32);
      bool neg = (p == 0 && q == 0 && signOf(p) == signOf(q)) ? signOf(p) : r == Rounding::Down;
      v = neg ? -Quad(0) : Quad(0);
    }
    expectD(ri, th, exact(result(v, kF32, r, false, sat, false)));
  });
  return true;
}

/// min/max{.ftz}{.NaN}{.xorsign.abs}{.abs} with two or three inputs.
bool minmax(const Instr &ri, std::vector<Thread> &warp, const Kind &k) {
  const bool isMax = ri.opcode == Opcode::Max, nanMode = ri.has(Mod::NaN), xorsign = ri.has(Mod::XorSign);
  const bool abs = ri.has(Mod::Abs), ftz = ri.has(Mod::Ftz);
  const unsigned nsrc = ri.groups - 1;
  eachThread(warp, [&](Thread &th) {
    uint64_t d = 0;
    for (unsigned lane = 0; lane < k.lanes; ++lane) {
      unsigned sh = lane * k.bits;
      const uint64_t signBit = uint64_t(1) << (k.bits - 1);
      uint64_t e[3];
      bool sign = false;
      for (unsigned i = 0; i < nsrc; ++i) {
        e[i] = (src(ri, th, 1 + i) >> sh) & widthMask(k.bits);
        if (ftz && isSubnormal(e[i], k.f)) e[i] &= signBit;
      }
      if (xorsign) sign = ((e[0] ^ e[1]) & signBit) != 0;
      if (abs || xorsign)
        for (unsigned i = 0; i < nsrc; ++i)
          if (!isNaNEncoding(e[i], k.f)) e[i] &= ~signBit;
      // Fold left to right: NaNs are skipped (or poison with .NaN); -0 < +0.
      bool sawNaN = false, have = false;
      uint64_t best = 0;
      for (unsigned i = 0; i < nsrc; ++i) {
        if (isNaNEncoding(e[i], k.f)) {
          sawNaN = true;
          continue;
        }
        if (!have) {
          best = e[i], have = true;
          continue;
        }
        Quad x = decode(e[i], k.f), y = decode(best, k.f);
        bool better =
            isMax ? (x > y || (x == y && !(e[i] & signBit))) : (x < y || (x == y && (e[i] & signBit)));
        if (better) best = e[i];
      }
      uint64_t nan = canonicalNaN(k.f);
      if (k.bits == 64) // the last NaN operand, quieted (measured on H100)
        for (unsigned i = 0; i < nsrc; ++i)
          if (isNaNEncoding(e[i], k.f)) nan = e[i] | 0x0008000000000000ull;
      uint64_t r = (!have || (nanMode && sawNaN)) ? nan : (best | (sign ? signBit : 0));
      d |= r << sh;
    }
    expectD(ri, th, checkFor(d, k));
  });
  return true;
}

/// .approx functions: within `rel` (relative) or `abs` (absolute) of the
/// long-double value; NaN, infinities and exact results exactly.
struct Approx {
  long double (*fn)(long double);
  long double rel, abs;
};

long double rcpL(long double x) { return 1.0L / x; }
long double rsqrtL(long double x) { return 1.0L / std::sqrt(x); }
long double sqrtL(long double x) { return std::sqrt(x); }
long double sinL(long double x) { return std::sin(x); }
long double cosL(long double x) { return std::cos(x); }
long double lg2L(long double x) { return std::log2(x); }
long double ex2L(long double x) { return std::exp2(x); }
long double tanhL(long double x) { return std::tanh(x); }

bool approx(const Instr &ri, std::vector<Thread> &warp, const Kind &k, Approx a) {
  const bool ftz = ri.has(Mod::Ftz);
  // Half precision: the ISA's bounds are about 2^-9.9 relative for f16 and
  // 2^-7 for bf16; one unit in the last place of the format.
  const bool half = k.bits == 16;
  eachThread(warp, [&](Thread &th) {
    uint64_t s = src(ri, th, 1);
    Check w{Check::Within};
    w.fmt = k.lane;
    w.lanes = k.lanes;
    w.relTol = half ? (k.f.manBits == 10 ? 0x1p-9L : 0x1p-7L) : a.rel;
    w.absTol = half ? 0x1p-24L : a.abs;
    w.ftzResult = true;
    bool allNaN = true;
    for (unsigned lane = 0; lane < k.lanes; ++lane) {
      Quad v = input((s >> (lane * k.bits)) & widthMask(k.bits), k.f, ftz);
      w.exact[lane] = a.fn(static_cast<long double>(v));
      allNaN &= std::isnan(w.exact[lane]);
    }
    if (allNaN && k.lanes == 1) {
      // f64: 0x7FFFFFFF00000000 from the .ftz forms (they work on the high
      // word), else the NaN operand quieted or the default NaN (H100).
      uint64_t nan = canonicalNaN(k.f);
      if (k.bits == 64)
        nan = ftz                     ? 0x7FFFFFFF00000000ull
              : isNaNEncoding(s, k.f) ? s | 0x0008000000000000ull
                                      : 0xFFF8000000000000ull;
      return expectD(ri, th, exact(nan));
    }
    expectD(ri, th, w);
  });
  return true;
}

} // namespace

bool floatReference(const Instr &ri, std::vector<Thread> &warp) {
  // Mixed precision names .f32 then the half type.
  if (ri.types.size() == 2 && ri.type(0) == Type::F32 &&
      (ri.type(1) == Type::F16 || ri.type(1) == Type::BF16) &&
      (ri.opcode == Opcode::Add || ri.opcode == Opcode::Sub || ri.opcode == Opcode::Fma))
    return mixed(ri, warp);
  Kind k;
  if (!kindOf(ri.lastType(), k)) return false;
  const bool approxMode = ri.has(Mod::Approx) || ri.has(Mod::Full);
  switch (ri.opcode) {
  case Opcode::Add: return rounded(ri, warp, k, addQ, 2);
  case Opcode::Sub: return rounded(ri, warp, k, subQ, 2);
  case Opcode::Mul: return rounded(ri, warp, k, mulQ, 2);
  case Opcode::Fma:
  case Opcode::Mad: return rounded(ri, warp, k, fmaQ, 3);
  case Opcode::Div:
    if (!approxMode) return rounded(ri, warp, k, divQ, 2);
    // div.approx.f32 (a * (1/b): zero for 2^126 < |b| < 2^128) and
    // div.full.f32: within 2 ulp.
    eachThread(warp, [&](Thread &th) {
      bool ftz = ri.has(Mod::Ftz);
      Quad a = input(src(ri, th, 1), kF32, ftz), b = input(src(ri, th, 2), kF32, ftz);
      Quad q = a / b;
      // div.approx is a * (1/b) with a reciprocal that flushes to zero for
      // 2^126 < |b| < 2^128 (PTX ISA, div): zero there (NaN for an infinite a).
      // (A subnormal b gives the quotient itself: measured on H100.)
      if (!ri.has(Mod::Full) && absOf(b) > scale(1, 126) && !isInf(b))
        q = a * (signOf(b) ? -Quad(0) : Quad(0));
      if (isNaN(q)) return expectD(ri, th, exact(0x7FFFFFFF));
      Check w{Check::Within};
      w.fmt = Type::F32;
      w.exact[0] = static_cast<long double>(q);
      w.relTol = 0x1p-22L;
      w.absTol = 0;
      w.ftzResult = true;
      expectD(ri, th, w);
    });
    return true;
  case Opcode::Rcp:
    if (!approxMode) return rounded(ri, warp, k, rcpQ, 1);
    return approx(ri, warp, k, {rcpL, k.bits == 64 ? 0x1p-20L : 0x1p-23L, 0});
  case Opcode::Sqrt:
    if (!approxMode) return rounded(ri, warp, k, sqrtQ, 1);
    return approx(ri, warp, k, {sqrtL, 0x1p-22L, 0});
  case Opcode::Rsqrt: return approx(ri, warp, k, {rsqrtL, k.bits == 64 ? 0x1p-20L : 0x1p-22L, 0});
  case Opcode::Sin:
  case Opcode::Cos: {
    // Absolute error 2^-20.5 over [-pi, pi] (PTX ISA); the ISA bounds
    // nothing far outside it, and the hardware's range reduction does drift
    // (cos.approx of 3.4e38 gives 1.0 on H100): within 100 pi the test allows
    // 2^-14, beyond it anything.
    approx(ri, warp, k, {ri.opcode == Opcode::Sin ? sinL : cosL, 0, 0x1p-20L});
    eachThread(warp, [&](Thread &th) {
      Quad v = input(src(ri, th, 1), kF32, ri.has(Mod::Ftz));
      if (isNaN(v) || isInf(v)) return;
      long double x = std::fabs(static_cast<long double>(v)), pi = 3.14159265358979323846L;
      if (x > 100 * pi)
        expectD(ri, th, dontCare());
      else if (x > pi)
        th.out[0].absTol = 0x1p-14L;
    });
    return true;
  }
  case Opcode::Lg2: return approx(ri, warp, k, {lg2L, 0x1p-22L, 0x1p-22L});
  case Opcode::Ex2: return approx(ri, warp, k, {ex2L, 0x1p-21L, 0});
  case Opcode::Tanh: return approx(ri, warp, k, {tanhL, 0x1p-10L, 0});
  case Opcode::Min:
  case Opcode::Max: return minmax(ri, warp, k);
  case Opcode::Abs:
  case Opcode::Neg: {
    // Sign-bit operations (after .ftz flushing). A NaN gives the canonical
    // NaN, except in f64, where it passes unchanged (measured on H100).
    const bool ftz = ri.has(Mod::Ftz);
    eachThread(warp, [&](Thread &th) {
      uint64_t s = src(ri, th, 1), d = 0;
      for (unsigned lane = 0; lane < k.lanes; ++lane) {
        uint64_t e = (s >> (lane * k.bits)) & widthMask(k.bits), sign = uint64_t(1) << (k.bits - 1);
        if (ftz && isSubnormal(e, k.f)) e &= sign;
        if (isNaNEncoding(e, k.f))
          e = k.bits == 64 ? e : canonicalNaN(k.f);
        else
          e = ri.opcode == Opcode::Abs ? e & ~sign : e ^ sign;
        d |= e << (lane * k.bits);
      }
      expectD(ri, th, exact(d));
    });
    return true;
  }
  case Opcode::Copysign:
    eachThread(warp, [&](Thread &th) {
      uint64_t sign = uint64_t(1) << (k.bits - 1);
      expectD(ri, th, exact((src(ri, th, 1) & sign) | (src(ri, th, 2) & (sign - 1))));
    });
    return true;
  case Opcode::Testp:
    eachThread(warp, [&](Thread &th) {
      uint64_t b = src(ri, th, 1) & widthMask(k.bits);
      Quad v = decode(b, k.f);
      bool r = false;
      switch (ri.first(ptx::ModKind::Op)) {
      case Mod::TestFinite: r = !isNaN(v) && !isInf(v); break;
      case Mod::TestInfinite: r = isInf(v); break;
      case Mod::TestNumber: r = !isNaN(v); break;
      case Mod::TestNotANumber: r = isNaN(v); break;
      // H100 calls ±0 normal (tests/gpu/cases/flt_float_compare).
      case Mod::TestNormal: r = !isNaN(v) && !isInf(v) && !isSubnormal(b, k.f); break;
      case Mod::TestSubnormal: r = isSubnormal(b, k.f); break;
      default: break;
      }
      expectD(ri, th, exact(r));
    });
    return true;
  default: return false;
  }
}

} // namespace ref
