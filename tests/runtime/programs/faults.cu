// Kernel faults and what follows them: the launch itself succeeds, the next call that would
// observe the kernel returns the error a GPU returns, and every call after that returns it too
// (it is sticky); each fault is printed compute-sanitizer style as it happens and collected in
// the report. The mode is the first argument; the program exits 0 when it saw what a GPU gives.
//
// clang-format off
// RUN: %ptxvm exec --report %t.oob.json -- %bin/faults oob > %t.oob.out 2> %t.oob.err
// RUN: FileCheck %s --check-prefix=OOB < %t.oob.out
// RUN: FileCheck %s --check-prefix=OOB-ERR < %t.oob.err
// RUN: %json %t.oob.json | FileCheck %s --check-prefix=OOB-JSON
// OOB: launch returned cudaSuccess
// OOB-NEXT: synchronize returned cudaErrorIllegalAddress
// OOB-NEXT: then cudaMalloc returned cudaErrorIllegalAddress
// OOB-NEXT: then cudaMemcpy returned cudaErrorIllegalAddress
// OOB-NEXT: then cudaGetLastError returned cudaErrorIllegalAddress
// OOB-NEXT: then cudaGetLastError returned cudaErrorIllegalAddress
// OOB-NEXT: an illegal memory access was encountered
// OOB-ERR: ========= Invalid __global__ write of size 4 bytes
// OOB-ERR-NEXT: =========     at writePast(int*, int) in {{.*}}faults.cu:[[#@LINE+68]] (PTX line {{[0-9]+}} of faults.cu.sm_80.ptx)
// OOB-ERR-NEXT: =========     by thread (100,0,0) in block (0,0,0)
// OOB-ERR-NEXT: =========     Address 0x{{[0-9a-f]+}} is 0 bytes after the nearest allocation at 0x{{[0-9a-f]+}} of size 400 bytes
// OOB-ERR: ========= Kernel writePast(int*, int) (launched by cudaLaunchKernel) failed: cudaErrorIllegalAddress
// OOB-ERR-NEXT: ========= Program hit cudaErrorIllegalAddress (error 700) due to "an illegal memory access was encountered" on CUDA API call to cudaDeviceSynchronize.
// OOB-ERR-NEXT: ========= ERROR SUMMARY: 1 error
// OOB-JSON:      launches[0].kernel = "_Z9writePastPii"
// OOB-JSON-NEXT: launches[0].grid = [1,1,1]
// OOB-JSON-NEXT: launches[0].block = [128,1,1]
// OOB-JSON-NEXT: launches[0].status = "failed"
// OOB-JSON-NEXT: launches[0].error = "cudaErrorIllegalAddress"
// OOB-JSON:      diagnostics[0].kind = "out-of-bounds"
// OOB-JSON-NEXT: diagnostics[0].severity = "error"
// OOB-JSON-NEXT: diagnostics[0].message = "out-of-bounds write of 4 bytes
// OOB-JSON:      diagnostics[0].location.source.file = "{{.*}}faults.cu"
// OOB-JSON-NEXT: diagnostics[0].location.source.line = [[#@LINE+53]]
// OOB-JSON:      diagnostics[0].fields.thread = "100"
//
// RUN: %ptxvm exec -- %bin/faults assert > %t.assert.out 2> %t.assert.err
// RUN: FileCheck %s --check-prefix=ASSERT < %t.assert.out
// RUN: FileCheck %s --check-prefix=ASSERT-ERR < %t.assert.err
// ASSERT: synchronize returned cudaErrorAssert
// ASSERT-ERR: {{.*}}faults.cu:[[#@LINE+51]]: void checkAll(const int *, int): block: [1,0,0], thread: [5,0,0] Assertion `values[i] >= 0` failed.
// ASSERT-ERR-NEXT: ========= device-side assertion `values[i] >= 0` failed in void checkAll(const int *, int) at {{.*}}faults.cu:[[#@LINE+50]]
// ASSERT-ERR-NEXT: =========     at checkAll(int const*, int) in {{.*}}faults.cu:[[#@LINE+49]]
// ASSERT-ERR-NEXT: =========     by thread (5,0,0) in block (1,0,0)
//
// RUN: %ptxvm exec -- %bin/faults trap | FileCheck %s --check-prefix=TRAP
// TRAP: synchronize returned cudaErrorLaunchFailure
// RUN: %ptxvm exec -- %bin/faults mismatch 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: Barrier error detected: barrier 1: this warp expects 96 threads, others of generation 0 expect 64
// MISMATCH: synchronize returned cudaErrorIllegalInstruction
// RUN: %ptxvm exec -- %bin/faults deadlock 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: Barrier error detected: deadlock: no warp of the CTA can run; barrier 1 has 32 of 64 threads
// DEADLOCK: warp 1 lanes 0-31: exited
// DEADLOCK: synchronize returned cudaErrorLaunchTimeout
// RUN: %ptxvm exec -- %bin/faults misaligned | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: synchronize returned cudaErrorMisalignedAddress
//
// The settings reach a program started without ptxvm exec through the environment.
// RUN: env LD_LIBRARY_PATH=%libdir PTXVM_MAX_INSTRUCTIONS=20000 %bin/faults timeout 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// TIMEOUT: Launch stopped: stopped after {{[0-9]+}} warp instructions over all CTAs of the launch (--max-instructions)
// TIMEOUT: synchronize returned cudaErrorLaunchTimeout
// RUN: env LD_LIBRARY_PATH=%libdir PTXVM_RACECHECK=1 %bin/faults race 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: %ptxvm exec -- %bin/faults race 2>&1 | FileCheck %s --check-prefix=NORACE
// RUN: %ptxvm exec -- %bin/faults reset | FileCheck %s --check-prefix=RESET
// RESET: synchronize returned cudaErrorIllegalAddress
// RESET-NEXT: after cudaDeviceReset: cudaMalloc returned cudaSuccess, cudaGetLastError returned cudaSuccess
// RESET-NEXT: a launch after the reset: cudaSuccess
// A device that is not built in, or a GPU without a driver: the program sees none.
// RUN: env LD_LIBRARY_PATH=%libdir PTXVM_DEVICE=gpu PTXVM_CUDA_DRIVER=/nonexistent/libcuda.so.1 %bin/faults race > %t.nodevice.out 2> %t.nodevice.err || true
// RUN: FileCheck %s --check-prefix=NODEVICE < %t.nodevice.out
// RUN: FileCheck %s --check-prefix=NODEVICE-ERR < %t.nodevice.err
// NODEVICE: synchronize returned cudaErrorNoDevice
// NODEVICE-ERR: ptxvm: cannot load the CUDA driver
// NODEVICE-ERR: ptxvm: no device to run on: CUDA calls return cudaErrorNoDevice
// RACE: Race hazard detected: shared-memory race on byte 0
// RACE: synchronize returned cudaSuccess
// NORACE-NOT: Race hazard
// NORACE: synchronize returned cudaSuccess
// clang-format on
#include <cassert>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void writePast(int *data, int n) {
  int i = threadIdx.x;
  if (i <= n) data[i] = i; // one past the end: thread n writes out of bounds
}

__global__ void checkAll(const int *values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(values[i] >= 0);
}

__global__ void trapping() {
  if (threadIdx.x == 3) __trap();
}

__global__ void mismatchedCounts() {
  if (threadIdx.x < 32)
    asm volatile("bar.sync 1, 64;");
  else
    asm volatile("bar.sync 1, 96;");
}

__global__ void partnerExits() {
  if (threadIdx.x >= 32) return;
  asm volatile("bar.sync 1, 64;");
}

__global__ void misaligned(int *data) { *reinterpret_cast<int *>(reinterpret_cast<char *>(data) + 2) = 1; }

__global__ void forever(volatile int *flag) {
  while (*flag == 0) {
  }
}

__global__ void racy(int *out) {
  __shared__ int shared;
  volatile int *cell = &shared; // kept in memory: the compiler may not forward the store
  if (threadIdx.x == 0) *cell = out[1];
  if (threadIdx.x == 32) out[0] = *cell; // another warp, no barrier in between
}

static const char *name(cudaError_t e) { return cudaGetErrorName(e); }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "oob";
  int *data = nullptr;
  cudaMalloc(&data, 100 * sizeof(int));
  cudaError_t expected = cudaSuccess;
  if (!std::strcmp(mode, "oob")) {
    writePast<<<1, 128>>>(data, 100);
    std::printf("launch returned %s\n",
                name(cudaSuccess == cudaGetLastError() ? cudaSuccess : cudaErrorUnknown));
    expected = cudaErrorIllegalAddress;
  } else if (!std::strcmp(mode, "assert")) {
    int values[64];
    for (int i = 0; i < 64; ++i) values[i] = i == 37 ? -1 : i;
    cudaMemcpy(data, values, sizeof values, cudaMemcpyHostToDevice);
    checkAll<<<2, 32>>>(data, 64);
    expected = cudaErrorAssert;
  } else if (!std::strcmp(mode, "trap")) {
    trapping<<<1, 32>>>();
    expected = cudaErrorLaunchFailure;
  } else if (!std::strcmp(mode, "mismatch")) {
    mismatchedCounts<<<1, 96>>>();
    expected = cudaErrorIllegalInstruction;
  } else if (!std::strcmp(mode, "deadlock")) {
    partnerExits<<<1, 64>>>();
    expected = cudaErrorLaunchTimeout;
  } else if (!std::strcmp(mode, "misaligned")) {
    misaligned<<<1, 1>>>(data);
    expected = cudaErrorMisalignedAddress;
  } else if (!std::strcmp(mode, "timeout")) {
    cudaMemset(data, 0, sizeof(int));
    forever<<<1, 32>>>(data);
    expected = cudaErrorLaunchTimeout;
  } else if (!std::strcmp(mode, "race")) {
    racy<<<1, 64>>>(data);
    expected = cudaSuccess;
  } else if (!std::strcmp(mode, "reset")) {
    writePast<<<1, 128>>>(data, 100);
    expected = cudaErrorIllegalAddress;
  }
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize returned %s\n", name(e));
  if (!std::strcmp(mode, "oob")) {
    int *more = nullptr;
    std::printf("then cudaMalloc returned %s\n", name(cudaMalloc(&more, 16)));
    int host[4];
    std::printf("then cudaMemcpy returned %s\n",
                name(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost)));
    std::printf("then cudaGetLastError returned %s\n", name(cudaGetLastError()));
    std::printf("then cudaGetLastError returned %s\n", name(cudaGetLastError()));
    std::printf("%s\n", cudaGetErrorString(e));
  }
  if (!std::strcmp(mode, "reset")) {
    // A reset is a fresh context: the fault is gone, memory and launches work again.
    cudaDeviceReset();
    int *fresh = nullptr;
    cudaError_t malloced = cudaMalloc(&fresh, 128 * sizeof(int));
    std::printf("after cudaDeviceReset: cudaMalloc returned %s, cudaGetLastError returned %s\n", name(malloced),
                name(cudaGetLastError()));
    writePast<<<1, 128>>>(fresh, 128);
    std::printf("a launch after the reset: %s\n", name(cudaDeviceSynchronize()));
  }
  return e == expected ? 0 : 1;
}
