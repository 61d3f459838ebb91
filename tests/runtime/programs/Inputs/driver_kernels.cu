// Kernels that driver.cu loads from a fatbin file (nvcc -fatbin) and refuses as a cubin (nvcc -cubin).
extern "C" __global__ void increment(int *values, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] += by;
}

__device__ int counter;

extern "C" __global__ void count(int times) {
  for (int i = 0; i < times; ++i) atomicAdd(&counter, 1);
}
