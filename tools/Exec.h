// `ptxvm exec`: run an unmodified CUDA program (built with `nvcc -cudart shared`) on a ptxvm
// device, with ptxvm's libcudart.so.13 found first and its checkers configured.
#pragma once

#include "tools/CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxvm {

/// What `ptxvm exec` was asked to do, as parsed; each setting reaches the
/// program's libcudart.so.13 as its PTXVM_* variable (runtime/cudart/Config.h).
struct ExecOptions {
  std::string device; // PTXVM_DEVICE; empty: the runtime's default
  JitCommandOptions jit;
  unsigned threads = 0;
  bool racecheck = false;
  uint64_t maxInstructions = 0;      // 0: the runtime's default
  double timeoutSeconds = 0;         // 0: none
  std::string passes;                // --passes LIST: run on every module the program loads
  analysis::PassOptions passOptions; // --max-registers=K and the passes' other options
  bool timeKernels = false;          // --time-kernels (--device gpu): each launch's kernel time in the report
  std::string schedule;              // "", "deterministic" or "random"
  std::optional<uint64_t> seed;
  std::string reportPath, ptxDirectory;
  TraceCommandOptions trace;
  std::string htmlDirectory;        // --report-html DIR: the report, PTX and trace go there unless named
  std::vector<std::string> program; // the program and its arguments
};

/// Adds `exec` to `ptxvm`. `afterDashes`, when not null, holds what followed
/// exec's `--` on the command line: the program's arguments, which CLI11 never sees.
Command addExecCommand(CLI::App &ptxvm, const std::vector<std::string> *afterDashes);

/// Runs `o.program` with the settings in its environment; its exit status.
int execProgram(const ExecOptions &o, const CLI::App &command);

/// The directory holding ptxvm's libcudart.so.13 for the ptxvm binary at
/// `self` (the build tree's lib/, or an install's lib/ptxvm/), or "".
std::string findCudartDirectory(const std::string &self);

} // namespace ptxvm
