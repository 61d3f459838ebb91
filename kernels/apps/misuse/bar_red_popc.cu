// kernels/apps/misuse, DESIGN.md §4 row "bar.red.popc.u32 over 96 threads": every thread gets
// the number of threads whose predicate was true. 96 threads, predicate (t * 7) % 5 < 2
// (39 of 96), barrier 1 with an explicit count of 96.
// Hardware: completes, every thread 39. ptxvm: the same, no diagnostic.
#include "misuse.h"

__global__ void barRedPopc(int *out) {
  const unsigned predicate = (threadIdx.x * 7) % 5 < 2;
  unsigned count;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tbar.red.popc.u32 %0, 1, 96, p;\n\t}"
               : "=r"(count)
               : "r"(predicate)
               : "memory");
  out[threadIdx.x] = static_cast<int>(count);
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 96 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 96 * sizeof(int)));
  barRedPopc<<<1, 96>>>(out);
  int want = 0;
  for (int t = 0; t < 96; ++t) want += (t * 7) % 5 < 2;
  if (reportLaunchAndSync()) reportDeviceResult(out, 96, [&](int) { return want; });
  return 0;
}
