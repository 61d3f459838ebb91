// barrier.cluster: arrive counts the executing threads in the cluster's
// current phase; wait parks them until the phase they arrived in completes
// (every non-exited thread of every CTA of the cluster arrived). A CTA
// launched without a cluster is a cluster of one.
#include "emulator/Cta.h"

#include <bit>

namespace emu {

void Cluster::tryComplete() {
  uint64_t live = 0;
  for (const Cta *c : ctas) live += c->liveThreads();
  if (arrived == 0 || arrived < live) return;
  for (Cta *c : ctas) {
    if (c->events) c->events->barrierCompleted(kClusterBarrier, phase);
    for (Warp &w : c->warps) c->unpark(w, kClusterBarrier, phase);
  }
  ++phase;
  arrived = 0;
}

namespace {
/// The cluster of `cta`: a CTA launched without one is a cluster of one.
Cluster &clusterOf(Cta &cta, std::unique_ptr<Cluster> &solo) {
  if (!cta.cluster) {
    solo = std::make_unique<Cluster>();
    solo->ctas.push_back(&cta);
    cta.cluster = solo.get();
  }
  return *cta.cluster;
}
} // namespace

void Cta::clusterArrive(Warp &w, uint32_t lanes, uint32_t pc) {
  Cluster &cluster = clusterOf(*this, soloCluster_);
  // Observers see it as a barrier of this CTA (racecheck orders this CTA's
  // warps by it as by a named barrier).
  if (events)
    events->barrierArrived({w.index, lanes, kClusterBarrier, cluster.phase, pc, BarrierEvent::Kind::Cluster});
  w.clusterPhase = cluster.phase;
  cluster.arrived += static_cast<uint64_t>(std::popcount(lanes));
  cluster.tryComplete();
}

void Cta::clusterWait(Warp &w, uint32_t lanes, uint32_t pc) {
  Cluster &cluster = clusterOf(*this, soloCluster_);
  const BarrierEvent event{w.index, lanes, kClusterBarrier, w.clusterPhase, pc, BarrierEvent::Kind::Cluster};
  if (cluster.phase > w.clusterPhase) { // the phase it arrived in is complete
    if (events) events->barrierResumed(event);
    return;
  }
  if (events) events->barrierWaiting(event);
  park(w, static_cast<uint32_t>(kClusterBarrier), w.clusterPhase, pc);
}

} // namespace emu
