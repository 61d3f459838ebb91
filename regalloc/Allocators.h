// The two allocators over live intervals: each places every interval at an
// aligned position of `units` 32-bit units within a budget of K units, or
// chooses registers to spill. Both spill whole registers; the caller
// rewrites them through short temporaries (unspillable intervals) and asks
// again until nothing spills.
#pragma once

#include "regalloc/LiveIntervals.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace regalloc {

enum class Allocator : uint8_t { LinearScan, GraphColoring };
std::string_view allocatorName(Allocator a);

struct Assignment {
  static constexpr uint32_t kNone = UINT32_MAX;
  /// Per register: the first unit, or kNone (spilled, or not allocated).
  std::vector<uint32_t> position;
  /// Registers to spill, ascending.
  std::vector<uint32_t> spilled;
  /// False when an unspillable interval found no room: the budget is too
  /// small for the code's own temporaries.
  bool feasible = true;
};

/// Linear scan over intervals with lifetime holes (Wimmer and Franz): an
/// interval takes a place free for its whole lifetime; when there is none,
/// it evicts the cheapest set of intervals holding one place, or spills
/// itself when that costs less.
Assignment linearScan(const LiveIntervals &live, uint32_t numRegisters, unsigned budget);

/// Chaitin-Briggs graph colouring with optimistic simplification; the
/// degree of a node counts each neighbour by the units it can block.
Assignment graphColoring(const LiveIntervals &live, uint32_t numRegisters, unsigned budget);

/// Whether `a` places every interval of `live` inside the budget with no two
/// intersecting intervals on a common unit: an empty string, or the first
/// conflict. The pass checks every allocation it keeps.
std::string checkAssignment(const LiveIntervals &live, const Assignment &a, unsigned budget);

Assignment allocate(Allocator a, const LiveIntervals &live, uint32_t numRegisters, unsigned budget);

} // namespace regalloc
