// kernels/apps: work on streams runs asynchronously to the host, as on a GPU. Each scene starts a
// kernel that waits for something only the host, a copy or another kernel can give it after
// the launch returned: a host store to mapped pinned memory, cudaMemcpyAsync and cudaMemcpy on
// streams that do not wait for the kernel's, a kernel on another stream, a kernel on another
// host thread's per-thread default stream, and a non-blocking stream beside the legacy default
// stream. Queries say cudaErrorNotReady while a kernel waits. The legacy default stream's implicit
// synchronisation (and events across streams) make later work see what the waiting kernel wrote.
// A waiting kernel gives up after about ten seconds (of clock64 cycles) and reports it, so that a
// runtime that serialises the work fails the check instead of hanging. Every kernel runs once
// before the scenes: with CUDA's lazy module loading (the default), the first launch of a kernel
// waits for the kernels running then, and a GPU would serialise scene 4 (measured on an H200).
#include "app_check.h"

#include <atomic>
#include <thread>

// About ten seconds at GPU clock rates.
constexpr long long kPatienceCycles = 20'000'000'000ll;

struct Outcome {
  int value;    // what the kernel read once released
  int gaveUp;   // it waited kPatienceCycles in vain
  int finished; // it ran to its end
};

// Waits until *flag is nonzero, then records its value plus `add`.
__global__ void waitFor(const volatile int *flag, Outcome *out, int add) {
  const long long start = clock64();
  while (*flag == 0) {
    if (clock64() - start > kPatienceCycles) {
      out->gaveUp = 1;
      out->finished = 1;
      return;
    }
  }
  out->value = *flag + add;
  __threadfence_system();
  out->finished = 1;
}

__global__ void release(volatile int *flag, int value) {
  __threadfence();
  *flag = value;
}

// Writes i * 3 + 1 into data[i], slowly (the work a later stream must wait for).
__global__ void slowFill(int *data, int n, int rounds) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = 0;
    for (int r = 0; r < rounds; ++r) v = (v * 7 + r) & 0xff;
    data[i] = i * 3 + 1 + (v & 0); // v keeps the loop; the value is i * 3 + 1
  }
}

__global__ void countCorrect(const int *data, int n, int *correct) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (data[i] == i * 3 + 1) atomicAdd(correct, 1);
}

// One scene's check of an Outcome (host-visible memory).
void expectReleased(Verdict &verdict, const char *scene, const Outcome &o, int want) {
  verdict.expect(o.finished == 1, "%s: the kernel did not finish", scene);
  verdict.expect(o.gaveUp == 0, "%s: the kernel waited in vain (work was serialised)", scene);
  verdict.expect(o.gaveUp != 0 || o.value == want, "%s: read %d, expected %d", scene, o.value, want);
}

int main() {
  Verdict verdict;
  Outcome *outcomes = nullptr; // mapped pinned memory: the host reads it directly
  CHECK(cudaHostAlloc(&outcomes, 8 * sizeof(Outcome), cudaHostAllocMapped));
  for (int i = 0; i < 8; ++i) outcomes[i] = {0, 0, 0};
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));

  // Every kernel loaded before the scenes (see above).
  int *warm = nullptr;
  CHECK(cudaMalloc(&warm, sizeof(int)));
  release<<<1, 1>>>(warm, 1);
  waitFor<<<1, 1>>>(warm, &outcomes[7], 0);
  slowFill<<<1, 32>>>(warm, 1, 1);
  countCorrect<<<1, 32>>>(warm, 1, warm);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(warm));

  // 1. A host store to mapped pinned memory releases a running kernel; the stream and an event
  //    recorded behind the kernel are not ready until then.
  volatile int *hostFlag = nullptr;
  CHECK(cudaHostAlloc((void **)&hostFlag, sizeof(int), cudaHostAllocMapped));
  *hostFlag = 0;
  cudaEvent_t behind;
  CHECK(cudaEventCreate(&behind));
  waitFor<<<1, 1, 0, a>>>(hostFlag, &outcomes[0], 0);
  CHECK_LAUNCH();
  CHECK(cudaEventRecord(behind, a));
  verdict.expect(cudaStreamQuery(a) == cudaErrorNotReady, "scene 1: stream ready while its kernel waits");
  verdict.expect(cudaEventQuery(behind) == cudaErrorNotReady, "scene 1: event ready while the kernel waits");
  (void)cudaGetLastError(); // whether "not ready" is kept as the last error is not this program's question
  *hostFlag = 41;
  CHECK(cudaEventSynchronize(behind));
  CHECK(cudaStreamQuery(a));
  expectReleased(verdict, "scene 1 (host store)", outcomes[0], 41);

  // 2. cudaMemcpyAsync on another non-blocking stream releases it.
  int *deviceFlag = nullptr;
  CHECK(cudaMalloc(&deviceFlag, sizeof(int)));
  CHECK(cudaMemset(deviceFlag, 0, sizeof(int)));
  static int seven = 7; // pageable: staged when the call is made
  waitFor<<<1, 1, 0, a>>>(deviceFlag, &outcomes[1], 100);
  CHECK_LAUNCH();
  CHECK(cudaMemcpyAsync(deviceFlag, &seven, sizeof(int), cudaMemcpyHostToDevice, b));
  seven = 8; // too late to matter
  CHECK(cudaStreamSynchronize(a));
  expectReleased(verdict, "scene 2 (cudaMemcpyAsync)", outcomes[1], 107);

  // 3. A blocking cudaMemcpy (the legacy default stream, which does not wait for non-blocking
  //    streams) releases it.
  CHECK(cudaMemset(deviceFlag, 0, sizeof(int)));
  waitFor<<<1, 1, 0, a>>>(deviceFlag, &outcomes[2], 200);
  CHECK_LAUNCH();
  const int three = 3;
  CHECK(cudaMemcpy(deviceFlag, &three, sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaStreamSynchronize(a));
  expectReleased(verdict, "scene 3 (cudaMemcpy)", outcomes[2], 203);

  // 4. A kernel on another stream releases it (both resident at once, as on a GPU).
  CHECK(cudaMemset(deviceFlag, 0, sizeof(int)));
  waitFor<<<1, 1, 0, a>>>(deviceFlag, &outcomes[3], 300);
  CHECK_LAUNCH();
  release<<<1, 1, 0, b>>>(deviceFlag, 4);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  expectReleased(verdict, "scene 4 (kernel on another stream)", outcomes[3], 304);

  // 5. A kernel on the legacy default stream is released by one on a non-blocking stream,
  //    issued after it.
  CHECK(cudaMemset(deviceFlag, 0, sizeof(int)));
  waitFor<<<1, 1>>>(deviceFlag, &outcomes[4], 400);
  CHECK_LAUNCH();
  release<<<1, 1, 0, b>>>(deviceFlag, 5);
  CHECK_LAUNCH();
  CHECK(cudaStreamSynchronize(0));
  expectReleased(verdict, "scene 5 (legacy stream, non-blocking release)", outcomes[4], 405);

  // 6. Two host threads, each on its own per-thread default stream: one thread's kernel waits
  //    for the other thread's.
  CHECK(cudaMemset(deviceFlag, 0, sizeof(int)));
  std::atomic<int> launched{0};
  std::thread waiter([&] {
    waitFor<<<1, 1, 0, cudaStreamPerThread>>>(deviceFlag, &outcomes[5], 500);
    launched = cudaGetLastError() == cudaSuccess ? 1 : -1;
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  });
  while (launched.load() == 0) std::this_thread::yield();
  std::thread releaser([&] {
    release<<<1, 1, 0, cudaStreamPerThread>>>(deviceFlag, 6);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  });
  waiter.join();
  releaser.join();
  verdict.expect(launched.load() == 1, "scene 6: the launch failed");
  expectReleased(verdict, "scene 6 (per-thread default streams)", outcomes[5], 506);

  // 7. Ordering: the legacy default stream waits for a blocking stream's slow work, and a
  //    stream that waits for an event sees the work recorded before it.
  const int n = 1 << 14;
  int *data = nullptr, *correct = nullptr;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  CHECK(cudaMallocManaged(&correct, 2 * sizeof(int)));
  correct[0] = correct[1] = 0;
  cudaStream_t blocking;
  CHECK(cudaStreamCreate(&blocking));
  CHECK(cudaMemset(data, 0, n * sizeof(int)));
  slowFill<<<4, 128, 0, blocking>>>(data, n, 2000);
  CHECK_LAUNCH();
  countCorrect<<<16, 128>>>(data, n, &correct[0]); // legacy stream: after slowFill
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  verdict.expectEq(correct[0], n, "legacy stream after a blocking stream: correct elements", 0);
  cudaEvent_t filled;
  CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
  CHECK(cudaMemsetAsync(data, 0, n * sizeof(int), a));
  slowFill<<<4, 128, 0, a>>>(data, n, 2000);
  CHECK(cudaEventRecord(filled, a));
  CHECK(cudaStreamWaitEvent(b, filled, 0));
  countCorrect<<<16, 128, 0, b>>>(data, n, &correct[1]);
  CHECK_LAUNCH();
  CHECK(cudaStreamSynchronize(b));
  verdict.expectEq(correct[1], n, "stream waiting for an event: correct elements", 0);

  CHECK(cudaEventDestroy(behind));
  CHECK(cudaEventDestroy(filled));
  CHECK(cudaStreamDestroy(a));
  CHECK(cudaStreamDestroy(b));
  CHECK(cudaStreamDestroy(blocking));
  CHECK(cudaFree(deviceFlag));
  CHECK(cudaFree(data));
  CHECK(cudaFree(correct));
  CHECK(cudaFreeHost((void *)hostFlag));
  CHECK(cudaFreeHost(outcomes));
  return verdict.finish();
}
