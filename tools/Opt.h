// `ptxvm opt`: runs passes of the pass pipeline over a PTX file and writes
// the PTX they leave (which ptxas accepts), with per-pass statistics.
#pragma once

#include "tools/CommandLine.h"

namespace ptxvm {

/// Adds `opt` to `ptxvm`.
Command addOptCommand(CLI::App &ptxvm);

} // namespace ptxvm
