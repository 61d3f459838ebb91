// The pass manager (caching, invalidation with dependents) and the `.uni`
// marking pass, whose output must stay valid PTX for ptxas.
#include "analysis/Analyses.h"
#include "analysis/Divergence.h"
#include "analysis/UniformBranches.h"
#include "tests/Corpus.h"
#include "tests/analysis/TestUtil.h"

#include "ptx/Parser.h"
#include "ptx/Writer.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

const char kKernel[] = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry k()
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;

	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %warpid;
	setp.lt.u32 	%p1, %r1, 16;
	setp.eq.u32 	%p2, %r2, 0;
	@%p1 bra 	A;
	add.u32 	%r3, %r1, 1;
A:
	@%p2 bra 	B;
	add.u32 	%r3, %r1, 2;
B:
	ret;
}
)";

TEST(PassManager, CachesAndInvalidatesWithDependents) {
  auto m = parse(kKernel);
  const ptx::Function &fn = m->functions[0];
  AnalysisManager am(*m);
  const SSA &ssa = am.get<SSAAnalysis>(fn);
  size_t computed = am.computed();
  EXPECT_EQ(computed, 7u); // cfg, dominators, frontier, loops, def-use, liveness, ssa
  EXPECT_EQ(&am.get<SSAAnalysis>(fn), &ssa);
  EXPECT_EQ(am.computed(), computed);
  EXPECT_TRUE(am.cached<LivenessAnalysis>(&fn));
  // Keeping the CFG but not the dominators drops everything built on them.
  am.invalidate(
      PreservedAnalyses::none().preserve<CfgAnalysis>().preserve<LoopAnalysis>().preserve<SSAAnalysis>());
  EXPECT_TRUE(am.cached<CfgAnalysis>(&fn));
  EXPECT_TRUE(am.cached<LoopAnalysis>(&fn));
  EXPECT_FALSE(am.cached<DominatorTreeAnalysis>(&fn));
  EXPECT_FALSE(am.cached<SSAAnalysis>(&fn)); // computed from the dominators
  EXPECT_FALSE(am.cached<LivenessAnalysis>(&fn));
  am.get<GatedSSAAnalysis>(fn);
  EXPECT_TRUE(am.cached<SSAAnalysis>(&fn));
  // A module analysis is dropped with the function analyses it used.
  am.getModule<DivergenceAnalysis>();
  EXPECT_TRUE(am.cached<DivergenceAnalysis>());
  am.invalidate(fn, PreservedAnalyses::all());
  EXPECT_TRUE(am.cached<DivergenceAnalysis>());
  am.invalidate(fn, PreservedAnalyses::none().preserve<DivergenceAnalysis>());
  EXPECT_FALSE(am.cached<DivergenceAnalysis>());
  EXPECT_EQ(am.size(), 0u);
}

TEST(UniformBranches, MarksWarpUniformBranchesOnly) {
  auto m = parse(kKernel);
  AnalysisManager am(*m);
  PassManager pm;
  auto pass = std::make_unique<UniformBranchesPass>();
  UniformBranchesPass *uni = pass.get();
  pm.add(std::move(pass));
  pm.run(*m, am);
  EXPECT_EQ(uni->marked(), 1u);
  std::string written = ptx::writeModule(*m);
  EXPECT_NE(written.find("@%p1 bra \tA;"), std::string::npos) << written;
  EXPECT_NE(written.find("@%p2 bra.uni \tB;"), std::string::npos) << written;
  // The analyses survive the pass: it only changes modifiers.
  EXPECT_TRUE(am.cached<DivergenceAnalysis>());
  // Marking again finds nothing new.
  pm.run(*m, am);
  EXPECT_EQ(uni->marked(), 0u);
  ptx::DiagnosticList diags;
  auto reparsed = ptx::parseModule(written, "uni.ptx", diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  std::string log;
  if (!ptxvm::test::ptxasPath().empty()) {
    EXPECT_TRUE(ptxvm::test::ptxasAccepts(written, "sm_80", log)) << log;
  }
}

class UniformBranchesCorpus : public ::testing::TestWithParam<ptxvm::test::CorpusFile> {};

// Every corpus file with its proven-uniform branches marked is still PTX
// that ptxvm parses back identically and ptxas accepts.
TEST_P(UniformBranchesCorpus, MarkedPtxIsValid) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::readText(GetParam().path), GetParam().path, diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  AnalysisManager am(*m);
  PassManager pm;
  pm.add(std::make_unique<UniformBranchesPass>());
  pm.run(*m, am);
  std::string written = ptx::writeModule(*m);
  auto again = ptx::parseModule(written, "marked.ptx", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  EXPECT_EQ(ptx::writeModule(*again), written);
  if (ptxvm::test::ptxasPath().empty()) GTEST_SKIP() << "ptxas not found: marked PTX not checked";
  std::string log;
  EXPECT_TRUE(ptxvm::test::ptxasAccepts(written, GetParam().arch, log)) << log;
}

INSTANTIATE_TEST_SUITE_P(Corpus, UniformBranchesCorpus, ::testing::ValuesIn(ptxvm::test::corpusFiles()),
                         [](const auto &info) { return info.param.name; });

} // namespace
} // namespace analysis::test
