// kernels/apps: CUB, device-wide and block-wide (issue 14). Device-wide: radix sort of key-value
// pairs (all bits and a bit range), descending float keys, exclusive sum and a max-scan, sum, min
// and arg-max, even and ranged histograms, select by predicate, by flags and unique, partition,
// run-length encoding and a segmented sum; each called twice as CUB means it (first for the
// temporary storage size). Block-wide, in one kernel: BlockLoad/BlockStore through warp
// transposes, BlockRadixSort, BlockScan, BlockReduce and WarpReduce over shared memory. Every
// result is compared with the same computation on the host.
#include "app_check.h"

#include <cub/cub.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

namespace {

struct MaxOf {
  __host__ __device__ int operator()(int a, int b) const { return a < b ? b : a; }
};

struct Below {
  int limit;
  __host__ __device__ bool operator()(int x) const { return x < limit; }
};

constexpr int kBlock = 128, kItems = 4;
constexpr int kTile = kBlock * kItems;

// Per tile of 512 ints: sorted tile, inclusive prefix sums of the sorted tile, the tile's sum,
// and per warp the maximum of its threads' first items.
__global__ void blockPrimitives(const int *in, int *sorted, int *prefix, int *sums, int *warpMax) {
  using Load = cub::BlockLoad<int, kBlock, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<int, kBlock, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<int, kBlock, kItems>;
  using Scan = cub::BlockScan<int, kBlock>;
  using Reduce = cub::BlockReduce<int, kBlock>;
  using WarpReduce = cub::WarpReduce<int>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  __shared__ typename WarpReduce::TempStorage warpTemp[kBlock / 32];
  const int offset = blockIdx.x * kTile;
  int items[kItems];
  Load(temp.load).Load(in + offset, items);
  __syncthreads();
  const int first = items[0];
  const int warpResult = WarpReduce(warpTemp[threadIdx.x / 32]).Reduce(first, MaxOf());
  if (threadIdx.x % 32 == 0) warpMax[blockIdx.x * (kBlock / 32) + threadIdx.x / 32] = warpResult;
  Sort(temp.sort).Sort(items);
  __syncthreads();
  // The warp-transposing store rearranges the array it is given: it gets copies.
  int copy[kItems], scanned[kItems];
  for (int i = 0; i < kItems; ++i) copy[i] = items[i];
  Store(temp.store).Store(sorted + offset, copy);
  __syncthreads();
  Scan(temp.scan).InclusiveSum(items, scanned);
  __syncthreads();
  const int total = Reduce(temp.reduce).Sum(items);
  __syncthreads();
  Store(temp.store).Store(prefix + offset, scanned);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Temporary storage for one device-wide call: asked for, then allocated (reused when big enough).
class Scratch {
public:
  void *get(size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_) CHECK(cudaFree(ptr_));
      CHECK(cudaMalloc(&ptr_, bytes));
      bytes_ = bytes;
    }
    return ptr_;
  }
  ~Scratch() {
    if (ptr_) cudaFree(ptr_);
  }

private:
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

#define CUB_CALL(...)                                                                                        \
  do {                                                                                                       \
    void *temp_ = nullptr;                                                                                   \
    size_t bytes_ = 0;                                                                                       \
    { void *d_temp_storage = nullptr; size_t &temp_storage_bytes = bytes_; CHECK(__VA_ARGS__); }             \
    temp_ = scratch.get(bytes_);                                                                             \
    { void *d_temp_storage = temp_; size_t &temp_storage_bytes = bytes_; CHECK(__VA_ARGS__); }               \
  } while (0)

} // namespace

int main() {
  Verdict verdict;
  Random rng(1201);
  Scratch scratch;
  const int n = 50000;
  std::vector<unsigned> keys(n);
  std::vector<int> values(n), signedValues(n), runs;
  std::vector<float> floats(n);
  std::vector<unsigned char> samples(n), flags(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = static_cast<unsigned>(rng.next());
    values[i] = i;
    signedValues[i] = static_cast<int>(rng.range(-1000, 1000));
    floats[i] = rng.uniform(-50.0f, 50.0f);
    samples[i] = static_cast<unsigned char>(rng.range(0, 255));
    flags[i] = static_cast<unsigned char>(rng.range(0, 3) == 0);
  }
  // Runs of repeated values for unique and run-length encoding.
  while (static_cast<int>(runs.size()) < n) {
    const int value = static_cast<int>(rng.range(0, 9));
    for (int r = static_cast<int>(rng.range(1, 6)); r > 0 && static_cast<int>(runs.size()) < n; --r)
      runs.push_back(value);
  }

  unsigned *dKeys = deviceCopy(keys), *dKeysOut = deviceCopy(keys);
  int *dValues = deviceCopy(values), *dValuesOut = deviceCopy(values);
  int *dSigned = deviceCopy(signedValues), *dOut = deviceCopy(signedValues), *dRuns = deviceCopy(runs);
  float *dFloats = deviceCopy(floats), *dFloatsOut = deviceCopy(floats);
  unsigned char *dSamples = deviceCopy(samples), *dFlags = deviceCopy(flags);
  int *dCount = deviceCopy(std::vector<int>(1));

  // ---- radix sorts ----
  CUB_CALL(cub::DeviceRadixSort::SortPairs(d_temp_storage, temp_storage_bytes, dKeys, dKeysOut, dValues,
                                           dValuesOut, n));
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  {
    std::vector<unsigned> gotKeys = hostCopy(dKeysOut, n);
    std::vector<int> gotValues = hostCopy(dValuesOut, n);
    for (int i = 0; i < n; ++i) {
      if (!verdict.expectEq(gotKeys[i], keys[order[i]], "SortPairs key", i)) break;
      if (!verdict.expectEq(gotValues[i], order[i], "SortPairs value", i)) break;
    }
  }
  // Bits 8..23 only: a stable sort on that field.
  CUB_CALL(cub::DeviceRadixSort::SortPairs(d_temp_storage, temp_storage_bytes, dKeys, dKeysOut, dValues,
                                           dValuesOut, n, 8, 24));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return (keys[a] >> 8 & 0xffff) < (keys[b] >> 8 & 0xffff); });
  {
    std::vector<int> gotValues = hostCopy(dValuesOut, n);
    for (int i = 0; i < n; ++i)
      if (!verdict.expectEq(gotValues[i], order[i], "SortPairs bits 8..23 value", i)) break;
  }
  CUB_CALL(cub::DeviceRadixSort::SortKeysDescending(d_temp_storage, temp_storage_bytes, dFloats, dFloatsOut, n));
  {
    std::vector<float> want = floats;
    std::sort(want.begin(), want.end(), std::greater<float>());
    verdict.expect(hostCopy(dFloatsOut, n) == want, "SortKeysDescending of floats");
  }

  // ---- scans and reductions ----
  CUB_CALL(cub::DeviceScan::ExclusiveSum(d_temp_storage, temp_storage_bytes, dSigned, dOut, n));
  {
    std::vector<int> got = hostCopy(dOut, n);
    for (int i = 0, sum = 0; i < n; sum += signedValues[i], ++i)
      if (!verdict.expectEq(got[i], sum, "ExclusiveSum", i)) break;
  }
  CUB_CALL(cub::DeviceScan::InclusiveScan(d_temp_storage, temp_storage_bytes, dSigned, dOut, MaxOf(), n));
  {
    std::vector<int> got = hostCopy(dOut, n);
    for (int i = 0, best = signedValues[0]; i < n; ++i) {
      best = std::max(best, signedValues[i]);
      if (!verdict.expectEq(got[i], best, "InclusiveScan max", i)) break;
    }
  }
  CUB_CALL(cub::DeviceReduce::Sum(d_temp_storage, temp_storage_bytes, dSigned, dCount, n));
  verdict.expectEq(hostCopy(dCount, 1)[0], std::accumulate(signedValues.begin(), signedValues.end(), 0),
                   "DeviceReduce::Sum", 0);
  CUB_CALL(cub::DeviceReduce::Min(d_temp_storage, temp_storage_bytes, dSigned, dCount, n));
  verdict.expectEq(hostCopy(dCount, 1)[0], *std::min_element(signedValues.begin(), signedValues.end()),
                   "DeviceReduce::Min", 0);
  {
    int *dMax = deviceCopy(std::vector<int>(1));
    int64_t *dIndex = deviceCopy(std::vector<int64_t>(1));
    CUB_CALL(cub::DeviceReduce::ArgMax(d_temp_storage, temp_storage_bytes, dSigned, dMax, dIndex, n));
    const auto best = std::max_element(signedValues.begin(), signedValues.end());
    verdict.expectEq(hostCopy(dIndex, 1)[0], best - signedValues.begin(), "ArgMax position (the first maximum)", 0);
    verdict.expectEq(hostCopy(dMax, 1)[0], *best, "ArgMax value", 0);
    CHECK(cudaFree(dMax));
    CHECK(cudaFree(dIndex));
  }

  // ---- histograms ----
  {
    int *dHistogram = deviceCopy(std::vector<int>(256));
    CUB_CALL(cub::DeviceHistogram::HistogramEven(d_temp_storage, temp_storage_bytes, dSamples, dHistogram, 257, 0,
                                                 256, n));
    std::vector<int> want(256, 0);
    for (unsigned char s : samples) ++want[s];
    verdict.expect(hostCopy(dHistogram, 256) == want, "HistogramEven, 256 bins");
    const std::vector<int> levels = {-1000, -500, -100, 0, 1, 100, 500, 1001};
    int *dLevels = deviceCopy(levels);
    CUB_CALL(cub::DeviceHistogram::HistogramRange(d_temp_storage, temp_storage_bytes, dSigned, dHistogram,
                                                  static_cast<int>(levels.size()), dLevels, n));
    std::vector<int> ranged(levels.size() - 1, 0);
    for (int v : signedValues)
      for (size_t b = 0; b + 1 < levels.size(); ++b)
        if (v >= levels[b] && v < levels[b + 1]) ++ranged[b];
    verdict.expect(hostCopy(dHistogram, static_cast<int>(ranged.size())) == ranged, "HistogramRange");
    CHECK(cudaFree(dLevels));
    CHECK(cudaFree(dHistogram));
  }

  // ---- selection, partition, run-length encoding ----
  auto selected = [&](auto keep) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i)
      if (keep(i)) out.push_back(signedValues[i]);
    return out;
  };
  CUB_CALL(cub::DeviceSelect::If(d_temp_storage, temp_storage_bytes, dSigned, dOut, dCount, n, Below{-250}));
  {
    std::vector<int> want = selected([&](int i) { return signedValues[i] < -250; });
    const int count = hostCopy(dCount, 1)[0];
    verdict.expectEq(count, static_cast<long long>(want.size()), "DeviceSelect::If count", 0);
    verdict.expect(hostCopy(dOut, std::min<int>(count, n)) == want, "DeviceSelect::If items in order");
  }
  CUB_CALL(cub::DeviceSelect::Flagged(d_temp_storage, temp_storage_bytes, dSigned, dFlags, dOut, dCount, n));
  {
    std::vector<int> want = selected([&](int i) { return flags[i] != 0; });
    const int count = hostCopy(dCount, 1)[0];
    verdict.expectEq(count, static_cast<long long>(want.size()), "DeviceSelect::Flagged count", 0);
    verdict.expect(hostCopy(dOut, std::min<int>(count, n)) == want, "DeviceSelect::Flagged items");
  }
  CUB_CALL(cub::DeviceSelect::Unique(d_temp_storage, temp_storage_bytes, dRuns, dOut, dCount, n));
  std::vector<int> heads, lengths;
  for (int i = 0; i < n; ++i)
    if (i == 0 || runs[i] != runs[i - 1])
      heads.push_back(runs[i]), lengths.push_back(1);
    else
      ++lengths.back();
  {
    const int count = hostCopy(dCount, 1)[0];
    verdict.expectEq(count, static_cast<long long>(heads.size()), "DeviceSelect::Unique count", 0);
    verdict.expect(hostCopy(dOut, std::min<int>(count, n)) == heads, "DeviceSelect::Unique items");
  }
  {
    int *dLengths = deviceCopy(std::vector<int>(n));
    CUB_CALL(cub::DeviceRunLengthEncode::Encode(d_temp_storage, temp_storage_bytes, dRuns, dOut, dLengths,
                                                dCount, n));
    const int count = hostCopy(dCount, 1)[0];
    verdict.expectEq(count, static_cast<long long>(heads.size()), "RunLengthEncode runs", 0);
    verdict.expect(hostCopy(dOut, std::min<int>(count, n)) == heads, "RunLengthEncode values");
    verdict.expect(hostCopy(dLengths, std::min<int>(count, n)) == lengths, "RunLengthEncode lengths");
    CHECK(cudaFree(dLengths));
  }
  CUB_CALL(cub::DevicePartition::If(d_temp_storage, temp_storage_bytes, dSigned, dOut, dCount, n, Below{0}));
  {
    // Selected items first, in order; the rest after them, in reverse order.
    std::vector<int> want = selected([&](int i) { return signedValues[i] < 0; });
    const size_t front = want.size();
    for (int i = n - 1; i >= 0; --i)
      if (signedValues[i] >= 0) want.push_back(signedValues[i]);
    verdict.expectEq(hostCopy(dCount, 1)[0], static_cast<long long>(front), "DevicePartition::If count", 0);
    verdict.expect(hostCopy(dOut, n) == want, "DevicePartition::If order");
  }

  // ---- segmented sum over segments of 1..400 items ----
  {
    std::vector<int> offsets = {0};
    while (offsets.back() < n) offsets.push_back(std::min<int>(n, offsets.back() + static_cast<int>(rng.range(1, 400))));
    const int segments = static_cast<int>(offsets.size()) - 1;
    int *dOffsets = deviceCopy(offsets), *dSums = deviceCopy(std::vector<int>(segments));
    CUB_CALL(cub::DeviceSegmentedReduce::Sum(d_temp_storage, temp_storage_bytes, dSigned, dSums, segments,
                                             dOffsets, dOffsets + 1));
    std::vector<int> got = hostCopy(dSums, segments);
    for (int s = 0; s < segments; ++s) {
      const int want = std::accumulate(signedValues.begin() + offsets[s], signedValues.begin() + offsets[s + 1], 0);
      if (!verdict.expectEq(got[s], want, "DeviceSegmentedReduce::Sum", s)) break;
    }
    CHECK(cudaFree(dOffsets));
    CHECK(cudaFree(dSums));
  }

  // ---- block-wide primitives ----
  {
    constexpr int tiles = 24;
    std::vector<int> in(tiles * kTile);
    for (int &v : in) v = static_cast<int>(rng.range(-100000, 100000));
    int *dIn = deviceCopy(in), *dSorted = deviceCopy(in), *dPrefix = deviceCopy(in);
    int *dSums = deviceCopy(std::vector<int>(tiles)), *dWarpMax = deviceCopy(std::vector<int>(tiles * kBlock / 32));
    blockPrimitives<<<tiles, kBlock>>>(dIn, dSorted, dPrefix, dSums, dWarpMax);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    std::vector<int> sorted = hostCopy(dSorted, tiles * kTile), prefix = hostCopy(dPrefix, tiles * kTile);
    std::vector<int> sums = hostCopy(dSums, tiles), warpMax = hostCopy(dWarpMax, tiles * kBlock / 32);
    for (int t = 0; t < tiles; ++t) {
      std::vector<int> tile(in.begin() + t * kTile, in.begin() + (t + 1) * kTile);
      std::sort(tile.begin(), tile.end());
      // Thread i holds items i*kItems .. i*kItems+3 of the blocked arrangement.
      verdict.expect(std::equal(tile.begin(), tile.end(), sorted.begin() + t * kTile), "BlockRadixSort tile %d", t);
      // Each thread's inclusive sum of its items, after the exclusive prefix of the threads before it.
      std::vector<long long> running(kTile);
      std::partial_sum(tile.begin(), tile.end(), running.begin(), std::plus<long long>());
      for (int i = 0; i < kTile; ++i)
        if (!verdict.expectEq(prefix[t * kTile + i], running[i], "BlockScan::InclusiveSum", t * kTile + i)) break;
      verdict.expectEq(sums[t], running.back(), "BlockReduce::Sum", t);
      for (int w = 0; w < kBlock / 32; ++w) {
        // Warp w's threads' first items: in the blocked arrangement, item 0 of thread w*32+l.
        int best = in[t * kTile + w * 32 * kItems];
        for (int l = 0; l < 32; ++l) best = std::max(best, in[t * kTile + (w * 32 + l) * kItems]);
        verdict.expectEq(warpMax[t * (kBlock / 32) + w], best, "WarpReduce max", t * (kBlock / 32) + w);
      }
    }
    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dSorted));
    CHECK(cudaFree(dPrefix));
    CHECK(cudaFree(dSums));
    CHECK(cudaFree(dWarpMax));
  }
  return verdict.finish();
}
