// What device code calls on the host through the runtime: printf (vprintf), malloc and free on
// the device heap, assert (__assertfail), and cudaGraphSetConditional on the handles of graphs'
// conditional nodes. Printf output is kept per launch and CTA while a
// launch runs (launches of several streams may run at once), appended in CTA order when it ends
// (so it does not depend on the host thread count), and written to stdout at the points where
// CUDA flushes its printf buffer.
#pragma once

#include "runtime/Device.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cudart {

/// A conditional node's handle (cudaGraphConditionalHandleCreate): the value device code sets
/// with cudaGraphSetConditional and the node reads, and the value a launch of its graph starts
/// from when `assignDefault`.
struct ConditionalHandle {
  std::atomic<unsigned> value{0};
  unsigned initial = 0;
  bool assignDefault = false;
  const void *graph = nullptr; // the graph it was made for
};

/// A device-updatable kernel node's launch (cudaLaunchAttributeDeviceUpdatableKernelNode): what
/// device code changes with cudaGraphKernelNodeSetParam, SetGridDim, SetEnabled and UpdatesApply,
/// and what the node's next launch uses.
struct DeviceUpdatableNode {
  std::mutex mutex;
  std::vector<uint8_t> params; // laid out as the kernel's parameters
  runtime::Dim3 grid;
  bool enabled = true;
};

class DeviceServices {
public:
  /// Serves vprintf, malloc, free and __assertfail on `device`.
  void install(runtime::Device &device);
  /// Brackets a launch, named by its LaunchConfig::tag.
  void beginLaunch(uint64_t tag);
  /// Keeps the launch's printf output for the next flush, and writes its
  /// failed assertions' messages to `err` (the driver prints them on stderr
  /// when it sees the failed kernel).
  void endLaunch(uint64_t tag, std::FILE *err);
  /// Writes the printf output of finished launches to `out`.
  void flush(std::FILE *out);
  /// Forgets the device heap (the device was reset).
  void resetHeap();

  /// Whether `address` is a live allocation of device-side malloc.
  bool isHeapAllocation(uint64_t address);

  /// A new device-updatable node's handle, and the node a handle names (null when none).
  uint64_t createDeviceNode();
  std::shared_ptr<DeviceUpdatableNode> deviceNode(uint64_t handle);

  /// A new conditional handle for `graph`, its value `initial`.
  uint64_t createConditional(const void *graph, unsigned initial, bool assignDefault);
  /// The handle `handle` names; null when none.
  std::shared_ptr<ConditionalHandle> conditional(uint64_t handle);

  // cudaLimitPrintfFifoSize and cudaLimitMallocHeapSize.
  uint64_t printfFifoSize = 1 << 20;
  uint64_t heapSize = 8 << 20;

private:
  void print(const runtime::HostCall &call, std::string text);
  void printAssertion(const runtime::HostCall &call, std::string text);

  std::mutex mutex_;
  runtime::Device *device_ = nullptr;
  struct RunningLaunch {
    std::map<uint64_t, std::string> output;     // by linear CTA index
    std::map<uint64_t, std::string> assertions; // failed assertions' messages, by CTA
  };
  /// The running launch that made `call` (under mutex_).
  RunningLaunch &launchOf(const runtime::HostCall &call);
  std::map<uint64_t, RunningLaunch> running_; // by tag
  std::string pending_;                       // finished launches' output, not yet flushed
  bool dropped_ = false;                      // output was dropped since the last flush
  std::map<uint64_t, uint64_t> heap_;         // device malloc: address -> bytes
  uint64_t heapUsed_ = 0;
  std::map<uint64_t, std::shared_ptr<ConditionalHandle>> conditionals_;
  std::map<uint64_t, std::shared_ptr<DeviceUpdatableNode>> deviceNodes_;
  /// Applies one update to a device-updatable node (cudaGraphKernelNodeField numbering); the
  /// cudaError_t value device code gets.
  int updateDeviceNode(runtime::HostCall &call, uint64_t handle, int field, const uint8_t *data);
};

} // namespace cudart
