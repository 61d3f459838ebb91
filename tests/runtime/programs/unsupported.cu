// An API the runtime does not serve returns cudaErrorNotSupported every time, says which
// function once, and never stops the program.
//
// clang-format off
// RUN: %ptxvm exec --report %t.json -- %bin/unsupported > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %json %t.json | FileCheck %s --check-prefix=JSON
// CHECK-NOT: FAIL
// CHECK: unsupported: ok
// ERR: ptxvm: cudaGraphRetainUserObject is not supported
// ERR-NEXT: ptxvm: cudaExternalMemoryGetMappedBuffer is not supported
// ERR-NOT: not supported
// JSON:      diagnostics[0].kind = "unsupported"
// JSON-NEXT: diagnostics[0].severity = "warning"
// JSON-NEXT: diagnostics[0].message = "cudaGraphRetainUserObject is not supported"
// clang-format on
#include "Inputs/check.h"

int main() {
  EXPECT_ERR(cudaGraphRetainUserObject(nullptr, nullptr, 1, 0), cudaErrorNotSupported);
  EXPECT_ERR(cudaGraphRetainUserObject(nullptr, nullptr, 1, 0), cudaErrorNotSupported);
  EXPECT_ERR(cudaGetLastError(), cudaSuccess); // EXPECT_ERR read it
  void *mapped = nullptr;
  EXPECT_ERR(cudaExternalMemoryGetMappedBuffer(&mapped, nullptr, nullptr), cudaErrorNotSupported);
  EXPECT_ERR(cudaExternalMemoryGetMappedBuffer(&mapped, nullptr, nullptr), cudaErrorNotSupported);
  // The program goes on: the rest of the API still works.
  int *p = nullptr;
  EXPECT_OK(cudaMalloc(&p, 16));
  EXPECT_OK(cudaFree(p));
  return finish("unsupported");
}
