// Helpers of the analysis tests: parse PTX text, build every analysis of one
// function in dependency order, and find blocks and instructions by what
// they look like in the PTX.
#pragma once

#include "analysis/Cfg.h"
#include "analysis/DefUse.h"
#include "analysis/Dominators.h"
#include "analysis/GatedSSA.h"
#include "analysis/Liveness.h"
#include "analysis/Loops.h"
#include "analysis/SSA.h"
#include "ptx/IR.h"

#include <memory>
#include <string>

namespace analysis::test {

/// Parses `text`; a parse error fails the calling test.
std::unique_ptr<ptx::Module> parse(const std::string &text);

/// The analyses of one function, each built from the ones above it.
struct FunctionAnalyses {
  FunctionAnalyses(const ptx::Module &m, const ptx::Function &fn);
  FunctionAnalyses(const FunctionAnalyses &) = delete;
  FunctionAnalyses &operator=(const FunctionAnalyses &) = delete;

  const ptx::Module &module;
  const ptx::Function &fn;
  Cfg cfg;
  DominatorTree dom, postDom;
  DominanceFrontier frontier;
  LoopForest loops;
  DefUse defUse;
  Liveness liveness;
  SSA ssa;
  GatedSSA gated;
};

std::unique_ptr<FunctionAnalyses> analyze(const ptx::Module &m, const std::string &function);

/// The block labelled `label`; fails the test when there is none.
uint32_t blockNamed(const ptx::Module &m, const ptx::Function &fn, const std::string &label);
/// The first instruction whose PTX text (tabs removed) contains `text`.
uint32_t instrContaining(const ptx::Module &m, const ptx::Function &fn, const std::string &text);

} // namespace analysis::test
