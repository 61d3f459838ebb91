// Checks for the runtime test programs: each failed expectation prints a FAIL line (which the
// lit tests reject) and the program ends with "<name>: ok" or "<name>: FAILED".
#pragma once

#include "expect.h"

#include <cstdio>
#include <cuda_runtime.h>

/// `call` returns `want` (a cudaError_t). An expected error is then taken
/// off the thread's last error, so that later checks of it see their own.
#define EXPECT_ERR(call, want)                                                                               \
  do {                                                                                                       \
    cudaError_t got_ = (call);                                                                               \
    if (got_ != (want)) {                                                                                    \
      std::printf("FAIL %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call,                    \
                  cudaGetErrorName(got_), cudaGetErrorName(want));                                           \
      ++g_failures;                                                                                          \
    }                                                                                                        \
    if ((want) != cudaSuccess) (void)cudaPeekAtLastError(), (void)cudaGetLastError();                        \
  } while (0)

#define EXPECT_OK(call) EXPECT_ERR(call, cudaSuccess)
