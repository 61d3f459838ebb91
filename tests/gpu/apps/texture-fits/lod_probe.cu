#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
__global__ void k(cudaTextureObject_t t, const float4 *g, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(g[i].x, g[i].y), make_float2(g[i].z, g[i].w));
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
  std::vector<float4> g;
  // rho in texels from 1 to 4 in 1/128 steps along x only
  for (int i = 0; i <= 384; ++i) g.push_back(make_float4((1.0f + i / 128.0f) / 256.0f, 0, 0, 0));
  // rho from 1 to 256 geometric
  for (int i = 0; i <= 64; ++i) g.push_back(make_float4(powf(2.0f, i / 8.0f) / 256.0f, 0, 0, 0));
  // anisotropy and diagonals: (a, b) in dPdx, (c, e) in dPdy
  const float s[] = {0.5f, 1, 1.5f, 2, 3, 5};
  for (float a : s)
    for (float b : s) {
      g.push_back(make_float4(a / 256, 0, 0, b / 256));
      g.push_back(make_float4(a / 256, b / 256, 0, 0));
      g.push_back(make_float4(a / 256, 0, b / 256, 0));
      g.push_back(make_float4(a / 256, b / 256, b / 256, a / 256));
    }
  const int n = g.size();
  float4 *dg;
  float *dout;
  cudaMalloc(&dg, n * 16);
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dg, g.data(), n * 16, cudaMemcpyHostToDevice);
  k<<<(n + 127) / 128, 128>>>(t, dg, dout, n);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    unsigned b[5];
    std::memcpy(b, &g[i], 16);
    std::memcpy(b + 4, &out[i], 4);
    std::printf("%08x %08x %08x %08x : %08x\n", b[0], b[1], b[2], b[3], b[4]);
  }
  return 0;
}
