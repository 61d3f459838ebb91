#include "tools/CommandLine.h"

#include <cstdio>

namespace ptxvm {

bool parseCommonOption(const std::string &arg, InputOptions &opts, std::string &error, bool &consumed) {
  consumed = true;
  if (arg == "--parser=fast")
    opts.frontEnd = ptx::FrontEnd::Fast;
  else if (arg == "--parser=antlr")
    opts.frontEnd = ptx::FrontEnd::Antlr;
  else if (arg.starts_with("--parser=")) {
    error = "unknown parser '" + arg.substr(9) + "' (expected fast or antlr)";
    return false;
  } else if (arg == "--diagnostics=json")
    opts.json = true;
  else if (arg == "--diagnostics=text")
    opts.json = false;
  else
    consumed = false;
  return true;
}

std::unique_ptr<ptx::Module> loadModule(const InputOptions &opts, ptx::DiagnosticList &diags) {
  std::string text;
  if (!ptx::readFile(opts.file, text, diags)) return nullptr;
  ptx::ParseOptions po;
  po.frontEnd = opts.frontEnd;
  return ptx::parseModule(std::move(text), opts.file, diags, po);
}

void printDiagnostics(const ptx::DiagnosticList &diags, bool json) {
  if (json) {
    std::printf("{\"diagnostics\":%s}\n", diags.renderJson().c_str());
    return;
  }
  for (const ptx::Diagnostic &d : diags.all()) std::fprintf(stderr, "%s\n", d.renderText().c_str());
}

} // namespace ptxvm
