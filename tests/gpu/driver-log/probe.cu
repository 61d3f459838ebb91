// What NVIDIA's static runtime asks of the driver around resets, threads, symbols, occupancy and errors.
#include <cstdio>
#include <thread>
__device__ int sym[4];
__constant__ float csym[4];
__global__ void k(int *p, int v) { p[threadIdx.x] = v + sym[0] + (int)csym[0]; }
__global__ void big(int *p) { __shared__ int s[1024]; s[threadIdx.x] = 1; p[0] = s[0]; }
#define C(x) do { cudaError_t e_ = (x); printf("%-60s %s\n", #x, cudaGetErrorName(e_)); } while (0)
int main() {
  int *d = nullptr, h[32] = {};
  printf("== start\n"); fflush(stdout);
  C(cudaFree(0));
  printf("== malloc\n"); fflush(stdout);
  C(cudaMalloc(&d, 128));
  int one[4] = {1, 2, 3, 4};
  printf("== symbols\n"); fflush(stdout);
  C(cudaMemcpyToSymbol(sym, one, sizeof one));
  float f[4] = {10, 0, 0, 0};
  C(cudaMemcpyToSymbol(csym, f, sizeof f));
  void *addr = nullptr;
  C(cudaGetSymbolAddress(&addr, sym));
  printf("== launch\n"); fflush(stdout);
  k<<<1, 32>>>(d, 5);
  C(cudaGetLastError());
  C(cudaDeviceSynchronize());
  C(cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost));
  printf("h[3]=%d\n", h[3]);
  printf("== attributes\n"); fflush(stdout);
  cudaFuncAttributes fa;
  C(cudaFuncGetAttributes(&fa, k));
  printf("numRegs %d maxThreads %d\n", fa.numRegs, fa.maxThreadsPerBlock);
  int blocks = 0;
  C(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big, 256, 0));
  C(cudaFuncSetAttribute(big, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  printf("== bad launch\n"); fflush(stdout);
  k<<<1, 4096>>>(d, 1);
  C(cudaGetLastError());
  printf("== thread\n"); fflush(stdout);
  std::thread t([&] { k<<<1, 32>>>(d, 7); printf("thread sync %s\n", cudaGetErrorName(cudaDeviceSynchronize())); });
  t.join();
  printf("== host alloc\n"); fflush(stdout);
  void *ph = nullptr;
  C(cudaMallocHost(&ph, 4096));
  C(cudaFreeHost(ph));
  printf("== stream\n"); fflush(stdout);
  cudaStream_t s;
  C(cudaStreamCreate(&s));
  k<<<1, 32, 0, s>>>(d, 9);
  C(cudaStreamSynchronize(s));
  C(cudaStreamDestroy(s));
  printf("== reset\n"); fflush(stdout);
  C(cudaDeviceReset());
  printf("== after reset\n"); fflush(stdout);
  C(cudaMalloc(&d, 128));
  k<<<1, 32>>>(d, 11);
  C(cudaDeviceSynchronize());
  C(cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost));
  printf("h[3]=%d\n", h[3]);
  printf("== end\n"); fflush(stdout);
  return 0;
}
