// How the CUDA runtime replacement runs programs: the device, the checkers and the report, read
// from PTXVM_* environment variables (what `ptxvm exec` sets for the program it starts).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudart {

struct Config {
  std::string device = "emulator";              // PTXVM_DEVICE
  unsigned threads = 0;                         // PTXVM_THREADS: host threads per launch, 0 = all cores
  bool racecheck = false;                       // PTXVM_RACECHECK=1
  uint64_t maxInstructions = 20'000'000'000ull; // PTXVM_MAX_INSTRUCTIONS: per launch, warp instructions
  double timeoutSeconds = 0;                    // PTXVM_TIMEOUT: wall clock per launch, 0 = none
  std::string passes;                           // PTXVM_PASSES: run on every module before it loads
  std::string passOptions;                      // PTXVM_PASS_OPTIONS: KEY=VALUE,... for the passes
  bool randomSchedule = false;                  // PTXVM_SCHEDULE=random|deterministic
  uint64_t seed = 1;                            // PTXVM_SEED
  std::string reportPath;                       // PTXVM_REPORT: launches and diagnostics as JSON
  std::string ptxDirectory;                     // PTXVM_SAVE_PTX: write each module's PTX there
  std::string tracePath;                        // PTXVM_TRACE: the warp and barrier timeline (JSON)
  std::vector<uint64_t> traceCtas;              // PTXVM_TRACE_CTAS: 0,3,8-11; empty: the default choice
  bool traceHostClock = false;                  // PTXVM_TRACE_CLOCK=host|steps

  /// Reads the environment through `get` (getenv in the library, a map in
  /// tests). A malformed value keeps the default and adds a warning.
  template <typename Get> static Config read(Get &&get, std::vector<std::string> &warnings);
  static Config fromEnvironment(std::vector<std::string> &warnings);
};

/// Parses one variable's value into `config`; false with `warning` set when
/// the value is malformed (the setting then keeps its default).
bool applySetting(Config &config, const std::string &name, const std::string &value, std::string &warning);

/// The variables Config reads, in the order they are applied.
const std::vector<std::string> &configVariables();

template <typename Get> Config Config::read(Get &&get, std::vector<std::string> &warnings) {
  Config config;
  for (const std::string &name : configVariables()) {
    const char *value = get(name.c_str());
    if (!value) continue;
    std::string warning;
    if (!applySetting(config, name, value, warning)) warnings.push_back(warning);
  }
  return config;
}

} // namespace cudart
