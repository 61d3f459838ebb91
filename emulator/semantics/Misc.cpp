// Everything else nvcc emits: predicate logic, bit-field and byte operations
// (bfe, bfi, prmt, lop3, shf, bfind, fns, szext, bmsk), slct, 24-bit
// multiplies, sad, and the instructions that do nothing in this emulator
// (fences, sleeps, prefetches, cache hints, performance events) or stop it
// (trap, brkpt).
// Semantics follow the pseudocode of the PTX ISA for each instruction.
#include "emulator/Semantics.h"

#include <cmath>
#include <limits>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

/// Writes f(lane) to operand 0 of every executing lane.
template <typename F> inline void each(Exec &x, const DInstr &in, F f) {
  const DOp &d = x.kernel().op(in, 0);
  forLanes(x.mask, [&](unsigned l) { writeOperand(x, d, l, f(l)); });
}

// ---- Predicate logic: registers hold 0/1; a source may be written !p ----

/// Predicate operand i in `lane`, negation applied.
bool pred(Exec &x, const DInstr &in, unsigned i, unsigned lane) {
  const DOp &p = x.kernel().op(in, i);
  return (readOperand(x, p, lane) & 1) != p.negated;
}

/// and/or/xor/not on predicates, as one vectorised loop.
template <typename F> void predicateLogic(Exec &x, const DInstr &in, F f) {
  const Kernel &k = x.kernel();
  const DOp &a = k.op(in, 1);
  uint64_t av[32], bv[32], r[32];
  gather(x, a, av);
  const uint64_t flipA = a.negated ? 1 : 0;
  if (in.numOps > 2) {
    const DOp &b = k.op(in, 2);
    gather(x, b, bv);
    const uint64_t flipB = b.negated ? 1 : 0;
    for (unsigned l = 0; l < 32; ++l) r[l] = f((av[l] ^ flipA) & 1, (bv[l] ^ flipB) & 1);
  } else {
    for (unsigned l = 0; l < 32; ++l) r[l] = f((av[l] ^ flipA) & 1, 0);
  }
  scatter(x, k.op(in, 0), r);
}
void predAnd(Exec &x, const DInstr &in) {
  predicateLogic(x, in, [](uint64_t a, uint64_t b) { return a & b; });
}
void predOr(Exec &x, const DInstr &in) {
  predicateLogic(x, in, [](uint64_t a, uint64_t b) { return a | b; });
}
void predXor(Exec &x, const DInstr &in) {
  predicateLogic(x, in, [](uint64_t a, uint64_t b) { return a ^ b; });
}
void predNot(Exec &x, const DInstr &in) {
  predicateLogic(x, in, [](uint64_t a, uint64_t) { return a ^ 1; });
}

// ---- Bit fields ----

/// bfe.T d, a, pos, len: the field is sign-extended from bit
/// min(pos+len-1, msb) for signed types; a zero length gives 0. The ISA
/// restricts pos and len to 0..255: the 32-bit forms use their low 8 bits,
/// but the 64-bit forms use all 32 bits (measured on H100, sm_90, CUDA 13.0
/// JIT: bfe.u64 with pos = 0x1f0 gives 0, as pos >= 64 does).
constexpr uint64_t fieldMask(unsigned bytes) { return bytes == 4 ? 0xFF : 0xFFFFFFFF; }

template <typename T> void bfe(Exec &x, const DInstr &in) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned msb = sizeof(T) * 8 - 1;
  each(x, in, [&](unsigned l) {
    U a = arg<U>(x, in, 1, l);
    uint64_t pos = arg<uint32_t>(x, in, 2, l) & fieldMask(sizeof(T)),
             len = arg<uint32_t>(x, in, 3, l) & fieldMask(sizeof(T));
    bool sbit = std::is_signed_v<T> && len != 0 && ((a >> std::min<uint64_t>(pos + len - 1, msb)) & 1);
    U field = pos > msb ? U(0) : U(a >> pos);                               // bits pos.. of a
    uint64_t have = pos > msb ? 0 : std::min<uint64_t>(len, msb + 1 - pos); // bits of a in the field
    U keep = have > msb ? U(~U(0)) : U((U(1) << have) - 1);
    U r = U(field & keep);
    if (sbit) r |= U(~keep);
    return bitsOf<U>(r);
  });
}

/// bfi.T f, a, b, pos, len: b with bits [pos, pos+len) (clipped at msb)
/// replaced by the low bits of a; pos and len as for bfe (8 bits for b32,
/// all 32 for b64, measured on H100).
template <typename U> void bfi(Exec &x, const DInstr &in) {
  constexpr unsigned bits = sizeof(U) * 8;
  each(x, in, [&](unsigned l) {
    U a = arg<U>(x, in, 1, l), b = arg<U>(x, in, 2, l);
    uint64_t pos = arg<uint32_t>(x, in, 3, l) & fieldMask(sizeof(U)),
             len = arg<uint32_t>(x, in, 4, l) & fieldMask(sizeof(U));
    if (len == 0 || pos >= bits) return bitsOf<U>(b);
    unsigned n = static_cast<unsigned>(std::min<uint64_t>(len, bits - pos));
    U mask = n >= bits ? U(~U(0)) : U((U(1) << n) - 1);
    return bitsOf<U>(U((b & ~U(mask << pos)) | U((a & mask) << pos)));
  });
}

/// prmt.b32{.mode} d, a, b, c: bytes of {b, a} picked by c. Without a mode,
/// each nibble of c[15:0] selects a byte (bit 3: replicate its sign bit);
/// with a mode, c[1:0] selects a row of the ISA's table (entries give
/// d.b0..d.b3).
constexpr uint8_t kPrmtTable[6][4][4] = {
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
    {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
    {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
    {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
};

uint32_t prmtGeneric(uint64_t src, uint32_t c) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    unsigned sel = (c >> (4 * i)) & 0xF;
    uint32_t byte = static_cast<uint32_t>(src >> (8 * (sel & 7))) & 0xFF;
    if (sel & 8) byte = (byte & 0x80) ? 0xFF : 0;
    r |= byte << (8 * i);
  }
  return r;
}

template <int Mode> void prmt(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    uint64_t src = uint64_t{arg<uint32_t>(x, in, 2, l)} << 32 | arg<uint32_t>(x, in, 1, l);
    uint32_t c = arg<uint32_t>(x, in, 3, l);
    if constexpr (Mode < 0) {
      return uint64_t{prmtGeneric(src, c)};
    } else {
      const uint8_t *row = kPrmtTable[Mode][c & 3];
      uint32_t r = 0;
      for (unsigned i = 0; i < 4; ++i) r |= (static_cast<uint32_t>(src >> (8 * row[i])) & 0xFF) << (8 * i);
      return uint64_t{r};
    }
  });
}

/// lop3.b32 d, a, b, c, lut: bit i of d is lut[(a_i << 2) | (b_i << 1) | c_i]
/// (the ISA's ta = 0xF0, tb = 0xCC, tc = 0xAA encoding).
uint32_t lop3Bits(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 8; ++k) {
    if (!(lut >> k & 1)) continue;
    r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  }
  return r;
}

void lop3(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    return uint64_t{lop3Bits(arg<uint32_t>(x, in, 1, l), arg<uint32_t>(x, in, 2, l),
                             arg<uint32_t>(x, in, 3, l), arg<uint32_t>(x, in, 4, l))};
  });
}

/// lop3.boolop.b32 d|p, a, b, c, lut, {!}q: p = (d != 0) boolop q.
void lop3Pred(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint32_t d = lop3Bits(arg<uint32_t>(x, in, 2, l), arg<uint32_t>(x, in, 3, l), arg<uint32_t>(x, in, 4, l),
                          arg<uint32_t>(x, in, 5, l));
    bool q = pred(x, in, 6, l);
    bool p = in.op == Mod::And ? (d != 0 && q) : (d != 0 || q);
    writeOperand(x, k.op(in, 0), l, d);
    writeOperand(x, k.op(in, 1), l, p);
  });
}

/// shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: a funnel shift of {b, a}; the
/// amount is min(c, 32) (clamp) or c & 31 (wrap).
template <bool Left, bool Clamp> void shf(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    uint64_t v = uint64_t{arg<uint32_t>(x, in, 2, l)} << 32 | arg<uint32_t>(x, in, 1, l);
    uint32_t c = arg<uint32_t>(x, in, 3, l);
    unsigned n = Clamp ? std::min<uint32_t>(c, 32) : (c & 31);
    return Left ? uint64_t{static_cast<uint32_t>((v << n) >> 32)} : uint64_t{static_cast<uint32_t>(v >> n)};
  });
}

Handler shfFor(const DInstr &in) {
  bool left = in.mods & dmod::Left, clamp = in.mods & dmod::Clamp;
  if (left) return clamp ? shf<true, true> : shf<true, false>;
  return clamp ? shf<false, true> : shf<false, false>;
}

/// szext.{clamp,wrap}.{u32,s32} d, a, b: the low N = b bits of a, sign- or
/// zero-extended; N = 0 gives 0; N >= 32 gives a (.clamp) or uses N & 31
/// (.wrap). PTX ISA pseudocode.
template <bool Signed, bool Clamp> void szext(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    uint32_t a = arg<uint32_t>(x, in, 1, l), b = arg<uint32_t>(x, in, 2, l);
    uint32_t n = b & 31;
    bool tooLarge = Clamp && b >= 32;
    uint32_t mask = tooLarge ? 0 : ~0u << n;
    bool sign = Signed && n != 0 && !tooLarge && ((a >> ((n - 1) & 31)) & 1);
    return uint64_t{(a & ~mask) | (sign ? mask : 0)};
  });
}

/// bmsk.{clamp,wrap}.b32 d, a, b: b ones starting at bit a (PTX ISA
/// pseudocode: positions and widths past 31 wrap, or with .clamp empty the
/// mask).
template <bool Clamp> void bmsk(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    uint32_t a = arg<uint32_t>(x, in, 1, l), b = arg<uint32_t>(x, in, 2, l);
    uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    bool overflow = sum >= 32;
    if (Clamp && a >= 32) mask0 = 0, overflow = true;
    if (Clamp && b >= 32) overflow = true;
    if (overflow)
      mask1 = 0;
    else if (b1 == 0)
      mask1 = ~0u;
    return uint64_t{mask0 & ~mask1};
  });
}

/// slct.dtype.s32 d, a, b, c and slct{.ftz}.dtype.f32: d = c >= 0 ? a : b
/// (a NaN c selects b; -0 counts as 0; .ftz flushes a subnormal c first).
template <bool Float, bool Ftz> void slct(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    bool first;
    if constexpr (Float) {
      float c = arg<float>(x, in, 3, l);
      if (Ftz && std::fpclassify(c) == FP_SUBNORMAL) c = 0.0f;
      first = c >= 0.0f;
    } else {
      first = arg<int32_t>(x, in, 3, l) >= 0;
    }
    return readOperand(x, x.kernel().op(in, first ? 1 : 2), l);
  });
}

/// bfind{.shiftamt}.T d, a: the position of the most significant non-sign
/// bit, 0xFFFFFFFF when there is none; .shiftamt gives msb - position.
template <typename T, bool Shiftamt> void bfind(Exec &x, const DInstr &in) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned msb = sizeof(T) * 8 - 1;
  each(x, in, [&](unsigned l) {
    U a = arg<U>(x, in, 1, l);
    if (std::is_signed_v<T> && (a >> msb)) a = U(~a);
    if (a == 0) return uint64_t{0xFFFFFFFFu};
    unsigned pos = msb - static_cast<unsigned>(std::countl_zero(a));
    return uint64_t{Shiftamt ? msb - pos : pos};
  });
}

/// fns.b32 d, mask, base, offset: the position of the |offset|-th set bit
/// of mask counting from base upwards (offset > 0) or downwards (< 0);
/// offset 0 asks whether bit base is set. 0xFFFFFFFF when not found. A base
/// above 31 is undefined in the ISA: the emulator then finds nothing.
void fns(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    uint32_t mask = arg<uint32_t>(x, in, 1, l), base = arg<uint32_t>(x, in, 2, l);
    int32_t offset = arg<int32_t>(x, in, 3, l);
    if (base > 31) return uint64_t{0xFFFFFFFFu};
    if (offset == 0) return uint64_t{(mask >> base & 1) ? base : 0xFFFFFFFFu};
    int inc = offset > 0 ? 1 : -1;
    int64_t count = (offset > 0 ? int64_t{offset} : -int64_t{offset}) - 1;
    for (int pos = static_cast<int>(base); pos >= 0 && pos < 32; pos += inc)
      if (mask >> pos & 1) {
        if (count == 0) return uint64_t(static_cast<uint32_t>(pos));
        --count;
      }
    return uint64_t{0xFFFFFFFFu};
  });
}

// ---- 24-bit multiplies and sad ----

/// The 48-bit product of the low 24 bits of a and b (sign-extended for s32).
template <typename T> int64_t product24(uint32_t a, uint32_t b) {
  if constexpr (std::is_signed_v<T>) {
    int64_t sa = static_cast<int32_t>(a << 8) >> 8, sb = static_cast<int32_t>(b << 8) >> 8;
    return sa * sb;
  } else {
    return static_cast<int64_t>(uint64_t{a & 0xFFFFFFu} * uint64_t{b & 0xFFFFFFu});
  }
}

/// mul24.{hi,lo}.T d, a, b: bits 47..16 (hi) or 31..0 (lo) of the product.
template <typename T, bool Hi> void mul24(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    int64_t t = product24<T>(arg<uint32_t>(x, in, 1, l), arg<uint32_t>(x, in, 2, l));
    return uint64_t{static_cast<uint32_t>(static_cast<uint64_t>(Hi ? t >> 16 : t))};
  });
}

/// mad24.{hi,lo}{.sat}.T d, a, b, c: the mul24 result plus c; .sat (hi.s32
/// only) clamps the sum to the s32 range.
template <typename T, bool Hi, bool Sat> void mad24(Exec &x, const DInstr &in) {
  each(x, in, [&](unsigned l) {
    int64_t t = product24<T>(arg<uint32_t>(x, in, 1, l), arg<uint32_t>(x, in, 2, l));
    uint32_t part = static_cast<uint32_t>(static_cast<uint64_t>(Hi ? t >> 16 : t));
    uint32_t c = arg<uint32_t>(x, in, 3, l);
    if constexpr (Sat) {
      int64_t s = int64_t{static_cast<int32_t>(part)} + int64_t{static_cast<int32_t>(c)};
      s = std::clamp<int64_t>(s, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
      return uint64_t{static_cast<uint32_t>(s)};
    }
    return uint64_t{part + c};
  });
}

/// sad.T d, a, b, c: c + |a - b|, wrapping at the type's width.
template <typename T> void sad(Exec &x, const DInstr &in) {
  using U = std::make_unsigned_t<T>;
  each(x, in, [&](unsigned l) {
    T a = arg<T>(x, in, 1, l), b = arg<T>(x, in, 2, l);
    U diff = a < b ? U(U(b) - U(a)) : U(U(a) - U(b));
    return bitsOf<U>(U(arg<U>(x, in, 3, l) + diff));
  });
}

// ---- No-ops and traps ----

void nothing(Exec &, const DInstr &) {}

/// createpolicy ... d: an opaque cache policy. The emulator keeps no cache,
/// and the instructions that take a policy ignore it: 0 serves.
void createPolicy(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) { writeOperand(x, x.kernel().op(in, 0), l, 0); });
}

/// trap and brkpt: the kernel stops with an error (on hardware the launch
/// fails with cudaErrorLaunchFailure / an illegal-instruction style error).
void trap(Exec &x, const DInstr &in) {
  bool brkpt = in.opcode == Opcode::Brkpt;
  x.cta.report(ptx::DiagKind::Trap, ptx::Severity::Error, x.pc, x.warp, x.mask,
               brkpt ? std::string("brkpt executed (reported as a trap)") : std::string("trap executed"));
}

template <template <typename> class H> Handler byInt32_64(Type t) {
  switch (t) {
  case Type::U32: return H<uint32_t>::get();
  case Type::S32: return H<int32_t>::get();
  case Type::U64: return H<uint64_t>::get();
  case Type::S64: return H<int64_t>::get();
  default: return nullptr;
  }
}
template <typename T> struct PickBfe {
  static Handler get() { return bfe<T>; }
};
template <typename T> struct PickBfind {
  static Handler get() { return bfind<T, false>; }
};
template <typename T> struct PickBfindShiftamt {
  static Handler get() { return bfind<T, true>; }
};

Handler sadFor(Type t) {
  switch (t) {
  case Type::U16: return sad<uint16_t>;
  case Type::S16: return sad<int16_t>;
  case Type::U32: return sad<uint32_t>;
  case Type::S32: return sad<int32_t>;
  case Type::U64: return sad<uint64_t>;
  case Type::S64: return sad<int64_t>;
  default: return nullptr;
  }
}

template <typename T> Handler mul24For(const DInstr &in) {
  if (in.op == Mod::Hi)
    return in.opcode == Opcode::Mul24 ? mul24<T, true>
           : in.sat                   ? mad24<T, true, true>
                                      : mad24<T, true, false>;
  if (in.op == Mod::Lo)
    return in.opcode == Opcode::Mul24 ? mul24<T, false> : in.sat ? nullptr : mad24<T, false, false>;
  return nullptr;
}

/// prmt's mode, decided when the instruction is decoded.
Handler prmtFor(const DInstr &in) {
  static constexpr uint32_t kModes[6] = {dmod::PrmtF4e, dmod::PrmtB4e, dmod::PrmtRc8,
                                         dmod::PrmtEcl, dmod::PrmtEcr, dmod::PrmtRc16};
  static constexpr Handler kHandlers[6] = {prmt<0>, prmt<1>, prmt<2>, prmt<3>, prmt<4>, prmt<5>};
  for (unsigned m = 0; m < 6; ++m)
    if (in.mods & kModes[m]) return kHandlers[m];
  return prmt<-1>;
}

} // namespace

/// alloca d, size{, align}: size bytes of the thread's stack (local memory,
/// growing down), aligned to max(align, 8); the address is a local one.
/// Running out of stack is reported (the ISA leaves it undefined).
void stackAlloc(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const uint64_t align = in.numOps > 2 ? std::max<uint64_t>(readOperand(x, k.op(in, 2), 0), 8) : 8;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t size = readOperand(x, k.op(in, 1), l);
    uint64_t sp = x.warp.stackPointer[l];
    if (size > sp || (sp - size) / align * align < k.stackBase) {
      x.cta.report(ptx::DiagKind::Trap, ptx::Severity::Error, x.pc, x.warp, 1u << l,
                   "stack overflow: alloca of " + std::to_string(size) + " bytes does not fit the " +
                       std::to_string(kAllocaStackBytes) + "-byte stack of a thread");
      return;
    }
    sp = (sp - size) / align * align;
    x.warp.stackPointer[l] = static_cast<uint32_t>(sp);
    writeOperand(x, k.op(in, 0), l, sp);
  });
}

void stackSave(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) { writeOperand(x, x.kernel().op(in, 0), l, x.warp.stackPointer[l]); });
}

/// stackrestore a: a from stacksave; anything else outside the stack is
/// reported rather than corrupting later allocas.
void stackRestore(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  forLanes(x.mask, [&](unsigned l) {
    uint64_t sp = readOperand(x, k.op(in, 0), l);
    if (sp < k.stackBase || sp > k.localBytes) {
      x.cta.report(ptx::DiagKind::Trap, ptx::Severity::Error, x.pc, x.warp, 1u << l,
                   "stackrestore to " + std::to_string(sp) + ", outside the thread's stack");
      return;
    }
    x.warp.stackPointer[l] = static_cast<uint32_t>(sp);
  });
}

namespace {

Handler pickBfe(const DInstr &in) { return byInt32_64<PickBfe>(in.type); }
Handler pickBfi(const DInstr &in) {
  return in.type == Type::B32 ? bfi<uint32_t> : in.type == Type::B64 ? bfi<uint64_t> : nullptr;
}
Handler pickPrmt(const DInstr &in) { return in.type == Type::B32 ? prmtFor(in) : nullptr; }
Handler pickLop3(const DInstr &in) {
  if (in.type != Type::B32) return nullptr;
  if (in.op == Mod::None) return lop3;
  return in.op == Mod::And || in.op == Mod::Or ? lop3Pred : nullptr;
}
Handler pickShf(const DInstr &in) { return in.type == Type::B32 ? shfFor(in) : nullptr; }
Handler pickBfind(const DInstr &in) {
  return (in.mods & dmod::Shiftamt) ? byInt32_64<PickBfindShiftamt>(in.type) : byInt32_64<PickBfind>(in.type);
}
Handler pickSzext(const DInstr &in) {
  bool clamp = in.mods & dmod::Clamp;
  if (in.type == Type::S32) return clamp ? szext<true, true> : szext<true, false>;
  if (in.type == Type::U32) return clamp ? szext<false, true> : szext<false, false>;
  return nullptr;
}
Handler pickBmsk(const DInstr &in) {
  if (in.type != Type::B32) return nullptr;
  return (in.mods & dmod::Clamp) ? bmsk<true> : bmsk<false>;
}
Handler pickSlct(const DInstr &in) {
  if (in.type == Type::S32) return slct<false, false>;
  if (in.type == Type::F32) return in.ftz ? slct<true, true> : slct<true, false>;
  return nullptr;
}
Handler pickFns(const DInstr &in) { return in.type == Type::B32 ? fns : nullptr; }
Handler pickMul24(const DInstr &in) {
  if (in.type == Type::U32) return mul24For<uint32_t>(in);
  if (in.type == Type::S32) return mul24For<int32_t>(in);
  return nullptr;
}
Handler pickSad(const DInstr &in) { return sadFor(in.type); }

constexpr uint16_t kAll = tclass::All;

constexpr HandlerRow kRows[] = {
    row(Opcode::Alloca, kAll, stackAlloc),
    row(Opcode::Stacksave, kAll, stackSave),
    row(Opcode::Stackrestore, kAll, stackRestore),
    row(Opcode::And, tclass::Pred, predAnd),
    row(Opcode::Or, tclass::Pred, predOr),
    row(Opcode::Xor, tclass::Pred, predXor),
    row(Opcode::Not, tclass::Pred, predNot),
    row(Opcode::Bfe, kAll, pickBfe),
    row(Opcode::Bfi, kAll, pickBfi),
    row(Opcode::Prmt, kAll, pickPrmt),
    row(Opcode::Lop3, kAll, pickLop3),
    row(Opcode::Shf, kAll, pickShf),
    row(Opcode::Bfind, kAll, pickBfind),
    row(Opcode::Szext, kAll, pickSzext),
    row(Opcode::Bmsk, kAll, pickBmsk),
    row(Opcode::Slct, kAll, pickSlct),
    row(Opcode::Fns, kAll, pickFns),
    row(Opcode::Mul24, kAll, pickMul24),
    row(Opcode::Mad24, kAll, pickMul24),
    row(Opcode::Sad, kAll, pickSad),
    // Memory ordering: each CTA runs on one host thread and atomics are
    // serialised, so every fence is already satisfied.
    row(Opcode::Membar, kAll, nothing),
    row(Opcode::Fence, kAll, nothing),
    // Hints and scheduling: no effect on results.
    row(Opcode::Nanosleep, kAll, nothing),
    row(Opcode::Prefetch, kAll, nothing),
    row(Opcode::Prefetchu, kAll, nothing),
    row(Opcode::Applypriority, kAll, nothing),
    row(Opcode::Discard, kAll,
        nothing), // the line's contents become undefined; keeping them is one valid outcome
    row(Opcode::Pmevent, kAll, nothing),
    row(Opcode::Setmaxnreg, kAll, nothing),
    row(Opcode::Griddepcontrol, kAll, nothing),
    row(Opcode::Createpolicy, kAll, createPolicy),
    row(Opcode::Trap, kAll, trap),
    row(Opcode::Brkpt, kAll, trap),
};

} // namespace

std::span<const HandlerRow> miscHandlers() { return kRows; }

} // namespace emu
