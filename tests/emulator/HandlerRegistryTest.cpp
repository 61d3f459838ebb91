// The handler registry: one row per key (opcode, type classes, modifiers)
// across all semantics groups, and each form family handled by the group
// that owns it (no group answers for another's instructions any more).
#include "tests/emulator/TableSamples.h"

#include "emulator/Semantics.h"

#include <gtest/gtest.h>

using namespace ptxvm::test;
using ptx::Opcode;

namespace {

void nop(emu::Exec &, const emu::DInstr &) {}
void other(emu::Exec &, const emu::DInstr &) {}

TEST(HandlerRegistry, NoTwoGroupsRegisterOneKey) {
  const emu::HandlerRegistry &r = emu::HandlerRegistry::get();
  std::string msg;
  for (const std::string &c : r.conflicts()) msg += "  " + c + "\n";
  EXPECT_TRUE(r.conflicts().empty()) << msg;
  EXPECT_GT(r.size(), 150u);
}

TEST(HandlerRegistry, ReportsARowWhoseKeyOverlapsAnother) {
  emu::HandlerRegistry r;
  const emu::HandlerRow first[] = {
      emu::row(Opcode::Add, emu::tclass::Int, nop),
      emu::row(Opcode::Add, emu::tclass::Int, nop, emu::kmod::Cc), // other modifiers: no overlap
      emu::row(Opcode::Add, emu::tclass::Float, other),            // other types: no overlap
  };
  r.add("First", first);
  EXPECT_TRUE(r.conflicts().empty());
  const emu::HandlerRow second[] = {
      emu::row(Opcode::Add, emu::tclass::Int | emu::tclass::Half, other), // shares Int
      emu::row(Opcode::Add, emu::tclass::Half, other),
      emu::row(Opcode::Add, emu::tclass::Half, nop), // twice in one group
  };
  r.add("Second", second);
  ASSERT_EQ(r.conflicts().size(), 2u);
  EXPECT_NE(r.conflicts()[0].find("Second registers 'add'"), std::string::npos) << r.conflicts()[0];
  EXPECT_NE(r.conflicts()[0].find("which First registered"), std::string::npos) << r.conflicts()[0];
  EXPECT_NE(r.conflicts()[1].find("which Second registered"), std::string::npos) << r.conflicts()[1];
  EXPECT_EQ(r.size(), 4u);
}

TEST(HandlerRegistry, FindsTheRowByTypeClassAndModifiers) {
  emu::HandlerRegistry r;
  const emu::HandlerRow rows[] = {
      emu::row(Opcode::Add, emu::tclass::Int, nop),
      emu::row(Opcode::Add, emu::tclass::Int, other, emu::kmod::Cc),
  };
  r.add("Test", rows);
  emu::DInstr in;
  in.opcode = Opcode::Add;
  in.type = ptx::Type::U32;
  EXPECT_EQ(r.select(in), &nop);
  in.cc = true;
  EXPECT_EQ(r.select(in), &other);
  // .ftz is named by no row of add: it does not take part in the key.
  in.ftz = true;
  EXPECT_EQ(r.select(in), &other);
  in.type = ptx::Type::F32;
  EXPECT_EQ(r.select(in), nullptr);
  in.opcode = Opcode::Sub;
  in.type = ptx::Type::U32;
  EXPECT_EQ(r.select(in), nullptr);
}

// The forms the first-match chain of select functions used to hand to
// another group than the one that owns them.
TEST(HandlerRegistry, EachFormFamilyRunsItsOwnGroupsHandler) {
  EXPECT_EQ(handlerGroup("and.pred %p1, %p2, %p3"), "Misc");
  EXPECT_EQ(handlerGroup("or.pred %p1, %p2, %p3"), "Misc");
  EXPECT_EQ(handlerGroup("xor.pred %p1, %p2, %p3"), "Misc");
  EXPECT_EQ(handlerGroup("not.pred %p1, %p2"), "Misc");
  EXPECT_EQ(handlerGroup("and.b32 %r1, %r2, %r3"), "Integer");
  EXPECT_EQ(handlerGroup("mov.pred %p1, %p2"), "Integer");
  EXPECT_EQ(handlerGroup("setp.lt.f32 %p1, %f1, %f2"), "Integer");
  EXPECT_EQ(handlerGroup("setp.lt.ftz.f32 %p1, %f1, %f2"), "Compare");
  EXPECT_EQ(handlerGroup("setp.lt.f16 %p1, %rs1, %rs2"), "Compare");
  EXPECT_EQ(handlerGroup("add.u32 %r1, %r2, %r3"), "Integer");
  EXPECT_EQ(handlerGroup("add.cc.u32 %r1, %r2, %r3"), "Extended");
  EXPECT_EQ(handlerGroup("addc.cc.u32 %r1, %r2, %r3"), "Extended");
  EXPECT_EQ(handlerGroup("min.s32 %r1, %r2, %r3"), "Integer");
  EXPECT_EQ(handlerGroup("min.relu.s32 %r1, %r2, %r3"), "Extended");
  EXPECT_EQ(handlerGroup("add.f32 %f1, %f2, %f3"), "Float");
  EXPECT_EQ(handlerGroup("mov.b128 %rq1, %rq2"), "Wide");
  EXPECT_EQ(handlerGroup("ld.global.b128 %rq1, [%rd1]"), "Wide");
  EXPECT_EQ(handlerGroup("ld.global.u32 %r1, [%rd1]"), "Memory");
  EXPECT_EQ(handlerGroup("trap"), "Misc");
}

} // namespace
