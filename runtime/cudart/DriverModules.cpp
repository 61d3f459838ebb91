// The driver API's modules, libraries, functions and launches. A module is loaded from PTX text,
// a fatbin (container or nvcc's wrapper) or a file holding either; as a driver JIT-compiles a
// module whole, every body is parsed and checked at load and a failure is CUDA_ERROR_INVALID_PTX
// with the diagnostics in the error log the caller passed (CU_JIT_ERROR_LOG_BUFFER). A cubin
// carries no PTX, so it is refused with a message saying so. Functions and kernels are the
// runtime's KernelInfo handles: launched through the runtime's launch path, they behave as
// <<<...>>> launches do (checks, stream order, faults, reports).
#include "ptx/Parser.h"
#include "runtime/cudart/Driver.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace cudart {

/// A loaded module: its PTX (as an image of the runtime) and the functions handed out.
struct CUmod_st {
  FatbinImage image;
  std::map<std::string, std::unique_ptr<KernelInfo>, std::less<>> functions;
  bool unloaded = false;
  bool library = false; // loaded by cuLibraryLoad*: its handle is a CUlibrary too
};

namespace {

/// Every module loaded, kept until exit: launches issued before an unload still run, and the
/// device keeps a module's symbols by its address. Guarded by the runtime's lock.
std::vector<std::unique_ptr<CUmod_st>> &modules() {
  static std::vector<std::unique_ptr<CUmod_st>> all;
  return all;
}

CUmod_st *liveModule(CUmodule m) {
  for (const auto &mod : modules())
    if (mod.get() == m) return mod->unloaded ? nullptr : mod.get();
  return nullptr;
}

/// The library a CUlibrary handle is (a module loaded as a library), or null.
CUmod_st *liveLibrary(CUlibrary l) {
  CUmod_st *m = liveModule(reinterpret_cast<CUmodule>(l));
  return m && m->library ? m : nullptr;
}

/// What cuModuleLoadDataEx's JIT options ask for: the log buffers to fill.
struct JitLogs {
  char *error = nullptr, *info = nullptr;
  void **errorSize = nullptr, **infoSize = nullptr; // in: capacity; out: bytes written
};

bool readJitOptions(unsigned count, const CUjit_option *options, void **values, JitLogs &logs) {
  if (count && (!options || !values)) return false;
  for (unsigned i = 0; i < count; ++i) {
    switch (options[i]) {
    case CU_JIT_ERROR_LOG_BUFFER: logs.error = static_cast<char *>(values[i]); break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: logs.errorSize = &values[i]; break;
    case CU_JIT_INFO_LOG_BUFFER: logs.info = static_cast<char *>(values[i]); break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: logs.infoSize = &values[i]; break;
    default:
      // Optimisation levels, targets, caching, ...: nothing to do for PTX
      // that is interpreted; an option the driver does not know is an error.
      if (options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS) return false;
    }
  }
  return true;
}

void writeLog(char *buffer, void **size, const std::string &text) {
  if (!buffer || !size) return;
  size_t capacity = reinterpret_cast<uintptr_t>(*size);
  if (capacity == 0) return;
  size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = 0;
  *size = reinterpret_cast<void *>(static_cast<uintptr_t>(n + 1));
}

/// Why an image cannot be loaded, as a diagnostic (printed, kept in the error log).
ptx::Diagnostic refusal(std::string message) {
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::Unsupported;
  d.message = std::move(message);
  return d;
}

/// The PTX in `image`: PTX text, a fatbin container, or nvcc's fatbin wrapper. A cubin or
/// anything else is refused with `error` set.
CUresult ptxOfImage(Runtime &rt, const void *image, size_t index, std::string &text, std::string &name,
                    ptx::DiagnosticList &log) {
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  auto bytes = static_cast<const uint8_t *>(image);
  if (magic == runtime::kFatbinWrapperMagic || magic == runtime::kFatbinContainerMagic) {
    runtime::Fatbin fatbin;
    bool linked = false;
    if (magic == runtime::kFatbinWrapperMagic) {
      int version = 0;
      std::memcpy(&version, bytes + 4, sizeof version);
      linked = version == static_cast<int>(runtime::kFatbinWrapperLinkVersion);
      runtime::parseFatbinWrapper(image, fatbin, log);
    } else {
      // The container's header says how long it is (16 bytes: magic, version, header size, payload size).
      uint16_t headerSize = 0;
      uint64_t payload = 0;
      std::memcpy(&headerSize, bytes + 6, sizeof headerSize);
      std::memcpy(&payload, bytes + 8, sizeof payload);
      if (payload > runtime::kFatbinMaxPayloadBytes) {
        log.add(refusal("the fatbin's header claims " + std::to_string(payload) + " bytes"));
        return CUDA_ERROR_INVALID_IMAGE;
      }
      runtime::parseFatbin({bytes, headerSize + payload}, fatbin, log);
    }
    if (log.hasErrors()) return CUDA_ERROR_INVALID_IMAGE;
    if (!runtime::choosePtx(fatbin)) {
      log.add(refusal("the fatbin has no PTX (only SASS for specific GPUs); ptxvm runs PTX: build it "
                      "with PTX in it (nvcc -fatbin -gencode arch=compute_XX,code=compute_XX)"));
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    return rt.ptxOf(fatbin, linked, index, text, name) ? CUDA_SUCCESS : CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    log.add(refusal("the image is a cubin (SASS for one GPU) and carries no PTX; ptxvm runs PTX: load the "
                    "PTX (nvcc -ptx) or a fatbin with PTX in it (nvcc -fatbin)"));
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  text = static_cast<const char *>(image);
  if (text.find(".version") == std::string::npos && text.find(".target") == std::string::npos &&
      text.find(".entry") == std::string::npos && text.find(".func") == std::string::npos) {
    log.add(refusal("the image is neither PTX text, a fatbin nor a cubin"));
    return CUDA_ERROR_INVALID_IMAGE;
  }
  name = "module" + std::to_string(index) + ".ptx";
  return CUDA_SUCCESS;
}

/// Loads `image` as a module: PTX parsed and every body checked, as a driver compiles a module
/// whole at load. The logs get the diagnostics (error log) or a summary (info log).
CUresult loadModule(DriverCall &call, const void *image, const JitLogs &logs, bool library, CUmodule *out) {
  if (!image || !out) return call(CUDA_ERROR_INVALID_VALUE);
  Runtime &rt = call.rt();
  std::lock_guard lock(rt.mutex);
  auto module = std::make_unique<CUmod_st>();
  module->library = library;
  ptx::DiagnosticList log;
  std::string text, name;
  CUresult r = ptxOfImage(rt, image, modules().size(), text, name, log);
  FatbinImage &img = module->image;
  if (r == CUDA_SUCCESS) {
    img.ptxText = std::move(text);
    img.ptxName = std::move(name);
    if (!rt.load(img)) {
      r = CUDA_ERROR_INVALID_PTX;
    } else if (ptx::DiagnosticList bodies; !ptx::materializeAll(*img.module, bodies) || bodies.hasErrors()) {
      for (const ptx::Diagnostic &d : bodies.all()) rt.note(d);
      for (const ptx::Diagnostic &d : bodies.all()) img.diagnostics.add(d);
      r = CUDA_ERROR_INVALID_PTX;
    }
  } else {
    for (const ptx::Diagnostic &d : log.all()) rt.note(d);
  }
  std::ostringstream errors;
  for (const ptx::Diagnostic &d : log.all()) errors << d.renderText() << "\n";
  for (const ptx::Diagnostic &d : img.diagnostics.all()) errors << d.renderText() << "\n";
  writeLog(logs.error, logs.errorSize, errors.str());
  if (r != CUDA_SUCCESS) return call(r);
  size_t kernels = 0;
  for (const ptx::Function &f : img.module->functions) kernels += f.isKernel && f.hasBody;
  writeLog(logs.info, logs.infoSize,
           "ptxvm: " + img.module->fileName + ": " + std::to_string(kernels) + " kernels, run as PTX\n");
  *out = module.get();
  modules().push_back(std::move(module));
  return CUDA_SUCCESS;
}

/// The file's bytes, NUL-terminated (PTX text is a C string); false when it cannot be read.
bool readFile(const char *path, std::string &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  bytes.push_back(0);
  return !in.bad();
}

/// The function `name` of a module: a kernel of its PTX, handed out once.
CUresult moduleFunction(DriverCall &call, CUmod_st *m, const char *name, KernelInfo *&out) {
  if (!name) return call(CUDA_ERROR_INVALID_VALUE);
  if (auto it = m->functions.find(name); it != m->functions.end()) {
    out = it->second.get();
    return CUDA_SUCCESS;
  }
  const ptx::Module &pm = *m->image.module;
  bool found = false;
  for (const ptx::Function &f : pm.functions)
    found = found || (f.isKernel && f.hasBody && pm.str(f.name) == name);
  if (!found) return call(CUDA_ERROR_NOT_FOUND);
  auto k = std::make_unique<KernelInfo>();
  k->image = &m->image;
  k->name = name;
  k->driverModule = true;
  out = k.get();
  call.rt().kernelHandles.insert(out);
  m->functions.emplace(name, std::move(k));
  return CUDA_SUCCESS;
}

CUresult moduleGlobal(DriverCall &call, CUmod_st *m, const char *name, CUdeviceptr *dptr, size_t *bytes) {
  if (!name) return call(CUDA_ERROR_INVALID_VALUE);
  const ptx::Module &pm = *m->image.module;
  ptx::Name n = pm.names.find(name);
  std::optional<runtime::Symbol> at;
  if (n != ptx::kNoName) at = call.rt().device->symbol(pm, n);
  if (!at || (at->space != runtime::Symbol::Space::Global && at->space != runtime::Symbol::Space::Const))
    return call(CUDA_ERROR_NOT_FOUND);
  if (dptr) *dptr = at->address;
  if (bytes) *bytes = at->size;
  return CUDA_SUCCESS;
}

/// The decoded function behind a handle, or why not.
CUresult decoded(DriverCall &call, const void *f, KernelInfo *&k) {
  k = call.rt().kernel(f);
  if (!k) return call(CUDA_ERROR_INVALID_HANDLE);
  return call(call.rt().decode(*k));
}

/// Launches `f` as the driver does: arguments as an array of pointers (`params`) or one packed
/// buffer (`extra`), never both.
CUresult launch(const char *name, CUfunction f, dim3 grid, dim3 block, unsigned shared, CUstream stream,
                void **params, void **extra, bool cooperative, dim3 cluster) {
  DriverCall call(name);
  if (call.status()) return call.status();
  Runtime &rt = call.rt();
  Api api(name, Api::Ignores); // holds the runtime's lock for the launch
  KernelInfo *k = nullptr;
  if (CUresult r = decoded(call, f, k)) return r;
  std::vector<void *> packed;
  if (extra) {
    if (params) return call(CUDA_ERROR_INVALID_VALUE);
    const uint8_t *buffer = nullptr;
    size_t size = 0;
    bool haveSize = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buffer = static_cast<const uint8_t *>(extra[i + 1]);
      } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (!extra[i + 1]) return call(CUDA_ERROR_INVALID_VALUE);
        size = *static_cast<const size_t *>(extra[i + 1]);
        haveSize = true;
      } else {
        return call(CUDA_ERROR_INVALID_VALUE);
      }
    }
    const runtime::KernelAttributes &a = k->decoded->attributes();
    if (!a.paramOffsets.empty() && (!buffer || !haveSize || size < a.paramBytes))
      return call(CUDA_ERROR_INVALID_VALUE);
    // A buffer longer than the parameters (up to the end of the last one):
    // what an H200 answers (driver 580, 24 bytes for a kernel's 20).
    if (haveSize && size > a.paramBytes) return call(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    for (uint32_t offset : a.paramOffsets) packed.push_back(const_cast<uint8_t *>(buffer + offset));
    params = packed.data();
  }
  return call(rt.launch(name, f, grid, block, params, shared, stream, cooperative, cluster));
}

} // namespace

void resetDriverModules(Runtime &rt) {
  // A context reset destroys its modules: their handles are invalid from
  // now on, and their kernels are decoded again by nothing.
  for (auto &m : modules()) {
    for (auto &[name, k] : m->functions) {
      k->decoded.reset();
      rt.kernelHandles.erase(k.get());
    }
    m->unloaded = true;
  }
}

} // namespace cudart

using namespace cudart;

// ---- Modules -------------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                        CUjit_option *options, void **values) {
  DriverCall call("cuModuleLoadDataEx");
  if (call.status()) return call.status();
  JitLogs logs;
  if (!readJitOptions(numOptions, options, values, logs)) return call(CUDA_ERROR_INVALID_VALUE);
  return loadModule(call, image, logs, false, module);
}

CUDA_DRIVER CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  DriverCall call("cuModuleLoadData");
  if (call.status()) return call.status();
  return loadModule(call, image, {}, false, module);
}

CUDA_DRIVER CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatbin) {
  DriverCall call("cuModuleLoadFatBinary");
  if (call.status()) return call.status();
  return loadModule(call, fatbin, {}, false, module);
}

CUDA_DRIVER CUresult cuModuleLoad(CUmodule *module, const char *path) {
  DriverCall call("cuModuleLoad");
  if (call.status()) return call.status();
  if (!path) return call(CUDA_ERROR_INVALID_VALUE);
  std::string bytes;
  if (!readFile(path, bytes)) return call(CUDA_ERROR_FILE_NOT_FOUND);
  return loadModule(call, bytes.data(), {}, false, module);
}

CUDA_DRIVER CUresult cuModuleUnload(CUmodule module) {
  DriverCall call("cuModuleUnload", DriverCall::Context, false);
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveModule(module);
  if (!m || m->library) return call(CUDA_ERROR_INVALID_HANDLE);
  for (auto &[name, k] : m->functions) call.rt().kernelHandles.erase(k.get());
  m->unloaded = true;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  DriverCall call("cuModuleGetFunction");
  if (call.status()) return call.status();
  if (!function) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveModule(module);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  KernelInfo *k = nullptr;
  if (CUresult r = moduleFunction(call, m, name, k)) return r;
  *function = reinterpret_cast<CUfunction>(k);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                                          const char *name) {
  DriverCall call("cuModuleGetGlobal_v2");
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveModule(module);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  return moduleGlobal(call, m, name, dptr, bytes);
}

CUDA_DRIVER CUresult cuModuleGetLoadingMode(int *mode) {
  DriverCall call("cuModuleGetLoadingMode", DriverCall::Init);
  if (call.status()) return call.status();
  if (!mode) return call(CUDA_ERROR_INVALID_VALUE);
  *mode = 1; // CU_MODULE_EAGER_LOADING: modules are parsed whole at load
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule module) {
  DriverCall call("cuModuleGetFunctionCount");
  if (call.status()) return call.status();
  if (!count) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveModule(module);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  *count = 0;
  for (const ptx::Function &f : m->image.module->functions) *count += f.isKernel && f.hasBody;
  return CUDA_SUCCESS;
}

// ---- Libraries (context-independent modules) -----------------------------------------------------

CUDA_DRIVER CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                       void **jitValues, unsigned int numJitOptions, void *, void **,
                                       unsigned int) {
  DriverCall call("cuLibraryLoadData", DriverCall::Init);
  if (call.status()) return call.status();
  JitLogs logs;
  if (!readJitOptions(numJitOptions, jitOptions, jitValues, logs)) return call(CUDA_ERROR_INVALID_VALUE);
  return loadModule(call, code, logs, true, reinterpret_cast<CUmodule *>(library));
}

CUDA_DRIVER CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *path, CUjit_option *jitOptions,
                                           void **jitValues, unsigned int numJitOptions, void *, void **,
                                           unsigned int) {
  DriverCall call("cuLibraryLoadFromFile", DriverCall::Init);
  if (call.status()) return call.status();
  JitLogs logs;
  if (!readJitOptions(numJitOptions, jitOptions, jitValues, logs)) return call(CUDA_ERROR_INVALID_VALUE);
  if (!path) return call(CUDA_ERROR_INVALID_VALUE);
  std::string bytes;
  if (!readFile(path, bytes)) return call(CUDA_ERROR_FILE_NOT_FOUND);
  return loadModule(call, bytes.data(), logs, true, reinterpret_cast<CUmodule *>(library));
}

CUDA_DRIVER CUresult cuLibraryUnload(CUlibrary library) {
  DriverCall call("cuLibraryUnload", DriverCall::Init, false);
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveLibrary(library);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  for (auto &[name, k] : m->functions) call.rt().kernelHandles.erase(k.get());
  m->unloaded = true;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name) {
  DriverCall call("cuLibraryGetKernel", DriverCall::Init);
  if (call.status()) return call.status();
  if (!kernel) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveLibrary(library);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  KernelInfo *k = nullptr;
  if (CUresult r = moduleFunction(call, m, name, k)) return r;
  *kernel = reinterpret_cast<CUkernel>(k);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuLibraryGetModule(CUmodule *module, CUlibrary library) {
  DriverCall call("cuLibraryGetModule");
  if (call.status()) return call.status();
  if (!module) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveLibrary(library);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  *module = m;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                        const char *name) {
  DriverCall call("cuLibraryGetGlobal");
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  CUmod_st *m = liveLibrary(library);
  if (!m) return call(CUDA_ERROR_INVALID_HANDLE);
  return moduleGlobal(call, m, name, dptr, bytes);
}

CUDA_DRIVER CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary library) {
  return cuModuleGetFunctionCount(count, reinterpret_cast<CUmodule>(library));
}

CUDA_DRIVER CUresult cuKernelGetFunction(CUfunction *function, CUkernel kernel) {
  DriverCall call("cuKernelGetFunction");
  if (call.status()) return call.status();
  if (!function) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  if (!call.rt().kernelHandles.count(kernel)) return call(CUDA_ERROR_INVALID_HANDLE);
  *function = reinterpret_cast<CUfunction>(kernel); // one handle for both
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuKernelGetName(const char **name, CUkernel kernel) {
  DriverCall call("cuKernelGetName", DriverCall::Init);
  if (call.status()) return call.status();
  if (!name) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  KernelInfo *k = call.rt().kernel(kernel);
  if (!k) return call(CUDA_ERROR_INVALID_HANDLE);
  *name = k->name.c_str();
  return CUDA_SUCCESS;
}

// ---- Functions -----------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction function) {
  DriverCall call("cuFuncGetAttribute");
  if (call.status()) return call.status();
  if (!value) return call(CUDA_ERROR_INVALID_VALUE);
  cudaFuncAttributes a{};
  if (CUresult r = call(cudaFuncGetAttributes(&a, function))) return r;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(a.sharedSizeBytes); break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = static_cast<int>(a.constSizeBytes); break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(a.localSizeBytes); break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a.cacheModeCA; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a.maxDynamicSharedSizeBytes; break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a.preferredShmemCarveout; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *value = a.clusterDimMustBeSet; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *value = a.requiredClusterWidth; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *value = a.requiredClusterHeight; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *value = a.requiredClusterDepth; break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *value = a.nonPortableClusterSizeAllowed; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    *value = a.clusterSchedulingPolicyPreference;
    break;
  default: return call(CUDA_ERROR_INVALID_VALUE);
  }
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  DriverCall call("cuFuncSetAttribute");
  if (call.status()) return call.status();
  // The settable attributes have the runtime's numbers.
  return call(cudaFuncSetAttribute(function, static_cast<cudaFuncAttribute>(attribute), value));
}

CUDA_DRIVER CUresult cuKernelGetAttribute(int *value, CUfunction_attribute attribute, CUkernel kernel,
                                          CUdevice device) {
  if (device != 0) {
    DriverCall call("cuKernelGetAttribute");
    return call(CUDA_ERROR_INVALID_DEVICE);
  }
  return cuFuncGetAttribute(value, attribute, reinterpret_cast<CUfunction>(kernel));
}

CUDA_DRIVER CUresult cuKernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel,
                                          CUdevice device) {
  if (device != 0) {
    DriverCall call("cuKernelSetAttribute");
    return call(CUDA_ERROR_INVALID_DEVICE);
  }
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attribute, value);
}

/// Cache and shared-memory bank preferences change nothing on ptxvm's device: accepted.
CUDA_DRIVER CUresult cuFuncSetCacheConfig(CUfunction function, int) {
  DriverCall call("cuFuncSetCacheConfig");
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  return call.rt().kernel(function) ? CUDA_SUCCESS : call(CUDA_ERROR_INVALID_HANDLE);
}

CUDA_DRIVER CUresult cuFuncGetName(const char **name, CUfunction function) {
  return cuKernelGetName(name, reinterpret_cast<CUkernel>(function));
}

CUDA_DRIVER CUresult cuFuncGetModule(CUmodule *module, CUfunction function) {
  DriverCall call("cuFuncGetModule");
  if (call.status()) return call.status();
  if (!module) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  for (const auto &m : modules())
    if (!m->unloaded)
      for (const auto &[name, k] : m->functions)
        if (reinterpret_cast<CUfunction>(k.get()) == function) {
          *module = m.get();
          return CUDA_SUCCESS;
        }
  return call(CUDA_ERROR_INVALID_HANDLE);
}

// ---- Launches ------------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                    unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                    CUstream stream, void **params, void **extra) {
  return launch("cuLaunchKernel", f, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, extra, false,
                {1, 1, 1});
}

CUDA_DRIVER CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                         unsigned int bx, unsigned int by, unsigned int bz,
                                         unsigned int shared, CUstream stream, void **params, void **extra) {
  return launch("cuLaunchKernel", f, {gx, gy, gz}, {bx, by, bz}, shared, perThreadDefault(stream), params,
                extra, false, {1, 1, 1});
}

CUDA_DRIVER CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                               unsigned int gz, unsigned int bx, unsigned int by,
                                               unsigned int bz, unsigned int shared, CUstream stream,
                                               void **params) {
  return launch("cuLaunchCooperativeKernel", f, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, nullptr,
                true, {1, 1, 1});
}

CUDA_DRIVER CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                                    unsigned int gz, unsigned int bx, unsigned int by,
                                                    unsigned int bz, unsigned int shared, CUstream stream,
                                                    void **params) {
  return launch("cuLaunchCooperativeKernel", f, {gx, gy, gz}, {bx, by, bz}, shared, perThreadDefault(stream),
                params, nullptr, true, {1, 1, 1});
}

CUDA_DRIVER CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
                                      void **extra) {
  if (!config) {
    DriverCall call("cuLaunchKernelEx");
    return call.status() ? call.status() : call(CUDA_ERROR_INVALID_VALUE);
  }
  bool cooperative = false;
  dim3 cluster{1, 1, 1};
  readLaunchAttributes(config->attrs, config->numAttrs, cooperative, cluster);
  return launch("cuLaunchKernelEx", f, {config->gridDimX, config->gridDimY, config->gridDimZ},
                {config->blockDimX, config->blockDimY, config->blockDimZ}, config->sharedMemBytes,
                config->hStream, params, extra, cooperative, cluster);
}

CUDA_DRIVER CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params,
                                           void **extra) {
  if (!config) return cuLaunchKernelEx(config, f, params, extra);
  CUlaunchConfig own = *config;
  own.hStream = perThreadDefault(own.hStream);
  return cuLaunchKernelEx(&own, f, params, extra);
}

// ---- Occupancy -----------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, CUfunction f,
                                                                          int blockSize, size_t dynamicShared,
                                                                          unsigned int flags) {
  DriverCall call("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  if (call.status()) return call.status();
  return call(
      cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, f, blockSize, dynamicShared, flags));
}

CUDA_DRIVER CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int blockSize,
                                                                 size_t dynamicShared) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, f, blockSize, dynamicShared, 0);
}

CUDA_DRIVER CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction f,
                                                               CUoccupancyB2DSize sharedOfBlockSize,
                                                               size_t dynamicShared, int blockSizeLimit,
                                                               unsigned int flags) {
  DriverCall call("cuOccupancyMaxPotentialBlockSize");
  if (call.status()) return call.status();
  if (!minGridSize || !blockSize) return call(CUDA_ERROR_INVALID_VALUE);
  cudaFuncAttributes a{};
  if (CUresult r = call(cudaFuncGetAttributes(&a, f))) return r;
  int limit = a.maxThreadsPerBlock;
  if (blockSizeLimit > 0) limit = std::min(limit, blockSizeLimit);
  int multiprocessors = 0;
  cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0);
  // The block size (a multiple of the warp size, largest first on ties)
  // that keeps the most threads resident on a multiprocessor.
  int bestThreads = -1, bestSize = 0, bestBlocks = 0;
  for (int size = (limit / 32) * 32; size > 0; size -= 32) {
    size_t shared = sharedOfBlockSize ? sharedOfBlockSize(size) : dynamicShared;
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f, size, shared, flags) !=
        cudaSuccess)
      continue;
    if (blocks * size > bestThreads) {
      bestThreads = blocks * size;
      bestSize = size;
      bestBlocks = blocks;
    }
  }
  *blockSize = bestSize;
  *minGridSize = bestBlocks * multiprocessors;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction f,
                                                      CUoccupancyB2DSize sharedOfBlockSize,
                                                      size_t dynamicShared, int blockSizeLimit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, f, sharedOfBlockSize,
                                                   dynamicShared, blockSizeLimit, 0);
}

std::span<const DriverEntry> cudart::moduleEntries() {
  static const DriverEntry entries[] = {
      DRIVER_ENTRY(cuModuleLoadDataEx),
      DRIVER_ENTRY(cuModuleLoadData),
      DRIVER_ENTRY(cuModuleLoadFatBinary),
      DRIVER_ENTRY(cuModuleLoad),
      DRIVER_ENTRY(cuModuleUnload),
      DRIVER_ENTRY(cuModuleGetFunction),
      DRIVER_ENTRY(cuModuleGetGlobal_v2),
      DRIVER_ENTRY(cuModuleGetLoadingMode),
      DRIVER_ENTRY(cuModuleGetFunctionCount),
      DRIVER_ENTRY(cuLibraryLoadData),
      DRIVER_ENTRY(cuLibraryLoadFromFile),
      DRIVER_ENTRY(cuLibraryUnload),
      DRIVER_ENTRY(cuLibraryGetKernel),
      DRIVER_ENTRY(cuLibraryGetModule),
      DRIVER_ENTRY(cuLibraryGetGlobal),
      DRIVER_ENTRY(cuLibraryGetKernelCount),
      DRIVER_ENTRY(cuKernelGetFunction),
      DRIVER_ENTRY(cuKernelGetName),
      DRIVER_ENTRY(cuFuncGetAttribute),
      DRIVER_ENTRY(cuFuncSetAttribute),
      DRIVER_ENTRY(cuKernelGetAttribute),
      DRIVER_ENTRY(cuKernelSetAttribute),
      DRIVER_ENTRY(cuFuncSetCacheConfig),
      DRIVER_ENTRY(cuFuncGetName),
      DRIVER_ENTRY(cuFuncGetModule),
      DRIVER_ENTRY(cuLaunchKernel),
      DRIVER_ENTRY(cuLaunchKernel_ptsz),
      DRIVER_ENTRY(cuLaunchCooperativeKernel),
      DRIVER_ENTRY(cuLaunchCooperativeKernel_ptsz),
      DRIVER_ENTRY(cuLaunchKernelEx),
      DRIVER_ENTRY(cuLaunchKernelEx_ptsz),
      DRIVER_ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags),
      DRIVER_ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor),
      DRIVER_ENTRY(cuOccupancyMaxPotentialBlockSizeWithFlags),
      DRIVER_ENTRY(cuOccupancyMaxPotentialBlockSize),
  };
  return entries;
}
