// The passes `ptxvm opt --passes=LIST` (and, later, `ptxvm exec --passes`)
// can run, by name: one registry that the command line, its --passes=list
// and the tests read.
#pragma once

#include "analysis/PassManager.h"
#include "ptx/Diagnostic.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace analysis {

/// Options of passes as the command line gives them (`--max-registers=32`
/// is {"max-registers", "32"}).
using PassOptions = std::map<std::string, std::string, std::less<>>;

struct PassInfo {
  std::string_view name;
  std::string_view description; // one line, for --passes=list
  /// Makes the pass; `diags` receives what it reports (the verifier's
  /// errors). Null with `error` saying why for a bad option value.
  std::function<std::unique_ptr<Pass>(ptx::DiagnosticList &diags, const PassOptions &options,
                                      std::string &error)>
      create;
  /// The options it reads, with a line each: {"max-registers=K", "..."}.
  std::vector<std::pair<std::string_view, std::string_view>> options = {};
};

/// Every registered pass, in the order --passes=list prints them: this
/// library's, then those registerPass added.
std::vector<const PassInfo *> registeredPasses();
/// The pass called `name`, or nullptr.
const PassInfo *findPass(std::string_view name);
/// Adds a pass of a library above this one (regalloc/); a second pass of
/// the same name is ignored.
void registerPass(PassInfo info);

/// The passes of a comma-separated LIST, in order, made for `diags` with
/// `options`; nullopt with `error` saying why for an empty name, an unknown
/// pass, an option none of them reads, or a bad option value.
std::optional<PassManager> makePipeline(std::string_view list, ptx::DiagnosticList &diags, std::string &error,
                                        const PassOptions &options = {});
/// Parses "key=value,key=value" (PTXVM_PASS_OPTIONS) into `out`; false with
/// `error` for an item without '='.
bool parsePassOptions(std::string_view text, PassOptions &out, std::string &error);
/// The inverse: "key=value,..." in key order.
std::string formatPassOptions(const PassOptions &options);

/// Checks the module with ptx::verifyModule; fails (stopping the pipeline)
/// on errors, which go to the diagnostics list it was made with.
class VerifyPass : public Pass {
public:
  explicit VerifyPass(ptx::DiagnosticList &diags) : diags_(diags) {}
  std::string_view name() const override { return "verify"; }
  PreservedAnalyses run(ptx::Module &m, AnalysisManager &am) override;
  std::vector<PassStatistic> statistics() const override { return {{"errors", errors_}}; }
  bool failed() const override { return errors_ != 0; }

private:
  ptx::DiagnosticList &diags_;
  uint64_t errors_ = 0;
};

/// Drops debug information: .file, .loc, .section blocks (DWARF) and the
/// `debug` target, so that ptxas and the driver compile without it.
class StripDebugPass : public Pass {
public:
  std::string_view name() const override { return "strip-debug"; }
  PreservedAnalyses run(ptx::Module &m, AnalysisManager &am) override;
  std::vector<PassStatistic> statistics() const override {
    return {{"locations", locations_}, {"files", files_}, {"sections", sections_}};
  }

private:
  uint64_t locations_ = 0, files_ = 0, sections_ = 0; // .loc directives, .file entries, sections
};

/// `.maxnreg k` on `fn` when it is a kernel: added, or a higher one lowered.
void capRegisters(ptx::Function &fn, uint32_t k);

/// Caps every kernel's registers with `.maxnreg K` (K from the option
/// max-registers): what `ptxas -maxrregcount=K` does, in the PTX, so that
/// the driver's JIT keeps it too.
class MaxNRegPass : public Pass {
public:
  explicit MaxNRegPass(uint32_t k) : k_(k) {}
  std::string_view name() const override { return "maxnreg"; }
  PreservedAnalyses run(ptx::Module &m, AnalysisManager &am) override;
  std::vector<PassStatistic> statistics() const override { return {{"kernels capped", capped_}}; }

private:
  uint32_t k_;
  uint64_t capped_ = 0;
};

} // namespace analysis
