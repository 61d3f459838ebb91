// What every ptxvm subcommand shares: the exit codes, the input options bound
// into CLI11 (FILE, --parser, --diagnostics), checks for numbers and shapes,
// loading a module and printing its diagnostics.
#pragma once

#include "analysis/Passes.h"
#include "ptx/Diagnostic.h"
#include "ptx/IR.h"
#include "ptx/Parser.h"

#include <CLI/CLI.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxvm {

/// Exit codes of every subcommand.
enum Exit { kOk = 0, kDiagnostics = 1, kUsage = 2 };

/// A subcommand: CLI11 fills its options while parsing; `run` then does the
/// work and returns the exit status.
struct Command {
  CLI::App *app = nullptr;
  std::function<int()> run;
};

/// Options common to every subcommand that reads a PTX file.
struct InputOptions {
  std::string file;
  ptx::FrontEnd frontEnd = ptx::FrontEnd::Fast;
  bool json = false; // diagnostics as JSON on stdout
};

/// Adds FILE (required unless `fileRequired` is false), --parser and
/// --diagnostics to `command`, bound to `in`.
void addInputOptions(CLI::App &command, InputOptions &in, bool fileRequired = true);

/// Adds one option per option of a registered pass (--max-registers=K,
/// --spill=MODE, ...), each stored into `out` under its key when given.
void addPassOptions(CLI::App &command, analysis::PassOptions &out);

/// How the CPU device compiles (--jit, --no-cache, --cache-dir), passed to
/// it through the environment (translator::JitOptions::fromEnvironment).
struct JitCommandOptions {
  std::string mode; // "", "eager" or "tiered"
  bool noCache = false;
  bool unchecked = false;
  std::string cacheDirectory;
  /// The environment variables these options set.
  std::vector<std::pair<std::string, std::string>> settings() const;
};
void addJitOptions(CLI::App &command, JitCommandOptions &out);

/// --trace FILE.json, --trace-ctas LIST, --trace-clock steps|host: the warp and barrier
/// timeline (emulator/Timeline.h).
struct TraceCommandOptions {
  std::string path;            // empty: no trace
  std::string ctas;            // "0,3,8-11"; empty: the first few and those with diagnostics
  std::string clock = "steps"; // or "host"
  /// The environment variables these options set for a program's libcudart.so.13.
  std::vector<std::pair<std::string, std::string>> settings() const;
};
void addTraceOptions(CLI::App &command, TraceCommandOptions &out);

/// --report-html DIR: the run as an HTML page with its CFGs and timeline (tools/HtmlReport.h).
void addHtmlReportOption(CLI::App &command, std::string &directory);

/// A CLI11 check for X[,Y,Z]: one to three positive 32-bit integers whose
/// product is at most `maxProduct` (0: any).
CLI::Validator dimensions(uint64_t maxProduct);
/// X[,Y,Z] that dimensions() accepted, missing dimensions 1.
std::array<uint32_t, 3> parseDimensions(const std::string &text);

/// `text` with its lines broken between words at `width` columns, for help
/// footers (CLI11 prints them as they are); newlines in `text` stay.
std::string paragraph(std::string_view text, size_t width = 100);

/// A usage error found after parsing (a kernel that is not in the file, a
/// bad argument): prints `ptxvm COMMAND: message` and returns kUsage.
int usageError(const CLI::App &command, const std::string &message);

/// Reads and parses `opts.file` fully. Returns nullptr when the file cannot
/// be read; diagnostics accumulate in `diags`.
std::unique_ptr<ptx::Module> loadModule(const InputOptions &opts, ptx::DiagnosticList &diags);

/// Prints diagnostics to stderr (text) or stdout (JSON: {"diagnostics": [...]}).
void printDiagnostics(const ptx::DiagnosticList &diags, bool json);

} // namespace ptxvm
