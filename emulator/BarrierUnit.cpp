// The named barriers' rules (DESIGN.md §4): counting by warps, explicit and
// implicit thread counts, bar.red, and the misuse reports (invalid operands,
// double arrive, count mismatch, mixed operations, divergent .aligned).
#include "emulator/BarrierUnit.h"

#include "emulator/Cta.h"

#include <bit>

namespace emu {
namespace {

BarrierEvent::Kind eventKind(NamedBarrier::Op op) {
  switch (op) {
  case NamedBarrier::Op::Arrive: return BarrierEvent::Kind::Arrive;
  case NamedBarrier::Op::Red: return BarrierEvent::Kind::Red;
  default: return BarrierEvent::Kind::Sync;
  }
}

const char *opName(NamedBarrier::Op op) {
  switch (op) {
  case NamedBarrier::Op::Arrive: return "arrive";
  case NamedBarrier::Op::Red: return "red";
  default: return "sync";
  }
}

/// The barrier state of the last CTA this host thread finished, all fresh.
thread_local std::unique_ptr<std::array<NamedBarrier, 16>> spareBarriers;

} // namespace

BarrierUnit::~BarrierUnit() {
  if (!barriers_ || spareBarriers) return;
  for (uint32_t t = touched_; t; t &= t - 1) (*barriers_)[std::countr_zero(t)] = NamedBarrier{};
  spareBarriers = std::move(barriers_);
}

NamedBarrier &BarrierUnit::at(uint32_t id) {
  if (!barriers_) barriers_ = spareBarriers ? std::move(spareBarriers) : std::make_unique<Barriers>();
  touched_ |= 1u << id;
  return (*barriers_)[id];
}

const NamedBarrier &BarrierUnit::barrier(uint32_t id) const {
  static const NamedBarrier kFresh{};
  return barriers_ ? (*barriers_)[id] : kFresh;
}

uint32_t BarrierUnit::expectedAll() const {
  uint32_t live = 0;
  for (const Warp &w : cta_.warps)
    if (w.state != Warp::State::Done) ++live;
  return live * 32;
}

BarrierUnit::Outcome BarrierUnit::execute(const BarrierOp &op) {
  Warp &w = cta_.warps[op.warp];
  const uint32_t mask = op.lanes, pc = op.pc;
  const uint64_t id = op.id, count = op.count;
  auto reject = [&](ptx::DiagKind kind, std::string message,
                    std::vector<std::pair<std::string, std::string>> fields) {
    cta_.report(kind, ptx::Severity::Error, pc, w, mask, std::move(message), std::move(fields));
    return Outcome::Rejected;
  };
  if (id >= 16)
    return reject(ptx::DiagKind::BarrierInvalidOperand,
                  "barrier id " + std::to_string(id) + " is out of range 0..15",
                  {{"barrier", std::to_string(id)}});
  if (op.hasCount && (count == 0 || count % 32 != 0))
    return reject(ptx::DiagKind::BarrierInvalidOperand,
                  "barrier thread count " + std::to_string(count) + " is not a positive multiple of 32",
                  {{"barrier", std::to_string(id)}, {"count", std::to_string(count)}});
  const uint32_t live = w.valid & ~w.exited;
  if (op.aligned && mask != live)
    cta_.report(ptx::DiagKind::DivergentBarrier, ptx::Severity::Warning, pc, w, mask,
                std::string("barrier.") + opName(op.kind) + " on barrier " + std::to_string(id) +
                    " is .aligned but only lanes " + laneList(mask) + " of the warp reached it",
                {{"barrier", std::to_string(id)}});
  NamedBarrier &b = at(static_cast<uint32_t>(id));
  const uint64_t bit = uint64_t{1} << (w.index % 64);
  const unsigned slot = w.index % 64;
  // Two bar.arrive on one barrier with no barrier operation of the warp in
  // between: whether both count in one generation depends on timing (on
  // hardware it hangs when the waiting warp is late). Reported whatever
  // this run's timing was (DESIGN.md §4).
  const bool isArrive = op.kind == NamedBarrier::Op::Arrive;
  bool twice = isArrive && w.lastBarrierWasArrive && w.lastBarrier == static_cast<int32_t>(id);
  w.lastBarrier = static_cast<int32_t>(id);
  w.lastBarrierWasArrive = isArrive;
  if (twice)
    return reject(ptx::DiagKind::BarrierDoubleArrive,
                  "warp " + std::to_string(w.index) + " arrives twice at barrier " + std::to_string(id) +
                      " with no barrier operation in between: both arrivals may count in one generation",
                  {{"barrier", std::to_string(id)}, {"generation", std::to_string(b.generation)}});
  bool newWarp = b.expected == 0 || !(b.arrivedWarps & bit);
  if (b.expected != 0 && newWarp) {
    uint32_t want = op.hasCount ? static_cast<uint32_t>(count) : expectedAll();
    if (op.hasCount != b.countGiven || (op.hasCount && want != b.expected))
      return reject(ptx::DiagKind::BarrierCountMismatch,
                    "barrier " + std::to_string(id) + ": this warp expects " +
                        (op.hasCount ? std::to_string(want) : std::string("all")) +
                        " threads, others of generation " + std::to_string(b.generation) + " expect " +
                        std::to_string(b.expected),
                    {{"barrier", std::to_string(id)}});
    if ((b.op == NamedBarrier::Op::Red) != (op.kind == NamedBarrier::Op::Red))
      return reject(ptx::DiagKind::BarrierMixedOps,
                    "barrier " + std::to_string(id) +
                        " mixes bar.red with bar.sync/bar.arrive in one generation",
                    {{"barrier", std::to_string(id)}});
  } else if (b.expected == 0) {
    b.expected = op.hasCount ? static_cast<uint32_t>(count) : expectedAll();
    started_ |= 1u << id;
    b.countGiven = op.hasCount;
    b.op = op.kind;
  }
  if (op.kind == NamedBarrier::Op::Red) {
    const uint32_t yes = op.redTrue & mask;
    b.popc += static_cast<uint32_t>(std::popcount(yes));
    b.andAll &= yes == mask;
    b.orAny |= yes != 0;
    b.redOp = op.redOp;
    b.redDests.emplace_back(w.index, op.redDest);
  }
  const BarrierEvent event{w.index, mask, static_cast<int32_t>(id), b.generation, pc, eventKind(op.kind)};
  if (cta_.events) cta_.events->barrierArrived(event);
  // Counting, as the hardware does: a warp's arrival counts 32 threads
  // whatever its size. An .aligned barrier counts the warp when its first
  // group arrives (later groups of that warp join it); a non-aligned one
  // once all its non-exited lanes have arrived. The same lanes arriving
  // again in one generation count again.
  b.arrivedWarps |= bit;
  if (b.arrivedLanes[slot] & mask) {
    b.arrivedLanes[slot] = mask;
    b.arrived += 32;
  } else {
    b.arrivedLanes[slot] |= mask;
    bool complete = op.aligned || (b.arrivedLanes[slot] & live) == live;
    if (complete && !(b.countedWarps & bit)) {
      b.countedWarps |= bit;
      b.arrived += 32;
    }
  }
  const uint32_t generation = b.generation;
  if (!isArrive) {
    if (cta_.events) cta_.events->barrierWaiting(event);
    cta_.park(w, static_cast<uint32_t>(id), generation, pc);
  }
  tryComplete(static_cast<uint32_t>(id));
  return !isArrive && (*barriers_)[id].generation == generation ? Outcome::Waiting : Outcome::Proceed;
}

void BarrierUnit::recountAfterExit(const Warp &w) {
  uint64_t bit = uint64_t{1} << (w.index % 64);
  uint32_t live = w.valid & ~w.exited;
  for (uint32_t started = started_; started; started &= started - 1) {
    const uint32_t id = static_cast<uint32_t>(std::countr_zero(started));
    NamedBarrier &b = (*barriers_)[id];
    if (!b.expected) continue;
    // Waiting on every thread: this warp's exited lanes no longer count.
    if (!b.countGiven) b.expected = expectedAll();
    // A non-aligned arrival waiting for lanes that have now exited.
    if ((b.arrivedWarps & bit) && !(b.countedWarps & bit) && (b.arrivedLanes[w.index % 64] & live) == live) {
      b.countedWarps |= bit;
      b.arrived += 32;
    }
    tryComplete(id);
  }
}

void BarrierUnit::tryComplete(uint32_t id) {
  NamedBarrier &b = (*barriers_)[id]; // called for barriers in use only
  if (b.expected == 0 || b.arrived < b.expected) return;
  release(id);
}

void BarrierUnit::release(uint32_t id) {
  NamedBarrier &b = (*barriers_)[id];
  uint64_t result = b.redOp == ptx::Mod::Popc ? b.popc : b.redOp == ptx::Mod::And ? b.andAll : b.orAny;
  for (const auto &[warp, reg] : b.redDests) {
    Warp &w = cta_.warps[warp];
    for (uint32_t m = b.arrivedLanes[warp % 64]; m; m &= m - 1)
      w.regs[reg * 32 + static_cast<unsigned>(std::countr_zero(m))] = result;
  }
  if (cta_.events) cta_.events->barrierCompleted(static_cast<int32_t>(id), b.generation);
  for (Warp &w : cta_.warps) cta_.unpark(w, static_cast<int32_t>(id), b.generation);
  uint32_t generation = b.generation + 1;
  b = NamedBarrier{};
  b.generation = generation;
  started_ &= ~(1u << id);
}

} // namespace emu
