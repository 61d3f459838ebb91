// kernels/apps/misuse, DESIGN.md §4 row "DMA warp does sync, sync, arrive, arrive per iteration
// while compute warps do arrive, sync". 64 threads; barrier 1 = full, 2 = empty. The DMA warp
// waits on "full", which only it could complete: both warps end up waiting.
// Hardware: hangs. ptxvm: barrier-deadlock with the wait-for table; cudaErrorLaunchTimeout.
#include "misuse.h"

__global__ void dmaWrongOrder(const int *in, int *out, int iterations) {
  __shared__ int buf[32];
  const unsigned lane = threadIdx.x % 32;
  if (threadIdx.x >= 32) {
    for (int t = 0; t < iterations; ++t) {
      barSync(2, 64);
      barSync(1, 64); // wrong: waits on "full", which it should signal
      buf[lane] = in[t * 32 + lane];
      barArrive(1, 64);
      barArrive(2, 64);
    }
  } else {
    for (int t = 0; t < iterations; ++t) {
      barArrive(2, 64);
      barSync(1, 64);
      out[t * 32 + lane] = buf[lane];
    }
  }
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 4 * 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 4 * 32 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 4 * 32 * sizeof(int)));
  dmaWrongOrder<<<1, 64>>>(in, out, 4);
  reportLaunchAndSync();
  return 0;
}
