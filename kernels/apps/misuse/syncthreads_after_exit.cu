// kernels/apps/misuse, DESIGN.md §4 row "__syncthreads() after one warp of the CTA has exited".
// 64 threads; warp 1 returns at once, warp 0 exchanges values through shared memory across a
// __syncthreads() (bar.sync 0, which counts every thread that has not exited).
// Hardware: completes. ptxvm: completes, no diagnostic.
#include "misuse.h"

__global__ void syncAfterExit(int *out) {
  __shared__ int s[32];
  if (threadIdx.x >= 32) return;
  s[threadIdx.x] = 3 * threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(out, 0xff, 32 * sizeof(int)));
  syncAfterExit<<<1, 64>>>(out);
  if (reportLaunchAndSync()) reportDeviceResult(out, 32, [](int i) { return 3 * (31 - i); });
  return 0;
}
