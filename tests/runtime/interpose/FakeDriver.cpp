// A fake libcuda for the tests of the CUDA shim (runtime/interpose): the module-loading entry
// points keep a copy of what they are handed (fakeImage reads it back), cuGetProcAddress serves
// this library's own functions, and every call is logged in order (fakeLog). It stands in for
// NVIDIA's driver in CI, where there is none.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace {

std::mutex g_mutex;
std::string g_log;
std::map<uintptr_t, std::string> g_images; // module handle -> the bytes it was loaded from
uintptr_t g_next = 1;

void log(const char *call) {
  std::lock_guard lock(g_mutex);
  g_log += call;
  g_log += '\n';
}

/// A module of `image`: PTX text is kept to its NUL, anything else to its first 4 bytes (a
/// magic number; the image may be a 24-byte wrapper).
int load(void **handle, const void *image, const char *call) {
  log(call);
  if (!handle || !image) return 1;
  const char *text = static_cast<const char *>(image);
  std::string copy =
      text[0] == '.' || text[0] == '/' || text[0] == '\n' ? std::string(text) : std::string(text, 4);
  std::lock_guard lock(g_mutex);
  *handle = reinterpret_cast<void *>(g_next);
  g_images[g_next++] = std::move(copy);
  return 0;
}

} // namespace

extern "C" {

int cuInit(unsigned) {
  log("cuInit");
  return 0;
}
int cuDriverGetVersion(int *v) {
  log("cuDriverGetVersion");
  if (v) *v = 13000;
  return 0;
}
int cuModuleLoadData(void **m, const void *image) { return load(m, image, "cuModuleLoadData"); }
/// The JIT's answer to PTX that reads the variable fake_jit_error: CUDA_ERROR_INVALID_PTX, with
/// a log naming the line of that read, as ptxas writes one.
int cuModuleLoadDataEx(void **m, const void *image, unsigned numOptions, int *options, void **values) {
  const char *text = static_cast<const char *>(image);
  if (const char *bad = text ? std::strstr(text, "[fake_jit_error]") : nullptr) {
    int line = 1;
    for (const char *c = text; c < bad; ++c) line += *c == '\n';
    for (unsigned i = 0; i < numOptions; ++i)
      if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        std::snprintf(static_cast<char *>(values[i]), 128,
                      "ptxas application ptx input, line %d; error   : State space mismatch", line);
    return 218; // CUDA_ERROR_INVALID_PTX
  }
  return load(m, image, "cuModuleLoadDataEx");
}
int cuModuleLoadFatBinary(void **m, const void *image) { return load(m, image, "cuModuleLoadFatBinary"); }
int cuModuleLoad(void **m, const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');
  return load(m, bytes.data(), "cuModuleLoad");
}
int cuLibraryLoadData(void **l, const void *code, int *, void **, unsigned, int *, void **, unsigned) {
  return load(l, code, "cuLibraryLoadData");
}
int cuLibraryLoadFromFile(void **l, const char *path, int *, void **, unsigned, int *, void **, unsigned) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');
  return load(l, bytes.data(), "cuLibraryLoadFromFile");
}

// Launches and events: a launch is logged; every kernel takes 1.5 ms; its name is "k".
int cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                   void **, void **) {
  log("cuLaunchKernel");
  return 0;
}
int cuEventCreate(void **event, unsigned) {
  static int events = 0;
  *event = &events;
  return 0;
}
int cuEventRecord(void *, void *) { return 0; }
int cuEventSynchronize(void *) { return 0; }
int cuEventElapsedTime(float *ms, void *, void *) {
  *ms = 1.5f;
  return 0;
}
int cuEventDestroy_v2(void *) { return 0; }
int cuFuncGetName(const char **name, void *) {
  *name = "k";
  return 0;
}

int cuGetProcAddress_v2(const char *symbol, void **pfn, int, uint64_t, int *status) {
  log("cuGetProcAddress_v2");
  static const std::map<std::string_view, void *> kOwn = {
      {"cuInit", reinterpret_cast<void *>(&cuInit)},
      {"cuDriverGetVersion", reinterpret_cast<void *>(&cuDriverGetVersion)},
      {"cuModuleLoadData", reinterpret_cast<void *>(&cuModuleLoadData)},
      {"cuModuleLoadDataEx", reinterpret_cast<void *>(&cuModuleLoadDataEx)},
      {"cuModuleLoadFatBinary", reinterpret_cast<void *>(&cuModuleLoadFatBinary)},
      {"cuModuleLoad", reinterpret_cast<void *>(&cuModuleLoad)},
      {"cuLibraryLoadData", reinterpret_cast<void *>(&cuLibraryLoadData)},
      {"cuLibraryLoadFromFile", reinterpret_cast<void *>(&cuLibraryLoadFromFile)},
      {"cuGetProcAddress", reinterpret_cast<void *>(&cuGetProcAddress_v2)},
      {"cuLaunchKernel", reinterpret_cast<void *>(&cuLaunchKernel)},
  };
  auto it = symbol ? kOwn.find(symbol) : kOwn.end();
  if (status) *status = it == kOwn.end() ? 1 : 0;
  if (!pfn) return 1;
  *pfn = it == kOwn.end() ? nullptr : it->second;
  return it == kOwn.end() ? 500 : 0;
}

// Kernels and their attributes: a function handle is its module's handle; a module whose PTX
// has a .uni branch "needs" 20 registers, any other 24 (enough to tell the shim's report
// before from after).
int cuModuleGetFunction(void **fn, void *module, const char *) {
  log("cuModuleGetFunction");
  *fn = module;
  return 0;
}
int cuLibraryGetKernel(void **kernel, void *library, const char *) {
  log("cuLibraryGetKernel");
  *kernel = library;
  return 0;
}
int cuFuncGetAttribute(int *value, int attribute, void *fn) {
  std::lock_guard lock(g_mutex);
  auto it = g_images.find(reinterpret_cast<uintptr_t>(fn));
  if (it == g_images.end()) return 400; // CUDA_ERROR_INVALID_HANDLE
  *value = attribute == 4 ? (it->second.find("bra.uni") != std::string::npos ? 20 : 24) : 0;
  return 0;
}
int cuKernelGetAttribute(int *value, int attribute, void *kernel, int) {
  return cuFuncGetAttribute(value, attribute, kernel);
}
int cuModuleUnload(void *module) {
  log("cuModuleUnload");
  std::lock_guard lock(g_mutex);
  return g_images.erase(reinterpret_cast<uintptr_t>(module)) ? 0 : 400;
}
int cuLibraryUnload(void *library) { return cuModuleUnload(library); }
int cuCtxGetDevice(int *device) {
  *device = 0;
  return 0;
}

// What runtime/GpuDevice needs beyond those (ptxvm run --device gpu in CI): one device, a
// context, memory in host memory, launches that run nothing.
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int *device, int) {
  *device = 0;
  return 0;
}
int cuDeviceGetName(char *name, int length, int) {
  std::snprintf(name, static_cast<size_t>(length), "Fake GPU");
  return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 75 ? 9 : attribute == 76 ? 0 : 1; // compute capability 9.0
  return 0;
}
int cuDevicePrimaryCtxRetain(void **context, int) {
  static int context_;
  *context = &context_;
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int) { return 0; }
int cuCtxSetCurrent(void *) { return 0; }
int cuCtxSynchronize() { return 0; }
int cuModuleGetGlobal_v2(unsigned long long *, size_t *, void *, const char *) { return 500; }
int cuFuncSetAttribute(void *, int, int) { return 0; }
int cuMemAlloc_v2(unsigned long long *address, size_t bytes) {
  *address = reinterpret_cast<uintptr_t>(std::calloc(bytes ? bytes : 1, 1));
  return *address ? 0 : 2;
}
int cuMemFree_v2(unsigned long long address) {
  std::free(reinterpret_cast<void *>(address));
  return 0;
}
int cuMemHostRegister_v2(void *, size_t, unsigned) { return 0; }
int cuMemHostUnregister(void *) { return 0; }
int cuMemcpyHtoD_v2(unsigned long long to, const void *from, size_t n) {
  std::memcpy(reinterpret_cast<void *>(to), from, n);
  return 0;
}
int cuMemcpyDtoH_v2(void *to, unsigned long long from, size_t n) {
  std::memcpy(to, reinterpret_cast<const void *>(from), n);
  return 0;
}
int cuMemcpyDtoD_v2(unsigned long long to, unsigned long long from, size_t n) {
  std::memmove(reinterpret_cast<void *>(to), reinterpret_cast<const void *>(from), n);
  return 0;
}
int cuMemsetD8_v2(unsigned long long to, unsigned char value, size_t n) {
  std::memset(reinterpret_cast<void *>(to), value, n);
  return 0;
}
int cuEventElapsedTime_v2(float *ms, void *a, void *b) { return cuEventElapsedTime(ms, a, b); }
int cuGetErrorName(int error, const char **name) {
  *name = error == 218 ? "CUDA_ERROR_INVALID_PTX" : error == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
int cuLaunchCooperativeKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              void *, void **) {
  log("cuLaunchCooperativeKernel");
  return 0;
}
int cuLaunchKernelEx(const void *, void *, void **, void **) {
  log("cuLaunchKernelEx");
  return 0;
}

/// What module `handle` was loaded from, and every call so far.
const char *fakeImage(void *handle) {
  std::lock_guard lock(g_mutex);
  auto it = g_images.find(reinterpret_cast<uintptr_t>(handle));
  return it == g_images.end() ? "" : it->second.c_str();
}
const char *fakeLog() { return g_log.c_str(); }

} // extern "C"
