// kernels/apps/misuse, DESIGN.md §4 row "compute warps bar.arrive twice on one barrier before
// the DMA warp syncs", the DMA warp early. 64 threads: warp 1 syncs on barrier 2 twice at once;
// warp 0 spins for 10^6 clock cycles, then arrives twice. With warp 1 already waiting, each
// arrival completes one generation.
// Hardware: completes. ptxvm: barrier-double-arrive all the same (the outcome depends on timing,
// DESIGN.md asks for the diagnostic deterministically); the launch fails.
#include "misuse.h"

__global__ void doubleArriveEarly(int *out, long long delay) {
  if (threadIdx.x >= 32) {
    barSync(2, 64);
    barSync(2, 64);
    out[threadIdx.x] = 20;
  } else {
    spin(delay);
    barArrive(2, 64);
    barArrive(2, 64);
    out[threadIdx.x] = 10;
  }
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 64 * sizeof(int)));
  doubleArriveEarly<<<1, 64>>>(out, 1000000);
  if (reportLaunchAndSync()) reportDeviceResult(out, 64, [](int i) { return i < 32 ? 10 : 20; });
  return 0;
}
