// What device code calls on the host through the runtime: printf (vprintf), malloc and free on
// the device heap, and assert (__assertfail). Printf output is kept per CTA while a launch runs,
// appended in CTA order when it ends (so it does not depend on the host thread count), and
// written to stdout at the points where CUDA flushes its printf buffer.
#pragma once

#include "runtime/Device.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace cudart {

class DeviceServices {
public:
  /// Serves vprintf, malloc, free and __assertfail on `device`.
  void install(runtime::Device &device);
  void beginLaunch(runtime::Dim3 grid);
  void endLaunch();
  /// Writes the printf output of finished launches to `out`.
  void flush(std::FILE *out);
  /// Writes the assertion messages of the last launch to `err` (the driver
  /// prints them on stderr when it sees the failed kernel).
  void flushAssertions(std::FILE *err);
  /// Forgets the device heap (the device was reset).
  void resetHeap();

  /// Whether `address` is a live allocation of device-side malloc.
  bool isHeapAllocation(uint64_t address);

  // cudaLimitPrintfFifoSize and cudaLimitMallocHeapSize.
  uint64_t printfFifoSize = 1 << 20;
  uint64_t heapSize = 8 << 20;

private:
  void print(const runtime::HostCall &call, std::string text);
  void printAssertion(const runtime::HostCall &call, std::string text);

  std::mutex mutex_;
  runtime::Device *device_ = nullptr;
  runtime::Dim3 grid_;
  std::map<uint64_t, std::string> ctaOutput_;     // the running launch's output, by linear CTA index
  std::map<uint64_t, std::string> ctaAssertions_; // its failed assertions' messages, by CTA
  std::string pending_;                           // finished launches' output, not yet flushed
  bool dropped_ = false;                          // output was dropped since the last flush
  std::map<uint64_t, uint64_t> heap_;             // device malloc: address -> bytes
  uint64_t heapUsed_ = 0;
};

} // namespace cudart
