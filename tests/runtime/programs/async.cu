// Asynchronous streams: what ptxvm decides where CUDA leaves a choice, and the errors of stream
// work. Each kernel that waits for the host is released by a store to mapped pinned memory after
// its launch returned (under a runtime that ran launches to completion, the program would hang).
// Checked: printf output of two kernels running at once comes out whole per kernel (in the order
// they ended, which is a race: the second releases the first before it ends); cudaEventElapsedTime is not ready while its work waits; cudaFreeAsync frees after
// the stream's earlier work; a callback may not wait for the device; a fault on a non-blocking
// stream reaches its synchronisation, and is sticky from then on; work behind it is skipped, and
// a callback behind it is told the error. Built with --default-stream per-thread (async_ptds),
// the default stream of each host thread is its own: one thread's kernel on it waits for
// another thread's.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/async_ptds | FileCheck %s --check-prefix=PTDS
// PTDS: per-thread default streams: released
// PTDS: async: ok
// RUN: %ptxvm exec -- %bin/async > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// Each kernel's lines together (two runs of one name), each in its own order.
// RUN: grep -oE '^(first|second) ' %t.out | uniq | wc -l | FileCheck %s --check-prefix=WHOLE
// RUN: grep '^first ' %t.out | FileCheck %s --check-prefix=FIRST
// RUN: grep '^second ' %t.out | FileCheck %s --check-prefix=SECOND
// WHOLE: {{^ *2$}}
// FIRST: first 0
// FIRST-NEXT: first 1
// FIRST-NEXT: first 2
// SECOND: second 0
// SECOND-NEXT: second 1
// CHECK-NOT: FAIL
// CHECK: callback after the fault: cudaErrorIllegalAddress
// CHECK: async: ok
// ERR: Kernel {{.*}}writeAt{{.*}} failed: cudaErrorIllegalAddress
// clang-format on
#include "Inputs/check.h"

#include <cstring>
#include <thread>

// Waits for *flag (host memory the device maps) to be nonzero.
__global__ void waitHost(const volatile int *flag) {
  while (*flag == 0) {
  }
}

__global__ void printFirst(const volatile int *released) {
  printf("first 0\n");
  while (*released == 0) {
  }
  printf("first 1\n");
  printf("first 2\n");
}

__global__ void printSecond(volatile int *released) {
  printf("second 0\n");
  printf("second 1\n");
  *released = 1;
}

__global__ void writeAt(int *p, int value) { *p = value; }

static void CUDART_CB waitsInside(cudaStream_t stream, cudaError_t, void *result) {
  *static_cast<cudaError_t *>(result) = cudaStreamSynchronize(stream);
}

static void CUDART_CB reportStatus(cudaStream_t, cudaError_t status, void *) {
  std::printf("callback after the fault: %s\n", cudaGetErrorName(status));
}

static void CUDART_CB mustNotRun(void *ran) { *static_cast<int *>(ran) = 1; }

__global__ void setDevice(int *p) { *(volatile int *)p = 1; }

int main() {
  int *flag = nullptr;
  EXPECT_OK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  *flag = 0;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  {
    int *deviceFlag = nullptr;
    EXPECT_OK(cudaMalloc(&deviceFlag, sizeof(int)));
    EXPECT_OK(cudaMemset(deviceFlag, 0, sizeof(int)));
    EXPECT_OK(cudaDeviceSynchronize());
    waitHost<<<1, 1>>>(deviceFlag); // this thread's default stream
    std::thread other([&] {
      setDevice<<<1, 1>>>(deviceFlag); // the other thread's: not ordered after the first
      EXPECT_OK(cudaStreamSynchronize(0));
    });
    other.join();
    EXPECT_OK(cudaStreamSynchronize(0));
    std::printf("per-thread default streams: released\n");
    EXPECT_OK(cudaFree(deviceFlag));
  }
#endif
  cudaStream_t a, b;
  EXPECT_OK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  EXPECT_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));

  // Two kernels at once: the first waits for the second; each one's output stays whole.
  int *released = nullptr;
  EXPECT_OK(cudaMalloc(&released, sizeof(int)));
  EXPECT_OK(cudaMemset(released, 0, sizeof(int)));
  printFirst<<<1, 1, 0, a>>>(released);
  printSecond<<<1, 1, 0, b>>>(released);
  EXPECT_OK(cudaDeviceSynchronize());

  // Timing is not ready while the work between the events waits.
  cudaEvent_t start, stop;
  EXPECT_OK(cudaEventCreate(&start));
  EXPECT_OK(cudaEventCreate(&stop));
  EXPECT_OK(cudaEventRecord(start, a));
  waitHost<<<1, 1, 0, a>>>(flag);
  EXPECT_OK(cudaEventRecord(stop, a));
  float ms = -1;
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
  EXPECT_ERR(cudaStreamQuery(a), cudaErrorNotReady);
  // A callback behind the waiting kernel may not wait for the device.
  cudaError_t inside = cudaSuccess;
  EXPECT_OK(cudaStreamAddCallback(a, waitsInside, &inside, 0));
  // Freed in stream order: the waiting kernel's stream frees it after the kernel.
  int *late = nullptr;
  EXPECT_OK(cudaMalloc(&late, sizeof(int)));
  writeAt<<<1, 1, 0, a>>>(late, 5);
  EXPECT_OK(cudaFreeAsync(late, a));
  *flag = 1;
  EXPECT_OK(cudaStreamSynchronize(a));
  EXPECT(inside == cudaErrorNotPermitted);
  EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0.0f);
  EXPECT_ERR(cudaFree(late), cudaErrorInvalidValue); // already freed

  // A fault on a non-blocking stream: the launch succeeds, its stream's synchronisation sees
  // it; work issued behind it does not run, and a callback is told.
  *flag = 0;
  int ran = 0;
  waitHost<<<1, 1, 0, b>>>(flag);
  writeAt<<<1, 1, 0, b>>>(reinterpret_cast<int *>(16), 1);
  EXPECT_OK(cudaGetLastError());
  EXPECT_OK(cudaLaunchHostFunc(b, mustNotRun, &ran));
  EXPECT_OK(cudaStreamAddCallback(b, reportStatus, nullptr, 0));
  *flag = 1;
  EXPECT_ERR(cudaStreamSynchronize(b), cudaErrorIllegalAddress);
  EXPECT(ran == 0);
  int *after = nullptr;
  EXPECT_ERR(cudaMalloc(&after, 4), cudaErrorIllegalAddress); // sticky
  return finish("async");
}
