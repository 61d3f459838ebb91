// kernels/apps/misuse, DESIGN.md §4 row "non-aligned barrier.sync 1,64 reached from two PCs by
// one warp's halves". 64 threads; in each warp lanes 0-15 and 16-31 execute different
// barrier.sync instructions (without .aligned, so divergence is allowed) on barrier 1.
// Hardware: completes. ptxvm: completes, no diagnostic.
#include "misuse.h"

__global__ void nonalignedTwoPcs(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = static_cast<int>(threadIdx.x);
  int r;
  if ((threadIdx.x & 31) < 16) {
    asm volatile("barrier.sync 1, %0;" ::"r"(64u) : "memory");
    r = s[63 - threadIdx.x];
  } else {
    asm volatile("barrier.sync %0, 64;" ::"r"(1u) : "memory"); // different text: not merged
    r = 2 * s[63 - threadIdx.x];
  }
  out[threadIdx.x] = r;
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 64 * sizeof(int)));
  nonalignedTwoPcs<<<1, 64>>>(out);
  if (reportLaunchAndSync())
    reportDeviceResult(out, 64, [](int i) { return (i & 31) < 16 ? 63 - i : 2 * (63 - i); });
  return 0;
}
