// kernels/apps/misuse, DESIGN.md §4 row "bar.sync 1,32 with only the surviving warp".
// 64 threads; warp 1 returns, warp 0 syncs on barrier 1 with a count of 32: only itself.
// Hardware: completes. ptxvm: completes, no diagnostic.
#include "misuse.h"

__global__ void survivorOnly(int *out) {
  if (threadIdx.x >= 32) return;
  asm volatile("bar.sync 1, 32;" ::: "memory");
  out[threadIdx.x] = 1;
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 32 * sizeof(int)));
  survivorOnly<<<1, 64>>>(out);
  if (reportLaunchAndSync()) reportDeviceResult(out, 32, [](int) { return 1; });
  return 0;
}
