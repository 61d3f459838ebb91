// Leaving SSA by renaming: the values of one PTX register that φ-nodes and
// partial writes tie together (a web) get a register of their own, so that a
// register nvcc reuses for unrelated values becomes several, each with its
// own live range, uniformity and affine form. The SSA form analysis/ builds
// from PTX as written is conventional (the values of one φ-web never
// interfere), so renaming webs needs no copies; analysis/OutOfSSA.h's
// parallel copies are for forms that are not.
#pragma once

#include "analysis/PassManager.h"
#include "ptx/IR.h"

#include <string>

namespace regalloc {

struct WebCounts {
  uint64_t registersBefore = 0, registersAfter = 0;
};

/// Why `fn` cannot be renamed (no body, registers passed as `.reg`
/// parameters), or an empty string.
std::string cannotRename(const ptx::Module &m, const ptx::Function &fn, analysis::AnalysisManager &am);

/// Gives each web of `fn` a register of its own, declared in one range per
/// register type (`%b32_<n>`, `%f32_<n>`, `%pred_<n>`). `fn` must pass
/// cannotRename; the caller drops the analyses of `fn` afterwards.
WebCounts splitWebs(ptx::Module &m, ptx::Function &fn, analysis::AnalysisManager &am);

/// `split-webs`: splitWebs on every function that can be renamed.
class SplitWebsPass : public analysis::Pass {
public:
  std::string_view name() const override { return "split-webs"; }
  analysis::PreservedAnalyses run(ptx::Module &m, analysis::AnalysisManager &am) override;
  std::vector<analysis::PassStatistic> statistics() const override {
    return {{"functions", functions_},
            {"registers before", counts_.registersBefore},
            {"registers after", counts_.registersAfter}};
  }

private:
  uint64_t functions_ = 0;
  WebCounts counts_;
};

} // namespace regalloc
