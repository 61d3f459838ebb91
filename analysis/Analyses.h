// The function analyses as the pass manager knows them: each names its
// result type and how to compute it from the others.
#pragma once

#include "analysis/Cfg.h"
#include "analysis/DefUse.h"
#include "analysis/Dominators.h"
#include "analysis/GatedSSA.h"
#include "analysis/Liveness.h"
#include "analysis/Loops.h"
#include "analysis/PassManager.h"
#include "analysis/SSA.h"

namespace analysis {

struct CfgAnalysis {
  using Result = Cfg;
  static inline const AnalysisKey key{"cfg"};
  static Result run(const ptx::Function &fn, AnalysisManager &) { return Cfg(fn); }
};

struct DominatorTreeAnalysis {
  using Result = DominatorTree;
  static inline const AnalysisKey key{"dominators"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return DominatorTree::forward(am.get<CfgAnalysis>(fn));
  }
};

struct PostDominatorTreeAnalysis {
  using Result = DominatorTree;
  static inline const AnalysisKey key{"post-dominators"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return DominatorTree::backward(am.get<CfgAnalysis>(fn));
  }
};

struct DominanceFrontierAnalysis {
  using Result = DominanceFrontier;
  static inline const AnalysisKey key{"dominance-frontier"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return DominanceFrontier(am.get<CfgAnalysis>(fn).graph(), am.get<DominatorTreeAnalysis>(fn));
  }
};

struct LoopAnalysis {
  using Result = LoopForest;
  static inline const AnalysisKey key{"loops"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return LoopForest(am.get<CfgAnalysis>(fn));
  }
};

struct DefUseAnalysis {
  using Result = DefUse;
  static inline const AnalysisKey key{"def-use"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) { return DefUse(am.module(), fn); }
};

struct LivenessAnalysis {
  using Result = Liveness;
  static inline const AnalysisKey key{"liveness"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return Liveness(am.get<CfgAnalysis>(fn), am.get<DefUseAnalysis>(fn));
  }
};

struct SSAAnalysis {
  using Result = SSA;
  static inline const AnalysisKey key{"ssa"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return SSA(am.get<CfgAnalysis>(fn), am.get<DominatorTreeAnalysis>(fn),
               am.get<DominanceFrontierAnalysis>(fn), am.get<LoopAnalysis>(fn), am.get<DefUseAnalysis>(fn),
               am.get<LivenessAnalysis>(fn));
  }
};

struct GatedSSAAnalysis {
  using Result = GatedSSA;
  static inline const AnalysisKey key{"gated-ssa"};
  static Result run(const ptx::Function &fn, AnalysisManager &am) {
    return GatedSSA(am.get<CfgAnalysis>(fn), am.get<PostDominatorTreeAnalysis>(fn), am.get<LoopAnalysis>(fn),
                    am.get<SSAAnalysis>(fn));
  }
};

} // namespace analysis
