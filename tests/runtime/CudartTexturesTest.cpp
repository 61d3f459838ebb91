// CUDA arrays, texture and surface objects through libcudart.so.13's own entry points (the test
// links the library and calls the API as a program does, on the emulator): allocation and
// description of every kind of array, every copy form round-tripping data with offsets and
// pitches, copies that leave an array refused without touching it, and the objects' creation,
// getters and errors.
#include "runtime/cudart/CudaTypes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

using namespace cudart;

extern "C" {
cudaError_t cudaMalloc(void **p, size_t size);
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmap, const cudaChannelFormatDesc *desc,
                                     cudaExtent extent, unsigned numLevels, unsigned flags);
cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *level, cudaMipmappedArray_const_t mipmap,
                                       unsigned level_);
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmap);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocHost(void **p, size_t size);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaGetLastError();
cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *d, size_t w, size_t h,
                            unsigned flags);
cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *d, cudaExtent e, unsigned flags);
cudaError_t cudaFreeArray(cudaArray_t a);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *d, cudaExtent *e, unsigned *flags, cudaArray_t a);
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *d, cudaArray_const_t a);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
                                   cudaMemcpyKind kind);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                     size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r,
                                    const cudaTextureDesc *d, const cudaResourceViewDesc *v);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *r, cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *d, cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc *v, cudaTextureObject_t t);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const cudaResourceDesc *r);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s);
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *r, cudaSurfaceObject_t s);
}

namespace {

constexpr cudaChannelFormatDesc kFloat{32, 0, 0, 0, cudaChannelFormatKindFloat};
constexpr cudaChannelFormatDesc kUchar{8, 0, 0, 0, cudaChannelFormatKindUnsigned};
constexpr cudaChannelFormatDesc kUchar4{8, 8, 8, 8, cudaChannelFormatKindUnsigned};
constexpr cudaChannelFormatDesc kShort2{16, 16, 0, 0, cudaChannelFormatKindSigned};
constexpr cudaChannelFormatDesc kInt{32, 0, 0, 0, cudaChannelFormatKindSigned};

bool sameDesc(const cudaChannelFormatDesc &a, const cudaChannelFormatDesc &b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w && a.f == b.f;
}

/// Bytes 0, 1, 2, ... (mod 251) tagged with `seed`.
std::vector<uint8_t> pattern(size_t n, uint8_t seed = 0) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7 + seed) % 251 + 1);
  return v;
}

/// The whole of a 2-D array's first slice (rows of `rowBytes`, `rows` of them).
std::vector<uint8_t> readAll(cudaArray_t a, size_t rowBytes, size_t rows) {
  std::vector<uint8_t> out(rowBytes * rows, 0xEE);
  EXPECT_EQ(cudaMemcpy2DFromArray(out.data(), rowBytes, a, 0, 0, rowBytes, rows, cudaMemcpyDeviceToHost),
            cudaSuccess);
  return out;
}

cudaResourceDesc arrayResource(cudaArray_t a) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  return r;
}

cudaTextureDesc pointTexture() {
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = cudaAddressModeClamp;
  t.filterMode = cudaFilterModePoint;
  t.readMode = cudaReadModeElementType;
  return t;
}

TEST(CudartArrays, AllocationAndInfoOfEveryKind) {
  struct Case {
    cudaExtent extent;
    unsigned flags;
  } cases[] = {
      {{64, 0, 0}, 0},                                           // 1-D
      {{16, 8, 0}, cudaArraySurfaceLoadStore},                   // 2-D
      {{8, 4, 3}, 0},                                            // 3-D
      {{32, 0, 5}, cudaArrayLayered},                            // 1-D layered
      {{8, 8, 4}, cudaArrayLayered | cudaArraySurfaceLoadStore}, // 2-D layered
      {{16, 16, 0}, cudaArrayTextureGather},
  };
  for (const Case &c : cases) {
    cudaArray_t a = nullptr;
    ASSERT_EQ(cudaMalloc3DArray(&a, &kShort2, c.extent, c.flags), cudaSuccess);
    ASSERT_NE(a, nullptr);
    cudaChannelFormatDesc desc{};
    cudaExtent extent{};
    unsigned flags = 99;
    ASSERT_EQ(cudaArrayGetInfo(&desc, &extent, &flags, a), cudaSuccess);
    EXPECT_TRUE(sameDesc(desc, kShort2));
    EXPECT_EQ(extent.width, c.extent.width);
    EXPECT_EQ(extent.height, c.extent.height);
    EXPECT_EQ(extent.depth, c.extent.depth);
    EXPECT_EQ(flags, c.flags);
    EXPECT_EQ(cudaArrayGetInfo(nullptr, nullptr, nullptr, a), cudaSuccess); // any may be null
    cudaChannelFormatDesc channel{};
    EXPECT_EQ(cudaGetChannelDesc(&channel, a), cudaSuccess);
    EXPECT_TRUE(sameDesc(channel, kShort2));
    EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
    EXPECT_EQ(cudaFreeArray(a), cudaErrorInvalidValue); // freed: no longer an array
    EXPECT_EQ(cudaArrayGetInfo(&desc, &extent, &flags, a), cudaErrorInvalidValue);
  }
  // cudaMallocArray: height 0 is 1-D.
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &kFloat, 100, 0, 0), cudaSuccess);
  cudaExtent extent{};
  ASSERT_EQ(cudaArrayGetInfo(nullptr, &extent, nullptr, a), cudaSuccess);
  EXPECT_EQ(extent.width, 100u);
  EXPECT_EQ(extent.height, 0u);
  EXPECT_EQ(extent.depth, 0u);
  // Arrays start zeroed.
  std::vector<float> back(100, 1.0f);
  ASSERT_EQ(cudaMemcpyFromArray(back.data(), a, 0, 0, 400, cudaMemcpyDeviceToHost), cudaSuccess);
  for (float f : back) EXPECT_EQ(f, 0.0f);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(nullptr), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartArrays, BadAllocationsAreRefused) {
  cudaArray_t a = nullptr;
  const cudaChannelFormatDesc three{32, 32, 32, 0, cudaChannelFormatKindFloat};
  const cudaChannelFormatDesc mixed{8, 16, 0, 0, cudaChannelFormatKindUnsigned};
  const cudaChannelFormatDesc byteFloat{8, 0, 0, 0, cudaChannelFormatKindFloat};
  const cudaChannelFormatDesc none{0, 0, 0, 0, cudaChannelFormatKindNone};
  const cudaChannelFormatDesc wide{64, 0, 0, 0, cudaChannelFormatKindUnsigned};
  for (const cudaChannelFormatDesc &d : {three, mixed, byteFloat, none, wide})
    EXPECT_EQ(cudaMallocArray(&a, &d, 16, 16, 0), cudaErrorInvalidChannelDescriptor);
  EXPECT_EQ(cudaMallocArray(nullptr, &kFloat, 16, 16, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, nullptr, 16, 16, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, &kFloat, 0, 16, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, &kFloat, 16, 16, cudaArrayLayered), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, &kFloat, 1u << 20, 0, 0), cudaErrorInvalidValue);  // past maxTexture1D
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 0, 4}, 0), cudaErrorInvalidValue); // depth without height
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 16, 0}, cudaArrayLayered),
            cudaErrorInvalidValue); // no layers
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 16, 2}, cudaArrayTextureGather), cudaErrorInvalidValue);
  // Cubemaps: square faces, six of them (six per cube when layered).
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 8, 6}, cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 16, 5}, cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 16, 12}, cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 16, 9}, cudaArrayCubemap | cudaArrayLayered),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &kFloat, {16, 16, 1}, 0x1000), cudaErrorInvalidValue);
  int bogus = 0;
  EXPECT_EQ(cudaFreeArray(reinterpret_cast<cudaArray_t>(&bogus)), cudaErrorInvalidValue);
  cudaChannelFormatDesc d{};
  EXPECT_EQ(cudaGetChannelDesc(&d, reinterpret_cast<cudaArray_t>(&bogus)), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartArrays, CubemapsAndMipmappedArrays) {
  cudaArray_t cube = nullptr, cubes = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&cube, &kFloat, {8, 8, 6}, cudaArrayCubemap), cudaSuccess);
  ASSERT_EQ(cudaMalloc3DArray(&cubes, &kFloat, {8, 8, 12}, cudaArrayCubemap | cudaArrayLayered), cudaSuccess);
  cudaExtent e{};
  unsigned flags = 0;
  ASSERT_EQ(cudaArrayGetInfo(nullptr, &e, &flags, cubes), cudaSuccess);
  EXPECT_EQ(e.depth, 12u);
  EXPECT_EQ(flags, unsigned(cudaArrayCubemap | cudaArrayLayered));
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = cube;
  cudaTextureDesc t{};
  t.normalizedCoords = 1;
  cudaTextureObject_t obj = 0;
  EXPECT_EQ(cudaCreateTextureObject(&obj, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(obj), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(cube), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(cubes), cudaSuccess);

  // A 20x12 mipmapped array: levels 20x12, 10x6, 5x3, 2x1, 1x1 (asking for 9 gives the 5 there are).
  cudaMipmappedArray_t mip = nullptr;
  ASSERT_EQ(cudaMallocMipmappedArray(&mip, &kFloat, {20, 12, 0}, 9, 0), cudaSuccess);
  const size_t widths[] = {20, 10, 5, 2, 1}, heights[] = {12, 6, 3, 1, 1};
  for (unsigned l = 0; l < 5; ++l) {
    cudaArray_t level = nullptr;
    ASSERT_EQ(cudaGetMipmappedArrayLevel(&level, mip, l), cudaSuccess);
    ASSERT_EQ(cudaArrayGetInfo(nullptr, &e, nullptr, level), cudaSuccess);
    EXPECT_EQ(e.width, widths[l]) << l;
    EXPECT_EQ(e.height, heights[l]) << l;
    // Data goes in and out of each level as of any array.
    std::vector<float> in(widths[l] * heights[l]), out(in.size());
    std::iota(in.begin(), in.end(), float(100 * l));
    ASSERT_EQ(cudaMemcpy2DToArray(level, 0, 0, in.data(), widths[l] * 4, widths[l] * 4, heights[l],
                                  cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DFromArray(out.data(), widths[l] * 4, level, 0, 0, widths[l] * 4, heights[l],
                                    cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(in, out);
    EXPECT_EQ(cudaFreeArray(level), cudaErrorInvalidValue) << "a level goes with its mipmapped array";
  }
  cudaArray_t none = nullptr;
  EXPECT_EQ(cudaGetMipmappedArrayLevel(&none, mip, 5), cudaErrorInvalidValue);
  r = {};
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = mip;
  t.mipmapFilterMode = cudaFilterModeLinear;
  t.maxMipmapLevelClamp = 4;
  EXPECT_EQ(cudaCreateTextureObject(&obj, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(obj), cudaSuccess);
  EXPECT_EQ(cudaFreeMipmappedArray(mip), cudaSuccess);
  EXPECT_EQ(cudaFreeMipmappedArray(mip), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetMipmappedArrayLevel(&none, mip, 0), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
}

TEST(CudartArrays, Copy2DRoundTripsWithOffsetsAndPitches) {
  // A 10 x 6 array of floats (rows of 40 bytes); a 5 x 3 block written at column 2, row 1 from
  // host rows 64 bytes apart, read back whole and as the block into rows 48 bytes apart.
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &kFloat, 10, 6, 0), cudaSuccess);
  const size_t spitch = 64, width = 5 * 4, rows = 3;
  std::vector<uint8_t> src = pattern(spitch * rows);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 2 * 4, 1, src.data(), spitch, width, rows, cudaMemcpyHostToDevice),
            cudaSuccess);
  std::vector<uint8_t> whole = readAll(a, 40, 6);
  for (size_t r = 0; r < 6; ++r)
    for (size_t b = 0; b < 40; ++b) {
      const bool inside = r >= 1 && r < 4 && b >= 8 && b < 28;
      EXPECT_EQ(whole[r * 40 + b], inside ? src[(r - 1) * spitch + (b - 8)] : 0) << r << "," << b;
    }
  std::vector<uint8_t> block(48 * rows, 0);
  ASSERT_EQ(cudaMemcpy2DFromArray(block.data(), 48, a, 8, 1, width, rows, cudaMemcpyDefault), cudaSuccess);
  for (size_t r = 0; r < rows; ++r) EXPECT_EQ(std::memcmp(&block[r * 48], &src[r * spitch], width), 0);

  // Through device memory: pitched device rows -> array -> array -> host.
  void *dev = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&dev, &pitch, 40, 6), cudaSuccess);
  std::vector<uint8_t> rowsIn = pattern(pitch * 6, 3);
  ASSERT_EQ(cudaMemcpy(dev, rowsIn.data(), rowsIn.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, dev, pitch, 40, 6, cudaMemcpyDeviceToDevice), cudaSuccess);
  cudaArray_t b = nullptr;
  ASSERT_EQ(cudaMallocArray(&b, &kFloat, 10, 6, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DArrayToArray(b, 4, 2, a, 8, 1, 12, 3, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<uint8_t> got = readAll(b, 40, 6);
  for (size_t r = 0; r < 6; ++r)
    for (size_t c = 0; c < 40; ++c) {
      const bool inside = r >= 2 && r < 5 && c >= 4 && c < 16;
      EXPECT_EQ(got[r * 40 + c], inside ? rowsIn[(r - 1) * pitch + c + 4] : 0) << r << "," << c;
    }
  // And back out to device memory.
  ASSERT_EQ(cudaMemcpy2DFromArray(dev, pitch, b, 0, 0, 40, 6, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<uint8_t> out(pitch * 6);
  ASSERT_EQ(cudaMemcpy(out.data(), dev, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (size_t r = 0; r < 6; ++r) EXPECT_EQ(std::memcmp(&out[r * pitch], &got[r * 40], 40), 0);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(b), cudaSuccess);
}

TEST(CudartArrays, DeprecatedCopiesWrapRows) {
  // 7 x 4 uchar4 (rows of 28 bytes): 60 bytes from column byte 20 of row 1 wrap to row 3.
  cudaArray_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &kUchar4, 7, 4, 0), cudaSuccess);
  ASSERT_EQ(cudaMallocArray(&b, &kUchar4, 7, 4, 0), cudaSuccess);
  std::vector<uint8_t> src = pattern(60, 9);
  ASSERT_EQ(cudaMemcpyToArray(a, 20, 1, src.data(), 60, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<uint8_t> whole = readAll(a, 28, 4);
  const size_t start = 28 + 20;
  for (size_t i = 0; i < whole.size(); ++i)
    EXPECT_EQ(whole[i], i >= start && i < start + 60 ? src[i - start] : 0) << i;
  std::vector<uint8_t> back(60);
  ASSERT_EQ(cudaMemcpyFromArray(back.data(), a, 20, 1, 60, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, src);
  // Array to array, both sides wrapping at other places: a's bytes 48.. go to b's 6..
  ASSERT_EQ(cudaMemcpyArrayToArray(b, 6, 0, a, 20, 1, 60, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<uint8_t> other = readAll(b, 28, 4);
  for (size_t i = 0; i < other.size(); ++i) EXPECT_EQ(other[i], i >= 6 && i < 66 ? src[i - 6] : 0) << i;
  // The last byte of the array can be reached, one past it cannot.
  EXPECT_EQ(cudaMemcpyToArray(a, 27, 3, src.data(), 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToArray(a, 27, 3, src.data(), 2, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToArray(a, 28, 0, src.data(), 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyFromArray(back.data(), a, 0, 4, 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyArrayToArray(b, 0, 3, a, 0, 0, 29, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(b), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartArrays, AsyncCopiesRunInStreamOrder) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &kInt, 16, 16, 0), cudaSuccess);
  std::vector<uint8_t> src = pattern(64 * 16, 5);
  uint8_t *pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&pinned), 64 * 16 * 2), cudaSuccess);
  std::memset(pinned, 0, 64 * 16 * 2);
  // Pageable source bytes are staged: changing them after the call changes nothing.
  ASSERT_EQ(cudaMemcpy2DToArrayAsync(a, 0, 0, src.data(), 64, 64, 16, cudaMemcpyHostToDevice, s),
            cudaSuccess);
  std::vector<uint8_t> expected = src;
  std::fill(src.begin(), src.end(), 0);
  ASSERT_EQ(cudaMemcpyToArrayAsync(a, 4, 15, expected.data(), 8, cudaMemcpyHostToDevice, s), cudaSuccess);
  std::memcpy(&expected[15 * 64 + 4], expected.data(), 8);
  ASSERT_EQ(cudaMemcpy2DFromArrayAsync(pinned, 64, a, 0, 0, 64, 16, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyFromArrayAsync(pinned + 1024, a, 0, 0, 1024, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(std::memcmp(pinned, expected.data(), 1024), 0);
  EXPECT_EQ(std::memcmp(pinned + 1024, expected.data(), 1024), 0);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST(CudartArrays, CopiesOutsideTheArrayAreRefusedAndTouchNothing) {
  cudaArray_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &kFloat, 8, 4, 0), cudaSuccess); // rows of 32 bytes
  ASSERT_EQ(cudaMallocArray(&b, &kFloat, 8, 4, 0), cudaSuccess);
  std::vector<uint8_t> src = pattern(4096);
  const auto H2D = cudaMemcpyHostToDevice, D2H = cudaMemcpyDeviceToHost, D2D = cudaMemcpyDeviceToDevice;
  EXPECT_EQ(cudaMemcpy2DToArray(a, 4, 0, src.data(), 64, 32, 1, H2D), cudaErrorInvalidValue); // past the row
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 1, src.data(), 64, 32, 4, H2D), cudaErrorInvalidValue); // past the rows
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 5, src.data(), 64, 4, 1, H2D), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, SIZE_MAX, 0, src.data(), 64, 2, 1, H2D), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, src.data(), 16, 32, 2, H2D), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, src.data(), 32, 32, 4, D2H), cudaErrorInvalidValue); // wrong way
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, src.data(), 32, 32, 4, static_cast<cudaMemcpyKind>(9)),
            cudaErrorInvalidMemcpyDirection);
  std::vector<uint8_t> out(4096);
  EXPECT_EQ(cudaMemcpy2DFromArray(out.data(), 64, a, 0, 3, 32, 2, D2H), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DArrayToArray(b, 1, 0, a, 0, 0, 32, 1, D2D), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 1, 32, 4, D2D), cudaErrorInvalidValue);
  int bogus = 0;
  EXPECT_EQ(cudaMemcpy2DToArray(reinterpret_cast<cudaArray_t>(&bogus), 0, 0, src.data(), 32, 4, 1, H2D),
            cudaErrorInvalidResourceHandle);
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = {src.data(), 64, 16, 8};
  p.dstArray = a;
  p.extent = {8, 4, 1};
  p.kind = H2D;
  p.dstPos = {1, 0, 0};
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.dstPos = {0, 1, 0};
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.dstPos = {0, 0, 1};
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.dstPos = {0, 0, 0};
  p.extent = {8, 4, 2};
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.extent = {8, 4, 1};
  p.dstPtr = p.srcPtr; // an array and a pointer on one side
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  // Nothing was written.
  for (uint8_t byte : readAll(a, 32, 4)) EXPECT_EQ(byte, 0);
  for (uint8_t byte : readAll(b, 32, 4)) EXPECT_EQ(byte, 0);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(b), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartArrays, Memcpy3DWithArraysOfEveryShape) {
  // A 5 x 4 x 3 array of short2 (4 bytes): a 3 x 2 x 2 box from a host volume (byte positions,
  // rows of 32 bytes, slices of 3 rows) lands at texel (1, 2, 1); the whole array comes back.
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&a, &kShort2, {5, 4, 3}, 0), cudaSuccess);
  std::vector<uint8_t> host = pattern(32 * 3 * 3, 1);
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = {host.data(), 32, 8, 3};
  p.srcPos = {4, 1, 0}; // bytes, rows, slices
  p.dstArray = a;
  p.dstPos = {1, 2, 1}; // texels
  p.extent = {3, 2, 2}; // texels of the array
  p.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  std::vector<uint8_t> whole(5 * 4 * 3 * 4, 0xEE);
  cudaMemcpy3DParms q;
  std::memset(&q, 0, sizeof q);
  q.srcArray = a;
  q.dstPtr = {whole.data(), 20, 5, 4};
  q.extent = {5, 4, 3};
  q.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaMemcpy3D(&q), cudaSuccess);
  for (size_t z = 0; z < 3; ++z)
    for (size_t y = 0; y < 4; ++y)
      for (size_t x = 0; x < 20; ++x) {
        const bool inside = z >= 1 && z < 3 && y >= 2 && y < 4 && x >= 4 && x < 16;
        const uint8_t want = inside ? host[(z - 1) * 96 + (y - 2 + 1) * 32 + (x - 4 + 4)] : 0;
        EXPECT_EQ(whole[z * 80 + y * 20 + x], want) << z << "," << y << "," << x;
      }
  // Array to array (async), then the second's slice 1 compared with the first's.
  cudaArray_t b = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&b, &kShort2, {5, 4, 3}, 0), cudaSuccess);
  cudaMemcpy3DParms r;
  std::memset(&r, 0, sizeof r);
  r.srcArray = a;
  r.dstArray = b;
  r.extent = {5, 4, 3};
  r.kind = cudaMemcpyDeviceToDevice;
  ASSERT_EQ(cudaMemcpy3DAsync(&r, nullptr), cudaSuccess);
  std::vector<uint8_t> copy(whole.size());
  q.srcArray = b;
  q.dstPtr.ptr = copy.data();
  ASSERT_EQ(cudaMemcpy3D(&q), cudaSuccess);
  EXPECT_EQ(copy, whole);
  // Arrays of texels of different sizes do not copy into each other.
  cudaArray_t c = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&c, &kUchar, {5, 4, 3}, 0), cudaSuccess);
  r.dstArray = c;
  EXPECT_EQ(cudaMemcpy3D(&r), cudaErrorInvalidValue);

  // Layered: a 1-D layered array's layers are the depth, its height 1; a 2-D layered one's
  // layers are slices.
  cudaArray_t l1 = nullptr, l2 = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&l1, &kFloat, {6, 0, 3}, cudaArrayLayered), cudaSuccess);
  ASSERT_EQ(cudaMalloc3DArray(&l2, &kUchar, {4, 2, 3}, cudaArrayLayered), cudaSuccess);
  std::vector<uint8_t> layers = pattern(6 * 4 * 3, 4);
  cudaMemcpy3DParms w;
  std::memset(&w, 0, sizeof w);
  w.srcPtr = {layers.data(), 24, 6, 1};
  w.dstArray = l1;
  w.extent = {6, 1, 3};
  w.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&w), cudaSuccess);
  std::vector<uint8_t> layer2(24);
  cudaMemcpy3DParms rd;
  std::memset(&rd, 0, sizeof rd);
  rd.srcArray = l1;
  rd.srcPos = {0, 0, 2};
  rd.dstPtr = {layer2.data(), 24, 6, 1};
  rd.extent = {6, 1, 1};
  rd.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaMemcpy3D(&rd), cudaSuccess);
  EXPECT_EQ(std::memcmp(layer2.data(), &layers[48], 24), 0);
  w.dstArray = l1;
  w.extent = {6, 2, 1}; // a 1-D layered array has one row per layer
  EXPECT_EQ(cudaMemcpy3D(&w), cudaErrorInvalidValue);
  w.dstArray = l2;
  w.srcPtr = {layers.data(), 4, 4, 2};
  w.extent = {4, 2, 3};
  ASSERT_EQ(cudaMemcpy3D(&w), cudaSuccess);
  std::vector<uint8_t> l2back(24);
  rd.srcArray = l2;
  rd.srcPos = {0, 0, 0};
  rd.dstPtr = {l2back.data(), 4, 4, 2};
  rd.extent = {4, 2, 3};
  ASSERT_EQ(cudaMemcpy3D(&rd), cudaSuccess);
  EXPECT_EQ(std::memcmp(l2back.data(), layers.data(), 24), 0);
  for (cudaArray_t x : {a, b, c, l1, l2}) EXPECT_EQ(cudaFreeArray(x), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartTextures, ObjectsOverEveryResourceAndTheirGetters) {
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&a, &kFloat, {8, 8, 4}, cudaArrayLayered), cudaSuccess);
  cudaResourceDesc res = arrayResource(a);
  cudaTextureDesc tex = pointTexture();
  tex.addressMode[0] = cudaAddressModeBorder;
  tex.borderColor[0] = 0.5f;
  tex.normalizedCoords = 1;
  cudaTextureObject_t t = 0;
  ASSERT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaSuccess);
  EXPECT_NE(t, 0u);
  cudaResourceDesc gotRes;
  cudaTextureDesc gotTex;
  cudaResourceViewDesc gotView;
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&gotRes, t), cudaSuccess);
  EXPECT_EQ(gotRes.resType, cudaResourceTypeArray);
  EXPECT_EQ(gotRes.res.array.array, a);
  ASSERT_EQ(cudaGetTextureObjectTextureDesc(&gotTex, t), cudaSuccess);
  EXPECT_EQ(std::memcmp(&gotTex, &tex, sizeof tex), 0);
  EXPECT_EQ(cudaGetTextureObjectResourceViewDesc(&gotView, t), cudaErrorInvalidValue); // none given
  // With a view of layers 1..2.
  cudaResourceViewDesc view;
  std::memset(&view, 0, sizeof view);
  view.format = cudaResViewFormatFloat1;
  view.width = 8, view.height = 8, view.depth = 4;
  view.firstLayer = 1, view.lastLayer = 2;
  cudaTextureObject_t tv = 0;
  ASSERT_EQ(cudaCreateTextureObject(&tv, &res, &tex, &view), cudaSuccess);
  ASSERT_EQ(cudaGetTextureObjectResourceViewDesc(&gotView, tv), cudaSuccess);
  EXPECT_EQ(gotView.firstLayer, 1u);
  EXPECT_EQ(gotView.lastLayer, 2u);
  view.lastLayer = 4;
  EXPECT_EQ(cudaCreateTextureObject(&tv, &res, &tex, &view), cudaErrorInvalidValue);

  // Linear and pitched memory.
  void *dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 4096), cudaSuccess);
  cudaResourceDesc lin;
  std::memset(&lin, 0, sizeof lin);
  lin.resType = cudaResourceTypeLinear;
  lin.res.linear = {dev, kUchar4, 4096};
  cudaTextureObject_t tl = 0;
  ASSERT_EQ(cudaCreateTextureObject(&tl, &lin, &tex, nullptr), cudaSuccess);
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&gotRes, tl), cudaSuccess);
  EXPECT_EQ(gotRes.res.linear.devPtr, dev);
  EXPECT_EQ(gotRes.res.linear.sizeInBytes, 4096u);
  cudaResourceDesc pitched;
  std::memset(&pitched, 0, sizeof pitched);
  pitched.resType = cudaResourceTypePitch2D;
  pitched.res.pitch2D = {dev, kFloat, 30, 8, 128};
  cudaTextureObject_t tp = 0;
  ASSERT_EQ(cudaCreateTextureObject(&tp, &pitched, &tex, nullptr), cudaSuccess);
  EXPECT_NE(tp, tl);

  for (cudaTextureObject_t x : {t, tv, tl, tp}) EXPECT_EQ(cudaDestroyTextureObject(x), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(t), cudaErrorInvalidValue); // twice
  EXPECT_EQ(cudaGetTextureObjectTextureDesc(&gotTex, t), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartTextures, BadDescriptionsAreRefused) {
  void *dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 4096), cudaSuccess);
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &kInt, 8, 8, 0), cudaSuccess);
  cudaResourceDesc res = arrayResource(a);
  cudaTextureDesc tex = pointTexture();
  cudaTextureObject_t t = 0;
  EXPECT_EQ(cudaCreateTextureObject(nullptr, &res, &tex, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateTextureObject(&t, nullptr, &tex, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, nullptr, nullptr), cudaErrorInvalidValue);
  // Linear filtering of integers read as integers.
  tex.filterMode = cudaFilterModeLinear;
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidValue);
  tex.readMode = cudaReadModeNormalizedFloat; // 32-bit integers are never normalised
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidValue);
  cudaArray_t bytes = nullptr;
  ASSERT_EQ(cudaMallocArray(&bytes, &kUchar, 8, 8, 0), cudaSuccess);
  cudaResourceDesc byteRes = arrayResource(bytes);
  ASSERT_EQ(cudaCreateTextureObject(&t, &byteRes, &tex, nullptr), cudaSuccess); // uchar read normalised
  EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  tex = pointTexture();
  tex.addressMode[1] = static_cast<cudaTextureAddressMode>(7);
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidValue);
  tex = pointTexture();
  res.flags = 1;
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidValue);
  res.flags = 0;
  int bogus = 0;
  res.res.array.array = reinterpret_cast<cudaArray_t>(&bogus);
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidResourceHandle);
  res.resType = cudaResourceTypeMipmappedArray; // the same bytes: a mipmapped array the runtime never made
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidResourceHandle);

  cudaResourceDesc lin;
  std::memset(&lin, 0, sizeof lin);
  lin.resType = cudaResourceTypeLinear;
  lin.res.linear = {dev, {32, 32, 32, 0, cudaChannelFormatKindFloat}, 4096};
  EXPECT_EQ(cudaCreateTextureObject(&t, &lin, &tex, nullptr), cudaErrorInvalidChannelDescriptor);
  lin.res.linear.desc = kFloat;
  lin.res.linear.sizeInBytes = 4097 + 4; // past the allocation
  EXPECT_EQ(cudaCreateTextureObject(&t, &lin, &tex, nullptr), cudaErrorInvalidValue);
  lin.res.linear.sizeInBytes = 2; // not one texel
  EXPECT_EQ(cudaCreateTextureObject(&t, &lin, &tex, nullptr), cudaErrorInvalidValue);
  lin.res.linear = {static_cast<char *>(dev) + 4, kFloat, 64}; // misaligned
  EXPECT_EQ(cudaCreateTextureObject(&t, &lin, &tex, nullptr), cudaErrorInvalidValue);
  lin.res.linear.devPtr = nullptr;
  EXPECT_EQ(cudaCreateTextureObject(&t, &lin, &tex, nullptr), cudaErrorInvalidValue);
  cudaResourceViewDesc view;
  std::memset(&view, 0, sizeof view);
  lin.res.linear = {dev, kFloat, 64};
  EXPECT_EQ(cudaCreateTextureObject(&t, &lin, &tex, &view), cudaErrorInvalidValue); // views: arrays only

  cudaResourceDesc pitched;
  std::memset(&pitched, 0, sizeof pitched);
  pitched.resType = cudaResourceTypePitch2D;
  pitched.res.pitch2D = {dev, kFloat, 8, 8, 48}; // pitch not a multiple of 32
  EXPECT_EQ(cudaCreateTextureObject(&t, &pitched, &tex, nullptr), cudaErrorInvalidValue);
  pitched.res.pitch2D = {dev, kFloat, 16, 8, 32}; // rows narrower than the width
  EXPECT_EQ(cudaCreateTextureObject(&t, &pitched, &tex, nullptr), cudaErrorInvalidValue);
  pitched.res.pitch2D = {dev, kFloat, 16, 64, 128}; // past the allocation
  EXPECT_EQ(cudaCreateTextureObject(&t, &pitched, &tex, nullptr), cudaErrorInvalidValue);
  pitched.res.pitch2D = {dev, kFloat, 16, 32, 128}; // exactly the allocation
  ASSERT_EQ(cudaCreateTextureObject(&t, &pitched, &tex, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(12345678), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(bytes), cudaSuccess);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartSurfaces, ObjectsNeedAnArrayMadeForLoadAndStore) {
  cudaArray_t plain = nullptr, storable = nullptr;
  ASSERT_EQ(cudaMallocArray(&plain, &kFloat, 8, 8, 0), cudaSuccess);
  ASSERT_EQ(cudaMallocArray(&storable, &kFloat, 8, 8, cudaArraySurfaceLoadStore), cudaSuccess);
  cudaSurfaceObject_t s = 0;
  cudaResourceDesc res = arrayResource(plain);
  EXPECT_EQ(cudaCreateSurfaceObject(&s, &res), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateSurfaceObject(nullptr, &res), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateSurfaceObject(&s, nullptr), cudaErrorInvalidValue);
  void *dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 1024), cudaSuccess);
  cudaResourceDesc lin;
  std::memset(&lin, 0, sizeof lin);
  lin.resType = cudaResourceTypeLinear;
  lin.res.linear = {dev, kFloat, 1024};
  EXPECT_EQ(cudaCreateSurfaceObject(&s, &lin), cudaErrorInvalidValue);
  res = arrayResource(storable);
  ASSERT_EQ(cudaCreateSurfaceObject(&s, &res), cudaSuccess);
  EXPECT_NE(s, 0u);
  cudaResourceDesc got;
  ASSERT_EQ(cudaGetSurfaceObjectResourceDesc(&got, s), cudaSuccess);
  EXPECT_EQ(got.res.array.array, storable);
  // A surface is not a texture, and the other way round.
  cudaTextureDesc tex;
  EXPECT_EQ(cudaGetTextureObjectTextureDesc(&tex, s), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroyTextureObject(s), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroySurfaceObject(s), cudaSuccess);
  EXPECT_EQ(cudaDestroySurfaceObject(s), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetSurfaceObjectResourceDesc(&got, s), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(plain), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(storable), cudaSuccess);
  cudaGetLastError();
}

} // namespace
