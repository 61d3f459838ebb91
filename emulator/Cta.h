// The state of one running CTA: its warps (registers, SIMT reconvergence
// stacks), shared and local memory, the named-barrier unit and the cluster
// barrier; and the scheduler that runs its warps on an execution engine
// until they exit, deadlock or fault. Where each part lives:
//   Cta.cpp         the scheduler (warp order, slices, instruction limit), reports
//   Simt.cpp        the SIMT stack: divergence, exits, parking at barriers
//   BarrierUnit.*   the 16 named barriers
//   ClusterBarrier.cpp  barrier.cluster
//   Deadlock.cpp    the deadlock report (wait-for table)
//   Interpreter.*   the interpreter engine, and device-function calls (Calls.cpp)
#pragma once

#include "emulator/BarrierUnit.h"
#include "emulator/Kernel.h"
#include "emulator/Observer.h"
#include "ptx/Diagnostic.h"

#include <array>
#include <atomic>
#include <chrono>
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

/// A warp's state apart from its buffers (a new CTA's warps start from a
/// fresh one, keeping the buffers' capacity).
struct WarpScalars {
  enum class State : uint8_t { Ready, AtBarrier, Done };
  uint32_t index = 0;
  uint32_t valid = 0;  // lanes that exist (the last warp may be partial)
  uint32_t exited = 0; // lanes that executed exit/ret
  uint32_t carry = 0;  // CC.CF of each lane (add.cc, addc, sub.cc, subc, mad.cc, madc)
  State state = State::Ready;
  uint32_t region = 0; // the running function's CodeRegion
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

/// A warp: its state and its buffers (SIMT stack, registers, .param frame, calls).
struct Warp : WarpScalars {
  std::vector<SimtEntry> stack;
  std::vector<uint64_t> regs; // register r of lane l at regs[r * 32 + l], of the running function
  std::vector<uint8_t> frame; // the running function's .param frame, lane l at l * frameBytes
  std::vector<CallFrame> calls;
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

class Engine;

/// What a whole launch may spend, shared by its CTAs: warp instructions over
/// the grid (an endless loop in a grid of a million CTAs ends as surely as
/// in one), and wall-clock time. The first CTA to find either exhausted
/// reports it; the others stop quietly.
struct LaunchBudget {
  uint64_t maxInstructions = UINT64_MAX;
  double timeoutSeconds = 0; // 0: none
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::atomic<uint64_t> spent{0};
  std::atomic<bool> exhausted{false};
};

class Cta {
public:
  Cta(Device &device, const Kernel &kernel, Dim3 ctaid, Dim3 nctaid, Dim3 ntid, uint32_t dynamicShared,
      const std::vector<uint8_t> &params, ptx::DiagnosticList &diags, LaunchBudget &budget);
  ~Cta();

  /// Launch bookkeeping: the CTA's linear index in the grid, and the list
  /// its diagnostics go to (owned here while the CTA lives).
  uint64_t linearIndex = 0;
  uint64_t launchTag = 0; // LaunchConfig::tag
  std::unique_ptr<ptx::DiagnosticList> diagnostics;

  /// Randomises the order in which warps run and in which the sides of a
  /// divergent branch run, from `seed` (deterministic for a seed).
  void randomizeSchedule(uint64_t seed) {
    random_ = true;
    rng_ = seed ^ (0x9E3779B97F4A7C15ull * (ctaid.x + 1 + 65536ull * (ctaid.y + 65536ull * ctaid.z)));
  }
  /// Attaches an observer of this CTA's events (several may be attached).
  /// Before the CTA runs.
  void addObserver(std::unique_ptr<CtaObserver> observer);
  /// The engine the warps run on; the interpreter unless set. Before the CTA runs.
  void setEngine(Engine &engine) { engine_ = &engine; }

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

  // ---- For engines and instruction handlers ----
  const Kernel &kernel;
  Device &device;
  Dim3 ctaid, nctaid, ntid;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local; // thread t's frame at t * kernel.localBytes
  const std::vector<uint8_t> &params;
  std::vector<Warp> warps;
  BarrierUnit barriers{*this};
  /// Global allocations accessed recently: most accesses hit one, and then
  /// need neither the allocation table nor its lock.
  std::array<GlobalMemory::Range, 4> recentGlobals{};
  unsigned nextRecent = 0;
  /// What an engine keeps across its warps' slices in this CTA (the
  /// compiled engine's memory windows: ranges it may access directly),
  /// valid while `engineCacheValid`; whatever forgets a cached range
  /// (HostCall::forgetCachedRange) drops it too.
  std::array<uint64_t, 24> engineCache{};
  bool engineCacheValid = false;
  /// The recent allocation containing `address`, looking it up (and
  /// remembering it) when needed; an empty range when there is none.
  const GlobalMemory::Range &globalRange(uint64_t address);
  bool failed = false;
  /// Warp instructions executed so far (engines count them), for --max-instructions.
  uint64_t executed = 0;
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
  /// launch calls it when every CTA of a cluster waits). Deadlock.cpp.
  void reportDeadlock();
  /// %envreg0..31 as the launch sets them (a cooperative launch passes its
  /// grid-barrier workspace in %envreg1:%envreg2); null reads as zeros.
  const uint32_t *envregs = nullptr;

  /// The observers' event sink: null when no observer is attached (the core
  /// tests it before building an event). With several observers it is an
  /// ObserverList.
  CtaObserver *events = nullptr;
  /// Some observer wants instructionExecuted (the engine runs its observed
  /// loop) / memoryAccess (memory instructions take the checked path).
  bool observeInstructions = false, observeMemory = false;

  /// Reports a diagnostic at instruction `pc` of warp `w` (lanes `mask`).
  void report(ptx::DiagKind kind, ptx::Severity severity, uint32_t pc, const Warp &w, uint32_t mask,
              std::string message, std::vector<std::pair<std::string, std::string>> fields = {});

  // ---- The SIMT stack (Simt.cpp), for engines ----
  /// The running group of `w` at branch `pc` splits: `taken` lanes go to
  /// `target`, `notTaken` to pc + 1; both run to `reconverge`, then the
  /// warp goes on there with all of them.
  void diverge(Warp &w, uint32_t pc, uint32_t target, uint32_t taken, uint32_t notTaken, uint32_t reconverge);
  /// The running group splits by an indexed branch: `groups` (target pc,
  /// lanes), `inactive` lanes (guard false) continue at pc + 1.
  void divergeIndexed(Warp &w, uint32_t pc, const std::vector<std::pair<uint32_t, uint32_t>> &groups,
                      uint32_t inactive, uint32_t reconverge);
  /// Lanes `lanes` of `w` executed exit at `pc`.
  void exitLanes(Warp &w, uint32_t lanes, uint32_t pc);
  /// Makes the running group of `w` wait at barrier `id` (kClusterBarrier
  /// for barrier.cluster), generation `generation`.
  void park(Warp &w, uint32_t id, uint32_t generation, uint32_t pc);
  /// Lets the groups of `w` parked at barrier `id`, generation `generation`,
  /// go on (a barrierResumed event for their lanes).
  void unpark(Warp &w, int32_t id, uint32_t generation);

  // ---- barrier.cluster (ClusterBarrier.cpp), for engines ----
  /// barrier.cluster.arrive by lanes `lanes` of `w`.
  void clusterArrive(Warp &w, uint32_t lanes, uint32_t pc);
  /// barrier.cluster.wait: the lanes go on if the phase they arrived in is
  /// complete, else the group is parked until it is.
  void clusterWait(Warp &w, uint32_t lanes, uint32_t pc);

private:
  friend struct Cluster;
  uint64_t nextRandom();

  ptx::DiagnosticList &diags_;
  LaunchBudget &budget_;
  uint64_t charged_ = 0; // of `executed`, what the budget has been told
  bool random_ = false;
  uint64_t rng_ = 0;
  Engine *engine_;
  ObserverList observers_;
  std::vector<uint32_t> order_;          // warp order of the next slice
  std::unique_ptr<Cluster> soloCluster_; // a CTA launched without a cluster is a cluster of one
};

/// Lanes of a mask as text: "0-31", "0-3,8".
std::string laneList(uint32_t mask);

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
