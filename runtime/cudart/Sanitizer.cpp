#include "runtime/cudart/Sanitizer.h"

#include <cxxabi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace cudart {

namespace {

constexpr std::string_view kPrefix = "========= ";
constexpr std::string_view kIndent = "=========     ";

std::string_view field(const ptx::Diagnostic &d, std::string_view name) {
  for (const auto &[key, value] : d.fields)
    if (key == name) return value;
  return {};
}

std::string_view firstLine(std::string_view s) { return s.substr(0, s.find('\n')); }

std::string spaceTag(std::string_view space) {
  if (space == "global") return "__global__";
  if (space == "shared") return "__shared__";
  if (space == "local") return "__local__";
  if (space == "const") return "__constant__";
  if (space == "param") return "__param__";
  return std::string(space);
}

/// "x,y,z" -> "(x,y,z)".
std::string triple(std::string_view commaSeparated) { return "(" + std::string(commaSeparated) + ")"; }

std::string threadTriple(uint64_t linear, runtime::Dim3 block) {
  uint64_t x = linear % block.x, y = linear / block.x % block.y, z = linear / (uint64_t{block.x} * block.y);
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

/// The emulator's "nearest" text, "allocation 0xB of S bytes, K bytes past
/// its end" (or "before it"), in compute-sanitizer's words.
std::string describeAddress(std::string_view address, std::string_view nearest) {
  unsigned long long base = 0, size = 0, distance = 0;
  char where[32] = {};
  std::string text(nearest);
  bool freed = text.starts_with("freed ");
  if (freed) text = text.substr(6);
  if (std::sscanf(text.c_str(), "allocation 0x%llx of %llu bytes, %llu bytes %31[a-z]", &base, &size,
                  &distance, where) == 4) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "Address %.*s is %llu bytes %s the nearest %sallocation at 0x%llx of size %llu bytes",
                  static_cast<int>(address.size()), address.data(), distance,
                  std::strcmp(where, "before") == 0 ? "before" : "after", freed ? "(freed) " : "", base,
                  size);
    return line;
  }
  if (nearest.empty()) return "Address " + std::string(address) + " is out of bounds";
  return "Address " + std::string(address) + " is out of bounds: " + std::string(nearest);
}

std::string title(const ptx::Diagnostic &d) {
  std::string_view message = firstLine(d.message);
  using K = ptx::DiagKind;
  switch (d.kind) {
  case K::OutOfBounds:
  case K::MisalignedAccess: {
    std::string_view access = d.message.find(" write of ") != std::string::npos ? "write" : "read";
    return "Invalid " + spaceTag(field(d, "space")) + " " + std::string(access) + " of size " +
           std::string(field(d, "size")) + " bytes";
  }
  case K::BarrierDeadlock:
  case K::BarrierCountMismatch:
  case K::BarrierDoubleArrive:
  case K::BarrierInvalidOperand:
  case K::BarrierMixedOps:
  case K::WarpSyncMismatch: return "Barrier error detected: " + std::string(message);
  case K::DivergentBarrier: return "Warning: divergent barrier: " + std::string(message);
  case K::SharedRace:
  case K::GlobalRace: return "Race hazard detected: " + std::string(message);
  case K::InstructionLimit: return "Launch stopped: " + std::string(message);
  case K::Unsupported: return "Not supported by the emulator: " + std::string(message);
  default: break;
  }
  std::string t(message);
  if (d.severity == ptx::Severity::Warning) t = "Warning: " + t;
  return t;
}

} // namespace

std::string demangle(std::string_view name) {
  std::string n(name);
  int status = 0;
  char *out = abi::__cxa_demangle(n.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !out) return n;
  std::string result(out);
  std::free(out);
  return result;
}

std::string renderSanitizer(const ptx::Diagnostic &d, const SanitizerContext &context) {
  std::ostringstream out;
  out << kPrefix << title(d) << "\n";
  // Where: the function, the CUDA line (from .loc), the PTX line.
  out << kIndent << "at " << (d.loc.function.empty() ? std::string("<unknown>") : demangle(d.loc.function));
  if (!d.loc.cudaFile.empty()) out << " in " << d.loc.cudaFile << ":" << d.loc.cudaLine;
  if (std::string_view inlined = field(d, "inlined_at"); !inlined.empty()) out << " inlined at " << inlined;
  if (d.loc.line) {
    out << " (PTX line " << d.loc.line;
    if (!d.loc.file.empty()) out << " of " << d.loc.file;
    out << ")";
  }
  out << "\n";
  std::string_view cta = field(d, "cta"), thread = field(d, "thread"), warp = field(d, "warp");
  if (!thread.empty() && !cta.empty()) {
    out << kIndent << "by thread "
        << threadTriple(std::strtoull(std::string(thread).c_str(), nullptr, 10), context.block)
        << " in block " << triple(cta) << "\n";
  } else if (!warp.empty() && !cta.empty()) {
    out << kIndent << "by warp " << warp;
    if (std::string_view lanes = field(d, "lanes"); !lanes.empty()) out << " (lanes " << lanes << ")";
    out << " in block " << triple(cta) << "\n";
  }
  if (d.kind == ptx::DiagKind::OutOfBounds) {
    std::string_view address = field(d, "address");
    if (d.message.starts_with("use-after-free"))
      out << kIndent << "Address " << address << " is in a freed allocation\n";
    else
      out << kIndent << describeAddress(address, field(d, "nearest")) << "\n";
  } else if (d.kind == ptx::DiagKind::MisalignedAccess) {
    out << kIndent << "Address " << field(d, "address") << " is misaligned\n";
  }
  // The rest of a multi-line message (a deadlock's wait-for table).
  for (size_t at = d.message.find('\n'); at != std::string::npos;) {
    size_t next = d.message.find('\n', at + 1);
    std::string_view line =
        std::string_view(d.message).substr(at + 1, next == std::string::npos ? next : next - at - 1);
    size_t text = line.find_first_not_of(' ');
    if (text != std::string_view::npos) out << kIndent << line.substr(text) << "\n";
    at = next;
  }
  if (!d.sourceLine.empty()) {
    std::string_view src = d.sourceLine;
    size_t text = src.find_first_not_of(" \t");
    if (text != std::string_view::npos) out << kIndent << "PTX: " << src.substr(text) << "\n";
  }
  out << "=========\n";
  return out.str();
}

std::string renderApiError(std::string_view api, int code, std::string_view name, std::string_view message) {
  std::ostringstream out;
  out << kPrefix << "Program hit " << name << " (error " << code << ") due to \"" << message
      << "\" on CUDA API call to " << api << ".\n";
  return out.str();
}

} // namespace cudart
