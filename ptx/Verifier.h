// The verifier: checks a parsed module against the instruction table and
// PTX's rules (operand shapes and types, defined names, state spaces,
// version/target availability, barrier operands), reporting `verify-error`
// diagnostics at the offending line. It aims to accept exactly what ptxas
// accepts.
#pragma once

#include "ptx/Diagnostic.h"
#include "ptx/IR.h"

namespace ptx {

struct VerifyOptions {
  /// Check instruction availability against `.version` and `.target`.
  bool checkAvailability = true;
};

/// True when no error was found. Every body must be parsed.
bool verifyModule(const Module &m, DiagnosticList &diags, const VerifyOptions &options = {});

} // namespace ptx
