// The pass registry and the small passes that need no analysis.
#include "analysis/Passes.h"

#include "analysis/UniformBranches.h"
#include "ptx/Verifier.h"

#include <algorithm>

namespace analysis {

PreservedAnalyses VerifyPass::run(ptx::Module &m, AnalysisManager &) {
  const size_t before = diags_.errorCount();
  ptx::verifyModule(m, diags_);
  errors_ = diags_.errorCount() - before;
  return PreservedAnalyses::all();
}

PreservedAnalyses StripDebugPass::run(ptx::Module &m, AnalysisManager &) {
  locations_ = 0;
  files_ = m.files.size();
  sections_ = m.sections.size();
  std::erase_if(m.order, [](const ptx::TopLevel &t) {
    return t.kind == ptx::TopLevelKind::File || t.kind == ptx::TopLevelKind::Section;
  });
  m.files.clear();
  m.sections.clear();
  std::erase(m.targets, std::string("debug"));
  for (ptx::Function &f : m.functions) {
    for (ptx::Instruction &in : f.instrs) in.debugLoc = 0;
    locations_ += std::erase_if(f.body, [](const ptx::Stmt &s) { return s.kind == ptx::StmtKind::DebugLoc; });
    f.debugLocs.assign(1, ptx::DebugLoc{});
  }
  // Instructions, blocks and the CFG are as they were.
  return PreservedAnalyses::all();
}

std::span<const PassInfo> registeredPasses() {
  static const PassInfo kPasses[] = {
      {"verify", "check the module against the instruction table and PTX rules; stop on errors",
       [](ptx::DiagnosticList &diags) { return std::make_unique<VerifyPass>(diags); }},
      {"strip-debug", "drop .file, .loc, .section (DWARF) and the debug target",
       [](ptx::DiagnosticList &) { return std::make_unique<StripDebugPass>(); }},
      {"uniform-branches", "mark branches the divergence analysis proves warp-uniform with .uni",
       [](ptx::DiagnosticList &) { return std::make_unique<UniformBranchesPass>(); }},
  };
  return kPasses;
}

const PassInfo *findPass(std::string_view name) {
  for (const PassInfo &p : registeredPasses())
    if (p.name == name) return &p;
  return nullptr;
}

} // namespace analysis
