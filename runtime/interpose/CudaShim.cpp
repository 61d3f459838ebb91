// The CUDA shim (libcuda.so.1 of `ptxvm exec --device gpu`): NVIDIA's runtime, static or
// shared, dlopens libcuda.so.1 and finds this one first. Every function the real driver exports
// is a jump to it (Stubs.S, generated); the module-loading entry points - called directly or
// obtained through cuGetProcAddress, as the CUDA 12/13 runtime obtains them - take the PTX out
// of the image (a fatbin, or PTX text), run the passes of PTXVM_PASSES over it and hand the
// driver that PTX to JIT-compile instead of the image. A module without PTX, or whose PTX the
// passes cannot take, passes through untouched; PTXVM_REPORT says which did what.
//
// Environment: PTXVM_REAL_CUDA_DRIVER (the driver to forward to; required), PTXVM_PASSES,
// PTXVM_PASS_OPTIONS (KEY=VALUE,... for the passes: max-registers=32),
// PTXVM_REPORT (JSON written at exit; "%p" in it becomes the process id).
#include "analysis/Passes.h"
#include "ptx/Parser.h"
#include "ptx/Version.h"
#include "ptx/Writer.h"
#include "regalloc/RegAlloc.h"
#include "runtime/Fatbin.h"
#include "runtime/interpose/KernelTiming.h"

#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

extern "C" void *ptxvm_shim_table[];

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorNotInitialized = 3; // CUDA_ERROR_NOT_INITIALIZED
constexpr CUresult kErrorNotFound = 500;     // CUDA_ERROR_NOT_FOUND
constexpr CUresult kErrorInvalidValue = 1;   // CUDA_ERROR_INVALID_VALUE
constexpr CUresult kErrorFileNotFound = 301; // CUDA_ERROR_FILE_NOT_FOUND

const char *const kForwarded[] = {
#include "StubNames.inc"
};

/// A driver function the shim has no stub target for (the real driver lacks it).
extern "C" CUresult ptxvmShimMissing() { return kErrorNotFound; }

using GetProcAddressV2 = CUresult (*)(const char *, void **, int, uint64_t, int *);
using GetProcAddress = CUresult (*)(const char *, void **, int, uint64_t);
using ModuleLoad = CUresult (*)(void **, const char *);
using ModuleLoadData = CUresult (*)(void **, const void *);
using ModuleLoadDataEx = CUresult (*)(void **, const void *, unsigned, int *, void **);
using LibraryLoadData = CUresult (*)(void **, const void *, int *, void **, unsigned, int *, void **,
                                     unsigned);
using LibraryLoadFromFile = CUresult (*)(void **, const char *, int *, void **, unsigned, int *, void **,
                                         unsigned);
using GetByName = CUresult (*)(void **, void *, const char *); // cuModuleGetFunction, cuLibraryGetKernel
using FuncGetAttribute = CUresult (*)(int *, int, void *);
using KernelGetAttribute = CUresult (*)(int *, int, void *, int);
using Unload = CUresult (*)(void *);
using CtxGetDevice = CUresult (*)(int *);
constexpr int kAttributeLocalBytes = 3, kAttributeRegisters = 4; // CU_FUNC_ATTRIBUTE_*

/// The real driver's entry points the shim calls itself.
struct Real {
  void *handle = nullptr;
  GetProcAddressV2 getProcAddressV2 = nullptr;
  GetProcAddress getProcAddress = nullptr;
  ModuleLoad moduleLoad = nullptr;
  ModuleLoadData moduleLoadData = nullptr, moduleLoadFatBinary = nullptr;
  ModuleLoadDataEx moduleLoadDataEx = nullptr;
  LibraryLoadData libraryLoadData = nullptr;
  LibraryLoadFromFile libraryLoadFromFile = nullptr;
  // For the report's registers and local memory of each kernel.
  GetByName moduleGetFunction = nullptr, libraryGetKernel = nullptr;
  FuncGetAttribute funcGetAttribute = nullptr;
  KernelGetAttribute kernelGetAttribute = nullptr;
  Unload moduleUnload = nullptr, libraryUnload = nullptr;
  CtxGetDevice ctxGetDevice = nullptr;
};

/// What happened to one module, for the report.
struct ModuleRecord {
  std::string entry;     // the entry point that loaded it
  std::string outcome;   // "rewritten", "no PTX (passed through)", "passes failed (passed through)"
  uint64_t ptxBytes = 0; // of the PTX handed to the driver
  std::vector<std::string> kernels;
  boost::json::array kernelResources; // per kernel: registers and local bytes, before and after
  boost::json::array passes;
  std::string diagnostics;
  double loadSeconds = 0; // the driver's load (JIT) time
  CUresult result = kSuccess;
};

struct Shim {
  Real real;
  std::string passes, passOptions, reportPath, error;
  std::mutex mutex;
  std::deque<std::string> images; // rewritten PTX, alive for the process (lazy loading may read it later)
  std::vector<ModuleRecord> modules;
};

Shim &shim() {
  static Shim *s = new Shim; // never destroyed: the program may load modules from its exit handlers
  return *s;
}

template <typename F> void resolve(void *handle, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
}

/// The PTX the passes leave for `ptx`, or empty (with `record` saying why).
std::string rewrite(std::string_view ptx, ModuleRecord &record) {
  Shim &s = shim();
  ptx::DiagnosticList diags;
  std::string error;
  regalloc::registerPasses();
  analysis::PassOptions options;
  std::optional<analysis::PassManager> pipeline;
  if (analysis::parsePassOptions(s.passOptions, options, error))
    pipeline = analysis::makePipeline(s.passes, diags, error, options);
  if (!pipeline) {
    record.outcome = "passes failed (passed through)";
    record.diagnostics = "PTXVM_PASSES: " + error;
    return {};
  }
  auto m = ptx::parseModule(std::string(ptx), "module.ptx", diags);
  bool ok = m && !diags.hasErrors();
  if (ok) {
    analysis::AnalysisManager am(*m);
    ok = pipeline->run(*m, am);
  }
  if (m)
    for (size_t i = 0; i < pipeline->passes().size(); ++i) {
      boost::json::object figures;
      for (const analysis::PassStatistic &f : pipeline->passes()[i]->statistics()) figures[f.name] = f.value;
      record.passes.push_back(
          boost::json::object{{"name", std::string(pipeline->passes()[i]->name())},
                              {"seconds", pipeline->seconds().empty() ? 0.0 : pipeline->seconds()[i]},
                              {"statistics", std::move(figures)}});
    }
  if (!ok) {
    record.outcome = "passes failed (passed through)";
    record.diagnostics = diags.renderText();
    return {};
  }
  for (const ptx::Function &f : m->functions)
    if (f.isKernel && f.hasBody) record.kernels.emplace_back(m->str(f.name));
  record.outcome = "rewritten";
  return ptx::writeModule(*m);
}

/// The PTX of a module image: a fatbin container (its newest PTX), or PTX text. Empty for a
/// cubin or anything else.
std::string ptxOf(const void *image) {
  const auto *bytes = static_cast<const uint8_t *>(image);
  uint32_t magic = 0;
  std::memcpy(&magic, bytes, 4);
  if (magic == 0xBA55ED50u) {
    // The container's header says its size: 16-byte header, 8-byte payload size at offset 8.
    uint64_t payload = 0;
    uint16_t header = 0;
    std::memcpy(&header, bytes + 6, 2);
    std::memcpy(&payload, bytes + 8, 8);
    if (header != 16 || payload > runtime::kFatbinMaxPayloadBytes) return {};
    runtime::Fatbin fatbin;
    ptx::DiagnosticList diags;
    if (!runtime::parseFatbin({bytes, 16 + payload}, fatbin, diags)) return {};
    const runtime::FatbinEntry *e = runtime::choosePtx(fatbin);
    return e ? std::string(e->text()) : std::string();
  }
  if (magic == 0x466243B1u) {
    // What __cudaRegisterFatBinary receives, which NVIDIA's runtime hands cuLibraryLoadData: a
    // wrapper pointing at the container. A device-linked (-rdc) wrapper's PTX is in several
    // translation units' containers that would need linking: those pass through.
    runtime::Fatbin fatbin;
    ptx::DiagnosticList diags;
    if (!runtime::parseFatbinWrapper(image, fatbin, diags)) return {};
    std::vector<const runtime::FatbinEntry *> units = runtime::choosePtxPerContainer(fatbin);
    if (units.size() > 1) return {};
    const runtime::FatbinEntry *e = runtime::choosePtx(fatbin);
    return e ? std::string(e->text()) : std::string();
  }
  if (bytes[0] == 0x7F && bytes[1] == 'E') return {}; // a cubin
  const char *text = static_cast<const char *>(image);
  // PTX text: NUL-terminated, with a .version directive near the start.
  std::string_view head(text, strnlen(text, 1 << 16));
  return head.find(".version") != std::string_view::npos ? std::string(text) : std::string();
}

void writeReport() {
  Shim &s = shim();
  if (s.reportPath.empty()) return;
  std::lock_guard lock(s.mutex);
  boost::json::array modules;
  for (const ModuleRecord &r : s.modules) {
    boost::json::array kernels;
    for (const std::string &k : r.kernels) kernels.emplace_back(k);
    modules.push_back(boost::json::object{{"entry", r.entry},
                                          {"outcome", r.outcome},
                                          {"ptx_bytes", r.ptxBytes},
                                          {"kernels", std::move(kernels)},
                                          {"resources", r.kernelResources},
                                          {"passes", r.passes},
                                          {"load_seconds", r.loadSeconds},
                                          {"result", r.result}});
  }
  boost::json::object report{{"ptxvm", ptx::buildInfoJson()},
                             {"device", "gpu"},
                             {"passes", s.passes},
                             {"modules", std::move(modules)},
                             {"launches", ptxvm::shim::timedLaunches()}};
  // "%p" is the process id: a program that forks (one child per case) gets a report per process.
  std::string path = s.reportPath;
  if (size_t at = path.find("%p"); at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
  std::ofstream out(path, std::ios::binary);
  out << boost::json::serialize(report) << "\n";
  if (!out) std::fprintf(stderr, "ptxvm: cannot write the report to '%s'\n", path.c_str());
}

/// A kernel's registers and local memory per thread as the driver compiled them, from a module
/// or a library; -1 where the driver does not say.
std::pair<int, int> resourcesOf(bool library, void *handle, const std::string &name) {
  const Real &r = shim().real;
  int registers = -1, local = -1;
  void *fn = nullptr;
  if (!library && r.moduleGetFunction && r.funcGetAttribute &&
      r.moduleGetFunction(&fn, handle, name.c_str()) == kSuccess) {
    r.funcGetAttribute(&registers, kAttributeRegisters, fn);
    r.funcGetAttribute(&local, kAttributeLocalBytes, fn);
  } else if (library && r.libraryGetKernel && r.kernelGetAttribute &&
             r.libraryGetKernel(&fn, handle, name.c_str()) == kSuccess) {
    int device = 0;
    if (r.ctxGetDevice && r.ctxGetDevice(&device) != kSuccess) device = 0;
    r.kernelGetAttribute(&registers, kAttributeRegisters, fn, device);
    r.kernelGetAttribute(&local, kAttributeLocalBytes, fn, device);
  }
  return {registers, local};
}

/// Loads `image` through `load` (which fills its handle argument), first rewriting its PTX:
/// the driver gets the rewritten PTX, or the image as it was. With a report, each kernel's
/// registers and local memory are read from the rewritten module and from the original loaded
/// once more (and unloaded): what the passes changed in the driver's code.
template <typename Load>
CUresult loadRewritten(const char *entry, const void *image, void **handle, bool library, Load load) {
  Shim &s = shim();
  ModuleRecord record;
  record.entry = entry;
  const void *what = image;
  if (image && !s.passes.empty()) {
    std::string ptx = ptxOf(image);
    if (ptx.empty()) {
      record.outcome = "no PTX (passed through)";
    } else {
      std::string out = rewrite(ptx, record);
      if (!out.empty()) {
        std::lock_guard lock(s.mutex);
        s.images.push_back(std::move(out));
        what = s.images.back().c_str();
        record.ptxBytes = s.images.back().size();
      }
    }
  } else {
    record.outcome = "passed through (no passes)";
  }
  const auto start = std::chrono::steady_clock::now();
  record.result = load(what, handle);
  record.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (record.result == kSuccess && handle && what != image && !s.reportPath.empty()) {
    void *original = nullptr;
    const Unload unload = library ? s.real.libraryUnload : s.real.moduleUnload;
    const bool before = load(image, &original) == kSuccess;
    for (const std::string &k : record.kernels) {
      auto [registersAfter, localAfter] = resourcesOf(library, *handle, k);
      auto [registersBefore, localBefore] = before ? resourcesOf(library, original, k) : std::pair{-1, -1};
      record.kernelResources.push_back(boost::json::object{{"kernel", k},
                                                           {"registers", {registersBefore, registersAfter}},
                                                           {"local_bytes", {localBefore, localAfter}}});
    }
    if (before && unload) unload(original);
  }
  if (!record.diagnostics.empty()) std::fprintf(stderr, "ptxvm: %s: %s", entry, record.diagnostics.c_str());
  const CUresult result = record.result;
  {
    std::lock_guard lock(s.mutex);
    s.modules.push_back(std::move(record));
  }
  // Written after every load, not only at exit: programs that end with _exit (a forked child
  // per case) or a crash still leave it.
  writeReport();
  return result;
}

/// The bytes of the module file `path`, NUL-terminated (PTX text is read as a string); the
/// driver's error for a missing path or file.
CUresult readModuleFile(const char *path, std::string &bytes) {
  if (!path) return kErrorInvalidValue;
  std::ifstream in(path, std::ios::binary);
  if (!in) return kErrorFileNotFound;
  bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');
  return kSuccess;
}

__attribute__((constructor)) void loadRealDriver() {
  Shim &s = shim();
  if (const char *p = std::getenv("PTXVM_PASSES")) s.passes = p;
  if (const char *p = std::getenv("PTXVM_PASS_OPTIONS")) s.passOptions = p;
  if (const char *r = std::getenv("PTXVM_REPORT")) s.reportPath = r;
  const char *path = std::getenv("PTXVM_REAL_CUDA_DRIVER");
  void *handle = path && *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!handle) {
    std::fprintf(stderr, "ptxvm: the CUDA shim cannot load the real driver '%s'%s%s\n", path ? path : "",
                 path ? ": " : " (PTXVM_REAL_CUDA_DRIVER is not set)", path ? dlerror() : "");
  }
  Real &r = s.real;
  r.handle = handle;
  ptxvm::shim::initKernelTiming(handle);
  size_t i = 0;
  for (const char *name : kForwarded) {
    void *fn = handle ? dlsym(handle, name) : nullptr;
    ptxvm_shim_table[i++] = fn ? fn : reinterpret_cast<void *>(&ptxvmShimMissing);
  }
  if (!handle) return;
  resolve(handle, "cuGetProcAddress_v2", r.getProcAddressV2);
  resolve(handle, "cuGetProcAddress", r.getProcAddress);
  resolve(handle, "cuModuleLoad", r.moduleLoad);
  resolve(handle, "cuModuleLoadData", r.moduleLoadData);
  resolve(handle, "cuModuleLoadFatBinary", r.moduleLoadFatBinary);
  resolve(handle, "cuModuleLoadDataEx", r.moduleLoadDataEx);
  resolve(handle, "cuLibraryLoadData", r.libraryLoadData);
  resolve(handle, "cuLibraryLoadFromFile", r.libraryLoadFromFile);
  resolve(handle, "cuModuleGetFunction", r.moduleGetFunction);
  resolve(handle, "cuLibraryGetKernel", r.libraryGetKernel);
  resolve(handle, "cuFuncGetAttribute", r.funcGetAttribute);
  resolve(handle, "cuKernelGetAttribute", r.kernelGetAttribute);
  resolve(handle, "cuModuleUnload", r.moduleUnload);
  resolve(handle, "cuLibraryUnload", r.libraryUnload);
  resolve(handle, "cuCtxGetDevice", r.ctxGetDevice);
  std::atexit(writeReport);
}

void *interposed(const char *symbol);

/// cuGetProcAddress asked for itself: the shim's version of whichever the
/// real driver returned (the legacy four-argument one or _v2).
void *ownGetProcAddress(void *real);

} // namespace

extern "C" {

__attribute__((visibility("default"))) CUresult cuModuleLoadData(void **module, const void *image) {
  Real &r = shim().real;
  if (!r.moduleLoadData) return kErrorNotInitialized;
  return loadRewritten("cuModuleLoadData", image, module, false,
                       [&](const void *i, void **m) { return r.moduleLoadData(m, i); });
}

__attribute__((visibility("default"))) CUresult cuModuleLoadFatBinary(void **module, const void *image) {
  Real &r = shim().real;
  if (!r.moduleLoadFatBinary) return kErrorNotInitialized;
  // The driver takes PTX text here too; a rewritten module goes through cuModuleLoadData.
  return loadRewritten("cuModuleLoadFatBinary", image, module, false, [&](const void *i, void **m) {
    return i == image || !r.moduleLoadData ? r.moduleLoadFatBinary(m, i) : r.moduleLoadData(m, i);
  });
}

__attribute__((visibility("default"))) CUresult
cuModuleLoadDataEx(void **module, const void *image, unsigned numOptions, int *options, void **values) {
  Real &r = shim().real;
  if (!r.moduleLoadDataEx) return kErrorNotInitialized;
  return loadRewritten("cuModuleLoadDataEx", image, module, false, [&](const void *i, void **m) {
    return r.moduleLoadDataEx(m, i, numOptions, options, values);
  });
}

__attribute__((visibility("default"))) CUresult cuModuleLoad(void **module, const char *path) {
  Real &r = shim().real;
  if (!r.moduleLoad || !r.moduleLoadData) return kErrorNotInitialized;
  std::string bytes;
  if (CUresult e = readModuleFile(path, bytes)) return e;
  return loadRewritten("cuModuleLoad", bytes.data(), module, false, [&](const void *i, void **m) {
    return i == bytes.data() ? r.moduleLoad(m, path) : r.moduleLoadData(m, i);
  });
}

__attribute__((visibility("default"))) CUresult
cuLibraryLoadData(void **library, const void *code, int *jitOptions, void **jitValues, unsigned numJitOptions,
                  int *libraryOptions, void **libraryValues, unsigned numLibraryOptions) {
  Real &r = shim().real;
  if (!r.libraryLoadData) return kErrorNotInitialized;
  return loadRewritten("cuLibraryLoadData", code, library, true, [&](const void *i, void **l) {
    return r.libraryLoadData(l, i, jitOptions, jitValues, numJitOptions, libraryOptions, libraryValues,
                             numLibraryOptions);
  });
}

__attribute__((visibility("default"))) CUresult
cuLibraryLoadFromFile(void **library, const char *path, int *jitOptions, void **jitValues,
                      unsigned numJitOptions, int *libraryOptions, void **libraryValues,
                      unsigned numLibraryOptions) {
  Real &r = shim().real;
  if (!r.libraryLoadFromFile || !r.libraryLoadData) return kErrorNotInitialized;
  std::string bytes;
  if (CUresult e = readModuleFile(path, bytes)) return e;
  return loadRewritten("cuLibraryLoadFromFile", bytes.data(), library, true, [&](const void *i, void **l) {
    return i == bytes.data() ? r.libraryLoadFromFile(l, path, jitOptions, jitValues, numJitOptions,
                                                     libraryOptions, libraryValues, numLibraryOptions)
                             : r.libraryLoadData(l, i, jitOptions, jitValues, numJitOptions, libraryOptions,
                                                 libraryValues, numLibraryOptions);
  });
}

__attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, uint64_t flags, int *status) {
  Real &r = shim().real;
  if (!r.getProcAddressV2) return kErrorNotInitialized;
  CUresult result = r.getProcAddressV2(symbol, pfn, cudaVersion, flags, status);
  if (result == kSuccess && pfn && *pfn) {
    if (void *own = interposed(symbol))
      *pfn = own;
    else if (void *own = ownGetProcAddress(*pfn))
      *pfn = own;
    else if (void *own = ptxvm::shim::timedLaunchFor(symbol, *pfn, flags))
      *pfn = own;
  }
  return result;
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress(const char *symbol, void **pfn,
                                                                 int cudaVersion, uint64_t flags) {
  Real &r = shim().real;
  if (!r.getProcAddress) return kErrorNotInitialized;
  CUresult result = r.getProcAddress(symbol, pfn, cudaVersion, flags);
  if (result == kSuccess && pfn && *pfn) {
    if (void *own = interposed(symbol))
      *pfn = own;
    else if (void *own = ownGetProcAddress(*pfn))
      *pfn = own;
    else if (void *own = ptxvm::shim::timedLaunchFor(symbol, *pfn, flags))
      *pfn = own;
  }
  return result;
}

} // extern "C"

namespace {

/// The shim's own function for a driver symbol the runtime asks cuGetProcAddress for.
void *interposed(const char *symbol) {
  if (!symbol) return nullptr;
  const std::string_view s(symbol);
  if (s == "cuModuleLoadData") return reinterpret_cast<void *>(&cuModuleLoadData);
  if (s == "cuModuleLoadDataEx") return reinterpret_cast<void *>(&cuModuleLoadDataEx);
  if (s == "cuModuleLoadFatBinary") return reinterpret_cast<void *>(&cuModuleLoadFatBinary);
  if (s == "cuModuleLoad") return reinterpret_cast<void *>(&cuModuleLoad);
  if (s == "cuLibraryLoadData") return reinterpret_cast<void *>(&cuLibraryLoadData);
  if (s == "cuLibraryLoadFromFile") return reinterpret_cast<void *>(&cuLibraryLoadFromFile);
  return nullptr;
}

void *ownGetProcAddress(void *real) {
  const Real &r = shim().real;
  if (real == reinterpret_cast<void *>(r.getProcAddressV2))
    return reinterpret_cast<void *>(&cuGetProcAddress_v2);
  if (real == reinterpret_cast<void *>(r.getProcAddress)) return reinterpret_cast<void *>(&cuGetProcAddress);
  return nullptr;
}

} // namespace
