// Kernels as objects: their attributes (cudaFuncGetAttributes, cudaFuncSetAttribute for dynamic
// shared memory), names and parameters, and occupancy against the device's limits.
#include "runtime/cudart/Driver.h"
#include "runtime/cudart/Limits.h"
#include "runtime/cudart/Runtime.h"

#include <algorithm>

namespace cudart {

uint64_t maxDynamicShared(const KernelInfo &k) {
  uint64_t staticShared = k.decoded ? k.decoded->attributes().staticShared : 0;
  if (k.maxDynamicShared >= 0) return static_cast<uint64_t>(k.maxDynamicShared);
  return limits::kSharedPerBlock > staticShared ? limits::kSharedPerBlock - staticShared : 0;
}

int registersPerThread(const KernelInfo &k) {
  if (k.decoded)
    for (const ptx::FunctionDirective &d : k.decoded->function().directives)
      if (d.kind == ptx::DirectiveKind::MaxNReg && !d.values.empty())
        return std::min<int>(static_cast<int>(d.values[0]), limits::kAssumedRegistersPerThread);
  return limits::kAssumedRegistersPerThread;
}

/// The most threads a block of the kernel may have: 1024, or its launch bounds.
int maxThreadsPerBlock(const KernelInfo &k) {
  uint64_t most = limits::kMaxThreadsPerBlock;
  if (k.decoded)
    for (const ptx::FunctionDirective &d : k.decoded->function().directives)
      if (d.kind == ptx::DirectiveKind::MaxNTid || d.kind == ptx::DirectiveKind::ReqNTid) {
        uint64_t product = 1;
        for (uint32_t v : d.values) product *= v;
        most = std::min(most, product);
      }
  return static_cast<int>(most);
}

int activeBlocksPerSm(const KernelInfo &k, int blockSize, size_t dynamicShared) {
  if (blockSize <= 0 || blockSize > maxThreadsPerBlock(k)) return 0;
  int warps = (blockSize + 31) / 32;
  int byWarps = limits::kWarpsPerMultiprocessor / warps;
  int regsPerWarp = (registersPerThread(k) * 32 + limits::kRegisterAllocationUnit - 1) /
                    limits::kRegisterAllocationUnit * limits::kRegisterAllocationUnit;
  int byRegisters = limits::kRegistersPerMultiprocessor / std::max(1, regsPerWarp * warps);
  uint64_t shared = (k.decoded ? k.decoded->attributes().staticShared : 0) + dynamicShared +
                    limits::kReservedSharedPerBlock;
  int byShared = static_cast<int>(limits::kSharedPerMultiprocessor / shared);
  if (shared - limits::kReservedSharedPerBlock > limits::kSharedPerBlockOptin) byShared = 0;
  return std::max(0, std::min({byWarps, byRegisters, byShared, limits::kBlocksPerMultiprocessor}));
}

} // namespace cudart

using namespace cudart;

namespace {

/// The kernel behind `func`, decoded; an error when there is none.
cudaError_t decoded(Api &api, const void *func, KernelInfo *&k) {
  k = api.rt.kernel(func);
  if (!k) return cudaErrorInvalidDeviceFunction;
  return api.rt.decode(*k);
}

} // namespace

CUDART_EXPORT cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  Api api("cudaFuncGetAttributes");
  if (api.blocked()) return api.sticky();
  if (!attr) return api(cudaErrorInvalidValue);
  KernelInfo *k;
  if (cudaError_t e = decoded(api, func, k)) return api(e);
  // NVIDIA's runtime launches a CUfunction but does not describe one (an
  // H200, driver 580); cuFuncGetAttribute does.
  if (k->driverModule && !DriverCall::active()) return api(cudaErrorInvalidResourceHandle);
  const runtime::Kernel &code = *k->decoded;
  const runtime::KernelAttributes &a = code.attributes();
  *attr = {};
  attr->sharedSizeBytes = a.staticShared;
  attr->constSizeBytes = a.constBytes;
  attr->localSizeBytes = a.localBytes;
  attr->maxThreadsPerBlock = maxThreadsPerBlock(*k);
  attr->numRegs = registersPerThread(*k);
  // What a GPU reports for a kernel JIT-compiled from PTX: the virtual
  // architecture the PTX targets (compute_80 -> 80, not its ISA version
  // 9.0 -> 90: CUB and Thrust dispatch on it), and the device's own
  // architecture for the binary.
  attr->ptxVersion = static_cast<int>(code.module().smVersion());
  attr->binaryVersion = limits::kMajor * 10 + limits::kMinor;
  attr->maxDynamicSharedSizeBytes = static_cast<int>(maxDynamicShared(*k));
  attr->preferredShmemCarveout = k->carveout;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  Api api("cudaFuncSetAttribute");
  if (api.blocked()) return api.sticky();
  KernelInfo *k;
  if (cudaError_t e = decoded(api, func, k)) return api(e);
  switch (attr) {
  case cudaFuncAttributeMaxDynamicSharedMemorySize:
    if (value < 0 || k->decoded->attributes().staticShared + uint64_t(value) > limits::kSharedPerBlockOptin)
      return api(cudaErrorInvalidValue);
    k->maxDynamicShared = value;
    return cudaSuccess;
  case cudaFuncAttributePreferredSharedMemoryCarveout:
    if (value < -1 || value > 100) return api(cudaErrorInvalidValue);
    k->carveout = value;
    return cudaSuccess;
  case cudaFuncAttributeClusterDimMustBeSet:
  case cudaFuncAttributeRequiredClusterWidth:
  case cudaFuncAttributeRequiredClusterHeight:
  case cudaFuncAttributeRequiredClusterDepth:
  case cudaFuncAttributeNonPortableClusterSizeAllowed:
  case cudaFuncAttributeClusterSchedulingPolicyPreference:
    // sm_80 has no thread-block clusters.
    return api(cudaErrorInvalidValue);
  }
  return api(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache) {
  Api api("cudaFuncSetCacheConfig");
  if (api.blocked()) return api.sticky();
  return api(api.rt.kernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

CUDART_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig) {
  Api api("cudaFuncSetSharedMemConfig");
  if (api.blocked()) return api.sticky();
  return api(api.rt.kernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

CUDART_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func) {
  Api api("cudaFuncGetName");
  if (!name) return api(cudaErrorInvalidValue);
  KernelInfo *k = api.rt.kernel(func);
  if (!k) return api(cudaErrorInvalidDeviceFunction);
  *name = k->name.c_str();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                               size_t *paramSize) {
  Api api("cudaFuncGetParamInfo");
  if (api.blocked()) return api.sticky();
  KernelInfo *k;
  if (cudaError_t e = decoded(api, func, k)) return api(e);
  const runtime::KernelAttributes &a = k->decoded->attributes();
  if (paramIndex >= a.paramOffsets.size()) return api(cudaErrorInvalidValue);
  if (paramOffset) *paramOffset = a.paramOffsets[paramIndex];
  if (paramSize) *paramSize = a.paramSizes[paramIndex];
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *function, const void *symbol) {
  Api api("cudaGetFuncBySymbol");
  if (!function) return api(cudaErrorInvalidValue);
  KernelInfo *k = api.rt.kernel(symbol);
  if (!k) return api(cudaErrorInvalidDeviceFunction);
  *function = reinterpret_cast<cudaFunction_t>(k);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
  Api api("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (api.blocked()) return api.sticky();
  if (!numBlocks || (flags & ~cudaOccupancyDisableCachingOverride)) return api(cudaErrorInvalidValue);
  KernelInfo *k;
  if (cudaError_t e = decoded(api, func, k)) return api(e);
  *numBlocks = activeBlocksPerSm(*k, blockSize, dynamicSMemSize);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                        int blockSize,
                                                                        size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                cudaOccupancyDefault);
}

CUDART_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                                    int numBlocks, int blockSize) {
  Api api("cudaOccupancyAvailableDynamicSMemPerBlock");
  if (api.blocked()) return api.sticky();
  if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return api(cudaErrorInvalidValue);
  KernelInfo *k;
  if (cudaError_t e = decoded(api, func, k)) return api(e);
  // The most dynamic shared memory per block with which numBlocks blocks
  // still fit on one multiprocessor.
  uint64_t perBlock = limits::kSharedPerMultiprocessor / uint64_t(numBlocks);
  uint64_t fixed = k->decoded->attributes().staticShared + limits::kReservedSharedPerBlock;
  uint64_t available = perBlock > fixed ? perBlock - fixed : 0;
  available = std::min(
      available, limits::kSharedPerBlockOptin -
                     std::min<uint64_t>(k->decoded->attributes().staticShared, limits::kSharedPerBlockOptin));
  if (activeBlocksPerSm(*k, blockSize, 0) < numBlocks) available = 0;
  *dynamicSmemSize = available;
  return cudaSuccess;
}
