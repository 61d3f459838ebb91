#include "emulator/RaceCheck.h"

#include <algorithm>

namespace emu {

SharedRaceChecker::SharedRaceChecker(uint32_t sharedBytes, uint32_t numWarps)
    : numWarps_(numWarps), clocks_(numWarps, std::vector<uint32_t>(numWarps, 0)),
      words_((sharedBytes + 3) / 4) {
  for (uint32_t w = 0; w < numWarps; ++w) clocks_[w][w] = 1;
}

std::optional<RaceReport> SharedRaceChecker::access(uint32_t warp, unsigned lane, uint32_t offset,
                                                    unsigned size, bool write, uint32_t pc) {
  std::optional<RaceReport> found;
  Access now{warp, clocks_[warp][warp], pc, static_cast<uint16_t>(lane), write};
  auto conflict = [&](const Access &other, uint32_t word) {
    if (found || ordered(other, warp)) return;
    if (!reported_.insert({pc, other.pc}).second) return;
    found = RaceReport{word * 4, warp, lane, pc, write, other.warp, other.lane, other.pc, other.write};
  };
  for (uint32_t word = offset / 4; word <= (offset + size - 1) / 4 && word < words_.size(); ++word) {
    Word &w = words_[word];
    conflict(w.lastWrite, word);
    if (write) {
      for (const Access &r : w.reads) conflict(r, word);
      w.lastWrite = now;
      w.reads.clear();
    } else {
      auto it = std::find_if(w.reads.begin(), w.reads.end(), [&](const Access &r) { return r.warp == warp; });
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

void SharedRaceChecker::acquire(uint32_t warp, const std::vector<uint32_t> &barrierClock) {
  for (uint32_t u = 0; u < numWarps_ && u < barrierClock.size(); ++u)
    clocks_[warp][u] = std::max(clocks_[warp][u], barrierClock[u]);
}

} // namespace emu
