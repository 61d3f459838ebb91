// Kernel times for the CUDA shim: see KernelTiming.h.
#include "runtime/interpose/KernelTiming.h"

#include <boost/json/object.hpp>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

#include <dlfcn.h>

namespace {

using CUresult = int;
using LaunchKernel = CUresult (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, void *, void **, void **);
using LaunchKernelEx = CUresult (*)(const void *, void *, void **, void **);
using EventCreate = CUresult (*)(void **, unsigned);
using EventRecord = CUresult (*)(void *, void *);
using EventSynchronize = CUresult (*)(void *);
using EventElapsed = CUresult (*)(float *, void *, void *);
using EventDestroy = CUresult (*)(void *);
using GetName = CUresult (*)(const char **, void *);

/// CUlaunchConfig's leading fields (cuda.h): the grid, the block, the dynamic shared memory and
/// the stream; the attributes that follow are not read.
struct LaunchConfigHead {
  unsigned grid[3], block[3], sharedMemBytes;
  void *stream;
};

constexpr size_t kMaxLaunches = 10000;

struct Timing {
  bool enabled = false;
  // [0]: the legacy default stream's form, [1]: the per-thread default stream's (_ptsz).
  LaunchKernel launch[2] = {};
  LaunchKernelEx launchEx[2] = {};
  EventRecord record[2] = {};
  EventCreate create = nullptr;
  EventSynchronize synchronize = nullptr;
  EventElapsed elapsed = nullptr;
  EventDestroy destroy = nullptr;
  GetName funcName = nullptr, kernelName = nullptr;
  std::mutex mutex;
  boost::json::array launches;
};

Timing &timing() {
  static Timing *t = new Timing; // never destroyed: launches may run during exit
  return *t;
}

template <typename F> void resolve(void *driver, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(driver, name));
}

std::string nameOf(void *function) {
  Timing &t = timing();
  const char *name = nullptr;
  if (t.funcName && t.funcName(&name, function) == 0 && name) return name;
  if (t.kernelName && t.kernelName(&name, function) == 0 && name) return name; // a CUkernel
  return "?";
}

/// Runs `launch` between two events on `stream` and records how long the kernel took.
template <typename Launch>
CUresult timed(int form, void *function, const unsigned *grid, const unsigned *block, void *stream,
               Launch launch) {
  Timing &t = timing();
  void *start = nullptr, *stop = nullptr;
  if (!t.enabled || !t.record[form] || !t.create || t.create(&start, 0) != 0) return launch();
  if (t.create(&stop, 0) != 0) {
    t.destroy(start);
    return launch();
  }
  t.record[form](start, stream);
  const CUresult result = launch();
  float ms = -1;
  if (result == 0 && t.record[form](stop, stream) == 0 && t.synchronize(stop) == 0)
    t.elapsed(&ms, start, stop);
  t.destroy(start);
  t.destroy(stop);
  std::lock_guard lock(t.mutex);
  if (t.launches.size() < kMaxLaunches)
    t.launches.push_back(boost::json::object{{"kernel", nameOf(function)},
                                             {"grid", {grid[0], grid[1], grid[2]}},
                                             {"block", {block[0], block[1], block[2]}},
                                             {"milliseconds", static_cast<double>(ms)},
                                             {"result", result}});
  return result;
}

template <int Form>
CUresult launchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shared, void *stream, void **params, void **extra) {
  Timing &t = timing();
  if (!t.launch[Form]) return 3; // CUDA_ERROR_NOT_INITIALIZED
  const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return timed(Form, f, grid, block, stream,
               [&] { return t.launch[Form](f, gx, gy, gz, bx, by, bz, shared, stream, params, extra); });
}

template <int Form> CUresult launchKernelEx(const void *config, void *f, void **params, void **extra) {
  Timing &t = timing();
  if (!t.launchEx[Form]) return 3;
  if (!config) return t.launchEx[Form](config, f, params, extra);
  LaunchConfigHead head;
  std::memcpy(&head, config, sizeof head);
  return timed(Form, f, head.grid, head.block, head.stream,
               [&] { return t.launchEx[Form](config, f, params, extra); });
}

} // namespace

extern "C" {
// The driver's names for programs that dlsym them (cuGetProcAddress goes through timedLaunchFor).
__attribute__((visibility("default"))) CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                                                               unsigned bx, unsigned by, unsigned bz,
                                                               unsigned shared, void *stream, void **params,
                                                               void **extra) {
  return launchKernel<0>(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
__attribute__((visibility("default"))) CUresult
cuLaunchKernel_ptsz(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                    unsigned shared, void *stream, void **params, void **extra) {
  return launchKernel<1>(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
__attribute__((visibility("default"))) CUresult cuLaunchKernelEx(const void *config, void *f, void **params,
                                                                 void **extra) {
  return launchKernelEx<0>(config, f, params, extra);
}
__attribute__((visibility("default"))) CUresult cuLaunchKernelEx_ptsz(const void *config, void *f,
                                                                      void **params, void **extra) {
  return launchKernelEx<1>(config, f, params, extra);
}
} // extern "C"

namespace ptxvm::shim {

void initKernelTiming(void *driver) {
  Timing &t = timing();
  const char *on = std::getenv("PTXVM_TIME_KERNELS");
  t.enabled = on && std::string_view(on) == "1";
  if (!driver) return;
  resolve(driver, "cuLaunchKernel", t.launch[0]);
  resolve(driver, "cuLaunchKernel_ptsz", t.launch[1]);
  resolve(driver, "cuLaunchKernelEx", t.launchEx[0]);
  resolve(driver, "cuLaunchKernelEx_ptsz", t.launchEx[1]);
  resolve(driver, "cuEventRecord", t.record[0]);
  resolve(driver, "cuEventRecord_ptsz", t.record[1]);
  resolve(driver, "cuEventCreate", t.create);
  resolve(driver, "cuEventSynchronize", t.synchronize);
  resolve(driver, "cuEventElapsedTime", t.elapsed);
  resolve(driver, "cuEventDestroy_v2", t.destroy);
  if (!t.destroy) resolve(driver, "cuEventDestroy", t.destroy);
  resolve(driver, "cuFuncGetName", t.funcName);
  resolve(driver, "cuKernelGetName", t.kernelName);
  if (!t.synchronize || !t.elapsed || !t.destroy) t.enabled = false;
}

void *timedLaunchFor(const char *symbol, void *driverPointer, uint64_t flags) {
  Timing &t = timing();
  if (!t.enabled || !symbol || !driverPointer) return nullptr;
  const std::string_view s(symbol);
  const bool ex = s == "cuLaunchKernelEx";
  if (!ex && s != "cuLaunchKernel") return nullptr;
  // Which form the driver answered: by its pointer when it is an exported one, else by flags.
  auto exported = [&](int f) {
    return ex ? reinterpret_cast<void *>(t.launchEx[f]) : reinterpret_cast<void *>(t.launch[f]);
  };
  const int form = driverPointer == exported(1) ? 1 : driverPointer == exported(0) ? 0 : (flags & 2) ? 1 : 0;
  if (ex) {
    t.launchEx[form] = reinterpret_cast<LaunchKernelEx>(driverPointer);
    return reinterpret_cast<void *>(form ? &launchKernelEx<1> : &launchKernelEx<0>);
  }
  t.launch[form] = reinterpret_cast<LaunchKernel>(driverPointer);
  return reinterpret_cast<void *>(form ? &launchKernel<1> : &launchKernel<0>);
}

boost::json::array timedLaunches() {
  Timing &t = timing();
  std::lock_guard lock(t.mutex);
  return t.launches;
}

} // namespace ptxvm::shim
