#include "ptx/Diagnostic.h"

#include <cstdio>

namespace ptx {

std::string_view kindName(DiagKind k) {
  switch (k) {
  case DiagKind::ParseError: return "parse-error";
  case DiagKind::VerifyError: return "verify-error";
  case DiagKind::BarrierDeadlock: return "barrier-deadlock";
  case DiagKind::BarrierCountMismatch: return "barrier-count-mismatch";
  case DiagKind::BarrierDoubleArrive: return "barrier-double-arrive";
  case DiagKind::BarrierInvalidOperand: return "barrier-invalid-operand";
  case DiagKind::BarrierMixedOps: return "barrier-mixed-ops";
  case DiagKind::DivergentBarrier: return "divergent-barrier";
  case DiagKind::WarpSyncMismatch: return "warp-sync-mismatch";
  case DiagKind::OutOfBounds: return "out-of-bounds";
  case DiagKind::MisalignedAccess: return "misaligned-access";
  case DiagKind::SharedRace: return "shared-race";
  case DiagKind::GlobalRace: return "global-race";
  case DiagKind::UninitializedRead: return "uninitialized-read";
  case DiagKind::Trap: return "trap";
  case DiagKind::InstructionLimit: return "instruction-limit";
  case DiagKind::Unsupported: return "unsupported";
  case DiagKind::IoError: return "io-error";
  }
  return "unknown";
}

std::string_view severityName(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "error";
}

std::string Diagnostic::renderText() const {
  std::string out;
  if (!loc.file.empty()) out += loc.file + ":";
  if (loc.line) {
    out += std::to_string(loc.line) + ":";
    if (loc.column) out += std::to_string(loc.column) + ":";
  }
  if (!out.empty()) out += " ";
  out += std::string(severityName(severity)) + ": " + message + " [" + std::string(kindName(kind)) + "]";
  if (!loc.function.empty()) out += "\n  in function " + loc.function;
  if (!loc.cudaFile.empty()) out += "\n  at " + loc.cudaFile + ":" + std::to_string(loc.cudaLine);
  for (const auto &[key, value] : fields) out += "\n  " + key + ": " + value;
  if (!sourceLine.empty()) {
    out += "\n  " + sourceLine + "\n  ";
    // Keep tabs so the caret lines up under the same column in a terminal.
    for (uint32_t c = 1; c < loc.column && c - 1 < sourceLine.size(); ++c)
      out += sourceLine[c - 1] == '\t' ? '\t' : ' ';
    out += "^";
  }
  return out;
}

std::string jsonEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string Diagnostic::renderJson() const {
  auto str = [](std::string_view s) { return "\"" + jsonEscape(s) + "\""; };
  std::string out = "{\"kind\":" + str(kindName(kind)) + ",\"severity\":" + str(severityName(severity)) +
                    ",\"message\":" + str(message) + ",\"location\":{\"file\":" + str(loc.file) +
                    ",\"line\":" + std::to_string(loc.line) + ",\"column\":" + std::to_string(loc.column);
  if (!loc.function.empty()) out += ",\"function\":" + str(loc.function);
  if (!loc.cudaFile.empty())
    out += ",\"source\":{\"file\":" + str(loc.cudaFile) + ",\"line\":" + std::to_string(loc.cudaLine) + "}";
  out += "}";
  if (!fields.empty()) {
    out += ",\"fields\":{";
    for (size_t i = 0; i < fields.size(); ++i)
      out += (i ? "," : "") + str(fields[i].first) + ":" + str(fields[i].second);
    out += "}";
  }
  return out + "}";
}

std::string DiagnosticList::renderText() const {
  std::string out;
  for (const Diagnostic &d : diags_) out += d.renderText() + "\n";
  return out;
}

std::string DiagnosticList::renderJson() const {
  std::string out = "[";
  for (size_t i = 0; i < diags_.size(); ++i) out += (i ? "," : "") + diags_[i].renderJson();
  return out + "]";
}

} // namespace ptx
