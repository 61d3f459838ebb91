// The JSON report of launches and diagnostics that `ptxvm run --report` and the CUDA runtime
// replacement (PTXVM_REPORT / `ptxvm exec --report`) both write: {"launches": [...],
// "diagnostics": [...]}.
#pragma once

#include "ptx/Diagnostic.h"
#include "runtime/Device.h"

#include <string>
#include <string_view>
#include <vector>

namespace cudart {

/// One launch as a JSON object: kernel, grid, block, status, error, instruction counts, time.
std::string launchJson(std::string_view kernel, runtime::Dim3 grid, runtime::Dim3 block,
                       const runtime::LaunchResult &r);

/// The whole report, from launch objects made by launchJson.
std::string reportJson(const std::vector<std::string> &launches, const ptx::DiagnosticList &diags);

/// Writes the report to `path`; false when the file cannot be written.
bool writeReport(const std::string &path, const std::vector<std::string> &launches,
                 const ptx::DiagnosticList &diags);

} // namespace cudart
