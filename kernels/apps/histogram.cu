// kernels/apps: 256-bin histogram of 300,007 bytes with shared-memory atomics. Each CTA counts
// into its own shared histogram (atomicAdd on shared memory), then adds it to the global one.
// Two launches with different shapes cover the two halves of the input and accumulate into the
// same histogram. The input is skewed so that many threads hit the same bins.
#include "app_check.h"

#include <vector>

constexpr int kBins = 256;

__global__ void histogramShared(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 300007;
  Random random(4);
  std::vector<unsigned char> data(n);
  for (unsigned char &x : data) {
    // Half the bytes land in 8 hot bins.
    x = static_cast<unsigned char>(random.next() % 2 ? random.range(0, 255) : random.range(120, 127));
  }
  std::vector<unsigned> want(kBins, 0);
  for (unsigned char x : data) ++want[x];

  unsigned char *dData;
  unsigned *dBins;
  CHECK(cudaMalloc(&dData, n));
  CHECK(cudaMalloc(&dBins, kBins * sizeof(unsigned)));
  CHECK(cudaMemcpy(dData, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dBins, 0, kBins * sizeof(unsigned)));

  const int half = n / 2;
  histogramShared<<<40, 256>>>(dData, half, dBins);
  CHECK_LAUNCH();
  histogramShared<<<23, 160>>>(dData + half, n - half, dBins);
  CHECK_LAUNCH();

  std::vector<unsigned> got(kBins);
  CHECK(cudaMemcpy(got.data(), dBins, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  Verdict verdict;
  for (int b = 0; b < kBins; ++b) verdict.expectEq(got[b], want[b], "bin", b);

  CHECK(cudaFree(dData));
  CHECK(cudaFree(dBins));
  return verdict.finish();
}
