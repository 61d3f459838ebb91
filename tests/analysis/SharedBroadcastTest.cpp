// Broadcasts through shared memory (issue 17, item 2): a load of one shared
// word in every thread, in a phase between CTA-wide barriers that no write
// of shared memory runs in, reads the same value in every thread of the CTA.
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

using U = Uniformity;

std::string kernel(const char *between, const char *barrier = "bar.sync 0;", const char *after = "") {
  std::string text = R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[64];
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra JOIN;
  mov.u32 %r2, %clock;
  st.shared.u32 [s], %r2;
JOIN:
  BETWEEN
  BARRIER
  ld.shared.u32 %r3, [s];
  AFTER
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r3;
  ret;
}
)";
  auto put = [&](const char *key, const char *what) {
    text.replace(text.find(key), std::string(key).size(), what);
  };
  put("BETWEEN", between);
  put("BARRIER", barrier);
  put("AFTER", after);
  return text;
}

TEST(SharedBroadcast, OneThreadStoresAllReadAfterTheBarrier) {
  EXPECT_EQ(Kernel(kernel("")).at("ld.shared.u32 %r3"), U::CtaUniform);
  EXPECT_EQ(Kernel(kernel("", "barrier.sync 0;")).at("ld.shared.u32 %r3"), U::CtaUniform);
  EXPECT_EQ(Kernel(kernel("", "bar.red.popc.u32 %r9, 0, %p1;")).at("ld.shared.u32 %r3"), U::CtaUniform);
}

TEST(SharedBroadcast, WithoutACtaWideBarrierTheLoadIsWarpUniform) {
  EXPECT_EQ(Kernel(kernel("", "")).at("ld.shared.u32 %r3"), U::WarpUniform) << "no barrier";
  EXPECT_EQ(Kernel(kernel("", "bar.sync 1, 64;")).at("ld.shared.u32 %r3"), U::WarpUniform)
      << "a barrier of 64 threads orders only them";
  EXPECT_EQ(Kernel(kernel("", "bar.warp.sync -1;")).at("ld.shared.u32 %r3"), U::WarpUniform);
}

TEST(SharedBroadcast, AWriteInThePhaseMakesTheLoadWarpUniform) {
  // Another thread may write the word while this one reads it.
  EXPECT_EQ(Kernel(kernel("", "bar.sync 0;", "st.shared.u32 [s+4], %r1;")).at("ld.shared.u32 %r3"),
            U::WarpUniform);
  EXPECT_EQ(Kernel(kernel("", "bar.sync 0;", "atom.shared.add.u32 %r8, [s+8], 1;")).at("ld.shared.u32 %r3"),
            U::WarpUniform);
  // A write before the barrier is another phase.
  EXPECT_EQ(Kernel(kernel("st.shared.u32 [s+4], %r1;")).at("ld.shared.u32 %r3"), U::CtaUniform);
}

TEST(SharedBroadcast, AsynchronousCopiesLandInLaterPhases) {
  EXPECT_EQ(Kernel(kernel("cp.async.ca.shared.global [s+16], [%rd2], 4;")).at("ld.shared.u32 %r3"),
            U::WarpUniform);
}

// Another CTA of the cluster may write this CTA's shared memory whenever
// its own phases say.
TEST(SharedBroadcast, ClusterPeersWriteInPhasesOfTheirOwn) {
  EXPECT_EQ(Kernel(kernel("", "bar.sync 0;", "mapa.u64 %rd3, %rd2, 1;"), "sm_90").at("ld.shared.u32 %r3"),
            U::WarpUniform);
  EXPECT_EQ(Kernel(kernel("st.shared::cluster.u32 [%r5], %r1;"), "sm_90").at("ld.shared.u32 %r3"),
            U::WarpUniform);
}

// Warp-specialized code meets barriers at different instructions in
// different warps: phases no longer line up.
TEST(SharedBroadcast, BarriersUnderAWarpUniformBranchSayNothing) {
  Kernel k(R"(
.visible .entry k()
{
  .shared .align 4 .b8 s[64];
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra PRODUCER;
  bar.sync 0;
  ld.shared.u32 %r3, [s];
  bra END;
PRODUCER:
  st.shared.u32 [s], %r1;
  bar.sync 0;
  ld.shared.u32 %r4, [s+4];
END:
  ret;
}
)");
  EXPECT_EQ(k.at("ld.shared.u32 %r3"), U::WarpUniform);
  EXPECT_EQ(k.at("ld.shared.u32 %r4"), U::WarpUniform);
}

} // namespace
} // namespace analysis::test
