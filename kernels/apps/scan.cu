// kernels/apps: exclusive prefix sum of 200,003 integers. Each CTA scans 512 elements in shared
// memory with the work-efficient up-sweep/down-sweep (Blelloch) algorithm and writes its total;
// the totals are scanned the same way (recursively) and added back. Three levels of launches:
// 200,003 -> 391 block sums -> 1. Exact comparison with the host.
#include "app_check.h"

#include <vector>

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

__global__ void scanBlocks(const int *in, int *out, int *blockSums, int n) {
  __shared__ int s[kPerBlock];
  const int base = blockIdx.x * kPerBlock, t = threadIdx.x;
  s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0;
  s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;
  int offset = 1;
  for (int d = kPerBlock / 2; d > 0; d /= 2) {
    __syncthreads();
    if (t < d) s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
    offset *= 2;
  }
  if (t == 0) {
    if (blockSums) blockSums[blockIdx.x] = s[kPerBlock - 1];
    s[kPerBlock - 1] = 0;
  }
  for (int d = 1; d < kPerBlock; d *= 2) {
    offset /= 2;
    __syncthreads();
    if (t < d) {
      const int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      const int carried = s[left];
      s[left] = s[right];
      s[right] += carried;
    }
  }
  __syncthreads();
  if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
  if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}

__global__ void addBlockOffsets(int *out, const int *offsets, int n) {
  const int base = blockIdx.x * kPerBlock, t = threadIdx.x;
  const int add = offsets[blockIdx.x];
  if (base + t < n) out[base + t] += add;
  if (base + t + kThreads < n) out[base + t + kThreads] += add;
}

// Exclusive scan of n device integers into out (both device pointers).
void exclusiveScan(const int *in, int *out, int n) {
  const int blocks = (n + kPerBlock - 1) / kPerBlock;
  if (blocks == 1) {
    scanBlocks<<<1, kThreads>>>(in, out, nullptr, n);
    CHECK_LAUNCH();
    return;
  }
  int *sums, *scannedSums;
  CHECK(cudaMalloc(&sums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&scannedSums, blocks * sizeof(int)));
  scanBlocks<<<blocks, kThreads>>>(in, out, sums, n);
  CHECK_LAUNCH();
  exclusiveScan(sums, scannedSums, blocks);
  addBlockOffsets<<<blocks, kThreads>>>(out, scannedSums, n);
  CHECK_LAUNCH();
  CHECK(cudaFree(sums));
  CHECK(cudaFree(scannedSums));
}

int main() {
  const int n = 200003;
  Random random(5);
  std::vector<int> in(n), out(n);
  for (int &x : in) x = static_cast<int>(random.range(-50, 1000));

  int *dIn, *dOut;
  CHECK(cudaMalloc(&dIn, n * sizeof(int)));
  CHECK(cudaMalloc(&dOut, n * sizeof(int)));
  CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  exclusiveScan(dIn, dOut, n);
  CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));

  Verdict verdict;
  int running = 0;
  for (int i = 0; i < n; ++i) {
    verdict.expectEq(out[i], running, "prefix", i);
    running += in[i];
  }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dOut));
  return verdict.finish();
}
