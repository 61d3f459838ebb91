// What this build of ptxvm is: its version, the commit it was built from, how it was
// built, and the PTX it serves. `ptxvm --version` prints it and every JSON report
// carries it, so a report can be traced back to the build that wrote it.
#pragma once

#include <string>
#include <string_view>

namespace boost::json {
class object;
}

namespace ptx {

/// The newest PTX ISA the front ends and the verifier accept, as 10 * major + minor.
inline constexpr unsigned kMaxPtxIsaVersion = 90;

struct BuildInfo {
  std::string_view version;     // the project version, "0.1.0"
  std::string_view commit;      // git commit (12 hex digits, "-dirty" when modified), or "unknown"
  std::string_view buildType;   // CMake build type: "RelWithDebInfo", "Release", ...
  std::string_view llvmVersion; // LLVM of the CPU device, or "" when built without it
  std::string_view arch;        // -march of the build ("native", "x86-64-v3", "" for the default)
  unsigned maxPtxIsa = kMaxPtxIsaVersion;
  unsigned minSm = 0, maxSm = 0; // the sm_XX range of the instruction table's forms
};

const BuildInfo &buildInfo();

/// The text of `ptxvm --version`: several lines, the first "ptxvm VERSION".
std::string versionText();

/// {"version", "commit", "build_type", "llvm", "ptx_isa", "sm"}: the report's "ptxvm" object
/// (include <boost/json/object.hpp> to call it).
boost::json::object buildInfoJson();

} // namespace ptx
