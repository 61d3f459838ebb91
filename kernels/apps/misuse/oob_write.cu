// kernels/apps/misuse: an out-of-bounds write one element past a cudaMalloc allocation (the
// classic `i <= n` guard). 1,000 ints, 4 CTAs of 256 threads; thread 1000 writes out[1000].
// Then a cudaMemcpy ("after") shows whether the error is sticky.
// Hardware: completes (the allocation is padded; nothing checks) — prints result ok.
// ptxvm: out-of-bounds (0 bytes after the 4000-byte allocation), cudaErrorIllegalAddress at the
// synchronization, and the same sticky error from the later cudaMemcpy.
#include "misuse.h"

__global__ void offByOne(int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = i; // should be i < n
}

int main() {
  const int n = 1000;
  int *out;
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  offByOne<<<4, 256>>>(out, n);
  const bool completed = reportLaunchAndSync();
  int host[n];
  report("after", cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (completed) reportResult(host, n, [](int i) { return i; });
  return 0;
}
