// `ptxvm analyze`: the divergence and affine analysis and the static barrier
// checks of a PTX file, as an annotated listing, JSON, or the CFG as a picture (tools/CfgGraph.h).
#pragma once

#include "tools/CfgGraph.h"
#include "tools/CommandLine.h"

#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "analysis/PassManager.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxvm {

/// What `ptxvm analyze` was asked to do, as parsed.
struct AnalyzeOptions {
  InputOptions in;
  std::string kernel;            // empty: every kernel
  std::string block;             // X[,Y,Z]; empty: from the kernel's directives
  std::string grid;              // X[,Y,Z]; empty: unknown
  std::vector<std::string> args; // --arg specs (ptxvm run's), in parameter order; needs --kernel
  std::string format = "text";   // text, json, dot, svg or html
};

/// A module's divergence analysis and barrier checks as `ptxvm analyze` computes them; `functions`
/// (module order) points into the rest.
struct ModuleAnalysis {
  std::unique_ptr<analysis::AnalysisManager> manager;
  analysis::DivergenceResult divergence;
  std::vector<analysis::BarrierReport> barriers;
  std::vector<AnalysedFunction> functions;
};

/// What is known of a launch beyond its block shape: its grid (0 where unknown) and, for a single
/// kernel, its arguments' bytes by parameter (empty where unknown).
struct LaunchValues {
  std::array<uint32_t, 3> grid{};
  std::vector<std::vector<uint8_t>> arguments;
};

/// Analyses `roots` (empty: every kernel) and what they call, under `block` when the launch's
/// block shape is known, and what else `values` knows of the launch.
std::unique_ptr<ModuleAnalysis> analyseModule(const ptx::Module &m,
                                              const std::vector<const ptx::Function *> &roots,
                                              const std::optional<std::array<uint32_t, 3>> &block,
                                              const LaunchValues &values = {});

/// The bytes of each of `kernel`'s parameters that `specs` give (ptxvm run's syntax): a scalar's,
/// zero-padded to its parameter's size as ptxvm run passes it; none for a buffer; false with
/// `error` for a malformed spec, the wrong number of them or one larger than its parameter.
bool launchArguments(const ptx::Function &kernel, const std::vector<std::string> &specs,
                     std::vector<std::vector<uint8_t>> &out, std::string &error);

/// Adds `analyze` to `ptxvm`.
Command addAnalyzeCommand(CLI::App &ptxvm);

/// Analyses the file `o` names and prints the result; the exit status.
int analyze(const AnalyzeOptions &o, const CLI::App &command);

} // namespace ptxvm
