// The named-barrier unit of a CTA: barriers 0-15 with the counting rules and
// misuse checks of DESIGN.md §4. It takes a barrier operation as values
// (warp, id, count, kind, lanes, pc), not as a decoded instruction, so that
// every execution engine drives the same model.
#pragma once

#include "ptx/IR.h"

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace emu {

class Cta;
struct Warp;

/// A named barrier's current generation.
struct NamedBarrier {
  enum class Op : uint8_t { None, Sync, Arrive, Red };
  uint32_t expected = 0; // thread count of this generation, 0 = not started
  uint32_t arrived = 0;  // threads (a warp counts 32)
  uint32_t generation = 0;
  uint64_t arrivedWarps = 0;               // bit per warp (up to 64 warps)
  uint64_t countedWarps = 0;               // warps whose arrival was counted
  std::array<uint32_t, 64> arrivedLanes{}; // per warp: the lanes that arrived this generation
  bool countGiven = false;                 // generation started with an explicit count
  Op op = Op::None;
  // bar.red accumulators.
  ptx::Mod redOp = ptx::Mod::None;
  uint32_t popc = 0;
  bool andAll = true, orAny = false;
  std::vector<std::pair<uint32_t, uint32_t>> redDests; // (warp, register) to fill on completion
};

/// One barrier operation of the lanes `lanes` of warp `warp`.
struct BarrierOp {
  NamedBarrier::Op kind = NamedBarrier::Op::Sync; // Sync, Arrive or Red
  // bar.* and barrier.*.aligned: all lanes of the warp execute it together
  // (counted at the first arriving group, a warning when not all came).
  bool aligned = true;
  uint32_t warp = 0;
  uint64_t id = 0;       // as the program gave it: checked to be 0-15
  bool hasCount = false; // without a count, every non-exited thread of the CTA takes part
  uint64_t count = 0;
  uint32_t lanes = 0;
  uint32_t pc = 0;
  // bar.red: the reduction (Popc, And, Or), the lanes whose predicate is
  // true, and the register (of the warp's running function) that receives
  // the result in every arriving lane.
  ptx::Mod redOp = ptx::Mod::None;
  uint32_t redTrue = 0;
  uint32_t redDest = 0;
};

class BarrierUnit {
public:
  explicit BarrierUnit(Cta &cta) : cta_(cta) {}
  ~BarrierUnit();
  BarrierUnit(const BarrierUnit &) = delete;
  BarrierUnit &operator=(const BarrierUnit &) = delete;

  enum class Outcome : uint8_t {
    Proceed,  // the lanes go on: an arrive, or a wait whose generation completed at once
    Waiting,  // the lanes wait for the generation to complete (the group is parked)
    Rejected, // misuse: reported as an error diagnostic, the operation did not happen
  };
  Outcome execute(const BarrierOp &op);
  /// After lanes of `w` exited: barriers waiting on every thread, or on
  /// those lanes, may now be complete.
  void recountAfterExit(const Warp &w);

  /// Barrier `id` (0-15) as it stands; one never used is a fresh barrier.
  const NamedBarrier &barrier(uint32_t id) const;

private:
  /// The thread count of a barrier without an explicit count: every warp
  /// that has not exited counts 32.
  uint32_t expectedAll() const;
  void tryComplete(uint32_t id);
  void release(uint32_t id);

  /// Barrier `id`, taking the CTA's barrier state on its first use.
  NamedBarrier &at(uint32_t id);

  using Barriers = std::array<NamedBarrier, 16>;
  Cta &cta_;
  /// Taken at the CTA's first barrier operation (5 KiB, a fresh barrier in
  /// every slot): the CTAs of kernels without barriers neither allocate nor
  /// clear it, and the ones that use it take the last finished CTA's.
  std::unique_ptr<Barriers> barriers_;
  /// Bit id: barrier id may differ from a fresh one (to clear on reuse).
  uint32_t touched_ = 0;
  /// Bit id: barrier id has started a generation since its last release
  /// (a superset of those with expected != 0), so that a warp's exit looks
  /// at the barriers in use, not at all 16 (5 KiB) in every CTA.
  uint32_t started_ = 0;
};

} // namespace emu
