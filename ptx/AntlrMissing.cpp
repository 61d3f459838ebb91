// Stand-in while the ANTLR front end is not part of the build.
#include "ptx/Parser.h"

namespace ptx {

std::unique_ptr<Module> parseModuleAntlr(std::string, std::string fileName, DiagnosticList &diags) {
  Diagnostic d;
  d.kind = DiagKind::Unsupported;
  d.message = "this build has no ANTLR front end";
  d.loc.file = fileName;
  diags.add(std::move(d));
  return std::make_unique<Module>();
}

} // namespace ptx
