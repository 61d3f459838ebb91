#include "emulator/Timeline.h"

#include "emulator/Cta.h"
#include "emulator/Device.h"
#include "emulator/Kernel.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

namespace emu {

bool parseCtaList(std::string_view text, std::vector<uint64_t> &out) {
  constexpr uint64_t kMaxCtas = 1'000'000;
  out.clear();
  auto number = [](std::string_view s, uint64_t &v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = std::min(text.find(',', at), text.size());
    std::string_view item = text.substr(at, end - at);
    uint64_t lo = 0, hi = 0;
    if (size_t dash = item.find('-'); dash != std::string_view::npos) {
      if (!number(item.substr(0, dash), lo) || !number(item.substr(dash + 1), hi) || hi < lo) return false;
    } else {
      if (!number(item, lo)) return false;
      hi = lo;
    }
    if (hi - lo >= kMaxCtas || out.size() + (hi - lo + 1) > kMaxCtas) return false;
    for (uint64_t n = 0; n <= hi - lo; ++n) out.push_back(lo + n); // no wrap at 2^64 - 1
    at = end + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return !out.empty();
}

/// Records one CTA; hands the record to the timeline when the CTA ends.
class TimelineCta final : public CtaObserver {
public:
  TimelineCta(Timeline &timeline, uint32_t launch, std::chrono::steady_clock::time_point start)
      : timeline_(timeline), launch_(launch), start_(start) {}

  void ctaStarted(const Cta &cta) override { cta_ = &cta; }

  void warpSliceStarted(const Warp &w) override {
    running_ = w.index;
    add(TimelineEvent::Kind::SliceBegin, w.index);
  }
  void warpSliceEnded(const Warp &w) override {
    add(TimelineEvent::Kind::SliceEnd, w.index);
    if (w.state == Warp::State::Done) add(TimelineEvent::Kind::Exited, w.index);
    running_ = kNone;
  }
  void barrierWaiting(const BarrierEvent &e) override {
    TimelineEvent &t = add(TimelineEvent::Kind::WaitBegin, e.warp);
    describe(t, e);
    if (e.id >= 0 && e.id < 16) {
      const NamedBarrier &b = cta_->barriers.barrier(static_cast<uint32_t>(e.id));
      t.expected = b.expected;
      t.arrived = b.arrived;
    }
  }
  void barrierResumed(const BarrierEvent &e) override {
    describe(add(TimelineEvent::Kind::WaitEnd, e.warp), e);
  }
  void barrierArrived(const BarrierEvent &e) override {
    if (e.kind == BarrierEvent::Kind::Arrive) describe(add(TimelineEvent::Kind::Arrive, e.warp), e);
  }
  void barrierCompleted(int32_t id, uint32_t generation) override {
    // The arrival that completed it belongs to the running warp (or to an exit that
    // recounted the barrier).
    TimelineEvent &t = add(TimelineEvent::Kind::Completed, running_ == kNone ? 0 : running_);
    t.barrier = id;
    t.generation = generation;
  }
  void mbarrierReleased(uint32_t warp, unsigned, uint64_t mbarrier, uint32_t pc) override {
    mbarrierEvent(TimelineEvent::Kind::MbarrierArrive, warp, mbarrier, pc);
  }
  void mbarrierAcquired(uint32_t warp, unsigned, uint64_t mbarrier, uint32_t pc) override {
    mbarrierEvent(TimelineEvent::Kind::MbarrierComplete, warp, mbarrier, pc);
  }
  /// A wait that fails opens the warp's wait on that mbarrier (the spin loop that follows is
  /// waiting, not work); the first wait on it that succeeds closes it.
  void mbarrierTested(uint32_t warp, uint64_t mbarrier, uint32_t pc, bool complete) override {
    if (warp >= spinningOn_.size()) spinningOn_.resize(warp + 1, 0);
    uint64_t &open = spinningOn_[warp];
    if (complete ? open != mbarrier : open != 0) return;
    open = complete ? 0 : mbarrier;
    TimelineEvent &t =
        add(complete ? TimelineEvent::Kind::MbarrierWaitEnd : TimelineEvent::Kind::MbarrierWaitBegin, warp);
    t.mbarrier = label(mbarrier);
    t.pc = pc;
  }

  void ctaFinished(const Cta &cta) override {
    const TimelineOptions &options = timeline_.options_;
    const bool reported = cta.diagnostics && !cta.diagnostics->all().empty();
    const bool wanted = options.ctas.empty()
                            ? cta.linearIndex < TimelineOptions::kDefaultCtas || reported
                            : std::binary_search(options.ctas.begin(), options.ctas.end(), cta.linearIndex);
    if (!wanted) return;
    Timeline::CtaRecord r;
    r.launch = launch_;
    r.linearIndex = cta.linearIndex;
    r.ctaid[0] = cta.ctaid.x;
    r.ctaid[1] = cta.ctaid.y;
    r.ctaid[2] = cta.ctaid.z;
    r.warps = static_cast<uint32_t>(cta.warps.size());
    r.endStep = cta.executed;
    r.endHostNs = hostNs();
    if (reported)
      for (const ptx::Diagnostic &d : cta.diagnostics->all()) {
        int64_t warp = -1;
        for (const auto &[key, value] : d.fields)
          if (key == "warp") warp = std::strtoll(value.c_str(), nullptr, 10);
        r.findings.push_back({warp, std::string(ptx::kindName(d.kind)),
                              std::string(ptx::severityName(d.severity)), d.message, d.loc.line});
      }
    r.events = std::move(events_);
    r.truncated = truncated_;
    timeline_.keep(std::move(r));
  }

private:
  static constexpr uint32_t kNone = UINT32_MAX;

  uint64_t hostNs() const {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_)
            .count());
  }
  /// Records an event; past the timeline's event budget, the CTA's record ends there (a long
  /// kernel keeps its beginning) and the event goes to a scratch slot.
  TimelineEvent &add(TimelineEvent::Kind kind, uint32_t warp) {
    if (events_.size() >= timeline_.options_.maxEvents) {
      truncated_ = true;
      scratch_ = {kind, warp, 0, 0};
      return scratch_;
    }
    events_.push_back({kind, warp, cta_ ? cta_->executed : 0, hostNs()});
    return events_.back();
  }
  static void describe(TimelineEvent &t, const BarrierEvent &e) {
    t.barrier = e.id;
    t.generation = e.generation;
    t.pc = e.pc;
  }
  /// One event per warp and instruction (the lanes of one mbarrier operation come one by one).
  void mbarrierEvent(TimelineEvent::Kind kind, uint32_t warp, uint64_t mbarrier, uint32_t pc) {
    const uint64_t name = label(mbarrier);
    if (!events_.empty()) {
      const TimelineEvent &last = events_.back();
      if (last.kind == kind && last.warp == warp && last.mbarrier == name && last.pc == pc &&
          last.step == (cta_ ? cta_->executed : 0))
        return;
    }
    TimelineEvent &t = add(kind, warp);
    t.mbarrier = name;
    t.pc = pc;
  }
  /// TimelineEvent::mbarrier for an observer key (a host address).
  uint64_t label(uint64_t key) {
    if (cta_ && !cta_->shared.empty()) {
      const auto base = reinterpret_cast<uintptr_t>(cta_->shared.data());
      if (key >= base && key - base < cta_->shared.size()) return key - base;
    }
    auto [it, added] = others_.emplace(key, others_.size());
    return TimelineEvent::kOtherMbarrier | it->second;
  }

  Timeline &timeline_;
  uint32_t launch_;
  std::chrono::steady_clock::time_point start_;
  const Cta *cta_ = nullptr;
  uint32_t running_ = kNone;
  std::vector<TimelineEvent> events_;
  std::vector<uint64_t> spinningOn_;    // per warp: the mbarrier it spins on, 0 when none
  std::map<uint64_t, uint64_t> others_; // mbarriers outside this CTA's shared memory, numbered
  TimelineEvent scratch_{};
  bool truncated_ = false;
};

class TimelineLaunch final : public LaunchObserver {
public:
  TimelineLaunch(Timeline &timeline, uint32_t index) : timeline_(timeline), index_(index) {}
  void launchStarted(const Kernel &, const LaunchConfig &) override {
    start_ = std::chrono::steady_clock::now();
  }
  std::unique_ptr<CtaObserver> observeCta(Cta &cta) override {
    // CTAs left out by --trace-ctas are not observed at all.
    const std::vector<uint64_t> &chosen = timeline_.options_.ctas;
    if (!chosen.empty() && !std::binary_search(chosen.begin(), chosen.end(), cta.linearIndex)) return nullptr;
    return std::make_unique<TimelineCta>(timeline_, index_, start_);
  }

private:
  Timeline &timeline_;
  uint32_t index_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

std::unique_ptr<LaunchObserver> Timeline::observeLaunch(std::string kernel) {
  std::lock_guard lock(mutex_);
  launches_.push_back(std::move(kernel));
  return std::make_unique<TimelineLaunch>(*this, static_cast<uint32_t>(launches_.size() - 1));
}

void Timeline::keep(CtaRecord record) {
  std::lock_guard lock(mutex_);
  if (events_ + record.events.size() > options_.maxEvents) {
    ++droppedCtas_;
    return;
  }
  events_ += record.events.size();
  ctas_.push_back(std::move(record));
}

size_t Timeline::ctaCount() const {
  std::lock_guard lock(mutex_);
  return ctas_.size();
}

namespace {

std::string barrierName(int32_t id) {
  return id == kClusterBarrier ? std::string("cluster barrier") : "barrier " + std::to_string(id);
}

std::string mbarrierName(uint64_t label) {
  if (label & TimelineEvent::kOtherMbarrier)
    return "mbarrier #" + std::to_string(label & ~TimelineEvent::kOtherMbarrier) + " (outside the CTA)";
  char text[32];
  std::snprintf(text, sizeof text, "shared+0x%llx", static_cast<unsigned long long>(label));
  return text;
}

/// Trace-event timestamps are microseconds: a step shows as one, host nanoseconds as thousandths.
double stamp(const TimelineOptions &o, uint64_t step, uint64_t hostNs) {
  return o.clock == TimelineOptions::Clock::Steps ? static_cast<double>(step)
                                                  : static_cast<double>(hostNs) / 1000.0;
}

} // namespace

std::string Timeline::json() const {
  std::lock_guard lock(mutex_);
  boost::json::array trace;
  std::vector<const CtaRecord *> order;
  for (const CtaRecord &c : ctas_) order.push_back(&c);
  std::sort(order.begin(), order.end(), [](const CtaRecord *a, const CtaRecord *b) {
    return a->launch != b->launch ? a->launch < b->launch : a->linearIndex < b->linearIndex;
  });
  uint64_t flowId = 0;
  for (size_t p = 0; p < order.size(); ++p) {
    const CtaRecord &c = *order[p];
    const int64_t pid = static_cast<int64_t>(p) + 1;
    auto at = [&](uint64_t step, uint64_t hostNs) { return stamp(options_, step, hostNs); };
    const double end = at(c.endStep, c.endHostNs);
    const std::string cta = "(" + std::to_string(c.ctaid[0]) + "," + std::to_string(c.ctaid[1]) + "," +
                            std::to_string(c.ctaid[2]) + ")";
    trace.push_back(boost::json::object{
        {"ph", "M"},
        {"name", "process_name"},
        {"pid", pid},
        {"args",
         {{"name", "launch " + std::to_string(c.launch) + ": " + launches_[c.launch] + " CTA " + cta +
                       (c.truncated ? " (truncated: the event budget ran out)" : "")}}}});
    trace.push_back(boost::json::object{
        {"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
    for (uint32_t w = 0; w < c.warps; ++w) {
      trace.push_back(boost::json::object{{"ph", "M"},
                                          {"name", "thread_name"},
                                          {"pid", pid},
                                          {"tid", w},
                                          {"args", {{"name", "warp " + std::to_string(w)}}}});
      trace.push_back(boost::json::object{{"ph", "M"},
                                          {"name", "thread_sort_index"},
                                          {"pid", pid},
                                          {"tid", w},
                                          {"args", {{"sort_index", w}}}});
    }
    auto span = [&](const char *category, std::string name, uint32_t warp, double from, double to,
                    boost::json::object args) {
      trace.push_back(boost::json::object{{"ph", "X"},
                                          {"cat", category},
                                          {"name", std::move(name)},
                                          {"pid", pid},
                                          {"tid", warp},
                                          {"ts", from},
                                          {"dur", std::max(0.0, to - from)},
                                          {"args", std::move(args)}});
    };
    auto instant = [&](const char *category, std::string name, uint32_t warp, double ts,
                       boost::json::object args) {
      trace.push_back(boost::json::object{{"ph", "i"},
                                          {"s", "t"},
                                          {"cat", category},
                                          {"name", std::move(name)},
                                          {"pid", pid},
                                          {"tid", warp},
                                          {"ts", ts},
                                          {"args", std::move(args)}});
    };
    // Per warp: the open slice and wait, and the time of its last event (for findings).
    std::vector<double> sliceStart(c.warps, -1), lastSeen(c.warps, 0), runBeforeWait(c.warps, -1);
    std::vector<bool> inSlice(c.warps, false);
    std::vector<const TimelineEvent *> waiting(c.warps, nullptr), spinning(c.warps, nullptr);
    std::vector<double> exitedAt(c.warps, -1);
    // Barrier generation completed -> its flow id; only generations some warp waited for
    // get an arrow (a generation of arrivals alone releases nobody).
    std::map<std::pair<int32_t, uint32_t>, uint64_t> flows;
    std::set<std::pair<int32_t, uint32_t>> released;
    for (const TimelineEvent &e : c.events)
      if (e.kind == TimelineEvent::Kind::WaitEnd) released.insert({e.barrier, e.generation});
    for (const TimelineEvent &e : c.events) {
      if (e.warp >= c.warps) continue;
      const double t = at(e.step, e.hostNs);
      lastSeen[e.warp] = t;
      switch (e.kind) {
      case TimelineEvent::Kind::SliceBegin:
        // A warp spinning on an mbarrier is inside its wait span, not running.
        sliceStart[e.warp] = spinning[e.warp] ? -1 : t;
        inSlice[e.warp] = true;
        break;
      case TimelineEvent::Kind::SliceEnd:
        if (sliceStart[e.warp] >= 0) span("warp", "run", e.warp, sliceStart[e.warp], t, {});
        sliceStart[e.warp] = -1;
        inSlice[e.warp] = false;
        break;
      case TimelineEvent::Kind::Exited:
        if (const TimelineEvent *w = spinning[e.warp])
          span("mbarrier", "wait mbarrier (left at exit)", e.warp, at(w->step, w->hostNs), t,
               {{"mbarrier", mbarrierName(w->mbarrier)}});
        spinning[e.warp] = nullptr;
        exitedAt[e.warp] = t;
        break;
      case TimelineEvent::Kind::MbarrierWaitBegin:
        if (sliceStart[e.warp] >= 0) span("warp", "run", e.warp, sliceStart[e.warp], t, {});
        sliceStart[e.warp] = -1;
        spinning[e.warp] = &e;
        break;
      case TimelineEvent::Kind::MbarrierWaitEnd:
        if (const TimelineEvent *w = spinning[e.warp])
          span("mbarrier", "wait mbarrier", e.warp, at(w->step, w->hostNs), t,
               {{"mbarrier", mbarrierName(w->mbarrier)}});
        spinning[e.warp] = nullptr;
        if (inSlice[e.warp]) sliceStart[e.warp] = t;
        break;
      case TimelineEvent::Kind::WaitBegin:
        // The run ends where the wait begins (with host time, the slice ends a little later),
        // unless the wait takes no time (the warp's own arrival completes the barrier): the
        // run is written when the wait ends.
        runBeforeWait[e.warp] = sliceStart[e.warp];
        sliceStart[e.warp] = -1;
        waiting[e.warp] = &e;
        break;
      case TimelineEvent::Kind::WaitEnd: {
        const TimelineEvent *w = waiting[e.warp];
        const double began = w ? at(w->step, w->hostNs) : t;
        const double run = runBeforeWait[e.warp];
        if (began < t || !inSlice[e.warp]) {
          if (run >= 0) span("warp", "run", e.warp, run, began, {});
          if (w && began < t)
            span("barrier", "wait " + barrierName(w->barrier), e.warp, began, t,
                 {{"barrier", w->barrier},
                  {"generation", w->generation},
                  {"expected_threads", w->expected},
                  {"arrived_threads", w->arrived}});
          if (inSlice[e.warp]) sliceStart[e.warp] = t;
        } else {
          // Released within its own slice at once: one run goes on.
          sliceStart[e.warp] = run >= 0 ? run : t;
        }
        waiting[e.warp] = nullptr;
        runBeforeWait[e.warp] = -1;
        auto flow = flows.find({e.barrier, e.generation});
        if (flow != flows.end())
          trace.push_back(boost::json::object{{"ph", "f"},
                                              {"bp", "e"},
                                              {"cat", "barrier"},
                                              {"name", barrierName(e.barrier) + " released"},
                                              {"id", flow->second},
                                              {"pid", pid},
                                              {"tid", e.warp},
                                              {"ts", t}});
        break;
      }
      case TimelineEvent::Kind::Arrive:
        instant("barrier", "arrive " + barrierName(e.barrier), e.warp, t, {{"generation", e.generation}});
        break;
      case TimelineEvent::Kind::Completed: {
        instant("barrier", barrierName(e.barrier) + " complete", e.warp, t, {{"generation", e.generation}});
        if (!released.count({e.barrier, e.generation})) break;
        const uint64_t id = ++flowId;
        flows[{e.barrier, e.generation}] = id;
        trace.push_back(boost::json::object{{"ph", "s"},
                                            {"cat", "barrier"},
                                            {"name", barrierName(e.barrier) + " released"},
                                            {"id", id},
                                            {"pid", pid},
                                            {"tid", e.warp},
                                            {"ts", t}});
        break;
      }
      case TimelineEvent::Kind::MbarrierArrive:
      case TimelineEvent::Kind::MbarrierComplete:
        instant("mbarrier",
                e.kind == TimelineEvent::Kind::MbarrierArrive ? "mbarrier arrive" : "mbarrier phase complete",
                e.warp, t, {{"mbarrier", mbarrierName(e.mbarrier)}});
        break;
      }
    }
    for (uint32_t w = 0; w < c.warps; ++w) {
      if (sliceStart[w] >= 0) span("warp", "run", w, sliceStart[w], end, {{"ended", "with the CTA"}});
      if (const TimelineEvent *e = spinning[w])
        span("mbarrier", "wait mbarrier (never completed)", w, at(e->step, e->hostNs), end,
             {{"mbarrier", mbarrierName(e->mbarrier)}});
      if (runBeforeWait[w] >= 0 && waiting[w])
        span("warp", "run", w, runBeforeWait[w], at(waiting[w]->step, waiting[w]->hostNs), {});
      if (const TimelineEvent *e = waiting[w])
        span("barrier", "wait " + barrierName(e->barrier) + " (never released)", w, at(e->step, e->hostNs),
             end,
             {{"barrier", e->barrier},
              {"generation", e->generation},
              {"expected_threads", e->expected},
              {"arrived_threads", e->arrived}});
      if (exitedAt[w] >= 0) span("warp", "exited", w, exitedAt[w], end, {});
    }
    for (const Finding &f : c.findings) {
      const uint32_t warp = f.warp >= 0 && f.warp < c.warps ? static_cast<uint32_t>(f.warp) : 0;
      instant("diagnostic", f.kind, warp, f.warp >= 0 && f.warp < c.warps ? lastSeen[warp] : end,
              {{"severity", f.severity}, {"message", f.message}, {"ptx_line", f.line}});
    }
  }
  boost::json::object other{
      {"clock", options_.clock == TimelineOptions::Clock::Steps
                    ? "steps: one microsecond is one warp instruction executed by the CTA"
                    : "host: microseconds since the launch started"},
      {"ctas", ctas_.size()},
      {"ctas_left_out", droppedCtas_}};
  return boost::json::serialize(boost::json::object{
             {"traceEvents", std::move(trace)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(other)}}) +
         "\n";
}

bool Timeline::write(const std::string &path) const {
  const std::string text = json();
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

} // namespace emu
