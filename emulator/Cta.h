// The state of one running CTA: its warps (registers, SIMT reconvergence
// stacks), shared and local memory, and the 16 named barriers; and the
// scheduler that runs its warps until they exit, deadlock or fault.
#pragma once

#include "emulator/Kernel.h"
#include "emulator/Observer.h"
#include "emulator/RaceCheck.h"
#include "ptx/Diagnostic.h"

#include <array>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <cstdint>
#include <memory>
#include <vector>

namespace emu {

class Device;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

/// One entry of a warp's reconvergence stack: run `mask` from `pc` until it
/// reaches `reconverge`, then pop.
struct SimtEntry {
  uint32_t pc;
  uint32_t mask;
  uint32_t reconverge;
  // A group waiting at a barrier (sm_70+ independent thread scheduling: the
  // other groups of its warp may still run): the barrier and generation.
  int32_t waitBarrier = -1;
  uint32_t waitGeneration = 0;
};

/// What a CTA counts while it runs (the launch adds them up).
struct CtaStats {
  uint64_t divergentBranches = 0;
  std::array<uint64_t, 16> barrierWaits{}; // warps that waited, per barrier id
  std::array<uint64_t, 7> memoryOps{};     // thread accesses per emu::Space
};

/// A device-function call in progress: what the caller had, and how to
/// return.
struct CallFrame {
  std::vector<uint64_t> callerRegs;
  std::vector<uint8_t> callerFrame;
  uint32_t region = 0; // the callee
  uint32_t callerRegion = 0;
  size_t stackDepth = 0;  // SIMT stack size when the call began
  uint32_t lanes = 0;     // lanes that made the call
  uint32_t returned = 0;  // lanes that executed ret
  int32_t resultsOp = -1; // the call's result list (in the caller's frame)
  uint32_t callPc = 0;
  std::array<uint32_t, 32> stackPointer{}; // the caller's: a return frees the callee's allocas
};

struct Warp {
  enum class State : uint8_t { Ready, AtBarrier, Done };
  uint32_t index = 0;
  uint32_t valid = 0;  // lanes that exist (the last warp may be partial)
  uint32_t exited = 0; // lanes that executed exit/ret
  uint32_t carry = 0;  // CC.CF of each lane (add.cc, addc, sub.cc, subc, mad.cc, madc)
  State state = State::Ready;
  std::vector<SimtEntry> stack;
  std::vector<uint64_t> regs; // register r of lane l at regs[r * 32 + l], of the running function
  std::vector<uint8_t> frame; // the running function's .param frame, lane l at l * frameBytes
  uint32_t region = 0;        // the running function's CodeRegion
  std::vector<CallFrame> calls;
  // While at a barrier: which one, its generation, and where.
  uint32_t barrier = 0, generation = 0, waitPc = 0;
  uint64_t warpInstructions = 0, threadInstructions = 0;
  // alloca's stack pointer of each lane (a local-memory offset).
  std::array<uint32_t, 32> stackPointer{};
  // The barrier.cluster phase this warp last arrived in.
  uint32_t clusterPhase = 0;
  // The warp's last barrier operation, for the double-arrive check.
  int32_t lastBarrier = -1;
  bool lastBarrierWasArrive = false;
};

/// A named barrier's current generation.
struct NamedBarrier {
  enum class Op : uint8_t { None, Sync, Arrive, Red };
  uint32_t expected = 0; // thread count of this generation, 0 = not started
  uint32_t arrived = 0;  // threads (a warp counts 32)
  uint32_t generation = 0;
  uint64_t arrivedWarps = 0;               // bit per warp (up to 64 warps)
  uint64_t countedWarps = 0;               // warps whose arrival was counted
  std::array<uint32_t, 64> arrivedLanes{}; // per warp: the lanes that arrived this generation
  bool countGiven = false;                 // generation started with an explicit count
  Op op = Op::None;
  // bar.red accumulators.
  ptx::Mod redOp = ptx::Mod::None;
  uint32_t popc = 0;
  bool andAll = true, orAny = false;
  std::vector<std::pair<uint32_t, uint32_t>> redDests; // (warp, register) to fill on completion
  std::vector<uint32_t> clock; // racecheck: the vector clock this generation publishes
};

class Cta;

/// The CTAs of one thread-block cluster (sm_90). They run interleaved on one
/// host thread, so each sees the others' shared memory (distributed shared
/// memory, through mapa and .shared::cluster) and the cluster barrier.
struct Cluster {
  Dim3 shape;                 // CTAs per cluster, per dimension
  bool explicitShape = false; // %is_explicit_cluster
  std::vector<Cta *> ctas;    // by %cluster_ctarank
  // barrier.cluster: completed phases, and threads arrived in this one.
  uint32_t phase = 0;
  uint64_t arrived = 0;
  /// Completes the phase when every non-exited thread of the cluster has
  /// arrived, releasing the warps that wait for it.
  void tryComplete();
};

/// The id barrier.cluster.wait parks a group at (named barriers are 0-15).
constexpr int32_t kClusterBarrier = 16;

class Cta {
public:
  Cta(Device &device, const Kernel &kernel, Dim3 ctaid, Dim3 nctaid, Dim3 ntid, uint32_t dynamicShared,
      const std::vector<uint8_t> &params, ptx::DiagnosticList &diags, uint64_t maxInstructions);

  /// Randomises the order in which warps run and in which the two sides of
  /// a divergent branch run, from `seed` (deterministic for a seed).
  /// Turns on --racecheck for this CTA's shared memory.
  void enableRacecheck() {
    racecheck = std::make_unique<SharedRaceChecker>(static_cast<uint32_t>(shared.size()),
                                                    static_cast<uint32_t>(warps.size()));
  }

  void randomizeSchedule(uint64_t seed) {
    random_ = true;
    rng_ = seed ^ (0x9E3779B97F4A7C15ull * (ctaid.x + 1 + 65536ull * (ctaid.y + 65536ull * ctaid.z)));
  }

  /// Runs every warp to completion. False when the CTA faulted, deadlocked
  /// or ran out of instructions (diagnostics say which).
  bool run();

  /// One round of the scheduler: each runnable warp runs for a quantum.
  /// Cooperative launches interleave the CTAs of a grid this way, so that a
  /// CTA spinning on a grid-wide barrier lets the others reach it.
  /// Waiting: no warp could run, and some wait at the cluster barrier (the
  /// other CTAs of the cluster may release them).
  enum class SliceResult : uint8_t { Running, Done, Failed, Waiting };
  SliceResult runSlice();

  uint64_t warpInstructions() const;
  uint64_t threadInstructions() const;

  // ---- For instruction handlers ----
  const Kernel &kernel;
  Device &device;
  Dim3 ctaid, nctaid, ntid;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local; // thread t's frame at t * kernel.localBytes
  const std::vector<uint8_t> &params;
  std::vector<Warp> warps;
  std::array<NamedBarrier, 16> barriers{};
  CtaStats stats;
  std::unique_ptr<SharedRaceChecker> racecheck; // null unless --racecheck
  /// Global allocations accessed recently: most accesses hit one, and then
  /// need neither the allocation table nor its lock.
  std::array<GlobalMemory::Range, 4> recentGlobals{};
  unsigned nextRecent = 0;
  /// The recent allocation containing `address`, looking it up (and
  /// remembering it) when needed; an empty range when there is none.
  const GlobalMemory::Range &globalRange(uint64_t address);
  bool failed = false;
  /// The cluster of this CTA and its rank there (null: a cluster of one).
  Cluster *cluster = nullptr;
  uint32_t clusterRank = 0;
  /// The shared memory of the cluster's CTA `rank` (this CTA's own when
  /// there is no cluster), or null when there is no such CTA.
  std::vector<uint8_t> *clusterShared(uint32_t rank) {
    if (!cluster) return rank == 0 ? &shared : nullptr;
    return rank < cluster->ctas.size() ? &cluster->ctas[rank]->shared : nullptr;
  }
  /// Threads of this CTA that have not exited.
  uint64_t liveThreads() const;
  /// Reports a deadlock with the wait-for table of this CTA's warps (the
  /// launch calls it when every CTA of a cluster waits).
  void reportDeadlock();
  /// %envreg0..31 as the launch sets them (a cooperative launch passes its
  /// grid-barrier workspace in %envreg1:%envreg2); null reads as zeros.
  const uint32_t *envregs = nullptr;
  /// Sees every executed instruction (null: none, and no cost).
  std::unique_ptr<CtaObserver> observer;

  /// Reports a diagnostic at instruction `pc` of warp `w` (lanes `mask`).
  void report(ptx::DiagKind kind, ptx::Severity severity, uint32_t pc, const Warp &w, uint32_t mask,
              std::string message, std::vector<std::pair<std::string, std::string>> fields = {});

private:
  friend struct Exec;
  /// Runs warp `w` until it blocks, exits or uses up `budget` instructions.
  void step(Warp &w, uint64_t budget);
  template <bool Observed> void stepImpl(Warp &w, uint64_t budget);
  void executeBarrier(Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  /// Starts a device-function call; false after reporting why it cannot.
  bool call(Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  /// Ends the innermost call once all its lanes returned.
  void finishCall(Warp &w);
  void accumulateRed(NamedBarrier &b, const DInstr &in, Exec &x, uint32_t mask);
  /// Makes the running group of `w` wait at barrier `id`.
  void park(Warp &w, uint32_t id, uint32_t generation, uint32_t pc);
  void tryComplete(uint32_t id);
  /// After lanes of `w` exited: barriers may now be complete.
  void recountAfterExit(Warp &w);
  void release(uint32_t id);
  /// Lets the groups of `w` parked at barrier `id`, generation `generation`,
  /// go on; --racecheck: they have seen what `clock` published.
  void unpark(Warp &w, int32_t id, uint32_t generation, const std::vector<uint32_t> &clock);
  void executeClusterBarrier(Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  friend struct Cluster;
  /// Whether `id`'s expected arrivals are met, counting exited warps out.
  uint32_t expectedAll() const;

  uint64_t nextRandom();

  ptx::DiagnosticList &diags_;
  uint64_t maxInstructions_;
  bool random_ = false;
  uint64_t rng_ = 0;
  uint64_t executed_ = 0;
  std::vector<uint32_t> order_;          // warp order of the next slice
  std::unique_ptr<Cluster> soloCluster_; // a CTA launched without a cluster is a cluster of one
  // racecheck: what this CTA's warps publish at barrier.cluster in the open
  // phase, and what they published in the last completed one.
  std::vector<uint32_t> clusterClock_, clusterPublished_;
};

/// Bit l set when bit 0 of lane l's value is set: a predicate register of a
/// warp as a lane mask (guards, branch conditions).
inline uint32_t predicateMask(const uint64_t *p) {
#if defined(__AVX512F__)
  const __m512i one = _mm512_set1_epi64(1);
  uint32_t m = 0;
  for (unsigned i = 0; i < 4; ++i)
    m |= static_cast<uint32_t>(_mm512_test_epi64_mask(_mm512_loadu_si512(p + 8 * i), one)) << (8 * i);
  return m;
#elif defined(__AVX2__)
  uint32_t m = 0;
  for (unsigned i = 0; i < 8; ++i) {
    __m256i v = _mm256_slli_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 4 * i)), 63);
    m |= static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(v))) << (4 * i);
  }
  return m;
#else
  uint32_t m = 0;
  for (unsigned l = 0; l < 32; ++l) m |= static_cast<uint32_t>(p[l] & 1) << l;
  return m;
#endif
}

/// What an instruction handler sees: the CTA, the warp, and the lanes that
/// execute this instruction (active and guard true).
struct Exec {
  Cta &cta;
  Warp &warp;
  uint32_t mask;
  uint32_t pc;

  uint64_t &reg(uint32_t r, unsigned lane) { return warp.regs[r * 32 + lane]; }
  const Kernel &kernel() const { return cta.kernel; }
};

} // namespace emu
