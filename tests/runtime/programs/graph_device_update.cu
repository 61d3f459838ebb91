// Device-updatable kernel nodes (cudaLaunchAttributeDeviceUpdatableKernelNode, issue 15 item 1):
// a kernel node of an instantiated graph whose parameters, grid and enabling device code changes
// (cudaGraphKernelNodeSetParam, SetGridDim, SetEnabled, UpdatesApply); a node launched after the
// update in the same graph launch uses it, and so does the next launch. Run natively on an H200
// too (tests/gpu/driver-log/results/native-graph_device_update.out).
//
// clang-format off
// RUN: %ptxvm exec -- %bin/graph_device_update | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: graph_device_update: ok
// clang-format on
#include "Inputs/check.h"

__global__ void fill(int *out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] += value; }

// Before `fill` runs: its value becomes `value`, its grid `blocks`, and with `disable` it is off.
__global__ void updater(cudaGraphDeviceNode_t node, int value, unsigned blocks, int disable) {
  if (threadIdx.x != 0) return;
  cudaGraphKernelNodeSetParam(node, sizeof(int *), value);
  // (The union's dim3 has a constructor, which deletes the struct's default one: the array is
  // filled in place, member by member.)
  alignas(cudaGraphKernelNodeUpdate) unsigned char storage[2 * sizeof(cudaGraphKernelNodeUpdate)] = {};
  auto *updates = reinterpret_cast<cudaGraphKernelNodeUpdate *>(storage);
  updates[0].node = node;
  updates[0].field = cudaGraphKernelNodeFieldGridDim;
  updates[0].updateData.gridDim = dim3(blocks);
  updates[1].node = node;
  updates[1].field = cudaGraphKernelNodeFieldEnabled;
  updates[1].updateData.isEnabled = disable ? 0 : 1;
  cudaGraphKernelNodeUpdatesApply(updates, 2);
}

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const int threads = 32, most = 4;
  int *out = nullptr;
  EXPECT_OK(cudaMalloc(&out, most * threads * sizeof(int)));
  EXPECT_OK(cudaMemset(out, 0, most * threads * sizeof(int)));

  cudaGraph_t graph = nullptr;
  EXPECT_OK(cudaGraphCreate(&graph, 0));
  int one = 1;
  void *fillArgs[] = {&out, &one};
  cudaKernelNodeParams fillParams{};
  fillParams.func = reinterpret_cast<void *>(fill);
  fillParams.gridDim = dim3(1);
  fillParams.blockDim = dim3(threads);
  fillParams.kernelParams = fillArgs;
  cudaGraphNode_t fillNode = nullptr, updaterNode = nullptr;
  EXPECT_OK(cudaGraphAddKernelNode(&fillNode, graph, nullptr, 0, &fillParams));
  cudaLaunchAttributeValue v{};
  v.deviceUpdatableKernelNode.deviceUpdatable = 1;
  EXPECT_OK(cudaGraphKernelNodeSetAttribute(fillNode, cudaLaunchAttributeDeviceUpdatableKernelNode, &v));
  cudaLaunchAttributeValue got{};
  EXPECT_OK(cudaGraphKernelNodeGetAttribute(fillNode, cudaLaunchAttributeDeviceUpdatableKernelNode, &got));
  cudaGraphDeviceNode_t devNode = got.deviceUpdatableKernelNode.devNode;
  EXPECT(got.deviceUpdatableKernelNode.deviceUpdatable == 1 && devNode != nullptr);

  // The updater runs first: fill then adds 5 over 3 blocks.
  int value = 5, disable = 0;
  unsigned blocks = 3;
  void *updaterArgs[] = {&devNode, &value, &blocks, &disable};
  cudaKernelNodeParams updaterParams{};
  updaterParams.func = reinterpret_cast<void *>(updater);
  updaterParams.gridDim = dim3(1);
  updaterParams.blockDim = dim3(32);
  updaterParams.kernelParams = updaterArgs;
  EXPECT_OK(cudaGraphAddKernelNode(&updaterNode, graph, nullptr, 0, &updaterParams));
  EXPECT_OK(cudaGraphAddDependencies(graph, &updaterNode, &fillNode, nullptr, 1));
  cudaGraphExec_t exec = nullptr;
  EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
  EXPECT_OK(cudaGraphLaunch(exec, nullptr));
  int host[most * threads] = {};
  EXPECT_OK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 5 && host[3 * threads - 1] == 5 && host[3 * threads] == 0);

  // The updater's own parameters changed from the host: now it disables fill.
  disable = 1;
  EXPECT_OK(cudaGraphExecKernelNodeSetParams(exec, updaterNode, &updaterParams));
  EXPECT_OK(cudaGraphLaunch(exec, nullptr));
  EXPECT_OK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 5 && host[3 * threads - 1] == 5);

  // Enabled again with 4 blocks adding 7.
  disable = 0;
  value = 7;
  blocks = 4;
  EXPECT_OK(cudaGraphExecKernelNodeSetParams(exec, updaterNode, &updaterParams));
  EXPECT_OK(cudaGraphLaunch(exec, nullptr));
  EXPECT_OK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 12 && host[4 * threads - 1] == 7);

  // Only 0 and 1 say whether a node is device-updatable.
  v.deviceUpdatableKernelNode.deviceUpdatable = 2;
  EXPECT_ERR(cudaGraphKernelNodeSetAttribute(fillNode, cudaLaunchAttributeDeviceUpdatableKernelNode, &v),
             cudaErrorInvalidValue);
  EXPECT_OK(cudaGraphExecDestroy(exec));
  EXPECT_OK(cudaGraphDestroy(graph));
  EXPECT_OK(cudaFree(out));
  return finish("graph_device_update");
}
