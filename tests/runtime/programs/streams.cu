// Streams and events: creation with flags and priorities, work and host callbacks in stream
// order, event timing and queries, waits between streams, and the errors of bad handles.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/streams | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: callback 1 saw 64 ones
// CHECK-NEXT: host function saw 128 ones
// CHECK-NEXT: callback 2 saw 128 ones
// CHECK: streams: ok
// clang-format on
#include "Inputs/check.h"

#include <unistd.h>

struct Probe {
  const int *data;
  int n;
  const char *name;
};

__global__ void setOnes(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 1;
}

__global__ void spin(int *data, int rounds) {
  int v = data[threadIdx.x];
  for (int r = 0; r < rounds; ++r) v = v * 3 + r;
  data[threadIdx.x] = v;
}

static int count(const Probe *p) {
  int ones = 0;
  for (int i = 0; i < p->n; ++i) ones += p->data[i] == 1;
  return ones;
}

static void CUDART_CB onStream(cudaStream_t, cudaError_t status, void *user) {
  auto *p = static_cast<Probe *>(user);
  std::printf("%s saw %d ones%s\n", p->name, count(p), status == cudaSuccess ? "" : " (error)");
}

static void CUDART_CB hostFunction(void *user) {
  auto *p = static_cast<Probe *>(user);
  std::printf("%s saw %d ones\n", p->name, count(p));
}

int main() {
  int least = 1, greatest = 1;
  EXPECT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT(least == 0 && greatest < 0);
  cudaStream_t s1, s2, s3;
  EXPECT_OK(cudaStreamCreate(&s1));
  EXPECT_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  EXPECT_OK(cudaStreamCreateWithPriority(&s3, cudaStreamDefault, greatest - 10));
  unsigned flags = 9;
  int priority = 9;
  EXPECT_OK(cudaStreamGetFlags(s2, &flags));
  EXPECT(flags == cudaStreamNonBlocking);
  EXPECT_OK(cudaStreamGetPriority(s3, &priority));
  EXPECT(priority == greatest); // clamped into the range
  unsigned long long id1 = 0, id2 = 0;
  EXPECT_OK(cudaStreamGetId(s1, &id1));
  EXPECT_OK(cudaStreamGetId(s2, &id2));
  EXPECT(id1 != id2);
  EXPECT_ERR(cudaStreamCreateWithFlags(&s3, 0x80), cudaErrorInvalidValue);

  // Host work in stream order: each callback sees what the kernels before it wrote.
  int *data = nullptr;
  EXPECT_OK(cudaMallocManaged(&data, 256 * sizeof(int)));
  EXPECT_OK(cudaMemset(data, 0, 256 * sizeof(int)));
  Probe first{data, 256, "callback 1"}, second{data, 256, "host function"}, third{data, 256, "callback 2"};
  setOnes<<<1, 64, 0, s1>>>(data, 64);
  EXPECT_OK(cudaStreamAddCallback(s1, onStream, &first, 0));
  setOnes<<<1, 128, 0, s1>>>(data, 128);
  EXPECT_OK(cudaLaunchHostFunc(s1, hostFunction, &second));
  EXPECT_OK(cudaStreamAddCallback(s1, onStream, &third, 0));
  EXPECT_OK(cudaStreamSynchronize(s1));
  EXPECT_ERR(cudaStreamAddCallback(s1, onStream, &third, 1), cudaErrorInvalidValue);
  EXPECT_OK(cudaStreamQuery(s1));

  // Events: timing around work, queries, and waits across streams.
  cudaEvent_t start, stop, untimed, never;
  EXPECT_OK(cudaEventCreate(&start));
  EXPECT_OK(cudaEventCreate(&stop));
  EXPECT_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  EXPECT_OK(cudaEventCreate(&never));
  EXPECT_OK(cudaEventRecord(start, s2));
  spin<<<1, 256, 0, s2>>>(data, 2000);
  EXPECT_OK(cudaEventRecord(stop, s2));
  EXPECT_OK(cudaEventRecord(untimed, s2));
  EXPECT_OK(cudaStreamWaitEvent(s3, stop, 0));
  setOnes<<<1, 32, 0, s3>>>(data, 32);
  EXPECT_OK(cudaEventSynchronize(stop));
  EXPECT_OK(cudaEventQuery(stop));
  EXPECT_OK(cudaEventQuery(never)); // never recorded: nothing to wait for
  float ms = -1;
  EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms > 0.0f && ms < 60000.0f);
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, never), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaEventCreateWithFlags(&never, cudaEventInterprocess), cudaErrorInvalidValue);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(data[0] == 1 && data[100] != 1);

  // The special streams, and handles that are gone.
  EXPECT_OK(cudaStreamSynchronize(cudaStreamLegacy));
  EXPECT_OK(cudaStreamSynchronize(cudaStreamPerThread));
  EXPECT_OK(cudaStreamSynchronize(0));
  EXPECT_OK(cudaStreamDestroy(s3));
  EXPECT_ERR(cudaStreamDestroy(s3), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaStreamSynchronize(s3), cudaErrorInvalidResourceHandle);
  setOnes<<<1, 32, 0, s3>>>(data, 32);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_OK(cudaEventDestroy(never));
  EXPECT_ERR(cudaEventRecord(never, 0), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaEventDestroy(never), cudaErrorInvalidResourceHandle);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusActive;
  EXPECT_OK(cudaStreamIsCapturing(s1, &capture));
  EXPECT(capture == cudaStreamCaptureStatusNone);

  EXPECT_OK(cudaEventDestroy(start));
  EXPECT_OK(cudaEventDestroy(stop));
  EXPECT_OK(cudaEventDestroy(untimed));
  EXPECT_OK(cudaStreamDestroy(s1));
  EXPECT_OK(cudaStreamDestroy(s2));
  EXPECT_OK(cudaFree(data));
  return finish("streams");
}
