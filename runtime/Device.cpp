// The device registry and the launch-error rules every device shares.
#include "runtime/Device.h"

#include "runtime/CpuDevice.h"
#include "runtime/EmulatorDevice.h"
#include "runtime/GpuDevice.h"

#include <cstdlib>

namespace runtime {

std::string_view cudaErrorFor(ptx::DiagKind kind) {
  using K = ptx::DiagKind;
  switch (kind) {
  case K::OutOfBounds: return "cudaErrorIllegalAddress";
  case K::MisalignedAccess: return "cudaErrorMisalignedAddress";
  case K::BarrierCountMismatch:
  case K::BarrierMixedOps: return "cudaErrorIllegalInstruction"; // measured: tests/gpu bt14
  case K::BarrierDeadlock:
  case K::InstructionLimit:
  case K::Timeout: return "cudaErrorLaunchTimeout";
  case K::IllegalInstruction: return "cudaErrorIllegalInstruction";
  case K::ResourceLimit: return "cudaErrorLaunchOutOfResources";
  case K::Unsupported: return "cudaErrorNotSupported";
  default: return "cudaErrorLaunchFailure";
  }
}

std::string launchError(const ptx::DiagnosticList &diags) {
  for (const ptx::Diagnostic &d : diags.all()) {
    // Races are findings of a checker: the kernel itself ran on.
    if (d.severity != ptx::Severity::Error || d.kind == ptx::DiagKind::SharedRace ||
        d.kind == ptx::DiagKind::GlobalRace)
      continue;
    for (const auto &[key, value] : d.fields)
      if (key == "cuda_error") return value;
    return std::string(cudaErrorFor(d.kind));
  }
  return "cudaErrorLaunchFailure";
}

std::vector<std::string_view> deviceNames() {
#if PTXVM_CPU_DEVICE
  return {"emulator", "cpu", "gpu"};
#else
  return {"emulator", "gpu"};
#endif
}

bool deviceBuiltIn(std::string_view name, std::string &error) {
  std::string builtIn;
  for (std::string_view n : deviceNames()) {
    if (n == name) return true;
    builtIn += (builtIn.empty() ? "" : ", ") + std::string(n);
  }
  if (name == "cpu")
    error = "device '" + std::string(name) + "' is not built into this ptxvm (built in: " + builtIn + ")";
  else
    error = "unknown device '" + std::string(name) + "' (built in: " + builtIn + ")";
  return false;
}

std::unique_ptr<Device> createDevice(std::string_view name, std::string &error) {
  if (name.empty()) name = "emulator";
  if (!deviceBuiltIn(name, error)) return nullptr;
  if (name == "gpu") {
    // PTXVM_CUDA_DRIVER names another driver library (tests use a fake one).
    const char *library = std::getenv("PTXVM_CUDA_DRIVER");
    return GpuDevice::open(error, library && *library ? library : "libcuda.so.1");
  }
#if PTXVM_CPU_DEVICE
  if (name == "cpu") return makeCpuDevice();
#endif
  return std::make_unique<EmulatorDevice>();
}

} // namespace runtime
