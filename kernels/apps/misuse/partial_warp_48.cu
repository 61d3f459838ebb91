// kernels/apps/misuse, DESIGN.md §4 row "48-thread CTA (warp 1 has 16 threads), both warps
// bar.sync 1,64": a warp's arrival counts 32 threads whatever its size, so 2 warps make 64.
// Values are exchanged across the barrier through shared memory.
// Hardware: completes. ptxvm: completes, no diagnostic.
#include "misuse.h"

__global__ void partialWarp(int *out) {
  __shared__ int s[48];
  s[threadIdx.x] = static_cast<int>(threadIdx.x * threadIdx.x);
  asm volatile("bar.sync 1, 64;" ::: "memory");
  out[threadIdx.x] = s[47 - threadIdx.x];
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 48 * sizeof(int)));
  CHECK(cudaMemset(out, 0xff, 48 * sizeof(int)));
  partialWarp<<<1, 48>>>(out);
  if (reportLaunchAndSync()) reportDeviceResult(out, 48, [](int i) { return (47 - i) * (47 - i); });
  return 0;
}
