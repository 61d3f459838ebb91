// Thread-block clusters (sm_90) through the runtime: __cluster_dims__ kernels and launch-time
// cluster shapes (cudaLaunchKernelEx), distributed shared memory through cooperative groups'
// map_shared_rank, cluster.sync(); grids that are not whole clusters fail to launch.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/cluster | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: cluster: ok
// clang-format on
#include "Inputs/check.h"

#include <cooperative_groups.h>
#include <vector>

namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) exchange(int *out) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  s[threadIdx.x] = rank * 1000 + threadIdx.x;
  cluster.sync();
  int *other = cluster.map_shared_rank(s, rank ^ 1);
  int v = other[(threadIdx.x + 1) % 64];
  cluster.sync(); // the neighbour's shared memory must outlive the read
  out[blockIdx.x * 64 + threadIdx.x] = v + 100000 * static_cast<int>(cluster.num_blocks());
}

// Launched with a cluster shape of 4: every CTA counts into the bins of rank 0.
__global__ void histogram(const unsigned *keys, unsigned *hist, int n) {
  __shared__ unsigned bins[16];
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x < 16) bins[threadIdx.x] = 0;
  cluster.sync();
  unsigned *bins0 = cluster.map_shared_rank(bins, 0);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins0[keys[i] % 16], 1u);
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}

int main() {
  int *out = nullptr;
  EXPECT_OK(cudaMalloc(&out, 4 * 64 * sizeof(int)));
  exchange<<<4, 64>>>(out);
  EXPECT_OK(cudaGetLastError());
  std::vector<int> got(4 * 64);
  EXPECT_OK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 64; ++t) EXPECT(got[b * 64 + t] == 200000 + ((b % 2) ^ 1) * 1000 + (t + 1) % 64);
  exchange<<<3, 64>>>(out); // not a whole number of clusters of 2
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidClusterSize);

  const int n = 8 * 64 - 5;
  std::vector<unsigned> keys(n), want(16, 0);
  for (int i = 0; i < n; ++i) want[(keys[i] = static_cast<unsigned>(i * 7919 % 1000)) % 16]++;
  unsigned *dKeys = nullptr, *dHist = nullptr;
  EXPECT_OK(cudaMalloc(&dKeys, n * sizeof(unsigned)));
  EXPECT_OK(cudaMalloc(&dHist, 16 * sizeof(unsigned)));
  EXPECT_OK(cudaMemcpy(dKeys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  EXPECT_OK(cudaMemset(dHist, 0, 16 * sizeof(unsigned)));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(8);
  config.blockDim = dim3(64);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 4;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  EXPECT_OK(cudaLaunchKernelEx(&config, histogram, static_cast<const unsigned *>(dKeys), dHist, n));
  std::vector<unsigned> hist(16);
  EXPECT_OK(cudaMemcpy(hist.data(), dHist, 16 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  EXPECT(hist == want);
  attribute.val.clusterDim.x = 3; // 8 CTAs are not clusters of 3
  EXPECT_ERR(cudaLaunchKernelEx(&config, histogram, static_cast<const unsigned *>(dKeys), dHist, n),
             cudaErrorInvalidClusterSize);
  std::printf("cluster: %s\n", g_failures ? "FAILED" : "ok");
  return g_failures != 0;
}
