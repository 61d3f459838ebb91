// Where a spilled register goes, chosen by the divergence lattice (Sampaio et
// al.): an affine function of the thread id is recomputed where it is read; a
// load from memory that cannot change during the kernel (kernel parameters,
// constant memory, ld.global.nc) is loaded again where it is read, as ptxas
// does; a warp-uniform value takes one slot per warp in shared memory, a
// CTA-uniform one written once per thread one slot per CTA; the rest goes to
// local memory. The rewrite splits the live range of a spilled register: a
// loop that names it gets one register loaded before the loop (the reload
// hoisted out of it) and, when the loop writes it, stored where the loop is
// left (the store sunk out of it); a block that names it more than once one
// register for those mentions, and any other instruction a short temporary,
// loaded (or recomputed) before and stored after. Such pieces compete for
// registers in the next round like any register; a piece spilled there is
// split again over smaller regions, in the same slot (second-chance
// allocation, as in Traub, Holloway and Smith's binpacking).
#pragma once

#include "analysis/PassManager.h"
#include "analysis/Uniformity.h"
#include "ptx/IR.h"
#include "regalloc/LiveIntervals.h"

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

/// How a spilled register is kept: its class, its slot (byte offset in its
/// area) and, for a recomputed value, the form to recompute. The pieces split
/// from a spilled register share its placement.
struct Placement {
  SpillClass cls = SpillClass::Local;
  uint32_t offset = 0;
  int64_t constant = 0;           // Remat: c0
  int64_t coefficient = 0;        // Remat: the tid coefficient
  int tidComponent = -1;          // Remat: 0, 1, 2 for tid.x/y/z, -1 for none
  uint32_t defInstr = UINT32_MAX; // Remat, Reload: the one write (erased when pure)
  uint32_t loadDesc = 0;          // Reload: the load
  ptx::Operand address;           // Reload: its address
};

/// The part of a function a piece of a spilled register covers.
struct SpillRegion {
  enum Kind : uint8_t { Whole, Loop, Block } kind = Whole;
  uint32_t id = 0; // the loop (analysis::LoopForest) or block
};

/// What the spill code of one function holds across allocation rounds.
struct SpillState {
  SpillMode mode = SpillMode::Divergence;
  /// Split spilled live ranges into pieces by loop and block (else every
  /// mention gets a temporary of its own: spill everywhere).
  bool split = true;
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
  /// Where spilled values live; per register, its placement (a spilled
  /// register or a piece of one) or -1, and the region a piece covers.
  std::vector<Placement> placements;
  std::vector<int32_t> placementOf;
  std::vector<SpillRegion> regionOf;
  uint32_t localBytes = 0, warpSlotBytes = 0, ctaBytes = 0;
  ptx::Name localArea = ptx::kNoName, warpArea = ptx::kNoName, ctaArea = ptx::kNoName;
  /// The register holding this warp's slot base in the warp area, and the
  /// operand (into Function::operands) that multiplies the warp index by
  /// the per-warp bytes, patched once they are known.
  uint32_t warpBase = UINT32_MAX;
  uint32_t strideOperand = UINT32_MAX;
  /// Registers spilled per class (pieces not counted again); instructions
  /// added; pieces that kept a register, those of them loaded before a loop
  /// (reloads hoisted out of it).
  std::array<uint64_t, kSpillClasses> spilled{};
  uint64_t loads = 0, stores = 0, remats = 0;
  uint64_t pieces = 0, hoisted = 0;
  /// The same instructions weighted by 10^loop depth (at most 10^4), the
  /// cost model's inputs: memory operations per space, recomputations.
  double localOps = 0, sharedOps = 0, rematOps = 0, reloadOps = 0;
};

/// Fills state.facts from the analyses of `fn` as it is now (before any
/// spill code).
void recordRegisterFacts(ptx::Function &fn, analysis::AnalysisManager &am, SpillState &state);

/// Rewrites `spilled` registers of `fn` through pieces and temporaries,
/// each placed by state.mode; pieces only where the registers `live` holds
/// besides leave room within `budget`. The caller drops the analyses of
/// `fn` afterwards.
void insertSpillCode(ptx::Module &m, ptx::Function &fn, analysis::AnalysisManager &am,
                     const LiveIntervals &live, std::span<const uint32_t> spilled, unsigned budget,
                     SpillState &state);

/// Counts the loads and stores of the spill areas in `fn` once every round
/// is done (later rounds erase some that earlier ones wrote), weighted by
/// block frequency into state.localOps and state.sharedOps, and the pieces
/// that kept a register.
void countSpillAccesses(const ptx::Function &fn, analysis::AnalysisManager &am, SpillState &state);

/// Declares the spill areas (sized now that every round is done) and
/// patches the warp base computation.
void finishSpillAreas(ptx::Module &m, ptx::Function &fn, SpillState &state);

} // namespace regalloc
