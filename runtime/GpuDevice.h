// NVIDIA's GPU as a device (runtime/Device.h), through the CUDA driver
// loaded at run time (runtime/CudaDriver.h): memory is the GPU's, modules are
// the PTX that ptx/ writes (after any passes) JIT-compiled by the driver,
// launches run on the hardware and end in the error the driver reports.
// Device code's printf, malloc and assert are the driver's own.
#pragma once

#include "runtime/CudaDriver.h"
#include "runtime/Device.h"

#include <map>
#include <memory>
#include <mutex>

namespace runtime {

class GpuDevice final : public Device {
public:
  /// Opens GPU 0 through `driverLibrary` (libcuda.so.1 by default); null
  /// with `error` saying why (no driver, no GPU).
  static std::unique_ptr<GpuDevice> open(std::string &error, const char *driverLibrary = "libcuda.so.1");
  ~GpuDevice() override;
  std::string_view name() const override { return "gpu"; }
  /// The GPU's name and compute capability, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
  const std::string &description() const { return description_; }
  const std::string &gpuName() const { return gpuName_; }
  /// 90 for sm_90.
  int computeCapability() const { return computeCapability_; }
  /// The CUDA version the driver implements, as cuDriverGetVersion gives it (13000 for 13.0).
  int driverVersion() const { return driverVersion_; }
  /// The driver itself, for GPU-only work beyond the device interface
  /// (texture arrays of tools/gpu-record); calls need this device's context,
  /// which open() made current on the calling thread.
  const cuda::Driver &driver() const { return driver_; }
  /// The log of the last module the JIT rejected, as the driver wrote it.
  const std::string &lastJitLog() const { return jitLog_; }

  uint64_t allocate(uint64_t bytes, uint64_t alignment = 256) override;
  bool free(uint64_t address) override;
  bool mapHost(void *host, uint64_t bytes) override;
  bool unmapHost(uint64_t address) override;
  std::optional<AllocationInfo> allocationAt(uint64_t address) const override;
  bool inDeviceHeap(uint64_t) const override { return false; }
  uint64_t liveBytes() const override;
  bool write(uint64_t address, const void *data, uint64_t size) override;
  bool read(uint64_t address, void *data, uint64_t size) const override;
  bool copy(uint64_t to, uint64_t from, uint64_t size) override;
  bool fill(uint64_t address, uint8_t value, uint64_t size) override;

  std::optional<Symbol> symbol(const ptx::Module &m, ptx::Name name) override;
  std::unique_ptr<Kernel> loadKernel(const ptx::Module &m, std::string_view name,
                                     ptx::DiagnosticList &diags) override;
  void setHostFunction(std::string, HostFunction) override {}

  /// A failed launch's diagnostic has the fields cuda_error, driver_error
  /// (the driver's name of the error) and driver_call (the call that
  /// returned it: cuLaunchKernel, cuCtxSynchronize, ...); a module the JIT
  /// rejects, those (and lastJitLog() has its log).
  LaunchResult launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) override;

private:
  GpuDevice() = default;
  /// The driver's module for `m`, JIT-compiling its PTX on first use; null
  /// after reporting the JIT's log to `diags`.
  cuda::CUmodule module(const ptx::Module &m, ptx::DiagnosticList *diags);
  /// Whether [address, address+size) lies in one live allocation.
  bool inLive(uint64_t address, uint64_t size) const;
  /// Makes the device's context the calling thread's: the runtime calls the
  /// device from the program's threads and from its streams' worker threads.
  void bindContext() const { driver_.cuCtxSetCurrent(context_); }

  cuda::Driver driver_{};
  cuda::CUdevice device_ = 0;
  cuda::CUcontext context_ = nullptr;
  std::string description_, gpuName_, jitLog_;
  int computeCapability_ = 0, driverVersion_ = 0;
  mutable std::mutex mutex_;
  std::map<uint64_t, AllocationInfo> allocations_; // by base, freed ones kept (use after free)
  std::map<const ptx::Module *, cuda::CUmodule> modules_;
};

} // namespace runtime
