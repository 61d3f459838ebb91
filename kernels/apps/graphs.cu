// kernels/apps: CUDA graphs. One graph built node by node (memset with 4-byte elements, a 1-D
// memcpy from pinned memory, kernels, a child graph, a host node, an empty join node, an event
// record node and an event wait node), instantiated once and launched three times with new
// pinned input each time; one captured from two streams forked and joined by events (kernels,
// cudaMemsetAsync, cudaMemcpyAsync, cudaLaunchHostFunc), launched twice. Checked: every result
// of every launch, the host nodes' order, node counts and types, capture status and info, and the
// errors of capture misuse (waiting for a capturing stream invalidates the capture; a forked
// stream left unjoined).
#include "app_check.h"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

constexpr int kN = 4096;

__global__ void addScaled(const int *in, int *out, int n, int scale) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] += in[i] * scale;
}

__global__ void square(int *data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    data[i] = data[i] * data[i];
}

struct HostLog {
  int count = 0;
  int order[16];
  int seen[16]; // out[7] when the host node ran
};

struct HostCall {
  HostLog *log;
  int id;
  const int *watched;
};

void CUDART_CB record(void *user) {
  auto *call = static_cast<HostCall *>(user);
  call->log->order[call->log->count] = call->id;
  call->log->seen[call->log->count] = *call->watched;
  ++call->log->count;
}

int main() {
  Verdict verdict;
  int *in = nullptr, *out = nullptr, *hostIn = nullptr, *hostOut = nullptr;
  CHECK(cudaMalloc(&in, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMallocHost(&hostIn, kN * sizeof(int)));
  CHECK(cudaMallocHost(&hostOut, kN * sizeof(int)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  // ---- 1. A graph built node by node ----
  // out = 5 (memset); copy hostIn -> in; out += in * 2; child: { out += in * 3; out = out^2 };
  // host node sees out; copy out -> hostOut; event recorded; an empty node joins.
  cudaGraph_t graph, child;
  CHECK(cudaGraphCreate(&graph, 0));
  CHECK(cudaGraphCreate(&child, 0));
  cudaGraphNode_t fill, upload, first, childNode, host, download, recordNode, join;
  cudaMemsetParams memset{};
  memset.dst = out;
  memset.value = 5;
  memset.elementSize = 4;
  memset.width = kN;
  memset.height = 1;
  CHECK(cudaGraphAddMemsetNode(&fill, graph, nullptr, 0, &memset));
  CHECK(cudaGraphAddMemcpyNode1D(&upload, graph, nullptr, 0, in, hostIn, kN * sizeof(int),
                                 cudaMemcpyHostToDevice));
  int n = kN, two = 2, three = 3;
  void *firstArgs[] = {&in, &out, &n, &two};
  cudaKernelNodeParams kernel{};
  kernel.func = reinterpret_cast<void *>(addScaled);
  kernel.gridDim = dim3(8);
  kernel.blockDim = dim3(128);
  kernel.kernelParams = firstArgs;
  cudaGraphNode_t deps[] = {fill, upload};
  CHECK(cudaGraphAddKernelNode(&first, graph, deps, 2, &kernel));
  two = 99; // the arguments were copied when the node was made
  {
    void *childArgs[] = {&in, &out, &n, &three};
    cudaKernelNodeParams k = kernel;
    k.kernelParams = childArgs;
    cudaGraphNode_t a, b;
    CHECK(cudaGraphAddKernelNode(&a, child, nullptr, 0, &k));
    void *squareArgs[] = {&out, &n};
    k.func = reinterpret_cast<void *>(square);
    k.kernelParams = squareArgs;
    CHECK(cudaGraphAddKernelNode(&b, child, &a, 1, &k));
  }
  CHECK(cudaGraphAddChildGraphNode(&childNode, graph, &first, 1, child));
  CHECK(cudaGraphDestroy(child)); // the node keeps its own copy
  HostLog log;
  HostCall graphCall{&log, 1, &hostOut[7]};
  cudaGraphNode_t downloadDeps[] = {childNode};
  CHECK(cudaGraphAddMemcpyNode1D(&download, graph, downloadDeps, 1, hostOut, out, kN * sizeof(int),
                                 cudaMemcpyDeviceToHost));
  cudaHostNodeParams hostParams{record, &graphCall};
  CHECK(cudaGraphAddHostNode(&host, graph, &download, 1, &hostParams));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  CHECK(cudaGraphAddEventRecordNode(&recordNode, graph, &host, 1, done));
  CHECK(cudaGraphAddEmptyNode(&join, graph, &recordNode, 1));
  size_t count = 0, roots = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
  verdict.expectEq(static_cast<long long>(count), 8, "node count", 0);
  verdict.expectEq(static_cast<long long>(roots), 2, "root count", 0);
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(childNode, &type));
  verdict.expect(type == cudaGraphNodeTypeGraph, "child node type %d", static_cast<int>(type));
  CHECK(cudaGraphNodeGetType(fill, &type));
  verdict.expect(type == cudaGraphNodeTypeMemset, "memset node type %d", static_cast<int>(type));
  // One file per process: the suite runs this program under several engines at once.
  char dot[64];
  std::snprintf(dot, sizeof dot, "/tmp/ptxvm-graphs-app-%d.dot", static_cast<int>(getpid()));
  CHECK(cudaGraphDebugDotPrint(graph, dot, 0));
  if (FILE *f = std::fopen(dot, "r")) {
    char head[16] = {};
    verdict.expect(std::fread(head, 1, 7, f) == 7 && std::string(head) == "digraph", "DOT file: %s", head);
    std::fclose(f);
    std::remove(dot);
  } else {
    verdict.expect(false, "no DOT file");
  }
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) {
    for (int i = 0; i < kN; ++i) hostIn[i] = (i % 13) + launch;
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < kN; ++i) {
      const int v = 5 + hostIn[i] * 2 + hostIn[i] * 3;
      if (!verdict.expectEq(hostOut[i], v * v, "graph launch result", launch * kN + i)) break;
    }
  }
  verdict.expectEq(log.count, 3, "host node calls", 0);
  for (int k = 0; k < log.count && k < 3; ++k) {
    const int v = 5 + (7 % 13 + k) * 5;
    verdict.expectEq(log.seen[k], v * v, "what the host node saw", k);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));

  // ---- 2. A graph captured from two streams ----
  // s1: memset out=1; fork s2: out2 = in*4 via kernel on s2; s1: out += in; join; s1: out += out2*1;
  // copy out -> hostOut; host function.
  int *out2 = nullptr;
  CHECK(cudaMalloc(&out2, kN * sizeof(int)));
  cudaEvent_t forked, joined;
  CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
  HostCall capturedCall{&log, 2, &hostOut[7]};
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(s1, &status));
  verdict.expect(status == cudaStreamCaptureStatusActive, "s1 not capturing");
  CHECK(cudaMemcpyAsync(in, hostIn, kN * sizeof(int), cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemsetAsync(out, 0, kN * sizeof(int), s1));
  CHECK(cudaEventRecord(forked, s1));
  CHECK(cudaStreamWaitEvent(s2, forked, 0));
  CHECK(cudaStreamIsCapturing(s2, &status));
  verdict.expect(status == cudaStreamCaptureStatusActive, "s2 did not join the capture");
  CHECK(cudaMemsetAsync(out2, 0, kN * sizeof(int), s2));
  addScaled<<<8, 128, 0, s2>>>(in, out2, kN, 4);
  addScaled<<<8, 128, 0, s1>>>(in, out, kN, 1);
  CHECK(cudaEventRecord(joined, s2));
  CHECK(cudaStreamWaitEvent(s1, joined, 0));
  addScaled<<<8, 128, 0, s1>>>(out2, out, kN, 1);
  CHECK(cudaMemcpyAsync(hostOut, out, kN * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, record, &capturedCall));
  unsigned long long id = 0;
  size_t dependencies = 0;
  CHECK(cudaStreamGetCaptureInfo(s1, &status, &id, nullptr, nullptr, nullptr, &dependencies));
  verdict.expect(status == cudaStreamCaptureStatusActive && id != 0 && dependencies == 1,
                 "capture info: status %d id %llu dependencies %zu", static_cast<int>(status), id,
                 dependencies);
  cudaGraph_t captured = nullptr;
  CHECK(cudaStreamEndCapture(s1, &captured));
  CHECK(cudaStreamIsCapturing(s2, &status));
  verdict.expect(status == cudaStreamCaptureStatusNone, "s2 still capturing after the end");
  verdict.expect(captured != nullptr, "no captured graph");
  CHECK(cudaGraphInstantiate(&exec, captured, 0));
  for (int launch = 0; launch < 2; ++launch) {
    for (int i = 0; i < kN; ++i) hostIn[i] = i % 7 + 10 * launch;
    for (int i = 0; i < kN; ++i) hostOut[i] = -1;
    CHECK(cudaGraphLaunch(exec, s2));
    CHECK(cudaStreamSynchronize(s2));
    for (int i = 0; i < kN; ++i)
      if (!verdict.expectEq(hostOut[i], hostIn[i] * 5, "captured graph result", launch * kN + i)) break;
  }
  verdict.expectEq(log.count, 5, "host calls after the captured launches", 0);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(captured));

  // ---- 3. Capture misuse ----
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  square<<<1, 32, 0, s1>>>(out, 32);
  cudaError_t e = cudaStreamSynchronize(s1);
  verdict.expect(e == cudaErrorStreamCaptureUnsupported, "sync during capture: %s", cudaGetErrorName(e));
  (void)cudaGetLastError();
  captured = nullptr;
  e = cudaStreamEndCapture(s1, &captured);
  verdict.expect(e == cudaErrorStreamCaptureInvalidated && captured == nullptr,
                 "end of an invalidated capture: %s", cudaGetErrorName(e));
  (void)cudaGetLastError();
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  CHECK(cudaEventRecord(forked, s1));
  CHECK(cudaStreamWaitEvent(s2, forked, 0));
  square<<<1, 32, 0, s2>>>(out, 32); // never joined back
  e = cudaStreamEndCapture(s1, &captured);
  verdict.expect(e == cudaErrorStreamCaptureUnjoined, "end with an unjoined stream: %s", cudaGetErrorName(e));
  (void)cudaGetLastError();

  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(out2));
  CHECK(cudaFreeHost(hostIn));
  CHECK(cudaFreeHost(hostOut));
  return verdict.finish();
}
