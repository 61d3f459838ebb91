// Diagnostic: the one error/warning value every stage of ptxvm reports,
// with a location in the PTX (and CUDA) source, rendered as text or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptx {

/// Stable kind names (used in JSON); DESIGN.md §4 lists them.
enum class DiagKind : uint8_t {
  ParseError,
  VerifyError,
  BarrierDeadlock,
  BarrierCountMismatch,
  BarrierDoubleArrive,
  BarrierInvalidOperand,
  BarrierMixedOps,
  DivergentBarrier,
  WarpSyncMismatch,
  OutOfBounds,
  MisalignedAccess,
  SharedRace,
  GlobalRace,
  UninitializedRead,
  Trap,
  InstructionLimit,
  Unsupported,
  IoError,
  IllegalInstruction, // a call through a null or garbage function pointer
  ResourceLimit,      // a module or launch needs more memory than the device has
  Timeout             // a launch ran past its wall-clock limit (--timeout)
};
std::string_view kindName(DiagKind k);

enum class Severity : uint8_t { Note, Warning, Error };
std::string_view severityName(Severity s);

struct DiagLocation {
  std::string file;  // PTX file
  uint32_t line = 0; // 1-based; 0 = unknown
  uint32_t column = 0;
  std::string function; // kernel or device function
  std::string cudaFile; // from .loc
  uint32_t cudaLine = 0;
};

struct Diagnostic {
  DiagKind kind = DiagKind::ParseError;
  Severity severity = Severity::Error;
  std::string message;
  DiagLocation loc;
  std::string sourceLine;                                  // the PTX line, for the caret display
  std::vector<std::pair<std::string, std::string>> fields; // kind-specific

  /// `file:line:col: error: message` then the line and a caret.
  std::string renderText() const;
  /// One JSON object (toJson in DiagnosticJson.h, serialized).
  std::string renderJson() const;
};

/// Collects diagnostics; stages append, callers decide how to print.
class DiagnosticList {
public:
  void add(Diagnostic d) {
    if (d.severity == Severity::Error) ++errors_;
    diags_.push_back(std::move(d));
  }
  const std::vector<Diagnostic> &all() const { return diags_; }
  size_t errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ != 0; }
  void clear() {
    diags_.clear();
    errors_ = 0;
  }
  std::string renderText() const;
  /// A JSON array (toJson in DiagnosticJson.h, serialized).
  std::string renderJson() const;

private:
  std::vector<Diagnostic> diags_;
  size_t errors_ = 0;
};

} // namespace ptx
