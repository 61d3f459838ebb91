// Graph memory: what ptxvm decides where CUDA leaves it open, and the misuse it refuses. An
// allocation node's address is a live device allocation from the moment the node is made (ptxvm
// does not unmap it between a free node and the next allocation node); cudaFree of it before a
// launch allocated it, twice after, or a free node for memory no graph allocated, is
// cudaErrorInvalidValue; cudaFreeAsync of ordinary memory during capture is not served. Memory
// a launch left allocated outlives the graph and its instantiation until the program frees it.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/graph_memory > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// CHECK-NOT: FAIL
// CHECK: graph_memory: ok
// ERR: cudaFreeAsync during stream capture of memory no graph allocated is not supported
// clang-format on
#include "Inputs/check.h"

__global__ void touch(int *p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  cudaGraph_t graph;
  EXPECT_OK(cudaGraphCreate(&graph, 0));
  cudaMemAllocNodeParams alloc{};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.bytesize = 256;
  cudaGraphNode_t allocNode, freeNode;
  EXPECT_OK(cudaGraphAddMemAllocNode(&allocNode, graph, nullptr, 0, &alloc));
  void *p = alloc.dptr;
  EXPECT(p != nullptr);
  cudaPointerAttributes attributes{};
  EXPECT_OK(cudaPointerGetAttributes(&attributes, p));
  EXPECT(attributes.type == cudaMemoryTypeDevice);
  // Not allocated yet: the program may not free it.
  EXPECT_ERR(cudaFree(p), cudaErrorInvalidValue);
  // Refused parameters: no size, managed memory, another device.
  cudaMemAllocNodeParams bad = alloc;
  bad.bytesize = 0;
  EXPECT_ERR(cudaGraphAddMemAllocNode(&freeNode, graph, nullptr, 0, &bad), cudaErrorInvalidValue);
  bad = alloc;
  bad.poolProps.allocType = cudaMemAllocationTypeManaged;
  EXPECT_ERR(cudaGraphAddMemAllocNode(&freeNode, graph, nullptr, 0, &bad), cudaErrorInvalidValue);
  bad = alloc;
  bad.poolProps.location.id = 1;
  EXPECT_ERR(cudaGraphAddMemAllocNode(&freeNode, graph, nullptr, 0, &bad), cudaErrorInvalidValue);
  // A free node for ordinary memory.
  int *ordinary = nullptr;
  EXPECT_OK(cudaMalloc(&ordinary, 64));
  EXPECT_ERR(cudaGraphAddMemFreeNode(&freeNode, graph, &allocNode, 1, ordinary), cudaErrorInvalidValue);
  // Launched without a free node: the program's afterwards, freed once.
  cudaGraphExec_t exec;
  EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
  EXPECT_OK(cudaGraphLaunch(exec, 0));
  EXPECT_OK(cudaDeviceSynchronize());
  touch<<<1, 64>>>(static_cast<int *>(p));
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT_OK(cudaGraphExecDestroy(exec));
  EXPECT_OK(cudaGraphDestroy(graph));
  int host[64] = {};
  EXPECT_OK(cudaMemcpy(host, p, sizeof host, cudaMemcpyDeviceToHost));
  EXPECT(host[63] == 63);
  EXPECT_OK(cudaFree(p));
  EXPECT_ERR(cudaFree(p), cudaErrorInvalidValue);
  // cudaFreeAsync of ordinary memory in a capture: not served.
  cudaStream_t s;
  EXPECT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaFreeAsync(ordinary, s), cudaErrorNotSupported);
  cudaGraph_t captured = nullptr;
  EXPECT_OK(cudaStreamEndCapture(s, &captured));
  EXPECT_OK(cudaGraphDestroy(captured));
  EXPECT_OK(cudaFree(ordinary));
  return finish("graph_memory");
}
