// The analyses on irreducible control flow: the same answers as the
// straightforward algorithms they replaced (on the corpus, on generated
// irreducible CFGs and on random graphs), and a bound on their time.
#include "tests/Corpus.h"
#include "tests/analysis/Generators.h"
#include "tests/analysis/ReferenceGates.h"
#include "tests/analysis/TestUtil.h"

#include "analysis/Analyses.h"
#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>

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

// Timing bounds only where the build is optimized and not instrumented.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kTimed = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kTimed = false;
#elif defined(NDEBUG)
constexpr bool kTimed = true;
#else
constexpr bool kTimed = false;
#endif
#elif defined(NDEBUG)
constexpr bool kTimed = true;
#else
constexpr bool kTimed = false;
#endif

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// CPU seconds for the whole chain `ptxvm analyze` runs on kernel `irr` or
/// `r` of `m`: the analyses, divergence and the barrier checks.
double analyzeSeconds(const ptx::Module &m, DivergenceResult &result) {
  double t0 = cpuSeconds();
  result = analyzeDivergence(m, m.functions[0]);
  checkBarriers(m, result);
  return cpuSeconds() - t0;
}

// 20,000 irreducible blocks of each family: the whole chain takes a few
// hundred milliseconds. The bound is generous (shared, loaded machines):
// a guard against quadratic behaviour coming back, not a benchmark.
TEST(IrreducibleComplexity, TwentyThousandBlocksAnalyseInLinearTime) {
  const uint32_t blocks = kTimed ? 20000 : 2000;
  for (IrreducibleShape shape : kIrreducibleShapes) {
    SCOPED_TRACE(std::string(irreducibleShapeName(shape)));
    auto m = parse(irreducibleKernel(shape, blocks));
    auto small = parse(irreducibleKernel(shape, blocks / 10));
    DivergenceResult result, smallResult;
    double t = analyzeSeconds(*m, result);
    double tSmall = analyzeSeconds(*small, smallResult);
    // Right answers too: the thread id is divergent, the CTA id is not,
    // and both kinds of branches are there.
    const ptx::Function &fn = m->functions[0];
    EXPECT_EQ(result.value(fn, instrContaining(*m, fn, "mov.u32 %r1, %tid.x"), 0), Uniformity::Divergent);
    EXPECT_EQ(result.value(fn, instrContaining(*m, fn, "mov.u32 %r3, %ctaid.x"), 0), Uniformity::CtaUniform);
    const FunctionDivergence *d = result.find(fn);
    ASSERT_NE(d, nullptr);
    size_t divergent = 0, uniform = 0;
    for (uint32_t br = 0; br < d->gated().branches().size(); ++br)
      ++(d->branchLevel(br) == Uniformity::Divergent ? divergent : uniform);
    EXPECT_GT(divergent, blocks / 20);
    // The ladder is one loop: its divergent branches leave threads in
    // different trips around it, so every branch in it is divergent.
    if (shape != IrreducibleShape::Ladder) {
      EXPECT_GT(uniform, blocks / 20);
    }
    if (kTimed) {
      EXPECT_LT(t, 5.0) << "seconds for " << blocks << " blocks";
      // Ten times the blocks: far less than a hundred times the time.
      EXPECT_LT(t, 30 * tSmall + 0.5) << tSmall << " s for a tenth of the blocks";
    }
  }
}

// With uniform conditions only, nothing is divergent but the thread id.
TEST(IrreducibleComplexity, UniformConditionsLeaveEveryBranchUniform) {
  for (IrreducibleShape shape : kIrreducibleShapes) {
    SCOPED_TRACE(std::string(irreducibleShapeName(shape)));
    auto m = parse(irreducibleKernel(shape, 500, Conditions::Uniform));
    DivergenceResult result;
    analyzeSeconds(*m, result);
    const FunctionDivergence *d = result.find(m->functions[0]);
    ASSERT_NE(d, nullptr);
    ASSERT_GT(d->gated().branches().size(), 100u);
    for (uint32_t br = 0; br < d->gated().branches().size(); ++br)
      EXPECT_EQ(d->branchLevel(br), Uniformity::CtaUniform)
          << "branch in bb" << d->gated().branches()[br].block;
  }
}

// A random graph of 3,000 blocks: most branches reconverge only at the
// exit, so their regions are large; labelling each costs its size once
// (the worklist took seconds).
TEST(IrreducibleComplexity, RandomGraphWithLargeRegions) {
  std::mt19937 rng(3);
  auto m = parse(randomProgram(kTimed ? 3000 : 300, rng));
  DivergenceResult result;
  double t = analyzeSeconds(*m, result);
  ASSERT_NE(result.find(m->functions[0]), nullptr);
  EXPECT_FALSE(result.find(m->functions[0])->gated().branches().empty());
  if (kTimed) {
    EXPECT_LT(t, 5.0);
  }
}

} // namespace
} // namespace analysis::test
