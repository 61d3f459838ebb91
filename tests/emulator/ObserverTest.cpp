// The observer event stream: exact event counts on a small kernel, several
// observers at once, and the checkers built on it (statistics, racecheck)
// next to a caller's observer.
#include "emulator/Device.h"
#include "emulator/Statistics.h"
#include "emulator/Timeline.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

using namespace ptxvm::test;

namespace {

/// Each thread stores its %tid.x to shared memory, waits at bar.sync 0,
/// reads the word of thread 63 - t and stores it to out[cta * 64 + t].
const char *kExchange = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 s[64];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd0, %r0, 4;
  mov.u64 %rd1, s;
  add.u64 %rd2, %rd1, %rd0;
  st.shared.u32 [%rd2], %r0;
  bar.sync 0;
  xor.b32 %r1, %r0, 63;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.shared.u32 %r2, [%rd4];
  ld.param.u64 %rd5, [out];
  cvta.to.global.u64 %rd6, %rd5;
  mov.u32 %r3, %ctaid.x;
  mad.lo.u32 %r4, %r3, 64, %r0;
  mul.wide.u32 %rd7, %r4, 4;
  add.u64 %rd7, %rd6, %rd7;
  st.global.u32 [%rd7], %r2;
  ret;
}
)";

/// The same without the barrier: the read of another thread's word races.
std::string racyExchange() {
  std::string text = kExchange;
  text.erase(text.find("  bar.sync 0;\n"), 14);
  return text;
}

/// Counts what it is told, per event kind (summed over CTAs).
struct Counts {
  std::atomic<uint64_t> ctaStarted{0}, ctaFinished{0}, instructions{0};
  std::atomic<uint64_t> memory{0}, sharedReads{0}, sharedWrites{0}, global{0}, param{0};
  std::atomic<uint64_t> arrived{0}, waiting{0}, completed{0}, resumed{0}, diverged{0};
};

class Counter final : public emu::LaunchObserver {
public:
  Counter(Counts &c, unsigned interests) : c_(c), interests_(interests) {}
  std::unique_ptr<emu::CtaObserver> observeCta(emu::Cta &) override { return std::make_unique<Per>(*this); }
  void launchStarted(const emu::Kernel &, const emu::LaunchConfig &) override { ++launches; }
  void launchFinished(emu::LaunchResult &) override { ++finished; }
  int launches = 0, finished = 0;

private:
  struct Per final : emu::CtaObserver {
    explicit Per(Counter &o) : o_(o) {}
    unsigned interests() const override { return o_.interests_; }
    void ctaStarted(const emu::Cta &) override { ++o_.c_.ctaStarted; }
    void ctaFinished(const emu::Cta &) override { ++o_.c_.ctaFinished; }
    void instructionExecuted(const emu::Warp &, uint32_t, uint32_t, uint32_t) override {
      ++o_.c_.instructions;
    }
    void memoryAccess(const emu::MemoryAccess &a) override {
      ++o_.c_.memory;
      if (a.space == emu::Space::Shared) ++(a.write ? o_.c_.sharedWrites : o_.c_.sharedReads);
      if (a.space == emu::Space::Global) ++o_.c_.global;
      if (a.space == emu::Space::Param) ++o_.c_.param;
    }
    void branchDiverged(const emu::Warp &, uint32_t, unsigned) override { ++o_.c_.diverged; }
    void barrierArrived(const emu::BarrierEvent &) override { ++o_.c_.arrived; }
    void barrierWaiting(const emu::BarrierEvent &) override { ++o_.c_.waiting; }
    void barrierCompleted(int32_t, uint32_t) override { ++o_.c_.completed; }
    void barrierResumed(const emu::BarrierEvent &) override { ++o_.c_.resumed; }
    Counter &o_;
  };
  Counts &c_;
  unsigned interests_;
};

struct Launched {
  emu::LaunchResult result;
  ptx::DiagnosticList diags;
  std::vector<uint32_t> out;
};

/// Launches `k` of `text` on 2 CTAs of 64 threads with `observers`.
Launched launch(const std::string &text, std::vector<emu::LaunchObserver *> observers, bool racecheck = false,
                bool statistics = false, unsigned hostThreads = 1) {
  Launched l;
  auto m = ptx::parseModule(ptxModule(text), "observer.ptx", l.diags);
  EXPECT_FALSE(l.diags.hasErrors()) << l.diags.renderText();
  ptx::verifyModule(*m, l.diags);
  EXPECT_FALSE(l.diags.hasErrors()) << l.diags.renderText();
  emu::Device device;
  auto k = device.decode(*m, "k", l.diags);
  EXPECT_TRUE(k);
  uint64_t out = device.global.allocate(2 * 64 * 4);
  emu::LaunchConfig config;
  config.grid = {2, 1, 1};
  config.block = {64, 1, 1};
  config.threads = hostThreads;
  config.params.assign(k->paramBytes, 0);
  std::memcpy(config.params.data() + k->paramOffsets[0], &out, 8);
  config.observers = std::move(observers);
  config.racecheck = racecheck;
  config.statistics = statistics;
  std::unique_ptr<emu::Engine> engine = testEngine(*k);
  config.engine = engine.get();
  l.result = device.launch(*k, config, l.diags);
  l.out.resize(2 * 64);
  device.global.read(out, l.out.data(), l.out.size() * 4);
  return l;
}

void expectExchanged(const Launched &l) {
  ASSERT_TRUE(l.result.ok) << l.diags.renderText();
  for (uint32_t i = 0; i < l.out.size(); ++i) EXPECT_EQ(l.out[i], 63 - i % 64) << "out[" << i << "]";
}

TEST(Observer, EventStreamOfASmallKernel) {
  Counts c;
  Counter counter(c, emu::CtaObserver::kMemory | emu::CtaObserver::kInstructions);
  Launched l = launch(kExchange, {&counter});
  expectExchanged(l);
  EXPECT_EQ(counter.launches, 1);
  EXPECT_EQ(counter.finished, 1);
  EXPECT_EQ(c.ctaStarted, 2u);
  EXPECT_EQ(c.ctaFinished, 2u);
  // Per CTA: 64 shared writes, 64 shared reads, one ld.param per warp (a
  // uniform parameter is read once for the warp) and 64 global writes.
  EXPECT_EQ(c.sharedWrites, 128u);
  EXPECT_EQ(c.sharedReads, 128u);
  EXPECT_EQ(c.param, 4u);
  EXPECT_EQ(c.global, 128u);
  EXPECT_EQ(c.memory, 128u + 128u + 4u + 128u);
  // Per CTA: each of the 2 warps arrives and waits; the barrier completes
  // once and lets both go on.
  EXPECT_EQ(c.arrived, 4u);
  EXPECT_EQ(c.waiting, 4u);
  EXPECT_EQ(c.completed, 2u);
  EXPECT_EQ(c.resumed, 4u);
  EXPECT_EQ(c.diverged, 0u);
  // Every instruction but bar.sync and ret (control handled by the
  // scheduler) is an instructionExecuted event: 16 per warp, 4 warps.
  EXPECT_EQ(c.instructions, 16u * 4);
  EXPECT_EQ(l.result.warpInstructions, 18u * 4);
}

TEST(Observer, NoInterestNoPerAccessEvents) {
  // An observer that asks for neither instructions nor memory still sees
  // CTAs and barriers, and the kernel takes its fast paths.
  Counts c;
  Counter counter(c, 0);
  Launched l = launch(kExchange, {&counter});
  expectExchanged(l);
  EXPECT_EQ(c.ctaStarted, 2u);
  EXPECT_EQ(c.arrived, 4u);
  EXPECT_EQ(c.completed, 2u);
  EXPECT_EQ(c.memory, 0u);
  EXPECT_EQ(c.instructions, 0u);
}

TEST(Observer, TwoObserversSeeTheSameStream) {
  Counts a, b;
  Counter first(a, emu::CtaObserver::kMemory), second(b, emu::CtaObserver::kMemory);
  Launched l = launch(kExchange, {&first, &second}, false, false, 2);
  expectExchanged(l);
  for (Counts *c : {&a, &b}) {
    EXPECT_EQ(c->ctaStarted, 2u);
    EXPECT_EQ(c->ctaFinished, 2u);
    EXPECT_EQ(c->memory, 388u);
    EXPECT_EQ(c->arrived, 4u);
    EXPECT_EQ(c->completed, 2u);
    EXPECT_EQ(c->resumed, 4u);
  }
  // Only one asked for instructions: the other's count stays 0 even
  // though the loop ran observed.
  Counts d, e;
  Counter memoryOnly(d, emu::CtaObserver::kMemory), instructionsOnly(e, emu::CtaObserver::kInstructions);
  expectExchanged(launch(kExchange, {&memoryOnly, &instructionsOnly}));
  EXPECT_EQ(d.instructions, 0u);
  EXPECT_EQ(e.instructions, 16u * 4);
}

TEST(Observer, StatisticsObserver) {
  Launched plain = launch(kExchange, {});
  expectExchanged(plain);
  EXPECT_EQ(plain.result.stats.memoryOps[static_cast<size_t>(emu::Space::Shared)], 0u)
      << "statistics are off";
  Launched l = launch(kExchange, {}, false, true, 2);
  expectExchanged(l);
  const emu::CtaStats &s = l.result.stats;
  EXPECT_EQ(s.memoryOps[static_cast<size_t>(emu::Space::Shared)], 256u);
  EXPECT_EQ(s.memoryOps[static_cast<size_t>(emu::Space::Global)], 128u);
  EXPECT_EQ(s.memoryOps[static_cast<size_t>(emu::Space::Param)], 4u);
  EXPECT_EQ(s.memoryOps[static_cast<size_t>(emu::Space::Generic)], 0u) << "generic addresses are resolved";
  EXPECT_EQ(s.barrierWaits[0], 4u);
  EXPECT_EQ(s.divergentBranches, 0u);
}

TEST(Observer, StatisticsWithoutMemoryCountBranchesAndBarriersOnly) {
  // What reports use: no memory interest (every access would become an event,
  // and compiled code's would take the checked path), the rest counted.
  emu::StatisticsObserver statistics(false);
  Launched l = launch(kExchange, {&statistics});
  expectExchanged(l);
  const emu::CtaStats &s = l.result.stats;
  for (uint64_t count : s.memoryOps) EXPECT_EQ(count, 0u);
  EXPECT_EQ(s.barrierWaits[0], 4u);
  EXPECT_EQ(s.divergentBranches, 0u);
}

TEST(Observer, RacecheckNextToOtherObservers) {
  // The exchange with its barrier is race-free; without it every thread's
  // read races with another warp's write. A caller's observer and the
  // statistics run alongside and change nothing.
  Counts c;
  Counter counter(c, emu::CtaObserver::kMemory);
  Launched ordered = launch(kExchange, {&counter}, true, true);
  expectExchanged(ordered);
  EXPECT_FALSE(ordered.diags.hasErrors()) << ordered.diags.renderText();
  EXPECT_EQ(c.memory, 388u);

  Counts r;
  Counter racy(r, emu::CtaObserver::kMemory);
  Launched l = launch(racyExchange(), {&racy}, true, true);
  bool race = false;
  for (const ptx::Diagnostic &d : l.diags.all()) race |= d.kind == ptx::DiagKind::SharedRace;
  EXPECT_TRUE(race) << l.diags.renderText();
  EXPECT_TRUE(l.result.ok) << "races do not fail a launch";
  EXPECT_EQ(r.memory, 388u);
  EXPECT_EQ(r.arrived, 0u);
  EXPECT_EQ(l.result.stats.memoryOps[static_cast<size_t>(emu::Space::Shared)], 256u);
}

TEST(Observer, DivergenceEvents) {
  // Lanes below 16 take the branch: one divergence per warp.
  const char *text = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;
  and.b32 %r1, %r0, 31;
  mov.u32 %r2, 1;
  setp.lt.u32 %p, %r1, 16;
  @%p bra DONE;
  mov.u32 %r2, 2;
DONE:
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  mul.wide.u32 %rd2, %r0, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  Counts c;
  Counter counter(c, 0);
  Launched l = launch(text, {&counter}, false, true);
  ASSERT_TRUE(l.result.ok) << l.diags.renderText();
  EXPECT_EQ(c.diverged, 4u); // 2 warps in each of 2 CTAs
  EXPECT_EQ(l.result.stats.divergentBranches, 4u);
  EXPECT_EQ(l.out[3], 1u);
  EXPECT_EQ(l.out[20], 2u);
}

// ---- the timeline of --trace (emulator/Timeline.h) ----

TEST(Timeline, ParsesCtaLists) {
  std::vector<uint64_t> ctas;
  ASSERT_TRUE(emu::parseCtaList("7,0,3-5,4", ctas));
  EXPECT_EQ(ctas, (std::vector<uint64_t>{0, 3, 4, 5, 7}));
  ASSERT_TRUE(emu::parseCtaList("18446744073709551614-18446744073709551615", ctas));
  EXPECT_EQ(ctas, (std::vector<uint64_t>{UINT64_MAX - 1, UINT64_MAX}));
  for (const char *bad : {"", ",", "1,", "a", "3-1", "-2", "1-", "1 ,2", "18446744073709551616", "0-2000000"})
    EXPECT_FALSE(emu::parseCtaList(bad, ctas)) << bad;
}

/// The trace's events by phase, per (pid, tid).
struct TraceEvents {
  std::map<std::pair<int64_t, int64_t>, std::vector<boost::json::object>> byThread;
  std::vector<std::string> processes;
  explicit TraceEvents(const std::string &json) {
    const boost::json::value document = boost::json::parse(json);
    for (const boost::json::value &v : document.at("traceEvents").as_array()) {
      const boost::json::object &e = v.as_object();
      if (e.at("ph") == "M") {
        if (e.at("name") == "process_name") processes.emplace_back(e.at("args").at("name").as_string());
        continue;
      }
      byThread[{e.at("pid").as_int64(), e.at("tid").as_int64()}].push_back(e);
    }
  }
  size_t count(int64_t pid, int64_t tid, std::string_view ph, std::string_view name) const {
    size_t n = 0;
    auto it = byThread.find({pid, tid});
    if (it == byThread.end()) return 0;
    for (const boost::json::object &e : it->second)
      n += std::string_view(e.at("ph").as_string()) == ph &&
           std::string_view(e.at("name").as_string()) == name;
    return n;
  }
};

TEST(Timeline, RunsWaitsReleasesAndExitsOfEachWarp) {
  emu::Timeline timeline;
  std::unique_ptr<emu::LaunchObserver> observer = timeline.observeLaunch("k");
  Counts c;
  Counter counter(c, 0);
  expectExchanged(launch(kExchange, {observer.get(), &counter}));
  ASSERT_EQ(timeline.ctaCount(), 2u);
  TraceEvents t(timeline.json());
  EXPECT_EQ(t.processes, (std::vector<std::string>{"launch 0: k CTA (0,0,0)", "launch 0: k CTA (1,0,0)"}));
  for (int64_t pid : {1, 2}) {
    // Warp 0 arrives first and waits; warp 1's arrival completes the barrier and releases it.
    EXPECT_EQ(t.count(pid, 0, "X", "wait barrier 0"), 1u);
    EXPECT_EQ(t.count(pid, 1, "s", "barrier 0 released"), 1u);
    EXPECT_EQ(t.count(pid, 0, "f", "barrier 0 released"), 1u);
    for (int64_t warp : {0, 1}) {
      EXPECT_GE(t.count(pid, warp, "X", "run"), 1u);
      EXPECT_EQ(t.count(pid, warp, "X", "exited"), 1u);
    }
    // The spans of one warp follow one another.
    for (int64_t warp : {0, 1}) {
      double end = 0;
      for (const boost::json::object &e : t.byThread.at({pid, warp})) {
        if (e.at("ph") != "X") continue;
        EXPECT_GE(e.at("ts").to_number<double>(), end) << boost::json::serialize(e);
        end = e.at("ts").to_number<double>() + e.at("dur").to_number<double>();
      }
    }
  }
}

TEST(Timeline, KeepsTheChosenCtas) {
  emu::TimelineOptions options;
  options.ctas = {1};
  emu::Timeline timeline(options);
  std::unique_ptr<emu::LaunchObserver> observer = timeline.observeLaunch("k");
  expectExchanged(launch(kExchange, {observer.get()}));
  EXPECT_EQ(TraceEvents(timeline.json()).processes, (std::vector<std::string>{"launch 0: k CTA (1,0,0)"}));
  // Past the event budget a CTA's record ends (it says so), and later CTAs are left out whole
  // and counted.
  emu::TimelineOptions tiny;
  tiny.maxEvents = 3;
  emu::Timeline small(tiny);
  std::unique_ptr<emu::LaunchObserver> smallObserver = small.observeLaunch("k");
  expectExchanged(launch(kExchange, {smallObserver.get()}));
  EXPECT_EQ(small.ctaCount(), 1u);
  EXPECT_EQ(TraceEvents(small.json()).processes,
            (std::vector<std::string>{"launch 0: k CTA (0,0,0) (truncated: the event budget ran out)"}));
  EXPECT_EQ(boost::json::parse(small.json()).at("otherData").at("ctas_left_out"), 1);
}

/// Warp 1 waits on an mbarrier (a test_wait spin loop) that warp 0's lanes arrive at after
/// writing shared memory; warp 1 then copies what they wrote to out[32..63] of its CTA.
const char *kMbarrierHandOff = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 s[32];
  mov.u32 %r0, %tid.x;
  setp.ne.u32 %p0, %r0, 0;
  @%p0 bra INITED;
  mbarrier.init.shared.b64 [bar], 32;
INITED:
  bar.sync 0;
  mov.u64 %rd1, s;
  setp.ge.u32 %p1, %r0, 32;
  @%p1 bra CONSUMER;
  mul.wide.u32 %rd0, %r0, 4;
  add.u64 %rd2, %rd1, %rd0;
  add.u32 %r1, %r0, 100;
  st.shared.u32 [%rd2], %r1;
  mbarrier.arrive.shared.b64 %rd3, [bar];
  bra.uni DONE;
CONSUMER:
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  @!%p2 bra CONSUMER;
  sub.u32 %r2, %r0, 32;
  mul.wide.u32 %rd0, %r2, 4;
  add.u64 %rd2, %rd1, %rd0;
  ld.shared.u32 %r3, [%rd2];
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd5, %rd4;
  mov.u32 %r4, %ctaid.x;
  mad.lo.u32 %r5, %r4, 64, %r0;
  mul.wide.u32 %rd6, %r5, 4;
  add.u64 %rd6, %rd5, %rd6;
  st.global.u32 [%rd6], %r3;
DONE:
  ret;
}
)";

// The warp that completes bar.sync runs on (warp 1 here), so it spins on the mbarrier until
// its slice ends; warp 0 then arrives. The timeline shows the spin as one wait span, named by
// the mbarrier's place in shared memory (the same in every run), not as running.
TEST(Timeline, SpinOnAnMbarrierIsAWait) {
  emu::Timeline timeline;
  std::unique_ptr<emu::LaunchObserver> observer = timeline.observeLaunch("k");
  Launched l = launch(kMbarrierHandOff, {observer.get()});
  ASSERT_TRUE(l.result.ok) << l.diags.renderText();
  for (uint32_t i = 0; i < l.out.size(); ++i) EXPECT_EQ(l.out[i], i % 64 >= 32 ? i % 64 - 32 + 100 : 0) << i;
  const std::string json = timeline.json();
  TraceEvents t(json);
  for (int64_t pid : {1, 2}) {
    EXPECT_EQ(t.count(pid, 1, "X", "wait mbarrier"), 1u) << json;
    EXPECT_EQ(t.count(pid, 0, "X", "wait mbarrier"), 0u);
    EXPECT_EQ(t.count(pid, 0, "i", "mbarrier arrive"), 1u);
    EXPECT_EQ(t.count(pid, 1, "i", "mbarrier phase complete"), 1u);
    double waitStart = -1, waitEnd = -1, end = 0;
    for (const boost::json::object &e : t.byThread.at({pid, 1})) {
      if (e.at("ph") != "X") continue;
      const double ts = e.at("ts").to_number<double>(), dur = e.at("dur").to_number<double>();
      EXPECT_GE(ts, end) << boost::json::serialize(e); // spans follow one another
      end = ts + dur;
      if (e.at("name") == "wait mbarrier") {
        EXPECT_EQ(e.at("args").at("mbarrier"), "shared+0x0");
        waitStart = ts;
        waitEnd = end;
      }
    }
    // It waited while warp 0 ran (warp 0's arrival lies inside the wait).
    EXPECT_GT(waitEnd, waitStart);
    for (const boost::json::object &e : t.byThread.at({pid, 0}))
      if (e.at("name") == "mbarrier arrive") {
        EXPECT_GT(e.at("ts").to_number<double>(), waitStart);
        EXPECT_LE(e.at("ts").to_number<double>(), waitEnd);
      }
  }
}

} // namespace
