// kernels/apps: device printf. Four launches, each followed by cudaDeviceSynchronize, print in an
// order the program's structure guarantees: one printing thread per launch, or threads of one
// CTA separated by __syncthreads, or a loop in one thread. Covers %d %i %u %x %X %o %c %s %f %e
// %E %g %% with widths, precision and flags, long and long long, floats (passed as double), a
// string argument, a call from a __noinline__ function in a divergent branch, and many arguments.
// The program compares nothing itself: the test compares stdout with expected/printf.stdout.
// `printf --host` prints the same lines with the host's printf (how the expected file was made).
#include "app_check.h"

#include <cstring>

__host__ __device__ void printFormats(int seed) {
  printf("ints: %d %i %u %x %X %o\n", -42 * seed, 17, 4000000000u, 255, 48879, 8);
  printf("widths: [%5d] [%-5d] [%05d] [%+d] [%x]\n", 42, 42, 42, 42 * seed, 0xabcdu);
  printf("long: %ld %lld %llu %lx\n", -1234567890123L, 9000000000000000000LL, 18446744073709551615ULL,
         0xdeadbeefcafeL);
  printf("chars: %c%c%c %s [%8s] [%-8s] %%\n", 'p', 't', 'x', "vm", "right", "left");
  printf("floats: %f %.3f %10.4f %e %.2E %g %g\n", 3.14159265f, 2.5f, -1.0f / 3.0f, 123456.789, 0.000123,
         0.0001, 1e20);
  printf("many: %d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 * seed);
}

__host__ __device__ void printGreeting(int warp, int lane, int tid) {
  printf("warp %d lane %2d: thread %d of the CTA\n", warp, lane, tid);
}

__host__ __device__ __noinline__ void printFromFunction(int cta, int tid, float value) {
  printf("cta %d thread %d computed %.5f\n", cta, tid, value);
}

__host__ __device__ void printRow(int row) {
  printf("row %d: %3d %5d %#x\n", row, row * row, row * row * row, row);
}

__global__ void formats(int seed) { printFormats(seed); }

// Threads 0, 33 and 66 print, one per barrier interval: the order is fixed.
__global__ void greetings() {
  for (int warp = 0; warp < 3; ++warp) {
    if (threadIdx.x == warp * 32 + warp) printGreeting(warp, threadIdx.x % 32, threadIdx.x);
    __syncthreads();
  }
}

__global__ void oneThreadOfMany(const float *values) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 2 && threadIdx.x == 37) printFromFunction(blockIdx.x, threadIdx.x, values[i] * 0.5f);
}

__global__ void rows(int count) {
  if (threadIdx.x == 0)
    for (int row = 0; row < count; ++row) printRow(row);
}

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--host") == 0) {
    printFormats(1);
    for (int warp = 0; warp < 3; ++warp) printGreeting(warp, warp, warp * 32 + warp);
    printFromFunction(2, 37, (2 * 64 + 37) * 0.25f * 0.5f);
    for (int row = 0; row < 5; ++row) printRow(row);
    std::printf("PASSED\n");
    return 0;
  }
  float values[4 * 64];
  for (int i = 0; i < 4 * 64; ++i) values[i] = i * 0.25f;
  float *dValues;
  CHECK(cudaMalloc(&dValues, sizeof(values)));
  CHECK(cudaMemcpy(dValues, values, sizeof(values), cudaMemcpyHostToDevice));

  std::fflush(stdout);
  formats<<<1, 1>>>(1);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  greetings<<<1, 96>>>();
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  oneThreadOfMany<<<4, 64>>>(dValues);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  rows<<<1, 32>>>(5);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(dValues));
  std::printf("PASSED\n");
  return 0;
}
