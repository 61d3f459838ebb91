// kernels/apps: memory in CUDA graphs. An allocation node (its address known when the node is
// made, read back from the node) used by a kernel and a copy, then freed by a free node,
// launched three times; cudaMallocAsync and cudaFreeAsync captured from a stream as allocation
// and free nodes; an allocation a graph leaves allocated, used after the launch by ordinary
// stream work and freed with cudaFreeAsync before the next launch, then with cudaFree; the
// device's graph memory attributes (printed: their values are the implementation's) while an
// allocation is held and after all is freed and trimmed. Every launch's results are checked.
#include "app_check.h"

#include <cstdio>

constexpr int kN = 1024;

__global__ void iota(int *data, int n, int base) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] = base + i;
}

__global__ void addInto(const int *from, int *to, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) to[i] += from[i];
}

struct GraphMemUse {
  unsigned long long used, usedHigh, reserved, reservedHigh;
};

GraphMemUse graphMemUse(const char *when) {
  GraphMemUse u{};
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &u.used));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &u.usedHigh));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &u.reserved));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &u.reservedHigh));
  std::printf("graph memory %s: used %llu (high %llu), reserved %llu (high %llu)\n", when, u.used, u.usedHigh,
              u.reserved, u.reservedHigh);
  return u;
}

int main() {
  Verdict verdict;
  int *hostOut = nullptr, *out = nullptr;
  CHECK(cudaMallocHost(&hostOut, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int n = kN;

  // ---- 1. Allocation and free nodes ----
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams alloc{};
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.poolProps.location.id = 0;
    alloc.bytesize = kN * sizeof(int);
    cudaGraphNode_t allocNode, fillNode, copyNode, freeNode;
    CHECK(cudaGraphAddMemAllocNode(&allocNode, graph, nullptr, 0, &alloc));
    int *scratch = static_cast<int *>(alloc.dptr);
    verdict.expect(scratch != nullptr, "the allocation node's address");
    int base = 100;
    void *args[] = {&scratch, &n, &base};
    cudaKernelNodeParams k{};
    k.func = reinterpret_cast<void *>(iota);
    k.gridDim = dim3(4);
    k.blockDim = dim3(128);
    k.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&fillNode, graph, &allocNode, 1, &k));
    CHECK(cudaGraphAddMemcpyNode1D(&copyNode, graph, &fillNode, 1, hostOut, scratch, kN * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&freeNode, graph, &copyNode, 1, scratch));
    cudaMemAllocNodeParams got{};
    CHECK(cudaGraphMemAllocNodeGetParams(allocNode, &got));
    verdict.expect(got.dptr == scratch && got.bytesize == kN * sizeof(int),
                   "allocation node parameters read back");
    void *freed = nullptr;
    CHECK(cudaGraphMemFreeNodeGetParams(freeNode, &freed));
    verdict.expect(freed == scratch, "free node's address read back");
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(allocNode, &type));
    verdict.expect(type == cudaGraphNodeTypeMemAlloc, "allocation node type %d", static_cast<int>(type));
    CHECK(cudaGraphNodeGetType(freeNode, &type));
    verdict.expect(type == cudaGraphNodeTypeMemFree, "free node type %d", static_cast<int>(type));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 3; ++launch) {
      for (int i = 0; i < kN; ++i) hostOut[i] = -1;
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaStreamSynchronize(s));
      for (int i = 0; i < kN; ++i)
        if (!verdict.expectEq(hostOut[i], 100 + i, "allocation node launch", launch * kN + i)) break;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // ---- 2. Stream-ordered allocation captured ----
  {
    CHECK(cudaMemset(out, 0, kN * sizeof(int)));
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *tmp = nullptr;
    CHECK(cudaMallocAsync(&tmp, kN * sizeof(int), s));
    verdict.expect(tmp != nullptr, "cudaMallocAsync's address during capture");
    iota<<<4, 128, 0, s>>>(tmp, kN, 7);
    addInto<<<4, 128, 0, s>>>(tmp, out, kN);
    CHECK(cudaFreeAsync(tmp, s));
    CHECK(cudaStreamEndCapture(s, &graph));
    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    cudaGraphNode_t nodes[8];
    size_t listed = 8;
    CHECK(cudaGraphGetNodes(graph, nodes, &listed));
    int allocs = 0, frees = 0;
    for (size_t i = 0; i < listed; ++i) {
      cudaGraphNodeType type;
      CHECK(cudaGraphNodeGetType(nodes[i], &type));
      allocs += type == cudaGraphNodeTypeMemAlloc;
      frees += type == cudaGraphNodeTypeMemFree;
    }
    verdict.expect(count == 4 && allocs == 1 && frees == 1, "captured graph: %zu nodes, %d alloc, %d free",
                   count, allocs, frees);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaStreamSynchronize(s));
    }
    CHECK(cudaMemcpy(hostOut, out, kN * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i)
      if (!verdict.expectEq(hostOut[i], 2 * (7 + i), "captured allocation, two launches", i)) break;
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // ---- 3. An allocation the graph leaves to the program ----
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams alloc{};
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.bytesize = kN * sizeof(int);
    cudaGraphNode_t allocNode, fillNode;
    CHECK(cudaGraphAddMemAllocNode(&allocNode, graph, nullptr, 0, &alloc));
    int *kept = static_cast<int *>(alloc.dptr);
    int base = 5000;
    void *args[] = {&kept, &n, &base};
    cudaKernelNodeParams k{};
    k.func = reinterpret_cast<void *>(iota);
    k.gridDim = dim3(2);
    k.blockDim = dim3(256);
    k.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&fillNode, graph, &allocNode, 1, &k));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
      CHECK(cudaMemset(out, 0, kN * sizeof(int)));
      CHECK(cudaGraphLaunch(exec, s));
      // The memory is the program's after the launch: ordinary work reads it, then frees it.
      addInto<<<4, 128, 0, s>>>(kept, out, kN);
      CHECK_LAUNCH();
      if (launch == 0) {
        CHECK(cudaStreamSynchronize(s));
        GraphMemUse u = graphMemUse("while a launch's allocation is held");
        verdict.expect(u.used >= kN * sizeof(int) && u.usedHigh >= u.used && u.reservedHigh >= u.reserved,
                       "graph memory in use while held");
        CHECK(cudaFreeAsync(kept, s));
        CHECK(cudaStreamSynchronize(s));
      } else {
        CHECK(cudaStreamSynchronize(s));
      }
      CHECK(cudaMemcpy(hostOut, out, kN * sizeof(int), cudaMemcpyDeviceToHost));
      for (int i = 0; i < kN; ++i)
        if (!verdict.expectEq(hostOut[i], 5000 + i, "memory left allocated by a launch", launch * kN + i))
          break;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    // Still allocated after the graph is gone: the program frees it.
    CHECK(cudaFree(kept));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaDeviceGraphMemTrim(0));
  GraphMemUse after = graphMemUse("after every allocation was freed and the memory trimmed");
  verdict.expect(after.used == 0 && after.usedHigh >= kN * sizeof(int), "graph memory after the frees");
  unsigned long long zero = 0;
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  after = graphMemUse("after the high was reset");
  verdict.expect(after.usedHigh == after.used, "used high after a reset");

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(out));
  CHECK(cudaFreeHost(hostOut));
  return verdict.finish();
}
