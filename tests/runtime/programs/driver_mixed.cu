// Runtime and driver calls in one program share one state (issue 15, item 3): the runtime's
// primary context is the driver's current context, memory from either API is used by the other,
// a stream made by one orders work issued by the other, a module the driver loads runs beside the
// program's own kernels, and driver failures leave the runtime's last error alone.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/driver_mixed | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: driver_mixed: ok
// clang-format on
#include "Inputs/check.h"
#include "Inputs/check_driver.h"

#include <cstring>

static const char kTwice[] = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 p, .param .u32 n)
{
  .reg .pred %q;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [n];
  setp.ge.u32 %q, %r1, %r2;
  @%q bra DONE;
  ld.param.u64 %rd1, [p];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  shl.b32 %r4, %r3, 1;
  st.global.u32 [%rd3], %r4;
DONE:
  ret;
}
)";

__global__ void addOne(int *values, int n) {
  if (threadIdx.x < n) values[threadIdx.x] += 1;
}

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  // The runtime's first call makes the primary context current.
  EXPECT_OK(cudaFree(nullptr));
  CUcontext current = nullptr, primary = nullptr;
  EXPECT_CU(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_CU(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  EXPECT(current != nullptr && current == primary);

  // Memory from the runtime, filled by the driver, used by a <<<...>>> kernel and a driver module.
  int *values = nullptr;
  constexpr int n = 32;
  EXPECT_OK(cudaMalloc(&values, n * sizeof(int)));
  EXPECT_CU(cuMemsetD32(reinterpret_cast<CUdeviceptr>(values), 5, n), CUDA_SUCCESS);
  addOne<<<1, n>>>(values, n);
  CUmodule module = nullptr;
  CUfunction twice = nullptr;
  EXPECT_CU(cuModuleLoadData(&module, kTwice), CUDA_SUCCESS);
  EXPECT_CU(cuModuleGetFunction(&twice, module, "twice"), CUDA_SUCCESS);
  // A runtime stream orders the driver's launch after the runtime's copy.
  cudaStream_t stream = nullptr;
  EXPECT_OK(cudaStreamCreate(&stream));
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  EXPECT_OK(cudaMemcpyAsync(values, host, sizeof host, cudaMemcpyHostToDevice, stream));
  int count = n;
  void *args[] = {&values, &count};
  EXPECT_CU(cuLaunchKernel(twice, 1, 1, 1, n, 1, 1, 0, stream, args, nullptr), CUDA_SUCCESS);
  EXPECT_OK(cudaStreamSynchronize(stream));
  int back[n] = {};
  EXPECT_CU(cuMemcpyDtoH(back, reinterpret_cast<CUdeviceptr>(values), sizeof back), CUDA_SUCCESS);
  EXPECT(back[0] == 0 && back[7] == 14 && back[31] == 62);

  // Memory from the driver, freed by the runtime; a driver function launched by the runtime.
  CUdeviceptr driverMemory = 0;
  EXPECT_CU(cuMemAlloc(&driverMemory, n * sizeof(int)), CUDA_SUCCESS);
  EXPECT_OK(cudaMemcpy(reinterpret_cast<void *>(driverMemory), host, sizeof host, cudaMemcpyHostToDevice));
  void *args2[] = {&driverMemory, &count};
  EXPECT_OK(cudaLaunchKernel(reinterpret_cast<const void *>(twice), dim3(1), dim3(n), args2, 0, nullptr));
  EXPECT_OK(cudaMemcpy(back, reinterpret_cast<void *>(driverMemory), sizeof back, cudaMemcpyDeviceToHost));
  EXPECT(back[3] == 6);
  // ... though the runtime does not describe one (as on an H200).
  cudaFuncAttributes attributes{};
  EXPECT_ERR(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void *>(twice)),
             cudaErrorInvalidResourceHandle);
  EXPECT_OK(cudaFree(reinterpret_cast<void *>(driverMemory)));
  EXPECT_CU(cuMemFree(reinterpret_cast<CUdeviceptr>(values)), CUDA_SUCCESS);

  // A failing driver call does not become the runtime's last error.
  EXPECT_OK(cudaGetLastError());
  CUdeviceptr nothing = 0;
  EXPECT_CU(cuMemAlloc(&nothing, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_OK(cudaGetLastError());
  // ... and runtime streams are driver streams.
  unsigned flags = 99;
  EXPECT_CU(cuStreamGetFlags(stream, &flags), CUDA_SUCCESS);
  EXPECT(flags == 0);
  EXPECT_CU(cuStreamDestroy(stream), CUDA_SUCCESS);
  EXPECT_CU(cuModuleUnload(module), CUDA_SUCCESS);
  EXPECT_CU(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
  return finish("driver_mixed");
}
