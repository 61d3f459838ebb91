// Device-side malloc and free: per-thread allocations that hold data across a kernel and into
// the next, the heap limit (cudaLimitMallocHeapSize: malloc returns NULL past it), and a double
// free, which fails the launch.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/heap > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// CHECK-NOT: FAIL
// CHECK: heap: ok
// ERR: ========= free(0x{{[0-9a-f]+}}): not a live allocation of device-side malloc (double free, or a pointer malloc did not return)
// ERR-NEXT: =========     at doubleFree() in {{.*}}heap.cu:{{[0-9]+}}
// clang-format on
#include "Inputs/check.h"

__device__ int *slots[256];

__global__ void allocate(int words) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = static_cast<int *>(malloc(words * sizeof(int)));
  slots[t] = p;
  if (!p) return;
  for (int i = 0; i < words; ++i) p[i] = t * 1000 + i;
}

__global__ void sumAndFree(int words, long long *sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = slots[t];
  long long s = -1;
  if (p) {
    s = 0;
    for (int i = 0; i < words; ++i) s += p[i];
    free(p);
  }
  sums[t] = s;
}

__global__ void tooMuch(unsigned long long bytes, int *gotNull) { *gotNull = malloc(bytes) == nullptr; }

__global__ void doubleFree() {
  void *p = malloc(64);
  free(p);
  free(p);
}

int main() {
  long long *sums = nullptr;
  EXPECT_OK(cudaMallocManaged(&sums, 256 * sizeof(long long)));
  allocate<<<4, 64>>>(10);
  sumAndFree<<<4, 64>>>(10, sums);
  EXPECT_OK(cudaDeviceSynchronize());
  for (int t = 0; t < 256; ++t) EXPECT(sums[t] == t * 1000LL * 10 + 45);

  size_t heap = 0;
  EXPECT_OK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  EXPECT(heap == 8u << 20);
  int *gotNull = nullptr;
  EXPECT_OK(cudaMallocManaged(&gotNull, sizeof(int)));
  tooMuch<<<1, 1>>>(heap + 1, gotNull);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(*gotNull == 1);
  EXPECT_OK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20));
  tooMuch<<<1, 1>>>(heap + 1, gotNull);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(*gotNull == 0);

  doubleFree<<<1, 1>>>();
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  return finish("heap");
}
