// What every runtime and driver test program checks with: each failed expectation prints a FAIL
// line (which the lit tests reject) and the program ends with "<name>: ok" or "<name>: FAILED".
#pragma once

#include <cstdio>

static int g_failures = 0;

#define EXPECT(cond)                                                                                         \
  do {                                                                                                       \
    if (!(cond)) {                                                                                           \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                            \
      ++g_failures;                                                                                          \
    }                                                                                                        \
  } while (0)

static int finish(const char *name) {
  std::printf("%s: %s\n", name, g_failures ? "FAILED" : "ok");
  std::fflush(stdout);
  return g_failures ? 1 : 0;
}
