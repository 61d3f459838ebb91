// Every analysis over the whole corpus (the generated PTX of kernels/*.cu
// and the hand-written kernels/ptx): no errors, well-formed SSA, and answers
// that hold whatever the launch (%tid.x is divergent, %ctaid.x is not).
#include "analysis/Analyses.h"
#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "tests/Corpus.h"

#include "ptx/Parser.h"
#include "ptx/Writer.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

class AnalysisCorpus : public ::testing::TestWithParam<ptxvm::test::CorpusFile> {};

TEST_P(AnalysisCorpus, EveryFunctionAnalyses) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::readText(GetParam().path), GetParam().path, diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  AnalysisManager am(*m);
  for (const ptx::Function &fn : m->functions) {
    if (!fn.hasBody) continue;
    const GatedSSA &g = am.get<GatedSSAAnalysis>(fn);
    const Cfg &cfg = g.cfg();
    const SSA &ssa = g.ssa();
    // Every read in reachable code has one reaching value, whose definition
    // dominates it.
    const DominatorTree &dom = am.get<DominatorTreeAnalysis>(fn);
    for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
      uint32_t b = cfg.blockOf(i);
      if (!cfg.reachable(b)) continue;
      for (ValueId v : ssa.useValues(i)) {
        ASSERT_NE(v, kNoValue) << m->str(fn.name) << " instruction " << i;
        EXPECT_TRUE(dom.dominates(ssa.value(v).block, b))
            << m->str(fn.name) << " line " << fn.instrs[i].loc.line;
      }
    }
    EXPECT_FALSE(g.print(*m).empty() && !ssa.phis().empty());
  }
  const DivergenceResult &all = am.getModule<DivergenceAnalysis>();
  std::vector<BarrierReport> reports = checkBarriers(*m, all);
  for (const BarrierReport &r : reports)
    for (const ptx::Diagnostic &d : r.diagnostics)
      EXPECT_NE(d.severity, ptx::Severity::Error) << d.renderText(); // the corpus has no barrier errors
  for (const ptx::Function &fn : m->functions) {
    if (!fn.hasBody || !fn.isKernel) continue;
    DivergenceResult r = analyzeDivergence(*m, fn);
    for (const auto &fd : r.functions()) {
      const ptx::Function &f = fd->function();
      EXPECT_FALSE(fd->print(*m).empty());
      for (uint32_t i = 0; i < f.instrs.size(); ++i) {
        if (!fd->gated().cfg().reachable(fd->gated().cfg().blockOf(i))) continue;
        std::string text = ptx::writeInstruction(*m, f, f.instrs[i]);
        if (text.starts_with("mov.u32") && text.ends_with("%tid.x;")) {
          EXPECT_EQ(r.value(f, i, 0), Uniformity::Divergent) << text;
        }
        if (text.starts_with("mov.u32") && text.ends_with("%ctaid.x;")) {
          EXPECT_NE(r.value(f, i, 0), Uniformity::Divergent) << text;
        }
        // A function analysed for one kernel answers no more uniformly than
        // for all kernels together.
        const FunctionDivergence *both = all.find(f);
        ASSERT_NE(both, nullptr);
        for (uint32_t k = 0; k < fd->gated().ssa().defUse().registerDefCount(i); ++k)
          EXPECT_LE(r.value(f, i, k), both->value(i, k)) << text;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, AnalysisCorpus, ::testing::ValuesIn(ptxvm::test::corpusFiles()),
                         [](const auto &info) { return info.param.name; });

} // namespace
} // namespace analysis::test
