// divergent-branches FILE.ptx: for every kernel of the file, the branches that may split a
// warp, as ptxvm's divergence analysis proves them (warp- and CTA-uniform branches are left
// out). An example of a program built on ptxvm's libraries (find_package(ptxvm)).
#include "analysis/Divergence.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.ptx\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();

  ptx::DiagnosticList diags;
  std::unique_ptr<ptx::Module> module = ptx::parseModule(text.str(), argv[1], diags);
  if (!diags.hasErrors()) ptx::verifyModule(*module, diags);
  if (diags.hasErrors()) {
    std::cerr << diags.renderText();
    return 1;
  }

  for (const ptx::Function &kernel : module->functions) {
    if (!kernel.isKernel || !kernel.hasBody) continue;
    const std::string name(module->str(kernel.name));
    analysis::DivergenceResult result = analysis::analyzeDivergence(*module, kernel);
    unsigned branches = 0, divergent = 0;
    for (const auto &fd : result.functions()) {
      const ptx::Function &fn = fd->function();
      const auto &gated = fd->gated();
      for (uint32_t b = 0; b < gated.branches().size(); ++b) {
        ++branches;
        if (fd->branchLevel(b) != analysis::Uniformity::Divergent) continue;
        ++divergent;
        std::printf("%s: %s line %u: divergent branch\n", name.c_str(),
                    std::string(module->str(fn.name)).c_str(), fn.instrs[gated.branches()[b].instr].loc.line);
      }
    }
    std::printf("%s: %u of %u branches divergent\n", name.c_str(), divergent, branches);
  }
  return 0;
}
