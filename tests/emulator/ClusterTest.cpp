// Thread-block clusters (sm_90): the CTAs of a cluster run together, see
// each other's shared memory through mapa and .shared::cluster, and meet at
// barrier.cluster; the cluster special registers. (Against H100: the
// sm90_cluster_* cases of tests/gpu.)
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

namespace {

using namespace ptxvm::test;
using ptx::DiagKind;

// Four CTAs per cluster in a ring: each writes its words, waits for the
// cluster, reads its right neighbour's words, and waits again so that no CTA
// leaves while another still reads its shared memory. `skipArrive`: rank 2's
// first barrier.cluster.wait comes without an arrive, which no thread of
// the cluster can ever complete.
std::string ringKernel(bool skipArrive) {
  return ptxModule(std::string(R"(
.visible .entry ring(.param .u64 out)
.explicitcluster
.reqnctapercluster 4, 1, 1
{
  .shared .align 4 .b32 s[32];
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mad.lo.u32 %r4, %r2, 100, %r1;
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r4;
  setp.eq.u32 %p1, %r2, 2;
)") + (skipArrive ? "  @!%p1 barrier.cluster.arrive.aligned;\n" : "  barrier.cluster.arrive.aligned;\n") +
                       R"(
  barrier.cluster.wait.aligned;
  add.u32 %r8, %r2, 1;
  rem.u32 %r8, %r8, %r3;
  mapa.shared::cluster.u32 %r9, %r7, %r8;
  ld.shared::cluster.u32 %r10, [%r9];
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  mov.u32 %r11, %ctaid.x;
  mad.lo.u32 %r11, %r11, 32, %r1;
  mul.wide.u32 %rd2, %r11, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  ret;
}
)",
                   "sm_90", "8.0");
}

TEST(Cluster, CtasReadTheirNeighboursSharedMemory) {
  for (unsigned threads : {1u, 2u}) {
    EmuRun r =
        runKernel(ringKernel(false), "ring", {8}, {32}, {Arg::array(std::vector<uint32_t>(256))}, threads);
    ASSERT_TRUE(r.result.ok) << r.diags.renderText();
    auto out = r.buffer<uint32_t>(0);
    for (uint32_t cta = 0; cta < 8; ++cta)
      for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[cta * 32 + t], (cta % 4 + 1) % 4 * 100 + t);
  }
}

TEST(Cluster, AWaitNoThreadCanCompleteIsADeadlock) {
  EmuRun r = runKernel(ringKernel(true), "ring", {4}, {32}, {Arg::array(std::vector<uint32_t>(128))});
  EXPECT_FALSE(r.result.ok);
  EXPECT_EQ(r.result.error, "cudaErrorLaunchTimeout");
  const ptx::Diagnostic *d = r.first(DiagKind::BarrierDeadlock);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_NE(d->message.find("barrier.cluster"), std::string::npos) << d->message;
}

TEST(Cluster, TheGridMustBeWholeClusters) {
  EmuRun r = runKernel(ringKernel(false), "ring", {6}, {32}, {Arg::array(std::vector<uint32_t>(192))});
  EXPECT_FALSE(r.result.ok);
  EXPECT_EQ(r.result.error, "cudaErrorInvalidClusterSize");
}

// barrier.cluster orders the warps of a CTA as __syncthreads does: warp 1
// reads what warp 0 wrote after it, and --racecheck agrees.
TEST(Cluster, TheClusterBarrierOrdersSharedMemoryForRacecheck) {
  std::string ptx = ptxModule(R"(
.visible .entry swap(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
  .shared .align 4 .b32 s[64];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  xor.b32 %r3, %r3, 128;
  add.u32 %r4, %r2, %r3;
  ld.shared.u32 %r5, [%r4];
  mov.u32 %r6, %ctaid.x;
  mad.lo.u32 %r6, %r6, 64, %r1;
  mul.wide.u32 %rd2, %r6, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)",
                              "sm_90", "8.0");
  EmuRun r = runKernel(ptx, "swap", {2}, {64}, {Arg::array(std::vector<uint32_t>(128))}, 1, 0, 100'000'000,
                       false, 0, true);
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  EXPECT_FALSE(r.has(DiagKind::SharedRace)) << r.diags.renderText();
  auto out = r.buffer<uint32_t>(0);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(out[i], (i % 64) ^ 32u);
}

// Without a cluster a CTA is a cluster of one: its rank is 0, the cluster
// barrier waits for its own threads only.
TEST(Cluster, ACtaWithoutAClusterIsAClusterOfOne) {
  std::string ptx = ptxModule(R"(
.visible .entry solo(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %cluster_nctarank;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mad.lo.u32 %r3, %r2, 10, %r1;
  st.global.u32 [%rd1], %r3;
  ret;
}
)",
                              "sm_90", "8.0");
  EmuRun r = runKernel(ptx, "solo", {1}, {64}, {Arg::array(std::vector<uint32_t>(1))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  EXPECT_EQ(r.buffer<uint32_t>(0)[0], 10u);
}

} // namespace
