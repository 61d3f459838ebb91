// Which loads of shared memory no write can run beside. Barriers that every
// thread of the CTA takes part in (bar.sync/barrier.sync/bar.red without a
// thread count) cut a kernel into phases: the code a thread can run from
// the kernel's entry or from one such barrier up to the next. When every
// thread meets the barriers at the same instructions (their control is
// CTA-uniform, which the divergence solver decides), threads run the same
// phase between two barrier completions; a load in phases without any write
// of shared memory then reads, in every thread, what the memory held when
// the phase began: `if (tid == 0) s = x; __syncthreads(); use(s)`.
#pragma once

#include "analysis/Cfg.h"
#include "ptx/IR.h"

#include <vector>

namespace analysis {

class BarrierPhases {
public:
  BarrierPhases(const ptx::Module &m, const Cfg &cfg);

  /// False when the function writes shared memory asynchronously (cp.async,
  /// bulk copies, st.async, tcgen05), whose writes land in later phases, or
  /// writes the shared memory of other CTAs of its cluster (shared::cluster,
  /// mapa), which run phases of their own: no load is quiet then.
  bool usable() const { return usable_; }
  /// Whether no phase instruction `instr` can run in writes shared memory
  /// (stores, atomics, mbarrier operations, generic writes, calls).
  bool quiet(uint32_t instr) const { return usable_ && quiet_[instr] != 0; }
  /// The instructions that the phases' alignment depends on: the barriers
  /// that cut phases, and calls (which may hold barriers).
  const std::vector<uint32_t> &synchronizing() const { return synchronizing_; }
  /// Whether instruction `instr` is a barrier that cuts phases.
  bool cuts(uint32_t instr) const { return cuts_[instr] != 0; }

  /// More than this many (phase start, instruction) steps and nothing is
  /// quiet: a bound on the cost of many barriers in a long function.
  static constexpr size_t kMaxSteps = size_t{1} << 22;

private:
  bool usable_ = false;
  std::vector<char> quiet_, cuts_;
  std::vector<uint32_t> synchronizing_;
};

} // namespace analysis
