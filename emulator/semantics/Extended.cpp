// Extended-precision integer arithmetic through the carry flag (add.cc,
// addc, sub.cc, subc, mad.cc, madc: CC.CF is one bit per lane, Warp::carry),
// the integer dot products dp4a and dp2a, and the packed and .relu integer
// forms of sm_90 (add/min/max on .u16x2/.s16x2, min/max.relu).
#include "emulator/Semantics.h"

namespace emu {
namespace {

using ptx::Opcode;
using ptx::Type;

inline bool carryIn(const Exec &x, unsigned lane) { return (x.warp.carry >> lane) & 1; }
inline void setCarry(Exec &x, unsigned lane, bool c) {
  x.warp.carry = (x.warp.carry & ~(1u << lane)) | (static_cast<uint32_t>(c) << lane);
}

/// add.cc / addc{.cc}: d = a + b (+ CF); CF = the carry out.
template <typename U, bool WithCarry> void addCarry(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) {
    U a = arg<U>(x, in, 1, l), b = arg<U>(x, in, 2, l), cin = WithCarry && carryIn(x, l);
    U s = static_cast<U>(a + b);
    bool c1 = s < a;
    U r = static_cast<U>(s + cin);
    bool c2 = r < s;
    writeOperand(x, x.kernel().op(in, 0), l, r);
    if (in.cc || !WithCarry) setCarry(x, l, c1 || c2);
  });
}

/// sub.cc / subc{.cc}: d = a - b - (1 - CF), i.e. a + ~b + CF, and CF = the
/// carry out of that sum: the flag holds "no borrow", as on the hardware
/// (measured on H100: sub.cc.u32 0 - 1 leaves CF = 0, and add.cc setting
/// CF = 1 followed by subc gives a - b).
template <typename U, bool WithCarry> void subBorrow(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) {
    U a = arg<U>(x, in, 1, l), b = arg<U>(x, in, 2, l), cin = WithCarry ? U(carryIn(x, l)) : U(1);
    U nb = static_cast<U>(~b);
    U s = static_cast<U>(a + nb);
    bool c1 = s < a;
    U r = static_cast<U>(s + cin);
    bool c2 = r < s;
    writeOperand(x, x.kernel().op(in, 0), l, r);
    if (in.cc || !WithCarry) setCarry(x, l, c1 || c2);
  });
}

/// mad.{hi,lo}.cc / madc.{hi,lo}{.cc}: d = (a * b).{hi,lo} + c (+ CF).
template <typename U, bool WithCarry> void madCarry(Exec &x, const DInstr &in) {
  constexpr unsigned kBits = sizeof(U) * 8;
  using W = std::conditional_t<sizeof(U) == 4, uint64_t, unsigned __int128>;
  bool isSigned = ptx::typeClass(in.type) == ptx::TypeClass::Signed;
  forLanes(x.mask, [&](unsigned l) {
    U a = arg<U>(x, in, 1, l), b = arg<U>(x, in, 2, l), c = arg<U>(x, in, 3, l);
    W product;
    if (isSigned) {
      using S = std::make_signed_t<U>;
      using SW = std::conditional_t<sizeof(U) == 4, int64_t, __int128>;
      product = static_cast<W>(static_cast<SW>(static_cast<S>(a)) * static_cast<SW>(static_cast<S>(b)));
    } else {
      product = static_cast<W>(a) * static_cast<W>(b);
    }
    U part = in.hi ? static_cast<U>(product >> kBits) : static_cast<U>(product);
    U cin = WithCarry && carryIn(x, l);
    U s = static_cast<U>(part + c);
    bool c1 = s < part;
    U r = static_cast<U>(s + cin);
    bool c2 = r < s;
    writeOperand(x, x.kernel().op(in, 0), l, r);
    if (in.cc || !WithCarry) setCarry(x, l, c1 || c2);
  });
}

template <bool WithCarry> Handler carryFor(const DInstr &in, bool wide) {
  bool b64 = ptx::bitWidth(in.type) == 64;
  switch (in.opcode) {
  case Opcode::Add:
  case Opcode::Addc: return b64 ? addCarry<uint64_t, WithCarry> : addCarry<uint32_t, WithCarry>;
  case Opcode::Sub:
  case Opcode::Subc: return b64 ? subBorrow<uint64_t, WithCarry> : subBorrow<uint32_t, WithCarry>;
  case Opcode::Mad:
  case Opcode::Madc:
    if (wide) return nullptr;
    return b64 ? madCarry<uint64_t, WithCarry> : madCarry<uint32_t, WithCarry>;
  default: return nullptr;
  }
}

/// Byte i of a 32-bit word, sign- or zero-extended.
inline int64_t byteOf(uint32_t v, unsigned i, bool isSigned) {
  uint8_t b = static_cast<uint8_t>(v >> (8 * i));
  return isSigned ? static_cast<int8_t>(b) : b;
}
inline int64_t halfOf(uint32_t v, unsigned i, bool isSigned) {
  uint16_t h = static_cast<uint16_t>(v >> (16 * i));
  return isSigned ? static_cast<int16_t>(h) : h;
}

/// dp4a.atype.btype d, a, b, c: d = c + sum of the four byte products.
/// dp2a.{lo,hi}.atype.btype d, a, b, c: a's two halves times two bytes of b
/// (bytes 0-1 for .lo, 2-3 for .hi). The sum wraps to 32 bits.
template <bool Four> void dot(Exec &x, const DInstr &in) {
  bool aSigned = in.type0 == Type::S32, bSigned = in.type == Type::S32;
  bool hi = in.op == ptx::Mod::Hi;
  forLanes(x.mask, [&](unsigned l) {
    uint32_t a = arg<uint32_t>(x, in, 1, l), b = arg<uint32_t>(x, in, 2, l);
    int64_t sum = static_cast<int64_t>(arg<uint32_t>(x, in, 3, l));
    if constexpr (Four) {
      for (unsigned i = 0; i < 4; ++i) sum += byteOf(a, i, aSigned) * byteOf(b, i, bSigned);
    } else {
      unsigned base = hi ? 2 : 0;
      for (unsigned i = 0; i < 2; ++i) sum += halfOf(a, i, aSigned) * byteOf(b, base + i, bSigned);
    }
    writeOperand(x, x.kernel().op(in, 0), l, static_cast<uint32_t>(sum));
  });
}

/// add/min/max{.relu}.{u16x2,s16x2} on each 16-bit half, and min/max.relu.s32:
/// .relu clamps a negative result to 0.
template <typename T, Opcode Op, bool Relu> void packed(Exec &x, const DInstr &in) {
  constexpr unsigned kLanes = 32 / (sizeof(T) * 8);
  const Kernel &k = x.kernel();
  uint32_t a[32], b[32], r[32];
  gather(x, k.op(in, 1), a);
  gather(x, k.op(in, 2), b);
  for (unsigned l = 0; l < 32; ++l) {
    uint32_t out = 0;
    for (unsigned h = 0; h < kLanes; ++h) {
      unsigned shift = 8 * sizeof(T) * h;
      T va = static_cast<T>(a[l] >> shift), vb = static_cast<T>(b[l] >> shift), v;
      if constexpr (Op == Opcode::Add)
        v = static_cast<T>(va + vb);
      else if constexpr (Op == Opcode::Min)
        v = va < vb ? va : vb;
      else
        v = va > vb ? va : vb;
      if (Relu && v < 0) v = 0;
      out |= static_cast<uint32_t>(static_cast<std::make_unsigned_t<T>>(v)) << shift;
    }
    r[l] = out;
  }
  scatter(x, k.op(in, 0), r);
}

template <typename T, bool Relu> Handler packedFor(Opcode op) {
  switch (op) {
  case Opcode::Add: return Relu ? nullptr : packed<T, Opcode::Add, false>;
  case Opcode::Min: return packed<T, Opcode::Min, Relu>;
  case Opcode::Max: return packed<T, Opcode::Max, Relu>;
  default: return nullptr;
  }
}

Handler pickPacked(const DInstr &in) {
  if (in.type == Type::U16x2) return packedFor<uint16_t, false>(in.opcode);
  if (in.type == Type::S16x2)
    return (in.mods & dmod::Relu) ? packedFor<int16_t, true>(in.opcode)
                                  : packedFor<int16_t, false>(in.opcode);
  return nullptr;
}
Handler pickReluS32(const DInstr &in) {
  return in.type == Type::S32 ? packedFor<int32_t, true>(in.opcode) : nullptr;
}
Handler pickCarryOut(const DInstr &in) { return carryFor<false>(in, in.wide); }
Handler pickCarryIn(const DInstr &in) { return carryFor<true>(in, in.wide); }

constexpr uint16_t kInt = tclass::Int;

// Plain add/sub/mad, min/max: Integer.cpp.
constexpr HandlerRow kRows[] = {
    row(Opcode::Add, tclass::PackedInt, pickPacked),
    row(Opcode::Min, tclass::PackedInt, pickPacked),
    row(Opcode::Max, tclass::PackedInt, pickPacked),
    row(Opcode::Min, kInt, pickReluS32, kmod::Relu),
    row(Opcode::Max, kInt, pickReluS32, kmod::Relu),
    row(Opcode::Add, kInt, pickCarryOut, kmod::Cc),
    row(Opcode::Sub, kInt, pickCarryOut, kmod::Cc),
    row(Opcode::Mad, kInt, pickCarryOut, kmod::Cc),
    row(Opcode::Addc, kInt, pickCarryIn),
    row(Opcode::Subc, kInt, pickCarryIn),
    row(Opcode::Madc, kInt, pickCarryIn),
    row(Opcode::Dp4a, tclass::All, dot<true>),
    row(Opcode::Dp2a, tclass::All, dot<false>),
};

} // namespace

std::span<const HandlerRow> extendedHandlers() { return kRows; }

} // namespace emu
