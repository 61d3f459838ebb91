// kernels/apps: tiled matrix multiply. C (100x90) = A (100x70) * B (70x90) with 16x16 tiles in
// shared memory; no dimension is a multiple of the tile, so edge tiles are partial. Inputs are
// small integers held in floats, so every product and sum is exact and the check is exact.
#include "app_check.h"

#include <vector>

constexpr int kTile = 16;

__global__ void matmulTiled(const float *a, const float *b, float *c, int m, int n, int k) {
  __shared__ float tileA[kTile][kTile];
  __shared__ float tileB[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    const int ak = t + threadIdx.x, bk = t + threadIdx.y;
    tileA[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? a[row * k + ak] : 0.0f;
    tileB[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? b[bk * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int e = 0; e < kTile; ++e) acc += tileA[threadIdx.y][e] * tileB[e][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

int main() {
  const int m = 100, n = 90, k = 70;
  Random random(2);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (float &x : a) x = static_cast<float>(random.range(-8, 8));
  for (float &x : b) x = static_cast<float>(random.range(-8, 8));

  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  matmulTiled<<<grid, block>>>(da, db, dc, m, n, k);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

  Verdict verdict;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long long want = 0;
      for (int e = 0; e < k; ++e)
        want += static_cast<long long>(a[i * k + e]) * static_cast<long long>(b[e * n + j]);
      verdict.expect(c[i * n + j] == static_cast<float>(want), "C[%d][%d] = %.9g, expected %lld", i, j,
                     c[i * n + j], want);
    }

  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return verdict.finish();
}
