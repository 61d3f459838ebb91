// Launch statistics as an observer: divergent branches, barrier waits and
// memory accesses per space, counted per CTA and summed over the launch
// (LaunchConfig::statistics fills LaunchResult::stats with them).
#pragma once

#include "emulator/Observer.h"

#include <array>
#include <cstdint>
#include <mutex>

namespace emu {

/// What the CTAs of a launch did, summed.
struct CtaStats {
  uint64_t divergentBranches = 0;          // branches that split a warp
  std::array<uint64_t, 16> barrierWaits{}; // groups of a warp that waited, per named barrier
  // Thread accesses per emu::Space, after generic addresses are resolved
  // (each element of a vector access counts).
  std::array<uint64_t, 7> memoryOps{};

  CtaStats &operator+=(const CtaStats &o);
};

class StatisticsObserver final : public LaunchObserver {
public:
  /// `memory`: count memory accesses (CtaStats::memoryOps), which makes
  /// every access an event; otherwise they stay 0.
  explicit StatisticsObserver(bool memory = true) : memory_(memory) {}
  std::unique_ptr<CtaObserver> observeCta(Cta &cta) override;
  void launchFinished(LaunchResult &result) override;
  /// The sums so far (of the CTAs that finished).
  CtaStats totals() const;

private:
  class PerCta;
  bool memory_;
  mutable std::mutex mutex_;
  CtaStats totals_;
};

} // namespace emu
