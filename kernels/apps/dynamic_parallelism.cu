// kernels/apps: dynamic parallelism (CDP2). A recursive sum that splits its range over child grids
// down to a nesting depth of 5 and combines the halves in a tail launch; children launched into a
// stream the device made and into the fire-and-forget stream; device-side errors (an invalid
// configuration) read with cudaGetLastError on the device; and how long a chain of grids, each
// launching the next, grows before the device runtime refuses a launch (on an H200: 2048 grids,
// then cudaErrorLaunchPendingCountExceeded, since a grid is pending until its children complete).
// Results compared exactly with the host.
// nvcc-flags: -rdc=true -lcudadevrt
#include "app_check.h"

#include <vector>

constexpr int kLeaf = 1024;

// partial[node] = sum of data[begin, end): two children for the halves, then a tail launch that
// adds their results (it runs after this grid and its children have completed).
__global__ void combine(long long *partial, int node) {
  partial[node] = partial[2 * node + 1] + partial[2 * node + 2];
}

__global__ void treeSum(const int *data, int begin, int end, long long *partial, int node, int *depthSeen,
                        int depth) {
  if (end - begin <= kLeaf) {
    __shared__ long long sums[256];
    long long s = 0;
    for (int i = begin + threadIdx.x; i < end; i += blockDim.x) s += data[i];
    sums[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
      if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      partial[node] = sums[0];
      atomicMax(depthSeen, depth);
    }
    return;
  }
  if (threadIdx.x == 0) {
    int middle = begin + (end - begin) / 2;
    treeSum<<<1, 256>>>(data, begin, middle, partial, 2 * node + 1, depthSeen, depth + 1);
    treeSum<<<1, 256>>>(data, middle, end, partial, 2 * node + 2, depthSeen, depth + 1);
    combine<<<1, 1, 0, cudaStreamTailLaunch>>>(partial, node);
  }
}

__global__ void fill(int *out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

// Launches into a stream this grid makes and into the fire-and-forget stream, and one the device
// runtime refuses: the errors as device code sees them.
__global__ void streamsAndErrors(int *a, int *b, int n, int *errors) {
  if (threadIdx.x != 0) return;
  cudaStream_t s;
  errors[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<(n + 127) / 128, 128, 0, s>>>(a, 7, n);
  errors[1] = cudaGetLastError();
  fill<<<(n + 127) / 128, 128, 0, cudaStreamFireAndForget>>>(b, 9, n);
  errors[2] = cudaGetLastError();
  errors[3] = cudaStreamDestroy(s);
  fill<<<1, 2048>>>(a, 1, n); // more threads than a block may have
  errors[4] = cudaGetLastError();
  errors[5] = cudaGetLastError(); // reading the error clears it
}

// Each grid launches the next until the device runtime refuses: the depth of the last grid that ran.
__global__ void chain(int depth, int *deepest, int *refusal) {
  atomicMax(deepest, depth);
  chain<<<1, 1>>>(depth + 1, deepest, refusal);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) *refusal = e;
}

int main() {
  Verdict verdict;
  const int n = 1 << 15; // 32 leaves of 1024: nesting depth 5
  std::vector<int> data(n);
  Random random(11);
  long long want = 0;
  for (int &v : data) want += v = static_cast<int>(random.range(-1000, 1000));
  int *dData = deviceCopy(data);
  long long *partial = nullptr;
  int *depthSeen = nullptr;
  CHECK(cudaMalloc(&partial, 2 * (n / kLeaf) * sizeof(long long)));
  CHECK(cudaMalloc(&depthSeen, sizeof(int)));
  CHECK(cudaMemset(depthSeen, 0, sizeof(int)));
  treeSum<<<1, 256>>>(dData, 0, n, partial, 0, depthSeen, 0);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  long long total = 0;
  int depth = 0;
  CHECK(cudaMemcpy(&total, partial, sizeof total, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&depth, depthSeen, sizeof depth, cudaMemcpyDeviceToHost));
  verdict.expectEq(total, want, "tree sum", 0);
  verdict.expectEq(depth, 5, "leaf depth", 0);
  std::printf("tree sum %lld over %d leaves, depth %d\n", total, n / kLeaf, depth);

  const int m = 1000;
  int *a = nullptr, *b = nullptr, *errors = nullptr;
  CHECK(cudaMalloc(&a, m * sizeof(int)));
  CHECK(cudaMalloc(&b, m * sizeof(int)));
  CHECK(cudaMalloc(&errors, 6 * sizeof(int)));
  streamsAndErrors<<<1, 32>>>(a, b, m, errors);
  CHECK_LAUNCH();
  std::vector<int> gotA = hostCopy(a, m), gotB = hostCopy(b, m), gotErrors = hostCopy(errors, 6);
  for (int i = 0; i < m; ++i) {
    verdict.expectEq(gotA[i], 7, "a", i);
    verdict.expectEq(gotB[i], 9, "b", i);
  }
  const int wantErrors[6] = {
      cudaSuccess, cudaSuccess, cudaSuccess, cudaSuccess, cudaErrorInvalidConfiguration, cudaSuccess};
  for (int i = 0; i < 6; ++i) verdict.expectEq(gotErrors[i], wantErrors[i], "device error", i);
  std::printf("device errors:");
  for (int e : gotErrors) std::printf(" %s", cudaGetErrorName(static_cast<cudaError_t>(e)));
  std::printf("\n");

  int *deepest = nullptr, *refusal = nullptr;
  CHECK(cudaMalloc(&deepest, sizeof(int)));
  CHECK(cudaMalloc(&refusal, sizeof(int)));
  CHECK(cudaMemset(deepest, 0, sizeof(int)));
  CHECK(cudaMemset(refusal, 0, sizeof(int)));
  chain<<<1, 1>>>(0, deepest, refusal);
  CHECK_LAUNCH();
  int deepestSeen = 0, refused = 0;
  CHECK(cudaMemcpy(&deepestSeen, deepest, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&refused, refusal, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("launch chain: deepest grid %d, then %s\n", deepestSeen,
              cudaGetErrorName(static_cast<cudaError_t>(refused)));
  verdict.expectEq(deepestSeen, 2048, "deepest nesting", 0);
  verdict.expectEq(refused, cudaErrorLaunchPendingCountExceeded, "refusal", 0);

  CHECK(cudaFree(dData));
  CHECK(cudaFree(partial));
  CHECK(cudaFree(depthSeen));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(errors));
  CHECK(cudaFree(deepest));
  CHECK(cudaFree(refusal));
  return verdict.finish();
}
