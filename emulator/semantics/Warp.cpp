// Warp-level primitives: shfl (with and without .sync), vote, match, redux,
// activemask, bar.warp.sync, elect. The lanes of one warp execute together in
// this emulator, so the .sync forms need no waiting: the lanes named by the
// member mask must be the ones that reached the instruction. When a member
// mask names a live lane that is not here (divergence), hardware (sm_70+)
// would wait for it; the emulator cannot, so it reports warp-sync-mismatch
// rather than compute a different answer.
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

const DOp &opnd(const Exec &x, const DInstr &in, unsigned i) { return x.kernel().op(in, i); }

bool predicate(Exec &x, const DOp &p, unsigned lane) { return (readOperand(x, p, lane) & 1) != p.negated; }

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

/// The member mask every executing lane gives, checked. Lanes active at this
/// instruction are those of the SIMT entry (guard ignored); a member mask
/// naming a live lane outside them, or an executing lane missing from its own
/// member mask (undefined in the PTX ISA), is reported. Returns false after a
/// report; `members[l]` then holds lane l's mask.
bool memberMasks(Exec &x, const DInstr &in, const DOp &maskOp, uint32_t (&members)[32]) {
  uint32_t live = x.warp.valid & ~x.warp.exited;
  uint32_t active = x.warp.stack.empty() ? x.mask : (x.warp.stack.back().mask & live);
  uint32_t missing = 0, outside = 0, first = 0;
  bool firstSet = false;
  forLanes(x.mask, [&](unsigned l) {
    uint32_t m = static_cast<uint32_t>(readOperand(x, maskOp, l));
    members[l] = m;
    if (!firstSet) first = m, firstSet = true;
    missing |= m & live & ~active;
    if (!(m >> l & 1)) outside |= 1u << l;
  });
  std::string name = ptx::instructionName(*x.kernel().module, x.kernel().instr(in));
  if (missing) {
    x.cta.report(ptx::DiagKind::WarpSyncMismatch, ptx::Severity::Error, x.pc, x.warp, x.mask,
                 "'" + name + "' with member mask " + hex32(first) + " names lanes " + hex32(missing) +
                     " that did not reach it (they are neither here nor exited)",
                 {{"membermask", hex32(first)}, {"missing", hex32(missing)}});
    return false;
  }
  if (outside) {
    x.cta.report(ptx::DiagKind::WarpSyncMismatch, ptx::Severity::Error, x.pc, x.warp, outside,
                 "'" + name + "' executed by lanes " + hex32(outside) +
                     " that are not in their member mask " + hex32(first) + " (undefined in the PTX ISA)",
                 {{"membermask", hex32(first)}});
    return false;
  }
  return true;
}

// ---- shfl -------------------------------------------------------------------------
// PTX ISA, shfl.sync: c[4:0] is the clamp value, c[12:8] the segment mask;
// maxLane = (lane & segmask) | (clamp & ~segmask), minLane = lane & segmask.
// An out-of-range source lane copies the lane's own a, and p says whether the
// source was in range. Reading a lane that does not execute the shuffle is
// undefined in the ISA; the emulator gives that lane's register as it is.

template <Mod Mode> bool shflSource(unsigned lane, uint32_t b, uint32_t c, unsigned &j) {
  uint32_t bval = b & 31, cval = c & 31, seg = (c >> 8) & 31;
  int maxLane = static_cast<int>((lane & seg) | (cval & ~seg)), minLane = static_cast<int>(lane & seg);
  int src;
  bool in;
  if constexpr (Mode == Mod::Up) {
    src = static_cast<int>(lane) - static_cast<int>(bval);
    in = src >= maxLane;
  } else if constexpr (Mode == Mod::Down) {
    src = static_cast<int>(lane + bval);
    in = src <= maxLane;
  } else if constexpr (Mode == Mod::Bfly) {
    src = static_cast<int>(lane ^ bval);
    in = src <= maxLane;
  } else {
    src = minLane | static_cast<int>(bval & ~seg);
    in = src <= maxLane;
  }
  j = in ? static_cast<unsigned>(src) : lane;
  return in;
}

/// shfl{.sync}.mode.b32 d{|p}, a, b, c{, membermask}.
template <Mod Mode, bool Sync> void shfl(Exec &x, const DInstr &in) {
  constexpr bool sync = Sync;
  bool pair = in.numOps == (sync ? 6 : 5);
  unsigned a = pair ? 2 : 1;
  if (sync) {
    uint32_t members[32];
    if (!memberMasks(x, in, opnd(x, in, a + 3), members)) return;
  }
  const DOp &d = opnd(x, in, 0), &src = opnd(x, in, a), &bOp = opnd(x, in, a + 1), &cOp = opnd(x, in, a + 2);
  // Every source first: d may be the same register as a.
  uint64_t values[32];
  for (unsigned l = 0; l < 32; ++l) values[l] = readOperand(x, src, l) & 0xFFFFFFFFu;
  forLanes(x.mask, [&](unsigned l) {
    unsigned j;
    bool inRange = shflSource<Mode>(l, static_cast<uint32_t>(readOperand(x, bOp, l)),
                                    static_cast<uint32_t>(readOperand(x, cOp, l)), j);
    writeOperand(x, d, l, values[j]);
    if (pair) writeOperand(x, opnd(x, in, 1), l, inRange ? 1 : 0);
  });
}

// ---- vote ---------------------------------------------------------------------------

/// vote{.sync}.mode.pred p, {!}q{, membermask} and vote{.sync}.ballot.b32 d, {!}q{, membermask}.
/// Only lanes that execute the vote (active, guard true) contribute.
void vote(Exec &x, const DInstr &in) {
  bool sync = in.numOps == 3;
  uint32_t members[32];
  if (sync && !memberMasks(x, in, opnd(x, in, 2), members)) return;
  const DOp &q = opnd(x, in, 1);
  uint32_t ballot = 0;
  forLanes(x.mask, [&](unsigned l) { ballot |= (predicate(x, q, l) ? 1u : 0u) << l; });
  Mod mode = in.op == Mod::None ? Mod::Uni : in.op; // .uni is not an operation selector
  forLanes(x.mask, [&](unsigned l) {
    uint32_t group = sync ? members[l] & x.mask : x.mask;
    uint32_t yes = ballot & group;
    uint64_t r;
    switch (mode) {
    case Mod::All: r = yes == group; break;
    case Mod::Any: r = yes != 0; break;
    case Mod::Ballot: r = yes; break;
    default: r = yes == 0 || yes == group; break; // .uni
    }
    writeOperand(x, opnd(x, in, 0), l, r);
  });
}

// ---- match ----------------------------------------------------------------------------

/// match.any.sync.T d, a, membermask; match.all.sync.T d{|p}, a, membermask.
template <typename T> void match(Exec &x, const DInstr &in) {
  bool pair = in.numOps == 4;
  unsigned a = pair ? 2 : 1;
  uint32_t members[32];
  if (!memberMasks(x, in, opnd(x, in, a + 1), members)) return;
  T values[32] = {};
  forLanes(x.mask, [&](unsigned l) { values[l] = static_cast<T>(readOperand(x, opnd(x, in, a), l)); });
  bool all = in.op == Mod::All;
  forLanes(x.mask, [&](unsigned l) {
    uint32_t group = members[l] & x.mask, same = 0;
    forLanes(group, [&](unsigned o) { same |= (values[o] == values[l] ? 1u : 0u) << o; });
    if (all) {
      bool equal = same == group;
      writeOperand(x, opnd(x, in, 0), l, equal ? group : 0);
      if (pair) writeOperand(x, opnd(x, in, 1), l, equal ? 1 : 0);
    } else {
      writeOperand(x, opnd(x, in, 0), l, same);
    }
  });
}

// ---- redux ----------------------------------------------------------------------------

template <typename T, Mod Op> T reduceStep(T acc, T v) {
  if constexpr (Op == Mod::Add)
    return static_cast<T>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(v));
  else if constexpr (Op == Mod::Min)
    return v < acc ? v : acc;
  else if constexpr (Op == Mod::Max)
    return v > acc ? v : acc;
  else if constexpr (Op == Mod::And)
    return acc & v;
  else if constexpr (Op == Mod::Or)
    return acc | v;
  else
    return acc ^ v;
}

/// redux.sync.op.T d, a, membermask: the reduction over the lanes of the
/// member mask that execute it; .add wraps at 32 bits.
template <typename T, Mod Op> void redux(Exec &x, const DInstr &in) {
  uint32_t members[32];
  if (!memberMasks(x, in, opnd(x, in, 2), members)) return;
  T values[32] = {};
  forLanes(x.mask, [&](unsigned l) { values[l] = as<T>(readOperand(x, opnd(x, in, 1), l)); });
  forLanes(x.mask, [&](unsigned l) {
    uint32_t group = members[l] & x.mask;
    T acc = values[l]; // every operation is commutative and associative
    forLanes(group & ~(1u << l), [&](unsigned o) { acc = reduceStep<T, Op>(acc, values[o]); });
    writeOperand(x, opnd(x, in, 0), l, bitsOf<T>(acc));
  });
}

// ---- activemask, bar.warp.sync, elect -------------------------------------------------

/// activemask.b32 d: the lanes executing it (exited, inactive and
/// predicated-off lanes give 0).
void activemask(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) { writeOperand(x, opnd(x, in, 0), l, x.mask); });
}

/// bar.warp.sync membermask: lanes of a warp run together here, so it only
/// checks that every live lane of the mask reached it.
void barWarpSync(Exec &x, const DInstr &in) {
  uint32_t members[32];
  if (memberMasks(x, in, opnd(x, in, 0), members) && x.cta.events)
    x.cta.events->warpSynced(x.warp.index, x.mask, x.pc);
}

/// elect.sync d|p, membermask: the leader is the lowest lane of the member
/// mask that executes the instruction; d = its lane id, p = (lane == leader).
/// The ISA only promises a deterministic choice; lowest lane is what the
/// brief of this emulator asks and what CUTLASS-style code assumes nothing
/// beyond.
void elect(Exec &x, const DInstr &in) {
  uint32_t members[32];
  if (!memberMasks(x, in, opnd(x, in, 2), members)) return;
  forLanes(x.mask, [&](unsigned l) {
    unsigned leader = static_cast<unsigned>(std::countr_zero(members[l] & x.mask));
    writeOperand(x, opnd(x, in, 0), l, leader);
    writeOperand(x, opnd(x, in, 1), l, l == leader ? 1 : 0);
  });
}

template <bool Sync> Handler shflFor(Mod mode) {
  switch (mode) {
  case Mod::Up: return shfl<Mod::Up, Sync>;
  case Mod::Down: return shfl<Mod::Down, Sync>;
  case Mod::Bfly: return shfl<Mod::Bfly, Sync>;
  case Mod::Idx: return shfl<Mod::Idx, Sync>;
  default: return nullptr;
  }
}

/// redux.sync.{min,max}{.abs}{.NaN}.f32 d, a, membermask (sm_100a): -0 is
/// below +0; without .NaN a NaN input is ignored (the result is NaN only
/// when every input is), with .NaN any NaN input gives the canonical NaN.
template <bool IsMax, bool Abs, bool NaNMode> void reduxFloat(Exec &x, const DInstr &in) {
  uint32_t members[32];
  if (!memberMasks(x, in, opnd(x, in, 2), members)) return;
  float values[32] = {};
  forLanes(x.mask, [&](unsigned l) {
    float v = as<float>(readOperand(x, opnd(x, in, 1), l));
    values[l] = Abs ? std::fabs(v) : v;
  });
  forLanes(x.mask, [&](unsigned l) {
    bool sawNaN = false, have = false;
    float acc = 0;
    forLanes(members[l] & x.mask, [&](unsigned o) {
      float v = values[o];
      if (v != v) {
        sawNaN = true;
        return;
      }
      if (!have) {
        acc = v, have = true;
        return;
      }
      bool better =
          IsMax ? (v > acc || (v == acc && !std::signbit(v))) : (v < acc || (v == acc && std::signbit(v)));
      if (better) acc = v;
    });
    uint64_t r = (!have || (NaNMode && sawNaN)) ? 0x7FFFFFFFu : bitsOf<float>(acc);
    writeOperand(x, opnd(x, in, 0), l, r);
  });
}

template <bool IsMax> Handler reduxFloatFor(const DInstr &in) {
  bool abs = in.mods & dmod::Abs, nan = in.mods & dmod::NaN;
  if (abs) return nan ? reduxFloat<IsMax, true, true> : reduxFloat<IsMax, true, false>;
  return nan ? reduxFloat<IsMax, false, true> : reduxFloat<IsMax, false, false>;
}

template <typename T> Handler reduxFor(Mod op) {
  switch (op) {
  case Mod::Add: return redux<T, Mod::Add>;
  case Mod::Min: return redux<T, Mod::Min>;
  case Mod::Max: return redux<T, Mod::Max>;
  case Mod::And: return redux<T, Mod::And>;
  case Mod::Or: return redux<T, Mod::Or>;
  case Mod::Xor: return redux<T, Mod::Xor>;
  default: return nullptr;
  }
}

Handler pickShfl(const DInstr &in) {
  if (in.type != Type::B32) return nullptr;
  return (in.mods & dmod::Sync) ? shflFor<true>(in.op) : shflFor<false>(in.op);
}
Handler pickShflSync(const DInstr &in) { return in.type == Type::B32 ? shflFor<true>(in.op) : nullptr; }
Handler pickMatch(const DInstr &in) {
  if (in.type == Type::B32) return match<uint32_t>;
  if (in.type == Type::B64) return match<uint64_t>;
  return nullptr;
}
Handler pickRedux(const DInstr &in) {
  if (in.type == Type::S32) return reduxFor<int32_t>(in.op);
  if (in.type == Type::U32 || in.type == Type::B32) return reduxFor<uint32_t>(in.op);
  if (in.type == Type::F32 && in.op == Mod::Min) return reduxFloatFor<false>(in);
  if (in.type == Type::F32 && in.op == Mod::Max) return reduxFloatFor<true>(in);
  return nullptr;
}

constexpr HandlerRow kRows[] = {
    row(Opcode::Shfl, tclass::All, pickShfl),
    row(Opcode::ShflSync, tclass::All, pickShflSync),
    row(Opcode::Vote, tclass::All, vote),
    row(Opcode::VoteSync, tclass::All, vote),
    row(Opcode::Match, tclass::All, pickMatch),
    row(Opcode::ReduxSync, tclass::All, pickRedux),
    row(Opcode::Activemask, tclass::All, activemask),
    row(Opcode::BarWarpSync, tclass::All, barWarpSync),
    row(Opcode::ElectSync, tclass::All, elect),
};

} // namespace

std::span<const HandlerRow> warpHandlers() { return kRows; }

} // namespace emu
