// Compiled code grows with a kernel's blocks times the registers live there,
// not with its edges times those registers: wherever a group stops running
// (its budget spent, its reconvergence point, a divergent branch) the live
// registers are written back by one block per pc, however many paths lead
// there. Large kernels (CUB's, Thrust's) took most of their compile time in
// per-edge copies of those write-backs.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <string>

namespace {

/// `live` registers computed from %tid.x, then `blocks` blocks that each
/// branch divergently to one join (lane i takes block i's branch), which
/// reads them all.
std::string branchesToOneJoin(int blocks, int live) {
  std::string p = ".visible .entry join(.param .u64 out)\n{\n";
  p += "  .reg .pred %p<" + std::to_string(blocks) + ">;\n";
  p += "  .reg .b32 %r<" + std::to_string(live + 2) + ">;\n  .reg .b64 %d<3>;\n";
  p += "  mov.u32 %r0, %tid.x;\n";
  for (int j = 1; j <= live; ++j)
    p += "  add.u32 %r" + std::to_string(j) + ", %r0, " + std::to_string(j) + ";\n";
  for (int i = 0; i < blocks; ++i) {
    const std::string b = std::to_string(i);
    p += "  setp.eq.u32 %p" + b + ", %r0, " + b + ";\n";
    p += "  @%p" + b + " bra JOIN;\n";
    p += "  add.u32 %r1, %r1, " + b + ";\n";
  }
  p += "JOIN:\n  mov.u32 %r" + std::to_string(live + 1) + ", 0;\n";
  for (int j = 1; j <= live; ++j)
    p += "  add.u32 %r" + std::to_string(live + 1) + ", %r" + std::to_string(live + 1) + ", %r" +
         std::to_string(j) + ";\n";
  p += "  ld.param.u64 %d0, [out];\n  mul.wide.u32 %d1, %r0, 4;\n  add.u64 %d2, %d0, %d1;\n";
  p += "  st.global.u32 [%d2], %r" + std::to_string(live + 1) + ";\n  ret;\n}\n";
  return p;
}

uint64_t irInstructions(int blocks, int live) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::ptxModule(branchesToOneJoin(blocks, live)), "join.ptx", diags);
  EXPECT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  if (!m) return 0;
  emu::Device device;
  auto k = device.decode(*m, "join", diags);
  EXPECT_TRUE(k) << diags.renderText();
  if (!k) return 0;
  translator::JitOptions o;
  o.eager = true;
  o.diskCache = false;
  o.memoryCache = false;
  translator::CompileReport report;
  auto engine = translator::CompiledEngine::compile(*k, o, report);
  EXPECT_TRUE(engine) << report.error;
  return report.code.irInstructions;
}

TEST(CodeSize, WriteBacksOncePerStoppingPointNotPerEdge) {
  constexpr int kLive = 24;
  const uint64_t few = irInstructions(8, kLive), many = irInstructions(24, kLive);
  ASSERT_GT(many, few);
  // What one more block (an add, a compare, a divergent branch: two entries
  // of compiled code, the add's and the branch's) costs per register live
  // across it: each entry's reloads and one write-back where each stops,
  // about 19 IR instructions a register - not also a write-back on each
  // edge and each budget exit (39 when they were, before session 27).
  const double perBlockPerRegister = double(many - few) / 16 / kLive;
  RecordProperty("ir_per_block_per_live_register", std::to_string(perBlockPerRegister));
  EXPECT_LT(perBlockPerRegister, 25.0) << few << " -> " << many << " IR instructions";
}

} // namespace
