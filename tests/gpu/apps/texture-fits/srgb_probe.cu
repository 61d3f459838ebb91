// The texture unit's sRGB conversion, all 256 values: a 256x1 uchar4 array read through an sRGB
// texture in normalized-float mode. Texel i holds (i, 255 - i, 37 i mod 256, i), so each value is
// seen in the three colour channels (converted) and alpha (not). `point i : r g b a` prints the
// result bits with point sampling; `linear a b j : r` the red channel of linear filtering between
// texels a and b at weight j/256 (whether the filter works on converted values, and how).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

__global__ void fetch(cudaTextureObject_t t, const float *x, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float4>(t, x[i]);
}

cudaTextureObject_t texture(cudaArray_t a, cudaTextureFilterMode filter) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc d = {};
  d.addressMode[0] = cudaAddressModeClamp;
  d.filterMode = filter;
  d.readMode = cudaReadModeNormalizedFloat;
  d.sRGB = 1;
  cudaTextureObject_t t;
  cudaCreateTextureObject(&t, &r, &d, nullptr);
  return t;
}

std::vector<float4> run(cudaTextureObject_t t, const std::vector<float> &xs) {
  const int n = static_cast<int>(xs.size());
  float *dx;
  float4 *dout;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dout, n * sizeof(float4));
  cudaMemcpy(dx, xs.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  fetch<<<(n + 255) / 256, 256>>>(t, dx, dout, n);
  std::vector<float4> out(n);
  cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dout);
  return out;
}

unsigned bits(float f) {
  unsigned b;
  std::memcpy(&b, &f, 4);
  return b;
}

int main() {
  std::vector<uchar4> texels(256);
  for (int i = 0; i < 256; ++i)
    texels[i] = make_uchar4(i, 255 - i, static_cast<unsigned char>(37 * i), static_cast<unsigned char>(i));
  cudaArray_t a;
  cudaChannelFormatDesc d = cudaCreateChannelDesc<uchar4>();
  cudaMallocArray(&a, &d, 256, 0);
  cudaMemcpy2DToArray(a, 0, 0, texels.data(), 256 * 4, 256 * 4, 1, cudaMemcpyHostToDevice);

  std::vector<float> xs;
  for (int i = 0; i < 256; ++i) xs.push_back(i + 0.5f);
  std::vector<float4> point = run(texture(a, cudaFilterModePoint), xs);
  for (int i = 0; i < 256; ++i)
    std::printf("point %d : %08x %08x %08x %08x\n", i, bits(point[i].x), bits(point[i].y), bits(point[i].z),
                bits(point[i].w));

  // Neighbouring texels i, i + 1 of the red channel: pairs across the curve's linear segment, its
  // knee and the values the 8-significant-bit rule misses.
  const int pairs[] = {0, 10, 67, 68, 127, 200, 254};
  xs.clear();
  for (int p : pairs)
    for (int j = 0; j <= 256; ++j) xs.push_back(p + 0.5f + j / 256.0f);
  std::vector<float4> linear = run(texture(a, cudaFilterModeLinear), xs);
  size_t k = 0;
  for (int p : pairs)
    for (int j = 0; j <= 256; ++j, ++k)
      std::printf("linear %d %d %d : %08x %08x\n", p, p + 1, j, bits(linear[k].x), bits(linear[k].w));
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("error %s\n", cudaGetErrorName(e));
    return 1;
  }
  return 0;
}
