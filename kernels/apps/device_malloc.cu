// kernels/apps: device-side malloc and free. (1) Every thread mallocs a buffer of its own size
// (1..5 x 16 ints), fills it, sums it, and frees it. (2) One thread per CTA mallocs an array for
// the whole CTA and publishes the pointer through shared memory; every thread fills its slot,
// thread 0 sums them and frees the array. (3) Blocks allocated in one launch are kept in a
// __device__ table and read and freed by a later launch. The heap is sized with
// cudaDeviceSetLimit(cudaLimitMallocHeapSize) and read back. Exact comparison with the host.
#include "app_check.h"

#include <vector>

constexpr int kGrid = 8, kBlock = 64, kThreads = kGrid * kBlock;

__device__ int *keptBlocks[kGrid];

__global__ void perThread(int *sums) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int count = 16 * (i % 5 + 1);
  int *mine = static_cast<int *>(malloc(count * sizeof(int)));
  if (mine == nullptr) {
    sums[i] = -1;
    return;
  }
  for (int k = 0; k < count; ++k) mine[k] = i + k;
  int sum = 0;
  for (int k = 0; k < count; ++k) sum += mine[k];
  sums[i] = sum;
  free(mine);
}

__global__ void perBlock(int *blockSums) {
  __shared__ int *shared;
  if (threadIdx.x == 0) shared = static_cast<int *>(malloc(blockDim.x * sizeof(int)));
  __syncthreads();
  if (shared == nullptr) {
    if (threadIdx.x == 0) blockSums[blockIdx.x] = -1;
    return;
  }
  shared[threadIdx.x] = static_cast<int>(blockIdx.x * 1000 + threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) sum += shared[t];
    blockSums[blockIdx.x] = sum;
    free(shared);
  }
}

// Launch 1 of (3): allocate and fill; the pointer outlives the launch.
__global__ void keep() {
  if (threadIdx.x == 0) {
    int *block = static_cast<int *>(malloc(kBlock * sizeof(int)));
    keptBlocks[blockIdx.x] = block;
  }
  __syncthreads();
  int *block = keptBlocks[blockIdx.x];
  if (block) block[threadIdx.x] = static_cast<int>(blockIdx.x + threadIdx.x * threadIdx.x);
}

// Launch 2 of (3): read what the earlier launch wrote, then free.
__global__ void readAndRelease(int *out) {
  int *block = keptBlocks[blockIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = block ? block[threadIdx.x] : -1;
  __syncthreads();
  if (threadIdx.x == 0) free(block);
}

int main() {
  const size_t heapBytes = 16u << 20;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heapBytes));
  size_t heapRead = 0;
  CHECK(cudaDeviceGetLimit(&heapRead, cudaLimitMallocHeapSize));

  int *dSums, *dBlockSums, *dKept;
  CHECK(cudaMalloc(&dSums, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&dBlockSums, kGrid * sizeof(int)));
  CHECK(cudaMalloc(&dKept, kThreads * sizeof(int)));
  perThread<<<kGrid, kBlock>>>(dSums);
  CHECK_LAUNCH();
  perBlock<<<kGrid, kBlock>>>(dBlockSums);
  CHECK_LAUNCH();
  keep<<<kGrid, kBlock>>>();
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  readAndRelease<<<kGrid, kBlock>>>(dKept);
  CHECK_LAUNCH();
  // Run the per-thread allocations again: the frees above must have made room.
  perThread<<<kGrid, kBlock>>>(dSums);
  CHECK_LAUNCH();

  std::vector<int> sums(kThreads), blockSums(kGrid), kept(kThreads);
  CHECK(cudaMemcpy(sums.data(), dSums, kThreads * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(blockSums.data(), dBlockSums, kGrid * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(kept.data(), dKept, kThreads * sizeof(int), cudaMemcpyDeviceToHost));

  Verdict verdict;
  verdict.expect(heapRead >= heapBytes, "malloc heap limit read back as %zu, set to %zu", heapRead,
                 heapBytes);
  for (int i = 0; i < kThreads; ++i) {
    const int count = 16 * (i % 5 + 1);
    verdict.expectEq(sums[i], count * i + count * (count - 1) / 2, "per-thread sum", i);
  }
  for (int b = 0; b < kGrid; ++b)
    verdict.expectEq(blockSums[b], kBlock * b * 1000 + kBlock * (kBlock - 1) / 2, "per-block sum", b);
  for (int b = 0; b < kGrid; ++b)
    for (int t = 0; t < kBlock; ++t)
      verdict.expectEq(kept[b * kBlock + t], b + t * t, "kept across launches", b * kBlock + t);
  CHECK(cudaFree(dSums));
  CHECK(cudaFree(dBlockSums));
  CHECK(cudaFree(dKept));
  return verdict.finish();
}
