// -rdc=true fixture, translation unit 1: a kernel calling a device function of another unit.
__device__ float scale(float x);

__global__ void scaleAll(float *p) { p[threadIdx.x] = scale(p[threadIdx.x]); }

void launchScaleAll(float *p) { scaleAll<<<1, 32>>>(p); }
