#include "runtime/cudart/LaunchReport.h"

#include "ptx/DiagnosticJson.h"
#include "ptx/Version.h"

#include <boost/json/serialize.hpp>

#include <fstream>

namespace cudart {

namespace {
boost::json::array dim(runtime::Dim3 d) { return {d.x, d.y, d.z}; }

/// How the kernel ran; for compiled code, what was compiled and how long it took.
boost::json::object engineJson(const runtime::EngineInfo &e) {
  boost::json::object o{{"name", e.name}};
  if (e.name == "compiled") {
    o["compile_seconds"] = e.compileSeconds;
    o["instructions"] = e.instructions;
    o["compiled"] = e.compiled;
    o["handler_calls"] = e.handlerCalls;
    o["interpreted"] = e.interpreted;
    o["cache"] = e.cache;
    o["checked"] = e.checked;
  }
  if (!e.tier.empty()) {
    o["tier"] = e.tier;
    o["warmup_instructions"] = e.warmupInstructions;
  }
  if (!e.note.empty()) o["note"] = e.note;
  return o;
}
} // namespace

boost::json::object launchJson(std::string_view kernel, runtime::Dim3 grid, runtime::Dim3 block,
                               const runtime::LaunchResult &r) {
  boost::json::value error = nullptr;
  if (!r.error.empty()) error = r.error;
  return {{"kernel", kernel},
          {"grid", dim(grid)},
          {"block", dim(block)},
          {"status", r.status},
          {"error", std::move(error)},
          {"thread_instructions", r.stats.threadInstructions},
          {"warp_instructions", r.stats.warpInstructions},
          {"wall_seconds", r.wallSeconds},
          {"divergent_branches", r.stats.divergentBranches},
          {"device", r.device},
          {"engine", engineJson(r.engine)}};
}

boost::json::object reportJson(const std::vector<boost::json::object> &launches,
                               const ptx::DiagnosticList &diags) {
  return {{"ptxvm", ptx::buildInfoJson()},
          {"launches", boost::json::array(launches.begin(), launches.end())},
          {"diagnostics", ptx::toJson(diags)}};
}

bool writeReport(const std::string &path, const std::vector<boost::json::object> &launches,
                 const ptx::DiagnosticList &diags) {
  std::ofstream out(path);
  out << boost::json::serialize(reportJson(launches, diags)) << '\n';
  return static_cast<bool>(out);
}

} // namespace cudart
