#include "emulator/UniformityRecorder.h"

#include "emulator/Cta.h"

namespace emu {

UniformityRecorder::UniformityRecorder(const Kernel &kernel,
                                       std::function<std::vector<uint32_t>(uint32_t)> defs)
    : kernel_(kernel) {
  size_t n = kernel.code.size();
  slotBegin_.resize(n);
  slotEnd_.resize(n);
  for (uint32_t pc = 0; pc < n; ++pc) {
    slotBegin_[pc] = static_cast<uint32_t>(slotRegister_.size());
    for (uint32_t r : defs(pc)) slotRegister_.push_back(r);
    slotEnd_[pc] = static_cast<uint32_t>(slotRegister_.size());
  }
  slots_.resize(slotRegister_.size());
  branches_.resize(n);
}

const UniformityRecorder::Observation &UniformityRecorder::definition(uint32_t pc, unsigned k) const {
  return slots_[slotBegin_[pc] + k];
}

/// One CTA's observations, merged into the recorder when the CTA ends.
/// CTA-level uniformity is about each thread's k-th execution of an
/// instruction, so executions are counted per thread, not per warp issue
/// (the halves of a diverged warp issue an instruction separately).
class UniformityRecorder::PerCta : public CtaObserver {
public:
  PerCta(UniformityRecorder &r, const Cta &cta)
      : r_(r), threads_(static_cast<uint32_t>(cta.warps.size() * 32)), slots_(r.slots_.size()),
        branches_(r.branches_.size()), slotKth_(r.slots_.size()), branchKth_(r.branches_.size()) {}

  unsigned interests() const override { return kInstructions; }

  void instructionExecuted(const Warp &w, uint32_t pc, uint32_t active, uint32_t executed) override {
    const DInstr &in = r_.kernel_.code[pc];
    if (in.control == Control::Branch) {
      Observation &b = branches_[pc];
      b.executed = true;
      b.multiLane |= std::popcount(active) > 1;
      b.warpDivergent |= executed != 0 && executed != active;
      b.ctaDivergent |= b.warpDivergent;
      for (uint32_t m = active; m; m &= m - 1) {
        unsigned l = static_cast<unsigned>(std::countr_zero(m));
        compare(branchKth_[pc], w.index * 32 + l, (executed >> l) & 1, b);
      }
      return;
    }
    if (executed == 0) return;
    unsigned first = static_cast<unsigned>(std::countr_zero(executed));
    for (uint32_t s = r_.slotBegin_[pc]; s < r_.slotEnd_[pc]; ++s) {
      const uint64_t *v = &w.regs[uint64_t{r_.slotRegister_[s]} * 32];
      Observation &o = slots_[s];
      o.executed = true;
      o.multiLane |= std::popcount(executed) > 1;
      for (uint32_t m = executed; m; m &= m - 1) {
        unsigned l = static_cast<unsigned>(std::countr_zero(m));
        o.warpDivergent |= v[l] != v[first];
        compare(slotKth_[s], w.index * 32 + l, v[l], o);
      }
      o.ctaDivergent |= o.warpDivergent;
    }
  }

  void ctaFinished(const Cta &) override {
    std::lock_guard lock(r_.mutex_);
    auto merge = [](Observation &into, const Observation &o) {
      into.executed |= o.executed;
      into.multiLane |= o.multiLane;
      into.warpDivergent |= o.warpDivergent;
      into.ctaDivergent |= o.ctaDivergent;
    };
    for (size_t s = 0; s < slots_.size(); ++s) merge(r_.slots_[s], slots_[s]);
    for (size_t b = 0; b < branches_.size(); ++b) merge(r_.branches_[b], branches_[b]);
  }

private:
  /// Per instruction (or definition): how many times each thread executed
  /// it, and the value the first thread saw at its k-th execution.
  struct KthValues {
    std::vector<uint16_t> count; // per thread
    std::vector<uint64_t> value; // per k < kCompared
    std::vector<bool> seen;
  };
  void compare(KthValues &kv, uint32_t thread, uint64_t value, Observation &o) {
    if (kv.count.empty()) {
      kv.count.assign(threads_, 0);
      kv.value.assign(kCompared, 0);
      kv.seen.assign(kCompared, false);
    }
    uint16_t k = kv.count[thread];
    if (k >= kCompared) return;
    kv.count[thread] = static_cast<uint16_t>(k + 1);
    if (!kv.seen[k]) {
      kv.seen[k] = true;
      kv.value[k] = value;
    } else if (kv.value[k] != value) {
      o.ctaDivergent = true;
    }
  }

  UniformityRecorder &r_;
  uint32_t threads_;
  std::vector<Observation> slots_, branches_;
  std::vector<KthValues> slotKth_, branchKth_;
};

std::unique_ptr<CtaObserver> UniformityRecorder::observeCta(Cta &cta) {
  return std::make_unique<PerCta>(*this, cta);
}

} // namespace emu
