// Live intervals of a function's registers over its instructions in layout
// order: instruction i reads at position 2i and writes at 2i+1, so a value
// written by i and last read by j lives over [2i+1, 2j+1). An interval is a
// sorted list of such ranges (the holes are where the register holds nothing
// needed), with the register's width in 32-bit units and its spill weight.
#pragma once

#include "analysis/Loops.h"
#include "analysis/PassManager.h"
#include "ptx/IR.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace regalloc {

/// How often block `b` is taken to run: 10^(loop depth), at most 10^4 (an
/// unreachable block: 1).
double blockFrequency(const analysis::LoopForest &loops, uint32_t b);

struct LiveRange {
  uint32_t start, end; // [start, end)
};

/// How many 32-bit units of the register budget a register takes: 1 for 16-
/// and 32-bit registers, 2 for 64-bit (an aligned pair), 4 for 128-bit;
/// 0 for predicates and vector registers, which are not allocated.
unsigned unitsOf(const ptx::RegisterDecl &d);

struct LiveInterval {
  uint32_t reg = 0;
  uint8_t units = 0;
  std::vector<LiveRange> ranges; // sorted, disjoint, not adjacent
  /// Reads and writes, each weighted by 10^loop depth (at most 10^4).
  double spillCost = 0;
  bool unspillable = false;

  bool empty() const { return ranges.empty(); }
  uint32_t start() const { return ranges.front().start; }
  uint32_t end() const { return ranges.back().end; }
  bool covers(uint32_t position) const;
  /// The first position both cover, or UINT32_MAX.
  uint32_t firstIntersection(const LiveInterval &o) const;
  bool intersects(const LiveInterval &o) const { return firstIntersection(o) != UINT32_MAX; }
  /// The cost of spilling per position covered: the lower, the better to spill.
  double weight() const;
};

class LiveIntervals {
public:
  /// The intervals of every register of `fn` that units() allocates;
  /// `unspillable` (indexed by register, may be shorter) marks spill
  /// temporaries, `yielding` the pieces of spilled registers (SpillCode.h):
  /// a register there for the second time gives way to any register of
  /// the code, so its spill cost counts for 1/1024.
  LiveIntervals(const ptx::Function &fn, analysis::AnalysisManager &am, const std::vector<bool> &unspillable,
                const std::vector<bool> &yielding = {});

  std::span<const LiveInterval> intervals() const { return intervals_; }
  /// The interval of `reg`, or nullptr when it is not allocated.
  const LiveInterval *of(uint32_t reg) const {
    return reg < index_.size() && index_[reg] != UINT32_MAX ? &intervals_[index_[reg]] : nullptr;
  }
  /// The most units live at one position.
  unsigned maxPressure() const { return maxPressure_; }
  /// The most units live at one position when up to `cap` units of the
  /// registers `cheap` marks are held elsewhere (ptxas's uniform registers).
  unsigned maxPressureBeyond(const std::vector<bool> &cheap, unsigned cap) const;
  /// `%r3 [5,9) [12,20) units 1 cost 2`, one line per register.
  std::string print(const ptx::Module &m) const;

private:
  const ptx::Function *fn_;
  std::vector<LiveInterval> intervals_;
  std::vector<uint32_t> index_;
  unsigned maxPressure_ = 0;
};

} // namespace regalloc
