// Video instructions (PTX ISA, "Video Instructions"): the scalar ones (vadd,
// vsub, vabsdiff, vmin, vmax, vshl, vshr, vmad, vset) with byte/half-word
// source selectors, .sat, a secondary operation (.add/.min/.max) or a merge
// into a byte/half-word of c; and the SIMD ones (vadd2 ... vset2, vadd4 ...
// vset4) with lane selectors over {b, a}, destination masks, .sat, and
// secondary accumulate (.add) or merge with c.
//
// The decoder keeps each operand's selector but not the digits of a SIMD
// selector (`.h10`, `.b7654`) or the minus of a vmad source (`-%r2`): those
// are read from the instruction once per execution, before the lane loop.
#include "emulator/Semantics.h"

#include <algorithm>
#include <limits>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Selector;
using ptx::Type;

/// The IR operand behind decoded operand `i` (video operands are never
/// pairs, so the positions agree).
const ptx::Operand &irOperand(const Exec &x, const DInstr &in, unsigned i) {
  const Kernel &k = x.kernel();
  return k.functionOf(in).operandsOf(k.instr(in))[i];
}

int64_t extend(uint64_t v, unsigned bits, bool isSigned) {
  uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
  v &= m;
  if (isSigned && bits < 64 && (v >> (bits - 1)) & 1) return static_cast<int64_t>(v | ~m);
  return static_cast<int64_t>(v);
}

/// A scalar source: the whole word, or the selected byte / half-word,
/// sign- or zero-extended.
int64_t part(uint32_t v, Selector sel, bool isSigned) {
  switch (sel) {
  case Selector::B0:
  case Selector::B1:
  case Selector::B2:
  case Selector::B3: return extend(v >> (8 * (unsigned(sel) - unsigned(Selector::B0))), 8, isSigned);
  case Selector::H0:
  case Selector::H1: return extend(v >> (16 * (unsigned(sel) - unsigned(Selector::H0))), 16, isSigned);
  default: return extend(v, 32, isSigned);
  }
}

/// Bits of the destination field a selector names (32 without one).
unsigned fieldBits(Selector sel) {
  if (sel >= Selector::B0 && sel <= Selector::B3) return 8;
  if (sel == Selector::H0 || sel == Selector::H1) return 16;
  return 32;
}
unsigned fieldShift(Selector sel) {
  if (sel >= Selector::B0 && sel <= Selector::B3) return 8 * (unsigned(sel) - unsigned(Selector::B0));
  if (sel == Selector::H0 || sel == Selector::H1) return 16 * (unsigned(sel) - unsigned(Selector::H0));
  return 0;
}

int64_t clampTo(int64_t v, unsigned bits, bool isSigned) {
  int64_t lo = isSigned ? -(int64_t{1} << (bits - 1)) : 0;
  int64_t hi = isSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  return std::clamp(v, lo, hi);
}

/// The scalar video tail, as ptxas emulates it on sm_90 (every rule below
/// measured on H100 over ~3000 inputs per form; the ISA's pseudocode differs
/// in the marked places):
///  - .sat into a byte/half-word field: a negative value gives the field's
///    maximum (the clamp compares unsigned), else min(value, maximum);
///  - .sat of a whole word: the signed or unsigned range, except that vadd
///    and vsub into an unsigned word only stop at 0 and otherwise wrap
///    (vadd.u32.u32.u32.sat of 0xFFFFFFFF and 2 gives 1);
///  - without .sat a signed destination wraps to 32 bits (vsub.s32.s32.s32.min
///    of 1 - INT_MIN compares 0x80000001), an unsigned one keeps the exact
///    value;
///  - secondary .min/.max for an unsigned destination compare 64-bit
///    two's complement patterns with c zero-extended, so a negative value is
///    larger than any c (vmin.u32.s32.s32.max of -46 and 0xA6268FE6 gives -46),
///    and so is a vadd.u32 .sat result with bit 31 set;
///  - the merge into .h1 takes the value's own bits 16..31 (unshifted); the
///    byte fields take its low byte.
uint32_t finishScalar(__int128 tmp, const DInstr &in, Selector dsel, bool dSigned, bool hasC, uint32_t c) {
  const bool field = dsel != Selector::None;
  if (in.sat) {
    const __int128 hi = clampTo(INT64_MAX, fieldBits(dsel), dSigned);
    if (field)
      tmp = tmp < 0 ? hi : std::min(tmp, hi);
    else if (!dSigned && (in.opcode == Opcode::Vadd || in.opcode == Opcode::Vsub))
      tmp = tmp < 0 ? 0 : extend(static_cast<uint64_t>(tmp), 32, true);
    else
      tmp = std::clamp<__int128>(tmp, clampTo(INT64_MIN, 32, dSigned), hi);
  } else if (dSigned) {
    tmp = extend(static_cast<uint64_t>(tmp), 32, true);
  }
  Mod op2 = in.opcode == Opcode::Vset ? in.op2 : in.op;
  if (op2 == Mod::Add) return static_cast<uint32_t>(tmp + c);
  if (op2 == Mod::Min || op2 == Mod::Max) {
    bool tmpLess = dSigned ? tmp < extend(c, 32, true) : static_cast<uint64_t>(tmp) < c;
    return static_cast<uint32_t>(tmpLess == (op2 == Mod::Min) ? tmp : __int128{c});
  }
  if (hasC && field) {
    unsigned bits = fieldBits(dsel), shift = fieldShift(dsel);
    uint32_t m = ((1u << bits) - 1) << shift;
    uint32_t v = dsel == Selector::H1 ? static_cast<uint32_t>(tmp) : static_cast<uint32_t>(tmp) << shift;
    return (c & ~m) | (v & m);
  }
  return static_cast<uint32_t>(tmp);
}

bool compare(Mod cmp, int64_t a, int64_t b) {
  switch (cmp) {
  case Mod::Eq: return a == b;
  case Mod::Ne: return a != b;
  case Mod::Lt: return a < b;
  case Mod::Le: return a <= b;
  case Mod::Gt: return a > b;
  case Mod::Ge: return a >= b;
  default: return false;
  }
}

/// vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vset:
/// vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}.
/// (vset has no dtype and no .sat; its result is unsigned.)
template <Opcode Op, bool ASigned, bool Clamp> void scalar(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &d = k.op(in, 0), &a = k.op(in, 1), &b = k.op(in, 2);
  const bool hasC = in.numOps > 3;
  const bool dSigned = Op != Opcode::Vset && in.type0 == Type::S32;
  const bool bSigned = in.type == Type::S32 && Op != Opcode::Vshl && Op != Opcode::Vshr;
  forLanes(x.mask, [&](unsigned l) {
    int64_t ta = part(static_cast<uint32_t>(readOperand(x, a, l)), a.selector, ASigned);
    int64_t tb = part(static_cast<uint32_t>(readOperand(x, b, l)), b.selector, bSigned);
    uint32_t c = hasC ? static_cast<uint32_t>(readOperand(x, k.op(in, 3), l)) : 0;
    // vshl by 32 of a 32-bit value needs 64 bits and a sign: 128 are enough.
    __int128 tmp;
    if constexpr (Op == Opcode::Vadd)
      tmp = ta + tb;
    else if constexpr (Op == Opcode::Vsub)
      tmp = ta - tb;
    else if constexpr (Op == Opcode::Vabsdiff)
      tmp = ta > tb ? ta - tb : tb - ta;
    else if constexpr (Op == Opcode::Vmin)
      tmp = std::min(ta, tb);
    else if constexpr (Op == Opcode::Vmax)
      tmp = std::max(ta, tb);
    else if constexpr (Op == Opcode::Vset)
      tmp = compare(in.op, ta, tb) ? 1 : 0;
    else {
      uint64_t n =
          Clamp ? std::min<uint64_t>(static_cast<uint64_t>(tb), 32) : (static_cast<uint64_t>(tb) & 31);
      // With .sat the shifted value is a signed 34-bit intermediate
      // (measured on H100: 1 << 32 saturates, 2 << 32 gives 0); without, it
      // is exact (vshl.u32.u32.u32.wrap.max of 0x8000 << 26 beats any c).
      if constexpr (Op == Opcode::Vshl)
        tmp = in.sat ? __int128{extend(static_cast<uint64_t>(ta) << n, 34, true)} : __int128{ta} << n;
      else
        tmp = ta >> n; // arithmetic for a signed a (ta is sign-extended)
    }
    writeOperand(x, d, l, finishScalar(tmp, in, d.selector, dSigned, hasC, c));
  });
}

/// vmad.dtype.atype.btype{.po}{.sat}{.shr7|.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c:
/// d = ±(a·b) ± c (+1 with .po), shifted right arithmetically by the scale,
/// clamped with .sat. Measured on H100 (where ptxas emulates vmad): the
/// selected sources, extended to 32 bits by their types, and c multiply and
/// add as signed 32-bit values (vmad.u32.u32.u32.shr15 of 0x24 and
/// 0xFFFFFFDB gives 0xFFFFF37B); .sat clamps to the unsigned range when both
/// sources are unsigned and nothing is negated (whatever dtype says), else
/// to the signed one; with that unsigned clamp the scale shift is logical
/// on the 64-bit two's complement value, so a negative sum saturates to
/// 0xFFFFFFFF (measured: vmad.u32.u32.u32.sat.shr7 of 0 * b + 0xFFFFFFD3).
template <bool ASigned, bool Po, unsigned Shift> void vmad(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &d = k.op(in, 0), &a = k.op(in, 1), &b = k.op(in, 2), &cOp = k.op(in, 3);
  const bool negA = irOperand(x, in, 1).flags & ptx::opflag::Minus;
  const bool negB = irOperand(x, in, 2).flags & ptx::opflag::Minus;
  const bool negC = irOperand(x, in, 3).flags & ptx::opflag::Minus;
  const bool bSigned = in.type == Type::S32;
  const bool negProduct = negA != negB;
  const bool unsignedResult = !ASigned && !bSigned && !negProduct && !negC;
  forLanes(x.mask, [&](unsigned l) {
    __int128 ta =
        extend(static_cast<uint64_t>(part(static_cast<uint32_t>(readOperand(x, a, l)), a.selector, ASigned)),
               32, true);
    __int128 tb =
        extend(static_cast<uint64_t>(part(static_cast<uint32_t>(readOperand(x, b, l)), b.selector, bSigned)),
               32, true);
    __int128 c = extend(readOperand(x, cOp, l), 32, true);
    __int128 t = ta * tb;
    if (negProduct) t = -t;
    t += negC ? -c : c;
    if (Po) t += 1;
    if (Shift && in.sat && unsignedResult)
      t = static_cast<uint64_t>(t) >> Shift;
    else
      t >>= Shift;
    if (in.sat) {
      __int128 lo = unsignedResult ? 0 : std::numeric_limits<int32_t>::min();
      __int128 hi = unsignedResult ? __int128{0xFFFFFFFFu} : __int128{std::numeric_limits<int32_t>::max()};
      t = t < lo ? lo : t > hi ? hi : t;
    }
    writeOperand(x, d, l, static_cast<uint32_t>(t));
  });
}

// ---- SIMD ---------------------------------------------------------------------------------------

/// Lane selectors of a SIMD operand: lane i of the operand is element
/// sel[i] of {b, a} (N lanes of 32/N bits; a holds elements 0..N-1).
template <unsigned N> struct Lanes { uint8_t sel[N]; };

/// The digits of a SIMD selector or mask (`.h10` -> {0, 1}, lane 0 first),
/// or `fallback` when the operand has none.
template <unsigned N> Lanes<N> selectors(const Exec &x, const DInstr &in, unsigned i, Lanes<N> fallback) {
  const DOp &op = x.kernel().op(in, i);
  if (op.selector != Selector::ByteMask && op.selector != Selector::HalfMask) return fallback;
  const ptx::Operand &o = irOperand(x, in, i);
  unsigned count = static_cast<unsigned>(static_cast<uint64_t>(o.value) >> 32);
  Lanes<N> r = fallback;
  for (unsigned j = 0; j < N && j < count; ++j) r.sel[j] = (o.value >> (4 * j)) & 0xF;
  return r;
}

/// The destination mask: which lanes the result goes to.
template <unsigned N> uint32_t destinationMask(const Exec &x, const DInstr &in) {
  const DOp &d = x.kernel().op(in, 0);
  switch (d.selector) {
  case Selector::None: return (1u << N) - 1;
  case Selector::B0:
  case Selector::B1:
  case Selector::B2:
  case Selector::B3: return 1u << (unsigned(d.selector) - unsigned(Selector::B0));
  case Selector::H0:
  case Selector::H1: return 1u << (unsigned(d.selector) - unsigned(Selector::H0));
  default: break;
  }
  const ptx::Operand &o = irOperand(x, in, 0);
  unsigned count = static_cast<unsigned>(static_cast<uint64_t>(o.value) >> 32);
  uint32_t m = 0;
  for (unsigned j = 0; j < count; ++j) m |= 1u << ((o.value >> (4 * j)) & 0xF);
  return m & ((1u << N) - 1);
}

/// vadd2 ... vset2 (N = 2) and vadd4 ... vset4 (N = 4).
template <Opcode Op, unsigned N, bool ASigned> void simd(Exec &x, const DInstr &in) {
  constexpr unsigned bits = 32 / N;
  const Kernel &k = x.kernel();
  const DOp &d = k.op(in, 0), &a = k.op(in, 1), &b = k.op(in, 2), &cOp = k.op(in, 3);
  Lanes<N> defaultA, defaultB;
  for (unsigned i = 0; i < N; ++i)
    defaultA.sel[i] = static_cast<uint8_t>(i), defaultB.sel[i] = static_cast<uint8_t>(N + i);
  const Lanes<N> asel = selectors<N>(x, in, 1, defaultA), bsel = selectors<N>(x, in, 2, defaultB);
  const uint32_t mask = destinationMask<N>(x, in);
  const bool isSet = Op == Opcode::Vset2 || Op == Opcode::Vset4;
  const bool bSigned = in.type == Type::S32, dSigned = !isSet && in.type0 == Type::S32;
  const bool accumulate = (isSet ? in.op2 : in.op) == Mod::Add;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t ba = uint64_t{static_cast<uint32_t>(readOperand(x, b, l))} << 32 |
                  static_cast<uint32_t>(readOperand(x, a, l));
    uint32_t c = static_cast<uint32_t>(readOperand(x, cOp, l));
    int64_t acc = static_cast<int32_t>(c);
    uint32_t merged = 0;
    for (unsigned i = 0; i < N; ++i) {
      int64_t va = extend(ba >> (bits * asel.sel[i]), bits, ASigned);
      int64_t vb = extend(ba >> (bits * bsel.sel[i]), bits, bSigned);
      int64_t t;
      if constexpr (Op == Opcode::Vadd2 || Op == Opcode::Vadd4)
        t = va + vb;
      else if constexpr (Op == Opcode::Vsub2 || Op == Opcode::Vsub4)
        t = va - vb;
      else if constexpr (Op == Opcode::Vavrg2 || Op == Opcode::Vavrg4)
        t = (va + vb + (va + vb >= 0 ? 1 : 0)) >> 1;
      else if constexpr (Op == Opcode::Vabsdiff2 || Op == Opcode::Vabsdiff4)
        t = va > vb ? va - vb : vb - va;
      else if constexpr (Op == Opcode::Vmin2 || Op == Opcode::Vmin4)
        t = std::min(va, vb);
      else if constexpr (Op == Opcode::Vmax2 || Op == Opcode::Vmax4)
        t = std::max(va, vb);
      else
        t = compare(in.op, va, vb) ? 1 : 0;
      if (in.sat) t = clampTo(t, bits, dSigned);
      bool on = (mask >> i) & 1;
      if (accumulate) {
        if (on) acc += t;
      } else {
        uint64_t field = on ? static_cast<uint64_t>(t) : (c >> (bits * i));
        merged |= static_cast<uint32_t>((field & ((1ull << bits) - 1)) << (bits * i));
      }
    }
    writeOperand(x, d, l, accumulate ? static_cast<uint32_t>(acc) : merged);
  });
}

template <Opcode Op, bool ASigned> Handler scalarFor(const DInstr &in) {
  if constexpr (Op == Opcode::Vshl || Op == Opcode::Vshr)
    return (in.mods & dmod::Clamp) ? scalar<Op, ASigned, true> : scalar<Op, ASigned, false>;
  else
    return scalar<Op, ASigned, false>;
}

template <bool ASigned> Handler vmadFor(const DInstr &in) {
  bool po = in.mods & dmod::VmadPo;
  unsigned shift = (in.mods & dmod::VmadShr7) ? 7 : (in.mods & dmod::VmadShr15) ? 15 : 0;
  if (po)
    return shift == 7    ? vmad<ASigned, true, 7>
           : shift == 15 ? vmad<ASigned, true, 15>
                         : vmad<ASigned, true, 0>;
  return shift == 7    ? vmad<ASigned, false, 7>
         : shift == 15 ? vmad<ASigned, false, 15>
                       : vmad<ASigned, false, 0>;
}

template <bool ASigned> Handler videoFor(const DInstr &in) {
  switch (in.opcode) {
  case Opcode::Vadd: return scalarFor<Opcode::Vadd, ASigned>(in);
  case Opcode::Vsub: return scalarFor<Opcode::Vsub, ASigned>(in);
  case Opcode::Vabsdiff: return scalarFor<Opcode::Vabsdiff, ASigned>(in);
  case Opcode::Vmin: return scalarFor<Opcode::Vmin, ASigned>(in);
  case Opcode::Vmax: return scalarFor<Opcode::Vmax, ASigned>(in);
  case Opcode::Vshl: return scalarFor<Opcode::Vshl, ASigned>(in);
  case Opcode::Vshr: return scalarFor<Opcode::Vshr, ASigned>(in);
  case Opcode::Vset: return scalarFor<Opcode::Vset, ASigned>(in);
  case Opcode::Vmad: return vmadFor<ASigned>(in);
  case Opcode::Vadd2: return simd<Opcode::Vadd2, 2, ASigned>;
  case Opcode::Vsub2: return simd<Opcode::Vsub2, 2, ASigned>;
  case Opcode::Vavrg2: return simd<Opcode::Vavrg2, 2, ASigned>;
  case Opcode::Vabsdiff2: return simd<Opcode::Vabsdiff2, 2, ASigned>;
  case Opcode::Vmin2: return simd<Opcode::Vmin2, 2, ASigned>;
  case Opcode::Vmax2: return simd<Opcode::Vmax2, 2, ASigned>;
  case Opcode::Vset2: return simd<Opcode::Vset2, 2, ASigned>;
  case Opcode::Vadd4: return simd<Opcode::Vadd4, 4, ASigned>;
  case Opcode::Vsub4: return simd<Opcode::Vsub4, 4, ASigned>;
  case Opcode::Vavrg4: return simd<Opcode::Vavrg4, 4, ASigned>;
  case Opcode::Vabsdiff4: return simd<Opcode::Vabsdiff4, 4, ASigned>;
  case Opcode::Vmin4: return simd<Opcode::Vmin4, 4, ASigned>;
  case Opcode::Vmax4: return simd<Opcode::Vmax4, 4, ASigned>;
  case Opcode::Vset4: return simd<Opcode::Vset4, 4, ASigned>;
  default: return nullptr;
  }
}

Handler pickVideo(const DInstr &in) {
  // vset and vset2/4 name two types (atype, btype); the others three.
  bool isSet = in.opcode == Opcode::Vset || in.opcode == Opcode::Vset2 || in.opcode == Opcode::Vset4;
  Type atype = isSet ? in.type0 : in.type1;
  return atype == Type::S32 ? videoFor<true>(in) : videoFor<false>(in);
}

constexpr HandlerRow kRows[] = {
    row(Opcode::Vadd, tclass::All, pickVideo),      row(Opcode::Vsub, tclass::All, pickVideo),
    row(Opcode::Vabsdiff, tclass::All, pickVideo),  row(Opcode::Vmin, tclass::All, pickVideo),
    row(Opcode::Vmax, tclass::All, pickVideo),      row(Opcode::Vshl, tclass::All, pickVideo),
    row(Opcode::Vshr, tclass::All, pickVideo),      row(Opcode::Vmad, tclass::All, pickVideo),
    row(Opcode::Vset, tclass::All, pickVideo),      row(Opcode::Vadd2, tclass::All, pickVideo),
    row(Opcode::Vsub2, tclass::All, pickVideo),     row(Opcode::Vavrg2, tclass::All, pickVideo),
    row(Opcode::Vabsdiff2, tclass::All, pickVideo), row(Opcode::Vmin2, tclass::All, pickVideo),
    row(Opcode::Vmax2, tclass::All, pickVideo),     row(Opcode::Vset2, tclass::All, pickVideo),
    row(Opcode::Vadd4, tclass::All, pickVideo),     row(Opcode::Vsub4, tclass::All, pickVideo),
    row(Opcode::Vavrg4, tclass::All, pickVideo),    row(Opcode::Vabsdiff4, tclass::All, pickVideo),
    row(Opcode::Vmin4, tclass::All, pickVideo),     row(Opcode::Vmax4, tclass::All, pickVideo),
    row(Opcode::Vset4, tclass::All, pickVideo),
};

} // namespace

std::span<const HandlerRow> videoHandlers() { return kRows; }

} // namespace emu
