// kernels/apps: grid-wide synchronization with cooperative groups (this_grid().sync()),
// launched with cudaLaunchCooperativeKernel. Four phases separated by grid.sync(): per-CTA sums
// of squares, a total computed by CTA 0, every element scaled by that total, and every element
// replaced by its neighbour's scaled value (which another CTA wrote). The grid is small (at most
// 6 CTAs) and checked against the occupancy API so that all CTAs can be resident at once, which
// grid.sync() needs. Exact comparison with the host.
#include "app_check.h"

#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kBlock = 256;

__global__ void gridPhases(const int *in, long long *scaled, long long *rotated, long long *partials,
                           long long *total, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ long long warpSums[kBlock / 32];

  long long s = 0;
  for (long long i = grid.thread_rank(); i < n; i += grid.size()) s += static_cast<long long>(in[i]) * in[i];
  s = cg::reduce(warp, s, cg::plus<long long>());
  if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    long long sum = 0;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) sum += warpSums[w];
    partials[grid.block_rank()] = sum;
  }
  grid.sync();
  if (grid.block_rank() == 0 && block.thread_rank() == 0) {
    long long sum = 0;
    for (unsigned b = 0; b < grid.num_blocks(); ++b) sum += partials[b];
    *total = sum;
  }
  grid.sync();
  const long long t = *total;
  for (long long i = grid.thread_rank(); i < n; i += grid.size())
    scaled[i] = static_cast<long long>(in[i]) * in[i] * 1000000 / t;
  grid.sync();
  for (long long i = grid.thread_rank(); i < n; i += grid.size()) rotated[i] = scaled[(i + 1) % n];
}

int main() {
  const int n = 20000;
  int device = 0, cooperative = 0, sms = 0, perSm = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridPhases, kBlock, 0));
  Verdict verdict;
  if (!verdict.expect(cooperative != 0 && perSm > 0 && sms > 0,
                      "no cooperative launch: attribute %d, %d CTAs per SM, %d SMs", cooperative, perSm, sms))
    return verdict.finish();
  const int grid = std::min(6, perSm * sms);

  Random random(14);
  std::vector<int> in(n);
  for (int &x : in) x = static_cast<int>(random.range(-3000, 3000));
  int *dIn;
  long long *dScaled, *dRotated, *dPartials, *dTotal;
  CHECK(cudaMalloc(&dIn, n * sizeof(int)));
  CHECK(cudaMalloc(&dScaled, n * sizeof(long long)));
  CHECK(cudaMalloc(&dRotated, n * sizeof(long long)));
  CHECK(cudaMalloc(&dPartials, grid * sizeof(long long)));
  CHECK(cudaMalloc(&dTotal, sizeof(long long)));
  CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int count = n;
  void *args[] = {&dIn, &dScaled, &dRotated, &dPartials, &dTotal, &count};
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(gridPhases), dim3(grid), dim3(kBlock), args, 0,
                                    nullptr));
  CHECK(cudaDeviceSynchronize());

  std::vector<long long> rotated(n);
  long long total = 0;
  CHECK(cudaMemcpy(rotated.data(), dRotated, n * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, dTotal, sizeof(total), cudaMemcpyDeviceToHost));
  long long want = 0;
  for (int x : in) want += static_cast<long long>(x) * x;
  verdict.expectEq(total, want, "total", 0);
  for (int i = 0; i < n; ++i) {
    const long long x = in[(i + 1) % n];
    verdict.expectEq(rotated[i], x * x * 1000000 / want, "rotated", i);
  }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dScaled));
  CHECK(cudaFree(dRotated));
  CHECK(cudaFree(dPartials));
  CHECK(cudaFree(dTotal));
  return verdict.finish();
}
