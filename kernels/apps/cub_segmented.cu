// kernels/apps: more of CUB and cooperative groups (issue 14): DeviceMergeSort with a user
// comparator, DeviceSegmentedRadixSort and DeviceSegmentedSort over uneven segments (one of a
// single item), and in one kernel WarpScan, cooperative_groups::reduce over 16-thread tiles and
// BlockHistogram with shared-memory atomics. Every result is compared with the host's.
#include "app_check.h"

#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>
#include <numeric>
#include <vector>

namespace cg = cooperative_groups;

namespace {

struct Less {
  __host__ __device__ bool operator()(int a, int b) const { return a < b; }
};

constexpr int kBlock = 128, kBins = 16;

// Per thread: its warp's inclusive sum up to it; per 16-thread tile: the tile's sum; per block:
// a 16-bin histogram of (x & 15), added into `histogram`.
__global__ void warpAndBlockPrimitives(const int *in, int *scan, int *tileSums, int *histogram) {
  using WarpScan = cub::WarpScan<int>;
  using BlockHistogram = cub::BlockHistogram<unsigned char, kBlock, 1, kBins>;
  __shared__ typename WarpScan::TempStorage warpTemp[kBlock / 32];
  __shared__ typename BlockHistogram::TempStorage histogramTemp;
  __shared__ unsigned int bins[kBins];
  const int i = blockIdx.x * kBlock + threadIdx.x;
  const int x = in[i];
  int sum;
  WarpScan(warpTemp[threadIdx.x / 32]).InclusiveSum(x, sum);
  scan[i] = sum;
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int tileSum = cg::reduce(tile, x, cg::plus<int>());
  if (tile.thread_rank() == 0) tileSums[i / 16] = tileSum;
  unsigned char item[1] = {static_cast<unsigned char>(x & (kBins - 1))};
  BlockHistogram(histogramTemp).Histogram(item, bins);
  __syncthreads();
  if (threadIdx.x < kBins) atomicAdd(&histogram[threadIdx.x], static_cast<int>(bins[threadIdx.x]));
}

// CUB's two calls: the temporary storage's size, then the work.
template <class Call> void twice(Call call) {
  void *temp = nullptr;
  size_t bytes = 0;
  CHECK(call(temp, bytes));
  CHECK(cudaMalloc(&temp, bytes));
  CHECK(call(temp, bytes));
  CHECK(cudaFree(temp));
}

} // namespace

int main() {
  Verdict verdict;
  Random rng(3);
  const int n = 20000;
  std::vector<int> input(n);
  for (int &x : input) x = static_cast<int>(rng.range(-100000, 100000));

  int *keys = deviceCopy(input);
  twice([&](void *temp, size_t &bytes) {
    return cub::DeviceMergeSort::SortKeys(temp, bytes, keys, n, Less());
  });
  std::vector<int> sorted = input;
  std::sort(sorted.begin(), sorted.end());
  verdict.expect(hostCopy(keys, n) == sorted, "DeviceMergeSort::SortKeys");

  // Uneven segments, one of a single item.
  const std::vector<int> offsets = {0, 100, 5000, 5001, 12000, n};
  const int segments = static_cast<int>(offsets.size()) - 1;
  int *dOffsets = deviceCopy(offsets), *in = deviceCopy(input), *out = deviceCopy(input);
  std::vector<int> bySegment = input;
  for (int s = 0; s < segments; ++s)
    std::sort(bySegment.begin() + offsets[s], bySegment.begin() + offsets[s + 1]);
  twice([&](void *temp, size_t &bytes) {
    return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, in, out, n, segments, dOffsets, dOffsets + 1);
  });
  verdict.expect(hostCopy(out, n) == bySegment, "DeviceSegmentedRadixSort::SortKeys");
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  twice([&](void *temp, size_t &bytes) {
    return cub::DeviceSegmentedSort::SortKeys(temp, bytes, in, out, n, segments, dOffsets, dOffsets + 1);
  });
  verdict.expect(hostCopy(out, n) == bySegment, "DeviceSegmentedSort::SortKeys");

  constexpr int blocks = 10, threads = blocks * kBlock;
  int *scan = deviceCopy(std::vector<int>(threads)), *tileSums = deviceCopy(std::vector<int>(threads / 16));
  int *histogram = deviceCopy(std::vector<int>(kBins));
  warpAndBlockPrimitives<<<blocks, kBlock>>>(in, scan, tileSums, histogram);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  const std::vector<int> gotScan = hostCopy(scan, threads), gotTiles = hostCopy(tileSums, threads / 16);
  for (int i = 0, sum = 0; i < threads; ++i) {
    sum = (i % 32 == 0 ? 0 : sum) + input[i];
    if (!verdict.expectEq(gotScan[i], sum, "WarpScan::InclusiveSum", i)) break;
  }
  for (int t = 0; t < threads / 16; ++t) {
    const int want = std::accumulate(input.begin() + t * 16, input.begin() + (t + 1) * 16, 0);
    if (!verdict.expectEq(gotTiles[t], want, "cooperative_groups::reduce over 16 threads", t)) break;
  }
  std::vector<int> bins(kBins, 0);
  for (int i = 0; i < threads; ++i) ++bins[input[i] & (kBins - 1)];
  verdict.expect(hostCopy(histogram, kBins) == bins, "BlockHistogram");
  for (int *p : {keys, dOffsets, in, out, scan, tileSums, histogram}) CHECK(cudaFree(p));
  return verdict.finish();
}
