// Leaving SSA: parallel copies sequentialized with the same effect (swaps,
// rotations, fan-out), and the φ copies of functions whose SSA values get
// registers of their own.
#include "analysis/OutOfSSA.h"
#include "tests/Corpus.h"
#include "tests/analysis/TestUtil.h"

#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace analysis::test {
namespace {

constexpr uint32_t kTemp = 1000;

/// Runs copies on a state where location x holds x; returns the state.
std::map<uint32_t, uint32_t> run(std::span<const Copy> copies, bool parallel) {
  std::map<uint32_t, uint32_t> state;
  auto get = [&](uint32_t l) { return state.count(l) ? state[l] : l; };
  if (parallel) {
    std::map<uint32_t, uint32_t> next;
    for (const Copy &c : copies) next[c.dst] = get(c.src);
    for (auto [l, v] : next) state[l] = v;
    return state;
  }
  for (const Copy &c : copies) state[c.dst] = get(c.src);
  return state;
}

void expectSameEffect(const std::vector<Copy> &parallel) {
  std::vector<Copy> moves = sequentialize(parallel, kTemp);
  auto want = run(parallel, true), got = run(moves, false);
  got.erase(kTemp);
  for (auto [l, v] : want) EXPECT_EQ(got.count(l) ? got[l] : l, v) << "location " << l;
  for (auto [l, v] : got) EXPECT_EQ(want.count(l) ? want[l] : l, v) << "location " << l;
}

TEST(OutOfSSA, SwapNeedsTheTemporary) {
  std::vector<Copy> swap{{1, 2}, {2, 1}};
  std::vector<Copy> moves = sequentialize(swap, kTemp);
  EXPECT_EQ(moves.size(), 3u);
  EXPECT_EQ(moves[0].dst, kTemp);
  expectSameEffect(swap);
}

TEST(OutOfSSA, ChainsNeedNoTemporaryAndSelfCopiesVanish) {
  std::vector<Copy> chain{{1, 2}, {2, 3}, {3, 4}, {5, 5}};
  std::vector<Copy> moves = sequentialize(chain, kTemp);
  EXPECT_EQ(moves, (std::vector<Copy>{{1, 2}, {2, 3}, {3, 4}}));
  expectSameEffect(chain);
}

TEST(OutOfSSA, RandomParallelCopiesKeepTheirEffect) {
  std::mt19937 rng(5);
  for (int round = 0; round < 2000; ++round) {
    uint32_t n = 1 + round % 12;
    std::uniform_int_distribution<uint32_t> loc(0, n);
    std::vector<Copy> parallel;
    std::vector<char> used(n + 1, 0);
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t d = loc(rng);
      if (used[d]) continue;
      used[d] = 1;
      parallel.push_back({d, loc(rng)});
    }
    expectSameEffect(parallel);
    if (HasFailure()) return;
  }
}

// The φ-nodes of SSA built from a program that was not in SSA form are
// conventional: with every value in its variable's register, every copy is
// a self-copy and nothing is left to do.
TEST(OutOfSSA, OriginalRegistersNeedNoCopies) {
  size_t phis = 0;
  for (const ptxvm::test::CorpusFile &file : ptxvm::test::corpusFiles()) {
    ptx::DiagnosticList diags;
    auto m = ptx::parseModule(ptxvm::test::readText(file.path), file.path, diags);
    for (const ptx::Function &fn : m->functions) {
      if (!fn.hasBody) continue;
      FunctionAnalyses a(*m, fn);
      std::vector<uint32_t> registerOf;
      for (const Value &v : a.ssa.values()) registerOf.push_back(v.var);
      phis += a.ssa.phis().size();
      EXPECT_TRUE(phiCopies(a.ssa, registerOf, kTemp).empty()) << file.path;
    }
  }
  EXPECT_GT(phis, 100u);
}

// Every value in a register of its own: one copy per φ and edge, on the
// right edges, and a critical edge is flagged.
TEST(OutOfSSA, RenamedValuesGetCopiesOnTheirEdges) {
  auto m = parse(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra JOIN;
  mov.u32 %r2, 1;
JOIN:
  add.u32 %r3, %r2, 1;
  ret;
}
)");
  auto a = analyze(*m, "k");
  std::vector<uint32_t> registerOf;
  for (ValueId v = 0; v < a->ssa.values().size(); ++v) registerOf.push_back(100 + v);
  auto copies = phiCopies(a->ssa, registerOf, kTemp);
  ASSERT_EQ(copies.size(), 2u);
  uint32_t join = blockNamed(*m, a->fn, "JOIN");
  const Phi &phi = a->ssa.phis()[a->ssa.phisOf(join)[0]];
  for (const EdgeCopies &e : copies) {
    EXPECT_EQ(e.to, join);
    ASSERT_EQ(e.copies.size(), 1u);
    EXPECT_EQ(e.copies[0].dst, 100 + phi.value);
  }
  // bb0 -> JOIN leaves a block with two successors for one with two
  // predecessors.
  EXPECT_EQ(copies[0].from, 0u);
  EXPECT_TRUE(copies[0].critical);
  EXPECT_FALSE(copies[1].critical);
}

} // namespace
} // namespace analysis::test
