#include "ptx/Version.h"

#include "ptx/InstrTable.h"

#include "ptxvm/GitCommit.h" // generated at build time: PTXVM_GIT_COMMIT

#include <boost/json/object.hpp>

#include <algorithm>

namespace ptx {
namespace {

std::string versionOf(unsigned tenTimes) {
  return std::to_string(tenTimes / 10) + "." + std::to_string(tenTimes % 10);
}

BuildInfo compute() {
  BuildInfo b;
  b.version = PTXVM_VERSION;
  b.commit = PTXVM_GIT_COMMIT;
  b.buildType = PTXVM_BUILD_TYPE;
  b.llvmVersion = PTXVM_LLVM_VERSION;
  b.arch = PTXVM_ARCH;
  b.minSm = UINT32_MAX;
  for (const Form &f : InstrTable::get().forms()) {
    if (f.sm == 0) continue;
    b.minSm = std::min<unsigned>(b.minSm, f.sm);
    b.maxSm = std::max<unsigned>(b.maxSm, f.sm);
  }
  if (b.minSm == UINT32_MAX) b.minSm = 0;
  return b;
}

} // namespace

const BuildInfo &buildInfo() {
  static const BuildInfo info = compute();
  return info;
}

namespace {
// Computed while the program (or libcudart.so.13) loads: reports are written at exit, after the
// instruction table that compute() reads may have been destroyed with the other statics.
[[maybe_unused]] const bool kComputedAtLoad = (buildInfo(), true);
} // namespace

std::string versionText() {
  const BuildInfo &b = buildInfo();
  std::string text = "ptxvm " + std::string(b.version) + "\n";
  text += "commit: " + std::string(b.commit) + "\n";
  text +=
      "build: " + std::string(b.buildType) + (b.arch.empty() ? "" : ", -march=" + std::string(b.arch)) + "\n";
  text += "LLVM: " +
          (b.llvmVersion.empty() ? std::string("none (built without the CPU device)")
                                 : std::string(b.llvmVersion) + " (the CPU device)") +
          "\n";
  text += "PTX ISA: up to " + versionOf(b.maxPtxIsa) + "\n";
  text += "targets: sm_" + std::to_string(b.minSm) + " to sm_" + std::to_string(b.maxSm) +
          " (instruction forms checked against .target)\n";
  return text;
}

boost::json::object buildInfoJson() {
  const BuildInfo &b = buildInfo();
  boost::json::object o{{"version", b.version},
                        {"commit", b.commit},
                        {"build_type", b.buildType},
                        {"ptx_isa", versionOf(b.maxPtxIsa)},
                        {"sm", {{"min", b.minSm}, {"max", b.maxSm}}}};
  if (b.llvmVersion.empty())
    o["llvm"] = nullptr;
  else
    o["llvm"] = b.llvmVersion;
  return o;
}

} // namespace ptx
