// Where a spilled register goes, chosen by the divergence lattice (Sampaio et
// al.): an affine function of the thread id is recomputed where it is read; a
// load from memory that cannot change during the kernel (kernel parameters,
// constant memory, ld.global.nc) is loaded again where it is read, as ptxas
// does; a warp-uniform value takes one slot per warp in shared memory, a
// CTA-uniform one written once per thread one slot per CTA; the rest goes to
// local memory. The rewrite gives every instruction that names a spilled
// register a short temporary: loaded (or recomputed) before, stored after.
#pragma once

#include "analysis/PassManager.h"
#include "analysis/Uniformity.h"
#include "ptx/IR.h"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace regalloc {

enum class SpillMode : uint8_t {
  Divergence, // by the lattice
  Local,      // everything to local memory (the classic allocator)
};

enum class SpillClass : uint8_t { Remat, Reload, CtaShared, WarpShared, Local };
constexpr size_t kSpillClasses = 5;
std::string_view spillClassName(SpillClass c);

/// What the analyses say of a register before any spill code: the rounds
/// after the first see reloads from memory where values were computed, and
/// would know less.
struct RegisterFacts {
  bool known = false;
  analysis::Uniformity level = analysis::Uniformity::Divergent;
  bool inLoop = false; // written inside a loop
  bool remat = false;  // one full write of c0 + c1·tid.k (32-bit) or c0 (64-bit)
  int64_t constant = 0, coefficient = 0;
  int tidComponent = -1; // 0, 1, 2 for tid.x/y/z; -1: a constant
  /// One full write by a load from read-only memory whose address (a symbol,
  /// or a register written once) holds wherever the value is read.
  bool reload = false;
  uint32_t loadDesc = 0; // the load's description (Module::descs)
  ptx::Operand address;  // its address operand
};

/// What the spill code of one function holds across allocation rounds.
struct SpillState {
  SpillMode mode = SpillMode::Divergence;
  /// Load read-only values again where they are read (SpillClass::Reload).
  bool reload = false;
  /// Bytes of shared memory the spill areas may take (per CTA).
  uint32_t sharedLimit = 0;
  /// Warps of a CTA at most (from .reqntid/.maxntid, else 32).
  uint32_t maxWarps = 32;
  /// Per register: a temporary of the spill code (never spilled).
  std::vector<bool> unspillable;
  /// Per register of the function before the first round.
  std::vector<RegisterFacts> facts;
  /// Per register: spilled in an earlier round (its name is gone from the code).
  std::vector<bool> spilledBefore;
  uint32_t localBytes = 0, warpSlotBytes = 0, ctaBytes = 0;
  ptx::Name localArea = ptx::kNoName, warpArea = ptx::kNoName, ctaArea = ptx::kNoName;
  /// The register holding this warp's slot base in the warp area, and the
  /// operand (into Function::operands) that multiplies the warp index by
  /// the per-warp bytes, patched once they are known.
  uint32_t warpBase = UINT32_MAX;
  uint32_t strideOperand = UINT32_MAX;
  /// Registers spilled per class; instructions added.
  std::array<uint64_t, kSpillClasses> spilled{};
  uint64_t loads = 0, stores = 0, remats = 0;
  /// The same instructions weighted by 10^loop depth (at most 10^4), the
  /// cost model's inputs: memory operations per space, recomputations.
  double localOps = 0, sharedOps = 0, rematOps = 0, reloadOps = 0;
};

/// Fills state.facts from the analyses of `fn` as it is now (before any
/// spill code).
void recordRegisterFacts(ptx::Function &fn, analysis::AnalysisManager &am, SpillState &state);

/// Rewrites `spilled` registers of `fn` through temporaries, each placed by
/// state.mode; the caller drops the analyses of `fn` afterwards.
void insertSpillCode(ptx::Module &m, ptx::Function &fn, analysis::AnalysisManager &am,
                     std::span<const uint32_t> spilled, SpillState &state);

/// Declares the spill areas (sized now that every round is done) and
/// patches the warp base computation.
void finishSpillAreas(ptx::Module &m, ptx::Function &fn, SpillState &state);

} // namespace regalloc
