// kernels/apps: Mandelbrot set, 160x120 pixels, at most 64 iterations, 2-D grid of 16x16 CTAs
// (the last row of CTAs is partial). The device uses __fmul_rn/__fadd_rn/__fsub_rn so that no
// multiply-add is contracted: each step rounds exactly like the host's float arithmetic, and the
// iteration counts must agree exactly.
#include "app_check.h"

#include <vector>

constexpr int kMaxIterations = 64;

struct View {
  float x0, y0, dx, dy;
};

__global__ void mandelbrot(int *counts, int width, int height, View view) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  const float cx = __fadd_rn(view.x0, __fmul_rn(static_cast<float>(px), view.dx));
  const float cy = __fadd_rn(view.y0, __fmul_rn(static_cast<float>(py), view.dy));
  float x = 0.0f, y = 0.0f;
  int it = 0;
  for (; it < kMaxIterations; ++it) {
    const float x2 = __fmul_rn(x, x), y2 = __fmul_rn(y, y);
    if (__fadd_rn(x2, y2) > 4.0f) break;
    y = __fadd_rn(__fmul_rn(__fmul_rn(2.0f, x), y), cy);
    x = __fadd_rn(__fsub_rn(x2, y2), cx);
  }
  counts[py * width + px] = it;
}

// volatile keeps the host compiler from contracting or reassociating, like the intrinsics above.
int hostIterations(int px, int py, const View &view) {
  volatile float cx = view.x0 + static_cast<float>(px) * view.dx;
  volatile float cy = view.y0 + static_cast<float>(py) * view.dy;
  float x = 0.0f, y = 0.0f;
  int it = 0;
  for (; it < kMaxIterations; ++it) {
    volatile float x2 = x * x, y2 = y * y;
    volatile float r2 = x2 + y2;
    if (r2 > 4.0f) break;
    volatile float twoX = 2.0f * x;
    volatile float twoXY = twoX * y;
    y = twoXY + cy;
    volatile float diff = x2 - y2;
    x = diff + cx;
  }
  return it;
}

int main() {
  const int width = 160, height = 120;
  const View view{-2.2f, -1.2f, 3.0f / width, 2.4f / height};
  int *dCounts;
  CHECK(cudaMalloc(&dCounts, width * height * sizeof(int)));
  CHECK(cudaMemset(dCounts, 0xff, width * height * sizeof(int)));
  dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  mandelbrot<<<grid, block>>>(dCounts, width, height, view);
  CHECK_LAUNCH();
  std::vector<int> counts(width * height);
  CHECK(cudaMemcpy(counts.data(), dCounts, counts.size() * sizeof(int), cudaMemcpyDeviceToHost));

  Verdict verdict;
  long long inside = 0;
  for (int py = 0; py < height; ++py)
    for (int px = 0; px < width; ++px) {
      const int want = hostIterations(px, py, view);
      inside += want == kMaxIterations;
      verdict.expect(counts[py * width + px] == want, "pixel (%d,%d): %d iterations, expected %d", px, py,
                     counts[py * width + px], want);
    }
  // A sanity check of the reference itself: the view holds a good part of the set.
  verdict.expect(inside > 1000 && inside < width * height / 2, "implausible count of points inside: %lld",
                 inside);
  CHECK(cudaFree(dCounts));
  return verdict.finish();
}
