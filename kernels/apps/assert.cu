// kernels/apps: device assert. A first launch runs normally; in the second, one thread (77) of
// 256 fails an assert. Checked: the launch itself reports no error, cudaDeviceSynchronize
// returns cudaErrorAssert, and the error is sticky: a later cudaMemcpy, cudaMalloc, kernel
// launch and cudaDeviceSynchronize all fail with it, and cudaGetLastError reports it.
// Prints PASSED when the runtime behaved like that (the device's assertion message may come
// before it). Built without NDEBUG, so assert() is compiled in.
#include "app_check.h"

#undef NDEBUG
#include <cassert>

__global__ void checkPositive(const int *values, int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  assert(values[i] > 0);
  out[i] = values[i] * 2;
}

int main() {
  const int n = 256;
  int values[n], out[n];
  for (int i = 0; i < n; ++i) values[i] = i + 1;
  int *dValues, *dOut;
  CHECK(cudaMalloc(&dValues, sizeof(values)));
  CHECK(cudaMalloc(&dOut, sizeof(out)));
  CHECK(cudaMemcpy(dValues, values, sizeof(values), cudaMemcpyHostToDevice));

  Verdict verdict;
  checkPositive<<<2, 128>>>(dValues, dOut, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out, dOut, sizeof(out), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) verdict.expectEq(out[i], 2 * (i + 1), "before the assert", i);

  values[77] = -5;
  CHECK(cudaMemcpy(dValues, values, sizeof(values), cudaMemcpyHostToDevice));
  std::fflush(stdout);
  checkPositive<<<2, 128>>>(dValues, dOut, n);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  std::fflush(stdout);
  verdict.expect(launch == cudaSuccess, "launch returned %s", cudaGetErrorName(launch));
  verdict.expect(sync == cudaErrorAssert, "cudaDeviceSynchronize returned %s, expected cudaErrorAssert",
                 cudaGetErrorName(sync));

  // Sticky: the context is unusable from now on.
  const cudaError_t copy = cudaMemcpy(out, dOut, sizeof(out), cudaMemcpyDeviceToHost);
  verdict.expect(copy == cudaErrorAssert, "later cudaMemcpy returned %s", cudaGetErrorName(copy));
  int *more = nullptr;
  const cudaError_t alloc = cudaMalloc(&more, 64);
  verdict.expect(alloc == cudaErrorAssert, "later cudaMalloc returned %s", cudaGetErrorName(alloc));
  checkPositive<<<1, 32>>>(dValues, dOut, 32);
  const cudaError_t relaunch = cudaDeviceSynchronize();
  verdict.expect(relaunch == cudaErrorAssert, "later launch + synchronize returned %s",
                 cudaGetErrorName(relaunch));
  const cudaError_t last = cudaGetLastError();
  verdict.expect(last == cudaErrorAssert, "cudaGetLastError returned %s", cudaGetErrorName(last));
  return verdict.finish();
}
