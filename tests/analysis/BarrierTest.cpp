// Static barrier checks: divergent .aligned barriers, ids and counts out of
// range or divergent, warp-role tables and the arrive/wait balance.
#include "analysis/BarrierCheck.h"
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {
namespace {

/// The barrier report of `function` in kernel `k`'s analysis.
std::string barriers(const Kernel &k, const std::string &function = "k") {
  auto reports = checkBarriers(k.module(), k.result());
  for (const BarrierReport &r : reports)
    if (r.function == &k.function(function)) return r.print();
  return "no report";
}

const char kConditional[] = R"(
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %SOURCE;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra SKIP;
  BARRIER;
SKIP:
  ret;
}
)";

std::string conditional(const char *source, const char *barrier) {
  std::string text = kConditional;
  text.replace(text.find("SOURCE"), 6, source);
  text.replace(text.find("BARRIER"), 7, barrier);
  return text;
}

TEST(BarrierCheck, AlignedBarrierUnderADivergentBranch) {
  EXPECT_EQ(
      barriers(Kernel(conditional("tid.x", "bar.sync 0"))),
      "line 12: warning: 'bar.sync' is .aligned but part of a warp may reach it: it depends on the divergent "
      "branch at line 11 [divergent-barrier]\n"
      "barrier 0:\n  all warps: arrive none; wait line 12\n");
  // Warp-uniform and CTA-uniform conditions keep warps whole.
  EXPECT_EQ(barriers(Kernel(conditional("warpid", "bar.sync 0"))).find("divergent-barrier"),
            std::string::npos);
  EXPECT_EQ(barriers(Kernel(conditional("ctaid.x", "bar.sync 0"))).find("divergent-barrier"),
            std::string::npos);
  // barrier.sync without .aligned may be executed by part of a warp.
  EXPECT_EQ(barriers(Kernel(conditional("tid.x", "barrier.sync 0"))).find("divergent-barrier"),
            std::string::npos);
  EXPECT_NE(barriers(Kernel(conditional("tid.x", "barrier.sync.aligned 0"))).find("divergent-barrier"),
            std::string::npos);
}

TEST(BarrierCheck, ExitedLanesDoNotMakeAWarpPartial) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 100;
  @%p1 exit;
  bar.sync 0;
  ret;
}
)");
  EXPECT_EQ(barriers(k).find("divergent-barrier"), std::string::npos);
}

TEST(BarrierCheck, BarrierInALoopWithADivergentExit) {
  Kernel k(R"(
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
LOOP:
  bar.sync 0;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  ret;
}
)");
  EXPECT_NE(
      barriers(k).find("line 12: warning: 'bar.sync' is .aligned but part of a warp may reach it: it depends "
                       "on the divergent branch at line 15"),
      std::string::npos)
      << barriers(k);
}

TEST(BarrierCheck, IdsAndCountsOutOfRangeOrDivergent) {
  DivergenceOptions block128;
  block128.block = LaunchShape::exact(128);
  Kernel k(R"(
.visible .entry k()
{
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 3;
  bar.sync 16;
  bar.sync 1, 48;
  bar.arrive 2, 0;
  bar.sync 3, 256;
  bar.sync %r1;
  bar.sync 4, %r1;
  bar.sync %r2, 128;
  mov.u32 %r3, 17;
  bar.sync %r3;
  ret;
}
)",
           "sm_80", block128);
  EXPECT_EQ(
      barriers(k),
      "line 10: error: barrier id 16 is out of range 0..15 in 'bar.sync' [barrier-invalid-operand]\n"
      "line 11: error: barrier thread count 48 of 'bar.sync' is not a positive multiple of 32 "
      "[barrier-invalid-operand]\n"
      "line 12: error: barrier thread count 0 of 'bar.arrive' is not a positive multiple of 32 "
      "[barrier-invalid-operand]\n"
      "line 13: error: barrier thread count 256 of 'bar.sync' exceeds the 128 threads of a 128x1x1 block: "
      "it can never complete [barrier-deadlock]\n"
      "line 14: warning: barrier id %r1 of 'bar.sync' may differ between the lanes of a warp "
      "[barrier-invalid-operand]\n"
      "line 15: warning: barrier thread count %r1 of 'bar.sync' may differ between the lanes of a warp "
      "[barrier-count-mismatch]\n"
      "line 18: error: barrier id 17 is out of range 0..15 in 'bar.sync' [barrier-invalid-operand]\n"
      "barrier 1:\n  all warps: arrive none; wait line 11\n"
      "barrier 2:\n  all warps: arrive line 12; wait none\n"
      "barrier 3:\n  all warps: arrive none; wait line 13, line 16\n"
      "barrier 4:\n  all warps: arrive none; wait line 15\n");
}

// Warp specialization with a role decided by tid.x >> 5 in a 128-thread
// block: warp 0 produces, warps 1-3 consume.
const char kProducerConsumer[] = R"(
.visible .entry k()
.reqntid 128
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra PRODUCER;
  bar.sync 1, 128;
  bra DONE;
PRODUCER:
  @BODY@
DONE:
  ret;
}
)";

std::string producerConsumer(const char *produce) {
  std::string text = kProducerConsumer;
  text.replace(text.find("@BODY@"), 6, produce);
  return text;
}

TEST(BarrierCheck, WarpRolesOfAProducerConsumerProtocol) {
  Kernel k(producerConsumer("bar.arrive 1, 128;"));
  EXPECT_EQ(barriers(k), "barrier 1:\n"
                         "  warps where %p1 false at line 13: arrive none; wait line 14\n"
                         "  warps where %p1 true at line 13: arrive line 17; wait none\n");
}

TEST(BarrierCheck, RolesThatTakePartDifferentNumbersOfTimes) {
  Kernel twice(producerConsumer("bar.arrive 1, 128;\n  bar.arrive 1, 128;"));
  EXPECT_NE(barriers(twice).find(
                "line 13: warning: barrier 1: warps where %p1 false at line 13 take part in 1 "
                "barrier operations, warps where %p1 true at line 13 in 2: the arrive/wait balance "
                "differs between roles [barrier-deadlock]"),
            std::string::npos)
      << barriers(twice);
  // Within the producer role, a CTA-uniform branch skips the arrive.
  Kernel sometimes(producerConsumer("mov.u32 %r3, %ctaid.x;\n  setp.eq.u32 %p2, %r3, 0;\n  @%p2 bra DONE;\n"
                                    "  bar.arrive 1, 128;"));
  EXPECT_NE(barriers(sometimes).find("warps where %p1 true at line 13 take part in 0 to 1 barrier operations "
                                     "depending on the path [barrier-deadlock]"),
            std::string::npos)
      << barriers(sometimes);
}

TEST(BarrierCheck, CallToABarrierFunctionFromADivergentBranch) {
  Kernel k(R"(
.func sync()
{
  bar.sync 0;
  ret;
}
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra SKIP;
  call.uni sync;
SKIP:
  ret;
}
)");
  EXPECT_EQ(barriers(k),
            "line 17: warning: call to 'sync', which executes an .aligned barrier, may be reached by "
            "part of a warp [divergent-barrier]\n");
  EXPECT_EQ(barriers(k, "sync"),
            "line 7: warning: 'bar.sync' is .aligned but part of a warp may reach it: the "
            "function is called where part of a warp may be [divergent-barrier]\n"
            "barrier 0:\n  all warps: arrive none; wait line 7\n");
}

} // namespace
} // namespace analysis::test
