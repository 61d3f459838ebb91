// The runtime's lifetime: created on the first API call (a fatbin registration, usually, from
// a constructor of the program), finished when the library unloads at exit.
#include "runtime/cudart/Runtime.h"

#include "runtime/cudart/Driver.h"
#include "runtime/cudart/LaunchReport.h"
#include "runtime/cudart/Sanitizer.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include <thread>

#include <signal.h>
#include <unistd.h>

namespace cudart {

namespace {

Runtime *g_runtime = nullptr; // set once constructed, for the exit hook
/// How long exit paths wait for issued launches before abandoning them.
constexpr std::chrono::milliseconds kExitGrace{1000};

/// Host memory for __managed__ variables, zeroed like the PTX's (absent)
/// initialiser would leave them; initialisers are written by the device.
void *managedBytes(uint64_t bytes) {
  uint64_t rounded = (std::max<uint64_t>(bytes, 1) + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, rounded);
  if (p) std::memset(p, 0, rounded);
  return p;
}

} // namespace

void Runtime::flushIfIdle() {
  if (!g_runtime) return;
  g_runtime->waitForDevice(kExitGrace);
  std::unique_lock lock(g_runtime->mutex, std::try_to_lock);
  if (lock.owns_lock()) g_runtime->synchronize();
}

Runtime &Runtime::get() {
  // Never destroyed: programs call the runtime from their own static
  // destructors and atexit handlers, after which ours would have run.
  static Runtime *runtime = new Runtime();
  return *runtime;
}

Runtime::Runtime() {
  std::vector<std::string> warnings;
  config = Config::fromEnvironment(warnings);
  for (const std::string &w : warnings) std::fprintf(stderr, "ptxvm: %s\n", w.c_str());
  if (!config.tracePath.empty()) {
    emu::TimelineOptions options;
    options.ctas = config.traceCtas;
    options.clock =
        config.traceHostClock ? emu::TimelineOptions::Clock::Host : emu::TimelineOptions::Clock::Steps;
    timeline = std::make_unique<emu::Timeline>(std::move(options));
  }
  createDevice();
  legacy_ = work.create(Queue::Kind::Legacy);
  g_runtime = this;
  installSignalHandlers();
}

void Runtime::createDevice() {
  std::string error;
  device = runtime::createDevice(config.device, error);
  if (!device) {
    // As on a machine without the GPU asked for: every call that needs a
    // device answers cudaErrorNoDevice. An emulator stays behind it so that
    // nothing the program does can reach a missing device.
    // (Config has said why a device is not built in.)
    std::string notBuiltIn;
    if (runtime::deviceBuiltIn(config.device, notBuiltIn)) std::fprintf(stderr, "ptxvm: %s\n", error.c_str());
    std::fprintf(stderr, "ptxvm: no device to run on: CUDA calls return cudaErrorNoDevice\n");
    sticky = cudaErrorNoDevice;
    device = runtime::createDevice("emulator", error);
  }
  services.install(*device);
  deviceLaunches.install(
      *device, [this](uint64_t tag, uint64_t address) { return deviceKernel(tag, address); },
      [this](int attr, int &value) {
        cudaDeviceProp p;
        fillProperties(p, totalMemory());
        return deviceAttribute(static_cast<cudaDeviceAttr>(attr), p, value);
      });
  // __managed__ variables live in host memory the device maps, so that the
  // host (through the pointer __cudaInitModule gives it) and kernels use
  // the same address.
  device->placeGlobal = [this](const ptx::Module &m, const ptx::Variable &v, uint64_t bytes) -> uint64_t {
    auto it = imageOf.find(&m);
    if (it == imageOf.end()) return 0;
    FatbinImage &img = *it->second;
    std::string_view name = m.str(v.name);
    bool managed = false;
    for (const VariableInfo *var : img.variables) managed |= var->managedPointer && var->name == name;
    if (!managed) return 0;
    void *&memory = img.managedMemory[std::string(name)];
    if (!memory) memory = managedBytes(bytes);
    if (!memory || !device->mapHost(memory, std::max<uint64_t>(bytes, 1))) return 0;
    uint64_t address = reinterpret_cast<uint64_t>(memory);
    allocations[address] = {Allocation::Kind::ManagedVariable, bytes, 0};
    return address;
  };
}

void Runtime::synchronize() { services.flush(stdout); }

void Runtime::reset() {
  synchronize();
  for (auto &[address, a] : allocations)
    if (a.kind == Allocation::Kind::Managed || a.kind == Allocation::Kind::Host)
      std::free(reinterpret_cast<void *>(address));
  allocations.clear();
  // Arrays and texture objects live in the device's memory and table, which go with it.
  mipmaps.clear();
  arrays.clear();
  textures.clear();
  for (auto &[stub, k] : kernels) k->decoded.reset();
  resetDriverModules(*this);
  // Stream and event handles are the runtime's allocations (Streams.cpp):
  // the reset ends them.
  for (auto &[stream, state] : streams) {
    work.close(state.queue);
    ::operator delete(reinterpret_cast<void *>(stream));
  }
  for (auto &[event, state] : events) ::operator delete(reinterpret_cast<void *>(event));
  streams.clear();
  events.clear();
  // Graphs hold the decoded kernels' work: they go with the context.
  captures.clear();
  graphExecs.clear();
  graphs.clear();
  services.resetHeap();
  deviceLaunches.reset();
  {
    std::lock_guard lock(deviceKernelsMutex);
    deviceKernels.clear();
  }
  // A fresh context, as on a GPU: a kernel fault (pending or sticky) is gone.
  pendingFault = cudaSuccess;
  sticky = cudaSuccess;
  stickyAnnounced = false;
  lastError() = cudaSuccess;
  device.reset();
  createDevice();
  // Modules load again on their next use; __managed__ variables keep their
  // host memory (the pointers the program holds stay valid).
  std::lock_guard lock(reportMutex);
  if (!config.reportPath.empty()) writeReport(config.reportPath, launchReports, reportDiagnostics);
  if (timeline) timeline->write(config.tracePath);
}

void Runtime::finish() {
  synchronize();
  if (finished_) return;
  finished_ = true;
  std::lock_guard lock(reportMutex);
  if (!config.reportPath.empty() && !writeReport(config.reportPath, launchReports, reportDiagnostics))
    std::fprintf(stderr, "ptxvm: cannot write the report to '%s'\n", config.reportPath.c_str());
  if (timeline && !timeline->write(config.tracePath))
    std::fprintf(stderr, "ptxvm: cannot write the trace to '%s'\n", config.tracePath.c_str());
  if (errorsReported)
    std::fprintf(stderr, "========= ERROR SUMMARY: %zu error%s\n", errorsReported,
                 errorsReported == 1 ? "" : "s");
}

void Runtime::note(ptx::Diagnostic d) {
  std::lock_guard lock(reportMutex);
  std::fputs((d.renderText() + "\n").c_str(), stderr);
  if (d.severity == ptx::Severity::Error) ++errorsReported;
  reportDiagnostics.add(std::move(d));
}

cudaError_t Runtime::unsupported(const char *name) {
  static std::set<std::string> reported;
  if (reported.insert(name).second) {
    std::fprintf(stderr, "ptxvm: %s is not supported\n", name);
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::Unsupported;
    d.severity = ptx::Severity::Warning;
    d.message = std::string(name) + " is not supported";
    d.loc.function = name;
    std::lock_guard lock(reportMutex);
    reportDiagnostics.add(std::move(d));
  }
  if (!DriverCall::active()) lastError() = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}

// ---- Api ------------------------------------------------------------------------------------

namespace {
/// Runtime calls this thread is inside (they nest: a graph launch launches).
unsigned &apiDepth() {
  thread_local unsigned depth = 0;
  return depth;
}
} // namespace

std::shared_ptr<Queue> Runtime::queueOf(cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy) return legacy_;
  if (s == cudaStreamPerThread) {
    std::shared_ptr<Queue> &q = perThread_[std::this_thread::get_id()];
    if (!q) q = work.create(Queue::Kind::Blocking);
    return q;
  }
  return streams.at(s).queue;
}

QueuePoint Runtime::submit(cudaStream_t s, std::function<void()> job, std::vector<QueuePoint> after,
                           WorkInfo info) {
  if (StreamCapture *c = captureOf(s)) {
    // Captured: a node of the graph after the stream's last captured work.
    CUgraphNode_st &node = c->sequence->graph->add(info.type, c->frontier, std::move(info.label));
    node.work = std::move(job);
    c->frontier = {&node};
    return {};
  }
  return work.submit(queueOf(s), std::move(job), std::move(after));
}

bool Runtime::waitForDevice(std::chrono::milliseconds limit) { return work.waitFor(work.pending(), limit); }

Api::Api(const char *name, Sticky sticky)
    : rt(Runtime::get()), lock_(rt.mutex, std::defer_lock), name_(name) {
  // A call that synchronises the device waits for every stream's work
  // before it takes the lock (nested calls: their caller waited).
  if (apiDepth()++ == 0 && sticky == Synchronizes && mayWait()) rt.work.wait(rt.work.pending());
  lock_.lock();
  if (sticky != Ignores && !DriverCall::active()) runtimeEntered();
  if (sticky == Synchronizes) observe();
  blocked_ = sticky != Ignores && rt.sticky != cudaSuccess;
}

void Api::observe() {
  cudaError_t pending = rt.pendingFault.exchange(cudaSuccess);
  if (pending != cudaSuccess && rt.sticky == cudaSuccess) rt.sticky = pending;
  blocked_ = blocked_ || rt.sticky != cudaSuccess;
}

bool Api::wait(const std::vector<QueuePoint> &points) {
  if (!mayWait()) return false;
  // The lock is let go while waiting: stream work (a host function calling
  // the runtime) may need it. A nested call keeps its caller's hold.
  const bool outermost = apiDepth() == 1;
  if (outermost) lock_.unlock();
  rt.work.wait(points);
  if (outermost) lock_.lock();
  observe();
  return true;
}

Api::~Api() { --apiDepth(); }

cudaError_t Api::sticky() {
  cudaError_t e = rt.sticky;
  if (DriverCall::active()) return e; // the driver call reports it
  if (!rt.stickyAnnounced) {
    rt.stickyAnnounced = true;
    std::fputs(renderApiError(name_, e, errorName(e), errorString(e)).c_str(), stderr);
  }
  lastError() = e;
  return e;
}

cudaError_t Api::operator()(cudaError_t e) {
  if (e == cudaSuccess || DriverCall::active()) return e; // a driver call reports its own failures
  lastError() = e;
  // As compute-sanitizer does: every failing call is named, except the
  // expected answers of queries (not ready) and what was said already.
  constexpr unsigned kMaxPrinted = 100;
  if (e != cudaErrorNotReady && e != cudaErrorNotSupported && rt.apiErrorsPrinted < kMaxPrinted) {
    ++rt.apiErrorsPrinted;
    std::fputs(renderApiError(name_, e, errorName(e), errorString(e)).c_str(), stderr);
  }
  return e;
}

} // namespace cudart

namespace {

/// Flushes printf output and writes the report unless a thread is inside the
/// runtime (it keeps the lock: skip rather than hang).
void finishIfIdle() {
  if (!cudart::g_runtime) return;
  cudart::g_runtime->waitForDevice(cudart::kExitGrace);
  std::unique_lock lock(cudart::g_runtime->mutex, std::try_to_lock);
  if (lock.owns_lock()) cudart::g_runtime->finish();
}

/// A program killed by a signal (its own crash, abort() from a failed host
/// check, Ctrl-C) still leaves what kernels printed and the report. This is
/// best effort: finishing is not async-signal-safe, so an alarm ends the
/// process should it block; then the signal is raised again with its
/// default action, and the exit status says the same as without ptxvm.
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP};

void finishOnSignal(int sig) {
  static volatile sig_atomic_t entered = 0;
  if (!entered) {
    entered = 1;
    std::signal(SIGALRM, SIG_DFL);
    alarm(2);
    finishIfIdle();
  }
  std::signal(sig, SIG_DFL);
  raise(sig);
}

} // namespace

namespace cudart {

void installSignalHandlers() {
  for (int sig : kFatalSignals) {
    struct sigaction old {};
    // Only where the program keeps the default action: its own handlers stay.
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
      continue;
    struct sigaction action {};
    action.sa_handler = finishOnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(sig, &action, nullptr);
  }
}

} // namespace cudart

// The library's exit hook: flush printf output and write the report once the
// program's own exit handlers (which may still call the runtime) have run.
__attribute__((destructor)) static void ptxvmCudartExit() { finishIfIdle(); }
