// texture_probe: prints, as raw bits, what texture and surface fetches return where the
// programming guide leaves details open: linear-filtering weights and arithmetic, every address
// mode with point and linear filtering on normalized and unnormalized coordinates, the channels a
// format lacks, border colours on integer formats, normalized reads of the extreme integers,
// halves and sRGB, tld4's components and order, layer indices outside the array, tex1Dfetch
// outside the buffer, and surface reads in clamp and zero boundary modes. The output recorded on
// a GPU is kernels/apps/expected/texture_probe.stdout; under ptxvm the same program must print the
// same bytes.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app_check.h"

namespace {

enum Kind : int {
  kFloat2D,
  kUint2D,
  kInt2D,
  kFloat1D,
  kFloat3D,
  kGather0,
  kGather1,
  kGather2,
  kGather3,
  kLayered1D,
  kLayered2D,
  kFetchFloat,
  kFetchUint,
  kCube,
  kCubeLayered,
  kLod,
  kGrad,
};

__device__ uint4 bits(float4 v) {
  return make_uint4(__float_as_uint(v.x), __float_as_uint(v.y), __float_as_uint(v.z), __float_as_uint(v.w));
}

__global__ void probe(cudaTextureObject_t t, int kind, const float4 *at, uint4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 q = at[i];
  uint4 r = make_uint4(0, 0, 0, 0);
  switch (kind) {
  case kFloat2D: r = bits(tex2D<float4>(t, q.x, q.y)); break;
  case kUint2D: r = tex2D<uint4>(t, q.x, q.y); break;
  case kInt2D: {
    int4 v = tex2D<int4>(t, q.x, q.y);
    r = make_uint4(v.x, v.y, v.z, v.w);
    break;
  }
  case kFloat1D: r = bits(tex1D<float4>(t, q.x)); break;
  case kFloat3D: r = bits(tex3D<float4>(t, q.x, q.y, q.z)); break;
  case kGather0: r = bits(tex2Dgather<float4>(t, q.x, q.y, 0)); break;
  case kGather1: r = bits(tex2Dgather<float4>(t, q.x, q.y, 1)); break;
  case kGather2: r = bits(tex2Dgather<float4>(t, q.x, q.y, 2)); break;
  case kGather3: r = bits(tex2Dgather<float4>(t, q.x, q.y, 3)); break;
  case kLayered1D: r = bits(tex1DLayered<float4>(t, q.x, static_cast<int>(q.w))); break;
  case kLayered2D: r = bits(tex2DLayered<float4>(t, q.x, q.y, static_cast<int>(q.w))); break;
  case kFetchFloat: r = bits(tex1Dfetch<float4>(t, static_cast<int>(q.x))); break;
  case kFetchUint: r = tex1Dfetch<uint4>(t, static_cast<int>(q.x)); break;
  case kCube: r = bits(texCubemap<float4>(t, q.x, q.y, q.z)); break;
  case kCubeLayered: r = bits(texCubemapLayered<float4>(t, q.x, q.y, q.z, static_cast<int>(q.w))); break;
  case kLod: r = bits(tex2DLod<float4>(t, q.x, q.y, q.z)); break;
  case kGrad: r = bits(tex2DGrad<float4>(t, q.x, q.y, make_float2(q.z, 0), make_float2(0, q.w))); break;
  }
  out[i] = r;
}

__global__ void surfaceProbe(cudaSurfaceObject_t s, const int2 *at, int *out, int n, int zero) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = zero ? surf2Dread<int>(s, at[i].x, at[i].y, cudaBoundaryModeZero)
                : surf2Dread<int>(s, at[i].x, at[i].y, cudaBoundaryModeClamp);
}

uint32_t asBits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

/// Fetches `kind` at every coordinate and prints one line per coordinate.
void run(const char *label, cudaTextureObject_t t, Kind kind, const std::vector<float4> &at) {
  float4 *dAt;
  uint4 *dOut;
  const int n = static_cast<int>(at.size());
  CHECK(cudaMalloc(&dAt, n * sizeof(float4)));
  CHECK(cudaMalloc(&dOut, n * sizeof(uint4)));
  CHECK(cudaMemcpy(dAt, at.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  probe<<<(n + 127) / 128, 128>>>(t, kind, dAt, dOut, n);
  CHECK(cudaGetLastError());
  std::vector<uint4> out(n);
  CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(uint4), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    std::printf("%s %08x %08x %08x %08x : %08x %08x %08x %08x\n", label, asBits(at[i].x), asBits(at[i].y),
                asBits(at[i].z), asBits(at[i].w), out[i].x, out[i].y, out[i].z, out[i].w);
  CHECK(cudaFree(dAt));
  CHECK(cudaFree(dOut));
}

/// A width x height (x depth) array of `desc` texels filled from `bytes`.
cudaArray_t makeArray(cudaChannelFormatDesc desc, int width, int height, int depth, unsigned flags,
                      const void *bytes, size_t texelBytes) {
  cudaArray_t a;
  CHECK(cudaMalloc3DArray(&a, &desc, make_cudaExtent(width, height, depth), flags));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void *>(bytes), width * texelBytes, width, height ? height : 1);
  p.dstArray = a;
  p.extent = make_cudaExtent(width, height ? height : 1, depth ? depth : 1);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  return a;
}

cudaTextureObject_t texture(cudaArray_t a, cudaTextureAddressMode mode, cudaTextureFilterMode filter,
                            cudaTextureReadMode read, bool normalized, float border = 0, bool srgb = false) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc d = {};
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = mode;
  d.filterMode = filter;
  d.readMode = read;
  d.normalizedCoords = normalized;
  d.sRGB = srgb;
  d.borderColor[0] = border, d.borderColor[1] = border * 2, d.borderColor[2] = border * 3;
  d.borderColor[3] = border * 4;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &r, &d, nullptr));
  return t;
}

} // namespace

int main(int argc, char **argv) {
  // Without arguments: the fetches ptxvm matches bit for bit (point sampling, read modes, border
  // colours, gathers, layers, fetches, surfaces). With --filtering: linear filtering and sRGB,
  // where the GPU's arithmetic is not reproduced exactly (kernels/apps/README.md).
  const bool filtering = argc > 1 && std::strcmp(argv[1], "--filtering") == 0;
  // A 4x4 one-channel float array whose values stress the filter's arithmetic.
  const float values[16] = {1.0f,    0.001f, 333.3f, -7.25f, 1e6f,  3.14159f, -0.5f, 2.0f,
                            65504.f, 1e-7f,  12.5f,  -100.f, 0.75f, 7.0f,     9.99f, -1e-3f};
  cudaArray_t f1 = makeArray(cudaCreateChannelDesc<float>(), 4, 4, 0, 0, values, 4);

  // Linear filtering weights: x across one texel in 1/64 steps, and between 1/512 steps.
  if (filtering) {
    cudaTextureObject_t t =
        texture(f1, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false);
    std::vector<float4> at;
    for (int i = 0; i <= 64; ++i) at.push_back(make_float4(1.5f + i / 64.0f, 0.5f, 0, 0));
    for (int i = 0; i < 16; ++i) at.push_back(make_float4(1.5f + (2 * i + 1) / 512.0f, 0.5f, 0, 0));
    for (int y = 0; y <= 8; ++y)
      for (int x = 0; x <= 8; ++x) at.push_back(make_float4(x * 0.53f - 0.2f, y * 0.47f - 0.1f, 0, 0));
    run("linear", t, kFloat2D, at);
    CHECK(cudaDestroyTextureObject(t));
  }
  // Every address mode, point and linear, normalized and not.
  const float xs[] = {-1.3f, -0.6f, -0.01f, 0.2f, 0.49f, 0.99f, 1.01f, 1.7f, 2.3f};
  const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror,
                                          cudaAddressModeBorder};
  for (int m = 0; m < 4; ++m)
    for (int filter = filtering ? 1 : 0; filter < (filtering ? 2 : 1); ++filter)
      for (int normalized = 0; normalized < 2; ++normalized) {
        cudaTextureObject_t t = texture(f1, modes[m], filter ? cudaFilterModeLinear : cudaFilterModePoint,
                                        cudaReadModeElementType, normalized, 0.25f);
        std::vector<float4> at;
        for (float x : xs)
          for (float y : {-0.3f, 0.6f, 1.2f}) {
            const float scale = normalized ? 1.0f : 4.0f;
            at.push_back(make_float4(x * scale, y * scale, 0, 0));
          }
        char label[32];
        std::snprintf(label, sizeof label, "mode%d.%s.%s", m, filter ? "linear" : "point",
                      normalized ? "norm" : "texel");
        run(label, t, kFloat2D, at);
        CHECK(cudaDestroyTextureObject(t));
      }

  // The channels a format lacks, and border colours, in each read mode.
  {
    const std::vector<float4> at = {make_float4(0.5f, 0.5f, 0, 0), make_float4(-3.0f, 0.5f, 0, 0)};
    const float two[8] = {1.5f, -2.5f, 3.5f, -4.5f, 5.5f, -6.5f, 7.5f, -8.5f};
    cudaArray_t f2 = makeArray(cudaCreateChannelDesc<float2>(), 2, 2, 0, 0, two, 8);
    run("float1",
        texture(f1, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, false, 0.5f),
        kFloat2D, at);
    run("float2",
        texture(f2, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, false, 0.5f),
        kFloat2D, at);
    const uint8_t bytes[4] = {0, 127, 128, 255};
    cudaArray_t u8 = makeArray(cudaCreateChannelDesc<uint8_t>(), 2, 2, 0, 0, bytes, 1);
    run("uchar.element",
        texture(u8, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, false, 0.5f),
        kUint2D, at);
    run("uchar.normalized",
        texture(u8, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeNormalizedFloat, false, 0.5f),
        kFloat2D,
        {make_float4(0.5f, 0.5f, 0, 0), make_float4(1.5f, 0.5f, 0, 0), make_float4(0.5f, 1.5f, 0, 0),
         make_float4(1.5f, 1.5f, 0, 0), make_float4(-3.0f, 0.5f, 0, 0)});
    if (filtering)
      run("uchar.linear",
          texture(u8, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeNormalizedFloat, false),
          kFloat2D, {make_float4(1.0f, 1.0f, 0, 0), make_float4(1.3f, 0.9f, 0, 0)});
    const int8_t sbytes[4] = {-128, -127, 0, 127};
    cudaArray_t s8 = makeArray(cudaCreateChannelDesc<int8_t>(), 2, 2, 0, 0, sbytes, 1);
    run("char.normalized",
        texture(s8, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, false), kFloat2D,
        {make_float4(0.5f, 0.5f, 0, 0), make_float4(1.5f, 0.5f, 0, 0), make_float4(0.5f, 1.5f, 0, 0),
         make_float4(1.5f, 1.5f, 0, 0)});
    run("char.element",
        texture(s8, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, false, 0.5f), kInt2D,
        {make_float4(0.5f, 0.5f, 0, 0), make_float4(-3.0f, 0.5f, 0, 0)});
    const uint16_t shorts[4] = {0, 1, 32768, 65535};
    cudaArray_t u16 = makeArray(cudaCreateChannelDesc<uint16_t>(), 2, 2, 0, 0, shorts, 2);
    run("ushort.normalized",
        texture(u16, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, false), kFloat2D,
        {make_float4(0.5f, 0.5f, 0, 0), make_float4(1.5f, 0.5f, 0, 0), make_float4(0.5f, 1.5f, 0, 0),
         make_float4(1.5f, 1.5f, 0, 0)});
    const int32_t ints[4] = {-5, 7, 1 << 30, -1};
    cudaArray_t i32 = makeArray(cudaCreateChannelDesc<int>(), 2, 2, 0, 0, ints, 4);
    run("int.element",
        texture(i32, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, false, 0.5f),
        kInt2D, {make_float4(1.5f, 1.5f, 0, 0), make_float4(-3.0f, 0.5f, 0, 0)});
    const uint16_t halves[8] = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x3555, 0x8000, 0x7C00, 0x3800};
    cudaArray_t h2 = makeArray(cudaCreateChannelDescHalf2(), 2, 2, 0, 0, halves, 4);
    run("half2", texture(h2, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, false),
        kFloat2D,
        {make_float4(0.5f, 0.5f, 0, 0), make_float4(1.5f, 0.5f, 0, 0), make_float4(0.5f, 1.5f, 0, 0),
         make_float4(1.5f, 1.5f, 0, 0)});
    if (filtering)
      run("half2.linear",
          texture(h2, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false), kFloat2D,
          {make_float4(1.0f, 0.5f, 0, 0), make_float4(1.25f, 1.0f, 0, 0)});
    uint8_t rgba[16];
    for (int i = 0; i < 16; ++i) rgba[i] = static_cast<uint8_t>(i * 17);
    cudaArray_t u8x4 = makeArray(cudaCreateChannelDesc<uchar4>(), 2, 2, 0, 0, rgba, 4);
    if (filtering)
      run("uchar4.srgb",
          texture(u8x4, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, false, 0,
                  true),
          kFloat2D,
          {make_float4(0.5f, 0.5f, 0, 0), make_float4(1.5f, 0.5f, 0, 0), make_float4(0.5f, 1.5f, 0, 0),
           make_float4(1.5f, 1.5f, 0, 0)});
  }

  // tld4: each component, inside and at the edges under clamp and border.
  {
    float rgba[4 * 3 * 3];
    for (int i = 0; i < 36; ++i) rgba[i] = static_cast<float>(i) + 0.5f;
    cudaArray_t f4 = makeArray(cudaCreateChannelDesc<float4>(), 3, 3, 0, 0, rgba, 16);
    const std::vector<float4> at = {make_float4(1.0f, 1.0f, 0, 0), make_float4(1.7f, 2.2f, 0, 0),
                                    make_float4(0.1f, 0.2f, 0, 0), make_float4(2.9f, 2.9f, 0, 0)};
    for (int mode : {1, 3}) {
      cudaTextureObject_t t =
          texture(f4, modes[mode], cudaFilterModePoint, cudaReadModeElementType, false, 0.125f);
      for (int c = 0; c < 4; ++c) {
        char label[32];
        std::snprintf(label, sizeof label, "tld4.mode%d.c%d", mode, c);
        run(label, t, static_cast<Kind>(kGather0 + c), at);
      }
    }
  }

  // Layers outside the array, 1-D and 3-D filtering, tex1Dfetch outside the buffer.
  {
    float layers[4 * 3 * 3];
    for (int i = 0; i < 36; ++i) layers[i] = static_cast<float>(i);
    cudaArray_t l1 = makeArray(cudaCreateChannelDesc<float>(), 4, 0, 3, cudaArrayLayered, layers, 4);
    std::vector<float4> at;
    for (int layer : {-1, 0, 2, 3, 100}) at.push_back(make_float4(2.5f, 0, 0, static_cast<float>(layer)));
    run("layered1d", texture(l1, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, false),
        kLayered1D, at);
    cudaArray_t l2 = makeArray(cudaCreateChannelDesc<float>(), 4, 3, 3, cudaArrayLayered, layers, 4);
    run("layered2d",
        texture(l2, cudaAddressModeClamp, filtering ? cudaFilterModeLinear : cudaFilterModePoint,
                cudaReadModeElementType, false),
        kLayered2D,
        {make_float4(1.25f, 1.5f, 0, -2.0f), make_float4(1.25f, 1.5f, 0, 1.0f),
         make_float4(1.25f, 1.5f, 0, 9.0f)});
    cudaArray_t v3 = makeArray(cudaCreateChannelDesc<float>(), 4, 3, 3, 0, layers, 4);
    if (filtering)
      run("volume", texture(v3, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false),
          kFloat3D,
          {make_float4(1.25f, 1.5f, 1.1f, 0), make_float4(3.9f, 0.1f, 2.6f, 0),
           make_float4(0.75f, 2.0f, 1.5f, 0)});
    if (filtering)
      run("line", texture(f1, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false),
          kFloat1D, {make_float4(0.7f, 0, 0, 0), make_float4(3.3f, 0, 0, 0)});

    float *buffer;
    CHECK(cudaMalloc(&buffer, 10 * sizeof(float)));
    CHECK(cudaMemcpy(buffer, layers, 10 * sizeof(float), cudaMemcpyHostToDevice));
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = buffer;
    r.res.linear.desc = cudaCreateChannelDesc<float>();
    r.res.linear.sizeInBytes = 10 * sizeof(float);
    cudaTextureDesc d = {};
    d.readMode = cudaReadModeElementType;
    cudaTextureObject_t lin;
    CHECK(cudaCreateTextureObject(&lin, &r, &d, nullptr));
    run("fetch", lin, kFetchFloat,
        {make_float4(3, 0, 0, 0), make_float4(9, 0, 0, 0), make_float4(10, 0, 0, 0),
         make_float4(-1, 0, 0, 0)});
    CHECK(cudaFree(buffer));
  }

  // Cubemaps: the face each direction picks (ties included) and the texel on it.
  {
    float faces[2 * 6 * 16];
    for (int i = 0; i < 2 * 6 * 16; ++i) faces[i] = static_cast<float>(i / 16 * 100 + i % 16);
    const std::vector<float4> dirs = {make_float4(1, 0, 0, 0),
                                      make_float4(-1, 0, 0, 0),
                                      make_float4(0, 1, 0, 0),
                                      make_float4(0, -1, 0, 0),
                                      make_float4(0, 0, 1, 0),
                                      make_float4(0, 0, -1, 0),
                                      make_float4(1, 0.5f, -0.25f, 0),
                                      make_float4(-0.3f, 0.9f, 0.2f, 0),
                                      make_float4(0.2f, -0.4f, -0.8f, 0),
                                      make_float4(-0.7f, 0.1f, 0.6f, 0),
                                      make_float4(0.3f, 0.2f, 0.9f, 0),
                                      make_float4(0.4f, -0.95f, 0.6f, 0),
                                      make_float4(1, 1, 0, 0),
                                      make_float4(1, 0, 1, 0),
                                      make_float4(0, 1, 1, 0),
                                      make_float4(1, 1, 1, 0),
                                      make_float4(-1, -1, -1, 0),
                                      make_float4(0.5f, -0.5f, 0.5f, 0),
                                      make_float4(-1, 1, 0, 0),
                                      make_float4(0, -1, -1, 0),
                                      make_float4(0.99f, -0.99f, 0.98f, 0)};
    cudaArray_t cube = makeArray(cudaCreateChannelDesc<float>(), 4, 4, 6, cudaArrayCubemap, faces, 4);
    run("cube", texture(cube, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, true),
        kCube, dirs);
    cudaArray_t cubes =
        makeArray(cudaCreateChannelDesc<float>(), 4, 4, 12, cudaArrayCubemap | cudaArrayLayered, faces, 4);
    std::vector<float4> layered;
    for (float layer : {1.0f, 0.0f, -1.0f, 5.0f})
      for (int d : {0, 7, 11}) layered.push_back(make_float4(dirs[d].x, dirs[d].y, dirs[d].z, layer));
    run("cube.layered",
        texture(cubes, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, true),
        kCubeLayered, layered);
  }

  // Mipmaps: 8x8, 4x4, 2x2, 1x1 levels; level l's texel (x, y) holds 100 l + 8 y + x.
  {
    cudaMipmappedArray_t mip;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    CHECK(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(8, 8, 0), 4));
    for (int l = 0; l < 4; ++l) {
      cudaArray_t level;
      CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
      const int n = 8 >> l;
      std::vector<float> texels(n * n);
      for (int i = 0; i < n * n; ++i) texels[i] = static_cast<float>(100 * l + (i / n) * 8 + i % n);
      CHECK(cudaMemcpy2DToArray(level, 0, 0, texels.data(), n * 4, n * 4, n, cudaMemcpyHostToDevice));
    }
    for (int linear = 0; linear < (filtering ? 2 : 1); ++linear)
      for (float bias : {0.0f, 0.75f}) {
        cudaResourceDesc r = {};
        r.resType = cudaResourceTypeMipmappedArray;
        r.res.mipmap.mipmap = mip;
        cudaTextureDesc d = {};
        d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp;
        d.filterMode = cudaFilterModePoint;
        d.mipmapFilterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
        d.normalizedCoords = 1;
        d.mipmapLevelBias = bias;
        d.minMipmapLevelClamp = bias > 0 ? 0.5f : 0.0f;
        d.maxMipmapLevelClamp = bias > 0 ? 2.25f : 10.0f;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &r, &d, nullptr));
        std::vector<float4> lods, grads;
        for (float lod :
             {-1.0f, 0.0f, 0.25f, 0.49f, 0.5f, 0.51f, 0.75f, 1.0f, 1.3f, 1.5f, 2.2f, 2.5f, 3.0f, 9.0f})
          lods.push_back(make_float4(0.4f, 0.7f, lod, 0));
        for (float g : {0.0f, 0.05f, 0.125f, 0.2f, 0.25f, 0.3f, 0.5f, 1.0f})
          grads.push_back(make_float4(0.4f, 0.7f, g, g / 2));
        char label[48];
        std::snprintf(label, sizeof label, "mip.%s.bias%g.lod", linear ? "linear" : "point", bias);
        run(label, t, kLod, lods);
        std::snprintf(label, sizeof label, "mip.%s.bias%g.grad", linear ? "linear" : "point", bias);
        run(label, t, kGrad, grads);
        CHECK(cudaDestroyTextureObject(t));
      }
    CHECK(cudaFreeMipmappedArray(mip));
  }

  // Surface reads outside a 4x3 int surface, clamped and zero.
  {
    int cells[12];
    for (int i = 0; i < 12; ++i) cells[i] = 100 + i;
    cudaArray_t a = makeArray(cudaCreateChannelDesc<int>(), 4, 3, 0, cudaArraySurfaceLoadStore, cells, 4);
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &r));
    const std::vector<int2> at = {make_int2(4, 1), make_int2(16, 1),   make_int2(-4, 0),
                                  make_int2(8, 5), make_int2(400, -2), make_int2(12, 2)};
    int2 *dAt;
    int *dOut;
    const int n = static_cast<int>(at.size());
    CHECK(cudaMalloc(&dAt, n * sizeof(int2)));
    CHECK(cudaMalloc(&dOut, n * sizeof(int)));
    CHECK(cudaMemcpy(dAt, at.data(), n * sizeof(int2), cudaMemcpyHostToDevice));
    for (int zero = 0; zero < 2; ++zero) {
      surfaceProbe<<<1, 32>>>(s, dAt, dOut, n, zero);
      CHECK(cudaGetLastError());
      std::vector<int> out(n);
      CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
      for (int i = 0; i < n; ++i)
        std::printf("surface.%s %d %d : %d\n", zero ? "zero" : "clamp", at[i].x, at[i].y, out[i]);
    }
    CHECK(cudaDestroySurfaceObject(s));
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("PASSED\n");
  return 0;
}
