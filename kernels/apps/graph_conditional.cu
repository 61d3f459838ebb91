// kernels/apps: conditional graph nodes and cudaGraphAddNode. A while node whose body kernel
// counts down a device counter and sets the loop's condition (cudaGraphSetConditional from
// device code), launched twice (the handle's default value is applied at each launch); an
// if/else node choosing its body from a device flag; a switch node with three bodies, one run
// for values 0-2 and none for 5; kernel and memset nodes made with the generic cudaGraphAddNode
// and changed with cudaGraphNodeSetParams and cudaGraphExecNodeSetParams; kernel node
// attributes (a grid-synchronizing kernel made cooperative by its node's attribute, priority and
// access-policy values read back, attributes copied between nodes). Misuse: cloning a graph with
// a conditional node, a handle with unknown flags, a while node of two bodies, a stream-only
// attribute on a kernel node.
#include "app_check.h"

#include <cooperative_groups.h>
#include <cstdio>

__global__ void countDown(cudaGraphConditionalHandle handle, int *counter, int *iterations) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int left = --*counter;
    ++*iterations;
    cudaGraphSetConditional(handle, left > 0 ? 1 : 0);
  }
}

__global__ void setCounter(int *counter, int value) {
  if (threadIdx.x == 0) *counter = value;
}

__global__ void chooseFrom(cudaGraphConditionalHandle handle, const int *value) {
  if (threadIdx.x == 0) cudaGraphSetConditional(handle, static_cast<unsigned>(*value));
}

__global__ void writeValue(int *out, int value) {
  out[threadIdx.x] = value + static_cast<int>(threadIdx.x);
}

// Two blocks swap values across a grid-wide barrier: right only in a cooperative launch.
__global__ void swapAcrossGrid(int *slots, int *out) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  if (threadIdx.x == 0) slots[blockIdx.x] = 10 + static_cast<int>(blockIdx.x);
  grid.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = slots[1 - blockIdx.x];
}

cudaGraphNode_t addKernel(cudaGraph_t graph, const cudaGraphNode_t *deps, size_t n, void *func, void **args,
                          unsigned threads) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = func;
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(threads);
  p.kernel.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, graph, deps, nullptr, n, &p));
  return node;
}

cudaGraphNode_t addConditional(cudaGraph_t graph, const cudaGraphNode_t *deps, size_t n,
                               cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                               unsigned size, cudaGraph_t *bodies) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = size;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, graph, deps, nullptr, n, &p));
  for (unsigned i = 0; i < size; ++i) bodies[i] = p.conditional.phGraph_out[i];
  return node;
}

int main() {
  Verdict verdict;
  int *counter, *iterations, *flag, *out;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&iterations, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto readInt = [](const int *p) {
    int v = 0;
    CHECK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    return v;
  };

  // ---- 1. while: count down from 5, twice ----
  {
    cudaGraph_t graph, body[1];
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
    int start = 5;
    void *setArgs[] = {&counter, &start};
    cudaGraphNode_t set = addKernel(graph, nullptr, 0, (void *)setCounter, setArgs, 1);
    addConditional(graph, &set, 1, handle, cudaGraphCondTypeWhile, 1, body);
    void *args[] = {&handle, &counter, &iterations};
    addKernel(body[0], nullptr, 0, (void *)countDown, args, 32);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaMemset(iterations, 0, sizeof(int)));
    for (int launch = 0; launch < 2; ++launch) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    verdict.expectEq(readInt(counter), 0, "while: counter", 0);
    verdict.expectEq(readInt(iterations), 10, "while: body runs over two launches", 0);
    std::printf("while: %d body runs over two launches\n", readInt(iterations));

    // A graph with a conditional node cannot be cloned or become a child graph.
    cudaGraph_t copy = nullptr;
    cudaError_t e = cudaGraphClone(&copy, graph);
    verdict.expect(e != cudaSuccess, "cudaGraphClone of a graph with a conditional node succeeded");
    std::printf("clone: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // ---- 2. if/else on a device flag ----
  {
    cudaGraph_t graph, body[2];
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, cudaGraphCondAssignDefault));
    void *chooseArgs[] = {&handle, &flag};
    cudaGraphNode_t choose = addKernel(graph, nullptr, 0, (void *)chooseFrom, chooseArgs, 1);
    addConditional(graph, &choose, 1, handle, cudaGraphCondTypeIf, 2, body);
    int thenValue = 100, elseValue = 200;
    void *thenArgs[] = {&out, &thenValue}, *elseArgs[] = {&out, &elseValue};
    addKernel(body[0], nullptr, 0, (void *)writeValue, thenArgs, 32);
    addKernel(body[1], nullptr, 0, (void *)writeValue, elseArgs, 32);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int f : {1, 0, 7}) {
      CHECK(cudaMemcpy(flag, &f, sizeof f, cudaMemcpyHostToDevice));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaStreamSynchronize(s));
      std::vector<int> got = hostCopy(out, 32);
      for (int i = 0; i < 32; ++i) verdict.expectEq(got[i], (f ? thenValue : elseValue) + i, "if/else out", i);
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // ---- 3. switch with three bodies ----
  {
    cudaGraph_t graph, body[3];
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, cudaGraphCondAssignDefault));
    void *chooseArgs[] = {&handle, &flag};
    cudaGraphNode_t choose = addKernel(graph, nullptr, 0, (void *)chooseFrom, chooseArgs, 1);
    addConditional(graph, &choose, 1, handle, cudaGraphCondTypeSwitch, 3, body);
    int values[3] = {10, 20, 30};
    void *args[3][2] = {{&out, &values[0]}, {&out, &values[1]}, {&out, &values[2]}};
    for (int i = 0; i < 3; ++i) addKernel(body[i], nullptr, 0, (void *)writeValue, args[i], 32);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int f : {2, 0, 1, 5}) {
      CHECK(cudaMemset(out, 0, 32 * sizeof(int)));
      CHECK(cudaMemcpy(flag, &f, sizeof f, cudaMemcpyHostToDevice));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaStreamSynchronize(s));
      std::vector<int> got = hostCopy(out, 32);
      for (int i = 0; i < 32; ++i) verdict.expectEq(got[i], f < 3 ? values[f] + i : 0, "switch out", i);
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // ---- 4. cudaGraphAddNode's memset node, and the generic setters ----
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNodeParams fill{};
    fill.type = cudaGraphNodeTypeMemset;
    fill.memset.dst = out;
    fill.memset.value = 7;
    fill.memset.elementSize = 4;
    fill.memset.width = 32;
    fill.memset.height = 1;
    cudaGraphNode_t fillNode;
    CHECK(cudaGraphAddNode(&fillNode, graph, nullptr, nullptr, 0, &fill));
    int base = 1000;
    void *args[] = {&out, &base};
    cudaGraphNode_t write = addKernel(graph, &fillNode, 1, (void *)writeValue, args, 16);
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(write, &type));
    verdict.expect(type == cudaGraphNodeTypeKernel, "cudaGraphAddNode made a node of type %d", type);
    fill.memset.value = 9; // the graph's node from now on
    CHECK(cudaGraphNodeSetParams(fillNode, &fill));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    std::vector<int> got = hostCopy(out, 32);
    for (int i = 0; i < 32; ++i) verdict.expectEq(got[i], i < 16 ? base + i : 9, "generic nodes out", i);
    // The instantiation's kernel node takes another argument.
    int other = 5000;
    void *otherArgs[] = {&out, &other};
    cudaGraphNodeParams kernel{};
    kernel.type = cudaGraphNodeTypeKernel;
    kernel.kernel.func = (void *)writeValue;
    kernel.kernel.gridDim = dim3(1);
    kernel.kernel.blockDim = dim3(16);
    kernel.kernel.kernelParams = otherArgs;
    CHECK(cudaGraphExecNodeSetParams(exec, write, &kernel));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    got = hostCopy(out, 32);
    for (int i = 0; i < 32; ++i) verdict.expectEq(got[i], i < 16 ? other + i : 9, "exec-updated out", i);
    CHECK(cudaGraphExecDestroy(exec));

    // Misuse: unknown handle flags, a while node with two bodies.
    cudaGraphConditionalHandle handle;
    cudaError_t e = cudaGraphConditionalHandleCreate(&handle, graph, 0, 2);
    verdict.expect(e != cudaSuccess, "a handle with flags 2 was made");
    std::printf("handle flags 2: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, 0));
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 2;
    cudaGraphNode_t node;
    e = cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &p);
    verdict.expect(e != cudaSuccess, "a while node with two bodies was made");
    std::printf("while of two bodies: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaGraphDestroy(graph));
  }
  // ---- 5. kernel node attributes ----
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    int *slots;
    CHECK(cudaMalloc(&slots, 2 * sizeof(int)));
    void *args[] = {&slots, &out};
    cudaKernelNodeParams kp{};
    kp.func = (void *)swapAcrossGrid;
    kp.gridDim = dim3(2);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphNode_t swap, plain;
    CHECK(cudaGraphAddKernelNode(&swap, graph, nullptr, 0, &kp));
    cudaLaunchAttributeValue v{};
    CHECK(cudaGraphKernelNodeGetAttribute(swap, cudaLaunchAttributeCooperative, &v));
    std::printf("cooperative before: %d\n", v.cooperative);
    v.cooperative = 1;
    CHECK(cudaGraphKernelNodeSetAttribute(swap, cudaLaunchAttributeCooperative, &v));
    v = {};
    v.priority = 3;
    CHECK(cudaGraphKernelNodeSetAttribute(swap, cudaLaunchAttributePriority, &v));
    v = {};
    v.accessPolicyWindow.base_ptr = slots;
    v.accessPolicyWindow.num_bytes = 8;
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaGraphKernelNodeSetAttribute(swap, cudaLaunchAttributeAccessPolicyWindow, &v));
    CHECK(cudaGraphAddKernelNode(&plain, graph, &swap, 1, &kp)); // the same kernel, not cooperative yet
    CHECK(cudaGraphKernelNodeCopyAttributes(plain, swap));
    cudaLaunchAttributeValue got{};
    CHECK(cudaGraphKernelNodeGetAttribute(plain, cudaLaunchAttributeCooperative, &got));
    std::printf("cooperative copied: %d\n", got.cooperative);
    CHECK(cudaGraphKernelNodeGetAttribute(plain, cudaLaunchAttributePriority, &got));
    std::printf("priority copied: %d\n", got.priority);
    // Priorities outside the device's range [greatest, least] = [-5, 0]: kept or clamped?
    for (int priority : {3, -2, -9}) {
      v = {};
      v.priority = priority;
      CHECK(cudaGraphKernelNodeSetAttribute(plain, cudaLaunchAttributePriority, &v));
      CHECK(cudaGraphKernelNodeGetAttribute(plain, cudaLaunchAttributePriority, &got));
      std::printf("priority %d reads back as %d\n", priority, got.priority);
    }
    CHECK(cudaGraphKernelNodeGetAttribute(swap, cudaLaunchAttributeAccessPolicyWindow, &got));
    verdict.expect(got.accessPolicyWindow.base_ptr == slots && got.accessPolicyWindow.num_bytes == 8 &&
                       got.accessPolicyWindow.hitRatio == 0.5f,
                   "the access policy window read back differs");
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    std::vector<int> swapped = hostCopy(out, 2);
    verdict.expectEq(swapped[0], 11, "grid swap", 0);
    verdict.expectEq(swapped[1], 10, "grid swap", 1);
    cudaError_t e = cudaGraphKernelNodeSetAttribute(swap, cudaLaunchAttributeProgrammaticStreamSerialization, &v);
    std::printf("stream-only attribute: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(slots));
  }
  return verdict.finish();
}
