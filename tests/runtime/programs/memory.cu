// Memory: allocation, copies in every direction (sync, async, 2D, 3D, peer, symbol), fills,
// symbol addresses and sizes, pointer attributes, mem info, and the errors bad pointers, sizes
// and directions give.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/memory > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// CHECK-NOT: FAIL
// CHECK: memory: ok
// The failing calls are named on stderr, as compute-sanitizer names them.
// ERR: Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaMemcpy.
// ERR-NOT: ERROR SUMMARY
// clang-format on
#include "Inputs/check.h"

#include <cstdint>
#include <cstring>
#include <vector>

__device__ int deviceTable[64];
__constant__ float coefficients[16];
__device__ unsigned long long counter = 7;

__global__ void scaleByCoefficient(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * coefficients[i % 16];
}

__global__ void fillTable() {
  deviceTable[threadIdx.x] = threadIdx.x * 3;
  if (threadIdx.x == 0) counter += 1;
}

__global__ void sumRows(const float *m, size_t pitch, int width, int height, float *out) {
  int r = threadIdx.x;
  if (r >= height) return;
  const float *row = reinterpret_cast<const float *>(reinterpret_cast<const char *>(m) + r * pitch);
  float s = 0;
  for (int c = 0; c < width; ++c) s += row[c];
  out[r] = s;
}

int main() {
  const int n = 1000;
  std::vector<float> host(n), back(n);
  for (int i = 0; i < n; ++i) host[i] = float(i);

  // Host <-> device, device <-> device, host <-> host, default.
  float *a = nullptr, *b = nullptr;
  EXPECT_OK(cudaMalloc(&a, n * sizeof(float)));
  EXPECT_OK(cudaMalloc(&b, n * sizeof(float)));
  EXPECT(a != nullptr && b != nullptr && a != b);
  EXPECT_OK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  EXPECT_OK(cudaMemcpy(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice));
  EXPECT_OK(cudaMemcpy(back.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(std::memcmp(host.data(), back.data(), n * sizeof(float)) == 0);
  std::vector<float> copy(n);
  EXPECT_OK(cudaMemcpy(copy.data(), host.data(), n * sizeof(float), cudaMemcpyHostToHost));
  EXPECT(copy[999] == 999.0f);
  EXPECT_OK(cudaMemcpy(b + 10, host.data() + 500, 4 * sizeof(float), cudaMemcpyDefault));
  EXPECT_OK(cudaMemcpy(back.data(), b, n * sizeof(float), cudaMemcpyDefault));
  EXPECT(back[10] == 500.0f && back[13] == 503.0f && back[14] == 14.0f);
  // Peer copies within the one device.
  EXPECT_OK(cudaMemcpyPeer(b, 0, a, 0, n * sizeof(float)));
  EXPECT_ERR(cudaMemcpyPeer(b, 1, a, 0, 4), cudaErrorInvalidDevice);

  // Fills.
  EXPECT_OK(cudaMemset(a, 0x3f, 8));
  unsigned char bytes[12];
  EXPECT_OK(cudaMemcpy(bytes, a, sizeof bytes, cudaMemcpyDeviceToHost));
  EXPECT(bytes[0] == 0x3f && bytes[7] == 0x3f && bytes[8] == 0x00);

  // Async on a stream, then a synchronisation.
  cudaStream_t s;
  EXPECT_OK(cudaStreamCreate(&s));
  EXPECT_OK(cudaMemcpyAsync(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  EXPECT_OK(cudaMemsetAsync(b, 0, n * sizeof(float), s));
  EXPECT_OK(cudaMemcpyAsync(back.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  EXPECT_OK(cudaStreamSynchronize(s));
  EXPECT(back[123] == 123.0f);

  // __constant__ and __device__ variables through their symbols.
  float coeff[16];
  for (int i = 0; i < 16; ++i) coeff[i] = 0.5f * float(i);
  EXPECT_OK(cudaMemcpyToSymbol(coefficients, coeff, sizeof coeff));
  float two = 2.0f;
  EXPECT_OK(cudaMemcpyToSymbol(coefficients, &two, sizeof two, 15 * sizeof(float)));
  scaleByCoefficient<<<(n + 255) / 256, 256>>>(a, b, n);
  EXPECT_OK(cudaGetLastError());
  EXPECT_OK(cudaMemcpy(back.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(back[3] == 3.0f * 1.5f && back[15] == 15.0f * 2.0f && back[17] == 17.0f * 0.5f);
  float readBack[16];
  EXPECT_OK(cudaMemcpyFromSymbol(readBack, coefficients, sizeof readBack));
  EXPECT(readBack[4] == 2.0f && readBack[15] == 2.0f);
  // A __constant__ variable has a device address too: copies through it
  // read and write what kernels see.
  void *coefficientsAddress = nullptr;
  EXPECT_OK(cudaGetSymbolAddress(&coefficientsAddress, coefficients));
  float fourth = 0;
  EXPECT_OK(cudaMemcpy(&fourth, static_cast<float *>(coefficientsAddress) + 4, sizeof fourth,
                       cudaMemcpyDeviceToHost));
  EXPECT(fourth == 2.0f);
  const float three = 3.0f;
  EXPECT_OK(cudaMemcpy(static_cast<float *>(coefficientsAddress) + 15, &three, sizeof three,
                       cudaMemcpyHostToDevice));
  EXPECT_OK(cudaMemcpyFromSymbol(readBack, coefficients, sizeof readBack));
  EXPECT(readBack[15] == 3.0f);
  cudaPointerAttributes constAttributes{};
  EXPECT_OK(cudaPointerGetAttributes(&constAttributes, coefficientsAddress));
  EXPECT(constAttributes.type == cudaMemoryTypeDevice);
  EXPECT_ERR(cudaMemcpyToSymbol(coefficients, coeff, sizeof coeff, 4), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpyToSymbol(coefficients, coeff, 4, 0, cudaMemcpyDeviceToHost),
             cudaErrorInvalidMemcpyDirection);

  fillTable<<<1, 64>>>();
  int table[64];
  EXPECT_OK(cudaMemcpyFromSymbol(table, deviceTable, sizeof table));
  EXPECT(table[0] == 0 && table[63] == 189);
  unsigned long long count = 0;
  EXPECT_OK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
  EXPECT(count == 8); // initialised to 7 by the module, +1 by the kernel
  void *tableAddress = nullptr;
  size_t tableSize = 0;
  EXPECT_OK(cudaGetSymbolAddress(&tableAddress, deviceTable));
  EXPECT_OK(cudaGetSymbolSize(&tableSize, deviceTable));
  EXPECT(tableSize == sizeof table);
  int fifth = 0;
  EXPECT_OK(cudaMemcpy(&fifth, static_cast<int *>(tableAddress) + 5, sizeof fifth, cudaMemcpyDeviceToHost));
  EXPECT(fifth == 15);
  EXPECT_OK(cudaMemcpyToSymbolAsync(deviceTable, host.data(), 4 * sizeof(int), 0, cudaMemcpyHostToDevice, s));
  EXPECT_OK(cudaMemcpyFromSymbolAsync(table, deviceTable, sizeof table, 0, cudaMemcpyDeviceToHost, s));
  EXPECT_OK(cudaStreamSynchronize(s));
  EXPECT(std::memcmp(table, host.data(), 4 * sizeof(int)) == 0 && table[4] == 12);
  int notASymbol = 0;
  EXPECT_ERR(cudaMemcpyToSymbol(notASymbol, coeff, 4), cudaErrorInvalidSymbol);

  // 2D: pitched allocation, copies and fills by rows.
  const int width = 7, height = 5;
  float *m = nullptr;
  size_t pitch = 0;
  EXPECT_OK(cudaMallocPitch(reinterpret_cast<void **>(&m), &pitch, width * sizeof(float), height));
  EXPECT(pitch >= width * sizeof(float) && pitch % 256 == 0);
  float grid[height][width];
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) grid[r][c] = float(r * 10 + c);
  EXPECT_OK(cudaMemcpy2D(m, pitch, grid, width * sizeof(float), width * sizeof(float), height,
                         cudaMemcpyHostToDevice));
  sumRows<<<1, 32>>>(m, pitch, width, height, b);
  float sums[height];
  EXPECT_OK(cudaMemcpy(sums, b, sizeof sums, cudaMemcpyDeviceToHost));
  EXPECT(sums[0] == 21.0f && sums[4] == 40 * 7 + 21.0f);
  EXPECT_OK(cudaMemset2D(m, pitch, 0, 2 * sizeof(float), height)); // clear the first two columns
  float out[height][width];
  EXPECT_OK(cudaMemcpy2DAsync(out, width * sizeof(float), m, pitch, width * sizeof(float), height,
                              cudaMemcpyDeviceToHost, s));
  EXPECT_OK(cudaStreamSynchronize(s));
  EXPECT(out[3][0] == 0.0f && out[3][1] == 0.0f && out[3][2] == 32.0f);
  EXPECT_ERR(
      cudaMemcpy2D(m, 8, grid, width * sizeof(float), width * sizeof(float), height, cudaMemcpyHostToDevice),
      cudaErrorInvalidPitchValue);

  // 3D: a 4x3x2 block of ints in a pitched volume.
  cudaExtent extent = make_cudaExtent(4 * sizeof(int), 3, 2);
  cudaPitchedPtr volume;
  EXPECT_OK(cudaMalloc3D(&volume, extent));
  EXPECT_OK(cudaMemset3D(volume, 0, extent));
  int cube[2][3][4];
  for (int i = 0; i < 24; ++i) (&cube[0][0][0])[i] = i;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(cube, 4 * sizeof(int), 4, 3);
  p.dstPtr = volume;
  p.extent = extent;
  p.kind = cudaMemcpyHostToDevice;
  EXPECT_OK(cudaMemcpy3D(&p));
  int cubeBack[2][3][4] = {};
  p.srcPtr = volume;
  p.dstPtr = make_cudaPitchedPtr(cubeBack, 4 * sizeof(int), 4, 3);
  p.kind = cudaMemcpyDeviceToHost;
  EXPECT_OK(cudaMemcpy3D(&p));
  EXPECT(std::memcmp(cube, cubeBack, sizeof cube) == 0);
  // A 3D copy whose rows leave the slice (height 4 of a 3-row slice) is refused before any
  // byte moves.
  int untouched[2][3][4] = {};
  p.dstPtr = make_cudaPitchedPtr(untouched, 4 * sizeof(int), 4, 3);
  p.extent = make_cudaExtent(4 * sizeof(int), 4, 2);
  EXPECT_ERR(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.extent = make_cudaExtent(4 * sizeof(int), 3, 2);
  p.dstPos = make_cudaPos(8, 0, 0); // 8 + 16 bytes > the 16-byte pitch
  EXPECT_ERR(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.dstPos = make_cudaPos(0, 0, 0);
  int zeros[2][3][4] = {};
  EXPECT(std::memcmp(untouched, zeros, sizeof zeros) == 0);
  // Sizes that overflow are invalid values, never a small allocation.
  void *wrapped = nullptr;
  size_t wrappedPitch = 0;
  EXPECT_ERR(cudaMallocPitch(&wrapped, &wrappedPitch, SIZE_MAX - 8, 2), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMallocPitch(&wrapped, &wrappedPitch, size_t(1) << 40, size_t(1) << 40), cudaErrorInvalidValue);
  cudaPitchedPtr wrappedVolume;
  EXPECT_ERR(cudaMalloc3D(&wrappedVolume, make_cudaExtent(size_t(1) << 30, size_t(1) << 20, size_t(1) << 20)),
             cudaErrorInvalidValue);

  // What a GPU refuses.
  EXPECT_ERR(cudaMemcpy(back.data(), a, (n + 1) * sizeof(float), cudaMemcpyDeviceToHost),
             cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpy(a + n - 1, host.data(), 8, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpy(host.data(), a, 16, cudaMemcpyHostToDevice),
             cudaErrorInvalidValue); // swapped arguments
  EXPECT_ERR(cudaMemcpy(a, host.data(), 16, static_cast<cudaMemcpyKind>(7)), cudaErrorInvalidMemcpyDirection);
  EXPECT_ERR(cudaMemset(host.data(), 0, 16), cudaErrorInvalidValue); // not device memory
  EXPECT_ERR(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  void *huge = nullptr;
  cudaError_t e = cudaMalloc(&huge, size_t(1) << 50);
  EXPECT(e == cudaErrorMemoryAllocation);
  EXPECT_ERR(cudaPeekAtLastError(), cudaErrorMemoryAllocation); // the last error stays until read
  EXPECT_OK(cudaGetLastError());                                // EXPECT_ERR read it

  // Mem info follows allocations.
  size_t free0 = 0, total = 0, free1 = 0;
  EXPECT_OK(cudaMemGetInfo(&free0, &total));
  void *big = nullptr;
  EXPECT_OK(cudaMalloc(&big, 64 << 20));
  EXPECT_OK(cudaMemGetInfo(&free1, &total));
  EXPECT(total > 0 && free0 <= total && free0 - free1 == size_t(64 << 20));

  // Pointer attributes.
  cudaPointerAttributes attr;
  EXPECT_OK(cudaPointerGetAttributes(&attr, a + 5));
  EXPECT(attr.type == cudaMemoryTypeDevice && attr.device == 0 && attr.devicePointer == a + 5 &&
         attr.hostPointer == nullptr);
  EXPECT_OK(cudaPointerGetAttributes(&attr, host.data()));
  EXPECT(attr.type == cudaMemoryTypeUnregistered);

  // Freed memory is gone.
  EXPECT_OK(cudaFree(big));
  EXPECT_OK(cudaFree(b));
  EXPECT_ERR(cudaFree(b), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemcpy(back.data(), b, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFree(host.data()), cudaErrorInvalidValue);
  EXPECT_OK(cudaFree(nullptr));
  EXPECT_OK(cudaFree(a));
  EXPECT_OK(cudaFree(m));
  EXPECT_OK(cudaFree(volume.ptr));
  EXPECT_OK(cudaStreamDestroy(s));
  return finish("memory");
}
