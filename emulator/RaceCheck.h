// --racecheck for shared memory: a happens-before checker over the threads
// of one CTA. Each warp carries a vector clock; a barrier orders the accesses
// of the warps that arrive at it before those of the warps that wait there
// (bar.arrive releases, bar.sync releases and acquires), which is exactly
// the producer/consumer order of warp-specialized code. Lanes of one warp
// run independently on sm_70+ (independent thread scheduling), so two lanes
// of a warp are ordered only by a barrier or a bar.warp.sync (__syncwarp)
// that both took part in after the first access, not by running in lockstep.
// Two accesses to the same shared word by different threads, at least one a
// write and not both atomic, with neither ordered before the other, are a
// race. It is an observer of the CTA's events (RaceCheckObserver): off
// unless requested, when the CTA holds no checker and pays nothing.
#pragma once

#include "emulator/Observer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace emu {

struct RaceReport {
  uint32_t offset;         // shared byte offset of the word
  uint32_t warp, lane, pc; // this access
  bool write;
  uint32_t otherWarp, otherLane, otherPc; // the earlier, unordered access
  bool otherWrite;
};

class SharedRaceChecker {
public:
  SharedRaceChecker(uint32_t sharedBytes, uint32_t numWarps);

  /// One lane's access to the shared word(s) of [offset, offset+size).
  struct Touch {
    uint32_t warp;
    unsigned lane;
    uint32_t offset;
    unsigned size;
    bool write, atomic;
    uint32_t pc;
    uint64_t instance; // the warp's dynamic instruction count: lanes of one instruction are simultaneous
  };
  /// Records an access; returns a race with an earlier access, reported
  /// once per pair of instructions.
  std::optional<RaceReport> access(const Touch &t);

  /// A warp arrives at a barrier generation: its clock so far joins what the
  /// barrier will publish; its own clock moves on.
  void arrive(uint32_t warp, std::vector<uint32_t> &barrierClock);
  /// The lanes `lanes` of a waiting warp leave the barrier: they have seen
  /// everything published, and each other's accesses before it.
  void acquire(uint32_t warp, uint32_t lanes, const std::vector<uint32_t> &barrierClock);
  /// The lanes `lanes` of `warp` executed bar.warp.sync together.
  void warpSync(uint32_t warp, uint32_t lanes);
  /// A lane arrives at (or completes transaction bytes on) the mbarrier
  /// `mbarrier` (any key naming it): what its warp did so far is published.
  void mbarrierRelease(uint32_t warp, unsigned lane, uint64_t mbarrier);
  /// A lane's wait saw a phase of the mbarrier complete: it has seen what
  /// was published there, and the accesses of the lanes of its own warp
  /// that arrived.
  void mbarrierAcquire(uint32_t warp, unsigned lane, uint64_t mbarrier);
  uint32_t numWarps() const { return numWarps_; }

private:
  struct Access {
    uint32_t warp = UINT32_MAX, clock = 0, pc = 0;
    uint32_t syncs = 0;    // the warp's bar.warp.sync count at the access
    uint32_t instance = 0; // low bits of the warp's dynamic instruction count
    uint16_t lane = 0;
    bool write = false, atomic = false;
  };
  struct Word {
    Access lastWrite;
    std::vector<Access> reads; // since the last write, one per thread at most
  };
  /// What a warp knows of its own lanes: how many bar.warp.sync it has
  /// executed, and per lane the latest one that lane took part in.
  struct LaneSyncs {
    uint32_t count = 0;
    std::array<uint32_t, 32> last{};
  };
  bool ordered(const Access &earlier, uint32_t warp, unsigned lane, uint32_t instance) const;
  struct Mbarrier {
    std::vector<uint32_t> clock;
    std::vector<uint32_t> arrivedLanes; // per warp
  };

  uint32_t numWarps_;
  std::vector<std::vector<uint32_t>> clocks_; // clocks_[w][u]: what w knows of u
  std::vector<LaneSyncs> laneSyncs_;
  std::vector<Word> words_;
  std::unordered_map<uint64_t, Mbarrier> mbarriers_;
  std::set<std::pair<uint32_t, uint32_t>> reported_; // (pc, other pc)
};

/// --racecheck as an observer: shared-memory accesses, barriers, warp syncs
/// and mbarrier operations of each CTA go to a SharedRaceChecker; races are
/// reported as `shared-race` errors (which do not stop the kernel).
class RaceCheckObserver final : public LaunchObserver {
public:
  std::unique_ptr<CtaObserver> observeCta(Cta &cta) override;
};

} // namespace emu
