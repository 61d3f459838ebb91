// The warp and barrier timeline of `--trace FILE.json`: an observer that records, per CTA, when
// each warp ran, waited at a named barrier (which one, its generation and expected count),
// arrived without waiting, waited on mbarriers (spinning on test_wait/try_wait) and exited, which arrival
// completed each barrier generation, and where diagnostics were reported; written in the Chrome/Perfetto
// trace-event format (ui.perfetto.dev, chrome://tracing): a process per CTA, a thread per warp, flow arrows
// from the arrival that completed a barrier to the warps it released.
//
// Time is the CTA's own count of executed warp instructions by default (one step shows as one
// microsecond): deterministic, the same for every run of one schedule and seed. Host time
// (nanoseconds since the launch started, shown as microseconds) is an option.
#pragma once

#include "emulator/Observer.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace emu {

struct TimelineOptions {
  enum class Clock : uint8_t { Steps, Host };
  Clock clock = Clock::Steps;
  /// The CTAs to keep, by linear index (x + nx * (y + ny * z)); empty: the first kDefaultCtas
  /// of each launch and every CTA that reported a diagnostic.
  std::vector<uint64_t> ctas;
  static constexpr uint64_t kDefaultCtas = 4;
  /// Events kept over all launches (about 50 bytes each); CTAs past it are left out whole (the
  /// trace says how many), and a CTA that alone passes it keeps its first events.
  uint64_t maxEvents = 1'000'000;
};

/// "0,3,8-11" as CTA indices (sorted, unique); false when malformed or over 1,000,000 CTAs.
bool parseCtaList(std::string_view text, std::vector<uint64_t> &out);

/// One record of a CTA's timeline.
struct TimelineEvent {
  enum class Kind : uint8_t {
    SliceBegin,
    SliceEnd,
    Exited,
    WaitBegin,
    WaitEnd,
    Arrive,
    Completed,
    MbarrierArrive,
    MbarrierComplete,
    MbarrierWaitBegin, // a wait (test_wait/try_wait) of the warp found the phase incomplete
    MbarrierWaitEnd    // a wait of the warp on that mbarrier found it complete
  };
  Kind kind;
  uint32_t warp;
  uint64_t step, hostNs;
  int32_t barrier = -1;
  uint32_t generation = 0, expected = 0, arrived = 0, pc = 0;
  /// The mbarrier: its byte offset in the CTA's shared memory, or kOtherMbarrier | n for the
  /// n-th mbarrier met elsewhere (another CTA's shared memory): the same in every run.
  uint64_t mbarrier = 0;
  static constexpr uint64_t kOtherMbarrier = uint64_t{1} << 63;
};

/// The timeline of every launch observed, written as one trace.
class Timeline {
public:
  explicit Timeline(TimelineOptions options = {}) : options_(std::move(options)) {}

  /// An observer of one launch of `kernel` (add it to LaunchConfig::observers; it must outlive
  /// the launch). Launches are numbered in the order they were observed.
  std::unique_ptr<LaunchObserver> observeLaunch(std::string kernel);

  /// The trace-event JSON document.
  std::string json() const;
  /// Writes json() to `path`; false when it cannot be written.
  bool write(const std::string &path) const;

  /// For tests: the CTAs kept so far.
  size_t ctaCount() const;

private:
  friend class TimelineLaunch;
  friend class TimelineCta;
  struct Finding {
    int64_t warp; // -1: the CTA's
    std::string kind, severity, message;
    uint32_t line;
  };
  struct CtaRecord {
    uint32_t launch;
    uint64_t linearIndex;
    uint32_t ctaid[3];
    uint32_t warps;
    std::vector<TimelineEvent> events;
    uint64_t endStep, endHostNs;
    bool truncated = false;
    std::vector<Finding> findings;
  };
  void keep(CtaRecord record);

  TimelineOptions options_;
  mutable std::mutex mutex_;
  std::vector<std::string> launches_; // kernel names
  std::vector<CtaRecord> ctas_;
  uint64_t events_ = 0, droppedCtas_ = 0;
};

} // namespace emu
