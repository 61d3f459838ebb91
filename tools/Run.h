// `ptxvm run`: launch one kernel of a PTX file on a device, with arguments
// given on the command line, and report what happened.
#pragma once

#include "tools/CommandLine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxvm {

/// What `ptxvm run` was asked to do, as parsed.
struct RunOptions {
  InputOptions in;
  std::string device = "emulator"; // --device: the runtime decides which are built in
  JitCommandOptions jit;
  std::string kernel;
  std::string grid, block; // X[,Y,Z], checked by dimensions()
  uint32_t sharedBytes = 0;
  std::vector<std::string> args; // --arg SPEC, in parameter order
  unsigned threads = 0;          // 0: all cores
  bool racecheck = false;
  std::string schedule = "deterministic"; // or "random"
  uint64_t seed = 1;
  uint64_t maxInstructions = 0;      // 0: the emulator's default
  double timeoutSeconds = 0;         // 0: none
  std::string passes;                // --passes LIST, run before the kernel is loaded
  analysis::PassOptions passOptions; // --max-registers=K and the passes' other options
  std::string reportPath;
  TraceCommandOptions trace;
  std::string htmlDirectory; // --report-html DIR (tools/HtmlReport.h)
  bool stats = false;
  unsigned repeat = 1; // --repeat N: launch N times (timings); buffers keep what the last left
};

/// Adds `run` to `ptxvm`.
Command addRunCommand(CLI::App &ptxvm);

/// Launches the kernel `o` names; the exit status.
int runKernel(const RunOptions &o, const CLI::App &command);

} // namespace ptxvm
