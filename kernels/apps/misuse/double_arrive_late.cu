// kernels/apps/misuse, DESIGN.md §4 row "compute warps bar.arrive twice on one barrier before
// the DMA warp syncs", the DMA warp late. 64 threads: warp 0 arrives twice on barrier 2 at once;
// warp 1 first spins for 10^6 clock cycles, then syncs on barrier 2 twice. Both arrivals of
// warp 0 fall into one generation, which completes without warp 1; warp 1 then waits forever.
// Hardware: hangs. ptxvm: barrier-double-arrive, deterministically; the launch fails.
#include "misuse.h"

__global__ void doubleArriveLate(int *out, long long delay) {
  if (threadIdx.x >= 32) {
    spin(delay);
    barSync(2, 64);
    barSync(2, 64);
    out[threadIdx.x] = 20;
  } else {
    barArrive(2, 64);
    barArrive(2, 64);
    out[threadIdx.x] = 10;
  }
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  doubleArriveLate<<<1, 64>>>(out, 1000000);
  reportLaunchAndSync();
  return 0;
}
