#include "emulator/Statistics.h"

#include "emulator/Device.h"

namespace emu {

CtaStats &CtaStats::operator+=(const CtaStats &o) {
  divergentBranches += o.divergentBranches;
  for (size_t b = 0; b < barrierWaits.size(); ++b) barrierWaits[b] += o.barrierWaits[b];
  for (size_t s = 0; s < memoryOps.size(); ++s) memoryOps[s] += o.memoryOps[s];
  return *this;
}

class StatisticsObserver::PerCta final : public CtaObserver {
public:
  explicit PerCta(StatisticsObserver &launch) : launch_(launch) {}
  unsigned interests() const override { return launch_.memory_ ? unsigned{kMemory} : 0u; }
  void memoryAccess(const MemoryAccess &a) override { ++stats_.memoryOps[static_cast<size_t>(a.space)]; }
  void branchDiverged(const Warp &, uint32_t, unsigned) override { ++stats_.divergentBranches; }
  void barrierWaiting(const BarrierEvent &e) override {
    if (e.id >= 0 && e.id < 16) ++stats_.barrierWaits[static_cast<size_t>(e.id)];
  }
  void ctaFinished(const Cta &) override {
    std::lock_guard lock(launch_.mutex_);
    launch_.totals_ += stats_;
  }

private:
  StatisticsObserver &launch_;
  CtaStats stats_;
};

std::unique_ptr<CtaObserver> StatisticsObserver::observeCta(Cta &) { return std::make_unique<PerCta>(*this); }

void StatisticsObserver::launchFinished(LaunchResult &result) { result.stats += totals(); }

CtaStats StatisticsObserver::totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

} // namespace emu
