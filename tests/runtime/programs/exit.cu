// A program that exits while a kernel runs on another host thread ends promptly: the exit
// handlers (nvcc's __cudaUnregisterFatBinary, the library's own) never wait for the runtime,
// and the launch still running is abandoned, as on a GPU. Issue 10, class 6.
//
// clang-format off
// RUN: %status 0 timeout 60 %ptxvm exec -- %bin/exit thread > %t.thread.out
// RUN: FileCheck %s --check-prefix=THREAD < %t.thread.out
// Right after an asynchronous launch of a kernel that waits for the host (launches run on the
// device thread while the host goes on), exit abandons it:
// RUN: %status 0 timeout 60 %ptxvm exec -- %bin/exit async > %t.async.out
// RUN: FileCheck %s --check-prefix=ASYNC < %t.async.out
// ASYNC: launched; main exits
// The same with a time limit per launch: the spinning launch fails with cudaErrorLaunchTimeout
// and the program's own thread reports it before main exits.
// RUN: %status 0 timeout 60 %ptxvm exec --timeout 0.5 -- %bin/exit timeout > %t.timeout.out 2> %t.timeout.err
// RUN: FileCheck %s --check-prefix=TIMEOUT < %t.timeout.out
// RUN: FileCheck %s --check-prefix=TIMEOUT-ERR < %t.timeout.err
// THREAD: main exits while the kernel spins
// THREAD-NOT: launch ended
// TIMEOUT: launch ended: cudaErrorLaunchTimeout
// TIMEOUT: main exits
// TIMEOUT-ERR: ========= the launch ran past its time limit of 0.5 s (--timeout)
// TIMEOUT-ERR-NEXT: =========     at spin(int volatile*) in {{.*}}exit.cu:[[#@LINE+11]]
// clang-format on
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>

// Waits for a flag nobody sets.
__global__ void spin(volatile int *flag) {
  while (*flag == 0) {
  }
}

int main(int argc, char **argv) {
  const bool timeout = argc > 1 && std::strcmp(argv[1], "timeout") == 0;
  int *flag = nullptr;
  cudaMalloc(&flag, sizeof(int));
  cudaMemset(flag, 0, sizeof(int));
  if (argc > 1 && std::strcmp(argv[1], "async") == 0) {
    spin<<<4, 64>>>(flag);
    std::printf("launched; main exits\n");
    std::fflush(stdout);
    std::exit(0);
  }
  std::thread worker([&] {
    spin<<<4, 64>>>(flag);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch ended: %s\n", cudaGetErrorName(e));
    std::fflush(stdout);
  });
  if (timeout) {
    worker.join();
    std::printf("main exits\n");
    return 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::printf("main exits while the kernel spins\n");
  std::fflush(stdout);
  worker.detach();
  std::exit(0);
}
