// kernels/apps: a CudaDMA-style warp-specialized pipeline. In each CTA of 192 threads, two DMA
// warps copy tiles of 512 floats from global into a double buffer in shared memory and signal
// with bar.arrive; four compute warps wait with bar.sync, smooth the tile, and hand the buffer
// back with bar.arrive. Named barriers, with ids and thread counts in registers:
//   buffer b in {0,1}: "full" = 1 + 2b, "empty" = 2 + 2b, all 192 threads (DMA + compute);
//   barrier 5 (immediate operands): the 128 compute threads only, for the per-tile maximum.
// 6 CTAs x 9 tiles. Inputs are integers, so the smoothed values are exact.
#include "app_check.h"

#include <algorithm>
#include <vector>

constexpr int kTile = 512;
constexpr int kComputeThreads = 128, kDmaThreads = 64, kThreads = kComputeThreads + kDmaThreads;

__device__ __forceinline__ void barSync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void barArrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__global__ void __launch_bounds__(kThreads) pipeline(const float *in, float *out, float *tileMax, int tiles) {
  __shared__ float4 buffers[2][kTile / 4];
  __shared__ float warpMax[2][kComputeThreads / 32];
  const unsigned everyone = blockDim.x;
  const float *src = in + static_cast<size_t>(blockIdx.x) * tiles * kTile;
  float *dst = out + static_cast<size_t>(blockIdx.x) * tiles * kTile;
  if (threadIdx.x >= kComputeThreads) {
    // DMA warps: buffer b is free the first time; later, wait until the compute warps release it.
    const unsigned d = threadIdx.x - kComputeThreads;
    for (int t = 0; t < tiles; ++t) {
      const unsigned b = t & 1;
      if (t >= 2) barSync(2 + 2 * b, everyone);
      const float4 *tile = reinterpret_cast<const float4 *>(src + static_cast<size_t>(t) * kTile);
      for (unsigned k = d; k < kTile / 4; k += kDmaThreads) buffers[b][k] = tile[k];
      barArrive(1 + 2 * b, everyone);
    }
    return;
  }
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int t = 0; t < tiles; ++t) {
    const unsigned b = t & 1;
    const float *buf = reinterpret_cast<const float *>(buffers[b]);
    barSync(1 + 2 * b, everyone);
    float values[kTile / kComputeThreads];
    float m = -1e30f;
#pragma unroll
    for (int r = 0; r < kTile / kComputeThreads; ++r) {
      const int k = threadIdx.x + r * kComputeThreads;
      values[r] = 0.5f * buf[k] + 0.25f * (buf[(k + kTile - 1) % kTile] + buf[(k + 1) % kTile]);
      m = fmaxf(m, values[r]);
    }
    if (t + 2 < tiles) barArrive(2 + 2 * b, everyone); // done reading buffer b
#pragma unroll
    for (int r = 0; r < kTile / kComputeThreads; ++r)
      dst[static_cast<size_t>(t) * kTile + threadIdx.x + r * kComputeThreads] = values[r];
    for (int mask = 16; mask > 0; mask /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, mask));
    if (lane == 0) warpMax[b][warp] = m;
    asm volatile("bar.sync 5, 128;" ::: "memory");
    if (threadIdx.x == 0) {
      float tm = warpMax[b][0];
      for (int w = 1; w < kComputeThreads / 32; ++w) tm = fmaxf(tm, warpMax[b][w]);
      tileMax[blockIdx.x * tiles + t] = tm;
    }
  }
}

int main() {
  const int ctas = 6, tiles = 9, n = ctas * tiles * kTile;
  Random random(10);
  std::vector<float> in(n), out(n), tileMax(ctas * tiles);
  for (float &x : in) x = static_cast<float>(random.range(-1000, 1000));
  float *dIn, *dOut, *dTileMax;
  CHECK(cudaMalloc(&dIn, n * sizeof(float)));
  CHECK(cudaMalloc(&dOut, n * sizeof(float)));
  CHECK(cudaMalloc(&dTileMax, tileMax.size() * sizeof(float)));
  CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  pipeline<<<ctas, kThreads>>>(dIn, dOut, dTileMax, tiles);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tileMax.data(), dTileMax, tileMax.size() * sizeof(float), cudaMemcpyDeviceToHost));

  Verdict verdict;
  for (int tile = 0; tile < ctas * tiles; ++tile) {
    const float *x = &in[tile * kTile];
    float m = -1e30f;
    for (int k = 0; k < kTile; ++k) {
      const float want = 0.5f * x[k] + 0.25f * (x[(k + kTile - 1) % kTile] + x[(k + 1) % kTile]);
      m = std::max(m, want);
      verdict.expect(out[tile * kTile + k] == want, "tile %d element %d: %.9g, expected %.9g", tile, k,
                     out[tile * kTile + k], want);
    }
    verdict.expect(tileMax[tile] == m, "tile %d maximum: %.9g, expected %.9g", tile, tileMax[tile], m);
  }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dOut));
  CHECK(cudaFree(dTileMax));
  return verdict.finish();
}
