// ptx/Edit.h: instructions made from a spelling, and body edits that keep labels, scopes and the
// CFG right.
#include "ptx/Edit.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Writer.h"

#include <gtest/gtest.h>

namespace {

std::unique_ptr<ptx::Module> parse(const std::string &body) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(".version 8.0\n.target sm_80\n.address_size 64\n" + body, "edit.ptx", diags);
  EXPECT_FALSE(diags.hasErrors());
  return m;
}

const char *kLoop = R"(.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
$L_top:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 10;
  @%p1 bra $L_top;
  ret;
}
)";

TEST(Edit, MakeInstructionResolvesTheFormTheOperandsFit) {
  auto m = parse(kLoop);
  ptx::Function &fn = m->functions[0];
  std::string error;
  auto mov = ptx::makeInstruction(*m, fn, "mov.u32", {ptx::registerOperand(2), ptx::intOperand(-7)}, error);
  ASSERT_TRUE(mov) << error;
  EXPECT_EQ(mov->numOperands, 2);
  EXPECT_EQ(m->desc(*mov).opcode, ptx::Opcode::Mov);
  EXPECT_FALSE(ptx::makeInstruction(*m, fn, "mov.nonsense", {ptx::registerOperand(2)}, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(ptx::makeInstruction(*m, fn, "ld.shared.b32", {ptx::registerOperand(2)}, error));
  EXPECT_NE(error.find("no form"), std::string::npos) << error;
}

TEST(Edit, CodeBeforeAnInstructionFollowsItsLabelAndEntryCodePrecedesTheFirstLabel) {
  auto m = parse(kLoop);
  ptx::Function &fn = m->functions[0];
  std::string error;
  const uint32_t r3 = fn.regDecls[1].firstRegister + 3; // %r3 of %r<4>, after %p<2>
  auto make = [&](int64_t v) {
    return *ptx::makeInstruction(*m, fn, "mov.u32", {ptx::registerOperand(r3), ptx::intOperand(v)}, error);
  };
  ptx::BodyEdit edit(fn);
  edit.insertAtEntry(make(1));
  edit.insertBefore(0, make(2)); // the loop's first instruction, behind $L_top
  edit.insertAfter(0, make(3));
  edit.erase(1); // the setp
  edit.apply();
  const std::string text = ptx::writeModule(*m);
  const size_t entry = text.find("mov.u32 \t%r3, 1;"), label = text.find("$L_top:"),
               before = text.find("mov.u32 \t%r3, 2;"), add = text.find("add.u32"),
               after = text.find("mov.u32 \t%r3, 3;");
  ASSERT_NE(entry, std::string::npos) << text;
  EXPECT_LT(entry, label) << text;
  EXPECT_LT(label, before) << text;
  EXPECT_LT(before, add) << text;
  EXPECT_LT(add, after) << text;
  EXPECT_EQ(text.find("setp"), std::string::npos) << text;
  // The CFG was rebuilt: the entry block, then the loop (a block of its own, its own successor).
  ASSERT_EQ(fn.blocks.size(), 3u);
  EXPECT_EQ(fn.blocks[0].numInstrs, 1u);
  EXPECT_EQ(fn.blocks[1].numInstrs, 4u); // mov 2, add, mov 3, bra
  const auto succs = fn.succs(fn.blocks[1]);
  EXPECT_NE(std::find(succs.begin(), succs.end(), 1u), succs.end());
}

TEST(Edit, ReplacedRegisterDeclarationsGoToTheTopOfTheBody) {
  auto m = parse(R"(.visible .entry k()
{
  .reg .b32 %r<2>;
  {
  .reg .b32 %inner;
  mov.u32 %inner, 1;
  }
  mov.u32 %r1, 2;
  ret;
}
)");
  ptx::Function &fn = m->functions[0];
  // Three registers become one range of three.
  ptx::RegisterDecl d;
  d.name = m->names.intern("%x");
  d.type = ptx::Type::B32;
  d.count = 3;
  ptx::BodyEdit edit(fn);
  edit.replaceRegisters({d}, 3);
  edit.apply();
  const std::string text = ptx::writeModule(*m);
  EXPECT_NE(text.find(".reg .b32 \t%x<3>;"), std::string::npos) << text;
  EXPECT_EQ(text.find("%inner"), std::string::npos) << text;
  EXPECT_LT(text.find("%x<3>"), text.find("{\n", text.find("%x<3>"))) << text;
  ptx::DiagnosticList diags;
  ptx::verifyModule(*m, diags);
  EXPECT_FALSE(diags.hasErrors());
}

} // namespace
