// kernels/apps: device symbols. __constant__ coefficients and a __constant__ struct written with
// cudaMemcpyToSymbol (whole and at an offset, and again between launches), a __device__ table
// with a static initializer partly overwritten with an offset, a __device__ counter read back
// with cudaMemcpyFromSymbol, cudaGetSymbolAddress/cudaGetSymbolSize, and
// cudaMemcpyToSymbolAsync/FromSymbolAsync on a stream. Integer arithmetic: exact comparison.
#include "app_check.h"

#include <algorithm>
#include <vector>

constexpr int kCoefficients = 4, kTable = 64;

struct Params {
  int scale;
  int offset;
};

__constant__ int coefficients[kCoefficients];
__constant__ Params params;
__device__ int table[kTable] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2,
                                6, 4, 3, 3, 8, 3, 2, 7, 9, 5, 0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3,
                                9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2};
__device__ unsigned long long counter;
__device__ int initialized = 1234;

// out[i] = scale * poly(x) + table[x % 64] + offset, with poly from the constant coefficients.
__global__ void evaluate(const int *x, long long *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long p = 0;
  for (int c = kCoefficients - 1; c >= 0; --c) p = p * x[i] + coefficients[c];
  out[i] = params.scale * p + table[x[i] % kTable] + params.offset + initialized;
  if (x[i] % 2 == 0) atomicAdd(&counter, 1ull);
}

struct Reference {
  int coefficients[kCoefficients];
  Params params;
  int table[kTable];
  long long at(int x) const {
    long long p = 0;
    for (int c = kCoefficients - 1; c >= 0; --c) p = p * x + coefficients[c];
    return params.scale * p + table[x % kTable] + params.offset + 1234;
  }
};

int main() {
  const int n = 5000;
  Random random(11);
  std::vector<int> x(n);
  std::vector<long long> out(n);
  unsigned long long evens = 0;
  for (int &v : x) {
    v = static_cast<int>(random.range(0, 99));
    evens += v % 2 == 0;
  }
  int *dX;
  long long *dOut;
  CHECK(cudaMalloc(&dX, n * sizeof(int)));
  CHECK(cudaMalloc(&dOut, n * sizeof(long long)));
  CHECK(cudaMemcpy(dX, x.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  Verdict verdict;
  size_t tableSize = 0;
  CHECK(cudaGetSymbolSize(&tableSize, table));
  verdict.expectEq(static_cast<long long>(tableSize), kTable * sizeof(int), "cudaGetSymbolSize(table)", 0);

  // The static initializer is visible through the symbol's device address.
  Reference ref{};
  int *tableAddress = nullptr;
  CHECK(cudaGetSymbolAddress(reinterpret_cast<void **>(&tableAddress), table));
  CHECK(cudaMemcpy(ref.table, tableAddress, sizeof(ref.table), cudaMemcpyDeviceToHost));
  verdict.expect(ref.table[0] == 3 && ref.table[5] == 9 && ref.table[63] == 2, "table initializer: %d %d %d",
                 ref.table[0], ref.table[5], ref.table[63]);
  // Overwrite elements 16..31 at an offset.
  for (int k = 16; k < 32; ++k) ref.table[k] = 100 + k;
  CHECK(cudaMemcpyToSymbol(table, &ref.table[16], 16 * sizeof(int), 16 * sizeof(int)));

  const int coefficientsA[kCoefficients] = {7, -3, 2, 1};
  std::copy(coefficientsA, coefficientsA + kCoefficients, ref.coefficients);
  ref.params = {3, -11};
  CHECK(cudaMemcpyToSymbol(coefficients, coefficientsA, sizeof(coefficientsA)));
  CHECK(cudaMemcpyToSymbol(params, &ref.params, sizeof(Params)));
  const unsigned long long zero = 0;
  CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof(zero)));

  const int block = 128, grid = (n + block - 1) / block;
  evaluate<<<grid, block>>>(dX, dOut, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) verdict.expectEq(out[i], ref.at(x[i]), "first launch", i);

  // Between launches: new coefficients (only the last two, at an offset) and params, on a stream.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const int tail[2] = {-5, 4};
  ref.coefficients[2] = tail[0];
  ref.coefficients[3] = tail[1];
  ref.params = {-2, 1000};
  CHECK(cudaMemcpyToSymbolAsync(coefficients, tail, sizeof(tail), 2 * sizeof(int), cudaMemcpyHostToDevice,
                                stream));
  CHECK(cudaMemcpyToSymbolAsync(params, &ref.params, sizeof(Params), 0, cudaMemcpyHostToDevice, stream));
  evaluate<<<grid, block, 0, stream>>>(dX, dOut, n);
  CHECK_LAUNCH();
  unsigned long long count = 0;
  CHECK(cudaMemcpyFromSymbolAsync(&count, counter, sizeof(count), 0, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) verdict.expectEq(out[i], ref.at(x[i]), "second launch", i);
  verdict.expectEq(static_cast<long long>(count), static_cast<long long>(2 * evens), "counter", 0);

  Params readBack{};
  CHECK(cudaMemcpyFromSymbol(&readBack, params, sizeof(Params)));
  verdict.expect(readBack.scale == -2 && readBack.offset == 1000, "params read back as {%d, %d}",
                 readBack.scale, readBack.offset);

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(dX));
  CHECK(cudaFree(dOut));
  return verdict.finish();
}
