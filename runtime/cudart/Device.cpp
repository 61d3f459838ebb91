// The device: one sm_80-class GPU (Limits.h) with its properties and attributes, flags, limits
// and configuration; synchronisation and reset; versions.
#include "runtime/cudart/Limits.h"
#include "runtime/cudart/Runtime.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

using namespace cudart;

namespace cudart {

uint64_t Runtime::totalMemory() const {
  // A device as large as an A100, or half the host's memory when that is
  // less: every device byte is a host byte here.
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  uint64_t host =
      pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) / 2 : limits::kMaxGlobalMemory;
  return std::min(limits::kMaxGlobalMemory, host) >> 20 << 20;
}

void fillProperties(cudaDeviceProp &p, uint64_t totalMemory) {
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "%s", limits::kDeviceName);
  std::memcpy(p.uuid.bytes, "ptxvm-emulator-0", 16);
  p.totalGlobalMem = totalMemory;
  p.sharedMemPerBlock = limits::kSharedPerBlock;
  p.regsPerBlock = limits::kRegistersPerBlock;
  p.warpSize = limits::kWarpSize;
  p.memPitch = limits::kMaxPitch;
  p.maxThreadsPerBlock = static_cast<int>(limits::kMaxThreadsPerBlock);
  for (int i = 0; i < 3; ++i) {
    p.maxThreadsDim[i] = static_cast<int>(limits::kMaxBlockDim[i]);
    p.maxGridSize[i] = static_cast<int>(limits::kMaxGridDim[i]);
  }
  p.totalConstMem = limits::kConstantMemory;
  p.major = limits::kMajor;
  p.minor = limits::kMinor;
  p.textureAlignment = limits::kTextureAlignment;
  p.texturePitchAlignment = limits::kTexturePitchAlignment;
  p.multiProcessorCount = limits::kMultiprocessors;
  p.canMapHostMemory = 1;
  p.maxTexture1D = 131072;
  p.maxTexture1DMipmap = 32768;
  p.maxTexture2D[0] = 131072, p.maxTexture2D[1] = 65536;
  p.maxTexture2DMipmap[0] = 32768, p.maxTexture2DMipmap[1] = 32768;
  p.maxTexture2DLinear[0] = 131072, p.maxTexture2DLinear[1] = 65000, p.maxTexture2DLinear[2] = 2097120;
  p.maxTexture2DGather[0] = 32768, p.maxTexture2DGather[1] = 32768;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 16384;
  p.maxTexture3DAlt[0] = p.maxTexture3DAlt[1] = 8192, p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = 32768;
  p.maxTexture1DLayered[0] = 32768, p.maxTexture1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = 32768, p.maxTexture2DLayered[2] = 2048;
  p.maxTextureCubemapLayered[0] = 32768, p.maxTextureCubemapLayered[1] = 2046;
  p.maxSurface1D = 32768;
  p.maxSurface2D[0] = 131072, p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = 16384;
  p.maxSurface1DLayered[0] = 32768, p.maxSurface1DLayered[1] = 2048;
  p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = 32768, p.maxSurface2DLayered[2] = 2048;
  p.maxSurfaceCubemap = 32768;
  p.maxSurfaceCubemapLayered[0] = 32768, p.maxSurfaceCubemapLayered[1] = 2046;
  p.surfaceAlignment = limits::kTextureAlignment;
  p.concurrentKernels = 1;
  p.asyncEngineCount = 3;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = limits::kMemoryBusWidth;
  p.l2CacheSize = limits::kL2CacheBytes;
  p.persistingL2CacheMaxSize = limits::kPersistingL2Bytes;
  p.maxThreadsPerMultiProcessor = limits::kThreadsPerMultiprocessor;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = limits::kSharedPerMultiprocessor;
  p.regsPerMultiprocessor = limits::kRegistersPerMultiprocessor;
  p.managedMemory = 1;
  p.concurrentManagedAccess = 1;
  p.computePreemptionSupported = 1;
  p.canUseHostPointerForRegisteredMem = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = limits::kSharedPerBlockOptin;
  p.directManagedMemAccessFromHost = 1;
  p.maxBlocksPerMultiProcessor = limits::kBlocksPerMultiprocessor;
  p.accessPolicyMaxWindowSize = 134213632;
  p.reservedSharedMemPerBlock = limits::kReservedSharedPerBlock;
  p.hostRegisterSupported = 1;
  p.hostRegisterReadOnlySupported = 1;
  p.memoryPoolsSupported = 1;
  p.deviceNumaConfig = 0;
  p.deviceNumaId = -1;
  p.hostNumaId = -1;
}

// cudaDeviceGetAttribute: the attributes the properties describe, and the
// few that only it reports.
bool deviceAttribute(cudaDeviceAttr a, const cudaDeviceProp &p, int &v) {
  switch (a) {
  case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; return true;
  case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; return true;
  case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; return true;
  case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; return true;
  case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; return true;
  case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; return true;
  case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; return true;
  case cudaDevAttrMaxSharedMemoryPerBlock: v = static_cast<int>(p.sharedMemPerBlock); return true;
  case cudaDevAttrTotalConstantMemory: v = static_cast<int>(p.totalConstMem); return true;
  case cudaDevAttrWarpSize: v = p.warpSize; return true;
  case cudaDevAttrMaxPitch: v = static_cast<int>(p.memPitch); return true;
  case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; return true;
  case cudaDevAttrClockRate: v = limits::kClockKHz; return true;
  case cudaDevAttrMemoryClockRate: v = limits::kMemoryClockKHz; return true;
  case cudaDevAttrTextureAlignment: v = static_cast<int>(p.textureAlignment); return true;
  case cudaDevAttrTexturePitchAlignment: v = static_cast<int>(p.texturePitchAlignment); return true;
  case cudaDevAttrGpuOverlap: v = 1; return true;
  case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; return true;
  case cudaDevAttrKernelExecTimeout: v = 0; return true;
  case cudaDevAttrIntegrated: v = p.integrated; return true;
  case cudaDevAttrCanMapHostMemory: v = p.canMapHostMemory; return true;
  case cudaDevAttrComputeMode: v = 0; return true;
  case cudaDevAttrMaxTexture1DWidth: v = p.maxTexture1D; return true;
  case cudaDevAttrMaxTexture2DWidth: v = p.maxTexture2D[0]; return true;
  case cudaDevAttrMaxTexture2DHeight: v = p.maxTexture2D[1]; return true;
  case cudaDevAttrMaxTexture3DWidth: v = p.maxTexture3D[0]; return true;
  case cudaDevAttrMaxTexture3DHeight: v = p.maxTexture3D[1]; return true;
  case cudaDevAttrMaxTexture3DDepth: v = p.maxTexture3D[2]; return true;
  case cudaDevAttrSurfaceAlignment: v = static_cast<int>(p.surfaceAlignment); return true;
  case cudaDevAttrConcurrentKernels: v = p.concurrentKernels; return true;
  case cudaDevAttrEccEnabled: v = p.ECCEnabled; return true;
  case cudaDevAttrPciBusId: v = p.pciBusID; return true;
  case cudaDevAttrPciDeviceId: v = p.pciDeviceID; return true;
  case cudaDevAttrPciDomainId: v = p.pciDomainID; return true;
  case cudaDevAttrTccDriver: v = p.tccDriver; return true;
  case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; return true;
  case cudaDevAttrL2CacheSize: v = p.l2CacheSize; return true;
  case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; return true;
  case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; return true;
  case cudaDevAttrUnifiedAddressing: v = p.unifiedAddressing; return true;
  case cudaDevAttrComputeCapabilityMajor: v = p.major; return true;
  case cudaDevAttrComputeCapabilityMinor: v = p.minor; return true;
  case cudaDevAttrStreamPrioritiesSupported: v = p.streamPrioritiesSupported; return true;
  case cudaDevAttrGlobalL1CacheSupported: v = p.globalL1CacheSupported; return true;
  case cudaDevAttrLocalL1CacheSupported: v = p.localL1CacheSupported; return true;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    v = static_cast<int>(p.sharedMemPerMultiprocessor);
    return true;
  case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; return true;
  case cudaDevAttrManagedMemory: v = p.managedMemory; return true;
  case cudaDevAttrIsMultiGpuBoard: v = p.isMultiGpuBoard; return true;
  case cudaDevAttrMultiGpuBoardGroupID: v = p.multiGpuBoardGroupID; return true;
  case cudaDevAttrHostNativeAtomicSupported: v = p.hostNativeAtomicSupported; return true;
  case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; return true;
  case cudaDevAttrPageableMemoryAccess: v = p.pageableMemoryAccess; return true;
  case cudaDevAttrConcurrentManagedAccess: v = p.concurrentManagedAccess; return true;
  case cudaDevAttrComputePreemptionSupported: v = p.computePreemptionSupported; return true;
  case cudaDevAttrCanUseHostPointerForRegisteredMem: v = p.canUseHostPointerForRegisteredMem; return true;
  case cudaDevAttrCooperativeLaunch: v = p.cooperativeLaunch; return true;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = static_cast<int>(p.sharedMemPerBlockOptin); return true;
  case cudaDevAttrCanFlushRemoteWrites: v = 0; return true;
  case cudaDevAttrHostRegisterSupported: v = p.hostRegisterSupported; return true;
  case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
    v = p.pageableMemoryAccessUsesHostPageTables;
    return true;
  case cudaDevAttrDirectManagedMemAccessFromHost: v = p.directManagedMemAccessFromHost; return true;
  case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; return true;
  case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; return true;
  case cudaDevAttrMaxAccessPolicyWindowSize: v = p.accessPolicyMaxWindowSize; return true;
  case cudaDevAttrReservedSharedMemoryPerBlock:
    v = static_cast<int>(p.reservedSharedMemPerBlock);
    return true;
  case cudaDevAttrSparseCudaArraySupported: v = 0; return true;
  case cudaDevAttrHostRegisterReadOnlySupported: v = p.hostRegisterReadOnlySupported; return true;
  case cudaDevAttrTimelineSemaphoreInteropSupported: v = 0; return true;
  case cudaDevAttrMemoryPoolsSupported: v = p.memoryPoolsSupported; return true;
  case cudaDevAttrGPUDirectRDMASupported: v = 0; return true;
  case cudaDevAttrGPUDirectRDMAFlushWritesOptions: v = 0; return true;
  case cudaDevAttrGPUDirectRDMAWritesOrdering: v = 0; return true;
  case cudaDevAttrMemoryPoolSupportedHandleTypes: v = 0; return true;
  case cudaDevAttrClusterLaunch: v = 0; return true;
  case cudaDevAttrDeferredMappingCudaArraySupported: v = 0; return true;
  case cudaDevAttrIpcEventSupport: v = 0; return true;
  case cudaDevAttrMemSyncDomainCount: v = 1; return true;
  case cudaDevAttrNumaConfig: v = 0; return true;
  case cudaDevAttrNumaId: v = -1; return true;
  case cudaDevAttrMpsEnabled: v = 0; return true;
  case cudaDevAttrHostNumaId: v = -1; return true;
  case cudaDevAttrGpuPciDeviceId:
  case cudaDevAttrGpuPciSubsystemId: v = 0; return true;
  default:
    // Texture and surface limits and the rest: what the properties say, or 0.
    v = 0;
    return a > 0 && a < 200;
  }
}

} // namespace cudart

CUDART_EXPORT cudaError_t cudaGetDeviceCount(int *count) {
  Api api("cudaGetDeviceCount", Api::Ignores);
  if (!count) return api(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetDevice(int *device) {
  Api api("cudaGetDevice", Api::Ignores);
  if (!device) return api(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaSetDevice(int device) {
  Api api("cudaSetDevice");
  if (device != 0) return api(cudaErrorInvalidDevice);
  if (api.blocked()) return api.sticky();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  Api api("cudaInitDevice");
  if (device != 0) return api(cudaErrorInvalidDevice);
  if (api.blocked()) return api.sticky();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop) {
  Api api("cudaChooseDevice", Api::Ignores);
  if (!device || !prop) return api(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaSetValidDevices(int *devices, int count) {
  Api api("cudaSetValidDevices");
  if (count < 0 || (count > 0 && !devices)) return api(cudaErrorInvalidValue);
  for (int i = 0; i < count; ++i)
    if (devices[i] != 0) return api(cudaErrorInvalidDevice);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  Api api("cudaGetDeviceProperties", Api::Ignores);
  if (!prop) return api(cudaErrorInvalidValue);
  if (device != 0) return api(cudaErrorInvalidDevice);
  fillProperties(*prop, api.rt.totalMemory());
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  Api api("cudaDeviceGetAttribute", Api::Ignores);
  if (!value) return api(cudaErrorInvalidValue);
  if (device != 0) return api(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  fillProperties(p, api.rt.totalMemory());
  if (!deviceAttribute(attr, p, *value)) return api(cudaErrorInvalidValue);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
  Api api("cudaDeviceGetPCIBusId", Api::Ignores);
  if (!pciBusId || len <= 0) return api(cudaErrorInvalidValue);
  if (device != 0) return api(cudaErrorInvalidDevice);
  std::snprintf(pciBusId, static_cast<size_t>(len), "0000:00:00.0");
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
  Api api("cudaDeviceGetByPCIBusId", Api::Ignores);
  if (!device || !pciBusId) return api(cudaErrorInvalidValue);
  // [domain]:[bus]:[device].[function] or [bus]:[device].[function], hex.
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  bool parsed = std::sscanf(pciBusId, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) == 4 ||
                (domain = 0, std::sscanf(pciBusId, "%x:%x.%x", &bus, &dev, &fn) == 3);
  if (!parsed || domain || bus || dev || fn) return api(cudaErrorInvalidDevice);
  *device = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
  Api api("cudaDeviceCanAccessPeer");
  if (!canAccessPeer) return api(cudaErrorInvalidValue);
  // One device: there is no peer.
  if (device != 0 || peerDevice != 0 || device == peerDevice) return api(cudaErrorInvalidDevice);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) {
  Api api("cudaDeviceEnablePeerAccess");
  return api(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int) {
  Api api("cudaDeviceDisablePeerAccess");
  return api(cudaErrorInvalidDevice);
}

/// A synchronisation point: every stream's work issued so far has run; what
/// kernels printed is written out, and a fault they had is returned.
CUDART_EXPORT cudaError_t cudaDeviceSynchronize() {
  Api api("cudaDeviceSynchronize", Api::Synchronizes);
  if (cudaError_t e = api.rt.maySynchronize()) return api(e);
  api.rt.synchronize();
  if (api.blocked()) return api.sticky();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceReset() {
  Api api("cudaDeviceReset", Api::Ignores);
  // What was issued runs first (or is skipped behind a fault).
  if (!api.wait(api.rt.work.pending())) return api(cudaErrorNotPermitted);
  api.rt.reset();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  Api api("cudaSetDeviceFlags");
  if (flags & ~cudaDeviceMask) return api(cudaErrorInvalidValue);
  unsigned schedule = flags & cudaDeviceScheduleMask;
  if (schedule != cudaDeviceScheduleAuto && schedule != cudaDeviceScheduleSpin &&
      schedule != cudaDeviceScheduleYield && schedule != cudaDeviceScheduleBlockingSync)
    return api(cudaErrorInvalidValue);
  if (api.blocked()) return api.sticky();
  api.rt.deviceFlags = flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  Api api("cudaGetDeviceFlags");
  if (!flags) return api(cudaErrorInvalidValue);
  if (api.blocked()) return api.sticky();
  *flags = api.rt.deviceFlags | cudaDeviceMapHost; // host memory is always mappable here
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  Api api("cudaDeviceSetLimit");
  if (api.blocked()) return api.sticky();
  Runtime &rt = api.rt;
  switch (limit) {
  case cudaLimitStackSize: rt.stackSize = value; return cudaSuccess;
  case cudaLimitPrintfFifoSize: rt.services.printfFifoSize = value; return cudaSuccess;
  case cudaLimitMallocHeapSize: rt.services.heapSize = value; return cudaSuccess;
  case cudaLimitDevRuntimeSyncDepth: return cudaSuccess;
  case cudaLimitDevRuntimePendingLaunchCount: rt.deviceLaunches.pendingLimit = value; return cudaSuccess;
  case cudaLimitMaxL2FetchGranularity: return value <= 128 ? cudaSuccess : api(cudaErrorInvalidValue);
  case cudaLimitPersistingL2CacheSize:
    return value <= uint64_t(limits::kPersistingL2Bytes) ? cudaSuccess : api(cudaErrorInvalidValue);
  }
  return api(cudaErrorUnsupportedLimit);
}

CUDART_EXPORT cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit) {
  Api api("cudaDeviceGetLimit");
  if (!value) return api(cudaErrorInvalidValue);
  if (api.blocked()) return api.sticky();
  Runtime &rt = api.rt;
  switch (limit) {
  case cudaLimitStackSize: *value = rt.stackSize; return cudaSuccess;
  case cudaLimitPrintfFifoSize: *value = rt.services.printfFifoSize; return cudaSuccess;
  case cudaLimitMallocHeapSize: *value = rt.services.heapSize; return cudaSuccess;
  case cudaLimitDevRuntimeSyncDepth: *value = 2; return cudaSuccess;
  case cudaLimitDevRuntimePendingLaunchCount: *value = rt.deviceLaunches.pendingLimit; return cudaSuccess;
  case cudaLimitMaxL2FetchGranularity: *value = 64; return cudaSuccess;
  case cudaLimitPersistingL2CacheSize: *value = 0; return cudaSuccess;
  }
  return api(cudaErrorUnsupportedLimit);
}

CUDART_EXPORT cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config) {
  Api api("cudaDeviceGetCacheConfig");
  if (!config) return api(cudaErrorInvalidValue);
  *config = api.rt.cacheConfig;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  Api api("cudaDeviceSetCacheConfig");
  if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual)
    return api(cudaErrorInvalidValue);
  api.rt.cacheConfig = config;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *config) {
  Api api("cudaDeviceGetSharedMemConfig");
  if (!config) return api(cudaErrorInvalidValue);
  *config = api.rt.sharedMemConfig;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config) {
  Api api("cudaDeviceSetSharedMemConfig");
  if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
    return api(cudaErrorInvalidValue);
  api.rt.sharedMemConfig = config;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  Api api("cudaDeviceGetStreamPriorityRange", Api::Ignores);
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaRuntimeGetVersion(int *version) {
  Api api("cudaRuntimeGetVersion", Api::Ignores);
  if (!version) return api(cudaErrorInvalidValue);
  *version = 13000;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDriverGetVersion(int *version) {
  Api api("cudaDriverGetVersion", Api::Ignores);
  if (!version) return api(cudaErrorInvalidValue);
  *version = 13000;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaProfilerStart() { return cudaSuccess; }
CUDART_EXPORT cudaError_t cudaProfilerStop() { return cudaSuccess; }
CUDART_EXPORT cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int, int) { return cudaSuccess; }
CUDART_EXPORT cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }
