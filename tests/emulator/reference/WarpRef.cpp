// Warp-level references (PTX ISA, shfl, vote, match, redux, activemask,
// elect): the warp's active threads are the non-exited threads of the
// member mask (the generated kernels pass all ones, and threads that skip
// the instruction have exited). Reading a lane that does not take part is
// undefined, so such a result is not compared.
#include "tests/emulator/reference/Formats.h"
#include "tests/emulator/reference/Operands.h"

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

uint32_t activeMask(const std::vector<Thread> &warp) {
  uint32_t m = 0;
  for (const Thread &t : warp)
    if (t.active) m |= 1u << t.lane;
  return m;
}

bool shfl(const Instr &ri, std::vector<Thread> &warp) {
  const Mod mode = ri.first(ptx::ModKind::Op);
  const auto d = ri.slotsOf(0);
  const unsigned a = 1; // top-level: d{|p}, a, b, c{, membermask}
  const uint32_t active = activeMask(warp);
  eachThread(warp, [&](Thread &th) {
    uint32_t lane = th.lane, b = src(ri, th, a + 1) & 31, c = static_cast<uint32_t>(src(ri, th, a + 2));
    uint32_t cval = c & 31, seg = (c >> 8) & 31;
    int maxLane = int((lane & seg) | (cval & ~seg)), minLane = int(lane & seg), j;
    bool p;
    switch (mode) {
    case Mod::Up: j = int(lane) - int(b), p = j >= maxLane; break;
    case Mod::Down: j = int(lane + b), p = j <= maxLane; break;
    case Mod::Bfly: j = int(lane ^ b), p = j <= maxLane; break;
    default: j = minLane | int(b & ~seg), p = j <= maxLane; break;
    }
    if (!p) j = int(lane);
    if (j < 0 || j > 31 || !((active >> j) & 1))
      expect(ri, th, d[0], dontCare());
    else
      expect(ri, th, d[0], exact(src(ri, warp[unsigned(j)], a) & 0xFFFFFFFF));
    if (d.size() > 1) expect(ri, th, d[1], exact(p));
  });
  return true;
}

bool vote(const Instr &ri, std::vector<Thread> &warp) {
  const uint32_t active = activeMask(warp);
  uint32_t yes = 0;
  for (const Thread &t : warp)
    if (t.active && (src(ri, t, 1) & 1)) yes |= 1u << t.lane;
  Mod mode = ri.first(ptx::ModKind::Op);
  const bool uni = ri.has(Mod::Uni);
  eachThread(warp, [&](Thread &th) {
    uint64_t r;
    if (mode == Mod::Ballot)
      r = yes;
    else if (mode == Mod::All)
      r = yes == active;
    else if (mode == Mod::Any)
      r = yes != 0;
    else
      r = uni && (yes == 0 || yes == active);
    expectD(ri, th, exact(r));
  });
  return true;
}

bool match(const Instr &ri, std::vector<Thread> &warp) {
  const uint32_t active = activeMask(warp);
  const unsigned bits = typeBits(ri.lastType());
  const bool all = ri.first(ptx::ModKind::Op) == Mod::All;
  const auto d = ri.slotsOf(0);
  eachThread(warp, [&](Thread &th) {
    uint64_t v = src(ri, th, 1) & widthMask(bits);
    uint32_t same = 0;
    for (const Thread &o : warp)
      if (o.active && (src(ri, o, 1) & widthMask(bits)) == v) same |= 1u << o.lane;
    if (all) {
      bool equal = same == active;
      expect(ri, th, d[0], exact(equal ? active : 0));
      if (d.size() > 1) expect(ri, th, d[1], exact(equal));
    } else {
      expect(ri, th, d[0], exact(same));
    }
  });
  return true;
}

bool redux(const Instr &ri, std::vector<Thread> &warp) {
  const Type t = ri.lastType();
  Mod op = ri.first(ptx::ModKind::Op);
  if (op == Mod::None) op = ri.first(ptx::ModKind::BoolOp);
  uint64_t r = 0;
  if (t == Type::F32) {
    const bool abs = ri.has(Mod::Abs), nanMode = ri.has(Mod::NaN), isMax = op == Mod::Max;
    bool have = false, sawNaN = false;
    uint64_t best = 0;
    for (const Thread &th : warp) {
      if (!th.active) continue;
      uint64_t v = src(ri, th, 1) & 0xFFFFFFFF;
      if (isNaNEncoding(v, kF32)) {
        sawNaN = true;
        continue;
      }
      if (abs) v &= 0x7FFFFFFF;
      if (!have) {
        best = v, have = true;
        continue;
      }
      Quad x = decode(v, kF32), y = decode(best, kF32);
      // +0.0 > -0.0
      bool better = isMax ? (x > y || (x == y && !(v >> 31))) : (x < y || (x == y && (v >> 31)));
      if (better) best = v;
    }
    r = (!have || (nanMode && sawNaN)) ? 0x7FFFFFFF : best;
  } else {
    const bool sgn = t == Type::S32;
    bool first = true;
    for (const Thread &th : warp) {
      if (!th.active) continue;
      uint64_t v = src(ri, th, 1) & 0xFFFFFFFF;
      if (first) {
        r = v, first = false;
        continue;
      }
      int64_t sv = signExtend(v, 32), sr = signExtend(r, 32);
      switch (op) {
      case Mod::Add: r = (r + v) & 0xFFFFFFFF; break;
      case Mod::Min: r = sgn ? (sv < sr ? v : r) : (v < r ? v : r); break;
      case Mod::Max: r = sgn ? (sv > sr ? v : r) : (v > r ? v : r); break;
      case Mod::And: r &= v; break;
      case Mod::Or: r |= v; break;
      case Mod::Xor: r ^= v; break;
      default: break;
      }
    }
  }
  eachThread(warp, [&](Thread &th) { expectD(ri, th, exact(r)); });
  return true;
}

} // namespace

bool warpReference(const Instr &ri, std::vector<Thread> &warp) {
  switch (ri.opcode) {
  case Opcode::Shfl:
  case Opcode::ShflSync: return shfl(ri, warp);
  case Opcode::Vote:
  case Opcode::VoteSync: return vote(ri, warp);
  case Opcode::Match: return match(ri, warp);
  case Opcode::ReduxSync: return redux(ri, warp);
  case Opcode::Activemask: {
    uint32_t m = activeMask(warp);
    eachThread(warp, [&](Thread &th) { expectD(ri, th, exact(m)); });
    return true;
  }
  case Opcode::ElectSync: {
    const uint32_t active = activeMask(warp);
    unsigned leader = 0;
    while (!((active >> leader) & 1)) ++leader;
    const auto d = ri.slotsOf(0);
    eachThread(warp, [&](Thread &th) {
      if (ri.slots[d[0]].kind != Slot::Sink) expect(ri, th, d[0], exact(leader));
      expect(ri, th, d[1], exact(th.lane == leader));
    });
    return true;
  }
  default: return false;
  }
}

} // namespace ref
