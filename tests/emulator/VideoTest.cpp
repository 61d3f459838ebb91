// Video instructions against values recorded on an H100 (video_h100.txt):
// the scalar vop with selectors, .sat, secondary operations and merges;
// vshl/vshr; vmad with negation, .po, scaling and .sat; the SIMD vop2/vop4
// forms. On sm_90 ptxas emulates these, and its results differ from the
// ISA's pseudocode in places (see emulator/semantics/Video.cpp); the rows
// favour exactly those places (saturated and wrapped results).
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

using namespace ptxvm::test;

namespace {

struct Row {
  uint32_t a, b, c, want;
};

/// Rows of video_h100.txt by instruction, in file order.
std::map<std::string, std::vector<Row>> measuredRows() {
  std::map<std::string, std::vector<Row>> out;
  std::istringstream in(readTextFile(std::string(PTXVM_SOURCE_DIR) + "/tests/emulator/video_h100.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Row r{};
    fields >> std::hex >> r.a >> r.b >> r.c >> r.want;
    std::string instr;
    std::getline(fields >> std::ws, instr);
    out[instr].push_back(r);
  }
  return out;
}

/// d = instr(a, b, c) for each row, one thread per row.
std::vector<uint32_t> runRows(const std::string &instr, const std::vector<Row> &rows, std::string &error) {
  std::string ptx = ptxModule(R"(
.visible .entry k(.param .u64 pa, .param .u64 pd, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %i, %n, %a, %b, %c, %d;
  .reg .b64 %x<3>;
  mov.u32 %i, %tid.x;
  ld.param.u32 %n, [n];
  setp.ge.u32 %p, %i, %n;
  @%p bra DONE;
  mul.wide.u32 %x0, %i, 12;
  ld.param.u64 %x1, [pa];
  add.u64 %x1, %x1, %x0;
  ld.global.u32 %a, [%x1];
  ld.global.u32 %b, [%x1+4];
  ld.global.u32 %c, [%x1+8];
  mov.u32 %d, 0;
  )" + instr + R"(;
  mul.wide.u32 %x0, %i, 4;
  ld.param.u64 %x2, [pd];
  add.u64 %x2, %x2, %x0;
  st.global.u32 [%x2], %d;
DONE:
  ret;
}
)",
                              "sm_90", "8.0");
  std::vector<uint32_t> inputs;
  for (const Row &r : rows) inputs.insert(inputs.end(), {r.a, r.b, r.c});
  EmuRun run = runKernel(ptx, "k", {1}, {uint32_t(rows.size())},
                         {Arg::array(inputs), Arg::array(std::vector<uint32_t>(rows.size())),
                          Arg::scalar(uint32_t(rows.size()))});
  if (!run.result.ok) {
    error = run.diags.renderText();
    return {};
  }
  return run.buffer<uint32_t>(1);
}

TEST(EmulatorVideo, MatchesValuesRecordedOnAnH100) {
  auto rows = measuredRows();
  ASSERT_GE(rows.size(), 60u) << "video_h100.txt is missing or short";
  size_t checked = 0;
  for (const auto &[instr, forms] : rows) {
    std::string error;
    std::vector<uint32_t> d = runRows(instr, forms, error);
    ASSERT_EQ(d.size(), forms.size()) << instr << "\n" << error;
    for (size_t i = 0; i < forms.size(); ++i, ++checked)
      EXPECT_EQ(d[i], forms[i].want) << instr << std::hex << "  a=0x" << forms[i].a << " b=0x" << forms[i].b
                                     << " c=0x" << forms[i].c;
  }
  EXPECT_GE(checked, 300u);
}

/// The places where sm_90 differs from the ISA's pseudocode, one by one.
TEST(EmulatorVideo, HardwareRulesThatDifferFromTheIsaText) {
  struct Case {
    const char *instr;
    Row row;
    const char *why;
  };
  const Case cases[] = {
      {"vadd.u32.u32.u32.sat %d, %a, %b", {0xFFFFFFFF, 2, 0, 1}, "unsigned word .sat wraps above"},
      {"vadd.u32.u32.s32.sat %d, %a, %b", {5, 0xFFFFFFF0, 0, 0}, "...and stops at 0 below"},
      {"vadd.s32.s32.s32.sat %d.b1, %a, %b, %c",
       {0, 0xFFFFFFF1, 0x12345678, 0x12347F78},
       "field clamp is unsigned"},
      {"vadd.s32.s32.s32 %d.h1, %a, %b, %c",
       {0, 0x09A2AA6F, 0x29809442, 0x09A29442},
       ".h1 merges bits 16..31"},
      {"vshl.u32.u32.u32.sat.clamp %d, %a, %b", {1, 40, 0, 0xFFFFFFFF}, "34-bit shift: 1 << 32 saturates"},
      {"vshl.u32.u32.u32.sat.clamp %d, %a, %b", {2, 40, 0, 0}, "...2 << 32 leaves 34 bits of 0"},
      {"vmin.u32.s32.s32.max %d, %a, %b, %c",
       {0, 0xFFFFFFD2, 0xA6268FE6, 0xFFFFFFD2},
       "negative beats any c"},
      {"vmad.u32.u32.u32.sat.shr7 %d, %a.h0, %b.h1, %c",
       {0, 0x12345678, 0xFFFFFFD3, 0xFFFFFFFF},
       "logical scale shift, then unsigned clamp"},
      {"vmad.u32.u32.u32.sat %d, %a, %b, %c",
       {0, 0x12345678, 0xFEEF0081, 0},
       "no shift: negative clamps to 0"},
  };
  for (const Case &c : cases) {
    std::string error;
    std::vector<uint32_t> d = runRows(c.instr, {c.row}, error);
    ASSERT_EQ(d.size(), 1u) << c.instr << "\n" << error;
    EXPECT_EQ(d[0], c.row.want) << c.instr << ": " << c.why;
  }
}

} // namespace
