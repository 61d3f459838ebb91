// Checks for the driver API test programs: each failed expectation prints a FAIL line (which the
// lit tests reject) and the program ends with "<name>: ok" or "<name>: FAILED".
#pragma once

#include "expect.h"

#include <cstdio>
#include <cuda.h>

static const char *resultName(CUresult r) {
  const char *name = nullptr;
  return cuGetErrorName(r, &name) == CUDA_SUCCESS ? name : "(unknown CUresult)";
}

/// `call` returns `want` (a CUresult).
#define EXPECT_CU(call, want)                                                                                \
  do {                                                                                                       \
    CUresult got_ = (call);                                                                                  \
    if (got_ != (want)) {                                                                                    \
      std::printf("FAIL %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, resultName(got_),  \
                  resultName(want));                                                                         \
      ++g_failures;                                                                                          \
    }                                                                                                        \
  } while (0)

#define EXPECT_CU_OK(call) EXPECT_CU(call, CUDA_SUCCESS)
