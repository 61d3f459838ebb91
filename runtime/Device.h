// The device interface: what every execution target of ptxvm offers to the
// CUDA runtime, `ptxvm run` and the tests — memory with an allocation table,
// modules (symbols, constant banks), host services that device code calls,
// and kernel launches that end in a status, the CUDA error a GPU would
// return, diagnostics and statistics. The SIMT emulator is the first
// implementation (runtime/EmulatorDevice.cpp); the CPU (LLVM) and GPU
// (driver) devices plug in beside it. Nothing above this header knows which
// device runs.
#pragma once

#include "emulator/Texture.h"
#include "ptx/Diagnostic.h"
#include "ptx/IR.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace emu {
class Timeline;
}

namespace runtime {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

/// Where a module-level variable lives. Global and constant variables have a
/// device address that copies reach (a constant bank lives in device memory,
/// as on hardware); shared variables have an offset in each CTA's shared
/// memory and no address the host can copy to.
struct Symbol {
  enum class Space : uint8_t { Global, Const, Shared, Other };
  Space space = Space::Global;
  uint64_t address = 0; // device address; offset for Shared
  uint64_t size = 0;
};

/// What the runtime needs to know of a loaded kernel: its ABI (parameter
/// layout) and its resource use, the facts cudaFuncGetAttributes reports.
struct KernelAttributes {
  uint32_t paramBytes = 0;
  std::vector<uint32_t> paramOffsets, paramSizes;
  uint32_t staticShared = 0; // bytes of .shared declared by the kernel and its module
  uint32_t localBytes = 0;   // per thread
  uint32_t constBytes = 0;   // the module's constant bank
  int registers = -1;        // per thread, when the device knows (-1: it does not)
};

/// A kernel loaded on a device, ready to launch. Owned by the caller; the
/// module it came from must outlive it.
class Kernel {
public:
  virtual ~Kernel() = default;
  const ptx::Module &module() const { return *module_; }
  const ptx::Function &function() const { return *function_; }
  const std::string &name() const { return name_; }
  const KernelAttributes &attributes() const { return attributes_; }

protected:
  Kernel(const ptx::Module &m, const ptx::Function &f, std::string name, KernelAttributes a)
      : module_(&m), function_(&f), name_(std::move(name)), attributes_(std::move(a)) {}

private:
  const ptx::Module *module_;
  const ptx::Function *function_;
  std::string name_;
  KernelAttributes attributes_;
};

/// How to run one launch. The checking and scheduling options are requests:
/// a device that cannot honour one says so in a warning diagnostic.
struct LaunchConfig {
  Dim3 grid, block;
  /// Thread-block cluster shape; 1x1x1 takes the kernel's .reqnctapercluster.
  Dim3 cluster;
  uint32_t dynamicShared = 0;
  std::vector<uint8_t> params;                  // laid out per KernelAttributes::paramOffsets
  bool cooperative = false;                     // cudaLaunchCooperativeKernel: every CTA resident at once
  uint64_t tag = 0;                             // what host calls of this launch see (HostCall::launchTag)
  unsigned threads = 0;                         // host threads; 0 = all cores
  uint64_t maxInstructions = 20'000'000'000ull; // per launch, warp instructions over all CTAs
  double timeoutSeconds = 0;                    // wall clock per launch; 0 = none
  bool racecheck = false;                       // --racecheck
  bool statistics = false;      // count what LaunchStats holds beyond instructions (--stats, reports)
  bool memoryStatistics = true; // with statistics, memory accesses per space too (emu::LaunchConfig's)
  bool randomSchedule = false;  // --schedule=random
  uint64_t seed = 0;
  /// --trace: the timeline this launch's warps and barriers are recorded into (the emulator's
  /// and the CPU device's); null: none.
  emu::Timeline *timeline = nullptr;
};

/// What a launch counted. Devices fill what they can observe.
struct LaunchStats {
  uint64_t warpInstructions = 0, threadInstructions = 0;
  uint64_t divergentBranches = 0;
  std::array<uint64_t, 16> barrierWaits{}; // warps that waited, per barrier id
  /// Thread accesses per state space, by name ("global", "shared", ...).
  std::vector<std::pair<std::string, uint64_t>> memoryOps;
  /// Per warp index within a CTA, summed over CTAs: warp and thread instructions.
  std::vector<std::pair<uint64_t, uint64_t>> perWarp;
};

/// How a device runs a kernel's code, for reports: the interpreter, compiled
/// code (the CPU device: what was compiled, and how long that took), or the
/// GPU's driver.
struct EngineInfo {
  std::string name = "interpreter"; // "interpreter", "compiled", "driver"
  double compileSeconds = 0;
  uint32_t instructions = 0; // the kernel's, its device functions' included
  uint32_t compiled = 0;     // compiled to native code
  uint32_t handlerCalls = 0; // compiled as calls of the interpreter's handler
  uint32_t interpreted = 0;  // left to the interpreter's loop (control instructions)
  bool checked = true;       // compiled code checks every lane's access (false: --unchecked)
  // The CPU device: "eager" (compiled when loaded) or "tiered" (compiled
  // once hot); where the code came from ("miss": LLVM compiled it, "memory",
  // "disk"); warp instructions the interpreter ran before compiled code took
  // over; why the kernel stays on the interpreter, if it does.
  std::string tier;
  std::string cache;
  uint64_t warmupInstructions = 0;
  std::string note;
};

struct LaunchResult {
  bool ok = false;
  std::string device; // the device's name
  EngineInfo engine;  // how it ran the kernel
  std::string status; // "completed" or "failed"
  std::string error;  // the CUDA error a GPU would return (cudaErrorIllegalAddress, ...); empty when ok
  double wallSeconds = 0;
  LaunchStats stats;
};

/// The CUDA error a GPU's runtime returns for a launch that failed with a
/// diagnostic of this kind (measured on an H100 where the kind allows).
std::string_view cudaErrorFor(ptx::DiagKind kind);
/// The CUDA error of a failed launch from its diagnostics: the first error
/// that is not a race finding, by its `cuda_error` field (a device service
/// may ask for one, as a failed assert asks for cudaErrorAssert) or its kind.
std::string launchError(const ptx::DiagnosticList &diags);

/// One lane's call of a host function from device code (printf, malloc,
/// free, assert). Arguments and results follow the PTX declaration.
class HostCall {
public:
  virtual ~HostCall() = default;
  /// Parameter `i` as raw bits (its first 8 bytes, zero-extended).
  virtual uint64_t argument(unsigned i) const = 0;
  virtual unsigned numArguments() const = 0;
  /// The first `size` bytes of parameter `i` (an aggregate passed by value), zero past its end.
  virtual bool argumentBytes(unsigned i, void *out, unsigned size) const = 0;
  /// Sets return value `i` (its first min(size, 8) bytes).
  virtual void setResult(uint64_t bits, unsigned i = 0) = 0;
  /// Reads device memory, checked like a load by the lane; false after the
  /// fault was reported (the launch then fails).
  virtual bool read(uint64_t address, void *out, unsigned size) = 0;
  /// Reads a NUL-terminated string of at most `limit` bytes; false after a fault was reported.
  virtual bool readString(uint64_t address, std::string &out, size_t limit = 1u << 20) = 0;
  /// Writes device memory, checked like a store by the lane; false after the fault was reported.
  virtual bool write(uint64_t address, const void *in, unsigned size) = 0;
  /// Fails the launch with an error diagnostic at the call, for this lane.
  virtual void fail(ptx::DiagKind kind, std::string message,
                    std::vector<std::pair<std::string, std::string>> fields = {}) = 0;
  /// Reports a diagnostic of any severity at the call.
  virtual void report(ptx::DiagKind kind, ptx::Severity severity, std::string message,
                      std::vector<std::pair<std::string, std::string>> fields = {}) = 0;
  /// The device heap changed under the running launch (a device-side free).
  virtual void heapChanged(uint64_t address) = 0;
  virtual unsigned lane() const = 0;
  virtual Dim3 threadIndex() const = 0;
  virtual Dim3 blockIndex() const = 0;
  virtual Dim3 blockDim() const = 0;
  virtual Dim3 gridDim() const = 0;
  /// The tag of the launch making the call (LaunchConfig::tag).
  virtual uint64_t launchTag() const = 0;
  /// The kernel's name and the PTX line of the call.
  virtual std::string_view kernelName() const = 0;
  virtual uint32_t line() const = 0;
};

using HostFunction = std::function<void(HostCall &)>;

/// What the device's allocation table knows about an address.
struct AllocationInfo {
  uint64_t base = 0, size = 0;
  bool live = false;
  bool hostMapped = false; // host memory the device shares (adopt)
};

class Device {
public:
  virtual ~Device() = default;
  /// The name `--device` and PTXVM_DEVICE use ("emulator", "cpu", "gpu").
  virtual std::string_view name() const = 0;

  // ---- Memory ----
  /// The device address of `bytes` zeroed bytes (aligned to `alignment`), or 0
  /// when they cannot be had.
  virtual uint64_t allocate(uint64_t bytes, uint64_t alignment = 256) = 0;
  /// False when `address` is not the start of a live allocation.
  virtual bool free(uint64_t address) = 0;
  /// Shares `bytes` of host memory at `host` with the device at the same
  /// address (managed and mapped pinned memory). The memory stays the
  /// caller's. False when it cannot (overlap, reserved range).
  virtual bool mapHost(void *host, uint64_t bytes) = 0;
  /// Ends a mapping made by mapHost.
  virtual bool unmapHost(uint64_t address) = 0;
  /// The allocation (live or freed) containing `address`, if any.
  virtual std::optional<AllocationInfo> allocationAt(uint64_t address) const = 0;
  /// Whether `address` lies where the device places its own allocations (so
  /// that no allocation holding it means a stale or made-up device pointer).
  virtual bool inDeviceHeap(uint64_t address) const = 0;
  /// Bytes in live device allocations (host mappings excluded).
  virtual uint64_t liveBytes() const = 0;
  /// Host-side copies and fills; false on a range outside live allocations.
  virtual bool write(uint64_t address, const void *data, uint64_t size) = 0;
  virtual bool read(uint64_t address, void *data, uint64_t size) const = 0;
  virtual bool copy(uint64_t to, uint64_t from, uint64_t size) = 0;
  virtual bool fill(uint64_t address, uint8_t value, uint64_t size) = 0;

  // ---- Textures and surfaces ----
  /// The handle device code passes to tex, tld4, txq (a texture) or suld,
  /// sust, suq (a surface) for `object`, whose memory lies in this device's
  /// allocations; 0 when the device has no texture table of its own.
  virtual uint64_t createTexture(const emu::TextureObject &object) {
    (void)object;
    return 0;
  }
  /// False when `handle` names no live object.
  virtual bool destroyTexture(uint64_t handle) {
    (void)handle;
    return false;
  }

  // ---- Modules ----
  /// Where a module-level variable of `m` lives, loading the module (its
  /// globals and constant bank, initialised) on first use; null when unknown.
  virtual std::optional<Symbol> symbol(const ptx::Module &m, ptx::Name name) = 0;
  /// The kernel of `m` whose address device code took (`mov.u64 %rd, kernel`, what a device-side
  /// launch names), or empty.
  virtual std::string kernelAt(const ptx::Module &m, uint64_t address) {
    (void)m;
    (void)address;
    return {};
  }
  /// Loads kernel `name` of `m` (whose reachable bodies are parsed); errors
  /// go to `diags` and give null.
  virtual std::unique_ptr<Kernel> loadKernel(const ptx::Module &m, std::string_view name,
                                             ptx::DiagnosticList &diags) = 0;
  /// Serves calls to `.extern .func NAME` with a host callback. Set before
  /// loading the kernels that call it.
  virtual void setHostFunction(std::string name, HostFunction function) = 0;
  /// Where module-level .global variables live: when set and it returns
  /// nonzero, that address (host memory the caller mapped with mapHost) is
  /// used instead of a fresh allocation (__managed__ variables).
  std::function<uint64_t(const ptx::Module &m, const ptx::Variable &v, uint64_t bytes)> placeGlobal;

  // ---- Launches ----
  /// Whether launch() may run on several host threads at once (the
  /// runtime's streams); callers serialise launches on a device that says no.
  virtual bool concurrentLaunches() const { return false; }
  /// Runs a launch to its end. Diagnostics (faults, deadlocks, races) go to `diags`.
  virtual LaunchResult launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) = 0;
};

/// The devices built into this ptxvm, in the order `--device` lists them.
std::vector<std::string_view> deviceNames();
/// Whether `name` is a device built into this ptxvm; `error` says why not.
bool deviceBuiltIn(std::string_view name, std::string &error);
/// The device named `name` ("" for the default, the emulator); null with
/// `error` saying why (not built in, or unavailable on this machine).
std::unique_ptr<Device> createDevice(std::string_view name, std::string &error);

} // namespace runtime
