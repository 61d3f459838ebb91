// kernels/apps/misuse: a shared-memory race. 64 threads each write their own slot and then read
// another warp's slot with no __syncthreads() in between. Run under ptxvm with --racecheck.
// The values read depend on timing, so the program prints none of them.
// Hardware: completes. ptxvm --racecheck: shared-race (a write by one warp and a read by the
// other not ordered by a barrier); the launch still completes (cudaSuccess), as on a GPU.
#include "misuse.h"

__global__ void missingBarrier(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = static_cast<int>(threadIdx.x);
  // __syncthreads() belongs here.
  out[threadIdx.x] = s[63 - threadIdx.x];
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  missingBarrier<<<1, 64>>>(out);
  reportLaunchAndSync();
  return 0;
}
