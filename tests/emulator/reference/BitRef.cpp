// Bit and logic references (PTX ISA, "Logic and Shift Instructions" and the
// bit-manipulation integer instructions): popc, clz, brev, bfind, fns, bfe,
// bfi, szext, bmsk, shl, shr, shf, prmt, lop3, and, or, xor, not, cnot. Each
// follows the ISA's pseudocode bit by bit; where H100 measurements decided
// an open point, the comment says so.
#include "tests/emulator/reference/Operands.h"

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

unsigned bit(uint64_t v, unsigned i) { return (v >> i) & 1; }

uint64_t bfe(uint64_t a, uint64_t b, uint64_t c, unsigned width, bool sgn) {
  const unsigned msb = width - 1;
  // The ISA restricts pos and len to 0..255. The 32-bit forms use the low 8
  // bits of b and c; the 64-bit forms use all 32 (measured on H100).
  uint64_t pos = width == 32 ? (b & 0xFF) : (b & 0xFFFFFFFF),
           len = width == 32 ? (c & 0xFF) : (c & 0xFFFFFFFF);
  unsigned sbit = 0;
  if (sgn && len != 0) sbit = bit(a, static_cast<unsigned>(std::min<uint64_t>(pos + len - 1, msb)));
  uint64_t d = 0;
  for (unsigned i = 0; i <= msb; ++i) {
    unsigned v = (i < len && pos + i <= msb) ? bit(a, static_cast<unsigned>(pos + i)) : sbit;
    d |= uint64_t(v) << i;
  }
  return d;
}

uint64_t bfi(uint64_t a, uint64_t b, uint64_t c, uint64_t d, unsigned width) {
  const unsigned msb = width - 1;
  uint64_t pos = width == 32 ? (c & 0xFF) : (c & 0xFFFFFFFF),
           len = width == 32 ? (d & 0xFF) : (d & 0xFFFFFFFF);
  uint64_t f = b;
  for (uint64_t i = 0; i < len && pos + i <= msb; ++i) {
    f &= ~(uint64_t(1) << (pos + i));
    f |= uint64_t(bit(a, static_cast<unsigned>(i))) << (pos + i);
  }
  return f & widthMask(width);
}

// prmt's modes: for c[1:0], the source byte of d.b3, d.b2, d.b1, d.b0.
constexpr unsigned kModeBytes[6][4][4] = {
    {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}, // .f4e
    {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}, // .b4e
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // .rc8
    {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}, // .ecl
    {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}, // .ecr
    {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}, // .rc16
};

uint64_t prmt(uint64_t a, uint64_t b, uint64_t c, int mode) {
  uint8_t bytes[8];
  for (unsigned i = 0; i < 4; ++i) bytes[i] = uint8_t(a >> (8 * i)), bytes[4 + i] = uint8_t(b >> (8 * i));
  uint64_t d = 0;
  for (unsigned i = 0; i < 4; ++i) {
    uint8_t v;
    if (mode < 0) {
      unsigned sel = (c >> (4 * i)) & 0xF;
      v = bytes[sel & 7];
      if (sel & 8) v = (v & 0x80) ? 0xFF : 0x00; // replicate the sign bit
    } else {
      v = bytes[kModeBytes[mode][c & 3][3 - i]];
    }
    d |= uint64_t(v) << (8 * i);
  }
  return d;
}

int prmtMode(const Instr &ri) {
  const Mod modes[6] = {Mod::PrmtF4e, Mod::PrmtB4e, Mod::PrmtRc8, Mod::PrmtEcl, Mod::PrmtEcr, Mod::PrmtRc16};
  for (int i = 0; i < 6; ++i)
    if (ri.has(modes[i])) return i;
  return -1;
}

uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint64_t lut) {
  uint64_t d = 0;
  for (unsigned i = 0; i < 32; ++i) {
    unsigned index = bit(a, i) << 2 | bit(b, i) << 1 | bit(c, i);
    d |= uint64_t(bit(lut, index)) << i;
  }
  return d;
}

} // namespace

bool bitReference(const Instr &ri, std::vector<Thread> &warp) {
  const Type t = ri.lastType();
  const unsigned n = t == Type::Pred ? 1 : typeBits(t);
  switch (ri.opcode) {
  case Opcode::Popc:
  case Opcode::Clz:
  case Opcode::Brev:
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & widthMask(n), r = 0;
      if (ri.opcode == Opcode::Popc) {
        for (unsigned i = 0; i < n; ++i) r += bit(a, i);
      } else if (ri.opcode == Opcode::Clz) {
        while (r < n && !bit(a, n - 1 - unsigned(r))) ++r;
      } else {
        for (unsigned i = 0; i < n; ++i) r |= uint64_t(bit(a, i)) << (n - 1 - i);
      }
      expectD(ri, th, exact(r));
    });
    return true;
  case Opcode::Bfind:
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & widthMask(n);
      bool negative = isSignedType(t) && bit(a, n - 1);
      int pos = -1;
      for (int i = int(n) - 1; i >= 0; --i)
        if (bit(a, unsigned(i)) != unsigned(negative)) {
          pos = i;
          break;
        }
      uint64_t r = pos < 0 ? 0xFFFFFFFFu : ri.has(Mod::Shiftamt) ? n - 1 - unsigned(pos) : unsigned(pos);
      expectD(ri, th, exact(r));
    });
    return true;
  case Opcode::Fns:
    eachThread(warp, [&](Thread &th) {
      uint64_t mask = src(ri, th, 1) & 0xFFFFFFFF, base = src(ri, th, 2) & 0xFFFFFFFF;
      int64_t offset = signExtend(src(ri, th, 3), 32);
      if (base > 31) return expectD(ri, th, dontCare()); // outside the ISA's range
      uint64_t d = 0xFFFFFFFF;
      if (offset == 0) {
        if (bit(mask, unsigned(base))) d = base;
      } else {
        int64_t pos = int64_t(base), count = (offset < 0 ? -offset : offset) - 1, inc = offset > 0 ? 1 : -1;
        while (pos >= 0 && pos < 32) {
          if (bit(mask, unsigned(pos))) {
            if (count == 0) {
              d = uint64_t(pos);
              break;
            }
            --count;
          }
          pos += inc;
        }
      }
      expectD(ri, th, exact(d));
    });
    return true;
  case Opcode::Bfe:
    eachThread(warp, [&](Thread &th) {
      expectD(ri, th, exact(bfe(src(ri, th, 1), src(ri, th, 2), src(ri, th, 3), n, isSignedType(t))));
    });
    return true;
  case Opcode::Bfi:
    eachThread(warp, [&](Thread &th) {
      expectD(ri, th, exact(bfi(src(ri, th, 1), src(ri, th, 2), src(ri, th, 3), src(ri, th, 4), n)));
    });
    return true;
  case Opcode::Szext: {
    const bool clamp = ri.has(Mod::Clamp), sgn = t == Type::S32;
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & 0xFFFFFFFF, b = src(ri, th, 2) & 0xFFFFFFFF;
      uint64_t b1 = b & 0x1F;
      bool tooLarge = b >= 32 && clamp;
      uint64_t mask = tooLarge ? 0 : (0xFFFFFFFFull << b1) & 0xFFFFFFFF;
      unsigned signPos = unsigned(b1 - 1) & 0x1F;
      bool sbit = !(b1 == 0 || tooLarge || !sgn) && bit(a, signPos);
      expectD(ri, th, exact((a & ~mask & 0xFFFFFFFF) | (sbit ? mask : 0)));
    });
    return true;
  }
  case Opcode::Bmsk: {
    const bool clamp = ri.has(Mod::Clamp);
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & 0xFFFFFFFF, b = src(ri, th, 2) & 0xFFFFFFFF;
      uint64_t a1 = a & 0x1F, b1 = b & 0x1F, sum = a1 + b1;
      uint64_t mask0 = (0xFFFFFFFFull << a1) & 0xFFFFFFFF,
               mask1 = sum >= 32 ? 0 : (0xFFFFFFFFull << sum) & 0xFFFFFFFF;
      bool posOver = false, widthOver = false;
      if (clamp && a >= 32) posOver = true, mask0 = 0;
      if (clamp && b >= 32) widthOver = true;
      if (sum >= 32 || posOver || widthOver)
        mask1 = 0;
      else if (b1 == 0)
        mask1 = 0xFFFFFFFF;
      expectD(ri, th, exact(mask0 & ~mask1 & 0xFFFFFFFF));
    });
    return true;
  }
  case Opcode::Shl:
  case Opcode::Shr:
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & widthMask(n), s = src(ri, th, 2) & 0xFFFFFFFF;
      uint64_t r;
      if (ri.opcode == Opcode::Shl)
        r = s >= n ? 0 : (a << s) & widthMask(n);
      else if (isSignedType(t))
        r = static_cast<uint64_t>(signExtend(a, n) >> (s >= n ? n - 1 : s)) & widthMask(n);
      else
        r = s >= n ? 0 : a >> s;
      expectD(ri, th, exact(r));
    });
    return true;
  case Opcode::Shf: {
    const bool left = ri.has(Mod::Left), clamp = ri.has(Mod::Clamp);
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & 0xFFFFFFFF, b = src(ri, th, 2) & 0xFFFFFFFF,
               c = src(ri, th, 3) & 0xFFFFFFFF;
      uint64_t s = clamp ? std::min<uint64_t>(c, 32) : (c & 0x1F);
      uint64_t both = b << 32 | a; // {b, a}
      uint64_t r = left ? (both << s) >> 32 : both >> s;
      expectD(ri, th, exact(r & 0xFFFFFFFF));
    });
    return true;
  }
  case Opcode::Prmt: {
    const int mode = prmtMode(ri);
    eachThread(warp, [&](Thread &th) {
      expectD(ri, th, exact(prmt(src(ri, th, 1), src(ri, th, 2), src(ri, th, 3), mode)));
    });
    return true;
  }
  case Opcode::Lop3:
    eachThread(warp, [&](Thread &th) {
      // With a boolean op, the destination is the pair d|p.
      bool pair = ri.slotsOf(0).size() == 2;
      uint64_t d = lop3(src(ri, th, 1), src(ri, th, 2), src(ri, th, 3), src(ri, th, 4));
      expect(ri, th, 0, exact(d));
      if (pair) {
        bool q = src(ri, th, 5) & 1, nz = d != 0;
        bool p = ri.has(Mod::And) ? (nz && q) : (nz || q);
        expect(ri, th, 1, exact(p));
      }
    });
    return true;
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::Not:
  case Opcode::Cnot:
    eachThread(warp, [&](Thread &th) {
      uint64_t a = src(ri, th, 1) & widthMask(n), b = ri.groups > 2 ? src(ri, th, 2) & widthMask(n) : 0, r;
      switch (ri.opcode) {
      case Opcode::And: r = a & b; break;
      case Opcode::Or: r = a | b; break;
      case Opcode::Xor: r = a ^ b; break;
      case Opcode::Not: r = ~a & widthMask(n); break;
      default: r = a == 0 ? 1 : 0; break;
      }
      expectD(ri, th, exact(r));
    });
    return true;
  default: return false;
  }
}

} // namespace ref
