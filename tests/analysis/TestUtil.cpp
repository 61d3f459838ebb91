// Helpers of the analysis tests.
#include "tests/analysis/TestUtil.h"

#include "ptx/Parser.h"
#include "ptx/Writer.h"

#include <gtest/gtest.h>

namespace analysis::test {

std::unique_ptr<ptx::Module> parse(const std::string &text) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(text, "test.ptx", diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  return m;
}

FunctionAnalyses::FunctionAnalyses(const ptx::Module &m, const ptx::Function &f)
    : module(m), fn(f), cfg(f), dom(DominatorTree::forward(cfg)), postDom(DominatorTree::backward(cfg)),
      frontier(cfg.graph(), dom), loops(cfg), defUse(m, f), liveness(cfg, defUse),
      ssa(cfg, dom, frontier, loops, defUse, liveness), gated(cfg, postDom, loops, ssa) {}

std::unique_ptr<FunctionAnalyses> analyze(const ptx::Module &m, const std::string &function) {
  const ptx::Function *f = m.findFunction(function);
  if (!f) {
    ADD_FAILURE() << "no function " << function;
    f = &m.functions.at(0);
  }
  return std::make_unique<FunctionAnalyses>(m, *f);
}

uint32_t blockNamed(const ptx::Module &m, const ptx::Function &fn, const std::string &label) {
  for (uint32_t b = 0; b < fn.blocks.size(); ++b)
    if (fn.blocks[b].label != UINT32_MAX && m.str(fn.labels[fn.blocks[b].label].name) == label) return b;
  ADD_FAILURE() << "no block " << label;
  return 0;
}

uint32_t instrContaining(const ptx::Module &m, const ptx::Function &fn, const std::string &text) {
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    std::string written = ptx::writeInstruction(m, fn, fn.instrs[i]);
    std::string flat; // one space between the name and the operands
    for (char c : written)
      if (c != '\t') flat += c;
    if (flat.find(text) != std::string::npos) return i;
  }
  ADD_FAILURE() << "no instruction containing " << text;
  return 0;
}

} // namespace analysis::test
