// kernels/apps: vector add. c = a + b over 200,003 floats with a partial last CTA, then the
// same sum with a grid-stride loop on a small grid; both compared exactly with the host.
#include "app_check.h"

#include <vector>

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Fewer threads than elements: each thread walks the vector with the grid's stride.
__global__ void vectorAddGridStride(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

int main() {
  const int n = 200003;
  Random random(1);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = random.uniform(-100.0f, 100.0f);
    b[i] = random.uniform(-1.0f, 1.0f);
  }
  float *da, *db, *dc;
  const size_t bytes = n * sizeof(float);
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));

  Verdict verdict;
  const int block = 256;
  vectorAdd<<<(n + block - 1) / block, block>>>(da, db, dc, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    verdict.expect(c[i] == a[i] + b[i], "c[%d] = %.9g, expected %.9g", i, c[i], a[i] + b[i]);

  CHECK(cudaMemset(dc, 0, bytes));
  vectorAddGridStride<<<13, 96>>>(db, da, dc, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    verdict.expect(c[i] == b[i] + a[i], "grid-stride c[%d] = %.9g, expected %.9g", i, c[i], b[i] + a[i]);

  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return verdict.finish();
}
