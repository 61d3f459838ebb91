// Launches: arguments of every size and alignment laid out from the PTX signature (structs by
// value included), the configuration checks a GPU makes (non-sticky errors: the next launch
// works), and the launch entry points other than <<<...>>>.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/launch | FileCheck %s
// The same program with its module rewritten by passes before it loads (issue 11):
// RUN: %ptxvm exec --passes=verify,strip-debug,uniform-branches -- %bin/launch | FileCheck %s
// RUN: %status 2 %ptxvm exec --passes=verify,bogus -- %bin/launch 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: ptxvm exec: unknown pass 'bogus'
// CHECK-NOT: FAIL
// CHECK: launch: ok
// clang-format on
#include "Inputs/check.h"

#include <cooperative_groups.h>
#include <cstdint>

namespace cg = cooperative_groups;

struct Packet {
  char tag;
  double value;
  short counts[3];
};

struct alignas(16) Wide {
  float4 v;
  int last;
};

__global__ void mixed(char c, short s, int i, long long l, float f, double d, Packet p, Wide w, bool b,
                      unsigned char u, double *out) {
  out[0] = c;
  out[1] = s;
  out[2] = i;
  out[3] = double(l);
  out[4] = f;
  out[5] = d;
  out[6] = p.tag + p.value + p.counts[0] + p.counts[2];
  out[7] = w.v.x + w.v.w + w.last;
  out[8] = b ? 1.0 : 0.0;
  out[9] = u;
}

__global__ void fill(int *out, int value) {
  int i =
      (blockIdx.z * gridDim.y * gridDim.x + blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y +
      threadIdx.y * blockDim.x + threadIdx.x;
  out[i] = value;
}

__global__ void noArguments(int *flag) { *flag = 1; }

// Each block reads what the next block wrote before the grid-wide barrier.
__global__ void rotate(int *values, int *rotated) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) values[blockIdx.x] = blockIdx.x * 10;
  grid.sync();
  if (threadIdx.x == 0) rotated[blockIdx.x] = values[(blockIdx.x + 1) % gridDim.x];
}

int main() {
  double *out = nullptr;
  EXPECT_OK(cudaMallocManaged(&out, 16 * sizeof(double)));
  Packet p{'A', 0.25, {3, 4, 5}};
  Wide w{make_float4(1.5f, 2, 3, 4.5f), 10};
  mixed<<<1, 1>>>('z', -300, 70000, 1ll << 40, 1.25f, -2.5, p, w, true, 200, out);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(out[0] == 'z' && out[1] == -300 && out[2] == 70000 && out[3] == double(1ll << 40));
  EXPECT(out[4] == 1.25 && out[5] == -2.5 && out[6] == 65 + 0.25 + 3 + 5 && out[7] == 1.5 + 4.5 + 10);
  EXPECT(out[8] == 1.0 && out[9] == 200);

  // Multi-dimensional grids and blocks.
  int *grid = nullptr;
  EXPECT_OK(cudaMallocManaged(&grid, 2 * 3 * 4 * 8 * 2 * sizeof(int)));
  fill<<<dim3(2, 3, 4), dim3(8, 2)>>>(grid, 9);
  EXPECT_OK(cudaDeviceSynchronize());
  int nines = 0;
  for (int i = 0; i < 2 * 3 * 4 * 16; ++i) nines += grid[i] == 9;
  EXPECT(nines == 2 * 3 * 4 * 16);

  // What a GPU refuses to launch; none of it is sticky.
  fill<<<1, 1025>>>(grid, 1);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill<<<1, dim3(32, 1, 65)>>>(grid, 1);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill<<<dim3(1, 65536), 1>>>(grid, 1);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill<<<0, 32>>>(grid, 1);
  EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  EXPECT_OK(cudaDeviceSynchronize());
  fill<<<1, 32>>>(grid, 2);
  EXPECT_OK(cudaGetLastError());
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(grid[0] == 2 && grid[31] == 2 && grid[32] == 9);

  // cudaLaunchKernel, cudaLaunchKernelExC, cudaLaunchCooperativeKernel.
  int *flag = nullptr;
  EXPECT_OK(cudaMallocManaged(&flag, sizeof(int)));
  *flag = 0;
  void *args[] = {&flag};
  EXPECT_OK(cudaLaunchKernel(reinterpret_cast<const void *>(noArguments), dim3(1), dim3(1), args, 0, 0));
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(*flag == 1);
  int seven = 7;
  void *fillArgs[] = {&grid, &seven};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(16);
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  EXPECT_OK(cudaLaunchKernelExC(&config, reinterpret_cast<const void *>(fill), fillArgs));
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(grid[0] == 7 && grid[31] == 7 && grid[32] == 9);
  int eight = 8;
  void *coopArgs[] = {&grid, &eight};
  EXPECT_OK(
      cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(fill), dim3(4), dim3(64), coopArgs, 0, 0));
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(grid[255] == 8);
  int *rotated = nullptr;
  void *rotateArgs[] = {&grid, &rotated};
  EXPECT_OK(cudaMallocManaged(&rotated, 8 * sizeof(int)));
  EXPECT_OK(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(rotate), dim3(8), dim3(64), rotateArgs,
                                        0, 0));
  EXPECT_OK(cudaDeviceSynchronize());
  for (int b = 0; b < 8; ++b) EXPECT(rotated[b] == (b + 1) % 8 * 10);
  EXPECT_OK(cudaFree(rotated));
  int perSm = 0, sms = 0;
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fill, 1024, 0));
  EXPECT_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  EXPECT_ERR(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(fill), dim3(perSm * sms + 1),
                                         dim3(1024), coopArgs, 0, 0),
             cudaErrorCooperativeLaunchTooLarge);
  int notAKernel = 0;
  EXPECT_ERR(cudaLaunchKernel(&notAKernel, dim3(1), dim3(1), args, 0, 0), cudaErrorInvalidDeviceFunction);
  EXPECT_OK(cudaFree(out));
  EXPECT_OK(cudaFree(grid));
  EXPECT_OK(cudaFree(flag));
  return finish("launch");
}
