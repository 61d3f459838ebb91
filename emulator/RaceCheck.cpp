#include "emulator/RaceCheck.h"

#include "emulator/Cta.h"
#include "emulator/Memory.h"

#include <algorithm>

namespace emu {

SharedRaceChecker::SharedRaceChecker(uint32_t sharedBytes, uint32_t numWarps)
    : numWarps_(numWarps), clocks_(numWarps, std::vector<uint32_t>(numWarps, 0)), laneSyncs_(numWarps),
      words_((sharedBytes + 3) / 4) {
  for (uint32_t w = 0; w < numWarps; ++w) clocks_[w][w] = 1;
}

bool SharedRaceChecker::ordered(const Access &earlier, uint32_t warp, unsigned lane,
                                uint32_t instance) const {
  if (earlier.warp == UINT32_MAX) return true;
  if (earlier.warp != warp) return earlier.clock <= clocks_[warp][earlier.warp];
  if (earlier.lane == lane || earlier.instance == instance) return true; // program order; one instruction
  const LaneSyncs &s = laneSyncs_[warp];
  return s.last[earlier.lane] > earlier.syncs && s.last[lane] > earlier.syncs;
}

std::optional<RaceReport> SharedRaceChecker::access(const Touch &t) {
  std::optional<RaceReport> found;
  const uint32_t instance = static_cast<uint32_t>(t.instance);
  Access now{t.warp,
             clocks_[t.warp][t.warp],
             t.pc,
             laneSyncs_[t.warp].count,
             instance,
             static_cast<uint16_t>(t.lane),
             t.write || t.atomic,
             t.atomic};
  auto conflict = [&](const Access &other, uint32_t word) {
    if (found || (t.atomic && other.atomic) || ordered(other, t.warp, t.lane, instance)) return;
    if (!reported_.insert({t.pc, other.pc}).second) return;
    found =
        RaceReport{word * 4, t.warp, t.lane, t.pc, now.write, other.warp, other.lane, other.pc, other.write};
  };
  for (uint32_t word = t.offset / 4; word <= (t.offset + t.size - 1) / 4 && word < words_.size(); ++word) {
    Word &w = words_[word];
    conflict(w.lastWrite, word);
    if (now.write) {
      for (const Access &r : w.reads) conflict(r, word);
      w.lastWrite = now;
      w.reads.clear();
    } else {
      auto it = std::find_if(w.reads.begin(), w.reads.end(),
                             [&](const Access &r) { return r.warp == t.warp && r.lane == t.lane; });
      if (it == w.reads.end())
        w.reads.push_back(now);
      else
        *it = now;
    }
  }
  return found;
}

void SharedRaceChecker::arrive(uint32_t warp, std::vector<uint32_t> &barrierClock) {
  barrierClock.resize(numWarps_, 0);
  for (uint32_t u = 0; u < numWarps_; ++u) barrierClock[u] = std::max(barrierClock[u], clocks_[warp][u]);
  ++clocks_[warp][warp];
}

void SharedRaceChecker::acquire(uint32_t warp, uint32_t lanes, const std::vector<uint32_t> &barrierClock) {
  for (uint32_t u = 0; u < numWarps_ && u < barrierClock.size(); ++u)
    clocks_[warp][u] = std::max(clocks_[warp][u], barrierClock[u]);
  warpSync(warp, lanes);
}

void SharedRaceChecker::mbarrierRelease(uint32_t warp, unsigned lane, uint64_t mbarrier) {
  Mbarrier &m = mbarriers_[mbarrier];
  m.arrivedLanes.resize(numWarps_, 0);
  m.arrivedLanes[warp] |= 1u << lane;
  arrive(warp, m.clock);
}

void SharedRaceChecker::mbarrierAcquire(uint32_t warp, unsigned lane, uint64_t mbarrier) {
  auto it = mbarriers_.find(mbarrier);
  if (it == mbarriers_.end()) return;
  const Mbarrier &m = it->second;
  for (uint32_t u = 0; u < numWarps_ && u < m.clock.size(); ++u)
    clocks_[warp][u] = std::max(clocks_[warp][u], m.clock[u]);
  if (uint32_t arrived = m.arrivedLanes[warp]) warpSync(warp, arrived | 1u << lane);
}

void SharedRaceChecker::warpSync(uint32_t warp, uint32_t lanes) {
  LaneSyncs &s = laneSyncs_[warp];
  ++s.count;
  for (unsigned l = 0; l < 32; ++l)
    if (lanes >> l & 1) s.last[l] = s.count;
}

namespace {

/// One CTA's checker, fed by its events. Barriers publish and acquire vector
/// clocks: what the warps that arrive at a generation did is seen by the
/// lanes that leave it.
class PerCta final : public CtaObserver {
public:
  explicit PerCta(Cta &cta)
      : cta_(cta),
        checker_(static_cast<uint32_t>(cta.shared.size()), static_cast<uint32_t>(cta.warps.size())) {}

  unsigned interests() const override { return kMemory; }

  void memoryAccess(const MemoryAccess &a) override {
    if (a.space != Space::Shared || a.distributed) return; // other CTAs' shared memory is not checked
    auto race = checker_.access(
        {a.warp, a.lane, static_cast<uint32_t>(a.address), a.size, a.write, a.atomic, a.pc, a.instance});
    if (race) report(*race);
  }
  void barrierArrived(const BarrierEvent &e) override { checker_.arrive(e.warp, open_[slot(e.id)]); }
  void barrierCompleted(int32_t id, uint32_t) override {
    published_[slot(id)] = std::move(open_[slot(id)]);
    open_[slot(id)].clear();
  }
  void barrierResumed(const BarrierEvent &e) override {
    checker_.acquire(e.warp, e.lanes, published_[slot(e.id)]);
  }
  void warpSynced(uint32_t warp, uint32_t lanes, uint32_t) override { checker_.warpSync(warp, lanes); }
  void mbarrierReleased(uint32_t warp, unsigned lane, uint64_t mbarrier, uint32_t) override {
    checker_.mbarrierRelease(warp, lane, mbarrier);
  }
  void mbarrierAcquired(uint32_t warp, unsigned lane, uint64_t mbarrier, uint32_t) override {
    checker_.mbarrierAcquire(warp, lane, mbarrier);
  }

private:
  static size_t slot(int32_t id) { return static_cast<size_t>(id) < 16 ? static_cast<size_t>(id) : 16; }

  void report(const RaceReport &race) {
    const Kernel &k = cta_.kernel;
    auto what = [](bool w) { return w ? "write" : "read"; };
    std::string msg =
        std::string("shared-memory race on byte ") + std::to_string(race.offset) + ": " + what(race.write) +
        " by warp " + std::to_string(race.warp) + " lane " + std::to_string(race.lane) + " (line " +
        std::to_string(k.line(race.pc)) + ") is not ordered with " + what(race.otherWrite) + " by warp " +
        std::to_string(race.otherWarp) + " lane " + std::to_string(race.otherLane) + " (line " +
        std::to_string(k.line(race.otherPc)) + ") by any barrier" +
        (race.otherWarp == race.warp ? " or bar.warp.sync (lanes of a warp run independently on sm_70+)"
                                     : "");
    cta_.report(ptx::DiagKind::SharedRace, ptx::Severity::Error, race.pc, cta_.warps[race.warp],
                1u << race.lane, msg,
                {{"offset", std::to_string(race.offset)},
                 {"other_warp", std::to_string(race.otherWarp)},
                 {"other_lane", std::to_string(race.otherLane)},
                 {"other_line", std::to_string(k.line(race.otherPc))},
                 {"other_access", what(race.otherWrite)}});
  }

  Cta &cta_;
  SharedRaceChecker checker_;
  // Per named barrier (and [16]: the cluster barrier): the clock the open
  // generation will publish, and the one the last completed one published.
  std::array<std::vector<uint32_t>, 17> open_, published_;
};

} // namespace

std::unique_ptr<CtaObserver> RaceCheckObserver::observeCta(Cta &cta) { return std::make_unique<PerCta>(cta); }

} // namespace emu
