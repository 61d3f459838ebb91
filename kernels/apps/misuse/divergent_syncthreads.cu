// kernels/apps/misuse, DESIGN.md §4 row "__syncthreads() inside a branch that splits a warp
// 16/16" (and the issue's "divergent __syncthreads"). 64 threads; in each warp lanes 0-15 and
// 16-31 reach different __syncthreads() calls (bar.sync 0, which is .aligned).
// Hardware: completes. ptxvm: completes, with a divergent-barrier warning.
#include "misuse.h"

__global__ void divergentSyncthreads(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = static_cast<int>(threadIdx.x);
  if ((threadIdx.x & 31) < 16) {
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
  } else {
    __syncthreads();
    out[threadIdx.x] = -s[63 - threadIdx.x];
  }
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 64 * sizeof(int)));
  divergentSyncthreads<<<1, 64>>>(out);
  if (reportLaunchAndSync())
    reportDeviceResult(out, 64, [](int i) { return (i & 31) < 16 ? 63 - i : -(63 - i); });
  return 0;
}
