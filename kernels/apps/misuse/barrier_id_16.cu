// kernels/apps/misuse, DESIGN.md §4 row "barrier id 16 passed in a register" (an immediate 16 is
// rejected by ptxas; a register is not checked). 64 threads sync on barrier `id` = 16.
// Hardware: completes, no fault. ptxvm: barrier-invalid-operand naming the value 16; the launch
// fails.
#include "misuse.h"

__global__ void barrierId16(int *out, unsigned id) {
  barSync(id, 64);
  out[threadIdx.x] = static_cast<int>(id);
}

int main() {
  int *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 64 * sizeof(int)));
  barrierId16<<<1, 64>>>(out, 16);
  if (reportLaunchAndSync()) reportDeviceResult(out, 64, [](int) { return 16; });
  return 0;
}
