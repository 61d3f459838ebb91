// Liveness, SSA and gated SSA: hand-written functions with the expected
// φ-nodes and gates, and SSA checked against reaching definitions computed
// by brute force on random programs and on the corpus.
#include "tests/Corpus.h"
#include "tests/analysis/Generators.h"
#include "tests/analysis/TestUtil.h"

#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <set>

namespace analysis::test {
namespace {

const char kHeader[] = ".version 8.0\n.target sm_80\n.address_size 64\n";

// bb0 branches on %p1 to THEN (bb2) or bb1; both write %r3; THEN also
// writes %r2 under a guard; JOIN (bb3) reads both.
const char kDiamond[] = R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra THEN;
  add.u32 %r3, %r1, 1;
  bra JOIN;
THEN:
  add.u32 %r3, %r1, 2;
  @%p1 mov.u32 %r2, 5;
JOIN:
  add.u32 %r4, %r3, %r2;
  ret;
}
)";

std::set<std::string> names(const FunctionAnalyses &a, std::span<const uint32_t> vars) {
  std::set<std::string> out;
  for (uint32_t v : vars) out.insert(a.defUse.varName(v));
  return out;
}

TEST(Liveness, GuardedWriteDoesNotEndTheLiveRange) {
  auto m = parse(std::string(kHeader) + kDiamond);
  auto a = analyze(*m, "k");
  using S = std::set<std::string>;
  EXPECT_EQ(names(*a, a->liveness.liveIn(0)), S{});
  EXPECT_EQ(names(*a, a->liveness.liveOut(0)), (S{"%p1", "%r1", "%r2"}));
  EXPECT_EQ(names(*a, a->liveness.liveIn(1)), (S{"%r1", "%r2"}));
  // THEN reads %r2's old value through the guarded mov.
  EXPECT_EQ(names(*a, a->liveness.liveIn(2)), (S{"%p1", "%r1", "%r2"}));
  EXPECT_EQ(names(*a, a->liveness.liveIn(3)), (S{"%r2", "%r3"}));
  EXPECT_EQ(names(*a, a->liveness.liveOut(3)), S{});
  uint32_t sum = instrContaining(*m, a->fn, "add.u32 %r4");
  auto before = a->liveness.liveBefore(sum);
  EXPECT_EQ(names(*a, before), (S{"%r2", "%r3"}));
}

TEST(SSA, DiamondGetsGammaNodesForBothWrittenRegisters) {
  auto m = parse(std::string(kHeader) + kDiamond);
  auto a = analyze(*m, "k");
  const SSA &ssa = a->ssa;
  uint32_t join = blockNamed(*m, a->fn, "JOIN");
  ASSERT_EQ(ssa.phisOf(join).size(), 2u);
  const Phi &r2 = ssa.phis()[ssa.phisOf(join)[0]];
  const Phi &r3 = ssa.phis()[ssa.phisOf(join)[1]];
  EXPECT_EQ(a->defUse.varName(r2.var), "%r2");
  EXPECT_EQ(a->defUse.varName(r3.var), "%r3");
  // Incoming from bb1 (preds are ordered by source) and THEN (bb2).
  uint32_t elseAdd = instrContaining(*m, a->fn, "add.u32 %r3, %r1, 1");
  uint32_t thenAdd = instrContaining(*m, a->fn, "add.u32 %r3, %r1, 2");
  uint32_t zero = instrContaining(*m, a->fn, "mov.u32 %r2, 0");
  uint32_t guarded = instrContaining(*m, a->fn, "@%p1 mov.u32 %r2, 5");
  auto in3 = ssa.incoming(ssa.phisOf(join)[1]);
  EXPECT_EQ(in3[0], ssa.defValues(elseAdd)[0]);
  EXPECT_EQ(in3[1], ssa.defValues(thenAdd)[0]);
  auto in2 = ssa.incoming(ssa.phisOf(join)[0]);
  EXPECT_EQ(in2[0], ssa.defValues(zero)[0]);
  EXPECT_EQ(in2[1], ssa.defValues(guarded)[0]);
  EXPECT_EQ(ssa.oldValues(guarded)[0], ssa.defValues(zero)[0]);
  // The sum reads the two φ-nodes; %r1 has one definition and no φ.
  uint32_t sum = instrContaining(*m, a->fn, "add.u32 %r4");
  EXPECT_EQ(ssa.useValues(sum)[0], r3.value);
  EXPECT_EQ(ssa.useValues(sum)[1], r2.value);
  for (uint32_t b = 0; b < a->cfg.size(); ++b) {
    if (b != join) {
      EXPECT_TRUE(ssa.phisOf(b).empty()) << b;
    }
  }
  // Gated: both are γ-nodes at the join of the branch in bb0.
  EXPECT_EQ(a->gated.kind(ssa.phisOf(join)[0]), GateKind::Gamma);
  ASSERT_EQ(a->gated.branches().size(), 1u);
  EXPECT_EQ(a->gated.branches()[0].block, 0u);
  EXPECT_EQ(a->gated.branches()[0].floor, join);
  ASSERT_EQ(a->gated.gates(join).size(), 1u);
  EXPECT_EQ(a->gated.joins(0).size(), 1u);
  EXPECT_EQ(a->gated.print(*m), "bb3(JOIN): gamma %r2.3 = [bb1: %r2.1, bb2: %r2.2] if bb0(line 12)\n"
                                "bb3(JOIN): gamma %r3.3 = [bb1: %r3.1, bb2: %r3.2] if bb0(line 12)\n"
                                "branch bb0(line 12) reconverges at bb3; joins bb3\n");
}

TEST(SSA, LoopGetsMuAtTheHeaderAndEtaAtTheExit) {
  auto m = parse(std::string(kHeader) + R"(
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
LOOP:
  add.u32 %r3, %r3, %r2;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  add.u32 %r4, %r3, 1;
  ret;
}
)");
  auto a = analyze(*m, "k");
  const SSA &ssa = a->ssa;
  const GatedSSA &g = a->gated;
  ASSERT_EQ(ssa.phisOf(1).size(), 2u);
  for (uint32_t p : ssa.phisOf(1)) EXPECT_EQ(g.kind(p), GateKind::Mu);
  // Only %r3 is read after the loop, so only it gets an η.
  ASSERT_EQ(ssa.phisOf(2).size(), 1u);
  EXPECT_EQ(a->defUse.varName(ssa.phis()[ssa.phisOf(2)[0]].var), "%r3");
  EXPECT_EQ(g.kind(ssa.phisOf(2)[0]), GateKind::Eta);
  uint32_t after = instrContaining(*m, a->fn, "add.u32 %r4");
  EXPECT_EQ(ssa.useValues(after)[0], ssa.phis()[ssa.phisOf(2)[0]].value);
  // The loop branch decides the loop's exits; nothing joins.
  ASSERT_EQ(g.branches().size(), 1u);
  EXPECT_TRUE(g.joins(0).empty());
  EXPECT_EQ(g.exitedLoops(0).size(), 1u);
  EXPECT_EQ(g.exitBranches(0).size(), 1u);
  EXPECT_EQ(g.exitOf(2).size(), 1u);
  // The ld.param reads the .param variable n, whose value comes on entry.
  uint32_t ld = instrContaining(*m, a->fn, "ld.param");
  ASSERT_EQ(a->defUse.uses(ld).size(), 1u);
  EXPECT_EQ(a->defUse.varName(a->defUse.uses(ld)[0].var), "[n]");
  EXPECT_EQ(ssa.value(ssa.useValues(ld)[0]).kind, ValueKind::Entry);
}

TEST(GatedSSA, ContinueToTheLatchMakesTheLatchAJoin) {
  auto m = parse(std::string(kHeader) + R"(
.visible .entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, 0;
LOOP:
  setp.lt.u32 %p1, %r1, %r5;
  @%p1 bra LATCH;
  add.u32 %r5, %r5, 1;
LATCH:
  add.u32 %r5, %r5, 2;
  setp.lt.u32 %p2, %r5, 100;
  @%p2 bra LOOP;
  ret;
}
)");
  auto a = analyze(*m, "k");
  uint32_t loop = blockNamed(*m, a->fn, "LOOP"), latch = blockNamed(*m, a->fn, "LATCH");
  uint32_t br = a->gated.branchOfBlock(loop);
  ASSERT_NE(br, kNone);
  EXPECT_EQ(a->gated.branches()[br].floor, latch);
  auto joins = a->gated.joins(br);
  EXPECT_EQ(std::vector<uint32_t>(joins.begin(), joins.end()), std::vector<uint32_t>{latch});
  EXPECT_TRUE(a->gated.exitedLoops(br).empty());
  EXPECT_TRUE(a->gated.wrappedLoops(br).empty());
  ASSERT_EQ(a->ssa.phisOf(latch).size(), 1u);
  EXPECT_EQ(a->gated.kind(a->ssa.phisOf(latch)[0]), GateKind::Gamma);
  // The loop's own branch decides its exits.
  uint32_t latchBranch = a->gated.branchOfBlock(latch);
  EXPECT_EQ(a->gated.exitedLoops(latchBranch).size(), 1u);
}

TEST(GatedSSA, BackToTheHeaderBeforeReconvergingWrapsTheLoop) {
  // One side of the branch in LOOP goes straight back to LOOP; the sides only
  // meet in SKIP, which threads reach after different numbers of iterations.
  auto m = parse(std::string(kHeader) + R"(
.visible .entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, 0;
LOOP:
  setp.lt.u32 %p1, %r1, %r5;
  @%p1 bra SKIP;
  add.u32 %r5, %r5, 1;
  bra LOOP;
SKIP:
  add.u32 %r5, %r5, 2;
  setp.lt.u32 %p2, %r5, 100;
  @%p2 bra LOOP;
  ret;
}
)");
  auto a = analyze(*m, "k");
  uint32_t loop = blockNamed(*m, a->fn, "LOOP"), skip = blockNamed(*m, a->fn, "SKIP");
  uint32_t br = a->gated.branchOfBlock(loop);
  ASSERT_NE(br, kNone);
  EXPECT_EQ(a->gated.branches()[br].floor, skip);
  EXPECT_TRUE(a->gated.joins(br).empty());
  auto wrapped = a->gated.wrappedLoops(br);
  EXPECT_EQ(std::vector<uint32_t>(wrapped.begin(), wrapped.end()),
            std::vector<uint32_t>{a->loops.loopOf(loop)});
  ASSERT_EQ(a->ssa.phisOf(loop).size(), 1u);
  EXPECT_EQ(a->gated.kind(a->ssa.phisOf(loop)[0]), GateKind::Mu);
}

TEST(GatedSSA, TwoReturnsMeetAtTheVirtualExit) {
  auto m = parse(std::string(kHeader) + R"(
.func (.param .b32 ret) f(.param .b32 a)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  setp.lt.s32 %p1, %r1, 0;
  @%p1 bra NEG;
  st.param.b32 [ret], 1;
  ret;
NEG:
  st.param.b32 [ret], 2;
  ret;
}
)");
  auto a = analyze(*m, "f");
  uint32_t exit = a->cfg.exit();
  ASSERT_EQ(a->ssa.phisOf(exit).size(), 1u);
  ASSERT_EQ(a->ssa.exitValues().size(), 1u);
  EXPECT_EQ(a->ssa.exitValues()[0], a->ssa.phis()[a->ssa.phisOf(exit)[0]].value);
  ASSERT_EQ(a->gated.gates(exit).size(), 1u);
  EXPECT_EQ(a->gated.branches()[a->gated.gates(exit)[0]].block, 0u);
}

// ---- SSA against reaching definitions ---------------------------------------

/// Checks that each read's SSA value stands for exactly the writes that
/// reach it (following φ-nodes and partial writes), as computed by the
/// textbook reaching-definitions dataflow over the same CFG.
void checkReachingDefinitions(const FunctionAnalyses &a) {
  const Cfg &cfg = a.cfg;
  const DefUse &du = a.defUse;
  const SSA &ssa = a.ssa;
  const ptx::Function &fn = a.fn;
  // Definition ids: every instruction write, then one "on entry" per variable.
  const uint32_t writes = du.totalDefs();
  auto entryDef = [&](uint32_t var) { return writes + var; };
  using Set = std::vector<uint32_t>; // sorted
  auto unite = [](const Set &x, const Set &y) {
    Set out;
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    return out;
  };
  // Per variable: reaching writes at block entry, by iteration to a fixpoint.
  auto transfer = [&](uint32_t b, std::vector<Set> &state) {
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      auto defs = du.defs(i);
      for (uint32_t k = 0; k < defs.size(); ++k) {
        Set mine{du.defBegin(i) + k};
        state[defs[k].var] = defs[k].partial ? unite(state[defs[k].var], mine) : mine;
      }
    }
  };
  const uint32_t vars = du.numVars();
  std::vector<std::vector<Set>> in(cfg.size(), std::vector<Set>(vars));
  for (uint32_t v = 0; v < vars; ++v) in[cfg.entry()][v] = {entryDef(v)};
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b : cfg.rpo()) {
      if (b == cfg.exit()) continue;
      std::vector<Set> out = in[b];
      transfer(b, out);
      for (uint32_t s : cfg.succs(b))
        for (uint32_t v = 0; v < vars; ++v) {
          Set merged = unite(in[s][v], out[v]);
          if (merged != in[s][v]) in[s][v] = std::move(merged), changed = true;
        }
    }
  }
  // What an SSA value stands for: a fixpoint, since φ-nodes form cycles.
  std::vector<Set> memo(ssa.values().size());
  for (bool changed = true; changed;) {
    changed = false;
    for (ValueId v = 0; v < ssa.values().size(); ++v) {
      const Value &val = ssa.value(v);
      Set s;
      if (val.kind == ValueKind::Entry) {
        s = {entryDef(val.var)};
      } else if (val.kind == ValueKind::Def) {
        s = {du.defBegin(val.index) + val.slot};
        ValueId old = ssa.oldValues(val.index)[val.slot];
        if (old != kNoValue) s = unite(s, memo[old]);
      } else {
        for (ValueId x : ssa.incoming(val.index))
          if (x != kNoValue) s = unite(s, memo[x]);
      }
      if (s != memo[v]) memo[v] = std::move(s), changed = true;
    }
  }
  auto expand = [&](ValueId v) -> const Set & { return memo[v]; };
  for (uint32_t b : cfg.rpo()) {
    if (b == cfg.exit()) continue;
    std::vector<Set> state = in[b];
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      auto uses = du.uses(i);
      for (uint32_t u = 0; u < uses.size(); ++u)
        EXPECT_EQ(expand(ssa.useValues(i)[u]), state[uses[u].var])
            << "read of " << du.varName(uses[u].var) << " by instruction " << i << " (line "
            << fn.instrs[i].loc.line << ")";
      auto defs = du.defs(i);
      for (uint32_t k = 0; k < defs.size(); ++k) {
        if (defs[k].partial) {
          EXPECT_EQ(expand(ssa.oldValues(i)[k]), state[defs[k].var]);
        }
      }
      std::vector<Set> next = state;
      // transfer one instruction
      for (uint32_t k = 0; k < defs.size(); ++k) {
        Set mine{du.defBegin(i) + k};
        next[defs[k].var] = defs[k].partial ? unite(next[defs[k].var], mine) : mine;
      }
      state = std::move(next);
    }
  }
  auto exits = du.exitUses();
  for (uint32_t k = 0; k < exits.size(); ++k)
    EXPECT_EQ(expand(ssa.exitValues()[k]), in[cfg.exit()][exits[k]]) << "return value " << k;
}

TEST(SSA, RandomProgramsAgreeWithReachingDefinitions) {
  std::mt19937 rng(3);
  for (int round = 0; round < 400; ++round) {
    uint32_t n = 2 + round % 30;
    std::string text = randomProgram(n, rng);
    auto m = parse(text);
    auto a = analyze(*m, "r");
    checkReachingDefinitions(*a);
    if (HasFailure()) {
      ADD_FAILURE() << text;
      return;
    }
  }
}

TEST(SSA, CorpusFunctionsAgreeWithReachingDefinitions) {
  size_t checked = 0;
  for (const ptxvm::test::CorpusFile &file : ptxvm::test::corpusFiles()) {
    ptx::DiagnosticList diags;
    auto m = ptx::parseModule(ptxvm::test::readText(file.path), file.path, diags);
    ASSERT_FALSE(diags.hasErrors()) << file.path;
    for (const ptx::Function &fn : m->functions) {
      // The brute force is quadratic: small and medium functions only.
      if (!fn.hasBody || fn.instrs.size() > 400) continue;
      FunctionAnalyses a(*m, fn);
      checkReachingDefinitions(a);
      ++checked;
      if (HasFailure()) {
        ADD_FAILURE() << file.path << " function " << m->str(fn.name);
        return;
      }
    }
  }
  EXPECT_GT(checked, 50u);
}

} // namespace
} // namespace analysis::test
