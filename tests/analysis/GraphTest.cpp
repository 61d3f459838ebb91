// The CFG view, dominator and post-dominator trees, dominance frontiers and
// loop nesting: hand-written cases and random graphs against brute force.
#include "analysis/PostDominators.h"
#include "tests/analysis/Generators.h"
#include "tests/analysis/TestUtil.h"

#include <gtest/gtest.h>

#include <bitset>

namespace analysis::test {
namespace {

TEST(Cfg, GuardedExitHasNoEdgeButReturnsAndEndsDo) {
  auto m = parse(std::string(kModuleHeader) + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 exit;
  add.u32 %r2, %r1, 1;
  ret;
}
.func f()
{
  .reg .pred %p<2>;
  setp.eq.u32 %p1, 1, 1;
  @%p1 ret;
  ret;
}
)");
  Cfg kernel(*m->findFunction("k"));
  EXPECT_EQ(kernel.print(), "bb0 -> bb1\nbb1 -> exit [death]\nexit ->\n");
  Cfg device(*m->findFunction("f"));
  EXPECT_EQ(device.print(), "bb0 -> bb1 exit\nbb1 -> exit\nexit ->\n");
  CfgOptions emulatorView;
  emulatorView.guardedReturnEdges = false;
  EXPECT_EQ(Cfg(*m->findFunction("f"), emulatorView).print(), "bb0 -> bb1\nbb1 -> exit\nexit ->\n");
}

TEST(Cfg, InfiniteLoopGetsAFakeEdgeAndDeadCodeIsUnreachable) {
  auto m = parse(std::string(kModuleHeader) + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  ret;
  add.u32 %r1, %r1, 1;
  ret;
}
.visible .entry spin()
{
  .reg .b32 %r<4>;
L:
  add.u32 %r1, %r1, 1;
  bra L;
}
)");
  Cfg dead(*m->findFunction("k"));
  EXPECT_EQ(dead.print(), "bb0 -> exit [death]\nbb1 [unreachable] -> exit [death]\nexit ->\n");
  EXPECT_FALSE(dead.reachable(1));
  Cfg spin(*m->findFunction("spin"));
  EXPECT_EQ(spin.print(), "bb0 -> bb0 exit [fake]\nexit ->\n");
  EXPECT_TRUE(spin.isFakeEdge(0, spin.exit()));
}

TEST(Dominators, DiamondAndItsPostDominators) {
  // L0 -> L1, L2 -> L3
  auto m = parse(graphKernel(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}));
  Cfg cfg(m->functions[0]);
  DominatorTree dom = DominatorTree::forward(cfg), post = DominatorTree::backward(cfg);
  auto name = [&](uint32_t v) { return cfg.blockName(v); };
  EXPECT_EQ(dom.print(name), "bb1 -> idom bb0\nbb2 -> idom bb0\nbb3 -> idom bb0\nexit -> idom bb3\n");
  EXPECT_EQ(post.print(name), "bb0 -> idom bb3\nbb1 -> idom bb3\nbb2 -> idom bb3\nbb3 -> idom exit\n");
  EXPECT_TRUE(dom.dominates(0, 3));
  EXPECT_FALSE(dom.dominates(1, 3));
  EXPECT_TRUE(post.dominates(3, 1));
  EXPECT_EQ(dom.nearestCommonDominator(1, 2), 0u);
  DominanceFrontier df(cfg.graph(), dom);
  ASSERT_EQ(df.of(1).size(), 1u);
  EXPECT_EQ(df.of(1)[0], 3u);
  EXPECT_TRUE(df.of(0).empty());
}

TEST(PostDominators, EmulatorTreeKeepsItsApi) {
  auto m = parse(graphKernel(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}));
  PostDominatorTree pdt(m->functions[0]);
  EXPECT_EQ(pdt.print(), "bb0 -> ipdom bb3\nbb1 -> ipdom bb3\nbb2 -> ipdom bb3\nbb3 -> ipdom exit\n");
  EXPECT_EQ(pdt.virtualExit(), 4u);
  EXPECT_TRUE(pdt.postDominates(3, 0));
  EXPECT_TRUE(pdt.postDominates(pdt.virtualExit(), 2));
  EXPECT_FALSE(pdt.postDominates(1, 0));
}

// Dominator sets by the textbook dataflow, as 64-bit sets.
std::vector<std::bitset<64>> bruteDominators(const Graph &g, uint32_t root) {
  const uint32_t n = g.size();
  std::vector<std::bitset<64>> dom(n);
  std::vector<char> reach(n, 0);
  std::vector<uint32_t> stack{root};
  reach[root] = 1;
  while (!stack.empty()) {
    uint32_t v = stack.back();
    stack.pop_back();
    for (uint32_t s : g.succs(v))
      if (!reach[s]) reach[s] = 1, stack.push_back(s);
  }
  for (uint32_t v = 0; v < n; ++v) dom[v].set();
  dom[root].reset();
  dom[root].set(root);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v = 0; v < n; ++v) {
      if (v == root || !reach[v]) continue;
      std::bitset<64> d;
      d.set();
      for (uint32_t p : g.preds(v))
        if (reach[p]) d &= dom[p];
      d.set(v);
      if (d != dom[v]) dom[v] = d, changed = true;
    }
  }
  for (uint32_t v = 0; v < n; ++v)
    if (!reach[v]) dom[v].reset();
  return dom;
}

void checkAgainstBruteForce(const Graph &g, uint32_t root) {
  DominatorTree tree(g, root);
  auto dom = bruteDominators(g, root);
  const uint32_t n = g.size();
  for (uint32_t v = 0; v < n; ++v) {
    if (dom[v].none()) {
      EXPECT_FALSE(tree.reachable(v)) << v;
      continue;
    }
    for (uint32_t a = 0; a < n; ++a) EXPECT_EQ(tree.dominates(a, v), dom[v].test(a)) << a << " dom " << v;
    if (v == root) continue;
    // The immediate dominator is the strict dominator dominated by all others.
    uint32_t idom = kNone;
    for (uint32_t a = 0; a < n; ++a)
      if (a != v && dom[v].test(a) && (dom[a] | (dom[v] & ~std::bitset<64>().set(v))) == dom[a]) idom = a;
    EXPECT_EQ(tree.idom(v), idom) << "node " << v;
  }
  // Frontiers: DF(a) = nodes b with a predecessor dominated by a, and b not
  // strictly dominated by a.
  DominanceFrontier df(g, tree);
  for (uint32_t a = 0; a < n; ++a) {
    if (dom[a].none()) continue;
    std::bitset<64> want, got;
    for (uint32_t b = 0; b < n; ++b) {
      if (dom[b].none()) continue;
      bool predDominated = false;
      for (uint32_t p : g.preds(b)) predDominated |= dom[p].test(a);
      if (predDominated && !(dom[b].test(a) && a != b)) want.set(b);
    }
    for (uint32_t b : df.of(a)) got.set(b);
    EXPECT_EQ(got, want) << "DF of " << a;
  }
}

TEST(Dominators, RandomGraphsAgreeWithBruteForce) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    uint32_t n = 2 + round % 30;
    auto m = parse(graphKernel(n, randomEdges(n, rng)));
    Cfg cfg(m->functions[0]);
    checkAgainstBruteForce(cfg.graph(), cfg.entry());
    checkAgainstBruteForce(cfg.graph().reversed(), cfg.exit());
  }
}

TEST(Loops, NestedLoopsWithTwoExits) {
  // L0 -> L1; L1 (outer header) -> L2; L2 (inner header) -> L3; L3 -> L2, L4, L6;
  // L4 -> L1, L5; L5 -> ret; L6 -> ret (early exit of both loops)
  auto m = parse(graphKernel(7, {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {3, 6}, {4, 1}, {4, 5}}));
  Cfg cfg(m->functions[0]);
  LoopForest loops(cfg);
  EXPECT_EQ(loops.print(cfg), "loop 0 (depth 1) headers bb1 blocks bb1 bb2 bb3 bb4 exits bb5 bb6\n"
                              "loop 1 (depth 2, in loop 0) headers bb2 blocks bb2 bb3 exits bb4 bb6\n");
  EXPECT_EQ(loops.loopOf(3), 1u);
  EXPECT_EQ(loops.loopOf(4), 0u);
  EXPECT_EQ(loops.loopOf(5), kNone);
  EXPECT_TRUE(loops.contains(0, 3));
  EXPECT_FALSE(loops.contains(1, 4));
  EXPECT_EQ(loops.headerOf(2), 1u);
  EXPECT_EQ(loops.commonLoop(1, loops.loopOf(4)), 0u);
  EXPECT_EQ(loops.loop(1).backEdges, (std::vector<std::pair<uint32_t, uint32_t>>{{3, 2}}));
}

TEST(Loops, IrreducibleLoopHasTwoHeaders) {
  // L0 -> L1, L2; L1 <-> L2; both leave to L3.
  auto m = parse(graphKernel(4, {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {1, 3}, {2, 3}}));
  Cfg cfg(m->functions[0]);
  LoopForest loops(cfg);
  ASSERT_EQ(loops.loops().size(), 1u);
  EXPECT_TRUE(loops.loop(0).irreducible());
  EXPECT_EQ(loops.loop(0).headers, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(loops.print(cfg), "loop 0 (depth 1, irreducible) headers bb1 bb2 blocks bb1 bb2 exits bb3\n");
}

TEST(Loops, SelfLoopAndLoopAtTheEntry) {
  // L0 -> L0, L1 (the entry is its own loop header)
  auto m = parse(graphKernel(2, {{0, 0}, {0, 1}}));
  Cfg cfg(m->functions[0]);
  LoopForest loops(cfg);
  ASSERT_EQ(loops.loops().size(), 1u);
  EXPECT_EQ(loops.loop(0).headers, std::vector<uint32_t>{0});
  EXPECT_EQ(loops.loop(0).exitBlocks, std::vector<uint32_t>{1});
}

// Every cycle of the CFG lies in a loop; loop headers are exactly the
// blocks entered from outside; loops nest.
TEST(Loops, RandomGraphsSatisfyLoopProperties) {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    uint32_t n = 2 + round % 25;
    auto m = parse(graphKernel(n, randomEdges(n, rng)));
    Cfg cfg(m->functions[0]);
    LoopForest loops(cfg);
    const Graph &g = cfg.graph();
    // reach[a][b]: b reachable from a by one or more edges.
    std::vector<std::bitset<64>> reach(cfg.size());
    for (uint32_t a = 0; a < cfg.size(); ++a)
      for (uint32_t s : g.succs(a)) reach[a].set(s);
    for (uint32_t k = 0; k < cfg.size(); ++k)
      for (uint32_t a = 0; a < cfg.size(); ++a)
        if (reach[a].test(k)) reach[a] |= reach[k];
    for (uint32_t u = 0; u < cfg.numBlocks(); ++u) {
      if (!cfg.reachable(u)) continue;
      for (uint32_t v : g.succs(u)) {
        if (v == cfg.exit() || !reach[v].test(u)) continue;
        EXPECT_NE(loops.commonLoop(loops.loopOf(u), loops.loopOf(v)), kNone)
            << "cycle through " << u << "->" << v;
      }
    }
    for (uint32_t id = 0; id < loops.loops().size(); ++id) {
      const Loop &l = loops.loop(id);
      for (uint32_t b : l.blocks) {
        bool entered = b == cfg.entry();
        for (uint32_t p : g.preds(b)) entered |= cfg.reachable(p) && !loops.contains(id, p);
        bool isHeader = std::find(l.headers.begin(), l.headers.end(), b) != l.headers.end();
        EXPECT_EQ(entered, isHeader) << "block " << b << " of loop " << id;
      }
      if (l.parent != kNone) {
        for (uint32_t b : l.blocks) EXPECT_TRUE(loops.contains(l.parent, b));
      }
    }
  }
}

} // namespace
} // namespace analysis::test
