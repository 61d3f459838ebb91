// kernels/apps: editing CUDA graphs and their instantiations. A graph whose nodes are made
// without dependencies and then joined by cudaGraphAddDependencies (edges listed, removed and
// added back); node parameters read back (kernel arguments, memset, memcpy, host, events, the
// child graph); an instantiation changed node by node (kernel arguments, memset value, host
// function, a node disabled and enabled again) while the graph stays as it was; the graph
// changed and taken into the instantiation by cudaGraphExecUpdate, and the updates a GPU
// refuses (another topology, another node kind); a clone's node found and destroyed; a cycle
// taken as an edge and refused by cudaGraphInstantiate (and its result by
// cudaGraphInstantiateWithParams); a node added by hand to a capture under way, the stream's
// dependencies set to it. Every launch's results are checked.
#include "app_check.h"

#include <cstdio>
#include <vector>

constexpr int kN = 2048;

__global__ void addScaled(const int *in, int *out, int n, int scale) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] += in[i] * scale;
}

__global__ void negate(int *data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] = -data[i];
}

void CUDART_CB count(void *user) { ++*static_cast<int *>(user); }

// Runs `exec` on `s` and checks hostOut[i] == fill + in[i] * scale (negated when `negated`).
bool launchAndCheck(Verdict &verdict, cudaGraphExec_t exec, cudaStream_t s, const int *hostIn,
                    const int *hostOut, int fill, int scale, bool negated, const char *what) {
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < kN; ++i) {
    int v = fill + hostIn[i] * scale;
    if (negated) v = -v;
    if (!verdict.expectEq(hostOut[i], v, what, i)) return false;
  }
  return true;
}

int main() {
  Verdict verdict;
  int *in = nullptr, *out = nullptr, *hostIn = nullptr, *hostOut = nullptr;
  CHECK(cudaMalloc(&in, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMallocHost(&hostIn, kN * sizeof(int)));
  CHECK(cudaMallocHost(&hostOut, kN * sizeof(int)));
  for (int i = 0; i < kN; ++i) hostIn[i] = i % 31 - 7;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // ---- 1. Nodes first, edges after ----
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t fill, upload, kernel, download, host;
  cudaMemsetParams memset{};
  memset.dst = out;
  memset.value = 1;
  memset.elementSize = 4;
  memset.width = kN;
  memset.height = 1;
  CHECK(cudaGraphAddMemsetNode(&fill, graph, nullptr, 0, &memset));
  CHECK(cudaGraphAddMemcpyNode1D(&upload, graph, nullptr, 0, in, hostIn, kN * sizeof(int),
                                 cudaMemcpyHostToDevice));
  int n = kN, scale = 2;
  void *args[] = {&in, &out, &n, &scale};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void *>(addScaled);
  kp.gridDim = dim3(4);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kernel, graph, nullptr, 0, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&download, graph, nullptr, 0, hostOut, out, kN * sizeof(int),
                                 cudaMemcpyDeviceToHost));
  int hostCalls = 0, otherCalls = 0;
  cudaHostNodeParams hp{count, &hostCalls};
  CHECK(cudaGraphAddHostNode(&host, graph, nullptr, 0, &hp));
  {
    cudaGraphNode_t from[] = {fill, upload, kernel, download};
    cudaGraphNode_t to[] = {kernel, kernel, download, host};
    CHECK(cudaGraphAddDependencies(graph, from, to, nullptr, 4));
  }
  size_t edges = 0, roots = 0, deps = 0, dependents = 0;
  CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
  CHECK(cudaGraphNodeGetDependencies(kernel, nullptr, nullptr, &deps));
  cudaGraphNode_t after[4] = {};
  dependents = 4;
  CHECK(cudaGraphNodeGetDependentNodes(kernel, after, nullptr, &dependents));
  verdict.expectEq(static_cast<long long>(edges), 4, "edges", 0);
  verdict.expectEq(static_cast<long long>(roots), 2, "roots", 0);
  verdict.expectEq(static_cast<long long>(deps), 2, "kernel's dependencies", 0);
  verdict.expect(dependents == 1 && after[0] == download, "kernel's dependents: %zu", dependents);
  {
    cudaGraphNode_t from[4], to[4];
    size_t got = 4;
    CHECK(cudaGraphGetEdges(graph, from, to, nullptr, &got));
    int found = 0;
    for (size_t i = 0; i < got; ++i) found += from[i] == upload && to[i] == kernel;
    verdict.expect(got == 4 && found == 1, "edge upload -> kernel listed (%zu edges)", got);
    // Removed, the edge is gone; added back, the graph is whole again.
    CHECK(cudaGraphRemoveDependencies(graph, &upload, &kernel, nullptr, 1));
    CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
    verdict.expectEq(static_cast<long long>(edges), 3, "edges after a removal", 0);
    cudaError_t e = cudaGraphRemoveDependencies(graph, &upload, &kernel, nullptr, 1);
    verdict.expect(e == cudaErrorInvalidValue, "removing a missing edge: %s", cudaGetErrorName(e));
    (void)cudaGetLastError();
    CHECK(cudaGraphAddDependencies(graph, &upload, &kernel, nullptr, 1));
  }
  // A cycle: refused when added, or when instantiated.
  {
    cudaGraphExec_t cyclic = nullptr;
    cudaError_t added = cudaGraphAddDependencies(graph, &host, &fill, nullptr, 1);
    cudaError_t made = cudaSuccess;
    if (added == cudaSuccess) {
      made = cudaGraphInstantiate(&cyclic, graph, 0);
      CHECK(cudaGraphRemoveDependencies(graph, &host, &fill, nullptr, 1));
    }
    (void)cudaGetLastError();
    std::printf("a cycle: cudaGraphAddDependencies %s, cudaGraphInstantiate %s\n", cudaGetErrorName(added),
                cudaGetErrorName(made));
    // Measured on an H200 (driver 580.159.04): the edge is taken, the instantiation refused.
    verdict.expect(added == cudaSuccess && made == cudaErrorInvalidValue, "a cycle");
  }

  // ---- 2. Parameters read back ----
  {
    cudaKernelNodeParams got{};
    CHECK(cudaGraphKernelNodeGetParams(kernel, &got));
    verdict.expect(got.func == kp.func && got.gridDim.x == 4 && got.blockDim.x == 128 && got.kernelParams &&
                       *static_cast<int *>(got.kernelParams[3]) == 2 &&
                       *static_cast<int *>(got.kernelParams[2]) == kN,
                   "kernel node parameters read back");
    cudaMemsetParams ms{};
    CHECK(cudaGraphMemsetNodeGetParams(fill, &ms));
    verdict.expect(ms.dst == out && ms.value == 1 && ms.elementSize == 4 && ms.width == kN,
                   "memset node parameters read back");
    cudaMemcpy3DParms cp{};
    CHECK(cudaGraphMemcpyNodeGetParams(download, &cp));
    std::printf("memcpy node read back: kind %d, extent %zu x %zu x %zu\n", static_cast<int>(cp.kind),
                cp.extent.width, cp.extent.height, cp.extent.depth);
    verdict.expect((cp.kind == cudaMemcpyDeviceToHost || cp.kind == cudaMemcpyDefault) &&
                       cp.dstPtr.ptr == hostOut && cp.srcPtr.ptr == out &&
                       cp.extent.width * cp.extent.height * cp.extent.depth == kN * sizeof(int),
                   "memcpy node parameters read back (width %zu)", cp.extent.width);
    cudaHostNodeParams h{};
    CHECK(cudaGraphHostNodeGetParams(host, &h));
    verdict.expect(h.fn == count && h.userData == &hostCalls, "host node parameters read back");
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(kernel, &type));
    verdict.expect(type == cudaGraphNodeTypeKernel, "kernel node type %d", static_cast<int>(type));
    cudaError_t e = cudaGraphMemsetNodeGetParams(kernel, &ms);
    verdict.expect(e == cudaErrorInvalidValue, "memset parameters of a kernel node: %s", cudaGetErrorName(e));
    (void)cudaGetLastError();
  }

  // ---- 3. The instantiation changed node by node ----
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 1, 2, false, "first launch");
  {
    int five = 5;
    void *newArgs[] = {&in, &out, &n, &five};
    cudaKernelNodeParams k = kp;
    k.kernelParams = newArgs;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &k));
    five = 99; // copied when set
  }
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 1, 5, false, "launch with the kernel's scale set to 5");
  {
    cudaKernelNodeParams got{};
    CHECK(cudaGraphKernelNodeGetParams(kernel, &got));
    verdict.expectEq(*static_cast<int *>(got.kernelParams[3]), 2, "the graph's node after the exec was set",
                     0);
  }
  cudaMemsetParams three = memset;
  three.value = 3;
  CHECK(cudaGraphExecMemsetNodeSetParams(exec, fill, &three));
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 3, 5, false, "launch with the fill set to 3");
  CHECK(cudaGraphNodeSetEnabled(exec, kernel, 0));
  unsigned enabled = 1;
  CHECK(cudaGraphNodeGetEnabled(exec, kernel, &enabled));
  verdict.expectEq(static_cast<int>(enabled), 0, "kernel node enabled", 0);
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 3, 0, false, "launch with the kernel disabled");
  CHECK(cudaGraphNodeSetEnabled(exec, kernel, 1));
  cudaHostNodeParams other{count, &otherCalls};
  CHECK(cudaGraphExecHostNodeSetParams(exec, host, &other));
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 3, 5, false, "launch with the kernel enabled again");
  verdict.expectEq(hostCalls, 4, "calls of the graph's host function", 0);
  verdict.expectEq(otherCalls, 1, "calls of the host function set on the exec", 0);

  // ---- 4. The graph changed, then taken into the instantiation ----
  {
    int seven = 7;
    void *newArgs[] = {&in, &out, &n, &seven};
    cudaKernelNodeParams k = kp;
    k.kernelParams = newArgs;
    CHECK(cudaGraphKernelNodeSetParams(kernel, &k));
  }
  CHECK(cudaGraphMemsetNodeSetParams(fill, &memset));
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 3, 5, false, "launch before the update");
  cudaGraphExecUpdateResultInfo info{};
  CHECK(cudaGraphExecUpdate(exec, graph, &info));
  verdict.expect(info.result == cudaGraphExecUpdateSuccess, "update result %d",
                 static_cast<int>(info.result));
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 1, 7, false, "launch after the update");
  verdict.expectEq(hostCalls, 5, "the graph's host function runs again after the update", 0);
  {
    // Another topology: one more node.
    cudaGraph_t bigger;
    CHECK(cudaGraphClone(&bigger, graph));
    cudaGraphNode_t extra, clonedDownload;
    CHECK(cudaGraphNodeFindInClone(&clonedDownload, download, bigger));
    void *negArgs[] = {&out, &n};
    cudaKernelNodeParams k = kp;
    k.func = reinterpret_cast<void *>(negate);
    k.kernelParams = negArgs;
    cudaGraphNode_t clonedKernel;
    CHECK(cudaGraphNodeFindInClone(&clonedKernel, kernel, bigger));
    CHECK(cudaGraphAddKernelNode(&extra, bigger, &clonedKernel, 1, &k));
    info = {};
    cudaError_t e = cudaGraphExecUpdate(exec, bigger, &info);
    verdict.expect(
        e == cudaErrorGraphExecUpdateFailure && info.result == cudaGraphExecUpdateErrorTopologyChanged,
        "update to another topology: %s, result %d", cudaGetErrorName(e), static_cast<int>(info.result));
    (void)cudaGetLastError();
    // The clone runs on its own: the new node negates before the copy back.
    CHECK(cudaGraphAddDependencies(bigger, &extra, &clonedDownload, nullptr, 1));
    cudaGraphExec_t biggerExec;
    CHECK(cudaGraphInstantiate(&biggerExec, bigger, 0));
    launchAndCheck(verdict, biggerExec, s, hostIn, hostOut, 1, 7, true, "the clone with a node added");
    CHECK(cudaGraphExecDestroy(biggerExec));
    // Destroying a node takes its edges with it.
    size_t before = 0, nodes = 0;
    CHECK(cudaGraphGetEdges(bigger, nullptr, nullptr, nullptr, &before));
    CHECK(cudaGraphDestroyNode(extra));
    CHECK(cudaGraphGetEdges(bigger, nullptr, nullptr, nullptr, &edges));
    CHECK(cudaGraphGetNodes(bigger, nullptr, &nodes));
    verdict.expect(before == 6 && edges == 4 && nodes == 5,
                   "after destroying a node: %zu -> %zu edges, %zu nodes", before, edges, nodes);
    CHECK(cudaGraphDestroy(bigger));
  }
  {
    // Another node kind in the same place: an empty node for the memset.
    cudaGraph_t changed;
    CHECK(cudaGraphCreate(&changed, 0));
    cudaGraphNode_t a, b, c, d, h;
    CHECK(cudaGraphAddEmptyNode(&a, changed, nullptr, 0));
    CHECK(cudaGraphAddMemcpyNode1D(&b, changed, nullptr, 0, in, hostIn, kN * sizeof(int),
                                   cudaMemcpyHostToDevice));
    CHECK(cudaGraphAddKernelNode(&c, changed, nullptr, 0, &kp));
    CHECK(cudaGraphAddMemcpyNode1D(&d, changed, nullptr, 0, hostOut, out, kN * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddHostNode(&h, changed, nullptr, 0, &hp));
    cudaGraphNode_t from[] = {a, b, c, d};
    cudaGraphNode_t to[] = {c, c, d, h};
    CHECK(cudaGraphAddDependencies(changed, from, to, nullptr, 4));
    info = {};
    cudaError_t e = cudaGraphExecUpdate(exec, changed, &info);
    verdict.expect(e == cudaErrorGraphExecUpdateFailure &&
                       info.result == cudaGraphExecUpdateErrorNodeTypeChanged,
                   "update with a node of another kind: %s, result %d", cudaGetErrorName(e),
                   static_cast<int>(info.result));
    (void)cudaGetLastError();
    CHECK(cudaGraphDestroy(changed));
  }
  // A refused update leaves the instantiation as it was.
  launchAndCheck(verdict, exec, s, hostIn, hostOut, 1, 7, false, "launch after refused updates");

  // ---- 5. Events and child graphs ----
  {
    cudaEvent_t e1, e2;
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventCreate(&e2));
    cudaGraph_t outer, inner;
    CHECK(cudaGraphCreate(&outer, 0));
    CHECK(cudaGraphCreate(&inner, 0));
    cudaGraphNode_t innerKernel, childNode, recordNode;
    CHECK(cudaGraphAddKernelNode(&innerKernel, inner, nullptr, 0, &kp));
    CHECK(cudaGraphAddChildGraphNode(&childNode, outer, nullptr, 0, inner));
    CHECK(cudaGraphAddEventRecordNode(&recordNode, outer, &childNode, 1, e1));
    cudaEvent_t got = nullptr;
    CHECK(cudaGraphEventRecordNodeGetEvent(recordNode, &got));
    verdict.expect(got == e1, "event of the record node");
    CHECK(cudaGraphEventRecordNodeSetEvent(recordNode, e2));
    CHECK(cudaGraphEventRecordNodeGetEvent(recordNode, &got));
    verdict.expect(got == e2, "event of the record node after it was set");
    cudaGraph_t held = nullptr;
    CHECK(cudaGraphChildGraphNodeGetGraph(childNode, &held));
    size_t innerNodes = 0;
    CHECK(cudaGraphGetNodes(held, nullptr, &innerNodes));
    verdict.expect(held != nullptr && held != inner && innerNodes == 1,
                   "the child node's own graph (%zu nodes)", innerNodes);
    // Set the memory up (out = 0, in uploaded), then the outer graph adds in * 2 once.
    CHECK(cudaMemcpy(in, hostIn, kN * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0, kN * sizeof(int)));
    cudaGraphExec_t outerExec;
    CHECK(cudaGraphInstantiate(&outerExec, outer, 0));
    CHECK(cudaGraphLaunch(outerExec, s));
    CHECK(cudaEventSynchronize(e2));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(hostOut, out, kN * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i)
      if (!verdict.expectEq(hostOut[i], hostIn[i] * 2, "the child graph's kernel", i)) break;
    CHECK(cudaGraphExecDestroy(outerExec));
    CHECK(cudaGraphDestroy(outer));
    CHECK(cudaGraphDestroy(inner));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaEventDestroy(e2));
  }

  // ---- 6. Instantiation results, and nodes added to a capture under way ----
  {
    cudaGraphInstantiateParams params{};
    cudaGraphExec_t made = nullptr;
    CHECK(cudaGraphAddDependencies(graph, &host, &fill, nullptr, 1)); // a cycle again
    cudaError_t e = cudaGraphInstantiateWithParams(&made, graph, &params);
    std::printf("a cycle, cudaGraphInstantiateWithParams: %s, result %d\n", cudaGetErrorName(e),
                static_cast<int>(params.result_out));
    verdict.expect(e == cudaErrorInvalidValue && params.result_out == cudaGraphInstantiateInvalidStructure,
                   "instantiating a cycle: %s, result %d", cudaGetErrorName(e),
                   static_cast<int>(params.result_out));
    (void)cudaGetLastError();
    CHECK(cudaGraphRemoveDependencies(graph, &host, &fill, nullptr, 1));
    params = {};
    params.flags = cudaGraphInstantiateFlagUpload;
    params.uploadStream = s;
    CHECK(cudaGraphInstantiateWithParams(&made, graph, &params));
    verdict.expect(params.result_out == cudaGraphInstantiateSuccess, "instantiation result %d",
                   static_cast<int>(params.result_out));
    launchAndCheck(verdict, made, s, hostIn, hostOut, 1, 7, false, "instantiated with parameters");
    CHECK(cudaGraphExecDestroy(made));

    // Capture: out = 0; a kernel node added by hand to the capture's graph after the memset; the
    // stream's next work made to depend on it; the copy back captured.
    CHECK(cudaMemcpy(in, hostIn, kN * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemsetAsync(out, 0, kN * sizeof(int), s));
    cudaStreamCaptureStatus status;
    cudaGraph_t building = nullptr;
    const cudaGraphNode_t *frontier = nullptr;
    size_t numFrontier = 0;
    CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &building, &frontier, nullptr, &numFrontier));
    verdict.expect(building != nullptr && numFrontier == 1, "capture info: %zu dependencies", numFrontier);
    int three = 3;
    void *byHand[] = {&in, &out, &n, &three};
    cudaKernelNodeParams k = kp;
    k.kernelParams = byHand;
    cudaGraphNode_t added;
    CHECK(cudaGraphAddKernelNode(&added, building, frontier, numFrontier, &k));
    CHECK(cudaStreamUpdateCaptureDependencies(s, &added, nullptr, 1, cudaStreamSetCaptureDependencies));
    CHECK(cudaMemcpyAsync(hostOut, out, kN * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaGraph_t captured;
    CHECK(cudaStreamEndCapture(s, &captured));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
    verdict.expectEq(static_cast<long long>(nodes), 3, "nodes of the capture with a node added", 0);
    cudaGraphExec_t capturedExec;
    CHECK(cudaGraphInstantiate(&capturedExec, captured, 0));
    launchAndCheck(verdict, capturedExec, s, hostIn, hostOut, 0, 3, false,
                   "capture with a node added by hand");
    CHECK(cudaGraphExecDestroy(capturedExec));
    CHECK(cudaGraphDestroy(captured));
  }

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFreeHost(hostIn));
  CHECK(cudaFreeHost(hostOut));
  return verdict.finish();
}
