// `ptxvm exec` passes the program's exit status through, and a signal that ends it as 128+N.
//
// clang-format off
// RUN: %status 0 %ptxvm exec -- %bin/status 0
// RUN: %status 7 %ptxvm exec -- %bin/status 7
// RUN: %status 134 %ptxvm exec -- %bin/status abort
// RUN: %status 127 %ptxvm exec -- %bin/no-such-program
// RUN: %status 2 %ptxvm exec --threads lots -- %bin/status 0
// RUN: %status 0 %ptxvm exec --device emulator --threads 2 --seed 5 --schedule=random -- %bin/status 0 --help
// RUN: %ptxvm exec -- %bin/status print --help | FileCheck %s
// RUN: not %ptxvm exec --device tpu -- %bin/status 0 2>&1 | FileCheck %s --check-prefix=DEVICE
// CHECK: device: ptxvm emulator (sm_80), arguments: print --help
// DEVICE: ptxvm exec: unknown device 'tpu' (built in: emulator, {{(cpu, )?}}gpu)
//
// Built with --default-stream per-thread, the program calls the _ptds/_ptsz entry points.
// RUN: %status 5 %ptxvm exec -- %bin/status_ptds 5
// RUN: nm -D %bin/status_ptds | FileCheck %s --check-prefix=PTDS
// PTDS: U __cudaLaunchKernel_ptsz@libcudart.so.13
// PTDS: U cudaMemcpy_ptds@libcudart.so.13
// Built with nvcc's default static runtime, it cannot be served: ptxvm exec says why.
// RUN: %status 99 %ptxvm exec -- %bin/status_static 0 2> %t.static
// RUN: FileCheck %s --check-prefix=STATIC < %t.static
// STATIC: ptxvm exec: warning: {{.*}}status_static has the CUDA runtime linked in statically (nvcc's default), so ptxvm cannot serve it (NVIDIA's runtime accepts only a driver that answers its undocumented integrity check): build it with `nvcc -cudart shared`
// clang-format on
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void noop() {}

int main(int argc, char **argv) {
  noop<<<1, 1>>>();
  int *p = nullptr, v = 3;
  if (cudaMalloc(&p, sizeof v) != cudaSuccess ||
      cudaMemcpy(p, &v, sizeof v, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaStreamSynchronize(0) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
    return 99;
  if (argc > 1 && !std::strcmp(argv[1], "abort")) std::abort();
  if (argc > 1 && !std::strcmp(argv[1], "print")) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("device: %s, arguments:", prop.name);
    for (int i = 1; i < argc; ++i) std::printf(" %s", argv[i]);
    std::printf("\n");
    return 0;
  }
  return argc > 1 ? std::atoi(argv[1]) : 0;
}
