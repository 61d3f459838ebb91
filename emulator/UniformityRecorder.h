// Records what execution shows about uniformity: for each register an
// instruction writes, whether the lanes of a warp that executed it together
// ever wrote different values, and whether two threads of a CTA ever wrote
// different values at their k-th execution of it; for each branch, whether
// it ever split a warp, or threads of a CTA went different ways at their
// k-th execution. The divergence analysis is checked against these
// observations: a value it calls uniform must never be seen to differ.
#pragma once

#include "emulator/Kernel.h"
#include "emulator/Observer.h"

#include <functional>
#include <mutex>
#include <vector>

namespace emu {

class UniformityRecorder : public LaunchObserver {
public:
  struct Observation {
    bool executed = false;
    bool warpDivergent = false; // lanes of one warp differed
    bool ctaDivergent = false;  // lanes or warps of one CTA differed
    /// Ever executed by two or more lanes of a warp together. A value only
    /// ever computed by one lane at a time is warp-uniform vacuously: no
    /// analysis can prove that without knowing the inputs (a slow path taken
    /// by one lane, a kernel launched for n = 1 threads).
    bool multiLane = false;
  };

  /// `defs(pc)` lists the registers instruction `pc` of `kernel` defines,
  /// in the order the caller's analysis numbers them.
  UniformityRecorder(const Kernel &kernel, std::function<std::vector<uint32_t>(uint32_t pc)> defs);

  std::unique_ptr<CtaObserver> observeCta(Cta &cta) override;

  /// Definition `k` of instruction `pc` (as numbered by `defs`).
  const Observation &definition(uint32_t pc, unsigned k) const;
  unsigned numDefinitions(uint32_t pc) const { return slotEnd_[pc] - slotBegin_[pc]; }
  /// A conditional branch at `pc`: warpDivergent when it ever split a warp,
  /// ctaDivergent when warps of a CTA ever went different ways.
  const Observation &branch(uint32_t pc) const { return branches_[pc]; }

  /// Executions per thread of one instruction that are compared across the
  /// CTA (the first kCompared).
  static constexpr size_t kCompared = 64;

private:
  class PerCta;
  const Kernel &kernel_;
  std::vector<uint32_t> slotBegin_, slotEnd_; // per pc: its definitions' slots
  std::vector<uint32_t> slotRegister_;        // per slot
  std::vector<Observation> slots_;
  std::vector<Observation> branches_;
  std::mutex mutex_;
};

} // namespace emu
