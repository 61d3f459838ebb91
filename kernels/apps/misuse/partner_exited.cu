// kernels/apps/misuse, DESIGN.md §4 row "bar.sync 1,64 after the partner warp exited".
// 64 threads; warp 1 returns, warp 0 waits on barrier 1 for 64 threads that will never come.
// Hardware: hangs (killed by the runner's watchdog). ptxvm: barrier-deadlock (barrier 1, 32 of
// 64 arrived, warp 1 exited) and the synchronization fails with cudaErrorLaunchTimeout.
#include "misuse.h"

__global__ void partnerExited(int *out) {
  if (threadIdx.x >= 32) return;
  asm volatile("bar.sync 1, 64;" ::: "memory");
  out[threadIdx.x] = 1;
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  partnerExited<<<1, 64>>>(out);
  reportLaunchAndSync();
  return 0;
}
