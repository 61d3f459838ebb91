// Running grids: one launch on the device, what it printed and reported, and then the grids its
// threads launched (dynamic parallelism, DeviceLaunches.h), depth first. The kernels device code
// may launch are decoded on the host when the kernel that names them is, so that a device worker
// thread only looks them up.
#include "runtime/cudart/LaunchReport.h"
#include "runtime/cudart/Runtime.h"
#include "runtime/cudart/Sanitizer.h"

#include <set>

namespace cudart {

void Runtime::prepareDeviceLaunches(const KernelInfo &k) {
  const ptx::Module &m = *k.image->module;
  // Only a program linked with the device runtime launches from device code.
  if (m.names.find("__cuda_syscall_cnpv2LaunchDeviceV2") == ptx::kNoName) return;
  std::set<ptx::Name> kernels;
  for (const ptx::Function &f : m.functions)
    if (f.isKernel) kernels.insert(f.name);
  std::set<std::string> named;
  for (const ptx::Function &f : m.functions)
    for (const ptx::Operand &o : f.operands)
      if (o.kind == ptx::OperandKind::Symbol && kernels.count(o.id)) named.emplace(m.str(o.id));
  for (const std::string &name : named) {
    KernelInfo *child = nullptr;
    {
      std::lock_guard lock(deviceKernelsMutex);
      std::unique_ptr<KernelInfo> &slot = deviceKernels[{k.image, name}];
      if (slot) continue; // decoded already, or being decoded up the recursion
      slot = std::make_unique<KernelInfo>();
      slot->image = k.image;
      slot->name = name;
      child = slot.get();
    }
    decode(*child); // a failure is noted; launching it is then cudaErrorInvalidDeviceFunction
  }
}

std::optional<DeviceKernelShape> Runtime::deviceKernel(uint64_t tag, uint64_t address) {
  const FatbinImage *image = nullptr;
  {
    std::lock_guard lock(deviceKernelsMutex);
    auto it = gridImages.find(tag);
    if (it != gridImages.end()) image = it->second;
  }
  if (!image || !image->module) return std::nullopt;
  std::string name = device->kernelAt(*image->module, address);
  if (name.empty()) return std::nullopt;
  std::lock_guard lock(deviceKernelsMutex);
  auto it = deviceKernels.find({image, name});
  if (it == deviceKernels.end() || !it->second->decoded) return std::nullopt;
  const KernelInfo &k = *it->second;
  return DeviceKernelShape{name, k.decoded->attributes().paramBytes, maxDynamicShared(k)};
}

bool Runtime::runGrid(const KernelInfo &k, runtime::LaunchConfig launch, const std::string &api) {
  launch.tag = nextLaunchTag++;
  ptx::DiagnosticList diags;
  services.beginLaunch(launch.tag);
  deviceLaunches.beginLaunch(launch.tag);
  {
    std::lock_guard lock(deviceKernelsMutex);
    gridImages[launch.tag] = k.image;
  }
  runtime::LaunchResult r;
  {
    std::unique_lock serial(serialLaunches, std::defer_lock);
    if (!device->concurrentLaunches()) serial.lock();
    // The device says which error a GPU would give (a device service may
    // ask for one: a failed assert is cudaErrorAssert).
    r = device->launch(*k.decoded, launch, diags);
  }
  std::vector<ChildLaunch> children = deviceLaunches.endLaunch(launch.tag);
  {
    std::lock_guard lock(deviceKernelsMutex);
    gridImages.erase(launch.tag);
  }
  {
    std::lock_guard lock(reportMutex);
    services.endLaunch(launch.tag, stderr);
    launchReports.push_back(launchJson(k.name, launch.grid, launch.block, r));
    SanitizerContext context{launch.block};
    for (const ptx::Diagnostic &d : diags.all()) {
      std::fputs(renderSanitizer(d, context).c_str(), stderr);
      if (d.severity == ptx::Severity::Error) ++errorsReported;
      reportDiagnostics.add(d);
    }
    if (!r.ok) {
      raiseFault(errorNamed(r.error));
      std::fprintf(stderr, "========= Kernel %s (launched by %s) failed: %s\n", demangle(k.name).c_str(),
                   api.c_str(), r.error.c_str());
    }
  }
  bool ok = r.ok;
  for (const ChildLaunch &c : children) {
    std::vector<uint8_t> params(c.paramBytes);
    bool read = device->read(c.buffer, params.data(), params.size());
    device->free(c.buffer);
    if (!ok || !read || fault() != cudaSuccess) { // behind a fault nothing runs
      deviceLaunches.completed();
      continue;
    }
    const KernelInfo *child = nullptr;
    {
      std::lock_guard lock(deviceKernelsMutex);
      auto it = deviceKernels.find({k.image, c.kernel});
      if (it != deviceKernels.end() && it->second->decoded) child = it->second.get();
    }
    if (!child) { // (GetParameterBufferV2 resolved it: it is there)
      deviceLaunches.completed();
      continue;
    }
    runtime::LaunchConfig childLaunch = launch;
    childLaunch.grid = c.grid;
    childLaunch.block = c.block;
    childLaunch.dynamicShared = c.dynamicShared;
    childLaunch.params = std::move(params);
    childLaunch.cooperative = false;
    childLaunch.cluster = {1, 1, 1};
    ok = runGrid(*child, std::move(childLaunch), "a device-side launch in " + demangle(k.name));
    deviceLaunches.completed();
  }
  return ok;
}

} // namespace cudart
