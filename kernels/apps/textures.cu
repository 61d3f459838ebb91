// Texture and surface objects: point sampling only, so every expected value is exact.
//   * tex1Dfetch of float and int linear memory;
//   * tex2D of pitched 2-D memory, unnormalised coordinates, clamp;
//   * tex2D<uchar4> of a 2-D array, normalised coordinates, wrap;
//   * tex2D<float> of a 2-D array with normalised coordinates and mirror, and with unnormalised
//     coordinates and a border colour;
//   * tex1D<float> of uchar (value / 255) and signed char (value / 127) arrays read as
//     normalised floats, tex1D<int> of an int array with normalised coordinates and wrap;
//   * tex3D of a 3-D array and tex2DLayered of a layered array (clamp);
//   * surf2Dread / surf2Dwrite round trip on an array made with cudaArraySurfaceLoadStore.
// Point sampling reads texel floor(x) (floor(u * n) with normalised coordinates u); every
// coordinate is a texel centre plus an offset of at most 0.3 texel, far from any tie. The arrays
// are filled with cudaMemcpy2DToArray, cudaMemcpyToArray(Async) and cudaMemcpy3D.
#include "app_check.h"

#include <cstring>

// cudaMemcpyToArray and cudaMemcpyToArrayAsync are deprecated; the runtime still serves them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

constexpr int kThreads = 64;
int blocks(int n) { return (n + kThreads - 1) / kThreads; }

__global__ void fetchLinear(cudaTextureObject_t floats, cudaTextureObject_t ints, int n, float *outF,
                            int *outI) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  outF[i] = tex1Dfetch<float>(floats, i);
  outI[i] = tex1Dfetch<int>(ints, n - 1 - i);
}

template <class T> __global__ void sample1D(cudaTextureObject_t t, const float *x, int n, T *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<T>(t, x[i]);
}

template <class T> __global__ void sample2D(cudaTextureObject_t t, const float2 *xy, int n, T *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<T>(t, xy[i].x, xy[i].y);
}

__global__ void sample3D(cudaTextureObject_t t, const float4 *xyz, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, xyz[i].x, xyz[i].y, xyz[i].z);
}

__global__ void sampleLayered(cudaTextureObject_t t, const float4 *xyl, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, xyl[i].x, xyl[i].y, static_cast<int>(xyl[i].z));
}

// Each texel becomes 2 * itself + its column, read and written through the surface (x in bytes).
__global__ void surfaceRoundTrip(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float v = 0;
  surf2Dread(&v, s, x * 4, y);
  surf2Dwrite(2 * v + x, s, x * 4, y);
}

enum Mode { Wrap, Clamp, Mirror, Border };

// The texel a point sample reads along one dimension of n texels; -1 for the border.
int texel(double coord, int n, bool normalized, Mode mode) {
  long t = static_cast<long>(std::floor(normalized ? coord * n : coord));
  switch (mode) {
  case Wrap: return static_cast<int>(((t % n) + n) % n);
  case Mirror: {
    long m = ((t % (2 * n)) + 2 * n) % (2 * n);
    return static_cast<int>(m < n ? m : 2 * n - 1 - m);
  }
  case Clamp: return static_cast<int>(t < 0 ? 0 : t >= n ? n - 1 : t);
  case Border: return t < 0 || t >= n ? -1 : static_cast<int>(t);
  }
  return 0;
}

// Texel centres from `lo` to `hi` (texels) with offsets cycling through -0.3 .. +0.3.
std::vector<float> coords(int lo, int hi, int n, bool normalized) {
  static const float offsets[] = {-0.3f, -0.1f, 0.0f, 0.15f, 0.3f};
  std::vector<float> c;
  for (int i = lo; i < hi; ++i) {
    float x = i + 0.5f + offsets[(i - lo) % 5];
    c.push_back(normalized ? x / n : x);
  }
  return c;
}

cudaTextureDesc textureDesc(Mode mode, bool normalized, cudaTextureReadMode read = cudaReadModeElementType) {
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  for (auto &m : t.addressMode) m = static_cast<cudaTextureAddressMode>(mode);
  t.filterMode = cudaFilterModePoint;
  t.readMode = read;
  t.normalizedCoords = normalized;
  return t;
}

cudaTextureObject_t arrayTexture(cudaArray_t a, const cudaTextureDesc &t) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureObject_t object = 0;
  CHECK(cudaCreateTextureObject(&object, &r, &t, nullptr));
  return object;
}

template <class T> std::vector<T> run1D(cudaTextureObject_t t, const std::vector<float> &x) {
  float *dx = deviceCopy(x);
  T *out = nullptr;
  CHECK(cudaMalloc(&out, x.size() * sizeof(T)));
  sample1D<T><<<blocks(int(x.size())), kThreads>>>(t, dx, int(x.size()), out);
  CHECK_LAUNCH();
  std::vector<T> got = hostCopy(out, x.size());
  CHECK(cudaFree(dx));
  CHECK(cudaFree(out));
  return got;
}

template <class T> std::vector<T> run2D(cudaTextureObject_t t, const std::vector<float2> &xy) {
  float2 *dxy = deviceCopy(xy);
  T *out = nullptr;
  CHECK(cudaMalloc(&out, xy.size() * sizeof(T)));
  sample2D<T><<<blocks(int(xy.size())), kThreads>>>(t, dxy, int(xy.size()), out);
  CHECK_LAUNCH();
  std::vector<T> got = hostCopy(out, xy.size());
  CHECK(cudaFree(dxy));
  CHECK(cudaFree(out));
  return got;
}

// Every pair of the coordinates along x and y.
std::vector<float2> grid(const std::vector<float> &xs, const std::vector<float> &ys) {
  std::vector<float2> xy;
  for (float y : ys)
    for (float x : xs) xy.push_back(make_float2(x, y));
  return xy;
}

} // namespace

int main() {
  Random rng(0x7E47u);
  Verdict v;

  // ---- tex1Dfetch on linear memory ----------------------------------------------------------
  {
    const int n = 100;
    std::vector<float> f(n);
    std::vector<int> k(n);
    for (int i = 0; i < n; ++i) f[i] = rng.uniform(-10, 10), k[i] = int(rng.range(-100000, 100000));
    float *df = deviceCopy(f);
    int *dk = deviceCopy(k);
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    r.res.linear = {df, cudaCreateChannelDesc<float>(), n * sizeof(float)};
    cudaTextureDesc t = textureDesc(Clamp, false);
    cudaTextureObject_t tf = 0, tk = 0;
    CHECK(cudaCreateTextureObject(&tf, &r, &t, nullptr));
    r.res.linear = {dk, cudaCreateChannelDesc<int>(), n * sizeof(int)};
    CHECK(cudaCreateTextureObject(&tk, &r, &t, nullptr));
    float *outF = nullptr;
    int *outI = nullptr;
    CHECK(cudaMalloc(&outF, n * sizeof(float)));
    CHECK(cudaMalloc(&outI, n * sizeof(int)));
    fetchLinear<<<blocks(n), kThreads>>>(tf, tk, n, outF, outI);
    CHECK_LAUNCH();
    std::vector<float> gotF = hostCopy(outF, n);
    std::vector<int> gotI = hostCopy(outI, n);
    for (int i = 0; i < n; ++i) {
      v.expect(gotF[i] == f[i], "tex1Dfetch<float>[%d]: got %g, expected %g", i, gotF[i], f[i]);
      v.expectEq(gotI[i], k[n - 1 - i], "tex1Dfetch<int>", i);
    }
    CHECK(cudaDestroyTextureObject(tf));
    CHECK(cudaDestroyTextureObject(tk));
    for (void *p : {static_cast<void *>(df), static_cast<void *>(dk), static_cast<void *>(outF),
                    static_cast<void *>(outI)})
      CHECK(cudaFree(p));
  }

  // ---- tex2D on pitched memory: unnormalised, clamp --------------------------------------------
  {
    const int w = 13, h = 7;
    std::vector<float> img(w * h);
    for (float &x : img) x = rng.uniform(0, 1);
    float *d = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&d, &pitch, w * sizeof(float), h));
    CHECK(
        cudaMemcpy2D(d, pitch, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypePitch2D;
    r.res.pitch2D = {d, cudaCreateChannelDesc<float>(), size_t(w), size_t(h), pitch};
    cudaTextureDesc t = textureDesc(Clamp, false);
    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &r, &t, nullptr));
    std::vector<float> xs = coords(-3, w + 3, w, false), ys = coords(-2, h + 2, h, false);
    std::vector<float2> xy = grid(xs, ys);
    std::vector<float> got = run2D<float>(tex, xy);
    for (size_t i = 0; i < xy.size(); ++i) {
      float want = img[texel(xy[i].y, h, false, Clamp) * w + texel(xy[i].x, w, false, Clamp)];
      v.expect(got[i] == want, "pitch2D clamp (%g, %g): got %g, expected %g", xy[i].x, xy[i].y, got[i], want);
    }
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFree(d));
  }

  // ---- 2-D arrays: uchar4 with wrap, float with mirror and border ------------------------------
  {
    const int w = 8, h = 6;
    std::vector<uchar4> rgba(w * h);
    for (uchar4 &c : rgba)
      c = make_uchar4(uint8_t(rng.next()), uint8_t(rng.next()), uint8_t(rng.next()), uint8_t(rng.next()));
    cudaChannelFormatDesc d4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a4 = nullptr;
    CHECK(cudaMallocArray(&a4, &d4, w, h));
    CHECK(cudaMemcpy2DToArray(a4, 0, 0, rgba.data(), w * sizeof(uchar4), w * sizeof(uchar4), h,
                              cudaMemcpyHostToDevice));
    cudaTextureObject_t wrap = arrayTexture(a4, textureDesc(Wrap, true));
    std::vector<float2> xy = grid(coords(-w, 2 * w, w, true), coords(-h, 2 * h, h, true));
    std::vector<uchar4> got = run2D<uchar4>(wrap, xy);
    for (size_t i = 0; i < xy.size(); ++i) {
      uchar4 want = rgba[texel(xy[i].y, h, true, Wrap) * w + texel(xy[i].x, w, true, Wrap)];
      v.expect(got[i].x == want.x && got[i].y == want.y && got[i].z == want.z && got[i].w == want.w,
               "uchar4 wrap (%g, %g): got (%d %d %d %d), expected (%d %d %d %d)", xy[i].x, xy[i].y, got[i].x,
               got[i].y, got[i].z, got[i].w, want.x, want.y, want.z, want.w);
    }
    CHECK(cudaDestroyTextureObject(wrap));
    CHECK(cudaFreeArray(a4));

    std::vector<float> img(w * h);
    for (float &x : img) x = rng.uniform(-1, 1);
    cudaChannelFormatDesc df = cudaCreateChannelDesc<float>();
    cudaArray_t af = nullptr;
    CHECK(cudaMallocArray(&af, &df, w, h));
    // Row by row through the deprecated form, rows wrapping: the whole image in one call.
    CHECK(cudaMemcpyToArray(af, 0, 0, img.data(), img.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaTextureObject_t mirror = arrayTexture(af, textureDesc(Mirror, true));
    std::vector<float> gotM = run2D<float>(mirror, xy);
    for (size_t i = 0; i < xy.size(); ++i) {
      float want = img[texel(xy[i].y, h, true, Mirror) * w + texel(xy[i].x, w, true, Mirror)];
      v.expect(gotM[i] == want, "float mirror (%g, %g): got %g, expected %g", xy[i].x, xy[i].y, gotM[i],
               want);
    }
    cudaTextureDesc bd = textureDesc(Border, false);
    bd.borderColor[0] = -7.0f;
    cudaTextureObject_t border = arrayTexture(af, bd);
    std::vector<float2> uxy = grid(coords(-2, w + 2, w, false), coords(-2, h + 2, h, false));
    std::vector<float> gotB = run2D<float>(border, uxy);
    for (size_t i = 0; i < uxy.size(); ++i) {
      int x = texel(uxy[i].x, w, false, Border), y = texel(uxy[i].y, h, false, Border);
      float want = x < 0 || y < 0 ? -7.0f : img[y * w + x];
      v.expect(gotB[i] == want, "float border (%g, %g): got %g, expected %g", uxy[i].x, uxy[i].y, gotB[i],
               want);
    }
    CHECK(cudaDestroyTextureObject(mirror));
    CHECK(cudaDestroyTextureObject(border));
    CHECK(cudaFreeArray(af));
  }

  // ---- 1-D arrays: normalised-float reads of uchar and signed char, int with wrap -----------------
  {
    const int n = 20;
    std::vector<unsigned char> u(n);
    std::vector<signed char> s(n);
    std::vector<int> k(n);
    for (int i = 0; i < n; ++i)
      u[i] = uint8_t(rng.next()), s[i] = int8_t(rng.range(-127, 127)), k[i] = int(rng.range(-1000, 1000));
    u[0] = 255, u[1] = 0, s[0] = 127, s[1] = -127;
    cudaChannelFormatDesc du = cudaCreateChannelDesc<unsigned char>(),
                          ds = cudaCreateChannelDesc<signed char>(), dk = cudaCreateChannelDesc<int>();
    cudaArray_t au = nullptr, as = nullptr, ak = nullptr;
    CHECK(cudaMallocArray(&au, &du, n));
    CHECK(cudaMallocArray(&as, &ds, n));
    CHECK(cudaMallocArray(&ak, &dk, n));
    CHECK(cudaMemcpyToArray(au, 0, 0, u.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArray(as, 0, 0, s.data(), n, n, 1, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToArrayAsync(ak, 0, 0, k.data(), n * sizeof(int), cudaMemcpyHostToDevice, 0));
    cudaTextureObject_t tu = arrayTexture(au, textureDesc(Clamp, false, cudaReadModeNormalizedFloat));
    cudaTextureObject_t ts = arrayTexture(as, textureDesc(Clamp, true, cudaReadModeNormalizedFloat));
    cudaTextureObject_t tk = arrayTexture(ak, textureDesc(Wrap, true));
    std::vector<float> xu = coords(-2, n + 2, n, false), xn = coords(-n, 2 * n, n, true);
    std::vector<float> gotU = run1D<float>(tu, xu), gotS = run1D<float>(ts, xn);
    std::vector<int> gotK = run1D<int>(tk, xn);
    for (size_t i = 0; i < xu.size(); ++i) {
      float want = u[texel(xu[i], n, false, Clamp)] / 255.0f;
      v.expect(gotU[i] == want, "uchar as float (%g): got %.9g, expected %.9g", xu[i], gotU[i], want);
    }
    for (size_t i = 0; i < xn.size(); ++i) {
      float want = s[texel(xn[i], n, true, Clamp)] / 127.0f;
      v.expect(gotS[i] == want, "signed char as float (%g): got %.9g, expected %.9g", xn[i], gotS[i], want);
      v.expectEq(gotK[i], k[texel(xn[i], n, true, Wrap)], "int wrap", long(i));
    }
    for (cudaTextureObject_t t : {tu, ts, tk}) CHECK(cudaDestroyTextureObject(t));
    for (cudaArray_t a : {au, as, ak}) CHECK(cudaFreeArray(a));
  }

  // ---- tex3D on a 3-D array, tex2DLayered on a layered array (clamp) ---------------------------
  {
    const int w = 5, h = 4, d = 3;
    std::vector<float> vol(w * h * d);
    for (float &x : vol) x = rng.uniform(-5, 5);
    cudaChannelFormatDesc df = cudaCreateChannelDesc<float>();
    cudaArray_t a3 = nullptr, al = nullptr;
    CHECK(cudaMalloc3DArray(&a3, &df, make_cudaExtent(w, h, d)));
    CHECK(cudaMalloc3DArray(&al, &df, make_cudaExtent(w, h, d), cudaArrayLayered));
    for (cudaArray_t a : {a3, al}) {
      cudaMemcpy3DParms p;
      std::memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(vol.data(), w * sizeof(float), w, h);
      p.dstArray = a;
      p.extent = make_cudaExtent(w, h, d);
      p.kind = cudaMemcpyHostToDevice;
      CHECK(cudaMemcpy3D(&p));
    }
    cudaTextureObject_t t3 = arrayTexture(a3, textureDesc(Clamp, false));
    cudaTextureObject_t tl = arrayTexture(al, textureDesc(Clamp, false));
    std::vector<float4> xyz, xyl;
    std::vector<float> xs = coords(-1, w + 1, w, false), ys = coords(-1, h + 1, h, false),
                       zs = coords(-1, d + 1, d, false);
    for (float z : zs)
      for (float y : ys)
        for (float x : xs) xyz.push_back(make_float4(x, y, z, 0));
    for (int layer = 0; layer < d; ++layer)
      for (float y : ys)
        for (float x : xs) xyl.push_back(make_float4(x, y, float(layer), 0));
    const int n3 = int(xyz.size()), nl = int(xyl.size());
    float4 *dxyz = deviceCopy(xyz), *dxyl = deviceCopy(xyl);
    float *out3 = nullptr, *outl = nullptr;
    CHECK(cudaMalloc(&out3, n3 * sizeof(float)));
    CHECK(cudaMalloc(&outl, nl * sizeof(float)));
    sample3D<<<blocks(n3), kThreads>>>(t3, dxyz, n3, out3);
    CHECK_LAUNCH();
    sampleLayered<<<blocks(nl), kThreads>>>(tl, dxyl, nl, outl);
    CHECK_LAUNCH();
    std::vector<float> got3 = hostCopy(out3, n3), gotl = hostCopy(outl, nl);
    for (int i = 0; i < n3; ++i) {
      int x = texel(xyz[i].x, w, false, Clamp), y = texel(xyz[i].y, h, false, Clamp),
          z = texel(xyz[i].z, d, false, Clamp);
      v.expect(got3[i] == vol[(z * h + y) * w + x], "tex3D (%g, %g, %g): got %g, expected %g", xyz[i].x,
               xyz[i].y, xyz[i].z, got3[i], vol[(z * h + y) * w + x]);
    }
    for (int i = 0; i < nl; ++i) {
      int x = texel(xyl[i].x, w, false, Clamp), y = texel(xyl[i].y, h, false, Clamp), layer = int(xyl[i].z);
      float want = vol[(layer * h + y) * w + x];
      v.expect(gotl[i] == want, "tex2DLayered (%g, %g, %d): got %g, expected %g", xyl[i].x, xyl[i].y, layer,
               gotl[i], want);
    }
    CHECK(cudaDestroyTextureObject(t3));
    CHECK(cudaDestroyTextureObject(tl));
    CHECK(cudaFreeArray(a3));
    CHECK(cudaFreeArray(al));
    for (void *p : {static_cast<void *>(dxyz), static_cast<void *>(dxyl), static_cast<void *>(out3),
                    static_cast<void *>(outl)})
      CHECK(cudaFree(p));
  }

  // ---- surf2Dread / surf2Dwrite round trip -----------------------------------------------------
  {
    const int w = 9, h = 5;
    std::vector<float> img(w * h);
    for (int i = 0; i < w * h; ++i) img[i] = float(rng.range(-50, 50));
    cudaChannelFormatDesc df = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    CHECK(cudaMallocArray(&a, &df, w, h, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(a, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    CHECK(cudaCreateSurfaceObject(&s, &r));
    surfaceRoundTrip<<<dim3(1, h), 32>>>(s, w, h);
    CHECK_LAUNCH();
    std::vector<float> got(w * h);
    CHECK(cudaMemcpy2DFromArray(got.data(), w * sizeof(float), a, 0, 0, w * sizeof(float), h,
                                cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; ++i) {
      float want = 2 * img[i] + float(i % w);
      v.expect(got[i] == want, "surface round trip [%d]: got %g, expected %g", i, got[i], want);
    }
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
  }

  CHECK(cudaDeviceSynchronize());
  return v.finish();
}
