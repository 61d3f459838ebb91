// The report (--report / PTXVM_REPORT): every launch in order with its outcome and counts, and
// every diagnostic, in the layout `ptxvm run --report` writes; written at exit and by
// cudaDeviceReset, after which the program goes on with a fresh device. --save-ptx keeps the
// PTX that diagnostics name.
//
// clang-format off
// RUN: rm -rf %t.ptx && %ptxvm exec --racecheck --report %t.json --save-ptx %t.ptx -- %bin/report | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: ls %t.ptx | FileCheck %s --check-prefix=PTX
// RUN: env LD_LIBRARY_PATH=%libdir PTXVM_REPORT=%t.env.json %bin/report > %t.out
// RUN: FileCheck %s --check-prefix=NORACE < %t.env.json
// CHECK-NOT: FAIL
// CHECK: report: ok
// JSON: {"launches":[
// JSON-SAME: {"kernel":"_Z5sharePii","grid":[2,1,1],"block":[64,1,1],"status":"completed","error":null,"thread_instructions":{{[1-9][0-9]*}},"warp_instructions":{{[1-9][0-9]*}},"wall_seconds":{{[0-9.e-]+}},"divergent_branches":{{[0-9]+}}},
// JSON-SAME: {"kernel":"_Z5sharePii","grid":[1,1,1],"block":[64,1,1],"status":"completed"
// JSON-SAME: {"kernel":"_Z6squarePii","grid":[1,1,1],"block":[32,1,1],"status":"completed"
// JSON-SAME: ],"diagnostics":[{"kind":"shared-race","severity":"error"
// JSON-SAME: "location":{"file":"{{.*}}report.cu.sm_80.ptx"
// PTX: report.cu.sm_80.ptx
// NORACE: "diagnostics":[]}
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
