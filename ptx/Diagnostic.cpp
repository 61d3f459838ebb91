#include "ptx/Diagnostic.h"

#include "ptx/DiagnosticJson.h"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

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
  case DiagKind::IllegalInstruction: return "illegal-instruction";
  case DiagKind::ResourceLimit: return "resource-limit";
  case DiagKind::Timeout: return "timeout";
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
    fmt::format_to(std::back_inserter(out), "{}:", loc.line);
    if (loc.column) fmt::format_to(std::back_inserter(out), "{}:", loc.column);
  }
  if (!out.empty()) out += " ";
  fmt::format_to(std::back_inserter(out), "{}: {} [{}]", severityName(severity), message, kindName(kind));
  if (!loc.function.empty()) out += "\n  in function " + loc.function;
  if (!loc.cudaFile.empty())
    fmt::format_to(std::back_inserter(out), "\n  at {}:{}", loc.cudaFile, loc.cudaLine);
  for (const auto &[key, value] : fields) fmt::format_to(std::back_inserter(out), "\n  {}: {}", key, value);
  if (!sourceLine.empty()) {
    out += "\n  " + sourceLine + "\n  ";
    // Keep tabs so the caret lines up under the same column in a terminal.
    for (uint32_t c = 1; c < loc.column && c - 1 < sourceLine.size(); ++c)
      out += sourceLine[c - 1] == '\t' ? '\t' : ' ';
    out += "^";
  }
  return out;
}

boost::json::object toJson(const Diagnostic &d) {
  boost::json::object location{{"file", d.loc.file}, {"line", d.loc.line}, {"column", d.loc.column}};
  if (!d.loc.function.empty()) location["function"] = d.loc.function;
  if (!d.loc.cudaFile.empty()) location["source"] = {{"file", d.loc.cudaFile}, {"line", d.loc.cudaLine}};
  boost::json::object out{{"kind", kindName(d.kind)},
                          {"severity", severityName(d.severity)},
                          {"message", d.message},
                          {"location", std::move(location)}};
  if (!d.fields.empty()) {
    boost::json::object fields;
    for (const auto &[key, value] : d.fields) fields[key] = value;
    out["fields"] = std::move(fields);
  }
  return out;
}

boost::json::array toJson(const DiagnosticList &diags) {
  boost::json::array out;
  out.reserve(diags.all().size());
  for (const Diagnostic &d : diags.all()) out.push_back(toJson(d));
  return out;
}

std::string Diagnostic::renderJson() const { return boost::json::serialize(toJson(*this)); }

std::string DiagnosticList::renderText() const {
  std::string out;
  for (const Diagnostic &d : diags_) out += d.renderText() + "\n";
  return out;
}

std::string DiagnosticList::renderJson() const { return boost::json::serialize(toJson(*this)); }

} // namespace ptx
