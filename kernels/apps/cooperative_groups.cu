// kernels/apps: cooperative groups within a CTA. thread_block (sync, thread_rank, group_index),
// tiled_partition<32> and <4> (static), tiled_partition(block, 8) (dynamic, synchronized with
// tile.sync()), coalesced_threads() in a divergent branch, cg::reduce with plus and greater,
// cg::inclusive_scan and cg::exclusive_scan, meta_group_rank. 1,000 elements in CTAs of 128
// (the last one partial). Exact comparison with a host reference that assumes the lanes taking
// the branch run coalesced (they do on hardware and in ptxvm: nothing else diverges there).
#include "app_check.h"

#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <vector>

namespace cg = cooperative_groups;

enum Field {
  kWarpSum,
  kWarpMax,
  kQuadScan,
  kWarpExclusive,
  kTile8Sum,
  kWarpIndex,
  kCoalescedRank,
  kCoalescedSize,
  kCoalescedSum,
  kFields
};

constexpr int kBlock = 128;

__global__ void groups(const int *in, int *out, int *blockTotals, int n) {
  cg::thread_block block = cg::this_thread_block();
  const int i = block.group_index().x * block.size() + block.thread_rank();
  const int v = i < n ? in[i] : 0;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
  cg::thread_group tile8 = cg::tiled_partition(block, 8);

  int *o = out + i * kFields;
  const int warpSum = cg::reduce(warp, v, cg::plus<int>());
  const int warpMax = cg::reduce(warp, v, cg::greater<int>());
  const int quadScan = cg::inclusive_scan(quad, v);
  const int warpExclusive = cg::exclusive_scan(warp, v);

  __shared__ int scratch[kBlock];
  scratch[block.thread_rank()] = v;
  tile8.sync();
  const int first = block.thread_rank() / 8 * 8;
  int tile8Sum = 0;
  for (int k = 0; k < 8; ++k) tile8Sum += scratch[first + k];

  int coalescedRank = -1, coalescedSize = 0, coalescedSum = 0;
  if (v % 2 != 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    coalescedRank = active.thread_rank();
    coalescedSize = active.size();
    coalescedSum = cg::reduce(active, v, cg::plus<int>());
  }

  __shared__ int warpSums[kBlock / 32];
  if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = warpSum;
  block.sync();
  if (block.thread_rank() == 0) {
    int total = 0;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) total += warpSums[w];
    blockTotals[block.group_index().x] = total;
  }
  if (i < n) {
    o[kWarpSum] = warpSum;
    o[kWarpMax] = warpMax;
    o[kQuadScan] = quadScan;
    o[kWarpExclusive] = warpExclusive;
    o[kTile8Sum] = tile8Sum;
    o[kWarpIndex] = warp.meta_group_rank();
    o[kCoalescedRank] = coalescedRank;
    o[kCoalescedSize] = coalescedSize;
    o[kCoalescedSum] = coalescedSum;
  }
}

int main() {
  const int n = 1000, grid = (n + kBlock - 1) / kBlock;
  Random random(13);
  std::vector<int> in(n), out(n * kFields), blockTotals(grid);
  for (int &x : in) x = static_cast<int>(random.range(-500, 500));
  int *dIn, *dOut, *dTotals;
  CHECK(cudaMalloc(&dIn, n * sizeof(int)));
  CHECK(cudaMalloc(&dOut, out.size() * sizeof(int)));
  CHECK(cudaMalloc(&dTotals, grid * sizeof(int)));
  CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  groups<<<grid, kBlock>>>(dIn, dOut, dTotals, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(blockTotals.data(), dTotals, grid * sizeof(int), cudaMemcpyDeviceToHost));

  static const char *const names[kFields] = {
      "warp sum",   "warp max",       "quad inclusive scan", "warp exclusive scan", "tile8 sum",
      "warp index", "coalesced rank", "coalesced size",      "coalesced sum"};
  auto value = [&](int i) { return i < n ? in[i] : 0; };
  Verdict verdict;
  for (int i = 0; i < n; ++i) {
    const int warpFirst = i / 32 * 32, quadFirst = i / 4 * 4, tileFirst = i / 8 * 8;
    int want[kFields] = {0, value(warpFirst), 0, 0, 0, (i % kBlock) / 32, -1, 0, 0};
    for (int k = warpFirst; k < warpFirst + 32; ++k) {
      want[kWarpSum] += value(k);
      want[kWarpMax] = std::max(want[kWarpMax], value(k));
      if (k < i) want[kWarpExclusive] += value(k);
    }
    for (int k = quadFirst; k <= i; ++k) want[kQuadScan] += value(k);
    for (int k = tileFirst; k < tileFirst + 8; ++k) want[kTile8Sum] += value(k);
    if (in[i] % 2 != 0) {
      want[kCoalescedRank] = 0;
      for (int k = warpFirst; k < warpFirst + 32; ++k)
        if (value(k) % 2 != 0) {
          want[kCoalescedRank] += k < i;
          ++want[kCoalescedSize];
          want[kCoalescedSum] += value(k);
        }
    }
    for (int f = 0; f < kFields; ++f) verdict.expectEq(out[i * kFields + f], want[f], names[f], i);
  }
  for (int b = 0; b < grid; ++b) {
    int want = 0;
    for (int k = b * kBlock; k < (b + 1) * kBlock; ++k) want += value(k);
    verdict.expectEq(blockTotals[b], want, "block total", b);
  }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dOut));
  CHECK(cudaFree(dTotals));
  return verdict.finish();
}
