// The part of NVIDIA's CUDA driver API that ptxvm's GPU device uses, declared
// by hand (no CUDA headers needed) and loaded at run time with
// dlopen("libcuda.so.1"): ptxvm builds and runs on machines without a GPU or
// a driver, and says so when asked for the GPU. Layouts and values follow
// cuda.h of CUDA 12/13 (the _v2 entry points).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUarray = struct CUarray_st *;
using CUdeviceptr = unsigned long long;
using CUtexObject = unsigned long long;
using CUsurfObject = unsigned long long;

constexpr CUresult CUDA_SUCCESS = 0;

enum : int {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};
enum : int {
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 0x01, CU_MEMHOSTREGISTER_DEVICEMAP = 0x02;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

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

// CUDA arrays, texture and surface objects (CUDA_ARRAY3D_DESCRIPTOR,
// CUDA_MEMCPY2D, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC): what a GPU-only
// client (tools/gpu-record) needs beyond the device interface.
enum : int {
  CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
  CU_AD_FORMAT_FLOAT = 0x20
};
enum : unsigned { CUDA_ARRAY3D_SURFACE_LDST = 0x02 };
enum : int { CU_MEMORYTYPE_HOST = 0x01, CU_MEMORYTYPE_ARRAY = 0x03 };
enum : int { CU_RESOURCE_TYPE_ARRAY = 0x00, CU_RESOURCE_TYPE_LINEAR = 0x02 };
enum : int { CU_TR_ADDRESS_MODE_CLAMP = 1, CU_TR_FILTER_MODE_POINT = 0 };

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

/// The driver's entry points; `load` fills them.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemHostRegister)(void *, size_t, unsigned);
  CUresult (*cuMemHostUnregister)(void *);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  // Optional (absent from old drivers): a launch that needs one fails without it.
  CUresult (*cuLaunchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, CUstream, void **);
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
  CUresult (*cuArray3DCreate)(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *);
  CUresult (*cuArrayDestroy)(CUarray);
  CUresult (*cuMemcpy2D)(const CUDA_MEMCPY2D *);
  CUresult (*cuTexObjectCreate)(CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *,
                                const void *);
  CUresult (*cuTexObjectDestroy)(CUtexObject);
  CUresult (*cuSurfObjectCreate)(CUsurfObject *, const CUDA_RESOURCE_DESC *);
  CUresult (*cuSurfObjectDestroy)(CUsurfObject);

  /// Loads `library` (libcuda.so.1 unless a test names a fake one) and its
  /// entry points; false with `error` saying what is missing.
  bool load(const char *library, std::string &error);
  /// "CUDA_ERROR_ILLEGAL_ADDRESS" for 700, as the driver names it.
  std::string errorName(CUresult r) const;

private:
  void *handle_ = nullptr;
};

/// The runtime API's name of a driver error (700 -> cudaErrorIllegalAddress);
/// the two APIs share the numbers of every error a launch can end with.
std::string runtimeErrorName(CUresult r);

} // namespace runtime::cuda
