// The `regalloc` pass: PTX virtual registers allocated into a budget of K
// 32-bit registers per thread (64-bit values take an aligned pair, 128-bit an
// aligned quad, predicates are counted apart and left to ptxas), with spills
// placed by the divergence lattice (SpillCode.h). Each function is renamed
// web by web (Webs.h), its live intervals allocated by linear scan or graph
// colouring, spilled registers rewritten through temporaries, and the
// allocation repeated until nothing spills; the result names registers by
// place (%r0..%r{K-1}, %rd0.., %rh0..), so ptxas sees the allocation.
#pragma once

#include "analysis/Passes.h"
#include "regalloc/Allocators.h"
#include "regalloc/SpillCode.h"

#include <string>
#include <vector>

namespace regalloc {

enum class SpillPolicy : uint8_t {
  Divergence, // spills placed by the lattice
  Local,      // every spill in local memory
  Auto,       // by the lattice where the cost model predicts a gain, else the function unchanged
};

struct RegAllocOptions {
  unsigned maxRegisters = 32; // K
  /// Units of K left to ptxas (its own temporaries): the allocation fits
  /// K - reserve; .maxnreg (when asked for) says K.
  unsigned reserve = 0;
  SpillPolicy spill = SpillPolicy::Auto;
  Allocator allocator = Allocator::LinearScan;
  /// Load values from read-only memory again where they are read, rather
  /// than spilling them. Off by default: on the H100 it made the register-
  /// pressure kernels 7% slower in geometric mean than spilling those values
  /// by the lattice (bench/results/README.md).
  bool reload = false;
  /// Split spilled live ranges into pieces (per loop that only reads the
  /// value, per block that names it more than once), each allocated in the
  /// next round; else spill everywhere.
  bool split = true;
  /// Give allocated kernels `.maxnreg K`, so that the driver's JIT keeps the
  /// budget too. Off by default: ptxas needs more than K for some
  /// instructions (mma.sync wants 28 registers on sm_80, and 24 is its floor),
  /// so a cap can make a module the allocator fitted fail to compile.
  bool maxnreg = false;
};

/// From --max-registers=K, --spill=divergence|local|auto,
/// --allocator=linear-scan|graph-coloring, --reload=yes|no, --split=yes|no,
/// --maxnreg=yes|no; false with
/// `error` for a bad value.
bool parseRegAllocOptions(const analysis::PassOptions &in, RegAllocOptions &out, std::string &error);

/// What happened to one function.
struct FunctionAllocation {
  std::string name;
  bool changed = false;
  std::string reason;    // why it was left as it was
  unsigned pressure = 0; // the most 32-bit units live at once, before
  unsigned rounds = 0;
  SpillState spills;
  uint64_t instructionsAdded = 0;
  /// `auto`'s cost model: the weighted spill cost with every spill local
  /// and with the lattice's placement (0 when it did not run).
  double costLocal = 0, costLattice = 0;
  /// `auto`: the pressure ptxas would see beyond its uniform registers.
  unsigned ptxasPressure = 0;
};

/// Allocates `fn`; on failure (or when `auto` predicts no gain) leaves it as
/// it was and says why.
FunctionAllocation allocateFunction(ptx::Module &m, ptx::Function &fn, analysis::AnalysisManager &am,
                                    const RegAllocOptions &options);

class RegAllocPass : public analysis::Pass {
public:
  explicit RegAllocPass(RegAllocOptions options) : options_(options) {}
  std::string_view name() const override { return "regalloc"; }
  analysis::PreservedAnalyses run(ptx::Module &m, analysis::AnalysisManager &am) override;
  std::vector<analysis::PassStatistic> statistics() const override;
  std::vector<std::string> remarks() const override;
  const std::vector<FunctionAllocation> &functions() const { return functions_; }

private:
  RegAllocOptions options_;
  std::vector<FunctionAllocation> functions_;
};

/// Checks an allocated function: every allocatable register is named by
/// place within the budget and no two registers whose live intervals
/// intersect share a unit. An empty string, or what is wrong.
std::string checkAllocation(const ptx::Module &m, const ptx::Function &fn, analysis::AnalysisManager &am,
                            unsigned budget);

/// Adds split-webs and regalloc to analysis/'s pass registry (once).
void registerPasses();

} // namespace regalloc
