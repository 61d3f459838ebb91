// The report (--report / PTXVM_REPORT): every launch in order with its outcome and counts, and
// every diagnostic, in the layout `ptxvm run --report` writes; written at exit and by
// cudaDeviceReset, after which the program goes on with a fresh device. --save-ptx keeps the
// PTX that diagnostics name.
//
// clang-format off
// RUN: rm -rf %t.ptx && %ptxvm exec --racecheck --report %t.json --save-ptx %t.ptx -- %bin/report | FileCheck %s
// RUN: %json %t.json | FileCheck %s --check-prefix=JSON
// RUN: ls %t.ptx | FileCheck %s --check-prefix=PTX
// RUN: env LD_LIBRARY_PATH=%libdir PTXVM_REPORT=%t.env.json %bin/report > %t.out
// RUN: %json %t.env.json | FileCheck %s --check-prefix=NORACE
// The timeline of every launch (--trace), the CTAs with the race included.
// RUN: %ptxvm exec --racecheck --trace %t.trace.json -- %bin/report > %t.trace.out
// RUN: %python %S/../../lit/Inputs/trace_check.py --list %t.trace.json | FileCheck %s --check-prefix=TRACE
// CHECK-NOT: FAIL
// CHECK: report: ok
// JSON:      launches[0].kernel = "_Z5sharePii"
// JSON-NEXT: launches[0].grid = [2,1,1]
// JSON-NEXT: launches[0].block = [64,1,1]
// JSON-NEXT: launches[0].status = "completed"
// JSON-NEXT: launches[0].error = null
// JSON-NEXT: launches[0].thread_instructions = {{[1-9][0-9]*}}
// JSON-NEXT: launches[0].warp_instructions = {{[1-9][0-9]*}}
// JSON-NEXT: launches[0].wall_seconds = {{[0-9.e-]+}}
// JSON-NEXT: launches[0].divergent_branches = {{[0-9]+}}
// JSON-NEXT: launches[0].device = "emulator"
// JSON-NEXT: launches[0].engine.name = "interpreter"
// JSON-NEXT: launches[1].kernel = "_Z5sharePii"
// JSON-NEXT: launches[1].grid = [1,1,1]
// JSON-NEXT: launches[1].block = [64,1,1]
// JSON-NEXT: launches[1].status = "completed"
// JSON:      launches[2].kernel = "_Z6squarePii"
// JSON-NEXT: launches[2].grid = [1,1,1]
// JSON-NEXT: launches[2].block = [32,1,1]
// JSON-NEXT: launches[2].status = "completed"
// JSON-NOT:  launches[3]
// JSON:      diagnostics[0].kind = "shared-race"
// JSON-NEXT: diagnostics[0].severity = "error"
// JSON:      diagnostics[0].location.file = "{{.*}}report.cu.sm_80.ptx"
// PTX: report.cu.sm_80.ptx
// NORACE: diagnostics = []
// TRACE: M process_name {"name": "launch 0: _Z5sharePii CTA (0,0,0)"}
// TRACE: M process_name {"name": "launch 0: _Z5sharePii CTA (1,0,0)"}
// TRACE: M process_name {"name": "launch 1: _Z5sharePii CTA (0,0,0)"}
// TRACE: M process_name {"name": "launch 2: _Z6squarePii CTA (0,0,0)"}
// TRACE: 1/1 i {{[0-9]+}} shared-race {"message":
// TRACE: trace ok
// clang-format on
#include "Inputs/check.h"

__global__ void share(int *out, int unused) {
  __shared__ int value;
  if (threadIdx.x == 0) value = blockIdx.x + 1;
  if (threadIdx.x == 40) out[blockIdx.x] = value; // no barrier: a race racecheck reports
}

__global__ void square(int *out, int n) {
  if (threadIdx.x < n) out[threadIdx.x] = threadIdx.x * threadIdx.x;
}

int main() {
  int *out = nullptr;
  EXPECT_OK(cudaMalloc(&out, 64 * sizeof(int)));
  share<<<2, 64>>>(out, 0);
  share<<<1, 64>>>(out, 0);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT_OK(cudaDeviceReset());
  // A fresh device: the old allocation is gone, the kernels still launch.
  EXPECT_ERR(cudaFree(out), cudaErrorInvalidValue);
  EXPECT_OK(cudaMalloc(&out, 32 * sizeof(int)));
  square<<<1, 32>>>(out, 32);
  int host[32];
  EXPECT_OK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  EXPECT(host[5] == 25 && host[31] == 961);
  EXPECT_OK(cudaFree(out));
  return finish("report");
}
