// Observers of execution, in the manner of Oclgrind's plugins: checkers
// (racecheck), statistics, recorders and traces see one event stream of a
// CTA's execution without the core knowing what they look for. A launch
// without observers runs an interpreter loop compiled without the calls, and
// memory events reach only the slow, checked access path, taken only when an
// observer asks for them: observers cost nothing when off.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace emu {

class Cta;
struct Kernel;
struct LaunchConfig;
struct LaunchResult;
struct Warp;
enum class Space : uint8_t;

/// One lane's access to memory, after bounds checking passed and generic
/// addresses were resolved to their space.
struct MemoryAccess {
  uint32_t warp;
  unsigned lane;
  uint32_t pc;
  uint64_t instance; // the warp's dynamic instruction count: lanes of one instruction share it
  Space space;
  uint64_t address; // in `space` (shared: the byte offset in the CTA's shared memory)
  unsigned size;
  bool write, atomic;
  // Shared memory of another CTA of the cluster (mapa, .shared::cluster):
  // `address` is the offset there, `ctaRank` that CTA's rank.
  bool distributed = false;
  uint32_t ctaRank = 0;
};

/// A barrier operation of a group of lanes of one warp. `id` is 0-15 for
/// the named barriers, kClusterBarrier for barrier.cluster; `generation` the
/// barrier's generation (the cluster barrier's phase).
struct BarrierEvent {
  enum class Kind : uint8_t { Sync, Arrive, Red, Cluster };
  uint32_t warp;
  uint32_t lanes;
  int32_t id;
  uint32_t generation;
  uint32_t pc;
  Kind kind;
};

/// Sees one CTA's execution, on the host thread that runs the CTA. Every
/// event has an empty default: an observer overrides what it looks at.
class CtaObserver {
public:
  /// Events that cost the core something per instruction or per access:
  /// delivered only to observers that ask for them.
  enum Interest : unsigned { kInstructions = 1, kMemory = 2 };
  virtual ~CtaObserver() = default;
  virtual unsigned interests() const { return 0; }

  /// The CTA is about to run its first instruction.
  virtual void ctaStarted(const Cta &) {}
  /// The CTA ended (completed or not).
  virtual void ctaFinished(const Cta &) {}
  /// The scheduler hands warp `w` to the engine for a slice (up to a quantum of instructions).
  virtual void warpSliceStarted(const Warp &) {}
  /// The slice ended; the warp's state says why (Ready: its quantum was spent; AtBarrier;
  /// Done: every lane exited).
  virtual void warpSliceEnded(const Warp &) {}

  /// Instruction `pc` ran for warp `w`: `active` are the lanes at it,
  /// `executed` those whose guard held (for a branch: the lanes that take
  /// it). Destination registers hold their new values. (kInstructions)
  virtual void instructionExecuted(const Warp &, uint32_t /*pc*/, uint32_t /*active*/,
                                   uint32_t /*executed*/) {}
  /// A lane accessed memory. (kMemory)
  virtual void memoryAccess(const MemoryAccess &) {}

  /// A branch at `pc` split warp `w` into `groups` groups of lanes.
  virtual void branchDiverged(const Warp &, uint32_t /*pc*/, unsigned /*groups*/) {}

  /// Lanes arrived at a barrier (every barrier operation starts here).
  virtual void barrierArrived(const BarrierEvent &) {}
  /// Lanes that arrived now wait for the barrier to complete.
  virtual void barrierWaiting(const BarrierEvent &) {}
  /// The barrier completed generation `generation` (before its waiters go on).
  virtual void barrierCompleted(int32_t /*id*/, uint32_t /*generation*/) {}
  /// Lanes that waited (or whose wait found the generation complete) go on.
  virtual void barrierResumed(const BarrierEvent &) {}

  /// Lanes `lanes` of `warp` executed bar.warp.sync together.
  virtual void warpSynced(uint32_t /*warp*/, uint32_t /*lanes*/, uint32_t /*pc*/) {}
  /// A lane arrived at (or completed transaction bytes on) the mbarrier
  /// `mbarrier` (a key naming it): what it did before is released there.
  virtual void mbarrierReleased(uint32_t /*warp*/, unsigned /*lane*/, uint64_t /*mbarrier*/,
                                uint32_t /*pc*/) {}
  /// A lane's wait saw a phase of the mbarrier complete: it acquires what
  /// was released there.
  virtual void mbarrierAcquired(uint32_t /*warp*/, unsigned /*lane*/, uint64_t /*mbarrier*/,
                                uint32_t /*pc*/) {}
  /// The executing lanes of `warp` tested the mbarrier (test_wait, try_wait) at `pc`:
  /// `complete` when each saw the phase it waits for complete. A spin loop of waits that fail
  /// is a warp waiting on the mbarrier.
  virtual void mbarrierTested(uint32_t /*warp*/, uint64_t /*mbarrier*/, uint32_t /*pc*/, bool /*complete*/) {}
};

/// Several observers of one CTA as one: each event goes to each of them, in
/// the order they were added; instruction and memory events only to those
/// that asked for them.
class ObserverList final : public CtaObserver {
public:
  void add(std::unique_ptr<CtaObserver> o) {
    const unsigned wants = o->interests();
    interests_ |= wants;
    if (wants & kInstructions) instructions_.push_back(o.get());
    if (wants & kMemory) memory_.push_back(o.get());
    list_.push_back(std::move(o));
  }
  size_t size() const { return list_.size(); }
  CtaObserver &operator[](size_t i) { return *list_[i]; }

  unsigned interests() const override { return interests_; }
  void ctaStarted(const Cta &c) override {
    for (auto &o : list_) o->ctaStarted(c);
  }
  void ctaFinished(const Cta &c) override {
    for (auto &o : list_) o->ctaFinished(c);
  }
  void warpSliceStarted(const Warp &w) override {
    for (auto &o : list_) o->warpSliceStarted(w);
  }
  void warpSliceEnded(const Warp &w) override {
    for (auto &o : list_) o->warpSliceEnded(w);
  }
  void instructionExecuted(const Warp &w, uint32_t pc, uint32_t active, uint32_t executed) override {
    for (CtaObserver *o : instructions_) o->instructionExecuted(w, pc, active, executed);
  }
  void memoryAccess(const MemoryAccess &a) override {
    for (CtaObserver *o : memory_) o->memoryAccess(a);
  }
  void branchDiverged(const Warp &w, uint32_t pc, unsigned groups) override {
    for (auto &o : list_) o->branchDiverged(w, pc, groups);
  }
  void barrierArrived(const BarrierEvent &e) override {
    for (auto &o : list_) o->barrierArrived(e);
  }
  void barrierWaiting(const BarrierEvent &e) override {
    for (auto &o : list_) o->barrierWaiting(e);
  }
  void barrierCompleted(int32_t id, uint32_t generation) override {
    for (auto &o : list_) o->barrierCompleted(id, generation);
  }
  void barrierResumed(const BarrierEvent &e) override {
    for (auto &o : list_) o->barrierResumed(e);
  }
  void warpSynced(uint32_t warp, uint32_t lanes, uint32_t pc) override {
    for (auto &o : list_) o->warpSynced(warp, lanes, pc);
  }
  void mbarrierReleased(uint32_t warp, unsigned lane, uint64_t mbarrier, uint32_t pc) override {
    for (auto &o : list_) o->mbarrierReleased(warp, lane, mbarrier, pc);
  }
  void mbarrierAcquired(uint32_t warp, unsigned lane, uint64_t mbarrier, uint32_t pc) override {
    for (auto &o : list_) o->mbarrierAcquired(warp, lane, mbarrier, pc);
  }
  void mbarrierTested(uint32_t warp, uint64_t mbarrier, uint32_t pc, bool complete) override {
    for (auto &o : list_) o->mbarrierTested(warp, mbarrier, pc, complete);
  }

private:
  std::vector<std::unique_ptr<CtaObserver>> list_;
  std::vector<CtaObserver *> instructions_, memory_;
  unsigned interests_ = 0;
};

/// Sees a launch: gives each CTA its observer. observeCta is called from
/// several host threads at once; implementations merge per-CTA results
/// under a lock (typically in the CTA observer's ctaFinished).
class LaunchObserver {
public:
  virtual ~LaunchObserver() = default;
  /// Before any CTA is made.
  virtual void launchStarted(const Kernel &, const LaunchConfig &) {}
  /// The observer of one CTA (null: this CTA is not observed). It may
  /// report diagnostics through Cta::report.
  virtual std::unique_ptr<CtaObserver> observeCta(Cta &cta) = 0;
  /// After every CTA finished; the observer may add to the result (its
  /// statistics).
  virtual void launchFinished(LaunchResult &) {}
};

} // namespace emu
