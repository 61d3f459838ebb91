// How ptxvm's libcuda.so.1 finds the driver functions libcudart.so.13 serves: by exported name,
// through the two functions this library exports besides the runtime API (version node
// PTXVM_PRIVATE, exports.map). The forms of a synchronous call that programs built with per-thread
// default streams call (_ptds) are the plain call: on one device they order the same. Also the
// runtime's way to the driver, cudaGetDriverEntryPoint[ByVersion]: cuGetProcAddress of the
// libcuda.so.1 beside this library.
#include "runtime/cudart/Driver.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <unordered_map>

namespace cudart {

void *driverFunction(std::string_view name) {
  static const auto *table = [] {
    auto *t = new std::unordered_map<std::string_view, void *>;
    for (auto entries : {contextEntries(), memoryEntries(), moduleEntries(), streamEntries()})
      for (const DriverEntry &e : entries) t->emplace(e.name, e.function);
    return t;
  }();
  if (auto it = table->find(name); it != table->end()) return it->second;
  if (name.ends_with("_ptds")) return driverFunction(name.substr(0, name.size() - 5));
  return nullptr;
}

} // namespace cudart

using namespace cudart;

/// The function libcuda.so.1 exports as `name`, or null when ptxvm does not serve it.
extern "C" __attribute__((visibility("default"))) void *ptxvm_driver_entry(const char *name) {
  return name ? driverFunction(name) : nullptr;
}

/// What libcuda.so.1's functions that ptxvm does not serve return, after saying so once.
extern "C" __attribute__((visibility("default"))) CUresult ptxvm_driver_unsupported(const char *name) {
  DriverCall call(name, DriverCall::Nothing, false);
  std::lock_guard lock(call.rt().mutex);
  return toDriver(call.rt().unsupported(name));
}

namespace {

enum cudaDriverEntryPointQueryResult : int {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2,
};
constexpr unsigned long long cudaEnableDefault = 0, cudaEnablePerThreadDefaultStream = 2;
constexpr unsigned kDriverVersion = 13000;

using GetProcAddress = CUresult (*)(const char *, void **, int, unsigned long long, int *);

/// cuGetProcAddress_v2 of ptxvm's libcuda.so.1 (the one beside this library, whatever else the
/// dynamic linker would find), or null when it is missing.
GetProcAddress procAddressOfDriver() {
  static GetProcAddress resolve = []() -> GetProcAddress {
    Dl_info self{};
    if (!dladdr(reinterpret_cast<void *>(&ptxvm_driver_entry), &self) || !self.dli_fname) return nullptr;
    std::string path = self.dli_fname;
    path = path.substr(0, path.find_last_of('/') + 1) + "libcuda.so.1";
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    return library ? reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2")) : nullptr;
  }();
  return resolve;
}

cudaError_t entryPoint(const char *api, const char *symbol, void **function, unsigned version,
                       unsigned long long flags, cudaDriverEntryPointQueryResult *status) {
  Api call(api);
  if (!symbol || !function || flags > cudaEnablePerThreadDefaultStream) return call(cudaErrorInvalidValue);
  if (version > kDriverVersion) return call(cudaErrorInvalidValue);
  GetProcAddress resolve = procAddressOfDriver();
  if (!resolve) return call(cudaErrorNotSupported);
  int found = 0;
  *function = nullptr;
  resolve(symbol, function, static_cast<int>(version), flags, &found);
  if (status) *status = static_cast<cudaDriverEntryPointQueryResult>(found);
  return cudaSuccess;
}

} // namespace

CUDART_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **function,
                                                           unsigned version, unsigned long long flags,
                                                           cudaDriverEntryPointQueryResult *status) {
  return entryPoint("cudaGetDriverEntryPointByVersion", symbol, function, version, flags, status);
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **function,
                                                                unsigned version, unsigned long long flags,
                                                                cudaDriverEntryPointQueryResult *status) {
  if (flags == cudaEnableDefault) flags = cudaEnablePerThreadDefaultStream;
  return entryPoint("cudaGetDriverEntryPointByVersion", symbol, function, version, flags, status);
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **function,
                                                  unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult *status) {
  return entryPoint("cudaGetDriverEntryPoint", symbol, function, kDriverVersion, flags, status);
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **function,
                                                       unsigned long long flags,
                                                       cudaDriverEntryPointQueryResult *status) {
  if (flags == cudaEnableDefault) flags = cudaEnablePerThreadDefaultStream;
  return entryPoint("cudaGetDriverEntryPoint", symbol, function, kDriverVersion, flags, status);
}
