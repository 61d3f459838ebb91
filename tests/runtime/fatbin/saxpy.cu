// Source of the fatbin fixtures (see make-fixtures.sh): two kernels and a device function.
__device__ float axpy(float a, float x, float y) { return a * x + y; }

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = axpy(a, x[i], y[i]);
}

__global__ void blockSum(const float *in, float *out) {
  __shared__ float partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

int main() {
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  saxpy<<<1, 256>>>(256, 2.0f, x, y);
  blockSum<<<1, 256>>>(x, y);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
