// A program that dies of a signal still leaves what its kernels printed (not yet flushed by any
// synchronisation) and the report; the exit status stays the signal's (128+N), and the signal's
// default action is what ends the process.
//
// clang-format off
// RUN: %status 134 %ptxvm exec --report %t.abort.json -- %bin/crash abort > %t.abort.out
// RUN: FileCheck %s --check-prefix=PRINTED < %t.abort.out
// RUN: %json %t.abort.json | FileCheck %s --check-prefix=JSON
// RUN: %status 139 %ptxvm exec --report %t.segv.json -- %bin/crash segv > %t.segv.out
// RUN: FileCheck %s --check-prefix=PRINTED < %t.segv.out
// RUN: %json %t.segv.json | FileCheck %s --check-prefix=JSON
// RUN: %status 143 %ptxvm exec --report %t.term.json -- %bin/crash term > %t.term.out
// RUN: FileCheck %s --check-prefix=PRINTED < %t.term.out
// A handler of the program's own is left alone.
// RUN: %status 3 %ptxvm exec --report %t.own.json -- %bin/crash own > %t.own.out
// RUN: FileCheck %s --check-prefix=OWN < %t.own.out
// PRINTED: kernel says 42
// JSON:      launches[0].kernel = "_Z5helloi"
// JSON-NEXT: launches[0].grid = [1,1,1]
// JSON-NEXT: launches[0].block = [1,1,1]
// JSON-NEXT: launches[0].status = "completed"
// OWN: own handler ran
// clang-format on
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void hello(int v) { printf("kernel says %d\n", v); }

static void ownHandler(int) {
  const char msg[] = "own handler ran\n";
  (void)!write(1, msg, sizeof msg - 1);
  _exit(3);
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "abort";
  if (std::strcmp(how, "own") == 0) std::signal(SIGABRT, ownHandler);
  hello<<<1, 1>>>(42); // launched, its output not yet flushed: no synchronisation follows
  std::fflush(stdout);
  if (std::strcmp(how, "segv") == 0) {
    volatile int *p = nullptr;
    *p = 1;
  }
  if (std::strcmp(how, "term") == 0) raise(SIGTERM);
  std::abort();
}
