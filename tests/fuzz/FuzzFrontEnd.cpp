// libFuzzer target for the default front end. Any input must parse (with or
// without diagnostics) without crashing, hanging or leaking; whatever parses
// cleanly must verify without crashing, and its written form must parse
// cleanly again to the same written text.
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Writer.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  ptx::DiagnosticList diags;
  ptx::ParseOptions lazy;
  lazy.lazyBodies = true;
  auto indexed = ptx::parseModule(text, "fuzz.ptx", diags, lazy);
  ptx::materializeAll(*indexed, diags);

  ptx::DiagnosticList fullDiags;
  auto m = ptx::parseModule(std::move(text), "fuzz.ptx", fullDiags);
  for (const ptx::Diagnostic &d : fullDiags.all()) (void)d.renderText();
  if (fullDiags.hasErrors()) return 0;
  ptx::verifyModule(*m, fullDiags);
  std::string written = ptx::writeModule(*m);
  ptx::DiagnosticList again;
  auto reparsed = ptx::parseModule(written, "written.ptx", again);
  if (again.hasErrors() || ptx::writeModule(*reparsed) != written) std::abort();
  return 0;
}
