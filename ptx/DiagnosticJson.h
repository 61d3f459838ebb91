// Diagnostics as Boost.JSON values, for documents that embed them (launch
// reports, `ptxvm analyze --format json`, `--diagnostics=json`).
#pragma once

#include "ptx/Diagnostic.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace ptx {

/// {"kind", "severity", "message", "location": {"file", "line", "column",
/// "function"?, "source"?: {"file", "line"}}, "fields"?: {...}}
boost::json::object toJson(const Diagnostic &d);
/// An array of toJson(d), in the order the diagnostics were added.
boost::json::array toJson(const DiagnosticList &diags);

} // namespace ptx
