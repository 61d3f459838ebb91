// The driver API's own declarations (runtime/cudart/DriverTypes.h) against CUDA 13's cuda.h: every
// result code, the structs programs pass (sizes and field offsets), the enum values the driver reads,
// and the places where the driver serves a call with the runtime's own values (device and function
// attributes, limits, flags), which must then be numbered alike. Built only where the headers are.
#include "runtime/cudart/DriverTypes.h"

// cuda.h defines these as macros, which would rewrite `cudart::name`: take ptxvm's values first.
const void *const oursParamEnd = cudart::CU_LAUNCH_PARAM_END;
const void *const oursParamBufferPointer = cudart::CU_LAUNCH_PARAM_BUFFER_POINTER;
const void *const oursParamBufferSize = cudart::CU_LAUNCH_PARAM_BUFFER_SIZE;
constexpr unsigned long long oursPerThreadStream = cudart::CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>

#define SAME_SIZE(ours, theirs) static_assert(sizeof(cudart::ours) == sizeof(::theirs), #ours)
#define SAME_FIELD(ours, theirs, field)                                                                      \
  static_assert(offsetof(cudart::ours, field) == offsetof(::theirs, field) &&                                \
                    sizeof(cudart::ours::field) == sizeof(::theirs::field),                                  \
                #ours "::" #field)
#define SAME_VALUE(name)                                                                                     \
  static_assert(static_cast<long long>(cudart::name) == static_cast<long long>(::name), #name)
/// The driver serves these with the runtime's value of the same meaning.
#define SAME_AS_RUNTIME(driver, runtime)                                                                     \
  static_assert(static_cast<long long>(driver) == static_cast<long long>(runtime), #driver)

#define CUDA_DRIVER_ERROR(name, value, message)                                                              \
  static_assert(static_cast<int>(cudart::name) == static_cast<int>(::name) &&                                \
                    value == static_cast<int>(::name),                                                       \
                #name);
#include "runtime/cudart/DriverErrors.def"
#undef CUDA_DRIVER_ERROR

SAME_SIZE(CUdeviceptr, CUdeviceptr);
SAME_SIZE(CUuuid, CUuuid);
SAME_SIZE(CUDA_MEMCPY2D, CUDA_MEMCPY2D);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcXInBytes);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcY);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcMemoryType);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcHost);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcDevice);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcArray);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, srcPitch);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstXInBytes);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstY);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstMemoryType);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstHost);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstDevice);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstArray);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, dstPitch);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, WidthInBytes);
SAME_FIELD(CUDA_MEMCPY2D, CUDA_MEMCPY2D, Height);
SAME_SIZE(CUlaunchAttribute, CUlaunchAttribute);
SAME_FIELD(CUlaunchAttribute, CUlaunchAttribute, id);
static_assert(offsetof(cudart::CUlaunchAttribute, val) == offsetof(::CUlaunchAttribute, value) &&
              sizeof(cudart::CUlaunchAttribute::val) == sizeof(::CUlaunchAttribute::value));
SAME_SIZE(CUlaunchConfig, CUlaunchConfig);
SAME_FIELD(CUlaunchConfig, CUlaunchConfig, gridDimX);
SAME_FIELD(CUlaunchConfig, CUlaunchConfig, blockDimZ);
SAME_FIELD(CUlaunchConfig, CUlaunchConfig, sharedMemBytes);
SAME_FIELD(CUlaunchConfig, CUlaunchConfig, hStream);
SAME_FIELD(CUlaunchConfig, CUlaunchConfig, attrs);
SAME_FIELD(CUlaunchConfig, CUlaunchConfig, numAttrs);
SAME_SIZE(CUctxCreateParams, CUctxCreateParams);
SAME_FIELD(CUctxCreateParams, CUctxCreateParams, execAffinityParams);
SAME_FIELD(CUctxCreateParams, CUctxCreateParams, numExecAffinityParams);
SAME_FIELD(CUctxCreateParams, CUctxCreateParams, cigParams);
SAME_SIZE(CUdevprop, CUdevprop);
SAME_FIELD(CUdevprop, CUdevprop, maxGridSize);
SAME_FIELD(CUdevprop, CUdevprop, textureAlign);

SAME_VALUE(CU_MEMORYTYPE_HOST);
SAME_VALUE(CU_MEMORYTYPE_DEVICE);
SAME_VALUE(CU_MEMORYTYPE_ARRAY);
SAME_VALUE(CU_MEMORYTYPE_UNIFIED);
SAME_VALUE(CU_POINTER_ATTRIBUTE_CONTEXT);
SAME_VALUE(CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME_VALUE(CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
SAME_VALUE(CU_POINTER_ATTRIBUTE_HOST_POINTER);
SAME_VALUE(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS);
SAME_VALUE(CU_POINTER_ATTRIBUTE_BUFFER_ID);
SAME_VALUE(CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME_VALUE(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME_VALUE(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
SAME_VALUE(CU_POINTER_ATTRIBUTE_RANGE_SIZE);
SAME_VALUE(CU_POINTER_ATTRIBUTE_MAPPED);
SAME_VALUE(CU_JIT_INFO_LOG_BUFFER);
SAME_VALUE(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER);
SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CU_JIT_NUM_OPTIONS);
SAME_VALUE(CU_GET_PROC_ADDRESS_SUCCESS);
SAME_VALUE(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
SAME_VALUE(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
SAME_VALUE(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
SAME_VALUE(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
SAME_VALUE(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
SAME_VALUE(CU_FUNC_ATTRIBUTE_NUM_REGS);
SAME_VALUE(CU_FUNC_ATTRIBUTE_PTX_VERSION);
SAME_VALUE(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
SAME_VALUE(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
SAME_VALUE(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
SAME_VALUE(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET);
SAME_VALUE(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
SAME_VALUE(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
SAME_VALUE(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
SAME_VALUE(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
SAME_VALUE(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);

// Served by the runtime's functions with the values passed through.
SAME_AS_RUNTIME(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, cudaFuncAttributeMaxDynamicSharedMemorySize);
SAME_AS_RUNTIME(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                cudaFuncAttributePreferredSharedMemoryCarveout);
SAME_AS_RUNTIME(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, cudaFuncAttributeClusterDimMustBeSet);
SAME_AS_RUNTIME(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, cudaFuncAttributeRequiredClusterWidth);
SAME_AS_RUNTIME(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                cudaFuncAttributeNonPortableClusterSizeAllowed);
SAME_AS_RUNTIME(CU_LIMIT_STACK_SIZE, cudaLimitStackSize);
SAME_AS_RUNTIME(CU_LIMIT_PRINTF_FIFO_SIZE, cudaLimitPrintfFifoSize);
SAME_AS_RUNTIME(CU_LIMIT_MALLOC_HEAP_SIZE, cudaLimitMallocHeapSize);
SAME_AS_RUNTIME(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, cudaLimitDevRuntimePendingLaunchCount);
SAME_AS_RUNTIME(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, cudaLimitPersistingL2CacheSize);
SAME_AS_RUNTIME(CU_STREAM_NON_BLOCKING, cudaStreamNonBlocking);
SAME_AS_RUNTIME(CU_EVENT_BLOCKING_SYNC, cudaEventBlockingSync);
SAME_AS_RUNTIME(CU_EVENT_DISABLE_TIMING, cudaEventDisableTiming);
SAME_AS_RUNTIME(CU_EVENT_INTERPROCESS, cudaEventInterprocess);
SAME_AS_RUNTIME(CU_MEMHOSTALLOC_PORTABLE, cudaHostAllocPortable);
SAME_AS_RUNTIME(CU_MEMHOSTALLOC_DEVICEMAP, cudaHostAllocMapped);
SAME_AS_RUNTIME(CU_MEMHOSTALLOC_WRITECOMBINED, cudaHostAllocWriteCombined);
SAME_AS_RUNTIME(CU_MEMHOSTREGISTER_PORTABLE, cudaHostRegisterPortable);
SAME_AS_RUNTIME(CU_MEMHOSTREGISTER_DEVICEMAP, cudaHostRegisterMapped);
SAME_AS_RUNTIME(CU_MEM_ATTACH_GLOBAL, cudaMemAttachGlobal);
SAME_AS_RUNTIME(CU_MEM_ATTACH_HOST, cudaMemAttachHost);
SAME_AS_RUNTIME(CU_STREAM_CAPTURE_MODE_GLOBAL, cudaStreamCaptureModeGlobal);
SAME_AS_RUNTIME(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, cudaStreamCaptureModeThreadLocal);
SAME_AS_RUNTIME(CU_STREAM_CAPTURE_MODE_RELAXED, cudaStreamCaptureModeRelaxed);
SAME_AS_RUNTIME(CU_STREAM_CAPTURE_STATUS_ACTIVE, cudaStreamCaptureStatusActive);
SAME_AS_RUNTIME(CU_STREAM_CAPTURE_STATUS_INVALIDATED, cudaStreamCaptureStatusInvalidated);
SAME_AS_RUNTIME(CU_FUNC_CACHE_PREFER_SHARED, cudaFuncCachePreferShared);
SAME_AS_RUNTIME(CU_FUNC_CACHE_PREFER_EQUAL, cudaFuncCachePreferEqual);
SAME_AS_RUNTIME(CU_LAUNCH_ATTRIBUTE_COOPERATIVE, cudaLaunchAttributeCooperative);
SAME_AS_RUNTIME(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, cudaLaunchAttributeClusterDimension);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, cudaDevAttrMaxThreadsPerBlock);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_WARP_SIZE, cudaDevAttrWarpSize);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cudaDevAttrMultiProcessorCount);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cudaDevAttrComputeCapabilityMajor);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, cudaDevAttrUnifiedAddressing);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                cudaDevAttrMaxSharedMemoryPerBlockOptin);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, cudaDevAttrCooperativeLaunch);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, cudaDevAttrMemoryPoolsSupported);
SAME_AS_RUNTIME(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, cudaDevAttrClusterLaunch);

namespace {

TEST(DriverAbi, LaunchParameterMarkersMatch) {
  EXPECT_EQ(oursParamEnd, CU_LAUNCH_PARAM_END);
  EXPECT_EQ(oursParamBufferPointer, CU_LAUNCH_PARAM_BUFFER_POINTER);
  EXPECT_EQ(oursParamBufferSize, CU_LAUNCH_PARAM_BUFFER_SIZE);
  EXPECT_EQ(oursPerThreadStream,
            static_cast<unsigned long long>(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM));
}

TEST(DriverAbi, EveryResultCodeOfTheHeaderIsKnown) {
  int count = 0;
#define CUDA_DRIVER_ERROR(name, value, message) ++count;
#include "runtime/cudart/DriverErrors.def"
#undef CUDA_DRIVER_ERROR
  EXPECT_GE(count, 100);
}

} // namespace
