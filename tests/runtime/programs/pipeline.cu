// A CudaDMA-style warp-specialized pipeline (DESIGN.md §4): warp 1 copies tiles into shared
// memory, warp 0 consumes them; named barrier 1 says "full", barrier 2 "empty", each with
// bar.arrive on one side and bar.sync on the other. Run once in the right order (completes, every
// element doubled) and once with the DMA warp syncing on "full" as well (the hardware hangs;
// ptxvm reports barrier-deadlock with its wait-for table and cudaErrorLaunchTimeout). The
// --report-html page shows both launches, the deadlock with its CUDA and PTX lines and the
// wait-for graph, and links the CFG pages and the timeline.
//
// clang-format off
// RUN: rm -rf %t.html && %ptxvm exec --report-html %t.html -- %bin/pipeline | FileCheck %s
// RUN: FileCheck %s --check-prefix=HTML < %t.html/index.html
// RUN: %python %S/../../lit/Inputs/trace_check.py %t.html/trace.json | FileCheck %s --check-prefix=TRACE
// RUN: ls %t.html %t.html/cfg %t.html/ptx | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=CFG < %t.html/cfg/pipeline.cu.sm_80.html
// CHECK: pipeline: ok
// CHECK: pipeline_wrong_order: cudaErrorLaunchTimeout
// HTML: ptxvm exec -- {{.*}}pipeline
// HTML: The program exited with status 0.
// HTML: 2 launches, 1 failed
// HTML: 1 diagnostic: 1 barrier-deadlock
// HTML: <a href="report.json">
// HTML: <a href="trace.json">
// HTML: <td><code>pipeline</code></td><td>1</td><td>0</td>
// HTML: <td><code>pipeline_wrong_order</code></td><td>1</td><td>1</td>
// HTML: <b>barrier-deadlock</b> in pipeline_wrong_order, CTA (0,0,0), warp 0, PTX line {{[0-9]+}}, {{.*}}pipeline.cu:{{[0-9]+}} (inlined at {{.*}}pipeline.cu:[[#COMPUTE_SYNC:]])
// HTML: <figcaption>PTX <a href="ptx/pipeline.cu.sm_80.ptx">{{.*}}<a class="cfg-link" href="cfg/pipeline.cu.sm_80.html#fn-pipeline_wrong_order">CFG of pipeline_wrong_order</a>
// HTML: <mark>{{ *[0-9]+}} bar.sync
// HTML: <figcaption>CUDA {{.*}}pipeline.cu, line {{[0-9]+}}</figcaption>
// HTML: <mark>{{ *[0-9]+}}   asm volatile(&quot;bar.sync
// HTML: <figcaption>CUDA {{.*}}pipeline.cu, line [[#COMPUTE_SYNC]] (line {{[0-9]+}} was inlined here)</figcaption>
// HTML: <mark>{{ *}}[[#COMPUTE_SYNC]]       barSync(1, 64);</mark>
// HTML: Wait-for graph
// HTML: <svg
// HTML: barrier 1
// HTML: needs (exited)
// HTML: <tr class=""><td>0</td><td>0-31</td><td>waiting</td><td>1</td>
// HTML: <tr class="exited"><td>1</td><td>0-31</td><td>exited</td>
// HTML: <a href="cfg/pipeline.cu.sm_80.html">CFG by uniformity</a>
// TRACE: trace ok
// FILES: cfg
// FILES: index.html
// FILES: ptx
// FILES: report.json
// FILES: trace.json
// FILES: pipeline.cu.sm_80.html
// FILES: pipeline.cu.sm_80.ptx
// CFG: pipeline_wrong_order
// CFG: <svg
// clang-format on
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ void barSync(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void barArrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void run(const int *in, int *out, int tiles, bool wrongOrder) {
  __shared__ int tile[32];
  const unsigned lane = threadIdx.x % 32;
  if (threadIdx.x >= 32) { // the DMA warp
    for (int t = 0; t < tiles; ++t) {
      barSync(2, 64);
      if (wrongOrder) barSync(1, 64); // wrong: "full" is its own to signal
      tile[lane] = in[t * 32 + lane];
      barArrive(1, 64);
      if (wrongOrder) barArrive(2, 64);
    }
  } else { // the compute warp
    for (int t = 0; t < tiles; ++t) {
      barArrive(2, 64);
      barSync(1, 64);
      out[t * 32 + lane] = 2 * tile[lane];
    }
  }
}

extern "C" __global__ void pipeline(const int *in, int *out, int tiles) { run(in, out, tiles, false); }
extern "C" __global__ void pipeline_wrong_order(const int *in, int *out, int tiles) { run(in, out, tiles, true); }

int main() {
  constexpr int kTiles = 4, kCount = kTiles * 32;
  int host[kCount], *in = nullptr, *out = nullptr;
  for (int i = 0; i < kCount; ++i) host[i] = i;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, sizeof host);
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  pipeline<<<1, 64>>>(in, out, kTiles);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += host[i] != 2 * i;
  std::printf("pipeline: %s\n", e == cudaSuccess && wrong == 0 ? "ok" : "FAIL");
  pipeline_wrong_order<<<1, 64>>>(in, out, kTiles);
  std::printf("pipeline_wrong_order: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
