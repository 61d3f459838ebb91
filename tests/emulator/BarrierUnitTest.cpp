// The named-barrier unit driven directly by values (warp, id, count, kind,
// lanes, pc), as an engine that has no decoded instructions drives it: the
// rules of DESIGN.md §4 on a CTA of two warps.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

using namespace ptxvm::test;
using emu::BarrierOp;
using emu::BarrierUnit;
using emu::NamedBarrier;
using Outcome = emu::BarrierUnit::Outcome;

namespace {

/// A CTA of `threads` threads of a kernel with a few registers, ready for
/// barrier operations (nothing runs).
class BarrierUnitTest : public ::testing::Test {
protected:
  void make(uint32_t threads) {
    cta_.reset();
    diags_ = {};
    module_ = ptx::parseModule(ptxModule(R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r0, 0;
  mov.u32 %r1, %r0;
  ret;
}
)"),
                               "unit.ptx", diags_);
    ASSERT_FALSE(diags_.hasErrors()) << diags_.renderText();
    kernel_ = device_.decode(*module_, "k", diags_);
    ASSERT_TRUE(kernel_);
    cta_ = std::make_unique<emu::Cta>(device_, *kernel_, emu::Dim3{}, emu::Dim3{}, emu::Dim3{threads, 1, 1},
                                      0, params_, diags_, budget_);
  }
  BarrierOp op(NamedBarrier::Op kind, uint32_t warp, uint64_t id, uint64_t count = 0, uint32_t lanes = ~0u) {
    BarrierOp o;
    o.kind = kind;
    o.warp = warp;
    o.id = id;
    o.hasCount = count != 0;
    o.count = count;
    o.lanes = lanes & cta_->warps[warp].valid;
    o.pc = 1;
    return o;
  }
  Outcome sync(uint32_t warp, uint64_t id, uint64_t count = 0, uint32_t lanes = ~0u) {
    return cta_->barriers.execute(op(NamedBarrier::Op::Sync, warp, id, count, lanes));
  }
  Outcome arrive(uint32_t warp, uint64_t id, uint64_t count) {
    return cta_->barriers.execute(op(NamedBarrier::Op::Arrive, warp, id, count));
  }
  emu::Warp &warp(uint32_t w) { return cta_->warps[w]; }
  bool has(ptx::DiagKind kind) const {
    for (const ptx::Diagnostic &d : diags_.all())
      if (d.kind == kind) return true;
    return false;
  }

  emu::Device device_;
  emu::LaunchBudget budget_;
  ptx::DiagnosticList diags_;
  std::unique_ptr<ptx::Module> module_;
  std::unique_ptr<emu::Kernel> kernel_;
  std::vector<uint8_t> params_;
  std::unique_ptr<emu::Cta> cta_;
};

TEST_F(BarrierUnitTest, SyncWaitsUntilEveryWarpArrived) {
  make(64);
  EXPECT_EQ(sync(0, 1, 64), Outcome::Waiting);
  EXPECT_EQ(warp(0).state, emu::Warp::State::AtBarrier);
  EXPECT_EQ(cta_->barriers.barrier(1).arrived, 32u);
  EXPECT_EQ(cta_->barriers.barrier(1).expected, 64u);
  EXPECT_EQ(sync(1, 1, 64), Outcome::Proceed);
  EXPECT_EQ(warp(0).state, emu::Warp::State::Ready);
  EXPECT_EQ(warp(1).state, emu::Warp::State::Ready);
  EXPECT_EQ(cta_->barriers.barrier(1).generation, 1u);
  EXPECT_EQ(cta_->barriers.barrier(1).expected, 0u) << "a new generation starts empty";
  EXPECT_TRUE(diags_.all().empty()) << diags_.renderText();
}

TEST_F(BarrierUnitTest, WithoutCountEveryLiveWarpTakesPart) {
  make(64);
  EXPECT_EQ(sync(1, 0), Outcome::Waiting);
  EXPECT_EQ(cta_->barriers.barrier(0).expected, 64u);
  // Warp 0 exits: the barrier no longer waits for it (__syncthreads after
  // a warp exited completes on hardware).
  warp(0).exited = warp(0).valid;
  warp(0).state = emu::Warp::State::Done;
  cta_->barriers.recountAfterExit(warp(0));
  EXPECT_EQ(warp(1).state, emu::Warp::State::Ready);
  EXPECT_EQ(cta_->barriers.barrier(0).generation, 1u);
}

TEST_F(BarrierUnitTest, ArriveDoesNotWait) {
  make(64);
  EXPECT_EQ(arrive(0, 2, 64), Outcome::Proceed);
  EXPECT_EQ(warp(0).state, emu::Warp::State::Ready);
  EXPECT_EQ(sync(1, 2, 64), Outcome::Proceed); // completes the generation at once
  EXPECT_EQ(cta_->barriers.barrier(2).generation, 1u);
}

TEST_F(BarrierUnitTest, PartialWarpCounts32) {
  make(48); // warp 1 has 16 threads
  EXPECT_EQ(sync(0, 1, 64), Outcome::Waiting);
  EXPECT_EQ(sync(1, 1, 64), Outcome::Proceed);
  EXPECT_TRUE(diags_.all().empty()) << diags_.renderText();
}

TEST_F(BarrierUnitTest, InvalidOperands) {
  make(64);
  EXPECT_EQ(sync(0, 16), Outcome::Rejected);
  EXPECT_TRUE(has(ptx::DiagKind::BarrierInvalidOperand));
  EXPECT_TRUE(cta_->failed);
  make(64);
  EXPECT_EQ(sync(0, 1, 48), Outcome::Rejected);
  EXPECT_TRUE(has(ptx::DiagKind::BarrierInvalidOperand));
}

TEST_F(BarrierUnitTest, DoubleArrive) {
  make(64);
  EXPECT_EQ(arrive(0, 3, 64), Outcome::Proceed);
  EXPECT_EQ(arrive(0, 3, 64), Outcome::Rejected);
  EXPECT_TRUE(has(ptx::DiagKind::BarrierDoubleArrive));
}

TEST_F(BarrierUnitTest, CountMismatchAndMixedOps) {
  make(96);
  EXPECT_EQ(sync(0, 1, 64), Outcome::Waiting);
  EXPECT_EQ(sync(1, 1, 96), Outcome::Rejected);
  EXPECT_TRUE(has(ptx::DiagKind::BarrierCountMismatch));
  make(96);
  EXPECT_EQ(sync(0, 1, 64), Outcome::Waiting);
  BarrierOp red = op(NamedBarrier::Op::Red, 1, 1, 64);
  red.redOp = ptx::Mod::Popc;
  EXPECT_EQ(cta_->barriers.execute(red), Outcome::Rejected);
  EXPECT_TRUE(has(ptx::DiagKind::BarrierMixedOps));
}

TEST_F(BarrierUnitTest, RedPopcReachesEveryArrivingLane) {
  make(64);
  BarrierOp a = op(NamedBarrier::Op::Red, 0, 4, 64);
  a.redOp = ptx::Mod::Popc;
  a.redTrue = 0xF; // 4 lanes of warp 0
  a.redDest = 2;   // %r2's slot
  BarrierOp b = a;
  b.warp = 1;
  b.redTrue = 0x80000001u; // 2 lanes of warp 1
  EXPECT_EQ(cta_->barriers.execute(a), Outcome::Waiting);
  EXPECT_EQ(cta_->barriers.execute(b), Outcome::Proceed);
  for (uint32_t w = 0; w < 2; ++w)
    for (unsigned l = 0; l < 32; ++l)
      EXPECT_EQ(warp(w).regs[2 * 32 + l], 6u) << "warp " << w << " lane " << l;
}

TEST_F(BarrierUnitTest, DivergentAlignedBarrierWarns) {
  make(64);
  EXPECT_EQ(sync(0, 0, 0, 0xFFFFu), Outcome::Waiting);
  EXPECT_TRUE(has(ptx::DiagKind::DivergentBarrier));
  EXPECT_FALSE(cta_->failed) << "a warning";
}

TEST_F(BarrierUnitTest, DeadlockReportNamesTheBarrier) {
  make(64);
  EXPECT_EQ(sync(0, 1, 64), Outcome::Waiting);
  warp(1).exited = warp(1).valid;
  warp(1).state = emu::Warp::State::Done;
  cta_->barriers.recountAfterExit(warp(1));
  EXPECT_EQ(warp(0).state, emu::Warp::State::AtBarrier) << "an explicit count still waits for 64";
  cta_->reportDeadlock();
  ASSERT_TRUE(has(ptx::DiagKind::BarrierDeadlock));
  const ptx::Diagnostic &d = diags_.all().back();
  EXPECT_NE(d.message.find("barrier 1 has 32 of 64 threads"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("warp 1 lanes 0-31: exited"), std::string::npos) << d.message;
}

} // namespace

namespace {

/// Every field of a barrier that has never been used.
void expectFresh(const NamedBarrier &b, uint32_t id) {
  SCOPED_TRACE("barrier " + std::to_string(id));
  EXPECT_EQ(b.expected, 0u);
  EXPECT_EQ(b.arrived, 0u);
  EXPECT_EQ(b.generation, 0u);
  EXPECT_EQ(b.arrivedWarps, 0u);
  EXPECT_EQ(b.countedWarps, 0u);
  for (uint32_t lanes : b.arrivedLanes) EXPECT_EQ(lanes, 0u);
  EXPECT_FALSE(b.countGiven);
  EXPECT_EQ(b.op, NamedBarrier::Op::None);
  EXPECT_TRUE(b.redDests.empty());
}

// A host thread's CTAs pass their barrier state on (BarrierUnit keeps the
// last one's): what a CTA left behind - completed generations, a generation
// half arrived, a pending arrive - must not reach the next CTA.
TEST_F(BarrierUnitTest, ANewCtaFindsEveryBarrierFresh) {
  make(64);
  for (uint32_t id = 0; id < 16; ++id) expectFresh(cta_->barriers.barrier(id), id);
  EXPECT_EQ(sync(0, 3, 64), Outcome::Waiting);
  EXPECT_EQ(sync(1, 3, 64), Outcome::Proceed);   // barrier 3: generation 1
  EXPECT_EQ(arrive(1, 7, 64), Outcome::Proceed); // barrier 7: half arrived
  EXPECT_EQ(sync(0, 15, 64), Outcome::Waiting);  // barrier 15: warp 0 waiting
  EXPECT_EQ(cta_->barriers.barrier(3).generation, 1u);
  EXPECT_EQ(cta_->barriers.barrier(7).arrived, 32u);
  make(64); // the next CTA, on the same host thread
  for (uint32_t id = 0; id < 16; ++id) expectFresh(cta_->barriers.barrier(id), id);
  EXPECT_EQ(sync(1, 7, 64), Outcome::Waiting) << "the old CTA's arrive on barrier 7 must not count";
  for (uint32_t id : {3u, 15u}) expectFresh(cta_->barriers.barrier(id), id);
  EXPECT_EQ(cta_->barriers.barrier(7).arrived, 32u);
  EXPECT_EQ(sync(0, 7, 64), Outcome::Proceed);
  EXPECT_EQ(cta_->barriers.barrier(7).generation, 1u);
  EXPECT_TRUE(diags_.all().empty()) << diags_.renderText();
}

} // namespace
