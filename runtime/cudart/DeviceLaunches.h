// Dynamic parallelism (CDP2, `-rdc=true -lcudadevrt`): the device runtime's system calls that
// libcudadevrt's PTX makes (__cuda_syscall_cnpv2*), served on the host. A device-side launch
// takes a parameter buffer in device memory, which the launching thread fills, then launches it
// into a stream (the grid's own, a stream it made, fire-and-forget or tail); the launch is
// recorded against the launching grid and runs when that grid's threads have finished, before
// the grid completes (Runtime::runGrid): a legal schedule of CDP2, where a parent cannot wait
// for its children. Errors are the device runtime's (per thread, cudaGetLastError on the device).
#pragma once

#include "runtime/Device.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace cudart {

/// What a device-side launch needs to know of the kernel it names.
struct DeviceKernelShape {
  std::string name;
  uint32_t paramBytes = 0;
  uint64_t maxDynamicShared = 0;
};

/// A grid launched from device code, waiting for its parent grid's threads to finish.
struct ChildLaunch {
  std::string kernel;
  runtime::Dim3 grid, block;
  uint32_t dynamicShared = 0;
  uint64_t buffer = 0; // the parameters, in device memory (freed once read)
  uint32_t paramBytes = 0;
  uint64_t maxDynamicShared = 0;
  bool tail = false; // launched into cudaStreamTailLaunch: runs after the others
};

class DeviceLaunches {
public:
  /// The kernel device code of launch `tag` names by `address`, or nothing.
  using Resolver = std::function<std::optional<DeviceKernelShape>(uint64_t tag, uint64_t address)>;
  /// A device attribute (cudaDeviceAttr) as the host reads it; false for one that does not exist.
  using Attributes = std::function<bool(int attribute, int &value)>;

  /// Serves the __cuda_syscall_cnpv2* functions on `device`.
  void install(runtime::Device &device, Resolver resolve, Attributes attributes);
  /// A grid starts (launched by the host or by device code).
  void beginLaunch(uint64_t tag);
  /// The grids launch `tag` made, in the order they run (tail launches last); the launch is
  /// forgotten, and so are its threads' errors and streams.
  std::vector<ChildLaunch> endLaunch(uint64_t tag);
  /// A recorded launch has completed (its grid and every grid it launched), or will not run: it
  /// no longer counts against cudaLimitDevRuntimePendingLaunchCount.
  void completed() { --pending_; }
  /// Forgets everything (the device was reset).
  void reset();

  /// cudaLimitDevRuntimePendingLaunchCount: device-side launches not yet completed. A grid is
  /// complete once its children are, so a chain of grids each launching the next holds its whole
  /// length (an H200 refuses the 2049th; it sets no lower nesting limit).
  std::atomic<uint64_t> pendingLimit{2048};

private:
  struct Grid {
    std::vector<ChildLaunch> launches;
    std::map<uint64_t, ChildLaunch> buffers;             // parameter buffers handed out, not yet launched
    std::map<std::pair<uint64_t, uint64_t>, int> errors; // by (CTA, thread): the device's last error
    std::set<uint64_t> streams, events;
  };
  /// The grid making `call` (under mutex_); null when it is not running.
  Grid *gridOf(const runtime::HostCall &call);
  void setError(const runtime::HostCall &call, int error);

  std::mutex mutex_;
  runtime::Device *device_ = nullptr;
  Resolver resolve_;
  Attributes attributes_;
  std::map<uint64_t, Grid> grids_; // by launch tag
  std::atomic<uint64_t> pending_{0};
  uint64_t nextHandle_ = 1;
};

} // namespace cudart
