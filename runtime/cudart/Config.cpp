#include "runtime/cudart/Config.h"

#include "emulator/Timeline.h"
#include "runtime/Device.h"

#include <cerrno>
#include <cstdlib>

namespace cudart {

namespace {

bool parseCount(const std::string &text, uint64_t &out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno || !end || *end) return false;
  out = v;
  return true;
}

bool parseFlag(const std::string &text, bool &out) {
  if (text == "1" || text == "on" || text == "yes" || text == "true") {
    out = true;
    return true;
  }
  if (text == "0" || text == "off" || text == "no" || text == "false" || text.empty()) {
    out = false;
    return true;
  }
  return false;
}

} // namespace

const std::vector<std::string> &configVariables() {
  static const std::vector<std::string> names = {
      "PTXVM_DEVICE",       "PTXVM_THREADS", "PTXVM_RACECHECK",  "PTXVM_MAX_INSTRUCTIONS", "PTXVM_SCHEDULE",
      "PTXVM_SEED",         "PTXVM_REPORT",  "PTXVM_SAVE_PTX",   "PTXVM_TIMEOUT",          "PTXVM_PASSES",
      "PTXVM_PASS_OPTIONS", "PTXVM_TRACE",   "PTXVM_TRACE_CTAS", "PTXVM_TRACE_CLOCK"};
  return names;
}

bool applySetting(Config &config, const std::string &name, const std::string &value, std::string &warning) {
  auto bad = [&](const char *expected) {
    warning = "ignoring " + name + "='" + value + "' (expected " + expected + ")";
    return false;
  };
  uint64_t n = 0;
  if (name == "PTXVM_DEVICE") {
    // Kept even when not built in: the runtime then says so and serves no device.
    config.device = value;
    std::string error;
    if (!runtime::deviceBuiltIn(value, error)) {
      warning = error;
      return false;
    }
  } else if (name == "PTXVM_THREADS") {
    if (!parseCount(value, n) || n == 0 || n > 4096) return bad("a number of host threads, 1 to 4096");
    config.threads = static_cast<unsigned>(n);
  } else if (name == "PTXVM_RACECHECK") {
    if (!parseFlag(value, config.racecheck)) return bad("1 or 0");
  } else if (name == "PTXVM_MAX_INSTRUCTIONS") {
    if (!parseCount(value, n) || n == 0) return bad("a positive number of warp instructions");
    config.maxInstructions = n;
  } else if (name == "PTXVM_PASSES") {
    config.passes = value; // the names are checked when a module loads
  } else if (name == "PTXVM_PASS_OPTIONS") {
    config.passOptions = value; // KEY=VALUE,...: checked with the passes
  } else if (name == "PTXVM_TIMEOUT") {
    char *end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !(seconds > 0) || seconds > 1e9) return bad("a number of seconds above 0");
    config.timeoutSeconds = seconds;
  } else if (name == "PTXVM_SCHEDULE") {
    if (value != "random" && value != "deterministic") return bad("'random' or 'deterministic'");
    config.randomSchedule = value == "random";
  } else if (name == "PTXVM_SEED") {
    if (!parseCount(value, n)) return bad("a number");
    config.seed = n;
  } else if (name == "PTXVM_REPORT") {
    config.reportPath = value;
  } else if (name == "PTXVM_SAVE_PTX") {
    config.ptxDirectory = value;
  } else if (name == "PTXVM_TRACE") {
    config.tracePath = value;
  } else if (name == "PTXVM_TRACE_CTAS") {
    if (!emu::parseCtaList(value, config.traceCtas)) return bad("CTA indices and ranges such as 0,3,8-11");
  } else if (name == "PTXVM_TRACE_CLOCK") {
    if (value != "host" && value != "steps") return bad("'steps' or 'host'");
    config.traceHostClock = value == "host";
  }
  return true;
}

Config Config::fromEnvironment(std::vector<std::string> &warnings) {
  return read([](const char *name) { return std::getenv(name); }, warnings);
}

} // namespace cudart
