// The CUDA driver API on a ptxvm device. libcudart.so.13 implements it over the same state as the
// runtime API (one device, its memory, streams, events, graphs), so a program that mixes runtime
// and driver calls sees one context, as with NVIDIA's libraries; ptxvm's libcuda.so.1
// (runtime/cudart/libcuda/) exports the driver's names and reaches these functions through
// ptxvm_driver_entry. Driver calls never touch the runtime's last error.
#pragma once

#include "runtime/cudart/DriverTypes.h"
#include "runtime/cudart/Runtime.h"

#include <span>
#include <string_view>

/// Marks a driver function (found by name in DriverEntries.cpp, not exported).
#define CUDA_DRIVER extern "C"

namespace cudart {

/// The driver's code for what a runtime call returned.
CUresult toDriver(cudaError_t e);
/// The runtime's code for a driver result (stream callbacks are told runtime codes).
cudaError_t toRuntime(CUresult e);
/// cuGetErrorName / cuGetErrorString; null for a code the driver does not have.
const char *driverErrorName(CUresult e);
const char *driverErrorString(CUresult e);

/// A context: every context shares the device's one state (memory, modules, streams).
struct CUctx_st {
  bool primary = false;
  bool destroyed = false;
  unsigned flags = 0;
  unsigned long long id = 0;
};

/// The entry of every driver function: checks that the driver is initialised and, for calls that
/// need one, that a context is current on this thread, and (unless told otherwise) that no kernel
/// fault made the context unusable. It does not hold the runtime's lock: the runtime functions a
/// driver call is served by take it (and wait for the device without it); a call that reads the
/// runtime's state itself locks `rt().mutex`. Runtime calls made inside one neither record the
/// runtime's last error nor print their own failure: the driver call names its failure itself,
/// as compute-sanitizer does.
class DriverCall {
public:
  enum Needs { Nothing, Init, Context };
  explicit DriverCall(const char *name, Needs needs = Context, bool blockedByFault = true);
  ~DriverCall();
  DriverCall(const DriverCall &) = delete;
  DriverCall &operator=(const DriverCall &) = delete;

  /// CUDA_SUCCESS when the call may go on, else why not (already reported).
  CUresult status() const { return status_; }
  /// Reports a failure (not CUDA_ERROR_NOT_READY) and returns it.
  CUresult operator()(CUresult e);
  CUresult operator()(cudaError_t e) { return (*this)(toDriver(e)); }
  Runtime &rt() { return rt_; }

  /// Whether the calling thread is inside a driver call (Api consults it).
  static bool active();

private:
  Runtime &rt_;
  const char *name_;
  CUresult status_ = CUDA_SUCCESS;
};

/// The context current on the calling thread, or null.
CUcontext currentContext();
/// A runtime call on this thread: the driver is initialised and, when no context is current,
/// the primary context becomes current (what NVIDIA's runtime does on its first call).
void runtimeEntered();
/// Whether `c` is a live context: CUDA_ERROR_INVALID_CONTEXT for what is no context handle,
/// CUDA_ERROR_CONTEXT_IS_DESTROYED for one destroyed (or a released primary context).
CUresult contextStatus(CUcontext c);

/// One driver function and the name libcuda.so.1 exports it under.
struct DriverEntry {
  const char *name;
  void *function;
};
#define DRIVER_ENTRY(f)                                                                                      \
  DriverEntry { #f, reinterpret_cast < void *>(&f) }
/// The functions each file serves.
std::span<const DriverEntry> contextEntries();
std::span<const DriverEntry> memoryEntries();
std::span<const DriverEntry> moduleEntries();
std::span<const DriverEntry> streamEntries();

/// The driver function called `name` (an exported name of libcuda.so.1, e.g. "cuMemAlloc_v2"), or
/// null when ptxvm does not serve it.
void *driverFunction(std::string_view name);

/// The driver API's modules go with a device reset (their handles become invalid).
void resetDriverModules(Runtime &rt);

} // namespace cudart
