#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <type_traits>

namespace runtime::cuda {

bool Driver::load(const char *library, std::string &error) {
  handle_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char *e = dlerror();
    error = std::string("cannot load the CUDA driver (") + (e ? e : library) +
            "): the gpu device needs a machine with an NVIDIA GPU and its driver";
    return false;
  }
  // ptxvm's own libcuda.so.1 (the driver API on the emulator) is found first when ptxvm's
  // library directory is on LD_LIBRARY_PATH: it is no GPU.
  if (dlsym(handle_, "ptxvm_driver_entry")) {
    dlclose(handle_);
    handle_ = nullptr;
    error = std::string("the CUDA driver found (") + library +
            ") is ptxvm's own, which runs on the emulator: take ptxvm's library directory out of "
            "LD_LIBRARY_PATH to reach NVIDIA's driver";
    return false;
  }
  std::string missing;
  auto bind = [&](auto &fn, const char *name, bool required = true) {
    void *p = dlsym(handle_, name);
    if (!p && required) missing += (missing.empty() ? "" : ", ") + std::string(name);
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  bind(cuInit, "cuInit");
  bind(cuDriverGetVersion, "cuDriverGetVersion");
  bind(cuDeviceGetCount, "cuDeviceGetCount");
  bind(cuDeviceGet, "cuDeviceGet");
  bind(cuDeviceGetName, "cuDeviceGetName");
  bind(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  bind(cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(cuCtxSynchronize, "cuCtxSynchronize");
  bind(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  bind(cuModuleUnload, "cuModuleUnload");
  bind(cuModuleGetFunction, "cuModuleGetFunction");
  bind(cuModuleGetGlobal, "cuModuleGetGlobal_v2");
  bind(cuFuncGetAttribute, "cuFuncGetAttribute");
  bind(cuFuncSetAttribute, "cuFuncSetAttribute");
  bind(cuMemAlloc, "cuMemAlloc_v2");
  bind(cuMemFree, "cuMemFree_v2");
  bind(cuMemHostRegister, "cuMemHostRegister_v2");
  bind(cuMemHostUnregister, "cuMemHostUnregister");
  bind(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  bind(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  bind(cuMemsetD8, "cuMemsetD8_v2");
  bind(cuLaunchKernel, "cuLaunchKernel");
  bind(cuEventCreate, "cuEventCreate");
  bind(cuEventRecord, "cuEventRecord");
  bind(cuEventSynchronize, "cuEventSynchronize");
  bind(cuEventElapsedTime, "cuEventElapsedTime_v2");
  if (!cuEventElapsedTime) bind(cuEventElapsedTime, "cuEventElapsedTime");
  bind(cuEventDestroy, "cuEventDestroy_v2");
  bind(cuGetErrorName, "cuGetErrorName");
  bind(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", false);
  bind(cuLaunchKernelEx, "cuLaunchKernelEx", false);
  bind(cuArray3DCreate, "cuArray3DCreate_v2", false);
  bind(cuArrayDestroy, "cuArrayDestroy", false);
  bind(cuMemcpy2D, "cuMemcpy2D_v2", false);
  bind(cuTexObjectCreate, "cuTexObjectCreate", false);
  bind(cuTexObjectDestroy, "cuTexObjectDestroy", false);
  bind(cuSurfObjectCreate, "cuSurfObjectCreate", false);
  bind(cuSurfObjectDestroy, "cuSurfObjectDestroy", false);
  if (!missing.empty()) {
    error = std::string(library) + " lacks " + missing;
    return false;
  }
  return true;
}

std::string Driver::errorName(CUresult r) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUDA_ERROR_" + std::to_string(r);
}

std::string runtimeErrorName(CUresult r) {
  switch (r) {
#define CUDART_ERROR(name, value, message)                                                                   \
  case value:                                                                                                \
    return #name;
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR
  default: return "cudaErrorUnknown";
  }
}

} // namespace runtime::cuda
