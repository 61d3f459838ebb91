// kernels/apps: bitonic sort of 6,000 keys (padded with 0xFFFFFFFF to 8,192). Chunks of 1,024
// keys are sorted in shared memory by one CTA each; larger merge distances run as one launch
// per step over global memory, followed by the shared-memory merge of each chunk: 10 launches.
// The sorted keys must equal std::sort of the input (so also a permutation of it).
#include "app_check.h"

#include <algorithm>
#include <vector>

constexpr int kChunk = 1024;
constexpr int kChunkThreads = kChunk / 2;

// The lower index of the t-th compare pair at distance j (j a power of two).
__device__ int pairIndex(int t, int j) { return 2 * t - (t & (j - 1)); }

__device__ void compareSwap(unsigned &lower, unsigned &upper, bool ascending) {
  if ((lower > upper) == ascending) {
    unsigned x = lower;
    lower = upper;
    upper = x;
  }
}

// Merge steps j = jStart, jStart/2, ..., 1 of stage k inside each chunk, in shared memory.
__device__ void mergeInChunk(unsigned *s, int base, int k, int jStart) {
  for (int j = jStart; j > 0; j /= 2) {
    __syncthreads();
    const int i = pairIndex(threadIdx.x, j);
    compareSwap(s[i], s[i + j], ((base + i) & k) == 0);
  }
}

__global__ void bitonicSortChunks(unsigned *keys) {
  __shared__ unsigned s[kChunk];
  const int base = blockIdx.x * kChunk;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + kChunkThreads] = keys[base + threadIdx.x + kChunkThreads];
  for (int k = 2; k <= kChunk; k *= 2) mergeInChunk(s, base, k, k / 2);
  __syncthreads();
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + kChunkThreads] = s[threadIdx.x + kChunkThreads];
}

// One merge step at distance j >= kChunk of stage k, one thread per pair.
__global__ void bitonicMergeGlobal(unsigned *keys, int j, int k) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = pairIndex(t, j);
  unsigned lower = keys[i], upper = keys[i + j];
  compareSwap(lower, upper, (i & k) == 0);
  keys[i] = lower;
  keys[i + j] = upper;
}

// The remaining steps j < kChunk of stage k.
__global__ void bitonicMergeChunks(unsigned *keys, int k) {
  __shared__ unsigned s[kChunk];
  const int base = blockIdx.x * kChunk;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + kChunkThreads] = keys[base + threadIdx.x + kChunkThreads];
  mergeInChunk(s, base, k, kChunk / 2);
  __syncthreads();
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + kChunkThreads] = s[threadIdx.x + kChunkThreads];
}

int main() {
  const int count = 6000, padded = 8192;
  Random random(7);
  std::vector<unsigned> keys(padded, 0xFFFFFFFFu);
  for (int i = 0; i < count; ++i) keys[i] = static_cast<unsigned>(random.range(0, 50000)); // with duplicates
  std::vector<unsigned> want(keys.begin(), keys.begin() + count);
  std::sort(want.begin(), want.end());

  unsigned *dKeys;
  CHECK(cudaMalloc(&dKeys, padded * sizeof(unsigned)));
  CHECK(cudaMemcpy(dKeys, keys.data(), padded * sizeof(unsigned), cudaMemcpyHostToDevice));
  const int chunks = padded / kChunk;
  bitonicSortChunks<<<chunks, kChunkThreads>>>(dKeys);
  CHECK_LAUNCH();
  for (int k = 2 * kChunk; k <= padded; k *= 2) {
    for (int j = k / 2; j >= kChunk; j /= 2) {
      bitonicMergeGlobal<<<padded / 2 / 256, 256>>>(dKeys, j, k);
      CHECK_LAUNCH();
    }
    bitonicMergeChunks<<<chunks, kChunkThreads>>>(dKeys, k);
    CHECK_LAUNCH();
  }
  CHECK(cudaMemcpy(keys.data(), dKeys, padded * sizeof(unsigned), cudaMemcpyDeviceToHost));

  Verdict verdict;
  for (int i = 0; i < count; ++i) verdict.expectEq(keys[i], want[i], "sorted", i);
  for (int i = count; i < padded; ++i) verdict.expectEq(keys[i], 0xFFFFFFFFu, "padding", i);
  CHECK(cudaFree(dKeys));
  return verdict.finish();
}
