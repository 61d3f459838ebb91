// kernels/apps: reductions with warp shuffles and atomics over 524,305 integers.
//  1. sum: grid-stride accumulation, __shfl_down_sync tree per warp, warp sums through shared
//     memory, one 64-bit atomicAdd per CTA;
//  2. the same sum in two passes without atomics: per-CTA partials, then one CTA that
//     reduces them with __shfl_xor_sync (a butterfly: every lane ends with the total);
//  3. max and min on another grid shape: one atomicMax/atomicMin per warp after a shuffle
//     reduction.
// All integer, so the check is exact.
#include "app_check.h"

#include <algorithm>
#include <climits>
#include <vector>

constexpr unsigned kFullMask = 0xffffffffu;

__device__ long long warpSumDown(long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

// Sum of a block's values; the result is valid in thread 0. blockDim.x is a multiple of 32.
__device__ long long blockSum(long long v) {
  __shared__ long long warpSums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warpSumDown(v);
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warpSums[lane] : 0;
    v = warpSumDown(v);
  }
  return v;
}

__global__ void sumAtomic(const int *in, int n, unsigned long long *total) {
  long long v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = blockSum(v);
  if (threadIdx.x == 0) atomicAdd(total, static_cast<unsigned long long>(v));
}

__global__ void sumPartials(const int *in, int n, long long *partials) {
  long long v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = blockSum(v);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

// One warp: lane l starts with partials l, l+32, ...; after the butterfly all lanes hold the sum.
__global__ void sumFinal(const long long *partials, int count, long long *result) {
  long long v = 0;
  for (int i = threadIdx.x; i < count; i += 32) v += partials[i];
  for (int mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(kFullMask, v, mask);
  result[threadIdx.x] = v;
}

__global__ void minMax(const int *in, int n, int *maxOut, int *minOut) {
  int hi = INT_MIN, lo = INT_MAX;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    hi = max(hi, in[i]);
    lo = min(lo, in[i]);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    hi = max(hi, __shfl_down_sync(kFullMask, hi, offset));
    lo = min(lo, __shfl_down_sync(kFullMask, lo, offset));
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(maxOut, hi);
    atomicMin(minOut, lo);
  }
}

int main() {
  const int n = (1 << 19) + 17;
  Random random(3);
  std::vector<int> in(n);
  for (int &x : in) x = static_cast<int>(random.range(-100000, 100000));
  long long wantSum = 0;
  for (int x : in) wantSum += x;
  const int wantMax = *std::max_element(in.begin(), in.end());
  const int wantMin = *std::min_element(in.begin(), in.end());

  int *dIn, *dMax, *dMin;
  unsigned long long *dTotal;
  long long *dPartials, *dResult;
  const int grid = 48, block = 256;
  CHECK(cudaMalloc(&dIn, n * sizeof(int)));
  CHECK(cudaMalloc(&dTotal, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dPartials, grid * sizeof(long long)));
  CHECK(cudaMalloc(&dResult, 32 * sizeof(long long)));
  CHECK(cudaMalloc(&dMax, sizeof(int)));
  CHECK(cudaMalloc(&dMin, sizeof(int)));
  CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dTotal, 0, sizeof(unsigned long long)));
  const int lowest = INT_MIN, highest = INT_MAX;
  CHECK(cudaMemcpy(dMax, &lowest, sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dMin, &highest, sizeof(int), cudaMemcpyHostToDevice));

  sumAtomic<<<grid, block>>>(dIn, n, dTotal);
  CHECK_LAUNCH();
  sumPartials<<<grid, block>>>(dIn, n, dPartials);
  CHECK_LAUNCH();
  sumFinal<<<1, 32>>>(dPartials, grid, dResult);
  CHECK_LAUNCH();
  minMax<<<37, 192>>>(dIn, n, dMax, dMin);
  CHECK_LAUNCH();

  unsigned long long total = 0;
  std::vector<long long> result(32);
  int gotMax = 0, gotMin = 0;
  CHECK(cudaMemcpy(&total, dTotal, sizeof(total), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(result.data(), dResult, 32 * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gotMax, dMax, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gotMin, dMin, sizeof(int), cudaMemcpyDeviceToHost));

  Verdict verdict;
  verdict.expectEq(static_cast<long long>(total), wantSum, "atomic sum", 0);
  for (int lane = 0; lane < 32; ++lane) verdict.expectEq(result[lane], wantSum, "two-pass sum, lane", lane);
  verdict.expectEq(gotMax, wantMax, "max", 0);
  verdict.expectEq(gotMin, wantMin, "min", 0);

  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dTotal));
  CHECK(cudaFree(dPartials));
  CHECK(cudaFree(dResult));
  CHECK(cudaFree(dMax));
  CHECK(cudaFree(dMin));
  return verdict.finish();
}
