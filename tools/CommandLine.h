// Small command-line helpers shared by the ptxvm subcommands.
#pragma once

#include "ptx/Diagnostic.h"
#include "ptx/IR.h"
#include "ptx/Parser.h"

#include <memory>
#include <string>
#include <vector>

namespace ptxvm {

/// Exit codes of every subcommand.
enum Exit { kOk = 0, kDiagnostics = 1, kUsage = 2 };

/// Options common to every subcommand that reads a PTX file.
struct InputOptions {
  std::string file;
  ptx::FrontEnd frontEnd = ptx::FrontEnd::Fast;
  bool json = false; // diagnostics as JSON on stdout
};

/// Recognises --parser=fast|antlr and --diagnostics=json; false with a
/// message in `error` when `arg` is one of them but malformed.
bool parseCommonOption(const std::string &arg, InputOptions &opts, std::string &error, bool &consumed);

/// Reads and parses `opts.file` fully. Returns nullptr when the file cannot
/// be read; diagnostics accumulate in `diags`.
std::unique_ptr<ptx::Module> loadModule(const InputOptions &opts, ptx::DiagnosticList &diags);

/// Prints diagnostics to stderr (text) or stdout (JSON).
void printDiagnostics(const ptx::DiagnosticList &diags, bool json);

} // namespace ptxvm
