// The pass registry and the small passes that need no analysis.
#include "analysis/Passes.h"

#include "analysis/UniformBranches.h"
#include "ptx/Verifier.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <mutex>

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

void capRegisters(ptx::Function &fn, uint32_t k) {
  if (!fn.isKernel) return;
  for (ptx::FunctionDirective &d : fn.directives)
    if (d.kind == ptx::DirectiveKind::MaxNReg && !d.values.empty()) {
      d.values[0] = std::min(d.values[0], k);
      return;
    }
  fn.directives.push_back({ptx::DirectiveKind::MaxNReg, {k}, {}});
}

PreservedAnalyses MaxNRegPass::run(ptx::Module &m, AnalysisManager &) {
  capped_ = 0;
  for (ptx::Function &f : m.functions) {
    capRegisters(f, k_);
    capped_ += f.isKernel;
  }
  return PreservedAnalyses::all();
}

namespace {

std::mutex registryMutex;
std::deque<PassInfo> &extraPasses() {
  static std::deque<PassInfo> passes; // stable addresses
  return passes;
}

std::span<const PassInfo> builtInPasses() {
  static const PassInfo kPasses[] = {
      {"verify", "check the module against the instruction table and PTX rules; stop on errors",
       [](ptx::DiagnosticList &diags, const PassOptions &, std::string &) {
         return std::make_unique<VerifyPass>(diags);
       }},
      {"strip-debug", "drop .file, .loc, .section (DWARF) and the debug target",
       [](ptx::DiagnosticList &, const PassOptions &, std::string &) {
         return std::make_unique<StripDebugPass>();
       }},
      {"uniform-branches", "mark branches the divergence analysis proves warp-uniform with .uni",
       [](ptx::DiagnosticList &, const PassOptions &, std::string &) {
         return std::make_unique<UniformBranchesPass>();
       }},
      {"maxnreg",
       "cap every kernel's registers with .maxnreg K (ptxas -maxrregcount=K, kept by the JIT)",
       [](ptx::DiagnosticList &, const PassOptions &options, std::string &error) -> std::unique_ptr<Pass> {
         auto it = options.find("max-registers");
         unsigned long k = 0;
         if (it != options.end()) {
           char *end = nullptr;
           k = std::strtoul(it->second.c_str(), &end, 10);
           if (it->second.empty() || *end) k = 0;
         }
         if (k < 1 || k > 255) {
           error = "maxnreg needs --max-registers=K, K from 1 to 255";
           return nullptr;
         }
         return std::make_unique<MaxNRegPass>(static_cast<uint32_t>(k));
       },
       {{"max-registers=K", "registers per thread: regalloc's budget (8-255, default 32), maxnreg's cap"}}},
  };
  return kPasses;
}

} // namespace

std::vector<const PassInfo *> registeredPasses() {
  std::vector<const PassInfo *> all;
  for (const PassInfo &p : builtInPasses()) all.push_back(&p);
  std::lock_guard lock(registryMutex);
  for (const PassInfo &p : extraPasses()) all.push_back(&p);
  return all;
}

void registerPass(PassInfo info) {
  if (findPass(info.name)) return;
  std::lock_guard lock(registryMutex);
  extraPasses().push_back(std::move(info));
}

std::optional<PassManager> makePipeline(std::string_view list, ptx::DiagnosticList &diags, std::string &error,
                                        const PassOptions &options) {
  PassManager pm;
  std::vector<const PassInfo *> chosen;
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
    chosen.push_back(info);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  for (const auto &[key, value] : options) {
    bool read = false;
    for (const PassInfo *info : chosen)
      for (const auto &[option, help] : info->options) read |= option.substr(0, option.find('=')) == key;
    if (!read) {
      error = "no pass of '" + std::string(list) + "' takes --" + key;
      return std::nullopt;
    }
  }
  for (const PassInfo *info : chosen) {
    std::unique_ptr<Pass> pass = info->create(diags, options, error);
    if (!pass) return std::nullopt;
    pm.add(std::move(pass));
  }
  return pm;
}

bool parsePassOptions(std::string_view text, PassOptions &out, std::string &error) {
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      error = "pass option '" + std::string(item) + "' is not KEY=VALUE";
      return false;
    }
    out[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

std::string formatPassOptions(const PassOptions &options) {
  std::string text;
  for (const auto &[key, value] : options) text += (text.empty() ? "" : ",") + key + "=" + value;
  return text;
}

const PassInfo *findPass(std::string_view name) {
  for (const PassInfo *p : registeredPasses())
    if (p->name == name) return p;
  return nullptr;
}

} // namespace analysis
