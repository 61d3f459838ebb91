// kernels/apps/misuse, DESIGN.md §4 "other misuse": bar.red mixed with bar.sync on one
// generation. 64 threads; warp 0 does bar.red.popc on barrier 3 (count 64), warp 1 bar.sync 3, 64.
// Hardware (tests/gpu bt14): cudaErrorIllegalInstruction. ptxvm: barrier-mixed-ops,
// cudaErrorIllegalInstruction.
#include "misuse.h"

__global__ void mixedRedSync(int *out) {
  unsigned r = 0;
  if (threadIdx.x < 32) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tbar.red.popc.u32 %0, 3, 64, p;\n\t}"
                 : "=r"(r)
                 : "r"(threadIdx.x & 1)
                 : "memory");
  } else {
    barSync(3, 64);
  }
  out[threadIdx.x] = static_cast<int>(r);
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  mixedRedSync<<<1, 64>>>(out);
  reportLaunchAndSync();
  return 0;
}
