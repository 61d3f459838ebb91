// Kernel launches: CTAs run in parallel on a pool of host threads, each CTA
// on one thread from start to end, so results of race-free kernels do not
// depend on the thread count. CTAs that wait for each other run interleaved
// a slice at a time instead: the CTAs of a thread-block cluster on one host
// thread, those of a cooperative launch spread over all of them.
// Diagnostics are merged in CTA order.
#include "emulator/Device.h"
#include "emulator/RaceCheck.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace emu {
namespace {

constexpr size_t kMaxDiagnostics = 100;

/// What one CTA of the launch holds in host memory: registers and .param
/// frames of its warps, local memory of its threads, its shared memory.
/// More than this is refused before anything runs, as a GPU refuses a block
/// that needs more registers than it has (cudaErrorLaunchOutOfResources),
/// instead of the host aborting on an allocation.
constexpr uint64_t kMaxCtaBytes = uint64_t{4} << 30;

std::optional<ptx::Diagnostic> checkCtaResources(const Kernel &k, const LaunchConfig &config) {
  const uint64_t threads = config.block.count(), warps = (threads + 31) / 32;
  uint32_t registers = 0, frame = 0;
  for (const CodeRegion &r : k.regions) {
    registers = std::max(registers, r.numRegisters);
    frame = std::max(frame, r.frameBytes);
  }
  // Every factor is below 2^32 and warps below 2^27: no product wraps.
  const uint64_t perWarp = (uint64_t{registers} * 8 + frame) * 32;
  const uint64_t bytes = warps * perWarp + threads * k.localBytes + k.staticShared + config.dynamicShared;
  if (bytes <= kMaxCtaBytes) return std::nullopt;
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::ResourceLimit;
  d.severity = ptx::Severity::Error;
  d.message = "a CTA of " + std::to_string(threads) + " threads needs " + std::to_string(bytes) + " bytes (" +
              std::to_string(registers) + " registers of 8 bytes per thread, " +
              std::to_string(k.localBytes) + " bytes of local memory per thread, " +
              std::to_string(k.staticShared + uint64_t{config.dynamicShared}) +
              " of shared memory); the emulator runs CTAs of up to " + std::to_string(kMaxCtaBytes) +
              " bytes";
  d.loc.file = k.module->fileName;
  d.loc.function = k.name;
  d.loc.line = k.function->loc.line;
  d.fields.emplace_back("cuda_error", "cudaErrorLaunchOutOfResources");
  return d;
}

} // namespace

LaunchResult Device::launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) {
  auto start = std::chrono::steady_clock::now();
  // Frees while it runs (device-side free) keep their bytes until it ends.
  global.beginLaunch();
  struct EndLaunch {
    GlobalMemory &global;
    ~EndLaunch() { global.endLaunch(); }
  } endLaunch{global};
  LaunchResult result;
  uint64_t numCtas = config.grid.count();
  std::vector<uint8_t> params = config.params;
  params.resize(std::max<size_t>(params.size(), k.paramBytes));
  load(*k.module);

  unsigned threads = config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(numCtas, 1)));
  // The observers of this launch: the caller's, then the checkers it asked for.
  std::vector<LaunchObserver *> observers = config.observers;
  RaceCheckObserver racecheck;
  StatisticsObserver statistics(config.memoryStatistics);
  if (config.racecheck) observers.push_back(&racecheck);
  if (config.statistics) observers.push_back(&statistics);
  // Diagnostics of the CTAs that reported any, by CTA index: memory does
  // not grow with the grid (a grid of 2^31 CTAs runs in constant space), and
  // they are merged in CTA order at the end. Only the first kMaxDiagnostics
  // in CTA order are kept.
  std::map<uint64_t, ptx::DiagnosticList> ctaDiags;
  size_t keptDiagnostics = 0;
  std::mutex diagsMutex;
  auto keepDiagnostics = [&](uint64_t cta, ptx::DiagnosticList &list) {
    if (list.all().empty()) return;
    std::lock_guard lock(diagsMutex);
    keptDiagnostics += list.all().size();
    ctaDiags.emplace(cta, std::move(list));
    while (ctaDiags.size() > 1 &&
           keptDiagnostics - std::prev(ctaDiags.end())->second.all().size() >= kMaxDiagnostics) {
      keptDiagnostics -= std::prev(ctaDiags.end())->second.all().size();
      ctaDiags.erase(std::prev(ctaDiags.end()));
    }
  };
  LaunchBudget budget;
  budget.maxInstructions = config.maxInstructions;
  if (config.timeoutSeconds > 0) {
    budget.timeoutSeconds = config.timeoutSeconds;
    budget.deadline = std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(std::min(config.timeoutSeconds, 1e9)));
  }
  if (std::optional<ptx::Diagnostic> refused = checkCtaResources(k, config)) {
    diags.add(std::move(*refused));
    return result;
  }
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
    auto list = std::make_unique<ptx::DiagnosticList>();
    auto cta = std::make_unique<Cta>(*this, k, ctaid, config.grid, config.block, config.dynamicShared, params,
                                     *list, budget);
    cta->linearIndex = i;
    cta->launchTag = config.tag;
    cta->diagnostics = std::move(list);
    cta->envregs = envregs.data();
    if (config.randomSchedule) cta->randomizeSchedule(config.seed);
    if (config.engine) cta->setEngine(*config.engine);
    for (LaunchObserver *o : observers) cta->addObserver(o->observeCta(*cta));
    if (cta->events) cta->events->ctaStarted(*cta);
    return cta;
  };
  auto collect = [&](Cta &cta) {
    if (cta.events) cta.events->ctaFinished(cta);
    keepDiagnostics(cta.linearIndex, *cta.diagnostics);
    warpInstrs += cta.warpInstructions();
    threadInstrs += cta.threadInstructions();
    std::lock_guard lock(statsMutex);
    if (result.perWarp.size() < cta.warps.size()) result.perWarp.resize(cta.warps.size());
    for (size_t w = 0; w < cta.warps.size(); ++w) {
      result.perWarp[w].first += cta.warps[w].warpInstructions;
      result.perWarp[w].second += cta.warps[w].threadInstructions;
    }
  };
  // Runs `ctas` a slice at a time each, until all are done or one fails;
  // when none can run and some wait at the cluster barrier, they deadlock.
  auto interleave = [&](std::vector<std::unique_ptr<Cta>> &ctas) {
    std::vector<bool> done(ctas.size(), false);
    size_t live = ctas.size();
    while (live > 0 && !failed.load()) {
      bool progressed = false, waiting = false;
      for (size_t i = 0; i < ctas.size() && !failed.load(); ++i) {
        if (done[i]) continue;
        Cta::SliceResult r = ctas[i]->runSlice();
        if (r == Cta::SliceResult::Waiting) {
          waiting = true;
          continue;
        }
        progressed = true;
        if (r == Cta::SliceResult::Running) continue;
        if (r == Cta::SliceResult::Failed) failed = true;
        done[i] = true;
        --live;
      }
      if (!progressed && waiting && !failed.load()) {
        for (size_t i = 0; i < ctas.size(); ++i)
          if (!done[i]) {
            ctas[i]->reportDeadlock();
            break;
          }
        failed = true;
      }
      // A CTA spinning on another host thread's CTAs (a grid sync) waits
      // for that thread; with more host threads than cores, give the core
      // up after each round rather than spend the launch's instruction
      // limit on spinning while that thread is not scheduled.
      if (live > 0 && threads > 1) std::this_thread::yield();
    }
    for (auto &cta : ctas) collect(*cta);
  };
  // Cooperative: host thread t owns CTAs t, t+threads, ... and interleaves
  // them, so every CTA makes progress while others spin.
  std::atomic<unsigned> nextWorker{0};
  auto cooperativeWorker = [&] {
    unsigned t = nextWorker.fetch_add(1);
    std::vector<std::unique_ptr<Cta>> mine;
    for (uint64_t i = t; i < numCtas; i += threads) mine.push_back(makeCta(i));
    interleave(mine);
  };
  // Clusters: host threads take whole clusters and run their CTAs a slice
  // at a time, so that they share shared memory and the cluster barrier.
  // A cluster's CTAs stay until all are done (others may still read their
  // shared memory).
  Dim3 shape = config.cluster;
  bool explicitShape = shape.count() > 1;
  if (!explicitShape)
    for (const ptx::FunctionDirective &d : k.function->directives)
      if (d.kind == ptx::DirectiveKind::ReqNCtaPerCluster && !d.values.empty()) {
        shape = {d.values[0], d.values.size() > 1 ? d.values[1] : 1, d.values.size() > 2 ? d.values[2] : 1};
        explicitShape = true;
      }
  const Dim3 clusters{config.grid.x / std::max(shape.x, 1u), config.grid.y / std::max(shape.y, 1u),
                      config.grid.z / std::max(shape.z, 1u)};
  auto clusterWorker = [&] {
    for (;;) {
      uint64_t q = next.fetch_add(1);
      if (q >= clusters.count() || failed.load()) return;
      Dim3 cid{static_cast<uint32_t>(q % clusters.x), static_cast<uint32_t>((q / clusters.x) % clusters.y),
               static_cast<uint32_t>(q / (uint64_t{clusters.x} * clusters.y))};
      Cluster cluster;
      cluster.shape = shape;
      cluster.explicitShape = explicitShape;
      std::vector<std::unique_ptr<Cta>> ctas;
      for (uint32_t rank = 0; rank < shape.count(); ++rank) {
        Dim3 local{rank % shape.x, (rank / shape.x) % shape.y, rank / (shape.x * shape.y)};
        Dim3 id{cid.x * shape.x + local.x, cid.y * shape.y + local.y, cid.z * shape.z + local.z};
        ctas.push_back(makeCta(id.x + uint64_t{config.grid.x} * (id.y + uint64_t{config.grid.y} * id.z)));
        ctas.back()->cluster = &cluster;
        ctas.back()->clusterRank = rank;
        cluster.ctas.push_back(ctas.back().get());
      }
      interleave(ctas);
    }
  };
  const bool clustered = shape.count() > 1 && !config.cooperative;
  if (clustered && (config.grid.x % shape.x || config.grid.y % shape.y || config.grid.z % shape.z)) {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::Unsupported;
    d.severity = ptx::Severity::Error;
    d.message = "the grid is not a whole number of clusters of " + std::to_string(shape.x) + "x" +
                std::to_string(shape.y) + "x" + std::to_string(shape.z) + " CTAs";
    d.loc.function = k.name;
    d.fields.emplace_back("cuda_error", "cudaErrorInvalidClusterSize");
    diags.add(std::move(d));
    return result;
  }
  if (clustered)
    threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(clusters.count(), 1)));
  // Independent CTAs: the calling thread runs them itself and starts the
  // other host threads only once the launch has run for a while with CTAs
  // left. A program of many short launches (a scan's, a solver's) then pays
  // no thread start-up per launch; a long launch loses a fraction of a
  // millisecond of parallelism.
  constexpr auto kAlone = std::chrono::microseconds(200);
  std::vector<std::thread> pool;
  std::function<void(bool)> ctaWorker = [&](bool lead) {
    for (;;) {
      uint64_t i = next.fetch_add(1);
      if (i >= numCtas || failed.load()) return;
      std::unique_ptr<Cta> cta = makeCta(i);
      if (!cta->run()) failed = true;
      collect(*cta);
      if (lead && pool.empty() && next.load() < numCtas && std::chrono::steady_clock::now() - start > kAlone)
        for (unsigned t = 1; t < threads; ++t) pool.emplace_back(ctaWorker, false);
    }
  };
  for (LaunchObserver *o : observers) o->launchStarted(k, config);
  if (clustered || config.cooperative) {
    // Co-scheduled CTAs: every host thread from the start.
    auto worker = [&] { return clustered ? clusterWorker() : cooperativeWorker(); };
    if (threads <= 1) worker();
    for (unsigned t = 0; threads > 1 && t < threads; ++t) pool.emplace_back(worker);
  } else {
    ctaWorker(threads > 1);
  }
  for (std::thread &t : pool) t.join();
  if (workspace) global.free(workspace);
  size_t added = 0;
  bool faulted = false;
  for (auto &[index, list] : ctaDiags)
    for (const ptx::Diagnostic &d : list.all()) {
      if (added++ == kMaxDiagnostics) break;
      bool fatal = d.kind != ptx::DiagKind::SharedRace && d.kind != ptx::DiagKind::GlobalRace;
      faulted |= d.severity == ptx::Severity::Error && fatal;
      diags.add(d);
    }
  // A launch with races completes (ok) but leaves error diagnostics.
  result.ok = !failed.load() && !faulted;
  result.warpInstructions = warpInstrs;
  result.threadInstructions = threadInstrs;
  for (LaunchObserver *o : observers) o->launchFinished(result);
  result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace emu
