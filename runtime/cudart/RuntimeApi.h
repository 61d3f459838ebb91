// Declarations of the runtime API functions that the driver API (Driver*.cpp) is served by. Runtime.h
// includes this header, so every file that defines one of them is checked against it here.
#pragma once

#include "runtime/cudart/CudaTypes.h"

/// Marks a function libcudart.so.13 exports (the library is built with hidden visibility).
#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

namespace cudart {

CUDART_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size);
CUDART_EXPORT cudaError_t cudaFree(void *devPtr);
CUDART_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
CUDART_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size);
CUDART_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
CUDART_EXPORT cudaError_t cudaFreeHost(void *ptr);
CUDART_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
CUDART_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
CUDART_EXPORT cudaError_t cudaHostUnregister(void *ptr);
CUDART_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
CUDART_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
CUDART_EXPORT cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes, const void *ptr);
CUDART_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
CUDART_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                          cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind);
CUDART_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                            size_t width, size_t height, cudaMemcpyKind kind,
                                            cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count);
CUDART_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
CUDART_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
CUDART_EXPORT cudaError_t cudaDeviceSynchronize();
CUDART_EXPORT cudaError_t cudaDeviceReset();
CUDART_EXPORT cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
CUDART_EXPORT cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit);
CUDART_EXPORT cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config);
CUDART_EXPORT cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
CUDART_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
CUDART_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
CUDART_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
CUDART_EXPORT cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
CUDART_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
CUDART_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func);
CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
CUDART_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                       int priority);
CUDART_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
CUDART_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                void *userData, unsigned int flags);
CUDART_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
CUDART_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
CUDART_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority);
CUDART_EXPORT cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long *streamId);
CUDART_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
CUDART_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event);
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                   unsigned int flags);
CUDART_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event);
CUDART_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event);
CUDART_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
CUDART_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
CUDART_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
CUDART_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status);
CUDART_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
CUDART_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph);
CUDART_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                        unsigned long long flags);
CUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
CUDART_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

} // namespace cudart
