// cuda_driver.h — the subset of the CUDA driver API that gpu_record uses, declared by hand (no
// CUDA headers needed) and loaded at run time with dlopen("libcuda.so.1"). Struct layouts and
// enum values follow cuda.h of CUDA 12/13 (the v2 entry points).
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace gpurecord {

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUarray_st *CUarray;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;

enum { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76 };
enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

// cuLaunchKernelEx's configuration (CUlaunchConfig, CUlaunchAttribute); only the
// cluster-dimension attribute is used.
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute is 8 + 64 bytes");

// CUDA arrays, texture and surface objects (CUDA_ARRAY3D_DESCRIPTOR, CUDA_MEMCPY2D,
// CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC).
enum { CU_AD_FORMAT_UNSIGNED_INT32 = 0x03, CU_AD_FORMAT_SIGNED_INT32 = 0x0a, CU_AD_FORMAT_FLOAT = 0x20 };
enum { CUDA_ARRAY3D_SURFACE_LDST = 0x02 };
enum { CU_MEMORYTYPE_HOST = 0x01, CU_MEMORYTYPE_ARRAY = 0x03 };
enum { CU_RESOURCE_TYPE_ARRAY = 0x00, CU_RESOURCE_TYPE_LINEAR = 0x02 };
enum { CU_TR_ADDRESS_MODE_CLAMP = 1, CU_TR_FILTER_MODE_POINT = 0 };

struct CUDA_ARRAY3D_DESCRIPTOR {
  size_t Width, Height, Depth;
  int Format;
  unsigned NumChannels;
  unsigned Flags;
};
struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};
struct CUDA_RESOURCE_DESC {
  int resType;
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t sizeInBytes;
    } linear;
    int reserved[32];
  } res;
  unsigned flags;
};
struct CUDA_TEXTURE_DESC {
  int addressMode[3];
  int filterMode;
  unsigned flags;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};
static_assert(sizeof(CUDA_MEMCPY2D) == 128, "CUDA_MEMCPY2D layout");
static_assert(sizeof(CUDA_RESOURCE_DESC) == 144, "CUDA_RESOURCE_DESC layout");
static_assert(sizeof(CUDA_TEXTURE_DESC) == 104, "CUDA_TEXTURE_DESC layout");

struct Driver {
  void *lib = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuModuleUnload)(CUmodule);
  // Optional: looked up, but only a case that needs one fails without it.
  CUresult (*cuLaunchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, CUstream, void **);
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
  CUresult (*cuArray3DCreate_v2)(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *);
  CUresult (*cuArrayDestroy)(CUarray);
  CUresult (*cuMemcpy2D_v2)(const CUDA_MEMCPY2D *);
  CUresult (*cuTexObjectCreate)(CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *,
                                const void *);
  CUresult (*cuSurfObjectCreate)(CUsurfObject *, const CUDA_RESOURCE_DESC *);
};

inline Driver drv;

/// Loads libcuda.so.1 and its entry points into `drv`; false with `err` set when the library
/// or a required entry point is missing.
inline bool loadDriver(std::string &err) {
  drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!drv.lib) {
    const char *e = dlerror();
    err = std::string("cannot load the CUDA driver library libcuda.so.1 (") + (e ? e : "?") +
          "): this needs a machine with an NVIDIA GPU and its driver installed";
    return false;
  }
  bool ok = true;
  auto sym = [&](auto &fn, const char *name, bool required = true) {
    void *p = dlsym(drv.lib, name);
    if (!p && required) {
      err += std::string(err.empty() ? "" : ", ") + name;
      ok = false;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  sym(drv.cuInit, "cuInit");
  sym(drv.cuDriverGetVersion, "cuDriverGetVersion");
  sym(drv.cuDeviceGet, "cuDeviceGet");
  sym(drv.cuDeviceGetName, "cuDeviceGetName");
  sym(drv.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  sym(drv.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  sym(drv.cuCtxSetCurrent, "cuCtxSetCurrent");
  sym(drv.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  sym(drv.cuModuleGetFunction, "cuModuleGetFunction");
  sym(drv.cuMemAlloc_v2, "cuMemAlloc_v2");
  sym(drv.cuMemFree_v2, "cuMemFree_v2");
  sym(drv.cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2");
  sym(drv.cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2");
  sym(drv.cuLaunchKernel, "cuLaunchKernel");
  sym(drv.cuCtxSynchronize, "cuCtxSynchronize");
  sym(drv.cuGetErrorName, "cuGetErrorName");
  sym(drv.cuModuleUnload, "cuModuleUnload");
  sym(drv.cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", false);
  sym(drv.cuLaunchKernelEx, "cuLaunchKernelEx", false);
  sym(drv.cuArray3DCreate_v2, "cuArray3DCreate_v2", false);
  sym(drv.cuArrayDestroy, "cuArrayDestroy", false);
  sym(drv.cuMemcpy2D_v2, "cuMemcpy2D_v2", false);
  sym(drv.cuTexObjectCreate, "cuTexObjectCreate", false);
  sym(drv.cuSurfObjectCreate, "cuSurfObjectCreate", false);
  if (!ok) err = "libcuda.so.1 lacks: " + err;
  return ok;
}

inline std::string errName(CUresult r) {
  const char *n = nullptr;
  if (drv.cuGetErrorName && drv.cuGetErrorName(r, &n) == 0 && n) return n;
  return "CUDA_ERROR_" + std::to_string(r);
}

} // namespace gpurecord
