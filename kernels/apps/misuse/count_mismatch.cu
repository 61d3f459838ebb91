// kernels/apps/misuse, DESIGN.md §4 row "warps of one generation give different counts (64 and
// 96)". 96 threads: warp 0 syncs on barrier 1 with count 96 at once; warps 1 and 2 spin for
// 10^6 clock cycles, then sync on barrier 1 with count 64. The count-96 warp arrives first,
// which is the order in which the H100 faults (tests/gpu bt08c; the other order hangs, bt08d).
// Hardware: cudaErrorIllegalInstruction. ptxvm: barrier-count-mismatch, cudaErrorIllegalInstruction.
#include "misuse.h"

__global__ void countMismatch(int *out, long long delay) {
  if (threadIdx.x < 32) {
    barSync(1, 96);
  } else {
    spin(delay);
    barSync(1, 64);
  }
  out[threadIdx.x] = 1;
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 96 * sizeof(int)));
  countMismatch<<<1, 96>>>(out, 1000000);
  reportLaunchAndSync();
  return 0;
}
