// ptxvm's libcuda.so.1: the CUDA driver API on a ptxvm device, for programs that call the driver
// (cuInit, cuModuleLoadData, cuLaunchKernel, ...). It exports every function NVIDIA's driver
// exports; each is a jump through a table (Stubs.S, generated from libcuda-symbols.txt) that this
// library fills when it loads with the functions libcudart.so.13 serves, so that runtime and
// driver calls share the runtime's one state. A function ptxvm does not serve returns
// CUDA_ERROR_NOT_SUPPORTED after saying so once. cuGetProcAddress is answered here, from the
// versions of each function's variants (ProcVersions.inc).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

extern "C" {
// Stubs.S.
extern void *ptxvm_libcuda_table[];
extern const char *const ptxvm_libcuda_names[];
extern void *const ptxvm_libcuda_stubs[];
extern const unsigned ptxvm_libcuda_count;
// libcudart.so.13 (version node PTXVM_PRIVATE).
void *ptxvm_driver_entry(const char *name);
int ptxvm_driver_unsupported(const char *name);

/// Where the stubs of functions ptxvm does not serve go (the name in the first argument).
__attribute__((visibility("hidden"))) int ptxvm_libcuda_unsupported(const char *name) {
  return ptxvm_driver_unsupported(name);
}
}

namespace {

constexpr int kSuccess = 0, kInvalidValue = 1, kNotFound = 500;
constexpr uint64_t kPerThreadDefaultStream = 2;
enum QueryResult : int { Found = 0, SymbolNotFound = 1, VersionNotSufficient = 2 };

__attribute__((constructor)) void bindServedFunctions() {
  for (unsigned i = 0; i < ptxvm_libcuda_count; ++i)
    if (void *f = ptxvm_driver_entry(ptxvm_libcuda_names[i])) ptxvm_libcuda_table[i] = f;
}

struct ProcVersion {
  const char *name;
  int version;
  const char *symbol;
};
constexpr ProcVersion kProcVersions[] = {
#define PROC_VERSION(name, version, symbol) {name, version, symbol},
#include "runtime/cudart/libcuda/ProcVersions.inc"
#undef PROC_VERSION
};

void *exportedFunction(std::string_view name);

/// The exported function cuGetProcAddress gives for `symbol` at `cudaVersion`: the newest
/// variant not newer than it, in its per-thread-stream form when asked and there is one.
QueryResult resolve(const char *symbol, int cudaVersion, uint64_t flags, void **out) {
  std::string chosen;
  bool known = false;
  int best = -1;
  for (const ProcVersion &v : kProcVersions)
    if (std::strcmp(v.name, symbol) == 0) {
      known = true;
      if (v.version <= cudaVersion && v.version > best) {
        best = v.version;
        chosen = v.symbol;
      }
    }
  if (!known) {
    if (!exportedFunction(symbol)) return SymbolNotFound;
    chosen = symbol;
  } else if (chosen.empty()) {
    return VersionNotSufficient;
  }
  void *f = nullptr;
  if (flags & kPerThreadDefaultStream) {
    f = exportedFunction(chosen + "_ptsz");
    if (!f) f = exportedFunction(chosen + "_ptds");
  }
  if (!f) f = exportedFunction(chosen);
  *out = f;
  return f ? Found : SymbolNotFound;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, uint64_t flags, int *status) {
  if (!symbol || !pfn) return kInvalidValue;
  *pfn = nullptr;
  QueryResult r = resolve(symbol, cudaVersion, flags, pfn);
  // Measured on an H200 (driver 580): a symbol not found, or not at that
  // version, is a success whose status says so.
  if (status) {
    *status = r;
    return kSuccess;
  }
  return r == Found ? kSuccess : kNotFound;
}

extern "C" __attribute__((visibility("default"))) int cuGetProcAddress(const char *symbol, void **pfn,
                                                                       int cudaVersion, uint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, nullptr);
}

namespace {
void *exportedFunction(std::string_view name) {
  if (name == "cuGetProcAddress") return reinterpret_cast<void *>(&cuGetProcAddress);
  if (name == "cuGetProcAddress_v2") return reinterpret_cast<void *>(&cuGetProcAddress_v2);
  for (unsigned i = 0; i < ptxvm_libcuda_count; ++i)
    if (name == ptxvm_libcuda_names[i]) return ptxvm_libcuda_stubs[i];
  return nullptr;
}
} // namespace
