// Divergence analysis (Sampaio et al., "Divergence Analysis", TOPLAS 2013)
// on gated SSA, with two levels of uniformity (warp and CTA), an affine
// abstraction of integers in the thread id, and summaries of device
// functions.
//
// A value is divergent when it depends, by data or through a gate, on a
// source of divergence: %tid, %laneid, %lanemask_*, clocks, atomics, loads
// from local memory or from a divergent address, calls to unknown code. A γ
// or η gate passes on the uniformity of its branch; values defined in blocks
// that warps of a CTA can execute a different number of times (inside a loop,
// under a branch that is not CTA-uniform) are at best warp-uniform.
// Sources and "always uniform" instructions come from UniformityFacts.h.
//
// The query API (what the emulator's soundness check calls):
//
//   DivergenceResult r = analyzeDivergence(module, kernel);
//   r.value(fn, i, k)   uniformity of the k-th register that instruction i
//                       (an index into fn.instrs) writes; k counts the
//                       registers of the destination operands in order:
//                       vector elements and both halves of `d|p` count,
//                       sinks `_` do not
//   r.branch(fn, i)     uniformity of the branch decision of instruction i
//
// for the kernel and every device function it may call. The answers are
// sound: WarpUniform means every lane of a warp that executes the
// instruction in one issue computes the same value (takes the same way);
// CtaUniform means, in addition, that for every k all threads of the CTA
// compute the same value at their k-th execution of the instruction.
// Anything not proven is Divergent, as are instructions of unreachable
// blocks and functions the result does not cover.
#pragma once

#include "analysis/Affine.h"
#include "analysis/GatedSSA.h"
#include "analysis/PassManager.h"
#include "analysis/Uniformity.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace analysis {

struct DivergenceOptions {
  /// The block shape of the launch; when absent, each kernel's .reqntid or
  /// one-dimensional .maxntid, else any shape.
  std::optional<LaunchShape> block;
  /// The grid of the launch, 0 where unknown: %nctaid is then a constant and
  /// %ctaid lies in [0, %nctaid - 1].
  std::array<uint32_t, 3> grid{};
  /// The arguments of one launch, parameter by parameter: the bytes passed,
  /// empty where unknown (a buffer's address, say). They apply when a
  /// single kernel is analysed; what `ld.param` reads of them is a constant.
  std::vector<std::vector<uint8_t>> arguments;
};

/// The results for one function (in the context of the kernels analysed).
class FunctionDivergence {
public:
  const ptx::Function &function() const { return gated_->cfg().function(); }
  const GatedSSA &gated() const { return *gated_; }
  const LaunchShape &shape() const { return shape_; }
  /// What the analysis knew of the launch: "block 128x1x1", and the grid and
  /// the number of arguments known when it had them ("..., grid 4x1x1, 2
  /// arguments").
  std::string launch() const;

  /// The k-th register instruction `instr` writes (see the file comment).
  Uniformity value(uint32_t instr, uint32_t k) const;
  /// The branch decision of `instr`: its guard / index for a terminator with
  /// several successors; CtaUniform for a terminator with one; Divergent
  /// for anything else.
  Uniformity branch(uint32_t instr) const;
  /// Every write of DefUse::defs(instr), implicit ones included.
  Uniformity def(uint32_t instr, uint32_t slot) const;
  const Affine &defForm(uint32_t instr, uint32_t slot) const;
  Uniformity valueLevel(ValueId v) const { return levels_[v]; }
  const Affine &valueForm(ValueId v) const { return forms_[v]; }
  /// By index into GatedSSA::branches().
  Uniformity branchLevel(uint32_t branch) const { return branchLevels_[branch]; }
  /// The function's return values, parallel to DefUse::exitUses().
  std::span<const Uniformity> returns() const { return returns_; }

  /// How uniform the values are that this function and its callees may
  /// write through pointers it was given, into a caller's local memory
  /// among others: what a call does to the caller's escaped local places.
  Uniformity localWrites() const { return localWrites_; }

  /// Whether part of a warp may execute block `b` while other live lanes of
  /// the warp are elsewhere (a divergent branch, a divergent loop exit, or a
  /// call from such a place).
  bool partialWarp(uint32_t b) const { return partialCause_[b] != kNone; }
  /// The branch (an index into GatedSSA::branches()) that makes block `b`
  /// partial, kCalledPartially when the function is called from a partial
  /// block, kNone when `b` runs with whole warps.
  uint32_t partialCause(uint32_t b) const { return partialCause_[b]; }
  static constexpr uint32_t kCalledPartially = UINT32_MAX - 1;

  /// The function listing with each write's uniformity and affine form, the
  /// φ-nodes with their gates, and each branch's uniformity.
  std::string print(const ptx::Module &m) const;

private:
  friend class DivergenceSolver;
  friend class ModuleDivergenceSolver;
  const GatedSSA *gated_ = nullptr;
  LaunchShape shape_;
  std::array<uint32_t, 3> grid_{};
  size_t knownArguments_ = 0;
  std::vector<Uniformity> levels_;
  std::vector<Affine> forms_;
  std::vector<Uniformity> branchLevels_, returns_;
  std::vector<uint32_t> partialCause_;
  Uniformity localWrites_ = Uniformity::CtaUniform;
};

/// The results for a kernel (or all kernels) and the device functions they
/// may call.
class DivergenceResult {
public:
  const FunctionDivergence *find(const ptx::Function &fn) const;
  Uniformity value(const ptx::Function &fn, uint32_t instr, uint32_t k) const;
  Uniformity branch(const ptx::Function &fn, uint32_t instr) const;
  std::span<const std::unique_ptr<FunctionDivergence>> functions() const { return functions_; }

private:
  friend class ModuleDivergenceSolver;
  std::shared_ptr<AnalysisManager> owned_; // when the result owns its analyses
  std::vector<std::unique_ptr<FunctionDivergence>> functions_;
  std::unordered_map<const ptx::Function *, size_t> index_;
};

/// Analyses `kernel` and the functions it may call; the result owns the
/// analyses it was computed from.
DivergenceResult analyzeDivergence(const ptx::Module &m, const ptx::Function &kernel,
                                   const DivergenceOptions &options = {});
/// Analyses the given kernels (all kernels of the module when empty) with
/// the analyses cached in `am`, which must outlive the result. Device
/// functions reached from no kernel are analysed as if called from anywhere.
DivergenceResult analyzeDivergence(AnalysisManager &am, std::span<const ptx::Function *const> kernels,
                                   const DivergenceOptions &options = {});

/// The pass manager's module analysis: every kernel, with the launch shape
/// of AnalysisManager::launch().
struct DivergenceAnalysis {
  using Result = DivergenceResult;
  static inline const AnalysisKey key{"divergence"};
  static Result run(AnalysisManager &am);
};

} // namespace analysis
