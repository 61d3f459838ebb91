// Shared by the programs in kernels/apps/misuse: each runs a kernel that is wrong (or borderline)
// on purpose and prints what the CUDA runtime answered, as data: "launch <error name>",
// "sync <error name>", and, when the kernel completed, "result ok" or "result differs: ...".
// They exit 0 whatever the outcome; only a failing setup call (CHECK) exits 2.
#pragma once

#include "../app_check.h"

// Prints "<step> <cudaErrorName>" and flushes, so that the line survives a hang that follows.
inline cudaError_t report(const char *step, cudaError_t status) {
  std::printf("%s %s\n", step, cudaGetErrorName(status));
  std::fflush(stdout);
  return status;
}

// After a <<<...>>> launch: reports the launch and the synchronization; true when both succeeded.
inline bool reportLaunchAndSync() {
  std::fflush(stdout);
  const cudaError_t launch = report("launch", cudaGetLastError());
  const cudaError_t sync = report("sync", cudaDeviceSynchronize());
  return launch == cudaSuccess && sync == cudaSuccess;
}

// "result ok" when every element of out equals want(i), else the first difference.
template <class T, class Want> void reportResult(const T *out, int n, Want want) {
  for (int i = 0; i < n; ++i)
    if (out[i] != want(i)) {
      std::printf("result differs: element %d is %lld, expected %lld\n", i, static_cast<long long>(out[i]),
                  static_cast<long long>(want(i)));
      return;
    }
  std::printf("result ok\n");
}

// Copies n ints back and reports them against want(i) (only call after a successful sync).
template <class Want> void reportDeviceResult(const int *device, int n, Want want) {
  int *host = new int[n];
  CHECK(cudaMemcpy(host, device, n * sizeof(int), cudaMemcpyDeviceToHost));
  reportResult(host, n, want);
  delete[] host;
}

// The barrier instructions with ids and counts in registers, as CudaDMA-style code writes them.
__device__ __forceinline__ void barSync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void barArrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// Busy-waits about `cycles` clock cycles (the emulator's clock counts instructions).
__device__ __forceinline__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
