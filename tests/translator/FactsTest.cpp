// The analyses' facts about memory addresses (translator/Facts.h) and the
// compiled code that relies on them: which accesses are proven one address
// or consecutive lanes, including `a[i]` with an int i widened to 64 bits
// (whose 32-bit index may wrap within a warp, which compiled code checks),
// and that such accesses compute, and fault, as on the interpreter.
#include "translator/Facts.h"
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using translator::AddressFacts;

/// The fact of each ld/st through a register of kernel `name`, in program
/// order.
std::vector<uint8_t> accessFacts(const std::string &body, const std::string &name) {
  auto m = ptxvm::test::parseTestModule(ptxvm::test::ptxModule(body), name + ".ptx");
  if (!m) return {};
  emu::Device device;
  ptx::DiagnosticList diags;
  auto k = device.decode(*m, name, diags);
  EXPECT_TRUE(k) << diags.renderText();
  if (!k) return {};
  const AddressFacts facts = translator::addressFacts(*k);
  std::vector<uint8_t> out;
  for (uint32_t pc = 0; pc < k->code.size(); ++pc) {
    const emu::DInstr &in = k->code[pc];
    if (in.opcode != ptx::Opcode::Ld && in.opcode != ptx::Opcode::St) continue;
    if (k->op(in, in.opcode == ptx::Opcode::St ? 0 : 1).hasBase) out.push_back(facts.kind[pc]);
  }
  return out;
}

constexpr uint8_t kNone = AddressFacts::None, kUniform = AddressFacts::Uniform,
                  kConsecutive = AddressFacts::Consecutive;

// i = ctaid.x * ntid.x + tid.x is unbounded in 32 bits (compiled code serves
// every launch), so its widened form is not exact; the address is
// consecutive all the same unless i wraps within the warp.
TEST(Facts, WidenedThreadIndicesAreConsecutive) {
  const std::string body = R"(
.visible .entry k(.param .u64 a, .param .u64 b)
{
  .reg .b32 %r<8>;
  .reg .b64 %d<24>;
  .reg .f32 %f<4>;
  .reg .f64 %g<2>;
  ld.param.u64 %d0, [a];
  ld.param.u64 %d1, [b];
  cvta.to.global.u64 %d2, %d0;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.s32 %r3, %r0, %r1, %r2;
  // nvcc -O3: mul.wide.s32 then add.
  mul.wide.s32 %d3, %r3, 4;
  add.s64 %d4, %d2, %d3;
  ld.global.f32 %f0, [%d4];
  // The offset on the left, and an immediate on top.
  add.s64 %d5, %d3, %d2;
  st.global.f32 [%d5+4096], %f0;
  // nvcc -G: cvt.s64.s32, then shl.
  cvt.s64.s32 %d6, %r3;
  shl.b64 %d7, %d6, 2;
  add.s64 %d8, %d2, %d7;
  ld.global.f32 %f1, [%d8];
  // mad.wide.u32 with the base as its addend; doubles at 8 bytes a lane.
  mad.wide.u32 %d9, %r3, 8, %d2;
  ld.global.f64 %g0, [%d9];
  // cvt.u64.u32 and a multiplication by the size.
  cvt.u64.u32 %d10, %r3;
  mul.lo.s64 %d11, %d10, 4;
  add.s64 %d12, %d11, %d2;
  st.global.f32 [%d12], %f1;
  // i + 32 (still 4 bytes a lane), and 2 * i for 4-byte elements as doubles.
  add.s32 %r4, %r3, 32;
  mul.wide.s32 %d13, %r4, 4;
  add.s64 %d14, %d2, %d13;
  ld.global.f32 %f2, [%d14];
  shl.b32 %r5, %r3, 1;
  mul.wide.s32 %d15, %r5, 4;
  add.s64 %d16, %d2, %d15;
  st.global.f64 [%d16], %g0;
  // Not consecutive: a stride of 8 for 4-byte accesses, and 2 * i for them.
  mul.wide.s32 %d17, %r3, 8;
  add.s64 %d18, %d2, %d17;
  ld.global.f32 %f3, [%d18];
  mul.wide.s32 %d19, %r5, 4;
  add.s64 %d20, %d2, %d19;
  st.global.f32 [%d20], %f3;
  // A base read from memory (divergent): no fact.
  ld.global.u64 %d21, [%d9];
  add.s64 %d22, %d21, %d3;
  st.global.f32 [%d22], %f3;
  // The uniform base itself.
  st.global.f32 [%d2], %f3;
  // A uniform value the analyses know nothing of (a shift's result is not
  // bounded) plus tid.x.
  ld.global.u32 %r6, [%d2];
  shr.u32 %r7, %r6, 31;
  add.s32 %r7, %r7, %r2;
  mul.wide.s32 %d23, %r7, 4;
  add.s64 %d23, %d2, %d23;
  ld.global.f32 %f3, [%d23];
  // A 64-bit multiply-add of the widened index, and a uniform subtracted.
  cvt.s64.s32 %d22, %r3;
  mad.lo.s64 %d22, %d22, 4, %d2;
  sub.s64 %d22, %d22, %d1;
  st.global.f32 [%d22], %f3;
  ret;
}
)";
  EXPECT_EQ(accessFacts(body, "k"),
            (std::vector<uint8_t>{kConsecutive, kConsecutive, kConsecutive, kConsecutive, kConsecutive,
                                  kConsecutive, kConsecutive, kNone, kNone, kConsecutive, kNone, kUniform,
                                  kUniform, kConsecutive, kConsecutive}));
}

// Indices that are not a uniform value plus tid.x: a value loaded per
// lane, the lane's own index times two added to another thread index, an
// index made under a guard (only some lanes write it), and a sum of two
// widened indices (two wraps could cancel the check).
TEST(Facts, OtherIndicesAreNotConsecutive) {
  const std::string body = R"(
.visible .entry k(.param .u64 a)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %d<16>;
  .reg .f32 %f<2>;
  ld.param.u64 %d0, [a];
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.s32 %r3, %r0, %r1, %r2;
  mul.wide.s32 %d1, %r3, 4;
  add.s64 %d2, %d0, %d1;
  ld.global.u32 %r4, [%d2];
  mul.wide.s32 %d3, %r4, 4;
  add.s64 %d4, %d0, %d3;
  ld.global.f32 %f0, [%d4];
  mov.u32 %r5, %r3;
  setp.lt.u32 %p0, %r2, 7;
  @%p0 add.s32 %r5, %r3, 1;
  mul.wide.s32 %d5, %r5, 4;
  add.s64 %d6, %d0, %d5;
  st.global.f32 [%d6], %f0;
  add.s64 %d7, %d2, %d1;
  st.global.f32 [%d7], %f0;
  ret;
}
)";
  EXPECT_EQ(accessFacts(body, "k"), (std::vector<uint8_t>{kConsecutive, kNone, kNone, kNone}));
}

// out[n + tid.x] = tid.x + 1 through `p`, with mul.wide.s32: the compiled
// code's consecutive path must give what the interpreter gives where n +
// tid.x crosses zero (consecutive), where it stays just below 2^31, and
// where it wraps from 2^31 - 1 to -2^31 within the warp (the lanes past the
// wrap address 16 GiB below: out of bounds, reported as on the interpreter).
const char *kWrapping = R"(
.visible .entry w(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .b64 %d<4>;
  ld.param.u64 %d0, [p];
  ld.param.u32 %r0, [n];
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r0, %r1;
  mul.wide.s32 %d1, %r2, 4;
  add.s64 %d2, %d0, %d1;
  add.s32 %r3, %r1, 1;
  st.global.u32 [%d2], %r3;
  ret;
}
)";

struct WrapOutcome {
  bool ok = false;
  std::string diagnostics;
  std::vector<uint32_t> words;
};

WrapOutcome runWrapping(bool compiled, int32_t n, unsigned threads) {
  WrapOutcome o;
  auto m = ptxvm::test::parseTestModule(ptxvm::test::ptxModule(kWrapping), "wrapping.ptx");
  if (!m) return o;
  emu::Device device;
  std::string error;
  ptxvm::test::TestKernel k = ptxvm::test::decodeForTest(device, *m, "w", compiled, error);
  EXPECT_TRUE(k.kernel) << error;
  if (!k.kernel) return o;
  if (compiled) {
    EXPECT_TRUE(k.engine) << error;
  }
  // `p` is placed so that index n lands on the buffer's first word.
  constexpr unsigned kWords = 64;
  const uint64_t buffer = device.global.allocate(kWords * 4);
  const uint64_t p = buffer - 4 * static_cast<uint64_t>(static_cast<int64_t>(n));
  emu::LaunchConfig config;
  config.engine = k.engine.get();
  config.grid = {1, 1, 1};
  config.block = {threads, 1, 1};
  config.threads = 1;
  config.params.assign(k.kernel->paramBytes, 0);
  std::memcpy(&config.params[k.kernel->paramOffsets[0]], &p, 8);
  std::memcpy(&config.params[k.kernel->paramOffsets[1]], &n, 4);
  ptx::DiagnosticList diags;
  o.ok = device.launch(*k.kernel, config, diags).ok;
  o.diagnostics = diags.renderText();
  o.words.resize(kWords);
  device.global.read(buffer, o.words.data(), kWords * 4);
  return o;
}

TEST(Facts, WidenedIndicesThatWrapWithinAWarpRunAsOnTheInterpreter) {
  struct Case {
    int32_t n;
    unsigned threads;
    bool ok;
  };
  const Case cases[] = {
      {-16, 32, true},             // -16 .. 15: sign extension continues across zero
      {0x7FFFFFE0, 32, true},      // up to 2^31 - 1, no wrap
      {0x7FFFFFF0, 32, false},     // wraps after lane 15
      {0x7FFFFFF0, 16, true},      // the same warp's first half only
      {-0x7FFFFFFF - 1, 48, true}, // from -2^31 up, over a warp and a half
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", " + std::to_string(c.threads) + " threads");
    const WrapOutcome interpreted = runWrapping(false, c.n, c.threads);
    const WrapOutcome compiled = runWrapping(true, c.n, c.threads);
    EXPECT_EQ(interpreted.ok, c.ok) << interpreted.diagnostics;
    EXPECT_EQ(compiled.ok, interpreted.ok);
    EXPECT_EQ(compiled.diagnostics, interpreted.diagnostics);
    EXPECT_EQ(compiled.words, interpreted.words);
    for (unsigned t = 0; c.ok && t < c.threads; ++t) EXPECT_EQ(interpreted.words[t], t + 1) << "word " << t;
  }
}

// out[i] = in[i] * 2 + 1 for i = ((ctaid.x * ntid.z + tid.z) * ntid.y + tid.y) *
// 128 + tid.x (rows 128 words apart), an int widened by mul.wide.s32:
// consecutive lanes wherever each warp is one row of the block (%ntid.x a
// multiple of 32), the general path otherwise (a warp over two rows is not
// consecutive); every shape computes what the interpreter computes.
const char *kRows = R"(
.visible .entry rows(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %d<8>;
  ld.param.u64 %d0, [in];
  ld.param.u64 %d1, [out];
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.z;
  mov.u32 %r2, %tid.z;
  mad.lo.s32 %r3, %r0, %r1, %r2;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %tid.y;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  mov.u32 %r8, %tid.x;
  mad.lo.s32 %r9, %r6, 128, %r8;
  mul.wide.s32 %d2, %r9, 4;
  add.s64 %d3, %d0, %d2;
  ld.global.u32 %r10, [%d3];
  mad.lo.s32 %r11, %r10, 2, 1;
  add.s64 %d4, %d1, %d2;
  st.global.u32 [%d4], %r11;
  ret;
}
)";

std::vector<uint32_t> runRows(bool compiled, emu::Dim3 block, unsigned ctas) {
  auto m = ptxvm::test::parseTestModule(ptxvm::test::ptxModule(kRows), "rows.ptx");
  if (!m) return {};
  emu::Device device;
  std::string error;
  ptxvm::test::TestKernel k = ptxvm::test::decodeForTest(device, *m, "rows", compiled, error);
  EXPECT_TRUE(k.kernel) << error;
  if (!k.kernel) return {};
  const size_t words = size_t{128} * block.y * block.z * ctas;
  std::vector<uint32_t> input(words);
  for (size_t i = 0; i < words; ++i) input[i] = static_cast<uint32_t>(i * 7 + 3);
  const uint64_t in = device.global.allocate(words * 4), out = device.global.allocate(words * 4);
  device.global.write(in, input.data(), words * 4);
  emu::LaunchConfig config;
  config.engine = k.engine.get();
  config.grid = {ctas, 1, 1};
  config.block = block;
  config.threads = 1;
  config.params.assign(k.kernel->paramBytes, 0);
  std::memcpy(&config.params[k.kernel->paramOffsets[0]], &in, 8);
  std::memcpy(&config.params[k.kernel->paramOffsets[1]], &out, 8);
  ptx::DiagnosticList diags;
  EXPECT_TRUE(device.launch(*k.kernel, config, diags).ok) << diags.renderText();
  std::vector<uint32_t> result(words);
  device.global.read(out, result.data(), words * 4);
  return result;
}

TEST(Facts, WarpsThatAreRowsOfTheBlockAccessConsecutiveLanes) {
  EXPECT_EQ(accessFacts(kRows, "rows"), (std::vector<uint8_t>{kConsecutive, kConsecutive}));
  const emu::Dim3 shapes[] = {{32, 4, 1}, {64, 2, 2},  {96, 3, 1}, {16, 8, 1}, {48, 2, 1},
                              {8, 4, 4},  {100, 1, 1}, {3, 5, 70}, {128, 1, 9}};
  for (const emu::Dim3 &block : shapes) {
    SCOPED_TRACE(std::to_string(block.x) + "x" + std::to_string(block.y) + "x" + std::to_string(block.z));
    const std::vector<uint32_t> interpreted = runRows(false, block, 3);
    EXPECT_EQ(runRows(true, block, 3), interpreted);
    for (size_t i = 0; i < interpreted.size(); ++i)
      ASSERT_EQ(interpreted[i], i % 128 < block.x ? static_cast<uint32_t>((i * 7 + 3) * 2 + 1) : 0u)
          << "word " << i;
  }
}

} // namespace
