// Forms that compiled code computes itself rather than through the
// interpreter's services, against the interpreter over launch shapes that
// take each path: special registers (lane constants, per-warp fields, %tid
// of 1-D blocks in compiled code and of 2-D/3-D blocks through the service)
// and cvta between every window.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

// Every thread stores 24 words: its special registers and cvta results.
const char *kKernel = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<30>;
  .reg .b64 %d<12>;
  .shared .align 4 .b32 s[4];
  .local .align 4 .b32 l[4];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %tid.y;
  mov.u32 %r2, %tid.z;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %ntid.z;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ctaid.z;
  mov.u32 %r9, %nctaid.x;
  mov.u32 %r10, %nctaid.y;
  mov.u32 %r11, %nctaid.z;
  mov.u32 %r12, %laneid;
  mov.u32 %r13, %warpid;
  mov.u32 %r14, %nwarpid;
  mov.u32 %r15, %lanemask_eq;
  mov.u32 %r16, %lanemask_le;
  mov.u32 %r17, %lanemask_lt;
  mov.u32 %r18, %lanemask_ge;
  mov.u32 %r19, %lanemask_gt;
  mov.u64 %d1, s;
  cvta.shared.u64 %d2, %d1;
  cvta.to.shared.u64 %d3, %d2;
  cvt.u32.u64 %r20, %d3;
  cvt.u32.u64 %r21, %d2;
  mov.u64 %d4, l;
  cvta.local.u64 %d5, %d4;
  cvta.to.local.u64 %d6, %d5;
  xor.b32 %r22, %r21, 12345;
  cvta.shared.u32 %r23, %r22;
  cvta.to.global.u64 %d7, %d5;
  cvt.u32.u64 %r24, %d7;
  cvt.u32.u64 %r25, %d6;
  mov.u32 %r26, %nsmid;
  mov.u32 %r27, %clock;
  // out + (linear thread index) * 96
  mad.lo.u32 %r28, %r1, %r3, %r0;
  mul.lo.u32 %r29, %r3, %r4;
  mad.lo.u32 %r28, %r2, %r29, %r28;
  mul.lo.u32 %r29, %r29, %r5;
  mad.lo.u32 %r29, %r6, %r29, %r28;
  ld.param.u64 %d8, [out];
  mul.wide.u32 %d9, %r29, 96;
  add.u64 %d10, %d8, %d9;
  st.global.v4.u32 [%d10], {%r0, %r1, %r2, %r3};
  st.global.v4.u32 [%d10+16], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%d10+32], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%d10+48], {%r12, %r13, %r14, %r15};
  st.global.v4.u32 [%d10+64], {%r16, %r17, %r18, %r19};
  st.global.v4.u32 [%d10+80], {%r20, %r23, %r24, %r25};
  ret;
}
)";

std::vector<uint32_t> run(const ptx::Module &m, emu::Dim3 grid, emu::Dim3 block, bool compiled,
                          std::string &problem) {
  emu::Device device;
  ptx::DiagnosticList diags;
  auto k = device.decode(m, "k", diags);
  if (!k) {
    problem = diags.renderText();
    return {};
  }
  std::unique_ptr<translator::CompiledEngine> engine;
  emu::LaunchConfig config;
  if (compiled) {
    translator::JitOptions options;
    options.eager = true;
    options.diskCache = false;
    translator::CompileReport report;
    engine = translator::CompiledEngine::compile(*k, options, report);
    if (!engine) {
      problem = report.error;
      return {};
    }
    config.engine = engine.get();
  }
  const uint64_t threads = grid.count() * block.count();
  const uint64_t out = device.global.allocate(threads * 96);
  config.grid = grid;
  config.block = block;
  config.threads = 1;
  config.params.assign(k->paramBytes, 0);
  std::memcpy(&config.params[k->paramOffsets[0]], &out, 8);
  emu::LaunchResult r = device.launch(*k, config, diags);
  if (!r.ok) problem = diags.renderText();
  std::vector<uint32_t> words(threads * 24);
  device.global.read(out, words.data(), words.size() * 4);
  return words;
}

TEST(Lowering, SpecialRegistersAndCvtaReadAsOnTheInterpreter) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxvm::test::ptxModule(kKernel), "sreg.ptx", diags);
  ASSERT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  // 1-D blocks (whole and partial warps), 2-D and 3-D ones whose rows do
  // and do not fill warps.
  for (emu::Dim3 block : {emu::Dim3{64, 1, 1}, emu::Dim3{48, 1, 1}, emu::Dim3{8, 4, 2}, emu::Dim3{5, 3, 3},
                          emu::Dim3{32, 2, 1}}) {
    SCOPED_TRACE("block " + std::to_string(block.x) + "x" + std::to_string(block.y) + "x" +
                 std::to_string(block.z));
    std::string problem;
    const std::vector<uint32_t> interpreted = run(*m, {3, 1, 1}, block, false, problem);
    ASSERT_TRUE(problem.empty()) << problem;
    const std::vector<uint32_t> compiled = run(*m, {3, 1, 1}, block, true, problem);
    ASSERT_TRUE(problem.empty()) << problem;
    ASSERT_EQ(interpreted.size(), compiled.size());
    for (size_t i = 0; i < interpreted.size(); ++i)
      ASSERT_EQ(interpreted[i], compiled[i]) << "thread " << i / 24 << ", word " << i % 24;
    // The kernel really read what it claims (thread 1's %tid.x or %tid.y).
    EXPECT_EQ(compiled[24 + (block.x > 1 ? 0 : 1)], 1u);
  }
}

} // namespace
