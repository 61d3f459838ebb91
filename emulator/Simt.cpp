// The SIMT stack of a warp, shared by every engine: divergent branches split
// the running group into groups that run to the immediate post-dominator and
// reconverge there; exited lanes leave their groups; a group that waits at a
// barrier steps aside so that the other groups of its warp run meanwhile
// (sm_70+ independent thread scheduling).
#include "emulator/Cta.h"

#include <bit>

namespace emu {

void Cta::diverge(Warp &w, uint32_t pc, uint32_t target, uint32_t taken, uint32_t notTaken,
                  uint32_t reconverge) {
  w.stack.back().pc = reconverge;
  if (events) events->branchDiverged(w, pc, 2);
  // With a random schedule either side may run first.
  if (random_ && (nextRandom() & 1)) {
    w.stack.push_back({target, taken, reconverge});
    w.stack.push_back({pc + 1, notTaken, reconverge});
  } else {
    w.stack.push_back({pc + 1, notTaken, reconverge});
    w.stack.push_back({target, taken, reconverge});
  }
}

void Cta::divergeIndexed(Warp &w, uint32_t pc, const std::vector<std::pair<uint32_t, uint32_t>> &groups,
                         uint32_t inactive, uint32_t reconverge) {
  w.stack.back().pc = reconverge;
  if (events) events->branchDiverged(w, pc, static_cast<unsigned>(groups.size()) + (inactive ? 1 : 0));
  if (inactive) w.stack.push_back({pc + 1, inactive, reconverge});
  for (auto it = groups.rbegin(); it != groups.rend(); ++it)
    w.stack.push_back({it->first, it->second, reconverge});
}

void Cta::exitLanes(Warp &w, uint32_t lanes, uint32_t pc) {
  w.exited |= lanes;
  w.stack.back().pc = pc + 1;
  if ((w.valid & ~w.exited) == 0) {
    w.state = Warp::State::Done;
    w.stack.clear();
  }
  // Exited threads no longer count at the barriers.
  if (cluster) cluster->tryComplete();
  barriers.recountAfterExit(w);
}

void Cta::park(Warp &w, uint32_t id, uint32_t generation, uint32_t pc) {
  SimtEntry &top = w.stack.back();
  top.waitBarrier = static_cast<int32_t>(id);
  top.waitGeneration = generation;
  w.barrier = id;
  w.generation = generation;
  w.waitPc = pc;
  // Let the other side of a divergent branch run meanwhile (independent
  // thread scheduling): move the waiting group under its sibling.
  if (w.stack.size() >= 2) {
    SimtEntry &below = w.stack[w.stack.size() - 2];
    if (below.reconverge == top.reconverge && below.waitBarrier < 0 && (below.mask & ~w.exited))
      std::swap(top, below);
  }
  if (w.stack.back().waitBarrier >= 0) w.state = Warp::State::AtBarrier;
}

void Cta::unpark(Warp &w, int32_t id, uint32_t generation) {
  uint32_t waited = 0; // lanes
  for (SimtEntry &e : w.stack)
    if (e.waitBarrier == id && e.waitGeneration == generation) {
      e.waitBarrier = -1;
      waited |= e.mask;
    }
  if (waited && events)
    events->barrierResumed({w.index, waited, id, generation, w.waitPc,
                            id == kClusterBarrier ? BarrierEvent::Kind::Cluster : BarrierEvent::Kind::Sync});
  if (w.state == Warp::State::AtBarrier && (w.stack.empty() || w.stack.back().waitBarrier < 0))
    w.state = Warp::State::Ready;
}

} // namespace emu
