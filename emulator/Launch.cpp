// Kernel launches: CTAs run in parallel on a pool of host threads, each CTA
// on one thread from start to end, so results of race-free kernels do not
// depend on the thread count. Diagnostics are merged in CTA order.
#include "emulator/Device.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace emu {
namespace {

constexpr size_t kMaxDiagnostics = 100;

/// The error a GPU's runtime would return for a launch that failed this way.
std::string cudaErrorFor(ptx::DiagKind kind) {
  switch (kind) {
  case ptx::DiagKind::OutOfBounds: return "cudaErrorIllegalAddress";
  case ptx::DiagKind::MisalignedAccess: return "cudaErrorMisalignedAddress";
  case ptx::DiagKind::BarrierCountMismatch:
  case ptx::DiagKind::BarrierMixedOps: return "cudaErrorIllegalInstruction"; // measured: tests/gpu bt14
  case ptx::DiagKind::BarrierDeadlock:
  case ptx::DiagKind::InstructionLimit: return "cudaErrorLaunchTimeout";
  case ptx::DiagKind::Unsupported: return "cudaErrorNotSupported";
  case ptx::DiagKind::Trap: return "cudaErrorLaunchFailure";
  default: return "cudaErrorLaunchFailure";
  }
}

} // namespace

LaunchResult Device::launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) {
  auto start = std::chrono::steady_clock::now();
  LaunchResult result;
  uint64_t numCtas = config.grid.count();
  std::vector<uint8_t> params = config.params;
  params.resize(std::max<size_t>(params.size(), k.paramBytes));
  load(*k.module);

  unsigned threads = config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(numCtas, 1)));
  std::vector<ptx::DiagnosticList> ctaDiags(numCtas);
  std::atomic<uint64_t> next{0}, warpInstrs{0}, threadInstrs{0};
  std::atomic<bool> failed{false};
  std::mutex statsMutex;
  // Cooperative launches get the grid-barrier workspace that cooperative
  // groups find in %envreg1 (high half) and %envreg2 (low half).
  std::array<uint32_t, 32> envregs{};
  uint64_t workspace = 0;
  if (config.cooperative) {
    workspace = global.allocate(64);
    envregs[1] = static_cast<uint32_t>(workspace >> 32);
    envregs[2] = static_cast<uint32_t>(workspace);
  }
  auto makeCta = [&](uint64_t i) {
    Dim3 ctaid{static_cast<uint32_t>(i % config.grid.x),
               static_cast<uint32_t>((i / config.grid.x) % config.grid.y),
               static_cast<uint32_t>(i / (uint64_t{config.grid.x} * config.grid.y))};
    auto cta = std::make_unique<Cta>(*this, k, ctaid, config.grid, config.block, config.dynamicShared, params,
                                     ctaDiags[i], config.maxInstructions);
    cta->envregs = envregs.data();
    if (config.randomSchedule) cta->randomizeSchedule(config.seed);
    if (config.racecheck) cta->enableRacecheck();
    if (config.observer) cta->observer = config.observer->observeCta(*cta);
    return cta;
  };
  auto collect = [&](Cta &cta) {
    if (cta.observer) cta.observer->ctaFinished(cta);
    warpInstrs += cta.warpInstructions();
    threadInstrs += cta.threadInstructions();
    std::lock_guard lock(statsMutex);
    if (result.perWarp.size() < cta.warps.size()) result.perWarp.resize(cta.warps.size());
    for (size_t w = 0; w < cta.warps.size(); ++w) {
      result.perWarp[w].first += cta.warps[w].warpInstructions;
      result.perWarp[w].second += cta.warps[w].threadInstructions;
    }
    result.stats.divergentBranches += cta.stats.divergentBranches;
    for (size_t b = 0; b < 16; ++b) result.stats.barrierWaits[b] += cta.stats.barrierWaits[b];
    for (size_t s = 0; s < result.stats.memoryOps.size(); ++s)
      result.stats.memoryOps[s] += cta.stats.memoryOps[s];
  };
  // Cooperative: host thread t owns CTAs t, t+threads, ... and runs them a
  // slice at a time, so every CTA makes progress while others spin.
  std::atomic<unsigned> nextWorker{0};
  auto cooperativeWorker = [&] {
    unsigned t = nextWorker.fetch_add(1);
    std::vector<std::unique_ptr<Cta>> mine;
    for (uint64_t i = t; i < numCtas; i += threads) mine.push_back(makeCta(i));
    size_t live = mine.size();
    while (live > 0 && !failed.load()) {
      for (auto &cta : mine) {
        if (!cta || failed.load()) continue;
        Cta::SliceResult r = cta->runSlice();
        if (r == Cta::SliceResult::Running) continue;
        if (r == Cta::SliceResult::Failed) failed = true;
        collect(*cta);
        cta.reset();
        --live;
      }
    }
  };
  auto worker = [&] {
    if (config.cooperative) return cooperativeWorker();
    for (;;) {
      uint64_t i = next.fetch_add(1);
      if (i >= numCtas || failed.load()) return;
      std::unique_ptr<Cta> cta = makeCta(i);
      if (!cta->run()) failed = true;
      collect(*cta);
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (std::thread &t : pool) t.join();
  }
  if (workspace) global.free(workspace);
  size_t added = 0;
  for (ptx::DiagnosticList &list : ctaDiags)
    for (const ptx::Diagnostic &d : list.all()) {
      if (added++ == kMaxDiagnostics) break;
      bool fatal = d.kind != ptx::DiagKind::SharedRace && d.kind != ptx::DiagKind::GlobalRace;
      if (d.severity == ptx::Severity::Error && fatal && result.error.empty())
        result.error = cudaErrorFor(d.kind);
      diags.add(d);
    }
  // A launch with races completes (ok) but leaves error diagnostics.
  result.ok = !failed.load() && result.error.empty();
  result.status = result.ok ? "completed" : "failed";
  result.warpInstructions = warpInstrs;
  result.threadInstructions = threadInstrs;
  result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace emu
