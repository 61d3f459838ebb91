// Separate compilation (nvcc -rdc=true, with Inputs/rdc_library.cu): the runtime links the PTX
// of both translation units, as the driver's JIT linker would.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/rdc | FileCheck %s
// CHECK: main: kernel starts
// CHECK-NEXT: library: scaled(4)
// CHECK-NEXT: main: got 12, local 7
// CHECK-NOT: FAIL
// CHECK: rdc: ok
// clang-format on
#include "Inputs/check.h"

extern __device__ int scale;
__device__ int scaled(int x);
static __device__ int localTwist(int x) { return x + 3; }

__global__ void useLibrary(int *out) {
  printf("main: kernel starts\n");
  int v = scaled(4);
  printf("main: got %d, local %d\n", v, localTwist(4));
  out[0] = v;
  out[1] = scale;
}

int main() {
  int *out = nullptr;
  EXPECT_OK(cudaMallocManaged(&out, 2 * sizeof(int)));
  useLibrary<<<1, 1>>>(out);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(out[0] == 12 && out[1] == 3);
  int newScale = 5;
  EXPECT_OK(cudaMemcpyToSymbol(scale, &newScale, sizeof newScale));
  useLibrary<<<1, 1>>>(out);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(out[0] == 20 && out[1] == 5);
  EXPECT_OK(cudaFree(out));
  return finish("rdc");
}
