#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
__global__ void k(cudaTextureObject_t t, const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, x[i]);
}
int main() {
  const float pairs[][2] = {{0, 1}, {1, 0}, {1, 3}, {3, 1}, {0.001f, 333.3f}, {-1, 1}, {1, -1}, {0.1f, 0.2f},
                            {100, 100.5f}, {1e-30f, 1}, {1, 1e30f}, {1, 1.0000001f}, {65504, 1e-7f}, {-7.25f, 1e6f},
                            {3.14159f, -0.5f}, {1, 2}};
  const int P = sizeof pairs / sizeof pairs[0];
  std::vector<float> texels;
  for (auto &p : pairs) texels.push_back(p[0]), texels.push_back(p[1]);
  cudaArray_t a;
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaMallocArray(&a, &d, texels.size(), 0);
  cudaMemcpy2DToArray(a, 0, 0, texels.data(), texels.size() * 4, texels.size() * 4, 1, cudaMemcpyHostToDevice);
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t t;
  cudaCreateTextureObject(&t, &r, &td, nullptr);
  std::vector<float> xs;
  for (int p = 0; p < P; ++p)
    for (int j = 0; j <= 256; ++j) xs.push_back(2 * p + 0.5f + j / 256.0f);
  const int n = xs.size();
  float *dx, *dout;
  cudaMalloc(&dx, n * 4);
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dx, xs.data(), n * 4, cudaMemcpyHostToDevice);
  k<<<(n + 255) / 256, 256>>>(t, dx, dout, n);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    unsigned b;
    std::memcpy(&b, &out[i], 4);
    std::printf("%d %d %08x\n", i / 257, i % 257, b);
  }
  return 0;
}
