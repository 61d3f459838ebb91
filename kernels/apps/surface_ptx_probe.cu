// surface_ptx_probe: prints, as raw bytes, what the formatted surface forms CUDA C++ does not reach
// leave behind (inline PTX): sust.p (a vector of 32-bit words converted to the surface's format)
// into arrays of every plain channel format, in 1-D, 2-D and 3-D, and sured.p (a reduction on a
// sample of the surface's format) with each operation. The output recorded on a GPU is
// kernels/apps/expected/surface_ptx_probe.stdout; under ptxvm the same program must print the
// same bytes.
//
// usage: surface_ptx_probe [EXPERIMENT...]   (all of them when none is named; --list names them)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app_check.h"

namespace {

/// A plain channel format and how many bytes one sample takes.
struct Format {
  const char *name;
  cudaChannelFormatDesc desc;
  int bytes;
};

const Format kFormats[] = {
    {"f32x1", cudaCreateChannelDesc<float>(), 4},    {"f32x2", cudaCreateChannelDesc<float2>(), 8},
    {"f32x4", cudaCreateChannelDesc<float4>(), 16},  {"f16x1", cudaCreateChannelDescHalf(), 2},
    {"f16x4", cudaCreateChannelDescHalf4(), 8},      {"u8x1", cudaCreateChannelDesc<unsigned char>(), 1},
    {"u8x4", cudaCreateChannelDesc<uchar4>(), 4},    {"s8x4", cudaCreateChannelDesc<char4>(), 4},
    {"u16x2", cudaCreateChannelDesc<ushort2>(), 4},  {"s16x1", cudaCreateChannelDesc<short>(), 2},
    {"u32x1", cudaCreateChannelDesc<unsigned>(), 4}, {"s32x1", cudaCreateChannelDesc<int>(), 4},
    {"s32x4", cudaCreateChannelDesc<int4>(), 16},
};

/// The format named `name` (the first when none is).
const Format &format(const char *name) {
  for (const Format &f : kFormats)
    if (std::strcmp(f.name, name) == 0) return f;
  return kFormats[0];
}

/// The words lane l stores (R, G, B, A): floats around every format's range and rounding points,
/// special values, and integers around every width's limits.
__constant__ uint32_t kWords[8][4] = {
    {0x3f800000u, 0xbf800000u, 0x3f000000u, 0x00000000u}, // 1, -1, 0.5, 0
    {0x3e800000u, 0x3fc00000u, 0xbf000000u, 0xc0000000u}, // 0.25, 1.5, -0.5, -2
    {0x3b008081u, 0x3f7f7f7fu, 0x3b808081u, 0x3f7efeffu}, // ~0.5/255, ~254.5/255, ~1/255, ~0.996
    {0x7fc00001u, 0x7f800000u, 0xff800000u, 0x80000000u}, // NaN, inf, -inf, -0
    {0x477ff000u, 0x4788b800u, 0x322bcc77u, 0x387fc000u}, // 65520, 70000, 1e-8, ~6.1e-5
    {0x00000001u, 0x000000ffu, 0x00000100u, 0x7fffffffu}, // integers
    {0xffffffffu, 0x80000000u, 0xffffff7fu, 0x00000080u}, // -1, INT_MIN, -129, 128
    {0x00010000u, 0x00007fffu, 0xffff8000u, 0x12345678u}, // 65536, 32767, -32768
};

enum Geometry : int { k1D, k2D, k3D };

/// Lane l stores kWords[l] at sample (l * unit, y, z) of the surface with .v4, .v2 or one word.
__global__ void store(cudaSurfaceObject_t s, int geometry, int width, int unit, int words) {
  const int l = threadIdx.x;
  const uint4 w = make_uint4(kWords[l & 7][0], kWords[l & 7][1], kWords[l & 7][2], kWords[l & 7][3]);
  const int x = (geometry == k3D ? l % width : l) * unit, y = geometry == k3D ? (l / width) % 2 : 1, z = 1;
  if (geometry == k1D)
    asm volatile("sust.p.1d.v4.b32.zero [%0, {%1}], {%2, %3, %4, %5};" ::"l"(s), "r"(x), "r"(w.x), "r"(w.y),
                 "r"(w.z), "r"(w.w)
                 : "memory");
  else if (geometry == k3D)
    asm volatile("sust.p.3d.v4.b32.zero [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" ::"l"(s), "r"(x), "r"(y),
                 "r"(z), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w)
                 : "memory");
  else if (words == 4)
    asm volatile("sust.p.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};" ::"l"(s), "r"(x), "r"(y), "r"(w.x),
                 "r"(w.y), "r"(w.z), "r"(w.w)
                 : "memory");
  else if (words == 2)
    asm volatile("sust.p.2d.v2.b32.zero [%0, {%1, %2}], {%3, %4};" ::"l"(s), "r"(x), "r"(y), "r"(w.x),
                 "r"(w.y)
                 : "memory");
  else
    asm volatile("sust.p.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(y), "r"(w.x) : "memory");
}

/// Operand and starting sample (as a 32-bit word, truncated to the format's width) of lane l's
/// reduction.
__constant__ uint32_t kOperands[8] = {3u,          5u,          10u,         0xffffff9cu,
                                      0x3f800000u, 0x40000000u, 0xffffffffu, 0x80000000u};
const uint32_t kStarts[8] = {5u, 0xfffffffeu, 0x7ffffffeu, 100u, 0x3f800000u, 0xbf800000u, 0u, 0x80000000u};

enum Op : int { kAdd, kMin, kMax, kAnd, kOr };
const char *kOpNames[] = {"add", "min", "max", "and", "or"};

/// Lane l reduces kOperands[l] into sample (l * unit, 0).
__global__ void reduce(cudaSurfaceObject_t s, int op, int unit) {
  const int l = threadIdx.x, x = l * unit;
  const uint32_t v = kOperands[l & 7];
  switch (op) {
  case kAdd:
    asm volatile("sured.p.add.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(0), "r"(v) : "memory");
    break;
  case kMin:
    asm volatile("sured.p.min.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(0), "r"(v) : "memory");
    break;
  case kMax:
    asm volatile("sured.p.max.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(0), "r"(v) : "memory");
    break;
  case kAnd:
    asm volatile("sured.p.and.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(0), "r"(v) : "memory");
    break;
  default:
    asm volatile("sured.p.or.2d.b32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(0), "r"(v) : "memory");
    break;
  }
}

struct Surface {
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t object = 0;
  size_t rowBytes = 0, rows = 0;
};

/// A width x height (x depth) surface array of `f`, every byte 0xAB, or the rows given.
Surface makeSurface(const Format &f, int width, int height, int depth,
                    const std::vector<uint8_t> *rows = nullptr) {
  Surface s;
  CHECK(
      cudaMalloc3DArray(&s.array, &f.desc, make_cudaExtent(width, height, depth), cudaArraySurfaceLoadStore));
  s.rowBytes = static_cast<size_t>(width) * f.bytes;
  s.rows = static_cast<size_t>(height ? height : 1) * (depth ? depth : 1);
  std::vector<uint8_t> fill = rows ? *rows : std::vector<uint8_t>(s.rowBytes * s.rows, 0xAB);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(fill.data(), s.rowBytes, width, height ? height : 1);
  p.dstArray = s.array;
  p.extent = make_cudaExtent(width, height ? height : 1, depth ? depth : 1);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = s.array;
  CHECK(cudaCreateSurfaceObject(&s.object, &r));
  return s;
}

/// Prints every row of the surface as bytes, and frees it.
void printAndFree(const std::string &label, Surface &s, int width, int height, int depth) {
  std::vector<uint8_t> bytes(s.rowBytes * s.rows);
  cudaMemcpy3DParms p = {};
  p.srcArray = s.array;
  p.dstPtr = make_cudaPitchedPtr(bytes.data(), s.rowBytes, width, height ? height : 1);
  p.extent = make_cudaExtent(width, height ? height : 1, depth ? depth : 1);
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&p));
  for (size_t r = 0; r < s.rows; ++r) {
    std::printf("%s row %zu :", label.c_str(), r);
    for (size_t b = 0; b < s.rowBytes; ++b) std::printf(" %02x", bytes[r * s.rowBytes + b]);
    std::printf("\n");
  }
  CHECK(cudaDestroySurfaceObject(s.object));
  CHECK(cudaFreeArray(s.array));
}

/// Whether sust.p's x counts samples (1) or bytes: a float4 surface 8 samples wide, stored at
/// x = 16 in .zero mode, keeps every byte when x counts samples (outside) and changes sample 1
/// when it counts bytes.
int sampleUnit(const Format &f) {
  static int samples = -1;
  if (samples < 0) {
    const Format &f4 = format("f32x4");
    Surface s = makeSurface(f4, 8, 2, 0);
    store<<<1, 1>>>(s.object, k2D, 8, 16, 4);
    CHECK_LAUNCH();
    std::vector<uint8_t> bytes(s.rowBytes * s.rows);
    CHECK(cudaMemcpy2DFromArray(bytes.data(), s.rowBytes, s.array, 0, 0, s.rowBytes, s.rows,
                                cudaMemcpyDeviceToHost));
    samples = bytes[s.rowBytes + 16] == 0xAB;
    std::printf("sust.p x counts %s\n", samples ? "samples" : "bytes");
    CHECK(cudaDestroySurfaceObject(s.object));
    CHECK(cudaFreeArray(s.array));
  }
  return samples ? 1 : f.bytes;
}

/// One launch of `store` on a fresh surface of `f`, then its bytes.
void storeAndPrint(const char *form, const Format &f, Geometry geometry, int width, int height, int depth,
                   int words) {
  Surface s = makeSurface(f, width, height, depth);
  store<<<1, 8>>>(s.object, geometry, width, sampleUnit(f), words);
  CHECK_LAUNCH();
  printAndFree(std::string(form) + " " + f.name, s, width, height, depth);
}

void storeExperiment(const Format &f) { storeAndPrint("sust.p.2d.v4", f, k2D, 8, 2, 0, 4); }

void narrowExperiment() {
  // As many words as the format has channels: one into f32x1, two into u16x2.
  storeAndPrint("sust.p.2d", format("f32x1"), k2D, 8, 2, 0, 1);
  storeAndPrint("sust.p.2d.v2", format("u16x2"), k2D, 8, 2, 0, 2);
}

void geometryExperiment() {
  storeAndPrint("sust.p.1d.v4", format("u8x4"), k1D, 8, 0, 0, 4);
  storeAndPrint("sust.p.3d.v4", format("f16x4"), k3D, 4, 2, 2, 4);
}

void reduceExperiment(const Format &f, Op op) {
  std::vector<uint8_t> row(8 * f.bytes);
  for (int l = 0; l < 8; ++l)
    std::memcpy(&row[l * f.bytes], &kStarts[l], f.bytes); // little-endian truncation
  Surface s = makeSurface(f, 8, 1, 0, &row);
  reduce<<<1, 8>>>(s.object, op, sampleUnit(f));
  CHECK_LAUNCH();
  printAndFree(std::string("sured.p.") + kOpNames[op] + " " + f.name, s, 8, 1, 0);
}

const char *kReduceFormats[] = {"s32x1", "u32x1", "f32x1", "u8x1", "s16x1", "f16x1"};

std::vector<std::string> experiments() {
  std::vector<std::string> all;
  for (const Format &f : kFormats) all.push_back(std::string("store.") + f.name);
  all.push_back("narrow");
  all.push_back("geometry");
  for (const char *f : kReduceFormats)
    for (const char *op : kOpNames) all.push_back(std::string("reduce.") + op + "." + f);
  return all;
}

void run(const std::string &name) {
  if (name.rfind("store.", 0) == 0) return storeExperiment(format(name.c_str() + 6));
  if (name == "narrow") return narrowExperiment();
  if (name == "geometry") return geometryExperiment();
  if (name.rfind("reduce.", 0) == 0) {
    const std::string rest = name.substr(7);
    const std::string op = rest.substr(0, rest.find('.')), f = rest.substr(rest.find('.') + 1);
    for (int o = 0; o < 5; ++o)
      if (op == kOpNames[o]) return reduceExperiment(format(f.c_str()), static_cast<Op>(o));
  }
  std::fprintf(stderr, "unknown experiment '%s' (--list names them)\n", name.c_str());
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list") == 0) {
      for (const std::string &e : experiments()) std::printf("%s\n", e.c_str());
      return 0;
    }
    chosen.push_back(argv[i]);
  }
  if (chosen.empty()) chosen = experiments();
  for (const std::string &e : chosen) run(e);
  CHECK(cudaDeviceSynchronize());
  // Not a verdict: the bytes above are compared with the GPU's by the test suite.
  std::printf("PASSED\n");
  return 0;
}
