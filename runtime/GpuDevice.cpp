// The GPU device: runtime/Device.h over NVIDIA's driver.
#include "runtime/GpuDevice.h"

#include "ptx/Layout.h"
#include "ptx/Writer.h"

#include <cctype>
#include <chrono>

namespace runtime {

using namespace cuda;

std::unique_ptr<GpuDevice> GpuDevice::open(std::string &error, const char *driverLibrary) {
  std::unique_ptr<GpuDevice> gpu(new GpuDevice);
  Driver &d = gpu->driver_;
  if (!d.load(driverLibrary, error)) return nullptr;
  int count = 0;
  if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    error = "the CUDA driver did not start (" + d.errorName(r) + ")";
    return nullptr;
  }
  if (d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    error = "the CUDA driver sees no GPU";
    return nullptr;
  }
  if (CUresult r = d.cuDeviceGet(&gpu->device_, 0); r != CUDA_SUCCESS) {
    error = "cannot open GPU 0 (" + d.errorName(r) + ")";
    return nullptr;
  }
  if (CUresult r = d.cuDevicePrimaryCtxRetain(&gpu->context_, gpu->device_); r != CUDA_SUCCESS) {
    error = "cannot create a context on GPU 0 (" + d.errorName(r) + ")";
    return nullptr;
  }
  d.cuCtxSetCurrent(gpu->context_);
  char name[256] = {};
  int major = 0, minor = 0;
  d.cuDeviceGetName(name, sizeof name - 1, gpu->device_);
  d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpu->device_);
  d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpu->device_);
  d.cuDriverGetVersion(&gpu->driverVersion_);
  gpu->gpuName_ = name;
  gpu->computeCapability_ = major * 10 + minor;
  gpu->description_ = gpu->gpuName_ + " (sm_" + std::to_string(gpu->computeCapability_) + ")";
  return gpu;
}

GpuDevice::~GpuDevice() {
  if (!context_) return;
  driver_.cuCtxSetCurrent(context_);
  for (auto &[m, module] : modules_) driver_.cuModuleUnload(module);
  for (auto &[base, a] : allocations_)
    if (a.live && !a.hostMapped) driver_.cuMemFree(base);
  driver_.cuDevicePrimaryCtxRelease(device_);
}

// ---- Memory -----------------------------------------------------------------------------------

uint64_t GpuDevice::allocate(uint64_t bytes, uint64_t) {
  bindContext();
  // The driver aligns every allocation to at least 256 bytes.
  std::lock_guard lock(mutex_);
  CUdeviceptr p = 0;
  if (bytes == 0 || driver_.cuMemAlloc(&p, bytes) != CUDA_SUCCESS) return 0;
  allocations_.insert_or_assign(p, AllocationInfo{p, bytes, true, false});
  return p;
}

bool GpuDevice::free(uint64_t address) {
  bindContext();
  std::lock_guard lock(mutex_);
  auto it = allocations_.find(address);
  if (it == allocations_.end() || !it->second.live || it->second.hostMapped) return false;
  // The driver waits for work that may still use the allocation.
  if (driver_.cuMemFree(address) != CUDA_SUCCESS) return false;
  it->second.live = false;
  return true;
}

bool GpuDevice::mapHost(void *host, uint64_t bytes) {
  bindContext();
  std::lock_guard lock(mutex_);
  // With unified addressing the device reaches registered memory at its host address.
  if (!host || !bytes ||
      driver_.cuMemHostRegister(host, bytes, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP) !=
          CUDA_SUCCESS)
    return false;
  auto base = reinterpret_cast<uint64_t>(host);
  allocations_.insert_or_assign(base, AllocationInfo{base, bytes, true, true});
  return true;
}

bool GpuDevice::unmapHost(uint64_t address) {
  bindContext();
  std::lock_guard lock(mutex_);
  auto it = allocations_.find(address);
  if (it == allocations_.end() || !it->second.live || !it->second.hostMapped) return false;
  driver_.cuMemHostUnregister(reinterpret_cast<void *>(address));
  allocations_.erase(it);
  return true;
}

std::optional<AllocationInfo> GpuDevice::allocationAt(uint64_t address) const {
  std::lock_guard lock(mutex_);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return std::nullopt;
  --it;
  if (address - it->second.base >= it->second.size) return std::nullopt;
  return it->second;
}

bool GpuDevice::inLive(uint64_t address, uint64_t size) const {
  std::optional<AllocationInfo> a = allocationAt(address);
  return a && a->live && size <= a->base + a->size - address;
}

uint64_t GpuDevice::liveBytes() const {
  std::lock_guard lock(mutex_);
  uint64_t bytes = 0;
  for (const auto &[base, a] : allocations_)
    if (a.live && !a.hostMapped) bytes += a.size;
  return bytes;
}

bool GpuDevice::write(uint64_t address, const void *data, uint64_t size) {
  bindContext();
  return inLive(address, size) && (!size || driver_.cuMemcpyHtoD(address, data, size) == CUDA_SUCCESS);
}
bool GpuDevice::read(uint64_t address, void *data, uint64_t size) const {
  bindContext();
  return inLive(address, size) && (!size || driver_.cuMemcpyDtoH(data, address, size) == CUDA_SUCCESS);
}
bool GpuDevice::copy(uint64_t to, uint64_t from, uint64_t size) {
  bindContext();
  return inLive(to, size) && inLive(from, size) &&
         (!size || driver_.cuMemcpyDtoD(to, from, size) == CUDA_SUCCESS);
}
bool GpuDevice::fill(uint64_t address, uint8_t value, uint64_t size) {
  bindContext();
  return inLive(address, size) && (!size || driver_.cuMemsetD8(address, value, size) == CUDA_SUCCESS);
}

// ---- Modules ----------------------------------------------------------------------------------

namespace {

/// The JIT's log with each "line N" of the PTX it was given followed by the line of the file
/// the module came from ("line 12 (k.ptx:9)"), when the text was written from the IR.
std::string mapJitLog(const std::string &log, const std::vector<uint32_t> &sourceLines,
                      const std::string &file) {
  if (sourceLines.empty()) return log;
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = log.find("line ", at)) != std::string::npos;) {
    size_t end = hit + 5;
    while (end < log.size() && std::isdigit(static_cast<unsigned char>(log[end]))) ++end;
    out.append(log, at, end - at);
    at = end;
    if (end == hit + 5) continue;
    const unsigned long n = std::stoul(log.substr(hit + 5, end - hit - 5));
    if (n >= 1 && n <= sourceLines.size() && sourceLines[n - 1])
      out += " (" + file + ":" + std::to_string(sourceLines[n - 1]) + ")";
  }
  out.append(log, at, std::string::npos);
  return out;
}

} // namespace

CUmodule GpuDevice::module(const ptx::Module &m, ptx::DiagnosticList *diags) {
  std::lock_guard lock(mutex_);
  bindContext();
  if (auto it = modules_.find(&m); it != modules_.end()) return it->second;
  // The PTX that ptx/ writes, so that passes run on the module reach the
  // driver; a module whose bodies were never parsed goes as it was read.
  bool whole = true;
  for (const ptx::Function &f : m.functions) whole &= !f.hasBody || f.bodyParsed;
  std::vector<uint32_t> sourceLines; // empty: the text is the source itself
  std::string text = whole || !m.source ? ptx::writeModuleWithLines(m, sourceLines) : *m.source;
  char log[16384] = {};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t{sizeof log - 1})};
  CUmodule module = nullptr;
  if (CUresult r = driver_.cuModuleLoadDataEx(&module, text.c_str(), 2, options, values); r != CUDA_SUCCESS) {
    jitLog_ = log;
    if (diags) {
      ptx::Diagnostic d;
      d.kind = ptx::DiagKind::VerifyError;
      d.message = "the driver's JIT rejected the PTX (" + driver_.errorName(r) + ")" + (*log ? ": " : "") +
                  mapJitLog(log, sourceLines, m.fileName);
      d.loc.file = m.fileName;
      d.fields.emplace_back("cuda_error", runtimeErrorName(r));
      d.fields.emplace_back("driver_error", driver_.errorName(r));
      d.fields.emplace_back("driver_call", "cuModuleLoadDataEx");
      diags->add(std::move(d));
    }
    return nullptr;
  }
  modules_.emplace(&m, module);
  return module;
}

std::optional<Symbol> GpuDevice::symbol(const ptx::Module &m, ptx::Name name) {
  const ptx::Variable *var = nullptr;
  for (const ptx::Variable &v : m.globals)
    if (v.name == name) var = &v;
  if (!var) return std::nullopt;
  std::optional<uint64_t> bytes = ptx::variableBytes(*var);
  if (var->space == ptx::Mod::Shared) return Symbol{Symbol::Space::Shared, 0, bytes.value_or(0)};
  CUmodule module = this->module(m, nullptr);
  CUdeviceptr address = 0;
  size_t size = 0;
  if (!module ||
      driver_.cuModuleGetGlobal(&address, &size, module, std::string(m.str(name)).c_str()) != CUDA_SUCCESS)
    return std::nullopt;
  return Symbol{var->space == ptx::Mod::Const ? Symbol::Space::Const : Symbol::Space::Global, address, size};
}

namespace {

class GpuKernel final : public Kernel {
public:
  GpuKernel(const ptx::Module &m, const ptx::Function &f, std::string name, KernelAttributes a, CUfunction fn)
      : Kernel(m, f, std::move(name), std::move(a)), function_(fn) {}
  CUfunction handle() const { return function_; }

private:
  CUfunction function_;
};

} // namespace

std::unique_ptr<Kernel> GpuDevice::loadKernel(const ptx::Module &m, std::string_view name,
                                              ptx::DiagnosticList &diags) {
  const ptx::Function *kernel = nullptr;
  for (const ptx::Function &f : m.functions)
    if (f.isKernel && m.str(f.name) == name) kernel = &f;
  auto fail = [&](std::string message) -> std::unique_ptr<Kernel> {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::VerifyError;
    d.message = std::move(message);
    d.loc.file = m.fileName;
    diags.add(std::move(d));
    return nullptr;
  };
  if (!kernel) return fail("no kernel named '" + std::string(name) + "'");
  std::optional<ptx::ParamLayout> params = ptx::paramLayout(*kernel);
  if (!params) return fail("the parameters of '" + std::string(name) + "' do not fit a parameter buffer");
  CUmodule module = this->module(m, &diags);
  if (!module) return nullptr;
  CUfunction fn = nullptr;
  if (CUresult r = driver_.cuModuleGetFunction(&fn, module, std::string(name).c_str()); r != CUDA_SUCCESS)
    return fail("the driver has no kernel '" + std::string(name) + "' (" + driver_.errorName(r) + ")");
  KernelAttributes a;
  a.paramBytes = params->bytes;
  a.paramOffsets = params->offsets;
  a.paramSizes = params->sizes;
  int value = 0;
  if (driver_.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) == CUDA_SUCCESS)
    a.staticShared = static_cast<uint32_t>(value);
  if (driver_.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn) == CUDA_SUCCESS)
    a.localBytes = static_cast<uint32_t>(value);
  if (driver_.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, fn) == CUDA_SUCCESS)
    a.constBytes = static_cast<uint32_t>(value);
  if (driver_.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) == CUDA_SUCCESS) a.registers = value;
  return std::make_unique<GpuKernel>(m, *kernel, std::string(name), std::move(a), fn);
}

// ---- Launches ---------------------------------------------------------------------------------

namespace {

/// The diagnostic kind of a fault the driver reports.
ptx::DiagKind faultKind(CUresult r) {
  switch (r) {
  case 700: return ptx::DiagKind::OutOfBounds;      // illegal address
  case 716: return ptx::DiagKind::MisalignedAccess; // misaligned address
  case 702: return ptx::DiagKind::InstructionLimit; // launch timeout
  default: return ptx::DiagKind::Trap;
  }
}

} // namespace

LaunchResult GpuDevice::launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) {
  LaunchResult result;
  result.device = "gpu";
  result.engine.name = "driver";
  const KernelAttributes &a = k.attributes();
  const char *call = "cuLaunchKernel";
  auto note = [&](ptx::Severity severity, ptx::DiagKind kind, std::string message, CUresult r) {
    ptx::Diagnostic d;
    d.kind = kind;
    d.severity = severity;
    d.message = std::move(message);
    d.loc.function = k.name();
    if (r != CUDA_SUCCESS) {
      d.fields.emplace_back("cuda_error", runtimeErrorName(r));
      d.fields.emplace_back("driver_error", driver_.errorName(r));
      d.fields.emplace_back("driver_call", call);
    }
    diags.add(std::move(d));
  };
  if (config.racecheck || config.randomSchedule || config.timeline)
    note(ptx::Severity::Warning, ptx::DiagKind::Unsupported,
         "the gpu device runs on the hardware's scheduler: --racecheck, --schedule=random and --trace need "
         "the emulator",
         CUDA_SUCCESS);
  std::vector<uint8_t> params = config.params;
  params.resize(std::max<size_t>(params.size(), a.paramBytes));
  std::vector<void *> args;
  for (uint32_t offset : a.paramOffsets) args.push_back(params.data() + offset);
  auto fn = static_cast<const GpuKernel &>(k).handle();
  driver_.cuCtxSetCurrent(context_);
  if (config.dynamicShared > 48 * 1024)
    driver_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(config.dynamicShared));

  CUevent start = nullptr, stop = nullptr;
  driver_.cuEventCreate(&start, 0);
  driver_.cuEventCreate(&stop, 0);
  auto wallStart = std::chrono::steady_clock::now();
  driver_.cuEventRecord(start, nullptr);
  CUresult r;
  const Dim3 &g = config.grid, &b = config.block;
  if (config.cluster.count() > 1) {
    call = "cuLaunchKernelEx";
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = {config.cluster.x, config.cluster.y, config.cluster.z};
    CUlaunchConfig lc{g.x, g.y, g.z, b.x, b.y, b.z, config.dynamicShared, nullptr, &attr, 1};
    r = driver_.cuLaunchKernelEx ? driver_.cuLaunchKernelEx(&lc, fn, args.data(), nullptr) : 801;
  } else if (config.cooperative) {
    call = "cuLaunchCooperativeKernel";
    r = driver_.cuLaunchCooperativeKernel
            ? driver_.cuLaunchCooperativeKernel(fn, g.x, g.y, g.z, b.x, b.y, b.z, config.dynamicShared,
                                                nullptr,
                                                args.data())
            : 801; // not supported
  } else {
    r = driver_.cuLaunchKernel(fn, g.x, g.y, g.z, b.x, b.y, b.z, config.dynamicShared, nullptr, args.data(),
                               nullptr);
  }
  if (r == CUDA_SUCCESS) {
    driver_.cuEventRecord(stop, nullptr);
    call = "cuCtxSynchronize";
    r = driver_.cuCtxSynchronize();
  }
  float ms = 0;
  if (r == CUDA_SUCCESS && driver_.cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS)
    result.wallSeconds = ms / 1000.0;
  else
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  driver_.cuEventDestroy(start);
  driver_.cuEventDestroy(stop);
  result.ok = r == CUDA_SUCCESS;
  result.status = result.ok ? "completed" : "failed";
  if (!result.ok) {
    note(ptx::Severity::Error, faultKind(r), "the GPU reported " + driver_.errorName(r), r);
    result.error = runtimeErrorName(r);
  }
  return result;
}

} // namespace runtime
