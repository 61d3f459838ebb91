// Dynamic parallelism (issue 15, item 2) beyond kernels/apps/dynamic_parallelism: the pending-launch
// limit the host sets, refusals seen by device code; device-side attribute and device queries; a child grid's
// printf after its parent's; a child's fault reaching the host at its next synchronisation, named with the
// grid that launched it.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/cdp > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// CHECK-NOT: FAIL
// CHECK: parent 0
// CHECK-NEXT: child 0 of 4
// CHECK-NEXT: child 1 of 4
// CHECK: cdp: ok
// ERR: Invalid __global__ write of size 4 bytes
// ERR: Kernel poke(int*) (launched by a device-side launch in faulty(int*)) failed: cudaErrorIllegalAddress
// clang-format on
#include "Inputs/check.h"

__global__ void child(int *out, int i, int of) {
  out[i] = i + 1;
  if (i < 2) printf("child %d of %d\n", i, of);
}

__global__ void parent(int *out, int *refused, int n) {
  printf("parent %d\n", threadIdx.x);
  // The device runtime's queries (a wrong answer spoils the count the host checks).
  int warp = 0, device = -1;
  if (cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0) != cudaSuccess || warp != 32) *refused = -1000;
  if (cudaGetDevice(&device) != cudaSuccess || device != 0) *refused = -2000;
  for (int i = 0; i < n; ++i) {
    child<<<1, 1>>>(out, i, 4);
    // Peeking leaves the error for cudaGetLastError, which clears it.
    cudaError_t peeked = cudaPeekAtLastError();
    if (cudaGetLastError() == cudaErrorLaunchPendingCountExceeded &&
        peeked == cudaErrorLaunchPendingCountExceeded)
      ++*refused;
    if (cudaPeekAtLastError() != cudaSuccess) *refused = -100;
  }
}

__global__ void poke(int *p) { *p = 1; }

__global__ void faulty(int *wild) { poke<<<1, 1>>>(wild); }

int main() {
  size_t limit = 0;
  EXPECT_OK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4));
  EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  EXPECT(limit == 4);
  int *out = nullptr, *refused = nullptr;
  EXPECT_OK(cudaMalloc(&out, 10 * sizeof(int)));
  EXPECT_OK(cudaMalloc(&refused, sizeof(int)));
  EXPECT_OK(cudaMemset(out, 0, 10 * sizeof(int)));
  EXPECT_OK(cudaMemset(refused, 0, sizeof(int)));
  parent<<<1, 1>>>(out, refused, 10);
  EXPECT_OK(cudaDeviceSynchronize());
  int got[10] = {}, refusals = 0;
  EXPECT_OK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_OK(cudaMemcpy(&refusals, refused, sizeof refusals, cudaMemcpyDeviceToHost));
  // The first four launches are pending until the parent's thread ends; the rest are refused.
  EXPECT(refusals == 6);
  for (int i = 0; i < 10; ++i) EXPECT(got[i] == (i < 4 ? i + 1 : 0));

  faulty<<<1, 1>>>(reinterpret_cast<int *>(0x10));
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  return finish("cdp");
}
