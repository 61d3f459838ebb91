// --racecheck for shared memory: a happens-before checker over the warps of
// one CTA. Each warp carries a vector clock; a barrier orders the accesses
// of the warps that arrive at it before those of the warps that wait there
// (bar.arrive releases, bar.sync releases and acquires), which is exactly
// the producer/consumer order of warp-specialized code. Two accesses to the
// same shared word by different warps, at least one a write, with neither
// ordered before the other, are a race. Off unless requested: the CTA then
// holds no checker and pays nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
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

  /// Records an access of `size` bytes at `offset` by one lane; returns a
  /// race with an earlier access, reported once per pair of instructions.
  std::optional<RaceReport> access(uint32_t warp, unsigned lane, uint32_t offset, unsigned size, bool write,
                                   uint32_t pc);

  /// A warp arrives at a barrier generation: its clock so far joins what the
  /// barrier will publish; its own clock moves on.
  void arrive(uint32_t warp, std::vector<uint32_t> &barrierClock);
  /// A waiting warp leaves the barrier: it has seen everything published.
  void acquire(uint32_t warp, const std::vector<uint32_t> &barrierClock);
  uint32_t numWarps() const { return numWarps_; }

private:
  struct Access {
    uint32_t warp = UINT32_MAX, clock = 0, pc = 0;
    uint16_t lane = 0;
    bool write = false;
  };
  struct Word {
    Access lastWrite;
    std::vector<Access> reads; // since the last write, one per warp at most
  };
  bool ordered(const Access &earlier, uint32_t warp) const {
    return earlier.warp == warp || earlier.warp == UINT32_MAX || earlier.clock <= clocks_[warp][earlier.warp];
  }

  uint32_t numWarps_;
  std::vector<std::vector<uint32_t>> clocks_; // clocks_[w][u]: what w knows of u
  std::vector<Word> words_;
  std::set<std::pair<uint32_t, uint32_t>> reported_; // (pc, other pc)
};

} // namespace emu
