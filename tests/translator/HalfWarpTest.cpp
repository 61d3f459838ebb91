// Accesses of blocks 16 threads wide, where a warp is two rows: compiled code
// serves two half-warp rows (lanes 0-15 and 16-31 each consecutive) and two
// half-warp points (each half one address) with two plain accesses instead of
// a gather or scatter (Gen::Span::halfRows, halfPoints). Against the
// interpreter, over the shapes that take each path and the ones that must
// not: element sizes 1 to 8, rows apart, adjacent (one consecutive row),
// overlapping (both halves one row: the second half's stores land last),
// points, partial warps, other block widths, a second half out of bounds or
// misaligned (the checked path reports it), global and shared memory.
// And the memory windows compiled code keeps across a CTA's slices: a
// device-side free between two slices drops them.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

/// in: the source array; out: three regions of `region` bytes.
/// v0 = in[ty * stride + tx] (global rows), v1 = in[ty * pstride + 1]
/// (global points), v2: v0 stored to shared rows of 17 elements, then read
/// back at sh[ty * 17 + 3] (shared points) and at sh[ty * 17 + tx] (shared
/// rows); the three stored to out + j * region at [ty * ostride + tx]
/// (global rows).
std::string kernel(const char *type, unsigned size, unsigned misalign) {
  // Bytes live in 16-bit registers (ld.u8 widens, st.u8 narrows).
  const std::string t = type, s = std::to_string(size), r = size == 1 ? "u16" : t;
  return R"(
.visible .entry h(.param .u64 in, .param .u64 out, .param .u32 stride, .param .u32 pstride,
                  .param .u32 ostride, .param .u32 region)
{
  .reg .b32 %r<16>;
  .reg .b64 %d<16>;
  .reg .)" +
         r + R"( %v<4>;
  .shared .align 8 .b8 sh[)" +
         std::to_string(17 * 16 * size) + R"(];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %tid.y;
  ld.param.u32 %r2, [stride];
  ld.param.u32 %r3, [pstride];
  ld.param.u32 %r9, [ostride];
  ld.param.u32 %r10, [region];
  ld.param.u64 %d0, [in];
  ld.param.u64 %d1, [out];
  mad.lo.u32 %r4, %r1, %r2, %r0;
  mul.wide.u32 %d2, %r4, )" +
         s + R"(;
  add.u64 %d3, %d0, %d2;
  ld.global.)" +
         t + R"( %v0, [%d3+)" + std::to_string(misalign) + R"(];
  mul.lo.u32 %r5, %r1, %r3;
  mul.wide.u32 %d4, %r5, )" +
         s + R"(;
  add.u64 %d5, %d0, %d4;
  ld.global.)" +
         t + R"( %v1, [%d5+)" + s + R"(];
  mov.u32 %r7, sh;
  mad.lo.u32 %r6, %r1, 17, %r0;
  mad.lo.u32 %r6, %r6, )" +
         s + R"(, %r7;
  st.shared.)" +
         t + R"( [%r6], %v0;
  bar.sync 0;
  mul.lo.u32 %r8, %r1, )" +
         std::to_string(17 * size) + R"(;
  add.u32 %r8, %r8, %r7;
  ld.shared.)" +
         t + R"( %v2, [%r8+)" + std::to_string(3 * size) + R"(];
  ld.shared.)" +
         t + R"( %v3, [%r6];
  add.)" +
         r + R"( %v2, %v2, %v3;
  mad.lo.u32 %r11, %r1, %r9, %r0;
  mul.wide.u32 %d6, %r11, )" +
         s + R"(;
  add.u64 %d7, %d1, %d6;
  cvt.u64.u32 %d8, %r10;
  st.global.)" +
         t + R"( [%d7], %v0;
  add.u64 %d7, %d7, %d8;
  st.global.)" +
         t + R"( [%d7], %v1;
  add.u64 %d7, %d7, %d8;
  st.global.)" +
         t + R"( [%d7], %v2;
  ret;
}
)";
}

struct Shape {
  emu::Dim3 block;
  uint32_t stride, pstride, ostride;
  uint64_t inBytes; // 0: enough for every row
};

struct HalfWarpOutcome {
  std::vector<uint8_t> bytes;
  std::string diagnostics;
  bool ok = false;
};

HalfWarpOutcome launch(const ptx::Module &m, const Shape &shape, unsigned size, bool compiled) {
  emu::Device device;
  HalfWarpOutcome out;
  const ptxvm::test::TestKernel t = ptxvm::test::decodeForTest(device, m, "h", compiled, out.diagnostics);
  if (!t.kernel) return out;
  const emu::Kernel *k = t.kernel.get();
  ptx::DiagnosticList diags;
  const uint32_t rows = shape.block.y, width = shape.block.x;
  const uint64_t needed =
      (uint64_t{rows} * std::max({shape.stride, shape.pstride + 1, width}) + width + 2) * size;
  const uint64_t inBytes = shape.inBytes ? shape.inBytes : needed;
  std::vector<uint8_t> input(inBytes);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 7 + 3);
  const uint64_t in = device.global.allocate(inBytes);
  device.global.write(in, input.data(), input.size());
  const uint32_t region = static_cast<uint32_t>((rows * std::max(shape.ostride, width) + width) * size);
  const uint64_t outAddress = device.global.allocate(3 * uint64_t{region});
  emu::LaunchConfig config;
  config.engine = t.engine.get();
  config.grid = {2, 1, 1};
  config.block = shape.block;
  config.threads = 1;
  config.params.assign(k->paramBytes, 0);
  auto put = [&](int i, const void *v, size_t n) { std::memcpy(&config.params[k->paramOffsets[i]], v, n); };
  put(0, &in, 8), put(1, &outAddress, 8), put(2, &shape.stride, 4), put(3, &shape.pstride, 4);
  put(4, &shape.ostride, 4), put(5, &region, 4);
  out.ok = device.launch(*k, config, diags).ok;
  out.diagnostics = diags.renderText();
  out.bytes.resize(3 * uint64_t{region});
  device.global.read(outAddress, out.bytes.data(), out.bytes.size());
  return out;
}

TEST(HalfWarp, TwoRowAndTwoPointAccessesComputeAndReportAsOnTheInterpreter) {
  struct Type {
    const char *name;
    unsigned size;
  };
  const Type types[] = {{"u8", 1}, {"u16", 2}, {"u32", 4}, {"f32", 4}, {"u64", 8}};
  const Shape shapes[] = {
      {{16, 16, 1}, 17, 5, 17, 0}, // rows apart, points apart
      {{16, 16, 1}, 16, 0, 16, 0}, // one consecutive row, one point
      {{16, 16, 1}, 0, 3, 0, 0},   // both halves one row: overlapping stores
      {{16, 4, 1}, 40, 9, 20, 0},  // rows far apart
      {{16, 3, 1}, 17, 5, 17, 0},  // a partial second warp: gathers
      {{8, 8, 1}, 9, 2, 9, 0},     // four rows per warp: gathers
      {{32, 2, 1}, 33, 1, 35, 0},  // a row per warp
      {{16, 4, 1}, 17, 5, 17, 0},  // fits, then:
      {{16, 4, 1}, 17, 5, 17, 60}, // the second half's row out of bounds
  };
  for (const Type &type : types)
    for (unsigned misalign : {0u, 1u}) {
      if (misalign && type.size == 1) continue;
      auto m = ptxvm::test::parseTestModule(kernel(type.name, type.size, misalign), "half.ptx");
      ASSERT_TRUE(m);
      for (const Shape &shape : shapes) {
        Shape scaled = shape;
        scaled.inBytes *= type.size;
        SCOPED_TRACE(std::string(type.name) + (misalign ? " misaligned" : "") + ", block " +
                     std::to_string(shape.block.x) + "x" + std::to_string(shape.block.y) + ", strides " +
                     std::to_string(shape.stride) + "/" + std::to_string(shape.pstride) + "/" +
                     std::to_string(shape.ostride) + (shape.inBytes ? ", short input" : ""));
        const HalfWarpOutcome interpreted = launch(*m, scaled, type.size, false),
                              compiled = launch(*m, scaled, type.size, true);
        EXPECT_EQ(interpreted.ok, !misalign && !shape.inBytes) << interpreted.diagnostics;
        EXPECT_EQ(interpreted.ok, compiled.ok);
        EXPECT_EQ(interpreted.diagnostics, compiled.diagnostics);
        ASSERT_EQ(interpreted.bytes.size(), compiled.bytes.size());
        for (size_t i = 0; i < interpreted.bytes.size(); ++i)
          ASSERT_EQ(interpreted.bytes[i], compiled.bytes[i]) << "byte " << i;
      }
    }
}

/// Every thread reads its word of a buffer, twice, in a loop; between the
/// two reads, thread 0 frees the buffer: the second read (the same
/// instruction, so the same window) is a use after free, which compiled code
/// must report though its windows saw the buffer live in the slice before.
const char *kFreeKernel = R"(
.extern .func free (.param .b64 p);
.visible .entry f(.param .u64 buffer)
{
  .reg .b32 %r<4>;
  .reg .b64 %d<4>;
  .reg .pred %p<3>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %d0, [buffer];
  mul.wide.u32 %d1, %r0, 4;
  add.u64 %d2, %d0, %d1;
  mov.u32 %r2, 0;
again:
  ld.global.u32 %r1, [%d2];
  bar.sync 0;
  setp.ne.u32 %p1, %r0, 0;
  setp.ne.u32 %p2, %r2, 0;
  or.pred %p1, %p1, %p2;
  @%p1 bra after;
  {
  .param .b64 param0;
  st.param.b64 [param0], %d0;
  call.uni free, (param0);
  }
after:
  bar.sync 0;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p0, %r2, 2;
  @%p0 bra again;
  ret;
}
)";

TEST(HalfWarp, ADeviceSideFreeDropsTheWindowsOfEarlierSlices) {
  auto m = ptxvm::test::parseTestModule(kFreeKernel, "free.ptx");
  ASSERT_TRUE(m);
  std::string reports[2];
  for (bool compiled : {false, true}) {
    emu::Device device;
    device.setHostFunction("free", [&device](emu::HostCall &call) {
      device.global.free(call.argument(0));
      call.forgetCachedRange(call.argument(0));
    });
    std::string error;
    const ptxvm::test::TestKernel t = ptxvm::test::decodeForTest(device, *m, "f", compiled, error);
    ASSERT_TRUE(t.kernel) << error;
    const emu::Kernel *k = t.kernel.get();
    ptx::DiagnosticList launchDiags;
    const uint64_t buffer = device.global.allocate(64 * 4);
    emu::LaunchConfig config;
    config.engine = t.engine.get();
    config.grid = {1, 1, 1};
    config.block = {64, 1, 1};
    config.threads = 1;
    config.params.assign(k->paramBytes, 0);
    std::memcpy(&config.params[k->paramOffsets[0]], &buffer, 8);
    EXPECT_FALSE(device.launch(*k, config, launchDiags).ok) << (compiled ? "compiled" : "interpreted");
    reports[compiled] = launchDiags.renderText();
    EXPECT_NE(reports[compiled].find("use-after-free"), std::string::npos) << reports[compiled];
  }
  EXPECT_EQ(reports[0], reports[1]);
}

} // namespace
