#include "runtime/cudart/LaunchReport.h"

#include <fstream>
#include <sstream>

namespace cudart {

namespace {
std::string dim(runtime::Dim3 d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}
} // namespace

std::string launchJson(std::string_view kernel, runtime::Dim3 grid, runtime::Dim3 block,
                       const runtime::LaunchResult &r) {
  std::ostringstream out;
  out << "{\"kernel\":\"" << ptx::jsonEscape(kernel) << "\",\"grid\":" << dim(grid)
      << ",\"block\":" << dim(block) << ",\"status\":\"" << r.status
      << "\",\"error\":" << (r.error.empty() ? "null" : "\"" + r.error + "\"")
      << ",\"thread_instructions\":" << r.stats.threadInstructions
      << ",\"warp_instructions\":" << r.stats.warpInstructions << ",\"wall_seconds\":" << r.wallSeconds
      << ",\"divergent_branches\":" << r.stats.divergentBranches << "}";
  return out.str();
}

std::string reportJson(const std::vector<std::string> &launches, const ptx::DiagnosticList &diags) {
  std::string out = "{\"launches\":[";
  for (size_t i = 0; i < launches.size(); ++i) out += (i ? "," : "") + launches[i];
  out += "],\"diagnostics\":" + diags.renderJson() + "}\n";
  return out;
}

bool writeReport(const std::string &path, const std::vector<std::string> &launches,
                 const ptx::DiagnosticList &diags) {
  std::ofstream out(path);
  out << reportJson(launches, diags);
  return static_cast<bool>(out);
}

} // namespace cudart
