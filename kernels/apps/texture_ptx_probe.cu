// texture_ptx_probe: prints, as raw bits, what the texture forms CUDA C++ does not reach return
// (inline PTX): tex and tld4 with texel offsets (1-D, 2-D, 3-D; point and linear; clamp, wrap and
// border; texel and normalized coordinates), the depth-compare operand of tex and tld4, and tld4
// on cubemaps. The output recorded on a GPU is kernels/apps/expected/texture_ptx_probe.stdout;
// under ptxvm the same program must print the same bytes.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app_check.h"

namespace {

enum Kind : int {
  kTex1DOffset,
  kTex2DOffset,
  kTex3DOffset,
  kTld4ROffset,
  kTld4AOffset,
  kTex2DCompare,
  kTex2DOffsetCompare,
  kTld4RCompare,
  kTld4RCube,
  kTld4GCube,
};

/// A fetch: coordinates (w: the depth-compare value), offsets.
struct At {
  float4 c;
  int4 o;
};

__global__ void probe(cudaTextureObject_t t, int kind, const At *at, uint4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 c = at[i].c;
  const int4 o = at[i].o;
  float r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  switch (kind) {
  case kTex1DOffset:
    asm volatile("tex.1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5}], {%6};"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "r"(o.x));
    break;
  case kTex2DOffset:
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "r"(o.x), "r"(o.y));
    break;
  case kTex3DOffset:
    asm volatile("tex.3d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], {%8, %9, %10, %10};"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "f"(c.z), "r"(o.x), "r"(o.y), "r"(o.z));
    break;
  case kTld4ROffset:
    asm volatile("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "r"(o.x), "r"(o.y));
    break;
  case kTld4AOffset:
    asm volatile("tld4.a.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "r"(o.x), "r"(o.y));
    break;
  case kTex2DCompare:
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "f"(c.w));
    break;
  case kTex2DOffsetCompare:
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8}, %9;"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "r"(o.x), "r"(o.y), "f"(c.w));
    break;
  case kTld4RCompare:
    asm volatile("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "f"(c.w));
    break;
  case kTld4RCube:
    asm volatile("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "f"(c.z));
    break;
  case kTld4GCube:
    asm volatile("tld4.g.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                 : "l"(t), "f"(c.x), "f"(c.y), "f"(c.z));
    break;
  }
  out[i] = make_uint4(__float_as_uint(r0), __float_as_uint(r1), __float_as_uint(r2), __float_as_uint(r3));
}

uint32_t asBits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

/// Fetches `kind` at every point and prints one line per point.
void run(const char *label, cudaTextureObject_t t, Kind kind, const std::vector<At> &at) {
  At *dAt;
  uint4 *dOut;
  const int n = static_cast<int>(at.size());
  CHECK(cudaMalloc(&dAt, n * sizeof(At)));
  CHECK(cudaMalloc(&dOut, n * sizeof(uint4)));
  CHECK(cudaMemcpy(dAt, at.data(), n * sizeof(At), cudaMemcpyHostToDevice));
  probe<<<(n + 127) / 128, 128>>>(t, kind, dAt, dOut, n);
  CHECK(cudaGetLastError());
  std::vector<uint4> out(n);
  CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(uint4), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    std::printf("%s %08x %08x %08x %08x %d %d %d : %08x %08x %08x %08x\n", label, asBits(at[i].c.x),
                asBits(at[i].c.y), asBits(at[i].c.z), asBits(at[i].c.w), at[i].o.x, at[i].o.y, at[i].o.z,
                out[i].x, out[i].y, out[i].z, out[i].w);
  CHECK(cudaFree(dAt));
  CHECK(cudaFree(dOut));
}

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
                            bool normalized) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc d = {};
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = mode;
  d.filterMode = filter;
  d.readMode = cudaReadModeElementType;
  d.normalizedCoords = normalized;
  d.borderColor[0] = 0.5f, d.borderColor[1] = 1.5f, d.borderColor[2] = 2.5f, d.borderColor[3] = 3.5f;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &r, &d, nullptr));
  return t;
}

At at(float x, float y, float z, float w, int ox, int oy, int oz) {
  return At{make_float4(x, y, z, w), make_int4(ox, oy, oz, 0)};
}

} // namespace

int main() {
  // 8x8 RGBA float texels: r = 10 y + x, g = 100 + r, b = -r, a = r / 4 (exact).
  std::vector<float4> rgba(64);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      const float r = static_cast<float>(10 * y + x);
      rgba[y * 8 + x] = make_float4(r, 100 + r, -r, r / 4);
    }
  cudaArray_t a2 = makeArray(cudaCreateChannelDesc<float4>(), 8, 8, 0, 0, rgba.data(), 16);
  cudaArray_t a1 = makeArray(cudaCreateChannelDesc<float4>(), 8, 0, 0, 0, rgba.data(), 16);
  cudaArray_t a3 = makeArray(cudaCreateChannelDesc<float4>(), 4, 4, 4, 0, rgba.data(), 16);

  const int offsets[] = {-8, -3, -1, 0, 1, 2, 7};
  const cudaTextureAddressMode modes[] = {cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeBorder};
  const char *modeNames[] = {"clamp", "wrap", "border"};
  for (int m = 0; m < 3; ++m)
    for (int filter = 0; filter < 2; ++filter)
      for (int normalized = 0; normalized < 2; ++normalized) {
        // Wrap needs normalized coordinates; the others run both ways.
        if (modes[m] == cudaAddressModeWrap && !normalized) continue;
        const float scale = normalized ? 1.0f / 8 : 1.0f;
        char label[48];
        cudaTextureObject_t t2 =
            texture(a2, modes[m], filter ? cudaFilterModeLinear : cudaFilterModePoint, normalized);
        std::vector<At> points;
        for (int ox : offsets)
          for (int oy : {-2, 0, 3})
            for (float x : {0.5f, 2.3f, 6.75f})
              points.push_back(at(x * scale, (3.6f - oy * 0.25f) * scale, 0, 0, ox, oy, 0));
        std::snprintf(label, sizeof label, "tex2d.%s.%s.%s", modeNames[m], filter ? "linear" : "point",
                      normalized ? "norm" : "texel");
        run(label, t2, kTex2DOffset, points);
        std::snprintf(label, sizeof label, "tld4r.%s.%s.%s", modeNames[m], filter ? "linear" : "point",
                      normalized ? "norm" : "texel");
        run(label, t2, kTld4ROffset, points);
        std::snprintf(label, sizeof label, "tld4a.%s.%s.%s", modeNames[m], filter ? "linear" : "point",
                      normalized ? "norm" : "texel");
        run(label, t2, kTld4AOffset, points);
        CHECK(cudaDestroyTextureObject(t2));

        cudaTextureObject_t t1 =
            texture(a1, modes[m], filter ? cudaFilterModeLinear : cudaFilterModePoint, normalized);
        std::vector<At> line;
        for (int ox : offsets)
          for (float x : {0.5f, 3.3f, 7.9f}) line.push_back(at(x * scale, 0, 0, 0, ox, 0, 0));
        std::snprintf(label, sizeof label, "tex1d.%s.%s.%s", modeNames[m], filter ? "linear" : "point",
                      normalized ? "norm" : "texel");
        run(label, t1, kTex1DOffset, line);
        CHECK(cudaDestroyTextureObject(t1));

        cudaTextureObject_t t3 =
            texture(a3, modes[m], filter ? cudaFilterModeLinear : cudaFilterModePoint, normalized);
        const float scale3 = normalized ? 1.0f / 4 : 1.0f;
        std::vector<At> cube;
        for (int o : {-2, 0, 1, 5})
          for (float x : {0.5f, 1.7f, 3.2f})
            cube.push_back(
                at(x * scale3, (x + 0.4f) * scale3, (3.9f - x) * scale3, 0, o, -o, o > 0 ? 1 : -1));
        std::snprintf(label, sizeof label, "tex3d.%s.%s.%s", modeNames[m], filter ? "linear" : "point",
                      normalized ? "norm" : "texel");
        run(label, t3, kTex3DOffset, cube);
        CHECK(cudaDestroyTextureObject(t3));
      }

  // The depth-compare operand on a texture CUDA made (its sampler has no compare function).
  for (int filter = 0; filter < 2; ++filter) {
    cudaTextureObject_t t =
        texture(a2, cudaAddressModeClamp, filter ? cudaFilterModeLinear : cudaFilterModePoint, false);
    std::vector<At> points;
    for (float ref : {-1.0f, 0.0f, 12.0f, 12.5f, 34.0f, 1e9f})
      for (float x : {0.5f, 2.3f}) points.push_back(at(x, 1.5f, 0, ref, 1, 0, 0));
    run(filter ? "compare.linear" : "compare.point", t, kTex2DCompare, points);
    run(filter ? "compare_offset.linear" : "compare_offset.point", t, kTex2DOffsetCompare, points);
    run(filter ? "tld4r_compare.linear" : "tld4r_compare.point", t, kTld4RCompare, points);
    CHECK(cudaDestroyTextureObject(t));
  }

  // tld4 on a cubemap of 4x4 faces: texel (x, y) of face f holds 100 f + 10 y + x (and + 1000 in
  // the second channel), at face centres, near edges and corners.
  {
    std::vector<float2> faces(6 * 16);
    for (int f = 0; f < 6; ++f)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
          const float v = static_cast<float>(100 * f + 10 * y + x);
          faces[f * 16 + y * 4 + x] = make_float2(v, 1000 + v);
        }
    cudaArray_t c = makeArray(cudaCreateChannelDesc<float2>(), 4, 4, 6, cudaArrayCubemap, faces.data(), 8);
    std::vector<At> dirs;
    const float3 ds[] = {{1, 0, 0},        {-1, 0.1f, 0.2f},    {0.3f, 1, -0.2f},  {0.1f, -1, 0.4f},
                         {0.2f, 0.3f, 1},  {-0.4f, 0.1f, -1},   {1, 0.9f, 0.1f},   {1, -0.95f, 0.97f},
                         {0.6f, 1, 0.99f}, {-1, -0.99f, -0.9f}, {0.12f, 0.37f, 1}, {1, 0.26f, -0.61f}};
    for (const float3 &d : ds) dirs.push_back(at(d.x, d.y, d.z, 0, 0, 0, 0));
    for (int filter = 0; filter < 2; ++filter) {
      cudaTextureObject_t t =
          texture(c, cudaAddressModeClamp, filter ? cudaFilterModeLinear : cudaFilterModePoint, false);
      run(filter ? "tld4r_cube.linear" : "tld4r_cube.point", t, kTld4RCube, dirs);
      run(filter ? "tld4g_cube.linear" : "tld4g_cube.point", t, kTld4GCube, dirs);
      CHECK(cudaDestroyTextureObject(t));
    }
  }
  std::printf("PASSED\n");
  return 0;
}
