// The `.uni` marking pass: every branch (bra, brx.idx) the divergence
// analysis proves warp-uniform gets the `.uni` modifier, which tells ptxas
// and the driver that all active threads of a warp take it the same way.
#pragma once

#include "analysis/PassManager.h"

namespace analysis {

class UniformBranchesPass : public Pass {
public:
  std::string_view name() const override { return "uniform-branches"; }
  /// Changes modifiers only: the CFG and every analysis stay valid.
  PreservedAnalyses run(ptx::Module &m, AnalysisManager &am) override;
  /// Branches marked by the last run.
  size_t marked() const { return marked_; }
  std::vector<PassStatistic> statistics() const override {
    return {{"branches", branches_}, {"already_uniform", already_}, {"marked", marked_}};
  }

private:
  size_t marked_ = 0, branches_ = 0, already_ = 0;
};

} // namespace analysis
