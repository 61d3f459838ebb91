// `ptxvm analyze`: the divergence and affine analysis and the static barrier
// checks of a PTX file, as an annotated listing, JSON, or the CFG as a picture (tools/CfgGraph.h).
#pragma once

#include "tools/CommandLine.h"

#include <string>

namespace ptxvm {

/// What `ptxvm analyze` was asked to do, as parsed.
struct AnalyzeOptions {
  InputOptions in;
  std::string kernel;          // empty: every kernel
  std::string block;           // X[,Y,Z]; empty: from the kernel's directives
  std::string format = "text"; // text, json, dot, svg or html
};

/// Adds `analyze` to `ptxvm`.
Command addAnalyzeCommand(CLI::App &ptxvm);

/// Analyses the file `o` names and prints the result; the exit status.
int analyze(const AnalyzeOptions &o, const CLI::App &command);

} // namespace ptxvm
