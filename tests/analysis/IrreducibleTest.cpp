// The analyses on irreducible control flow: the same answers as the
// straightforward algorithms they replaced (on the corpus, on generated
// irreducible CFGs and on random graphs), and a bound on their time.
#include "tests/Corpus.h"
#include "tests/analysis/Generators.h"
#include "tests/analysis/ReferenceGates.h"
#include "tests/analysis/TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace analysis::test {
namespace {

/// Every function of `m` with a body, analysed.
std::vector<std::unique_ptr<FunctionAnalyses>> analyzeAll(const ptx::Module &m) {
  std::vector<std::unique_ptr<FunctionAnalyses>> out;
  for (const ptx::Function &fn : m.functions)
    if (fn.hasBody) out.push_back(std::make_unique<FunctionAnalyses>(m, fn));
  return out;
}

/// The generated kernels: every shape with every kind of condition.
std::vector<std::string> generatedKernels(uint32_t numBlocks) {
  std::vector<std::string> out;
  for (IrreducibleShape s : kIrreducibleShapes)
    for (Conditions c : {Conditions::Uniform, Conditions::Divergent, Conditions::Mixed})
      out.push_back(irreducibleKernel(s, numBlocks, c));
  return out;
}

std::string describe(std::span<const RegionNode> region, std::span<const uint32_t> joins) {
  std::string out = "region";
  for (const RegionNode &r : region)
    out += ' ' + std::to_string(r.node) + ':' +
           (r.side == RegionNode::kMixed ? std::string("mixed") : std::to_string(r.side));
  out += "; joins";
  for (uint32_t j : joins) out += ' ' + std::to_string(j);
  return out;
}

void expectSameGates(const GatedSSA &g, const std::string &where) {
  for (uint32_t br = 0; br < g.branches().size(); ++br) {
    ReferenceRegion ref = referenceRegion(g, br);
    EXPECT_EQ(describe(g.region(br), g.joins(br)), describe(ref.region, ref.joins))
        << where << ", branch in bb" << g.branches()[br].block;
  }
}

TEST(IrreducibleGates, SameAsTheWorklistPropagationOnTheCorpus) {
  for (const ptxvm::test::CorpusFile &file : ptxvm::test::corpusFiles()) {
    auto m = parse(ptxvm::test::readText(file.path));
    for (const auto &a : analyzeAll(*m))
      expectSameGates(a->gated, file.path + ": " + std::string(m->str(a->fn.name)));
  }
}

TEST(IrreducibleGates, SameAsTheWorklistPropagationOnGeneratedCfgs) {
  for (const std::string &text : generatedKernels(400)) {
    auto m = parse(text);
    auto a = analyze(*m, "irr");
    ASSERT_GT(a->loops.loops().size(), 10u);
    ASSERT_TRUE(std::any_of(a->loops.loops().begin(), a->loops.loops().end(),
                            [](const Loop &l) { return l.irreducible(); }));
    expectSameGates(a->gated, "generated");
  }
}

// On arbitrary graphs the worklist could leave a join behind: a node that
// saw two labels before an upstream join replaced both with its own. The
// one-pass labelling finds the same region with the same sides, and only
// joins the worklist found too.
TEST(IrreducibleGates, RandomGraphsOnlyLoseJoinsLeftBehindByTheWorklist) {
  std::mt19937 rng(11);
  size_t branches = 0, same = 0;
  for (int round = 0; round < 156; ++round) {
    // Large graphs too: their regions take the other dominator algorithm.
    uint32_t n = round < 150 ? 2 + rng() % 50 : 400 + rng() % 400;
    for (const std::string &text : {randomProgram(n, rng), graphKernel(n, randomEdges(n, rng))}) {
      auto m = parse(text);
      auto a = analyze(*m, std::string(m->str(m->functions[0].name)));
      const GatedSSA &g = a->gated;
      for (uint32_t br = 0; br < g.branches().size(); ++br, ++branches) {
        ReferenceRegion ref = referenceRegion(g, br);
        auto region = g.region(br);
        auto joins = g.joins(br);
        ASSERT_EQ(region.size(), ref.region.size());
        for (size_t k = 0; k < region.size(); ++k) {
          ASSERT_EQ(region[k].node, ref.region[k].node);
          // A side only where the worklist saw one too.
          if (region[k].side != ref.region[k].side) {
            EXPECT_EQ(ref.region[k].side, RegionNode::kMixed);
          }
        }
        EXPECT_TRUE(std::includes(ref.joins.begin(), ref.joins.end(), joins.begin(), joins.end()))
            << text << "\nbranch in bb" << g.branches()[br].block << "\nnew " << describe(region, joins)
            << "\nold " << describe(ref.region, ref.joins);
        same += std::equal(joins.begin(), joins.end(), ref.joins.begin(), ref.joins.end());
      }
    }
  }
  // Most branches agree exactly; the test is not vacuous.
  EXPECT_GT(branches, 1000u);
  EXPECT_GT(same * 10, branches * 8);
}

} // namespace
} // namespace analysis::test
