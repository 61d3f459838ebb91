// kernels/apps/misuse, DESIGN.md §4 row "producer/consumer over bar.arrive/bar.sync pairs
// (CudaDMA protocol), register operands for id and count". 96 threads: warps 0-1 compute, warp 2
// copies tiles into shared memory. Barrier ids come from a kernel parameter (full = 3,
// empty = 4) and the count from blockDim.x. 6 tiles of 256 integers; out = 2 * in + 1.
// Hardware: completes. ptxvm: completes, same results, no diagnostic.
#include "misuse.h"

constexpr int kTile = 256, kTiles = 6;

__global__ void dmaRegisters(const int *in, int *out, int tiles, unsigned firstId) {
  __shared__ int buf[kTile];
  const unsigned count = blockDim.x, compute = count - 32;
  const unsigned full = firstId, empty = firstId + 1;
  if (threadIdx.x >= compute) {
    const unsigned lane = threadIdx.x - compute;
    for (int t = 0; t < tiles; ++t) {
      barSync(empty, count);
      for (unsigned k = lane; k < kTile; k += 32) buf[k] = in[t * kTile + k];
      barArrive(full, count);
    }
    return;
  }
  barArrive(empty, count);
  for (int t = 0; t < tiles; ++t) {
    barSync(full, count);
    int values[kTile / 64];
    for (int r = 0; r < kTile / 64; ++r) values[r] = buf[threadIdx.x + 64 * r];
    if (t + 1 < tiles) barArrive(empty, count);
    for (int r = 0; r < kTile / 64; ++r) out[t * kTile + threadIdx.x + 64 * r] = 2 * values[r] + 1;
  }
}

int main() {
  const int n = kTile * kTiles;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = (i * 7919) % 1000 - 500;
  int *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  dmaRegisters<<<1, 96>>>(in, out, kTiles, 3);
  if (reportLaunchAndSync()) reportDeviceResult(out, n, [&](int i) { return 2 * host[i] + 1; });
  return 0;
}
