// -rdc=true fixture, translation unit 2: defines the device function and main.
__device__ float scale(float x) { return 2.0f * x; }

__global__ void addOne(float *p) { p[threadIdx.x] += 1.0f; }

void launchScaleAll(float *p);

int main() {
  float *p = nullptr;
  cudaMalloc(&p, 32 * sizeof(float));
  launchScaleAll(p);
  addOne<<<1, 32>>>(p);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
