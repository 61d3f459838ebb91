// The JSON report of launches and diagnostics that `ptxvm run --report` and the CUDA runtime
// replacement (PTXVM_REPORT / `ptxvm exec --report`) both write: {"ptxvm": {version, commit,
// ...}, "launches": [...], "diagnostics": [...]}.
#pragma once

#include "ptx/Diagnostic.h"
#include "runtime/Device.h"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace cudart {

/// One launch: kernel, grid, block, status, error (null when none), instruction counts, time,
/// the device and how it ran the kernel (engine: interpreter, compiled, driver).
boost::json::object launchJson(std::string_view kernel, runtime::Dim3 grid, runtime::Dim3 block,
                               const runtime::LaunchResult &r);

/// The whole report, from launch objects made by launchJson.
boost::json::object reportJson(const std::vector<boost::json::object> &launches,
                               const ptx::DiagnosticList &diags);

/// Writes the report (one line of JSON) to `path`; false when the file cannot be written.
bool writeReport(const std::string &path, const std::vector<boost::json::object> &launches,
                 const ptx::DiagnosticList &diags);

} // namespace cudart
