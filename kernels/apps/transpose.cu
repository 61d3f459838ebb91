// kernels/apps: matrix transpose through a padded 32x33 shared-memory tile (coalesced reads
// and writes, no bank conflicts), 300x500 floats with partial edge tiles, then transposed back.
// Both results are compared exactly.
#include "app_check.h"

#include <vector>

constexpr int kTileDim = 32;
constexpr int kBlockRows = 8;

// out (cols x rows) = transpose of in (rows x cols).
__global__ void transposeTiled(float *out, const float *in, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launchTranspose(float *out, const float *in, int rows, int cols) {
  dim3 block(kTileDim, kBlockRows);
  dim3 grid((cols + kTileDim - 1) / kTileDim, (rows + kTileDim - 1) / kTileDim);
  transposeTiled<<<grid, block>>>(out, in, rows, cols);
  CHECK_LAUNCH();
}

int main() {
  const int rows = 300, cols = 500;
  Random random(6);
  std::vector<float> in(rows * cols), out(rows * cols), back(rows * cols);
  for (float &x : in) x = random.uniform(-1000.0f, 1000.0f);

  float *dIn, *dOut, *dBack;
  const size_t bytes = in.size() * sizeof(float);
  CHECK(cudaMalloc(&dIn, bytes));
  CHECK(cudaMalloc(&dOut, bytes));
  CHECK(cudaMalloc(&dBack, bytes));
  CHECK(cudaMemcpy(dIn, in.data(), bytes, cudaMemcpyHostToDevice));
  launchTranspose(dOut, dIn, rows, cols);
  launchTranspose(dBack, dOut, cols, rows);
  CHECK(cudaMemcpy(out.data(), dOut, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(back.data(), dBack, bytes, cudaMemcpyDeviceToHost));

  Verdict verdict;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      verdict.expect(out[c * rows + r] == in[r * cols + c], "out[%d][%d] = %.9g, expected %.9g", c, r,
                     out[c * rows + r], in[r * cols + c]);
      verdict.expect(back[r * cols + c] == in[r * cols + c], "back[%d][%d] = %.9g, expected %.9g", r, c,
                     back[r * cols + c], in[r * cols + c]);
    }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dOut));
  CHECK(cudaFree(dBack));
  return verdict.finish();
}
