#include "ptx/InstrTable.h"

#include <gtest/gtest.h>

#include <set>

using namespace ptx;

namespace {

std::vector<Mod> mods(std::initializer_list<std::string_view> spellings) {
  std::vector<Mod> out;
  for (auto s : spellings) {
    auto m = modFromSpelling(s);
    EXPECT_TRUE(m.has_value()) << s;
    if (m) out.push_back(*m);
  }
  return out;
}

} // namespace

TEST(InstrTable, NotationHasNoErrors) {
  const InstrTable &t = InstrTable::get();
  for (const std::string &e : t.errors()) ADD_FAILURE() << e;
  EXPECT_GT(t.forms().size(), 0u);
}

TEST(InstrTable, EveryModifierSpellingIsUnique) {
  std::set<std::string_view> seen;
  for (unsigned m = 1; m < kNumMods; ++m)
    EXPECT_TRUE(seen.insert(spelling(static_cast<Mod>(m))).second)
        << "duplicate ." << spelling(static_cast<Mod>(m));
}

TEST(InstrTable, LongestPrefixNamesTheOpcode) {
  const InstrTable &t = InstrTable::get();
  Opcode op;
  EXPECT_EQ(t.lookupPrefix("bar.sync.aligned", op), 8u);
  EXPECT_EQ(op, Opcode::BarSync);
  EXPECT_EQ(t.lookupPrefix("add.s32", op), 3u);
  EXPECT_EQ(op, Opcode::Add);
  EXPECT_EQ(t.lookupPrefix("frobnicate.s32", op), 0u);
}

TEST(InstrTable, MatchesModifiersInOrderWithOptionalGroups) {
  const InstrTable &t = InstrTable::get();
  EXPECT_GE(t.match(Opcode::Add, mods({"s32"})), 0);
  EXPECT_GE(t.match(Opcode::Add, mods({"sat", "s32"})), 0);
  EXPECT_GE(t.match(Opcode::Add, mods({"rn", "ftz", "f32"})), 0);
  // ptxas accepts modifiers out of the ISA's order, but not types swapped.
  EXPECT_GE(t.match(Opcode::Add, mods({"ftz", "rn", "f32"})), 0);
  EXPECT_LT(t.match(Opcode::Cvt, mods({"rn", "f32"})), 0);
  EXPECT_LT(t.match(Opcode::Add, mods({"sat", "u32"})), 0);
  EXPECT_GE(t.match(Opcode::Ld, mods({"global", "v4", "f32"})), 0);
  EXPECT_LT(t.match(Opcode::Ld, mods({"v4"})), 0);
}

TEST(InstrTable, TypeGroupsAreRecognised) {
  const InstrTable &t = InstrTable::get();
  int id = t.match(Opcode::Cvt, mods({"rni", "s32", "f32"}));
  ASSERT_GE(id, 0);
  const Form &f = t.form(static_cast<uint16_t>(id));
  unsigned typeGroups = 0;
  for (const ModGroup &g : f.groups) typeGroups += g.isType;
  EXPECT_EQ(typeGroups, 2u);
}

// The facts the decoder, the verifier and the analyses read from the table
// (BARRIER and WHEN rows, table/README.md) instead of testing opcode names.
TEST(InstrTable, BarrierRowsGiveKindAlignmentAndIdOperand) {
  const InstrTable &t = InstrTable::get();
  EXPECT_EQ(t.barrier(Opcode::BarSync).kind, BarrierKind::Sync);
  EXPECT_EQ(t.barrier(Opcode::BarrierCtaArrive).kind, BarrierKind::Arrive);
  EXPECT_EQ(t.barrier(Opcode::BarRed).kind, BarrierKind::Reduce);
  EXPECT_EQ(t.barrier(Opcode::BarRed).idOperand, 1u);
  EXPECT_EQ(t.barrier(Opcode::BarrierSync).idOperand, 0u);
  EXPECT_EQ(t.barrier(Opcode::BarrierClusterWait).kind, BarrierKind::ClusterWait);
  EXPECT_EQ(t.barrier(Opcode::BarWarpSync).kind, BarrierKind::None);
  EXPECT_EQ(t.barrier(Opcode::Add).kind, BarrierKind::None);
  // bar.* is always .aligned; barrier.* when written so.
  EXPECT_TRUE(t.alignedBarrier(Opcode::BarSync, {}));
  EXPECT_TRUE(t.alignedBarrier(Opcode::BarCtaArrive, {}));
  EXPECT_FALSE(t.alignedBarrier(Opcode::BarrierSync, {}));
  EXPECT_TRUE(t.alignedBarrier(Opcode::BarrierSync, mods({"aligned"})));
  EXPECT_TRUE(t.alignedBarrier(Opcode::BarrierClusterArrive, mods({"release", "aligned"})));
  EXPECT_FALSE(t.alignedBarrier(Opcode::Add, mods({"aligned"})));
  // Every CTA barrier has its row.
  for (unsigned op = 0; op < kNumOpcodes; ++op)
    EXPECT_EQ(t.has(static_cast<Opcode>(op), iflag::Barrier),
              t.barrier(static_cast<Opcode>(op)).kind != BarrierKind::None)
        << t.info(static_cast<Opcode>(op)).name;
}

TEST(InstrTable, WhenRowsAddFlagsForModifiers) {
  const InstrTable &t = InstrTable::get();
  EXPECT_TRUE(t.has(Opcode::Add, mods({"cc", "u32"}), iflag::CarryOut));
  EXPECT_FALSE(t.has(Opcode::Add, mods({"u32"}), iflag::CarryOut));
  EXPECT_TRUE(t.has(Opcode::Addc, mods({"u32"}), iflag::CarryIn));
  EXPECT_FALSE(t.has(Opcode::Addc, mods({"u32"}), iflag::CarryOut));
  EXPECT_TRUE(t.has(Opcode::Madc, mods({"hi", "cc", "u32"}), iflag::CarryIn | iflag::CarryOut));
  EXPECT_FALSE(t.has(Opcode::Add, mods({"cc", "u32"}), iflag::CarryIn));
  // Sources of divergence and always-uniform results.
  EXPECT_TRUE(t.has(Opcode::Match, mods({"all", "sync", "b32"}), iflag::WarpUniform));
  EXPECT_FALSE(t.has(Opcode::Match, mods({"all", "sync", "b32"}), iflag::Divergent));
  EXPECT_TRUE(t.has(Opcode::Match, mods({"any", "sync", "b32"}), iflag::Divergent));
  EXPECT_TRUE(t.has(Opcode::VoteSync, mods({"ballot", "b32"}), iflag::WarpUniform | iflag::MemberMask));
  EXPECT_TRUE(t.has(Opcode::ReduxSync, mods({"add", "u32"}), iflag::WarpUniform));
  EXPECT_TRUE(t.has(Opcode::BarRed, mods({"popc", "u32"}), iflag::WarpUniform));
  EXPECT_TRUE(t.has(Opcode::Alloca, mods({"u64"}), iflag::Divergent));
  // vote and shfl take a member mask only in their .sync spelling.
  EXPECT_FALSE(t.has(Opcode::Vote, mods({"any", "pred"}), iflag::MemberMask));
  EXPECT_TRUE(t.has(Opcode::Vote, mods({"any", "sync", "pred"}), iflag::MemberMask));
  EXPECT_TRUE(t.has(Opcode::Shfl, mods({"idx", "sync", "b32"}), iflag::MemberMask));
  EXPECT_TRUE(t.has(Opcode::Ldu, mods({"global", "u32"}), iflag::ReadOnly | iflag::Load));
}
