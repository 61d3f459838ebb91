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
