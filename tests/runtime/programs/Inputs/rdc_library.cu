// The second translation unit of rdc.cu (nvcc -rdc=true): a device function and a variable the
// other unit uses, and names that collide with the other unit's file-local ones.
#include <cstdio>

__device__ int scale = 3;

// File-local in each unit: the linked program keeps both.
static __device__ int localTwist(int x) { return x + 1000; }

__device__ int scaled(int x) {
  printf("library: scaled(%d)\n", x);
  return localTwist(x * scale) - 1000;
}
