// Documents generated from the command line's own definitions (the CLI11 subcommands and
// options of every command), so they cannot drift from it: the bash completion script
// (`ptxvm completion bash`) and the man page (`ptxvm completion man`). The build writes
// both next to the binary and `cmake --install` installs them.
#pragma once

#include "tools/CommandLine.h"

#include <string>

namespace ptxvm {

/// A bash completion script for `ptxvm`: subcommands, each one's options, the values of
/// options with a fixed set of them, files where a file is expected.
std::string bashCompletion(const CLI::App &ptxvm);

/// `man ptxvm` in roff (man(7) macros): every command with its options and help footer.
std::string manPage(const CLI::App &ptxvm);

/// `ptxvm completion bash|man`.
Command addCompletionCommand(CLI::App &ptxvm);

} // namespace ptxvm
