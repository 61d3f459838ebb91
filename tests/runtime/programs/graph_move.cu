// Child graphs moved into their node (cudaGraphChildGraphOwnershipMove, issue 15 item 1): the
// graph runs as part of its parent, nodes other than memory allocations and frees can still be
// added to it, and everything CUDA forbids of a moved graph is refused: destroying or
// instantiating it on its own, adding it to another graph (moved or cloned), updating an
// instantiation with it, giving it allocation nodes; and, where ptxvm is stricter than a GPU,
// moving a graph into itself. Run natively on an H200 to check the errors.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/graph_move | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: graph_move: ok
// clang-format on
#include "Inputs/check.h"

__global__ void add(int *values, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] += by;
}

__global__ void scale(int *values, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] *= by;
}

static cudaGraphNodeParams kernelNode(void *function, void **args) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = function;
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(64);
  p.kernel.kernelParams = args;
  return p;
}

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const int n = 64;
  int *values = nullptr;
  EXPECT_OK(cudaMalloc(&values, n * sizeof(int)));
  EXPECT_OK(cudaMemset(values, 0, n * sizeof(int)));
  int count = n, one = 1, three = 3, ten = 10;
  void *addOne[] = {&values, &count, &one};
  void *timesThree[] = {&values, &count, &three};
  void *addTen[] = {&values, &count, &ten};

  cudaGraph_t parent = nullptr, child = nullptr, other = nullptr;
  EXPECT_OK(cudaGraphCreate(&parent, 0));
  EXPECT_OK(cudaGraphCreate(&child, 0));
  EXPECT_OK(cudaGraphCreate(&other, 0));
  cudaGraphNode_t first = nullptr, scaled = nullptr, moved = nullptr, last = nullptr, node = nullptr;
  cudaGraphNodeParams p = kernelNode(reinterpret_cast<void *>(add), addOne);
  EXPECT_OK(cudaGraphAddNode(&first, parent, nullptr, nullptr, 0, &p));
  p = kernelNode(reinterpret_cast<void *>(scale), timesThree);
  EXPECT_OK(cudaGraphAddNode(&scaled, child, nullptr, nullptr, 0, &p));

  // Moved: the node holds the graph itself.
  cudaGraphNodeParams move{};
  move.type = cudaGraphNodeTypeGraph;
  move.graph.graph = child;
  move.graph.ownership = cudaGraphChildGraphOwnershipMove;
  EXPECT_OK(cudaGraphAddNode(&moved, parent, &first, nullptr, 1, &move));
  EXPECT(move.graph.graph == child);
  cudaGraph_t held = nullptr;
  EXPECT_OK(cudaGraphChildGraphNodeGetGraph(moved, &held));
  EXPECT(held == child);

  // What a moved graph may not do (the errors an H200 gives).
  cudaGraphExec_t exec = nullptr;
  EXPECT_ERR(cudaGraphInstantiate(&exec, child, 0), cudaErrorNotSupported);
  EXPECT_ERR(cudaGraphAddChildGraphNode(&node, other, nullptr, 0, child), cudaErrorNotSupported);
  EXPECT_ERR(cudaGraphAddNode(&node, other, nullptr, nullptr, 0, &move), cudaErrorNotSupported);
  cudaMemAllocNodeParams alloc{};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.bytesize = 1024;
  EXPECT_ERR(cudaGraphAddMemAllocNode(&node, child, nullptr, 0, &alloc), cudaErrorNotSupported);
  EXPECT_ERR(cudaGraphDestroy(child), cudaErrorInvalidValue);
  // Other nodes may still be added to it: they run with the parent.
  p = kernelNode(reinterpret_cast<void *>(add), addTen);
  EXPECT_OK(cudaGraphAddNode(&last, child, &scaled, nullptr, 1, &p));

  EXPECT_OK(cudaGraphInstantiate(&exec, parent, 0));
  EXPECT_OK(cudaGraphLaunch(exec, nullptr));
  EXPECT_OK(cudaGraphLaunch(exec, nullptr));
  int got[n] = {};
  EXPECT_OK(cudaMemcpy(got, values, sizeof got, cudaMemcpyDeviceToHost));
  // (0 + 1) * 3 + 10 = 13, then (13 + 1) * 3 + 10 = 52.
  EXPECT(got[0] == 52 && got[n - 1] == 52);
  // Nor may it update an instantiation.
  cudaGraphExecUpdateResultInfo info{};
  EXPECT_ERR(cudaGraphExecUpdate(exec, child, &info), cudaErrorInvalidValue);

  EXPECT_OK(cudaGraphExecDestroy(exec));
  EXPECT_OK(cudaGraphDestroy(parent)); // and the moved graph with it
  // A graph moved into itself would own itself: ptxvm refuses (an H200 accepts it, and the graph
  // is then unusable).
  cudaGraph_t self = nullptr;
  EXPECT_OK(cudaGraphCreate(&self, 0));
  move.graph.graph = self;
  EXPECT_ERR(cudaGraphAddNode(&node, self, nullptr, nullptr, 0, &move), cudaErrorInvalidValue);
  EXPECT_OK(cudaGraphDestroy(self));
  EXPECT_OK(cudaGraphDestroy(other));
  EXPECT_OK(cudaFree(values));
  return finish("graph_move");
}
