// kernels/apps: Thrust as programs use it (issue 14: the algorithms CUB dispatches on the PTX
// version and the device's properties). Sorts (ints ascending, floats descending, a stable sort by
// key that must keep equal keys in input order), scans (inclusive, exclusive with an initial value,
// by key), reductions (sum, transform-reduce in double, min/max element, count), reduce-by-key,
// a dense histogram (sort, upper_bound, adjacent_difference), selection (copy_if, remove_if,
// unique, stable_partition), gather and inner_product. Every result is compared with the same
// computation on the host.
#include "app_check.h"

#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
struct Square {
  __host__ __device__ double operator()(int x) const { return double(x) * x; }
};
struct Negative {
  __host__ __device__ bool operator()(int x) const { return x < 0; }
};

template <class T> std::vector<T> toHost(const thrust::device_vector<T> &d) {
  thrust::host_vector<T> h = d;
  return std::vector<T>(h.begin(), h.end());
}

int main() {
  Verdict verdict;
  Random rng(20261201);
  const int n = 60000;
  std::vector<int> keys(n), values(n), small(n);
  std::vector<float> floats(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = static_cast<int>(rng.range(-40000, 40000));
    values[i] = static_cast<int>(rng.range(0, 100));
    small[i] = static_cast<int>(rng.range(0, 63));
    floats[i] = rng.uniform(-1000.0f, 1000.0f);
  }

  // ---- sorts ----
  thrust::device_vector<int> dKeys(keys.begin(), keys.end());
  thrust::sort(dKeys.begin(), dKeys.end());
  std::vector<int> sortedKeys = keys;
  std::sort(sortedKeys.begin(), sortedKeys.end());
  verdict.expect(toHost(dKeys) == sortedKeys, "thrust::sort of ints");

  thrust::device_vector<float> dFloats(floats.begin(), floats.end());
  thrust::sort(dFloats.begin(), dFloats.end(), thrust::greater<float>());
  std::vector<float> sortedFloats = floats;
  std::sort(sortedFloats.begin(), sortedFloats.end(), std::greater<float>());
  verdict.expect(toHost(dFloats) == sortedFloats, "thrust::sort of floats, descending");

  // Equal keys keep their input order: the values are the input positions.
  thrust::device_vector<int> dSmall(small.begin(), small.end()), dOrder(n);
  thrust::sequence(dOrder.begin(), dOrder.end());
  thrust::stable_sort_by_key(dSmall.begin(), dSmall.end(), dOrder.begin());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return small[a] < small[b]; });
  verdict.expect(toHost(dOrder) == order, "thrust::stable_sort_by_key keeps equal keys in order");

  // ---- scans ----
  thrust::device_vector<int> dValues(values.begin(), values.end()), dScan(n);
  thrust::inclusive_scan(dValues.begin(), dValues.end(), dScan.begin());
  std::vector<int> scan(n);
  std::partial_sum(values.begin(), values.end(), scan.begin());
  verdict.expect(toHost(dScan) == scan, "thrust::inclusive_scan");

  thrust::exclusive_scan(dValues.begin(), dValues.end(), dScan.begin(), 1000);
  std::vector<int> exclusive(n);
  for (int i = 0, sum = 1000; i < n; ++i) exclusive[i] = sum, sum += values[i];
  verdict.expect(toHost(dScan) == exclusive, "thrust::exclusive_scan from 1000");

  // Segments: runs of equal keys in the small keys as given.
  thrust::device_vector<int> dSegments(small.begin(), small.end());
  thrust::inclusive_scan_by_key(dSegments.begin(), dSegments.end(), dValues.begin(), dScan.begin());
  std::vector<int> byKey(n);
  for (int i = 0; i < n; ++i) byKey[i] = values[i] + (i > 0 && small[i] == small[i - 1] ? byKey[i - 1] : 0);
  verdict.expect(toHost(dScan) == byKey, "thrust::inclusive_scan_by_key");

  // ---- reductions ----
  const long long sum = thrust::reduce(dValues.begin(), dValues.end(), 0LL);
  verdict.expectEq(sum, std::accumulate(values.begin(), values.end(), 0LL), "thrust::reduce", 0);
  thrust::device_vector<int> dUnsorted(keys.begin(), keys.end());
  const double squares = thrust::transform_reduce(dUnsorted.begin(), dUnsorted.end(), Square(), 0.0,
                                                  thrust::plus<double>());
  double hostSquares = 0;
  for (int k : keys) hostSquares += double(k) * k;
  verdict.expect(squares == hostSquares, "thrust::transform_reduce: %.17g, host %.17g", squares, hostSquares);
  const auto minimum = thrust::min_element(dUnsorted.begin(), dUnsorted.end());
  const auto maximum = thrust::max_element(dUnsorted.begin(), dUnsorted.end());
  const auto hostMin = std::min_element(keys.begin(), keys.end());
  const auto hostMax = std::max_element(keys.begin(), keys.end());
  verdict.expectEq(static_cast<long long>(minimum - dUnsorted.begin()),
                   static_cast<long long>(hostMin - keys.begin()), "thrust::min_element position", 0);
  verdict.expectEq(static_cast<long long>(maximum - dUnsorted.begin()),
                   static_cast<long long>(hostMax - keys.begin()), "thrust::max_element position", 0);
  const long long odd = thrust::count_if(dUnsorted.begin(), dUnsorted.end(), IsOdd());
  verdict.expectEq(odd, static_cast<long long>(std::count_if(keys.begin(), keys.end(), IsOdd())),
                   "thrust::count_if", 0);

  // ---- reduce by key ----
  thrust::device_vector<int> dGroupKeys(small.begin(), small.end()), dGroupValues(values.begin(), values.end());
  thrust::sort_by_key(dGroupKeys.begin(), dGroupKeys.end(), dGroupValues.begin());
  thrust::device_vector<int> dUniqueKeys(64), dSums(64);
  auto ends = thrust::reduce_by_key(dGroupKeys.begin(), dGroupKeys.end(), dGroupValues.begin(),
                                    dUniqueKeys.begin(), dSums.begin());
  std::map<int, int> groups;
  for (int i = 0; i < n; ++i) groups[small[i]] += values[i];
  const int found = static_cast<int>(ends.first - dUniqueKeys.begin());
  verdict.expectEq(found, static_cast<int>(groups.size()), "thrust::reduce_by_key groups", 0);
  std::vector<int> uniqueKeys = toHost(dUniqueKeys), sums = toHost(dSums);
  int g = 0;
  for (const auto &[key, total] : groups) {
    if (g >= found) break;
    verdict.expectEq(uniqueKeys[g], key, "reduce_by_key key", g);
    verdict.expectEq(sums[g], total, "reduce_by_key sum", g);
    ++g;
  }

  // ---- a dense histogram: sort, upper_bound at each bin, adjacent_difference ----
  thrust::device_vector<int> dSamples(small.begin(), small.end()), dHistogram(64);
  thrust::sort(dSamples.begin(), dSamples.end());
  thrust::counting_iterator<int> bins(0);
  thrust::upper_bound(dSamples.begin(), dSamples.end(), bins, bins + 64, dHistogram.begin());
  thrust::adjacent_difference(dHistogram.begin(), dHistogram.end(), dHistogram.begin());
  std::vector<int> histogram(64, 0);
  for (int s : small) ++histogram[s];
  verdict.expect(toHost(dHistogram) == histogram, "histogram by upper_bound");

  // ---- selection ----
  thrust::device_vector<int> dSelected(n);
  auto selectedEnd = thrust::copy_if(dUnsorted.begin(), dUnsorted.end(), dSelected.begin(), IsOdd());
  std::vector<int> selected;
  std::copy_if(keys.begin(), keys.end(), std::back_inserter(selected), IsOdd());
  dSelected.resize(selectedEnd - dSelected.begin());
  verdict.expect(toHost(dSelected) == selected, "thrust::copy_if keeps order (%zu of %d)", selected.size(), n);

  thrust::device_vector<int> dRemoved(keys.begin(), keys.end());
  dRemoved.erase(thrust::remove_if(dRemoved.begin(), dRemoved.end(), Negative()), dRemoved.end());
  std::vector<int> kept = keys;
  kept.erase(std::remove_if(kept.begin(), kept.end(), Negative()), kept.end());
  verdict.expect(toHost(dRemoved) == kept, "thrust::remove_if");

  thrust::device_vector<int> dUnique(dSamples);
  dUnique.erase(thrust::unique(dUnique.begin(), dUnique.end()), dUnique.end());
  verdict.expectEq(static_cast<int>(dUnique.size()), 64, "thrust::unique of the sorted samples", 0);

  thrust::device_vector<int> dParts(keys.begin(), keys.end());
  auto middle = thrust::stable_partition(dParts.begin(), dParts.end(), Negative());
  std::vector<int> parts = keys;
  auto hostMiddle = std::stable_partition(parts.begin(), parts.end(), Negative());
  verdict.expectEq(static_cast<long long>(middle - dParts.begin()), static_cast<long long>(hostMiddle - parts.begin()),
                   "thrust::stable_partition point", 0);
  verdict.expect(toHost(dParts) == parts, "thrust::stable_partition order");

  // ---- gather and inner product ----
  thrust::device_vector<int> dGathered(n);
  thrust::gather(dOrder.begin(), dOrder.end(), dValues.begin(), dGathered.begin());
  std::vector<int> gathered(n);
  for (int i = 0; i < n; ++i) gathered[i] = values[order[i]];
  verdict.expect(toHost(dGathered) == gathered, "thrust::gather");
  const long long dot = thrust::inner_product(dValues.begin(), dValues.end(), dGathered.begin(), 0LL);
  long long hostDot = 0;
  for (int i = 0; i < n; ++i) hostDot += static_cast<long long>(values[i]) * gathered[i];
  verdict.expectEq(dot, hostDot, "thrust::inner_product", 0);

  return verdict.finish();
}
