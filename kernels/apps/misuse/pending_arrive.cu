// kernels/apps/misuse, DESIGN.md §4 row "a bar.arrive still pending when the kernel exits".
// 64 threads; warp 0 arrives on barrier 1 (count 64) and nobody else ever does.
// Hardware: completes. ptxvm: completes (it may note the pending arrival).
#include "misuse.h"

__global__ void pendingArrive(int *out) {
  if (threadIdx.x < 32) barArrive(1, 64);
  out[threadIdx.x] = 2;
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 64 * sizeof(int)));
  pendingArrive<<<1, 64>>>(out);
  if (reportLaunchAndSync()) reportDeviceResult(out, 64, [](int) { return 2; });
  return 0;
}
