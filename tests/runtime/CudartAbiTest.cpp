// The runtime's own declarations of the CUDA runtime API types (runtime/cudart/CudaTypes.h)
// against CUDA 13's headers: every struct's size and field offsets, every enum value and flag,
// every error code. Programs pass these across libcudart.so.13's interface, so a mismatch would
// corrupt them silently. Built only where the CUDA headers are installed.
#include "runtime/cudart/CudaTypes.h"

// CUDA's headers define the flags and special stream handles as macros, which would rewrite
// `cudart::name`: take the runtime's values before including them.
#define OURS(name) constexpr long long ours_##name = static_cast<long long>(cudart::name);
OURS(cudaHostAllocDefault)
OURS(cudaHostAllocPortable)
OURS(cudaHostAllocMapped)
OURS(cudaHostAllocWriteCombined)
OURS(cudaHostRegisterDefault)
OURS(cudaHostRegisterPortable)
OURS(cudaHostRegisterMapped)
OURS(cudaHostRegisterIoMemory)
OURS(cudaHostRegisterReadOnly)
OURS(cudaStreamDefault)
OURS(cudaStreamNonBlocking)
OURS(cudaEventRecordExternal)
OURS(cudaGraphInstantiateFlagUpload)
OURS(cudaStreamAddCaptureDependencies)
OURS(cudaStreamSetCaptureDependencies)
OURS(cudaEventWaitExternal)
OURS(cudaEventDefault)
OURS(cudaEventBlockingSync)
OURS(cudaEventDisableTiming)
OURS(cudaEventInterprocess)
OURS(cudaDeviceScheduleAuto)
OURS(cudaDeviceScheduleSpin)
OURS(cudaDeviceScheduleYield)
OURS(cudaDeviceScheduleBlockingSync)
OURS(cudaDeviceScheduleMask)
OURS(cudaDeviceMapHost)
OURS(cudaDeviceLmemResizeToMax)
OURS(cudaDeviceMask)
OURS(cudaMemAttachGlobal)
OURS(cudaMemAttachHost)
OURS(cudaMemAttachSingle)
OURS(cudaOccupancyDefault)
OURS(cudaOccupancyDisableCachingOverride)
OURS(cudaArrayDefault)
OURS(cudaArrayLayered)
OURS(cudaArraySurfaceLoadStore)
OURS(cudaArrayCubemap)
OURS(cudaArrayTextureGather)
OURS(cudaArrayColorAttachment)
OURS(cudaArraySparse)
OURS(cudaArrayDeferredMapping)
#undef OURS
const uintptr_t oursStreamLegacy = reinterpret_cast<uintptr_t>(cudart::cudaStreamLegacy);
const uintptr_t oursStreamPerThread = reinterpret_cast<uintptr_t>(cudart::cudaStreamPerThread);

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

// Sizes, offsets and values are compared at compile time: the test builds only if they agree.
#define SAME_SIZE(type) static_assert(sizeof(cudart::type) == sizeof(::type), #type)
#define SAME_FIELD(type, field)                                                                              \
  static_assert(offsetof(cudart::type, field) == offsetof(::type, field) &&                                  \
                    sizeof(cudart::type::field) == sizeof(::type::field),                                    \
                #type "::" #field)
#define SAME_FLAG(name) static_assert(ours_##name == static_cast<long long>(name), #name)
#define SAME_VALUE(name)                                                                                     \
  static_assert(static_cast<long long>(cudart::name) == static_cast<long long>(::name), #name)

SAME_SIZE(dim3);
SAME_FIELD(dim3, x);
SAME_FIELD(dim3, y);
SAME_FIELD(dim3, z);
SAME_SIZE(uint3);
SAME_FIELD(uint3, x);
SAME_FIELD(uint3, y);
SAME_FIELD(uint3, z);
SAME_SIZE(cudaPointerAttributes);
SAME_FIELD(cudaPointerAttributes, type);
SAME_FIELD(cudaPointerAttributes, device);
SAME_FIELD(cudaPointerAttributes, devicePointer);
SAME_FIELD(cudaPointerAttributes, hostPointer);
SAME_FIELD(cudaPointerAttributes, reserved);
SAME_SIZE(cudaFuncAttributes);
SAME_FIELD(cudaFuncAttributes, sharedSizeBytes);
SAME_FIELD(cudaFuncAttributes, constSizeBytes);
SAME_FIELD(cudaFuncAttributes, localSizeBytes);
SAME_FIELD(cudaFuncAttributes, maxThreadsPerBlock);
SAME_FIELD(cudaFuncAttributes, numRegs);
SAME_FIELD(cudaFuncAttributes, ptxVersion);
SAME_FIELD(cudaFuncAttributes, binaryVersion);
SAME_FIELD(cudaFuncAttributes, cacheModeCA);
SAME_FIELD(cudaFuncAttributes, maxDynamicSharedSizeBytes);
SAME_FIELD(cudaFuncAttributes, preferredShmemCarveout);
SAME_FIELD(cudaFuncAttributes, clusterDimMustBeSet);
SAME_FIELD(cudaFuncAttributes, requiredClusterWidth);
SAME_FIELD(cudaFuncAttributes, requiredClusterHeight);
SAME_FIELD(cudaFuncAttributes, requiredClusterDepth);
SAME_FIELD(cudaFuncAttributes, clusterSchedulingPolicyPreference);
SAME_FIELD(cudaFuncAttributes, nonPortableClusterSizeAllowed);
SAME_FIELD(cudaFuncAttributes, reserved);
SAME_SIZE(cudaLaunchAttribute);
SAME_FIELD(cudaLaunchAttribute, id);
SAME_FIELD(cudaLaunchAttribute, pad);
SAME_FIELD(cudaLaunchAttribute, val);
SAME_SIZE(cudaLaunchAttributeValue);
SAME_FIELD(cudaLaunchAttributeValue, cooperative);
SAME_FIELD(cudaLaunchAttributeValue, clusterDim);
SAME_FIELD(cudaLaunchAttributeValue, deviceUpdatableKernelNode);
static_assert(offsetof(cudart::cudaLaunchAttributeValue, deviceUpdatableKernelNode.devNode) ==
              offsetof(::cudaLaunchAttributeValue, deviceUpdatableKernelNode.devNode));
SAME_SIZE(cudaLaunchConfig_t);
SAME_FIELD(cudaLaunchConfig_t, gridDim);
SAME_FIELD(cudaLaunchConfig_t, blockDim);
SAME_FIELD(cudaLaunchConfig_t, dynamicSmemBytes);
SAME_FIELD(cudaLaunchConfig_t, stream);
SAME_FIELD(cudaLaunchConfig_t, attrs);
SAME_FIELD(cudaLaunchConfig_t, numAttrs);
SAME_SIZE(cudaChannelFormatDesc);
SAME_FIELD(cudaChannelFormatDesc, x);
SAME_FIELD(cudaChannelFormatDesc, y);
SAME_FIELD(cudaChannelFormatDesc, z);
SAME_FIELD(cudaChannelFormatDesc, w);
SAME_FIELD(cudaChannelFormatDesc, f);
SAME_SIZE(cudaPitchedPtr);
SAME_FIELD(cudaPitchedPtr, ptr);
SAME_FIELD(cudaPitchedPtr, pitch);
SAME_FIELD(cudaPitchedPtr, xsize);
SAME_FIELD(cudaPitchedPtr, ysize);
SAME_SIZE(cudaExtent);
SAME_FIELD(cudaExtent, width);
SAME_FIELD(cudaExtent, height);
SAME_FIELD(cudaExtent, depth);
SAME_SIZE(cudaPos);
SAME_FIELD(cudaPos, x);
SAME_FIELD(cudaPos, y);
SAME_FIELD(cudaPos, z);
SAME_SIZE(cudaMemcpy3DParms);
SAME_FIELD(cudaMemcpy3DParms, srcArray);
SAME_FIELD(cudaMemcpy3DParms, srcPos);
SAME_FIELD(cudaMemcpy3DParms, srcPtr);
SAME_FIELD(cudaMemcpy3DParms, dstArray);
SAME_FIELD(cudaMemcpy3DParms, dstPos);
SAME_FIELD(cudaMemcpy3DParms, dstPtr);
SAME_FIELD(cudaMemcpy3DParms, extent);
SAME_FIELD(cudaMemcpy3DParms, kind);
SAME_SIZE(cudaResourceDesc);
SAME_FIELD(cudaResourceDesc, resType);
SAME_FIELD(cudaResourceDesc, res);
SAME_FIELD(cudaResourceDesc, res.array.array);
SAME_FIELD(cudaResourceDesc, res.mipmap.mipmap);
SAME_FIELD(cudaResourceDesc, res.linear.devPtr);
SAME_FIELD(cudaResourceDesc, res.linear.desc);
SAME_FIELD(cudaResourceDesc, res.linear.sizeInBytes);
SAME_FIELD(cudaResourceDesc, res.pitch2D.devPtr);
SAME_FIELD(cudaResourceDesc, res.pitch2D.desc);
SAME_FIELD(cudaResourceDesc, res.pitch2D.width);
SAME_FIELD(cudaResourceDesc, res.pitch2D.height);
SAME_FIELD(cudaResourceDesc, res.pitch2D.pitchInBytes);
SAME_FIELD(cudaResourceDesc, flags);
SAME_SIZE(cudaResourceViewDesc);
SAME_FIELD(cudaResourceViewDesc, format);
SAME_FIELD(cudaResourceViewDesc, width);
SAME_FIELD(cudaResourceViewDesc, height);
SAME_FIELD(cudaResourceViewDesc, depth);
SAME_FIELD(cudaResourceViewDesc, firstMipmapLevel);
SAME_FIELD(cudaResourceViewDesc, lastMipmapLevel);
SAME_FIELD(cudaResourceViewDesc, firstLayer);
SAME_FIELD(cudaResourceViewDesc, lastLayer);
SAME_FIELD(cudaResourceViewDesc, reserved);
SAME_SIZE(cudaTextureDesc);
SAME_FIELD(cudaTextureDesc, addressMode);
SAME_FIELD(cudaTextureDesc, filterMode);
SAME_FIELD(cudaTextureDesc, readMode);
SAME_FIELD(cudaTextureDesc, sRGB);
SAME_FIELD(cudaTextureDesc, borderColor);
SAME_FIELD(cudaTextureDesc, normalizedCoords);
SAME_FIELD(cudaTextureDesc, maxAnisotropy);
SAME_FIELD(cudaTextureDesc, mipmapFilterMode);
SAME_FIELD(cudaTextureDesc, mipmapLevelBias);
SAME_FIELD(cudaTextureDesc, minMipmapLevelClamp);
SAME_FIELD(cudaTextureDesc, maxMipmapLevelClamp);
SAME_FIELD(cudaTextureDesc, disableTrilinearOptimization);
SAME_FIELD(cudaTextureDesc, seamlessCubemap);
SAME_SIZE(cudaTextureObject_t);
SAME_SIZE(cudaSurfaceObject_t);
SAME_SIZE(cudaMemLocation);
SAME_FIELD(cudaMemLocation, type);
SAME_FIELD(cudaMemLocation, id);
SAME_SIZE(cudaDeviceProp);
SAME_FIELD(cudaDeviceProp, name);
SAME_FIELD(cudaDeviceProp, uuid);
SAME_FIELD(cudaDeviceProp, luid);
SAME_FIELD(cudaDeviceProp, luidDeviceNodeMask);
SAME_FIELD(cudaDeviceProp, totalGlobalMem);
SAME_FIELD(cudaDeviceProp, sharedMemPerBlock);
SAME_FIELD(cudaDeviceProp, regsPerBlock);
SAME_FIELD(cudaDeviceProp, warpSize);
SAME_FIELD(cudaDeviceProp, memPitch);
SAME_FIELD(cudaDeviceProp, maxThreadsPerBlock);
SAME_FIELD(cudaDeviceProp, maxThreadsDim);
SAME_FIELD(cudaDeviceProp, maxGridSize);
SAME_FIELD(cudaDeviceProp, totalConstMem);
SAME_FIELD(cudaDeviceProp, major);
SAME_FIELD(cudaDeviceProp, minor);
SAME_FIELD(cudaDeviceProp, textureAlignment);
SAME_FIELD(cudaDeviceProp, texturePitchAlignment);
SAME_FIELD(cudaDeviceProp, multiProcessorCount);
SAME_FIELD(cudaDeviceProp, integrated);
SAME_FIELD(cudaDeviceProp, canMapHostMemory);
SAME_FIELD(cudaDeviceProp, maxTexture1D);
SAME_FIELD(cudaDeviceProp, maxTexture1DMipmap);
SAME_FIELD(cudaDeviceProp, maxTexture2D);
SAME_FIELD(cudaDeviceProp, maxTexture2DMipmap);
SAME_FIELD(cudaDeviceProp, maxTexture2DLinear);
SAME_FIELD(cudaDeviceProp, maxTexture2DGather);
SAME_FIELD(cudaDeviceProp, maxTexture3D);
SAME_FIELD(cudaDeviceProp, maxTexture3DAlt);
SAME_FIELD(cudaDeviceProp, maxTextureCubemap);
SAME_FIELD(cudaDeviceProp, maxTexture1DLayered);
SAME_FIELD(cudaDeviceProp, maxTexture2DLayered);
SAME_FIELD(cudaDeviceProp, maxTextureCubemapLayered);
SAME_FIELD(cudaDeviceProp, maxSurface1D);
SAME_FIELD(cudaDeviceProp, maxSurface2D);
SAME_FIELD(cudaDeviceProp, maxSurface3D);
SAME_FIELD(cudaDeviceProp, maxSurface1DLayered);
SAME_FIELD(cudaDeviceProp, maxSurface2DLayered);
SAME_FIELD(cudaDeviceProp, maxSurfaceCubemap);
SAME_FIELD(cudaDeviceProp, maxSurfaceCubemapLayered);
SAME_FIELD(cudaDeviceProp, surfaceAlignment);
SAME_FIELD(cudaDeviceProp, concurrentKernels);
SAME_FIELD(cudaDeviceProp, ECCEnabled);
SAME_FIELD(cudaDeviceProp, pciBusID);
SAME_FIELD(cudaDeviceProp, pciDeviceID);
SAME_FIELD(cudaDeviceProp, pciDomainID);
SAME_FIELD(cudaDeviceProp, tccDriver);
SAME_FIELD(cudaDeviceProp, asyncEngineCount);
SAME_FIELD(cudaDeviceProp, unifiedAddressing);
SAME_FIELD(cudaDeviceProp, memoryBusWidth);
SAME_FIELD(cudaDeviceProp, l2CacheSize);
SAME_FIELD(cudaDeviceProp, persistingL2CacheMaxSize);
SAME_FIELD(cudaDeviceProp, maxThreadsPerMultiProcessor);
SAME_FIELD(cudaDeviceProp, streamPrioritiesSupported);
SAME_FIELD(cudaDeviceProp, globalL1CacheSupported);
SAME_FIELD(cudaDeviceProp, localL1CacheSupported);
SAME_FIELD(cudaDeviceProp, sharedMemPerMultiprocessor);
SAME_FIELD(cudaDeviceProp, regsPerMultiprocessor);
SAME_FIELD(cudaDeviceProp, managedMemory);
SAME_FIELD(cudaDeviceProp, isMultiGpuBoard);
SAME_FIELD(cudaDeviceProp, multiGpuBoardGroupID);
SAME_FIELD(cudaDeviceProp, hostNativeAtomicSupported);
SAME_FIELD(cudaDeviceProp, pageableMemoryAccess);
SAME_FIELD(cudaDeviceProp, concurrentManagedAccess);
SAME_FIELD(cudaDeviceProp, computePreemptionSupported);
SAME_FIELD(cudaDeviceProp, canUseHostPointerForRegisteredMem);
SAME_FIELD(cudaDeviceProp, cooperativeLaunch);
SAME_FIELD(cudaDeviceProp, sharedMemPerBlockOptin);
SAME_FIELD(cudaDeviceProp, pageableMemoryAccessUsesHostPageTables);
SAME_FIELD(cudaDeviceProp, directManagedMemAccessFromHost);
SAME_FIELD(cudaDeviceProp, maxBlocksPerMultiProcessor);
SAME_FIELD(cudaDeviceProp, accessPolicyMaxWindowSize);
SAME_FIELD(cudaDeviceProp, reservedSharedMemPerBlock);
SAME_FIELD(cudaDeviceProp, hostRegisterSupported);
SAME_FIELD(cudaDeviceProp, sparseCudaArraySupported);
SAME_FIELD(cudaDeviceProp, hostRegisterReadOnlySupported);
SAME_FIELD(cudaDeviceProp, timelineSemaphoreInteropSupported);
SAME_FIELD(cudaDeviceProp, memoryPoolsSupported);
SAME_FIELD(cudaDeviceProp, gpuDirectRDMASupported);
SAME_FIELD(cudaDeviceProp, gpuDirectRDMAFlushWritesOptions);
SAME_FIELD(cudaDeviceProp, gpuDirectRDMAWritesOrdering);
SAME_FIELD(cudaDeviceProp, memoryPoolSupportedHandleTypes);
SAME_FIELD(cudaDeviceProp, deferredMappingCudaArraySupported);
SAME_FIELD(cudaDeviceProp, ipcEventSupported);
SAME_FIELD(cudaDeviceProp, clusterLaunch);
SAME_FIELD(cudaDeviceProp, unifiedFunctionPointers);
SAME_FIELD(cudaDeviceProp, deviceNumaConfig);
SAME_FIELD(cudaDeviceProp, deviceNumaId);
SAME_FIELD(cudaDeviceProp, mpsEnabled);
SAME_FIELD(cudaDeviceProp, hostNumaId);
SAME_FIELD(cudaDeviceProp, gpuPciDeviceID);
SAME_FIELD(cudaDeviceProp, gpuPciSubsystemID);
SAME_FIELD(cudaDeviceProp, hostNumaMultinodeIpcSupported);
SAME_FIELD(cudaDeviceProp, reserved);
SAME_VALUE(cudaMemcpyHostToHost);
SAME_VALUE(cudaMemcpyHostToDevice);
SAME_VALUE(cudaMemcpyDeviceToHost);
SAME_VALUE(cudaMemcpyDeviceToDevice);
SAME_VALUE(cudaMemcpyDefault);
SAME_VALUE(cudaMemoryTypeUnregistered);
SAME_VALUE(cudaMemoryTypeHost);
SAME_VALUE(cudaMemoryTypeDevice);
SAME_VALUE(cudaMemoryTypeManaged);
SAME_VALUE(cudaLimitStackSize);
SAME_VALUE(cudaLimitPrintfFifoSize);
SAME_VALUE(cudaLimitMallocHeapSize);
SAME_VALUE(cudaLimitDevRuntimeSyncDepth);
SAME_VALUE(cudaLimitDevRuntimePendingLaunchCount);
SAME_VALUE(cudaLimitMaxL2FetchGranularity);
SAME_VALUE(cudaLimitPersistingL2CacheSize);
SAME_VALUE(cudaFuncCachePreferNone);
SAME_VALUE(cudaFuncCachePreferShared);
SAME_VALUE(cudaFuncCachePreferL1);
SAME_VALUE(cudaFuncCachePreferEqual);
SAME_VALUE(cudaFuncAttributeMaxDynamicSharedMemorySize);
SAME_VALUE(cudaFuncAttributePreferredSharedMemoryCarveout);
SAME_VALUE(cudaFuncAttributeClusterDimMustBeSet);
SAME_VALUE(cudaFuncAttributeRequiredClusterWidth);
SAME_VALUE(cudaFuncAttributeRequiredClusterHeight);
SAME_VALUE(cudaFuncAttributeRequiredClusterDepth);
SAME_VALUE(cudaFuncAttributeNonPortableClusterSizeAllowed);
SAME_VALUE(cudaFuncAttributeClusterSchedulingPolicyPreference);
SAME_VALUE(cudaLaunchAttributeIgnore);
SAME_VALUE(cudaLaunchAttributeAccessPolicyWindow);
SAME_VALUE(cudaLaunchAttributeCooperative);
SAME_VALUE(cudaLaunchAttributeSynchronizationPolicy);
SAME_VALUE(cudaLaunchAttributeClusterDimension);
SAME_VALUE(cudaLaunchAttributeClusterSchedulingPolicyPreference);
SAME_VALUE(cudaLaunchAttributeProgrammaticStreamSerialization);
SAME_VALUE(cudaLaunchAttributeProgrammaticEvent);
SAME_VALUE(cudaLaunchAttributePriority);
SAME_VALUE(cudaLaunchAttributeMemSyncDomainMap);
SAME_VALUE(cudaLaunchAttributeMemSyncDomain);
SAME_VALUE(cudaLaunchAttributePreferredClusterDimension);
SAME_VALUE(cudaLaunchAttributeLaunchCompletionEvent);
SAME_VALUE(cudaLaunchAttributeDeviceUpdatableKernelNode);
SAME_VALUE(cudaLaunchAttributePreferredSharedMemoryCarveout);
SAME_VALUE(cudaLaunchAttributeNvlinkUtilCentricScheduling);
SAME_VALUE(cudaMemLocationTypeInvalid);
SAME_VALUE(cudaMemLocationTypeDevice);
SAME_VALUE(cudaMemLocationTypeHost);
SAME_VALUE(cudaMemLocationTypeHostNuma);
SAME_VALUE(cudaMemLocationTypeHostNumaCurrent);
SAME_VALUE(cudaMemAdviseSetReadMostly);
SAME_VALUE(cudaMemAdviseUnsetReadMostly);
SAME_VALUE(cudaMemAdviseSetPreferredLocation);
SAME_VALUE(cudaMemAdviseUnsetPreferredLocation);
SAME_VALUE(cudaMemAdviseSetAccessedBy);
SAME_VALUE(cudaMemAdviseUnsetAccessedBy);
SAME_VALUE(cudaMemPoolReuseFollowEventDependencies);
SAME_VALUE(cudaMemPoolReuseAllowOpportunistic);
SAME_VALUE(cudaMemPoolReuseAllowInternalDependencies);
SAME_VALUE(cudaMemPoolAttrReleaseThreshold);
SAME_VALUE(cudaMemPoolAttrReservedMemCurrent);
SAME_VALUE(cudaMemPoolAttrReservedMemHigh);
SAME_VALUE(cudaMemPoolAttrUsedMemCurrent);
SAME_VALUE(cudaMemPoolAttrUsedMemHigh);
SAME_VALUE(cudaStreamCaptureStatusNone);
SAME_VALUE(cudaStreamCaptureStatusActive);
SAME_VALUE(cudaStreamCaptureStatusInvalidated);
SAME_VALUE(cudaStreamCaptureModeGlobal);
SAME_VALUE(cudaStreamCaptureModeThreadLocal);
SAME_VALUE(cudaStreamCaptureModeRelaxed);
SAME_VALUE(cudaGraphNodeTypeKernel);
SAME_VALUE(cudaGraphNodeTypeMemcpy);
SAME_VALUE(cudaGraphNodeTypeMemset);
SAME_VALUE(cudaGraphNodeTypeHost);
SAME_VALUE(cudaGraphNodeTypeGraph);
SAME_VALUE(cudaGraphNodeTypeEmpty);
SAME_VALUE(cudaGraphNodeTypeWaitEvent);
SAME_VALUE(cudaGraphNodeTypeEventRecord);
SAME_VALUE(cudaGraphNodeTypeMemAlloc);
SAME_VALUE(cudaGraphNodeTypeMemFree);
SAME_VALUE(cudaGraphNodeTypeExtSemaphoreSignal);
SAME_VALUE(cudaGraphNodeTypeExtSemaphoreWait);
SAME_VALUE(cudaGraphNodeTypeConditional);
SAME_VALUE(cudaGraphCondAssignDefault);
SAME_VALUE(cudaGraphCondTypeIf);
SAME_VALUE(cudaGraphCondTypeWhile);
SAME_VALUE(cudaGraphCondTypeSwitch);
SAME_VALUE(cudaGraphChildGraphOwnershipClone);
SAME_VALUE(cudaGraphChildGraphOwnershipMove);
SAME_SIZE(cudaGraphConditionalHandle);
SAME_SIZE(cudaConditionalNodeParams);
SAME_FIELD(cudaConditionalNodeParams, handle);
SAME_FIELD(cudaConditionalNodeParams, type);
SAME_FIELD(cudaConditionalNodeParams, size);
SAME_FIELD(cudaConditionalNodeParams, phGraph_out);
SAME_SIZE(cudaKernelNodeParamsV2);
SAME_FIELD(cudaKernelNodeParamsV2, func);
SAME_FIELD(cudaKernelNodeParamsV2, gridDim);
SAME_FIELD(cudaKernelNodeParamsV2, blockDim);
SAME_FIELD(cudaKernelNodeParamsV2, sharedMemBytes);
SAME_FIELD(cudaKernelNodeParamsV2, kernelParams);
SAME_FIELD(cudaKernelNodeParamsV2, extra);
SAME_SIZE(cudaMemcpyNodeParams);
SAME_FIELD(cudaMemcpyNodeParams, flags);
SAME_FIELD(cudaMemcpyNodeParams, copyParams);
SAME_SIZE(cudaMemsetParamsV2);
SAME_FIELD(cudaMemsetParamsV2, dst);
SAME_FIELD(cudaMemsetParamsV2, pitch);
SAME_FIELD(cudaMemsetParamsV2, value);
SAME_FIELD(cudaMemsetParamsV2, elementSize);
SAME_FIELD(cudaMemsetParamsV2, width);
SAME_FIELD(cudaMemsetParamsV2, height);
SAME_SIZE(cudaHostNodeParamsV2);
SAME_FIELD(cudaHostNodeParamsV2, fn);
SAME_FIELD(cudaHostNodeParamsV2, userData);
SAME_SIZE(cudaChildGraphNodeParams);
SAME_FIELD(cudaChildGraphNodeParams, graph);
SAME_FIELD(cudaChildGraphNodeParams, ownership);
SAME_SIZE(cudaEventRecordNodeParams);
SAME_SIZE(cudaEventWaitNodeParams);
SAME_SIZE(cudaMemFreeNodeParams);
static_assert(sizeof(cudart::cudaMemAllocNodeParams) == sizeof(::cudaMemAllocNodeParamsV2) &&
              offsetof(cudart::cudaMemAllocNodeParams, dptr) == offsetof(::cudaMemAllocNodeParamsV2, dptr) &&
              offsetof(cudart::cudaMemAllocNodeParams, bytesize) ==
                  offsetof(::cudaMemAllocNodeParamsV2, bytesize));
SAME_SIZE(cudaGraphNodeParams);
SAME_FIELD(cudaGraphNodeParams, type);
SAME_FIELD(cudaGraphNodeParams, kernel);
SAME_FIELD(cudaGraphNodeParams, memcpy);
SAME_FIELD(cudaGraphNodeParams, memset);
SAME_FIELD(cudaGraphNodeParams, host);
SAME_FIELD(cudaGraphNodeParams, graph);
SAME_FIELD(cudaGraphNodeParams, eventWait);
SAME_FIELD(cudaGraphNodeParams, eventRecord);
SAME_FIELD(cudaGraphNodeParams, alloc);
SAME_FIELD(cudaGraphNodeParams, free);
SAME_FIELD(cudaGraphNodeParams, conditional);
SAME_FIELD(cudaGraphNodeParams, reserved2);
SAME_VALUE(cudaMemAllocationTypePinned);
SAME_VALUE(cudaMemAllocationTypeManaged);
SAME_VALUE(cudaMemHandleTypeNone);
SAME_VALUE(cudaMemHandleTypeFabric);
SAME_VALUE(cudaMemAccessFlagsProtReadWrite);
SAME_SIZE(cudaMemPoolProps);
SAME_FIELD(cudaMemPoolProps, allocType);
SAME_FIELD(cudaMemPoolProps, handleTypes);
SAME_FIELD(cudaMemPoolProps, location);
SAME_FIELD(cudaMemPoolProps, maxSize);
SAME_FIELD(cudaMemPoolProps, usage);
SAME_FIELD(cudaMemPoolProps, reserved);
SAME_SIZE(cudaMemAccessDesc);
SAME_FIELD(cudaMemAccessDesc, location);
SAME_FIELD(cudaMemAccessDesc, flags);
SAME_SIZE(cudaMemAllocNodeParams);
SAME_FIELD(cudaMemAllocNodeParams, poolProps);
SAME_FIELD(cudaMemAllocNodeParams, accessDescs);
SAME_FIELD(cudaMemAllocNodeParams, accessDescCount);
SAME_FIELD(cudaMemAllocNodeParams, bytesize);
SAME_FIELD(cudaMemAllocNodeParams, dptr);
SAME_FLAG(cudaEventRecordExternal);
SAME_FLAG(cudaEventWaitExternal);
SAME_SIZE(cudaKernelNodeParams);
SAME_FIELD(cudaKernelNodeParams, func);
SAME_FIELD(cudaKernelNodeParams, gridDim);
SAME_FIELD(cudaKernelNodeParams, blockDim);
SAME_FIELD(cudaKernelNodeParams, sharedMemBytes);
SAME_FIELD(cudaKernelNodeParams, kernelParams);
SAME_FIELD(cudaKernelNodeParams, extra);
SAME_SIZE(cudaMemsetParams);
SAME_FIELD(cudaMemsetParams, dst);
SAME_FIELD(cudaMemsetParams, pitch);
SAME_FIELD(cudaMemsetParams, value);
SAME_FIELD(cudaMemsetParams, elementSize);
SAME_FIELD(cudaMemsetParams, width);
SAME_FIELD(cudaMemsetParams, height);
SAME_SIZE(cudaGraphEdgeData);
SAME_FIELD(cudaGraphEdgeData, from_port);
SAME_FIELD(cudaGraphEdgeData, to_port);
SAME_FIELD(cudaGraphEdgeData, type);
SAME_FIELD(cudaGraphEdgeData, reserved);
SAME_VALUE(cudaGraphExecUpdateSuccess);
SAME_VALUE(cudaGraphExecUpdateError);
SAME_VALUE(cudaGraphExecUpdateErrorTopologyChanged);
SAME_VALUE(cudaGraphExecUpdateErrorNodeTypeChanged);
SAME_VALUE(cudaGraphExecUpdateErrorFunctionChanged);
SAME_VALUE(cudaGraphExecUpdateErrorParametersChanged);
SAME_VALUE(cudaGraphExecUpdateErrorNotSupported);
SAME_VALUE(cudaGraphExecUpdateErrorUnsupportedFunctionChange);
SAME_VALUE(cudaGraphExecUpdateErrorAttributesChanged);
SAME_SIZE(cudaGraphExecUpdateResultInfo);
SAME_FIELD(cudaGraphExecUpdateResultInfo, result);
SAME_FIELD(cudaGraphExecUpdateResultInfo, errorNode);
SAME_FIELD(cudaGraphExecUpdateResultInfo, errorFromNode);
SAME_VALUE(cudaGraphMemAttrUsedMemCurrent);
SAME_VALUE(cudaGraphMemAttrUsedMemHigh);
SAME_VALUE(cudaGraphMemAttrReservedMemCurrent);
SAME_VALUE(cudaGraphMemAttrReservedMemHigh);
SAME_VALUE(cudaGraphInstantiateSuccess);
SAME_VALUE(cudaGraphInstantiateError);
SAME_VALUE(cudaGraphInstantiateInvalidStructure);
SAME_VALUE(cudaGraphInstantiateConditionalHandleUnused);
SAME_SIZE(cudaGraphInstantiateParams);
SAME_FIELD(cudaGraphInstantiateParams, flags);
SAME_FIELD(cudaGraphInstantiateParams, uploadStream);
SAME_FIELD(cudaGraphInstantiateParams, errNode_out);
SAME_FIELD(cudaGraphInstantiateParams, result_out);
SAME_FLAG(cudaGraphInstantiateFlagUpload);
SAME_FLAG(cudaStreamAddCaptureDependencies);
SAME_FLAG(cudaStreamSetCaptureDependencies);
SAME_SIZE(cudaHostNodeParams);
SAME_FIELD(cudaHostNodeParams, fn);
SAME_FIELD(cudaHostNodeParams, userData);
SAME_VALUE(cudaChannelFormatKindSigned);
SAME_VALUE(cudaChannelFormatKindUnsigned);
SAME_VALUE(cudaChannelFormatKindFloat);
SAME_VALUE(cudaChannelFormatKindNone);
SAME_VALUE(cudaResourceTypeArray);
SAME_VALUE(cudaResourceTypeMipmappedArray);
SAME_VALUE(cudaResourceTypeLinear);
SAME_VALUE(cudaResourceTypePitch2D);
SAME_VALUE(cudaResViewFormatNone);
SAME_VALUE(cudaResViewFormatUnsignedChar1);
SAME_VALUE(cudaResViewFormatUnsignedChar2);
SAME_VALUE(cudaResViewFormatUnsignedChar4);
SAME_VALUE(cudaResViewFormatSignedChar1);
SAME_VALUE(cudaResViewFormatSignedChar2);
SAME_VALUE(cudaResViewFormatSignedChar4);
SAME_VALUE(cudaResViewFormatUnsignedShort1);
SAME_VALUE(cudaResViewFormatUnsignedShort2);
SAME_VALUE(cudaResViewFormatUnsignedShort4);
SAME_VALUE(cudaResViewFormatSignedShort1);
SAME_VALUE(cudaResViewFormatSignedShort2);
SAME_VALUE(cudaResViewFormatSignedShort4);
SAME_VALUE(cudaResViewFormatUnsignedInt1);
SAME_VALUE(cudaResViewFormatUnsignedInt2);
SAME_VALUE(cudaResViewFormatUnsignedInt4);
SAME_VALUE(cudaResViewFormatSignedInt1);
SAME_VALUE(cudaResViewFormatSignedInt2);
SAME_VALUE(cudaResViewFormatSignedInt4);
SAME_VALUE(cudaResViewFormatHalf1);
SAME_VALUE(cudaResViewFormatHalf2);
SAME_VALUE(cudaResViewFormatHalf4);
SAME_VALUE(cudaResViewFormatFloat1);
SAME_VALUE(cudaResViewFormatFloat2);
SAME_VALUE(cudaResViewFormatFloat4);
SAME_VALUE(cudaResViewFormatUnsignedBlockCompressed1);
SAME_VALUE(cudaResViewFormatUnsignedBlockCompressed7);
SAME_VALUE(cudaAddressModeWrap);
SAME_VALUE(cudaAddressModeClamp);
SAME_VALUE(cudaAddressModeMirror);
SAME_VALUE(cudaAddressModeBorder);
SAME_VALUE(cudaFilterModePoint);
SAME_VALUE(cudaFilterModeLinear);
SAME_VALUE(cudaReadModeElementType);
SAME_VALUE(cudaReadModeNormalizedFloat);
SAME_VALUE(cudaSharedMemBankSizeDefault);
SAME_VALUE(cudaSharedMemBankSizeFourByte);
SAME_VALUE(cudaSharedMemBankSizeEightByte);
SAME_VALUE(cudaDevAttrMaxThreadsPerBlock);
SAME_VALUE(cudaDevAttrMaxBlockDimX);
SAME_VALUE(cudaDevAttrMaxBlockDimY);
SAME_VALUE(cudaDevAttrMaxBlockDimZ);
SAME_VALUE(cudaDevAttrMaxGridDimX);
SAME_VALUE(cudaDevAttrMaxGridDimY);
SAME_VALUE(cudaDevAttrMaxGridDimZ);
SAME_VALUE(cudaDevAttrMaxSharedMemoryPerBlock);
SAME_VALUE(cudaDevAttrTotalConstantMemory);
SAME_VALUE(cudaDevAttrWarpSize);
SAME_VALUE(cudaDevAttrMaxPitch);
SAME_VALUE(cudaDevAttrMaxRegistersPerBlock);
SAME_VALUE(cudaDevAttrClockRate);
SAME_VALUE(cudaDevAttrTextureAlignment);
SAME_VALUE(cudaDevAttrGpuOverlap);
SAME_VALUE(cudaDevAttrMultiProcessorCount);
SAME_VALUE(cudaDevAttrKernelExecTimeout);
SAME_VALUE(cudaDevAttrIntegrated);
SAME_VALUE(cudaDevAttrCanMapHostMemory);
SAME_VALUE(cudaDevAttrComputeMode);
SAME_VALUE(cudaDevAttrMaxTexture1DWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DHeight);
SAME_VALUE(cudaDevAttrMaxTexture3DWidth);
SAME_VALUE(cudaDevAttrMaxTexture3DHeight);
SAME_VALUE(cudaDevAttrMaxTexture3DDepth);
SAME_VALUE(cudaDevAttrMaxTexture2DLayeredWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DLayeredHeight);
SAME_VALUE(cudaDevAttrMaxTexture2DLayeredLayers);
SAME_VALUE(cudaDevAttrSurfaceAlignment);
SAME_VALUE(cudaDevAttrConcurrentKernels);
SAME_VALUE(cudaDevAttrEccEnabled);
SAME_VALUE(cudaDevAttrPciBusId);
SAME_VALUE(cudaDevAttrPciDeviceId);
SAME_VALUE(cudaDevAttrTccDriver);
SAME_VALUE(cudaDevAttrMemoryClockRate);
SAME_VALUE(cudaDevAttrGlobalMemoryBusWidth);
SAME_VALUE(cudaDevAttrL2CacheSize);
SAME_VALUE(cudaDevAttrMaxThreadsPerMultiProcessor);
SAME_VALUE(cudaDevAttrAsyncEngineCount);
SAME_VALUE(cudaDevAttrUnifiedAddressing);
SAME_VALUE(cudaDevAttrMaxTexture1DLayeredWidth);
SAME_VALUE(cudaDevAttrMaxTexture1DLayeredLayers);
SAME_VALUE(cudaDevAttrMaxTexture2DGatherWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DGatherHeight);
SAME_VALUE(cudaDevAttrMaxTexture3DWidthAlt);
SAME_VALUE(cudaDevAttrMaxTexture3DHeightAlt);
SAME_VALUE(cudaDevAttrMaxTexture3DDepthAlt);
SAME_VALUE(cudaDevAttrPciDomainId);
SAME_VALUE(cudaDevAttrTexturePitchAlignment);
SAME_VALUE(cudaDevAttrMaxTextureCubemapWidth);
SAME_VALUE(cudaDevAttrMaxTextureCubemapLayeredWidth);
SAME_VALUE(cudaDevAttrMaxTextureCubemapLayeredLayers);
SAME_VALUE(cudaDevAttrMaxSurface1DWidth);
SAME_VALUE(cudaDevAttrMaxSurface2DWidth);
SAME_VALUE(cudaDevAttrMaxSurface2DHeight);
SAME_VALUE(cudaDevAttrMaxSurface3DWidth);
SAME_VALUE(cudaDevAttrMaxSurface3DHeight);
SAME_VALUE(cudaDevAttrMaxSurface3DDepth);
SAME_VALUE(cudaDevAttrMaxSurface1DLayeredWidth);
SAME_VALUE(cudaDevAttrMaxSurface1DLayeredLayers);
SAME_VALUE(cudaDevAttrMaxSurface2DLayeredWidth);
SAME_VALUE(cudaDevAttrMaxSurface2DLayeredHeight);
SAME_VALUE(cudaDevAttrMaxSurface2DLayeredLayers);
SAME_VALUE(cudaDevAttrMaxSurfaceCubemapWidth);
SAME_VALUE(cudaDevAttrMaxSurfaceCubemapLayeredWidth);
SAME_VALUE(cudaDevAttrMaxSurfaceCubemapLayeredLayers);
SAME_VALUE(cudaDevAttrMaxTexture1DLinearWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DLinearWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DLinearHeight);
SAME_VALUE(cudaDevAttrMaxTexture2DLinearPitch);
SAME_VALUE(cudaDevAttrMaxTexture2DMipmappedWidth);
SAME_VALUE(cudaDevAttrMaxTexture2DMipmappedHeight);
SAME_VALUE(cudaDevAttrComputeCapabilityMajor);
SAME_VALUE(cudaDevAttrComputeCapabilityMinor);
SAME_VALUE(cudaDevAttrMaxTexture1DMipmappedWidth);
SAME_VALUE(cudaDevAttrStreamPrioritiesSupported);
SAME_VALUE(cudaDevAttrGlobalL1CacheSupported);
SAME_VALUE(cudaDevAttrLocalL1CacheSupported);
SAME_VALUE(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
SAME_VALUE(cudaDevAttrMaxRegistersPerMultiprocessor);
SAME_VALUE(cudaDevAttrManagedMemory);
SAME_VALUE(cudaDevAttrIsMultiGpuBoard);
SAME_VALUE(cudaDevAttrMultiGpuBoardGroupID);
SAME_VALUE(cudaDevAttrHostNativeAtomicSupported);
SAME_VALUE(cudaDevAttrSingleToDoublePrecisionPerfRatio);
SAME_VALUE(cudaDevAttrPageableMemoryAccess);
SAME_VALUE(cudaDevAttrConcurrentManagedAccess);
SAME_VALUE(cudaDevAttrComputePreemptionSupported);
SAME_VALUE(cudaDevAttrCanUseHostPointerForRegisteredMem);
SAME_VALUE(cudaDevAttrReserved92);
SAME_VALUE(cudaDevAttrReserved93);
SAME_VALUE(cudaDevAttrReserved94);
SAME_VALUE(cudaDevAttrCooperativeLaunch);
SAME_VALUE(cudaDevAttrReserved96);
SAME_VALUE(cudaDevAttrMaxSharedMemoryPerBlockOptin);
SAME_VALUE(cudaDevAttrCanFlushRemoteWrites);
SAME_VALUE(cudaDevAttrHostRegisterSupported);
SAME_VALUE(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
SAME_VALUE(cudaDevAttrDirectManagedMemAccessFromHost);
SAME_VALUE(cudaDevAttrMaxBlocksPerMultiprocessor);
SAME_VALUE(cudaDevAttrMaxPersistingL2CacheSize);
SAME_VALUE(cudaDevAttrMaxAccessPolicyWindowSize);
SAME_VALUE(cudaDevAttrReservedSharedMemoryPerBlock);
SAME_VALUE(cudaDevAttrSparseCudaArraySupported);
SAME_VALUE(cudaDevAttrHostRegisterReadOnlySupported);
SAME_VALUE(cudaDevAttrTimelineSemaphoreInteropSupported);
SAME_VALUE(cudaDevAttrMemoryPoolsSupported);
SAME_VALUE(cudaDevAttrGPUDirectRDMASupported);
SAME_VALUE(cudaDevAttrGPUDirectRDMAFlushWritesOptions);
SAME_VALUE(cudaDevAttrGPUDirectRDMAWritesOrdering);
SAME_VALUE(cudaDevAttrMemoryPoolSupportedHandleTypes);
SAME_VALUE(cudaDevAttrClusterLaunch);
SAME_VALUE(cudaDevAttrDeferredMappingCudaArraySupported);
SAME_VALUE(cudaDevAttrReserved122);
SAME_VALUE(cudaDevAttrReserved123);
SAME_VALUE(cudaDevAttrReserved124);
SAME_VALUE(cudaDevAttrIpcEventSupport);
SAME_VALUE(cudaDevAttrMemSyncDomainCount);
SAME_VALUE(cudaDevAttrReserved127);
SAME_VALUE(cudaDevAttrReserved128);
SAME_VALUE(cudaDevAttrReserved129);
SAME_VALUE(cudaDevAttrNumaConfig);
SAME_VALUE(cudaDevAttrNumaId);
SAME_VALUE(cudaDevAttrReserved132);
SAME_VALUE(cudaDevAttrMpsEnabled);
SAME_VALUE(cudaDevAttrHostNumaId);
SAME_VALUE(cudaDevAttrD3D12CigSupported);
SAME_VALUE(cudaDevAttrVulkanCigSupported);
SAME_VALUE(cudaDevAttrGpuPciDeviceId);
SAME_VALUE(cudaDevAttrGpuPciSubsystemId);
SAME_VALUE(cudaDevAttrReserved141);
SAME_VALUE(cudaDevAttrHostNumaMemoryPoolsSupported);
SAME_VALUE(cudaDevAttrHostNumaMultinodeIpcSupported);
SAME_VALUE(cudaDevAttrHostMemoryPoolsSupported);
SAME_VALUE(cudaDevAttrReserved145);
SAME_VALUE(cudaDevAttrOnlyPartialHostNativeAtomicSupported);

SAME_FLAG(cudaHostAllocDefault);
SAME_FLAG(cudaHostAllocPortable);
SAME_FLAG(cudaHostAllocMapped);
SAME_FLAG(cudaHostAllocWriteCombined);
SAME_FLAG(cudaHostRegisterDefault);
SAME_FLAG(cudaHostRegisterPortable);
SAME_FLAG(cudaHostRegisterMapped);
SAME_FLAG(cudaHostRegisterIoMemory);
SAME_FLAG(cudaHostRegisterReadOnly);
SAME_FLAG(cudaStreamDefault);
SAME_FLAG(cudaStreamNonBlocking);
SAME_FLAG(cudaEventDefault);
SAME_FLAG(cudaEventBlockingSync);
SAME_FLAG(cudaEventDisableTiming);
SAME_FLAG(cudaEventInterprocess);
SAME_FLAG(cudaDeviceScheduleAuto);
SAME_FLAG(cudaDeviceScheduleSpin);
SAME_FLAG(cudaDeviceScheduleYield);
SAME_FLAG(cudaDeviceScheduleBlockingSync);
SAME_FLAG(cudaDeviceScheduleMask);
SAME_FLAG(cudaDeviceMapHost);
SAME_FLAG(cudaDeviceLmemResizeToMax);
SAME_FLAG(cudaDeviceMask);
SAME_FLAG(cudaMemAttachGlobal);
SAME_FLAG(cudaMemAttachHost);
SAME_FLAG(cudaMemAttachSingle);
SAME_FLAG(cudaOccupancyDefault);
SAME_FLAG(cudaOccupancyDisableCachingOverride);
SAME_FLAG(cudaArrayDefault);
SAME_FLAG(cudaArrayLayered);
SAME_FLAG(cudaArraySurfaceLoadStore);
SAME_FLAG(cudaArrayCubemap);
SAME_FLAG(cudaArrayTextureGather);
SAME_FLAG(cudaArrayColorAttachment);
SAME_FLAG(cudaArraySparse);
SAME_FLAG(cudaArrayDeferredMapping);

#define CUDART_ERROR(name, value, message)                                                                   \
  static_assert(static_cast<int>(cudart::name) == static_cast<int>(::name) &&                                \
                    value == static_cast<int>(::name),                                                       \
                #name);
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR

namespace {

TEST(CudartAbi, SpecialStreamHandlesMatch) {
  EXPECT_EQ(oursStreamLegacy, reinterpret_cast<uintptr_t>(cudaStreamLegacy));
  EXPECT_EQ(oursStreamPerThread, reinterpret_cast<uintptr_t>(cudaStreamPerThread));
}

TEST(CudartAbi, EveryErrorCodeOfTheHeadersIsKnown) {
  // The header's enum has no "last" member: count what Errors.def lists and
  // spot-check the ends of the range.
  int count = 0;
#define CUDART_ERROR(name, value, message) ++count;
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR
  EXPECT_GE(count, 130);
  EXPECT_EQ(static_cast<int>(cudart::cudaErrorUnknown), 999);
}

TEST(CudartAbi, Dim3PassesLikeTheHeadersDim3) {
  // Both are three unsigned ints, trivially copyable: passed in registers the same way.
  static_assert(std::is_trivially_copyable_v<cudart::dim3> && std::is_trivially_copyable_v<::dim3>);
  ::dim3 theirs(3, 4, 5);
  cudart::dim3 ours;
  std::memcpy(static_cast<void *>(&ours), &theirs, sizeof ours);
  EXPECT_EQ(ours.x, 3u);
  EXPECT_EQ(ours.z, 5u);
}

} // namespace
