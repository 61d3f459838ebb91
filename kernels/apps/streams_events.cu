// kernels/apps: streams and events. Four streams (one created non-blocking) each copy a chunk
// of pinned host memory to the device asynchronously, scale it, copy it back, and enqueue a host
// function (cudaLaunchHostFunc) that reads the copied-back chunk: stream order guarantees it is
// complete. Stream 1 waits (cudaStreamWaitEvent) for stream 0's kernel before combining both
// chunks; stream 2 interleaves three host functions with work; stream 0 waits for every other
// stream before the final timing event. Checked: all data, the order of the host functions
// within each stream, what each host function saw, elapsed time >= 0, queries after sync.
#include "app_check.h"

#include <atomic>
#include <climits>
#include <cmath>
#include <vector>

constexpr int kStreams = 4, kChunk = 1 << 15;

__global__ void scale(const int *in, int *out, int n, int factor, int add) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * factor + add;
}

__global__ void combine(const int *a, const int *b, int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] - b[i];
}

// What the host functions record: the order they ran in, and a value each one read.
struct HostLog {
  std::atomic<int> count{0};
  int order[64];
  int seen[64];
};

struct HostCall {
  HostLog *log;
  int id;
  const int *watched; // read by the host function when it runs (null: nothing)
};

void CUDART_CB recordHostCall(void *userData) {
  const HostCall *call = static_cast<const HostCall *>(userData);
  const int slot = call->log->count.fetch_add(1);
  call->log->order[slot] = call->id;
  call->log->seen[call->id] = call->watched ? *call->watched : 0;
}

// Position of a host call in the log, or -1.
int positionOf(const HostLog &log, int id) {
  for (int k = 0; k < log.count.load(); ++k)
    if (log.order[k] == id) return k;
  return -1;
}

int main() {
  const int n = kStreams * kChunk;
  int *hostIn, *hostOut, *hostCombined;
  CHECK(cudaMallocHost(&hostIn, n * sizeof(int)));
  CHECK(cudaMallocHost(&hostOut, n * sizeof(int)));
  CHECK(cudaHostAlloc(&hostCombined, kChunk * sizeof(int), cudaHostAllocDefault));
  Random random(12);
  for (int i = 0; i < n; ++i) hostIn[i] = static_cast<int>(random.range(-1000, 1000));
  // A value no copy produces: a host function that ran too early would see it.
  for (int i = 0; i < n; ++i) hostOut[i] = INT_MIN;
  for (int i = 0; i < kChunk; ++i) hostCombined[i] = INT_MIN;
  int *dIn, *dMid, *dCombined, *dScratch;
  CHECK(cudaMalloc(&dIn, n * sizeof(int)));
  CHECK(cudaMalloc(&dMid, n * sizeof(int)));
  CHECK(cudaMalloc(&dCombined, kChunk * sizeof(int)));
  CHECK(cudaMalloc(&dScratch, kChunk * sizeof(int)));

  cudaStream_t streams[kStreams];
  for (int s = 0; s < kStreams - 1; ++s) CHECK(cudaStreamCreate(&streams[s]));
  CHECK(cudaStreamCreateWithFlags(&streams[kStreams - 1], cudaStreamNonBlocking));
  cudaEvent_t start, stop, produced[kStreams];
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (cudaEvent_t &e : produced) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  HostLog log;
  std::vector<HostCall> calls;
  calls.reserve(16);
  CHECK(cudaEventRecord(start, streams[0]));
  for (int s = 0; s < kStreams; ++s) {
    const size_t offset = static_cast<size_t>(s) * kChunk;
    CHECK(cudaMemcpyAsync(dIn + offset, hostIn + offset, kChunk * sizeof(int), cudaMemcpyHostToDevice,
                          streams[s]));
    scale<<<32, 128, 0, streams[s]>>>(dIn + offset, dMid + offset, kChunk, s + 2, s);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(produced[s], streams[s]));
    CHECK(cudaMemcpyAsync(hostOut + offset, dMid + offset, kChunk * sizeof(int), cudaMemcpyDeviceToHost,
                          streams[s]));
    calls.push_back({&log, s, hostOut + offset + kChunk - 1});
    CHECK(cudaLaunchHostFunc(streams[s], recordHostCall, &calls.back()));
  }
  // Stream 1 combines its chunk with stream 0's, once stream 0's kernel has run.
  CHECK(cudaStreamWaitEvent(streams[1], produced[0], 0));
  combine<<<(kChunk + 255) / 256, 256, 0, streams[1]>>>(dMid, dMid + kChunk, dCombined, kChunk);
  CHECK_LAUNCH();
  CHECK(cudaMemcpyAsync(hostCombined, dCombined, kChunk * sizeof(int), cudaMemcpyDeviceToHost, streams[1]));
  calls.push_back({&log, 10, hostCombined + 17});
  CHECK(cudaLaunchHostFunc(streams[1], recordHostCall, &calls.back()));
  // Stream 2: host functions interleaved with work.
  calls.push_back({&log, 20, nullptr});
  CHECK(cudaLaunchHostFunc(streams[2], recordHostCall, &calls.back()));
  scale<<<8, 128, 0, streams[2]>>>(dIn, dScratch, kChunk, 1, 0);
  CHECK_LAUNCH();
  calls.push_back({&log, 21, nullptr});
  CHECK(cudaLaunchHostFunc(streams[2], recordHostCall, &calls.back()));
  CHECK(cudaMemsetAsync(dScratch, 0, kChunk * sizeof(int), streams[2]));
  calls.push_back({&log, 22, nullptr});
  CHECK(cudaLaunchHostFunc(streams[2], recordHostCall, &calls.back()));
  // Stream 0 waits for all the others, then records the end of the timed region.
  for (int s = 1; s < kStreams; ++s) CHECK(cudaStreamWaitEvent(streams[0], produced[s], 0));
  CHECK(cudaEventRecord(stop, streams[0]));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  for (cudaStream_t s : streams) CHECK(cudaStreamSynchronize(s));
  CHECK(cudaDeviceSynchronize());

  Verdict verdict;
  verdict.expect(std::isfinite(ms) && ms >= 0.0f, "elapsed time %g ms", ms);
  verdict.expect(cudaEventQuery(stop) == cudaSuccess, "cudaEventQuery(stop) after synchronization");
  for (int s = 0; s < kStreams; ++s)
    verdict.expect(cudaStreamQuery(streams[s]) == cudaSuccess,
                   "cudaStreamQuery(stream %d) after synchronization", s);
  for (int i = 0; i < n; ++i) {
    const int s = i / kChunk;
    verdict.expectEq(hostOut[i], hostIn[i] * (s + 2) + s, "scaled", i);
  }
  for (int i = 0; i < kChunk; ++i)
    verdict.expectEq(hostCombined[i], (hostIn[i] * 2) - (hostIn[kChunk + i] * 3 + 1), "combined", i);
  verdict.expectEq(log.count.load(), kStreams + 4, "host functions run", 0);
  for (int s = 0; s < kStreams; ++s)
    verdict.expectEq(log.seen[s], hostOut[(s + 1) * kChunk - 1], "value seen by the host function of stream",
                     s);
  verdict.expectEq(log.seen[10], hostCombined[17], "value seen by the host function after combine", 10);
  const int p1 = positionOf(log, 1), p10 = positionOf(log, 10), p2 = positionOf(log, 2),
            p20 = positionOf(log, 20), p21 = positionOf(log, 21), p22 = positionOf(log, 22);
  verdict.expect(p1 >= 0 && p1 < p10, "stream 1: host functions ran in positions %d, %d", p1, p10);
  verdict.expect(p2 >= 0 && p2 < p20 && p20 < p21 && p21 < p22,
                 "stream 2: host functions ran in positions %d %d %d %d", p2, p20, p21, p22);

  for (cudaEvent_t e : produced) CHECK(cudaEventDestroy(e));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  for (cudaStream_t s : streams) CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dMid));
  CHECK(cudaFree(dCombined));
  CHECK(cudaFree(dScratch));
  CHECK(cudaFreeHost(hostIn));
  CHECK(cudaFreeHost(hostOut));
  CHECK(cudaFreeHost(hostCombined));
  return verdict.finish();
}
