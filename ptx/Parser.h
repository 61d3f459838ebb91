// Front ends: PTX text -> ptx::Module. The default is a hand-written lexer and
// recursive-descent parser built for speed; the ANTLR4 grammar
// (grammar/PTX.g4) fills the same IR through the same builders.
#pragma once

#include "ptx/Diagnostic.h"
#include "ptx/IR.h"

#include <memory>
#include <string>

namespace ptx {

enum class FrontEnd { Fast, Antlr };

struct ParseOptions {
  FrontEnd frontEnd = FrontEnd::Fast;
  /// Index the module (functions, signatures, body extents) and parse each
  /// body on first use (materializeBody). Fast front end only.
  bool lazyBodies = false;
};

/// Parses `source`. Always returns a module; errors go to `diags` (kind
/// parse-error) and the module then holds what could be recovered.
std::unique_ptr<Module> parseModule(std::string source, std::string fileName, DiagnosticList &diags,
                                    const ParseOptions &options = {});

/// Parses the body of a function indexed by a lazy parse; does nothing when
/// it is parsed already. False when the body had errors.
bool materializeBody(Module &m, Function &fn, DiagnosticList &diags);
/// Parses every body not parsed yet.
bool materializeAll(Module &m, DiagnosticList &diags);

/// The ANTLR4 front end (grammar/AntlrFrontEnd.cpp).
std::unique_ptr<Module> parseModuleAntlr(std::string source, std::string fileName, DiagnosticList &diags);

/// Reads a whole file; false with an io-error diagnostic when it cannot.
bool readFile(const std::string &path, std::string &out, DiagnosticList &diags);

} // namespace ptx
