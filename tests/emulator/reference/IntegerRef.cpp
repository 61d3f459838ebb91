// Integer arithmetic references (PTX ISA, "Integer Arithmetic Instructions",
// "Extended-Precision Integer Arithmetic Instructions"): add, sub, mul, mad
// (.lo/.hi/.wide/.sat/.cc), addc/subc/madc, div, rem, abs, neg, min, max
// (.relu, .u16x2/.s16x2), mul24, mad24, sad, dp4a, dp2a; and mov, selp, slct.
// Arithmetic is done in __int128, so nothing here can overflow.
#include "tests/emulator/reference/Formats.h"
#include "tests/emulator/reference/Operands.h"

#include <algorithm>
#include <cstring>

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;
using I128 = __int128;

bool isIntType(Type t) {
  ptx::TypeClass c = ptx::typeClass(t);
  return c == ptx::TypeClass::Bits || c == ptx::TypeClass::Signed || c == ptx::TypeClass::Unsigned;
}

/// The value of an operand of `bits` bits as a mathematical integer.
I128 value(uint64_t v, unsigned bits, bool isSigned) {
  return isSigned ? I128(signExtend(v, bits)) : I128(v & widthMask(bits));
}
I128 clampTo(I128 v, unsigned bits, bool isSigned) {
  I128 lo = isSigned ? -(I128(1) << (bits - 1)) : 0;
  I128 hi = isSigned ? (I128(1) << (bits - 1)) - 1 : (I128(1) << bits) - 1;
  return v < lo ? lo : v > hi ? hi : v;
}
uint64_t bitsOf(I128 v, unsigned bits) { return static_cast<uint64_t>(v) & widthMask(bits); }

bool arith(const Instr &ri, std::vector<Thread> &warp) {
  const Type t = ri.lastType();
  if (!isIntType(t) || ri.opcode == Opcode::Setp || ri.opcode == Opcode::Set) return false;
  const unsigned n = typeBits(t);
  const bool sgn = isSignedType(t);
  const bool packed = t == Type::U16x2 || t == Type::S16x2;
  switch (ri.opcode) {
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Addc:
  case Opcode::Subc: {
    const bool sub = ri.opcode == Opcode::Sub || ri.opcode == Opcode::Subc;
    const bool withCarry = ri.opcode == Opcode::Addc || ri.opcode == Opcode::Subc;
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1), b = src(ri, th, 2);
      if (packed) {
        uint64_t r = 0;
        for (unsigned h = 0; h < 2; ++h)
          r |= bitsOf(value(a >> (16 * h), 16, sgn) + value(b >> (16 * h), 16, sgn), 16) << (16 * h);
        return expectD(ri, th, exact(r));
      }
      // Unsigned arithmetic with the carry as bit n. A subtraction is
      // a + ~b + CF (CF = 1 when nothing is borrowed; sub.cc takes CF = 1):
      // the flag means "no borrow" (measured on H100).
      I128 ua = value(a, n, false), ub = value(b, n, false);
      I128 cin = sub ? (withCarry ? I128(th.carryIn) : 1) : I128(withCarry && th.carryIn);
      I128 r = sub ? ua + (value(~b, n, false)) + cin : ua + ub + cin;
      if (ri.has(Mod::Sat)) {
        I128 s = sub ? value(a, n, true) - value(b, n, true) : value(a, n, true) + value(b, n, true);
        return expectD(ri, th, exact(bitsOf(clampTo(s, n, true), n)));
      }
      expectD(ri, th, exact(bitsOf(r, n)));
      if (ri.has(Mod::Cc)) {
        th.checkCarry = true;
        th.carryOut = (r >> n) != 0;
      }
    });
    return true;
  }
  case Opcode::Mul:
  case Opcode::Mad:
  case Opcode::Madc: {
    const bool isMad = ri.opcode != Opcode::Mul;
    eachThread(warp, [&](Thread &th) {
      // The full product, as 128 bits (unsigned 64x64 products need all of them).
      unsigned __int128 ua = static_cast<unsigned __int128>(value(src(ri, th, 1), n, sgn)),
                        ub = static_cast<unsigned __int128>(value(src(ri, th, 2), n, sgn));
      I128 p = static_cast<I128>(ua * ub);
      uint64_t c = isMad ? src(ri, th, 3) : 0;
      if (ri.has(Mod::Wide)) {
        I128 r = p + (isMad ? value(c, 2 * n, sgn) : 0);
        return expectD(ri, th, exact(bitsOf(r, 2 * n)));
      }
      // .hi: bits 2n-1..n of the product; .lo: bits n-1..0.
      uint64_t part;
      if (ri.has(Mod::Hi)) {
        unsigned __int128 u = static_cast<unsigned __int128>(p);
        if (n == 64 && sgn) { // the signed 128-bit product's high half
          I128 sa = value(src(ri, th, 1), n, true), sb = value(src(ri, th, 2), n, true);
          u = static_cast<unsigned __int128>(sa * sb);
        }
        part = static_cast<uint64_t>(u >> n) & widthMask(n);
      } else {
        part = bitsOf(p, n);
      }
      if (!isMad) return expectD(ri, th, exact(part));
      if (ri.has(Mod::Sat)) // mad.hi.sat.s32
        return expectD(ri, th, exact(bitsOf(clampTo(value(part, n, true) + value(c, n, true), n, true), n)));
      I128 cin = ri.opcode == Opcode::Madc && th.carryIn;
      I128 r = value(part, n, false) + value(c, n, false) + cin;
      expectD(ri, th, exact(bitsOf(r, n)));
      if (ri.has(Mod::Cc)) {
        th.checkCarry = true;
        th.carryOut = (r >> n) != 0;
      }
    });
    return true;
  }
  case Opcode::Div:
  case Opcode::Rem:
    eachThread(warp, [&](Thread &th) {
      I128 a = value(src(ri, th, 1), n, sgn), b = value(src(ri, th, 2), n, sgn);
      // Division by zero is "unspecified, machine-specific" in the ISA.
      // Measured on H100: both are all ones.
      if (b == 0) return expectD(ri, th, exact(widthMask(n)));
      // Truncating division; INT_MIN / -1 wraps to INT_MIN, INT_MIN % -1 is 0.
      I128 q = a / b, r = a % b;
      expectD(ri, th, exact(bitsOf(ri.opcode == Opcode::Div ? q : r, n)));
    });
    return true;
  case Opcode::Abs:
  case Opcode::Neg:
    eachThread(warp, [&](Thread &th) {
      I128 a = value(src(ri, th, 1), n, true);
      I128 r = ri.opcode == Opcode::Neg ? -a : (a < 0 ? -a : a);
      expectD(ri, th, exact(bitsOf(r, n)));
    });
    return true;
  case Opcode::Min:
  case Opcode::Max: {
    const bool isMax = ri.opcode == Opcode::Max, relu = ri.has(Mod::Relu);
    const unsigned lanes = packed ? 2 : 1, lb = packed ? 16 : n;
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1), b = src(ri, th, 2), r = 0;
      for (unsigned h = 0; h < lanes; ++h) {
        I128 x = value(a >> (lb * h), lb, sgn), y = value(b >> (lb * h), lb, sgn);
        I128 m = isMax ? std::max(x, y) : std::min(x, y);
        if (relu && m < 0) m = 0;
        r |= bitsOf(m, lb) << (lb * h);
      }
      expectD(ri, th, exact(r));
    });
    return true;
  }
  case Opcode::Mul24:
  case Opcode::Mad24:
    eachThread(warp, [&](Thread &th) {
      I128 p = value(src(ri, th, 1), 24, sgn) * value(src(ri, th, 2), 24, sgn); // 48-bit product
      uint64_t part = ri.has(Mod::Hi)
                          ? static_cast<uint64_t>(static_cast<unsigned __int128>(p) >> 16) & 0xFFFFFFFFu
                          : bitsOf(p, 32);
      if (ri.opcode == Opcode::Mul24) return expectD(ri, th, exact(part));
      uint64_t c = src(ri, th, 3);
      if (ri.has(Mod::Sat))
        return expectD(ri, th,
                       exact(bitsOf(clampTo(value(part, 32, true) + value(c, 32, true), 32, true), 32)));
      expectD(ri, th, exact(bitsOf(I128(part) + I128(c & 0xFFFFFFFFu), 32)));
    });
    return true;
  case Opcode::Sad:
    eachThread(warp, [&](Thread &th) {
      I128 a = value(src(ri, th, 1), n, sgn), b = value(src(ri, th, 2), n, sgn);
      I128 d = a > b ? a - b : b - a;
      expectD(ri, th, exact(bitsOf(d + value(src(ri, th, 3), n, false), n)));
    });
    return true;
  default: return false;
  }
}

/// dp4a.atype.btype d, a, b, c and dp2a.(lo|hi).atype.btype d, a, b, c.
bool dot(const Instr &ri, std::vector<Thread> &warp) {
  if (ri.opcode != Opcode::Dp4a && ri.opcode != Opcode::Dp2a) return false;
  const bool as = isSignedType(ri.type(0)), bs = isSignedType(ri.type(1));
  eachThread(warp, [&](Thread &th) {
    uint64_t a = src(ri, th, 1), b = src(ri, th, 2);
    I128 sum = value(src(ri, th, 3), 32, as || bs);
    if (ri.opcode == Opcode::Dp4a) {
      for (unsigned i = 0; i < 4; ++i) sum += value(a >> (8 * i), 8, as) * value(b >> (8 * i), 8, bs);
    } else {
      unsigned base = ri.has(Mod::Hi) ? 2 : 0;
      for (unsigned i = 0; i < 2; ++i)
        sum += value(a >> (16 * i), 16, as) * value(b >> (8 * (base + i)), 8, bs);
    }
    expectD(ri, th, exact(bitsOf(sum, 32)));
  });
  return true;
}

/// The value of a special register the sample reads.
uint64_t special(const Slot &s, const Thread &t) {
  unsigned comp = s.selector == ptx::Selector::Y ? 1 : s.selector == ptx::Selector::Z ? 2 : 0;
  switch (static_cast<ptx::SpecialReg>(s.special)) {
  case ptx::SpecialReg::Tid: return comp == 0 ? t.tid : 0;
  case ptx::SpecialReg::Ntid: return comp == 0 ? t.ntid : 1;
  case ptx::SpecialReg::CtaId: return comp == 0 ? t.ctaid : 0;
  case ptx::SpecialReg::NCtaId: return comp == 0 ? t.nctaid : 1;
  case ptx::SpecialReg::LaneId: return t.lane;
  default: return 0;
  }
}

/// mov (with vector pack/unpack), selp, slct.
bool moves(const Instr &ri, std::vector<Thread> &warp) {
  switch (ri.opcode) {
  case Opcode::Mov: {
    const unsigned width = ri.lastType() == Type::Pred ? 1 : typeBits(ri.lastType());
    const bool unpack = ri.slotsOf(0).size() > 1, pack = ri.slotsOf(1).size() > 1;
    eachThread(warp, [&](Thread &th) {
      if (unpack) {
        auto d = ri.slotsOf(0);
        unsigned eb = width / unsigned(d.size());
        uint64_t v = src(ri, th, 1);
        for (unsigned e = 0; e < d.size(); ++e) expect(ri, th, d[e], exact((v >> (eb * e)) & widthMask(eb)));
      } else if (pack) {
        auto sl = ri.slotsOf(1);
        unsigned eb = width / unsigned(sl.size());
        uint64_t v = 0;
        for (unsigned e = 0; e < sl.size(); ++e) v |= (th.in[sl[e]] & widthMask(eb)) << (eb * e);
        expectD(ri, th, exact(v));
      } else {
        const Slot &s = ri.slots[ri.slot(1)];
        uint64_t v = s.kind == Slot::Special ? special(s, th) : src(ri, th, 1);
        expectD(ri, th, exact(v & widthMask(width)));
      }
    });
    return true;
  }
  case Opcode::Selp:
    eachThread(warp, [&](Thread &th) {
      bool c = src(ri, th, 3) & 1;
      expectD(ri, th, exact(c ? src(ri, th, 1) : src(ri, th, 2)));
    });
    return true;
  case Opcode::Slct: {
    // d = c >= 0 ? a : b; an f32 c compares as a float (-0 >= 0; NaN < 0 is
    // false, so NaN selects b), with .ftz flushing a subnormal c to zero.
    const bool isFloat = ri.lastType() == Type::F32;
    eachThread(warp, [&](Thread &th) {
      uint64_t c = src(ri, th, 3);
      bool first;
      if (isFloat) {
        Quad v = decode(c & 0xFFFFFFFFu, kF32);
        if (ri.has(Mod::Ftz) && (c & 0x7F800000u) == 0) v = 0;
        first = !isNaN(v) && v >= 0;
      } else {
        first = signExtend(c, 32) >= 0;
      }
      expectD(ri, th, exact(first ? src(ri, th, 1) : src(ri, th, 2)));
    });
    return true;
  }
  default: return false;
  }
}

} // namespace

bool integerReference(const Instr &ri, std::vector<Thread> &warp) {
  return arith(ri, warp) || dot(ri, warp) || moves(ri, warp);
}

} // namespace ref
