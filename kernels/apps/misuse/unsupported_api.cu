// kernels/apps/misuse: a runtime API an emulator reasonably does not serve: cudaIpcGetMemHandle
// (sharing device memory with another process). The program prints what the call returned
// ("call"), then shows that the program can go on: a kernel launch and synchronization after it,
// with the result checked. The call's error is not sticky; cudaGetLastError clears it.
// Hardware: call cudaSuccess. ptxvm: call cudaErrorNotSupported, and once on stderr
// "ptxvm: cudaIpcGetMemHandle is not supported"; the launch after it works.
#include "misuse.h"

__global__ void fill(int *out) { out[threadIdx.x] = static_cast<int>(threadIdx.x) + 5; }

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 256 * sizeof(int)));
  cudaIpcMemHandle_t handle;
  report("call", cudaIpcGetMemHandle(&handle, out));
  (void)cudaGetLastError();
  fill<<<1, 256>>>(out);
  if (reportLaunchAndSync()) reportDeviceResult(out, 256, [](int i) { return i + 5; });
  return 0;
}
