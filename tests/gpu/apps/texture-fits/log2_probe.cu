// The texture unit's log2 in the level of detail: tex2DGrad on a 256x256 mipmapped texture whose
// level l reads 256 l (point sampling, linear between levels, normalized coordinates), with one
// gradient along x of 2 * (1 + i / 8192) texels for i = 0..8191: each fetch returns 256 times the
// level of detail, 256 + 256 log2(1 + i / 8192) as the unit computes it. Prints `i result-bits`.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

__global__ void k(cudaTextureObject_t t, const float *g, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(g[i], 0), make_float2(0, 0));
}

int main() {
  cudaMipmappedArray_t mip;
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaMallocMipmappedArray(&mip, &d, make_cudaExtent(256, 256, 0), 9);
  for (int l = 0; l < 9; ++l) {
    cudaArray_t a;
    cudaGetMipmappedArrayLevel(&a, mip, l);
    int n = 256 >> l;
    std::vector<float> v(n * n, 256.0f * l);
    cudaMemcpy2DToArray(a, 0, 0, v.data(), n * 4, n * 4, n, cudaMemcpyHostToDevice);
  }
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = mip;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.mipmapFilterMode = cudaFilterModeLinear;
  td.normalizedCoords = 1;
  td.maxMipmapLevelClamp = 8;
  cudaTextureObject_t t;
  cudaCreateTextureObject(&t, &r, &td, nullptr);
  const int n = 8192;
  std::vector<float> g(n);
  for (int i = 0; i < n; ++i) g[i] = 2.0f * (1.0f + i / 8192.0f) / 256.0f;
  float *dg, *dout;
  cudaMalloc(&dg, n * 4);
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dg, g.data(), n * 4, cudaMemcpyHostToDevice);
  k<<<n / 256, 256>>>(t, dg, dout, n);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    unsigned b;
    std::memcpy(&b, &out[i], 4);
    std::printf("%d %08x\n", i, b);
  }
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
