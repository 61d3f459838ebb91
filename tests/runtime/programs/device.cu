// The device and its kernels as objects: properties and attributes of a plausible sm_80-class
// GPU, versions, flags and limits, function attributes, dynamic shared memory beyond 48 KiB
// (cudaFuncSetAttribute), and occupancy.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/device | FileCheck %s
// CHECK: name: ptxvm emulator (sm_80), compute capability 8.0
// CHECK-NOT: FAIL
// CHECK: device: ok
// clang-format on
#include "Inputs/check.h"

#include <cstring>

__global__ void __launch_bounds__(256) bounded(int *out) { out[threadIdx.x] = threadIdx.x; }

__global__ void withStatic(int *out) {
  __shared__ int tile[1024];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void bigShared(int *out, int words) {
  extern __shared__ int dynamic[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) dynamic[i] = i * 2;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int i = 0; i < words; ++i) s += dynamic[i];
    out[0] = int(s % 1000003);
    out[1] = words;
  }
}

// warpSize is PTX's WARP_SZ; a reduction that halves it must reach 1.
__global__ void warpSizes(int *out) {
  int steps = 0;
  for (int i = warpSize / 2; i > 0; i /= 2) ++steps;
  out[0] = warpSize;
  out[1] = steps;
}

int main() {
  int count = 0, device = -1, runtime = 0, driver = 0;
  EXPECT_OK(cudaGetDeviceCount(&count));
  EXPECT_OK(cudaGetDevice(&device));
  EXPECT(count == 1 && device == 0);
  EXPECT_OK(cudaSetDevice(0));
  EXPECT_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_OK(cudaRuntimeGetVersion(&runtime));
  EXPECT_OK(cudaDriverGetVersion(&driver));
  EXPECT(runtime == 13000 && driver >= runtime);

  cudaDeviceProp prop;
  EXPECT_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("name: %s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);
  EXPECT(prop.major == 8 && prop.minor == 0 && prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024);
  EXPECT(prop.multiProcessorCount > 0 && prop.totalGlobalMem > (1ull << 30) && prop.unifiedAddressing == 1);
  EXPECT(prop.sharedMemPerBlock == 48 * 1024 && prop.sharedMemPerBlockOptin > 96 * 1024);
  EXPECT(prop.managedMemory == 1 && prop.concurrentManagedAccess == 1 && prop.canMapHostMemory == 1);
  EXPECT_ERR(cudaGetDeviceProperties(&prop, 3), cudaErrorInvalidDevice);
  int value = 0;
  EXPECT_OK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0));
  EXPECT(value == prop.multiProcessorCount);
  EXPECT_OK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0));
  EXPECT(value == 8);
  EXPECT_OK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  EXPECT(size_t(value) == prop.sharedMemPerBlockOptin);
  EXPECT_OK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  EXPECT(value == prop.maxThreadsPerMultiProcessor);
  char bus[32];
  EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  EXPECT_OK(cudaDeviceGetByPCIBusId(&value, bus));
  EXPECT(value == 0);

  // Flags and limits.
  EXPECT_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  unsigned flags = 0;
  EXPECT_OK(cudaGetDeviceFlags(&flags));
  EXPECT((flags & cudaDeviceScheduleBlockingSync) && (flags & cudaDeviceMapHost));
  EXPECT_ERR(cudaSetDeviceFlags(0x1000), cudaErrorInvalidValue);
  size_t limit = 0;
  EXPECT_OK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4u << 20));
  EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitPrintfFifoSize));
  EXPECT(limit == 4u << 20);
  EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  EXPECT(limit > 0);
  EXPECT_ERR(cudaDeviceGetLimit(&limit, static_cast<cudaLimit>(99)), cudaErrorUnsupportedLimit);
  cudaFuncCache cache;
  EXPECT_OK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
  EXPECT_OK(cudaDeviceGetCacheConfig(&cache));
  EXPECT(cache == cudaFuncCachePreferShared);

  // Function attributes.
  cudaFuncAttributes attr;
  EXPECT_OK(cudaFuncGetAttributes(&attr, bounded));
  EXPECT(attr.maxThreadsPerBlock == 256 && attr.sharedSizeBytes == 0 && attr.binaryVersion == 80);
  EXPECT(attr.ptxVersion == 80 && attr.numRegs > 0 && attr.maxDynamicSharedSizeBytes == 48 * 1024);
  EXPECT_OK(cudaFuncGetAttributes(&attr, withStatic));
  EXPECT(attr.sharedSizeBytes == 4096 && attr.maxDynamicSharedSizeBytes == 48 * 1024 - 4096);
  const char *kernelName = nullptr;
  EXPECT_OK(cudaFuncGetName(&kernelName, bigShared));
  EXPECT(kernelName && std::strcmp(kernelName, "_Z9bigSharedPii") == 0);
  size_t offset = 0, size = 0;
  EXPECT_OK(cudaFuncGetParamInfo(reinterpret_cast<const void *>(bigShared), 1, &offset, &size));
  EXPECT(offset == 8 && size == 4);
  EXPECT_ERR(cudaFuncGetParamInfo(reinterpret_cast<const void *>(bigShared), 2, &offset, &size),
             cudaErrorInvalidValue);
  int notAKernel = 0;
  EXPECT_ERR(cudaFuncGetAttributes(&attr, &notAKernel), cudaErrorInvalidDeviceFunction);
  int *out = nullptr;
  EXPECT_OK(cudaMallocManaged(&out, 1024 * sizeof(int)));
  bounded<<<1, 512>>>(out); // more threads than its launch bounds
  EXPECT_ERR(cudaGetLastError(), cudaErrorLaunchOutOfResources);

  // Dynamic shared memory past 48 KiB needs the attribute.
  const int words = 24 * 1024; // 96 KiB
  bigShared<<<1, 256, words * sizeof(int)>>>(out, words);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFuncSetAttribute(bigShared, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024),
             cudaErrorInvalidValue);
  EXPECT_OK(
      cudaFuncSetAttribute(bigShared, cudaFuncAttributeMaxDynamicSharedMemorySize, words * sizeof(int)));
  EXPECT_OK(cudaFuncGetAttributes(&attr, bigShared));
  EXPECT(attr.maxDynamicSharedSizeBytes == int(words * sizeof(int)));
  bigShared<<<1, 256, words * sizeof(int)>>>(out, words);
  EXPECT_OK(cudaGetLastError());
  EXPECT_OK(cudaDeviceSynchronize());
  long long expect = 0;
  for (int i = 0; i < words; ++i) expect += i * 2;
  EXPECT(out[0] == int(expect % 1000003) && out[1] == words);
  bigShared<<<1, 256, words * sizeof(int) + 4>>>(out, words);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);

  // Occupancy: limited by threads, by shared memory, by launch bounds.
  int blocks = 0;
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, withStatic, 256, 0));
  EXPECT(blocks == 8); // 2048 threads per multiprocessor
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, withStatic, 1024, 0));
  EXPECT(blocks == 2);
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bigShared, 128, words * sizeof(int)));
  EXPECT(blocks == 1); // 96 KiB of a 164 KiB multiprocessor
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded, 512, 0));
  EXPECT(blocks == 0);
  int minGrid = 0, blockSize = 0;
  EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, withStatic, 0, 0));
  EXPECT(blockSize > 0 && blockSize <= 1024 && minGrid >= prop.multiProcessorCount);
  size_t dynamicBytes = 0;
  EXPECT_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&dynamicBytes, bigShared, 2, 128));
  EXPECT(dynamicBytes > 48 * 1024 && dynamicBytes < 96 * 1024);

  // A kernel launched through its handle.
  cudaKernel_t handle = nullptr;
  EXPECT_OK(cudaGetKernel(&handle, withStatic));
  void *args[] = {&out};
  EXPECT_OK(cudaLaunchKernel(reinterpret_cast<const void *>(handle), dim3(1), dim3(64), args, 0, 0));
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(out[0] == 63 && out[63] == 0);
  warpSizes<<<1, 1>>>(out);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(out[0] == 32 && out[1] == 5);
  EXPECT_OK(cudaFree(out));
  return finish("device");
}
