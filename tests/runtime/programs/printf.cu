// Device printf: CUDA's conversions against the text a GPU prints, the return value, output
// that reaches stdout at synchronisation points (after what the host printed before them), and
// blocks that print in block order whatever the host thread count.
//
// clang-format off
// RUN: %ptxvm exec --threads 4 -- %bin/printf > %t.out
// RUN: FileCheck %s --match-full-lines --strict-whitespace < %t.out
// RUN: %ptxvm exec --threads 1 -- %bin/printf > %t.one
// RUN: diff %t.out %t.one
//
//      CHECK:host: before the first synchronisation
// CHECK-NEXT:ints: 42 -7 4294967295 ff FF 777 x
// CHECK-NEXT:longs: -9000000000 18446744073709551615 123456789012
// CHECK-NEXT:shorts: -1 255
// CHECK-NEXT:floats: 3.141593 3.14 3.141593e+00 3.14159 0x1.8p+1
// CHECK-NEXT:widths: [   12] [12   ] [00012] [+12] [  1.50]
// CHECK-NEXT:strings: [hello] [  hi] [he] (null)
// CHECK-NEXT:percent: 100%
// CHECK-NEXT:star: [    7] [3.1]
// CHECK-NEXT:1 2 3
// CHECK-NEXT:returned 3
// CHECK-NEXT:host: after the synchronisation
// CHECK-NEXT:block 0 thread 0
// CHECK-NEXT:block 0 thread 1
// CHECK-NEXT:block 1 thread 0
// CHECK-NEXT:block 1 thread 1
// CHECK-NEXT:block 2 thread 0
// CHECK-NEXT:block 2 thread 1
// CHECK-NEXT:block 3 thread 0
// CHECK-NEXT:block 3 thread 1
// CHECK-NEXT:printf: ok
// clang-format on
#include "Inputs/check.h"

__device__ const char *names[] = {"hello", "hi"};

__global__ void formats() {
  printf("ints: %d %i %u %x %X %o %c\n", 42, -7, 4294967295u, 255, 255, 0777, 'x');
  printf("longs: %lld %llu %ld\n", -9000000000ll, 18446744073709551615ull, 123456789012l);
  printf("shorts: %hd %hhu\n", (short)-1, (unsigned char)255);
  float pi = 3.14159265f;
  printf("floats: %f %.2f %e %g %a\n", pi, pi, pi, pi, 3.0);
  printf("widths: [%5d] [%-5d] [%05d] [%+d] [%6.2f]\n", 12, 12, 12, 12, 1.5f);
  printf("strings: [%s] [%4s] [%.2s] %s\n", names[0], names[1], names[0], (const char *)nullptr);
  printf("percent: 100%%\n");
  printf("star: [%*d] [%.*f]\n", 5, 7, 1, 3.14159);
}

__global__ void blocks() {
  // Later blocks first: the output still comes in block order.
  for (int spin = 0; spin < 100 * (4 - blockIdx.x); ++spin) __syncthreads();
  printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
}

__global__ void count(int *returned) { *returned = printf("%d %d %d\n", 1, 2, 3); }

int main() {
  int *returned = nullptr;
  EXPECT_OK(cudaMallocManaged(&returned, sizeof(int)));
  formats<<<1, 1>>>();
  count<<<1, 1>>>(returned);
  std::printf("host: before the first synchronisation\n");
  std::fflush(stdout);
  EXPECT_OK(cudaDeviceSynchronize());
  std::printf("returned %d\n", *returned);
  std::printf("host: after the synchronisation\n");
  std::fflush(stdout);
  blocks<<<4, 2>>>();
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT_OK(cudaFree(returned));
  return finish("printf");
}
