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

std::optional<PassManager> makePipeline(std::string_view list, ptx::DiagnosticList &diags,
                                        std::string &error) {
  PassManager pm;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string_view name = list.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (name.empty()) {
      error = "--passes takes a comma-separated list of passes ('--passes=list' names them)";
      return std::nullopt;
    }
    const PassInfo *info = findPass(name);
    if (!info) {
      error = "unknown pass '" + std::string(name) + "' ('--passes=list' names them)";
      return std::nullopt;
    }
    pm.add(info->create(diags));
    if (comma == std::string_view::npos) return pm;
    start = comma + 1;
  }
}

const PassInfo *findPass(std::string_view name) {
  for (const PassInfo &p : registeredPasses())
    if (p.name == name) return &p;
  return nullptr;
}

} // namespace analysis
