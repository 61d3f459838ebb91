// The deadlock report: when no warp of a CTA (or cluster) can run, the
// wait-for table of its warps — which barrier each waits at, its generation,
// arrivals so far and expected, and why the others are missing.
#include "emulator/Cta.h"

namespace emu {

void Cta::reportDeadlock() {
  // The wait-for table: every blocked warp, and why the others are missing.
  std::vector<std::pair<std::string, std::string>> fields;
  std::string table;
  for (const Warp &w : warps) {
    std::string row = "warp " + std::to_string(w.index) + " lanes " +
                      laneList(w.state == Warp::State::Done ? w.valid : w.valid & ~w.exited) + ": ";
    if (w.state == Warp::State::AtBarrier && w.barrier == static_cast<uint32_t>(kClusterBarrier)) {
      row += "waits at barrier.cluster (phase " + std::to_string(w.generation) + ") at line " +
             std::to_string(kernel.line(w.waitPc));
    } else if (w.state == Warp::State::AtBarrier) {
      const NamedBarrier &b = barriers.barrier(w.barrier);
      row += "waits at barrier " + std::to_string(w.barrier) + " (generation " +
             std::to_string(b.generation) + ", " + std::to_string(b.arrived) + " of " +
             std::to_string(b.expected) + " arrived) at line " + std::to_string(kernel.line(w.waitPc));
    } else if (w.state == Warp::State::Done) {
      row += "exited";
    } else {
      row += "running";
    }
    table += "\n    " + row;
    fields.emplace_back("warp" + std::to_string(w.index), row);
  }
  const Warp *first = nullptr;
  for (const Warp &w : warps)
    if (w.state == Warp::State::AtBarrier) {
      first = &w;
      break;
    }
  if (first->barrier == static_cast<uint32_t>(kClusterBarrier)) {
    uint64_t live = 0;
    for (const Cta *c : cluster->ctas) live += c->liveThreads();
    fields.insert(fields.begin(), {{"barrier", "cluster"},
                                   {"arrived", std::to_string(cluster->arrived)},
                                   {"expected", std::to_string(live)}});
    report(ptx::DiagKind::BarrierDeadlock, ptx::Severity::Error, first->waitPc, *first,
           first->valid & ~first->exited,
           "deadlock: no warp of the cluster can run; barrier.cluster has " +
               std::to_string(cluster->arrived) + " of " + std::to_string(live) + " threads (CTA rank " +
               std::to_string(clusterRank) + ")" + table,
           fields);
    return;
  }
  const NamedBarrier &b = barriers.barrier(first->barrier);
  fields.insert(fields.begin(), {{"barrier", std::to_string(first->barrier)},
                                 {"generation", std::to_string(b.generation)},
                                 {"arrived", std::to_string(b.arrived)},
                                 {"expected", std::to_string(b.expected)}});
  report(ptx::DiagKind::BarrierDeadlock, ptx::Severity::Error, first->waitPc, *first,
         first->valid & ~first->exited,
         "deadlock: no warp of the CTA can run; barrier " + std::to_string(first->barrier) + " has " +
             std::to_string(b.arrived) + " of " + std::to_string(b.expected) + " threads" + table,
         fields);
}

} // namespace emu
