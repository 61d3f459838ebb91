// Memory references (PTX ISA, ld, ldu, st, atom, red, and the sm_100 st.async
// / red.async .release forms and st.bulk): each thread's address operand
// points at its own memory slot, so every access is deterministic. atom and
// red apply their operation element by element (vector forms too) and atom
// returns the old values.
#include "tests/emulator/reference/Formats.h"
#include "tests/emulator/reference/Operands.h"

#include <cstring>

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

uint64_t load(const std::vector<uint8_t> &m, unsigned at, unsigned bytes) {
  uint64_t v = 0;
  std::memcpy(&v, m.data() + at, bytes);
  return v;
}
void store(std::vector<uint8_t> &m, unsigned at, unsigned bytes, uint64_t v) {
  std::memcpy(m.data() + at, &v, bytes);
}

/// One element of an atomic operation: the new memory value.
uint64_t atomicOp(Mod op, Type t, uint64_t old, uint64_t b, uint64_t c, bool global) {
  const unsigned n = typeBits(t);
  const uint64_t m = widthMask(n);
  old &= m, b &= m, c &= m;
  switch (t) {
  case Type::F32: {
    // atom.add.f32 rounds to nearest even; on global memory it flushes
    // subnormal inputs and results to zeros of their sign (PTX ISA, atom).
    auto in = [&](uint64_t x) {
      if (global && isSubnormal(x, kF32)) return (x >> 31) ? -Quad(0) : Quad(0);
      return decode(x, kF32);
    };
    Quad s = sumToOdd(in(old), in(b));
    if (isNaN(s)) return canonicalNaN(kF32);
    uint64_t r = encode(s, kF32, Rounding::NearestEven);
    if (global && isSubnormal(r, kF32)) r &= 0x80000000u;
    return r;
  }
  case Type::F64: {
    // A NaN operand comes back as it is, not quieted (b's when both are
    // NaN); an invalid sum is the default NaN (measured on H100).
    Quad s = sumToOdd(decode(old, kF64), decode(b, kF64));
    if (!isNaN(s)) return encode(s, kF64, Rounding::NearestEven);
    if (isNaNEncoding(b, kF64)) return b;
    if (isNaNEncoding(old, kF64)) return old;
    return 0xFFF8000000000000ull;
  }
  case Type::F16:
  case Type::BF16:
  case Type::F16x2:
  case Type::BF16x2: {
    const Format f = (t == Type::BF16 || t == Type::BF16x2) ? kBF16 : kF16;
    const unsigned halves = n / 16;
    uint64_t r = 0;
    for (unsigned h = 0; h < halves; ++h) {
      uint64_t x = (old >> (16 * h)) & 0xFFFF, y = (b >> (16 * h)) & 0xFFFF, e;
      if (op == Mod::Add) {
        Quad s = sumToOdd(decode(x, f), decode(y, f)); // .noftz: subnormals stay
        e = isNaN(s) ? canonicalNaN(f) : encode(s, f, Rounding::NearestEven);
      } else {
        // min/max: a NaN operand is ignored unless both are; -0 < +0.
        bool nx = isNaNEncoding(x, f), ny = isNaNEncoding(y, f);
        if (nx && ny)
          e = canonicalNaN(f);
        else if (nx)
          e = y;
        else if (ny)
          e = x;
        else {
          Quad vx = decode(x, f), vy = decode(y, f);
          bool takeY = op == Mod::Min ? (vy < vx || (vy == vx && (y & 0x8000)))
                                      : (vy > vx || (vy == vx && !(y & 0x8000)));
          e = takeY ? y : x;
        }
      }
      r |= e << (16 * h);
    }
    return r;
  }
  default: break;
  }
  const bool sgn = isSignedType(t);
  __int128 so = signExtend(old, n), sb = signExtend(b, n);
  switch (op) {
  case Mod::Add: return (old + b) & m;
  case Mod::Min: return sgn ? (sb < so ? b : old) : (b < old ? b : old);
  case Mod::Max: return sgn ? (sb > so ? b : old) : (b > old ? b : old);
  case Mod::And: return old & b;
  case Mod::Or: return old | b;
  case Mod::Xor: return old ^ b;
  case Mod::Exch: return b;
  case Mod::Cas: return old == b ? c : old;
  case Mod::Inc: return old >= b ? 0 : (old + 1) & m;
  case Mod::Dec: return (old == 0 || old > b) ? b : old - 1;
  default: return old;
  }
}

unsigned vectorWidth(const Instr &ri) {
  if (ri.has(Mod::V8)) return 8;
  if (ri.has(Mod::V4)) return 4;
  if (ri.has(Mod::V2)) return 2;
  return 1;
}

/// The value a load puts in a register: sign-extended for signed types.
uint64_t loaded(uint64_t raw, Type t, Type reg) {
  unsigned n = typeBits(t), rb = reg == Type::Pred ? 1 : typeBits(reg);
  uint64_t v = isSignedType(t) ? static_cast<uint64_t>(signExtend(raw, n)) : raw & widthMask(n);
  return v & widthMask(rb);
}

} // namespace

bool memoryReference(const Instr &ri, std::vector<Thread> &warp) {
  const Type t = ri.lastType();
  const unsigned size = (typeBits(t) + 7) / 8, vec = vectorWidth(ri);
  switch (ri.opcode) {
  case Opcode::Ld:
  case Opcode::Ldu:
    eachThread(warp, [&](Thread &th) {
      auto d = ri.slotsOf(0);
      for (unsigned e = 0; e < d.size(); ++e) {
        if (ri.slots[d[e]].kind == Slot::Sink) continue;
        expect(ri, th, d[e], exact(loaded(load(th.memory, e * size, size), t, ri.slots[d[e]].regType)));
      }
    });
    return true;
  case Opcode::St:
  case Opcode::StAsync:
    eachThread(warp, [&](Thread &th) {
      th.checkMemory = true;
      th.memoryAfter = th.memory;
      auto s = ri.slotsOf(1);
      for (unsigned e = 0; e < s.size(); ++e) {
        if (ri.slots[s[e]].kind == Slot::Sink) continue; // {%f1, _, ...}: that element is not stored
        store(th.memoryAfter, e * size, size, th.in[s[e]]);
      }
    });
    return true;
  case Opcode::StBulk:
    eachThread(warp, [&](Thread &th) {
      th.checkMemory = true;
      th.memoryAfter = th.memory;
      uint64_t n = src(ri, th, 1);
      for (uint64_t i = 0; i < n && i < th.memoryAfter.size(); ++i) th.memoryAfter[i] = 0;
    });
    return true;
  case Opcode::Atom:
  case Opcode::Red:
  case Opcode::RedAsync: {
    const bool returns = ri.opcode == Opcode::Atom;
    const unsigned addrGroup = returns ? 1 : 0;
    Mod op = ri.first(ptx::ModKind::Op);
    if (op == Mod::None) op = ri.first(ptx::ModKind::BoolOp);
    const bool global = !(ri.has(Mod::Shared) || ri.has(Mod::SharedCta) || ri.has(Mod::SharedCluster));
    eachThread(warp, [&](Thread &th) {
      th.checkMemory = true;
      th.memoryAfter = th.memory;
      auto b = ri.slotsOf(addrGroup + 1);
      uint64_t c = op == Mod::Cas ? src(ri, th, addrGroup + 2) : 0;
      auto d = returns ? ri.slotsOf(0) : std::vector<unsigned>{};
      for (unsigned e = 0; e < vec; ++e) {
        uint64_t old = load(th.memory, e * size, size);
        store(th.memoryAfter, e * size, size, atomicOp(op, t, old, th.in[b[e]], c, global));
        if (returns) expect(ri, th, d[e], exact(old & widthMask(typeBits(t))));
      }
    });
    return true;
  }
  default: return false;
  }
}

} // namespace ref
