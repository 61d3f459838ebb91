// `ptxvm analyze`: the divergence and affine analysis and the static barrier
// checks of a PTX file, as an annotated listing, JSON, or a Graphviz CFG.
#pragma once

#include <string>
#include <vector>

namespace ptxvm {

int runAnalyzeCommand(const std::vector<std::string> &args);
extern const char kAnalyzeHelp[];

} // namespace ptxvm
