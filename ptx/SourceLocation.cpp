#include "ptx/SourceLocation.h"

namespace ptx {

void setCudaLocation(Diagnostic &d, const Module &m, const Function &fn, const Instruction &in) {
  if (!in.debugLoc) return;
  const DebugLoc &dl = fn.debugLocs[in.debugLoc];
  auto path = [&](uint32_t index) {
    for (const FileEntry &f : m.files)
      if (f.index == index) return f.path;
    return std::string();
  };
  d.loc.cudaFile = path(dl.file);
  d.loc.cudaLine = dl.line;
  if (dl.inlinedFile)
    d.fields.emplace_back("inlined_at", path(dl.inlinedFile) + ":" + std::to_string(dl.inlinedLine));
}

} // namespace ptx
