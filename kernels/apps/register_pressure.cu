// kernels/apps: the register-pressure kernels of kernels/register_pressure.cu (chemistry with
// uniform per-reaction coefficients, a 7x7 stencil, an 8x8 register-blocked SGEMM, an n-body
// step with 8 bodies per thread) against host references. They need 65-170 registers per
// thread, so `ptxvm exec --passes=regalloc --max-registers=K` on them exercises every spill
// class of the allocator (issue 13).
#include "app_check.h"

#include "../register_pressure.cu"

#include <cmath>
#include <vector>

namespace {

void chemistry(Random &random, Verdict &verdict) {
  const int cells = 1000;
  std::vector<float> coef(2 * RP_REACTIONS), temp(cells), conc(RP_SPECIES * cells);
  for (int r = 0; r < RP_REACTIONS; ++r) {
    coef[2 * r] = random.uniform(0.5f, 2.0f);
    coef[2 * r + 1] = random.uniform(100.0f, 1000.0f);
  }
  for (float &t : temp) t = random.uniform(800.0f, 2000.0f);
  for (float &c : conc) c = random.uniform(0.1f, 1.0f);
  float *dCoef = deviceCopy(coef), *dTemp = deviceCopy(temp), *dConc = deviceCopy(conc), *dW = nullptr;
  CHECK(cudaMalloc(&dW, conc.size() * sizeof(float)));
  rp_chemistry<<<3, 128>>>(dCoef, dTemp, dConc, dW, cells); // 384 threads: a few cells each
  CHECK_LAUNCH();
  const std::vector<float> w = hostCopy(dW, conc.size());
  for (int cell = 0; cell < cells; ++cell) {
    double want[RP_SPECIES] = {};
    for (int r = 0; r < RP_REACTIONS; ++r) {
      const int a = r % RP_SPECIES, b = (r * 7 + 3) % RP_SPECIES, p = (r * 5 + 1) % RP_SPECIES;
      const double rate = coef[2 * r] * std::exp(-double(coef[2 * r + 1]) / temp[cell]) *
                          conc[a * cells + cell] * conc[b * cells + cell];
      want[a] -= rate;
      want[b] -= rate;
      want[p] += 2.0 * rate;
    }
    for (int s = 0; s < RP_SPECIES; ++s) verdict.expectNear(w[s * cells + cell], want[s], 1e-4, 1e-4, "wdot", s * cells + cell);
  }
  CHECK(cudaFree(dCoef));
  CHECK(cudaFree(dTemp));
  CHECK(cudaFree(dConc));
  CHECK(cudaFree(dW));
}

void stencil(Random &random, Verdict &verdict) {
  const int width = 70, height = 76, rows = 10, outWidth = width - 6, outHeight = height - 6;
  std::vector<float> in(width * height), coef(RP_WIDTH * RP_WIDTH);
  // Small integers: every sum is exact in floats, whatever the order.
  for (float &v : in) v = static_cast<float>(random.range(-8, 8));
  for (float &v : coef) v = static_cast<float>(random.range(-4, 4));
  float *dIn = deviceCopy(in), *dCoef = deviceCopy(coef), *dOut = nullptr;
  CHECK(cudaMalloc(&dOut, outWidth * outHeight * sizeof(float)));
  rp_stencil<<<dim3(2, (outHeight + rows - 1) / rows), 32>>>(dIn, dCoef, dOut, width, height, rows);
  CHECK_LAUNCH();
  const std::vector<float> out = hostCopy(dOut, outWidth * outHeight);
  for (int y = 0; y < outHeight; ++y)
    for (int x = 0; x < outWidth; ++x) {
      double want = 0;
      for (int i = 0; i < RP_WIDTH; ++i)
        for (int j = 0; j < RP_WIDTH; ++j) want += coef[i * RP_WIDTH + j] * in[(y + i) * width + x + j];
      verdict.expectEq(static_cast<long long>(out[y * outWidth + x]), static_cast<long long>(want), "stencil",
                       y * outWidth + x);
    }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dCoef));
  CHECK(cudaFree(dOut));
}

void sgemm(Random &random, Verdict &verdict) {
  const int M = 128, N = 256, K = 48;
  std::vector<float> A(M * K), B(K * N);
  for (float &v : A) v = static_cast<float>(random.range(-3, 3));
  for (float &v : B) v = static_cast<float>(random.range(-3, 3));
  float *dA = deviceCopy(A), *dB = deviceCopy(B), *dC = nullptr;
  CHECK(cudaMalloc(&dC, M * N * sizeof(float)));
  rp_sgemm<<<dim3(N / 128, M / 128), dim3(16, 16)>>>(dA, dB, dC, M, N, K);
  CHECK_LAUNCH();
  const std::vector<float> C = hostCopy(dC, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long want = 0;
      for (int k = 0; k < K; ++k) want += static_cast<long long>(A[i * K + k]) * static_cast<long long>(B[k * N + j]);
      verdict.expectEq(static_cast<long long>(C[i * N + j]), want, "C", i * N + j);
    }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
}

void nbody(Random &random, Verdict &verdict) {
  const int n = 1024;
  std::vector<float4> pos(n);
  for (float4 &p : pos)
    p = make_float4(random.uniform(-10, 10), random.uniform(-10, 10), random.uniform(-10, 10),
                    random.uniform(0.5f, 2.0f));
  float4 *dPos = deviceCopy(pos), *dAcc = nullptr;
  CHECK(cudaMalloc(&dAcc, n * sizeof(float4)));
  rp_nbody<<<n / (RP_BODIES * RP_TILE), RP_TILE>>>(dPos, dAcc, n);
  CHECK_LAUNCH();
  const std::vector<float4> acc = hostCopy(dAcc, n);
  for (int i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) {
      const double dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, dz = pos[j].z - pos[i].z;
      const double inv = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz + 0.01);
      const double s = pos[j].w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    // Sums of ~1000 terms in float with rsqrtf: compared to their scale.
    verdict.expectNear(acc[i].x, ax, 1e-3, 1e-2, "ax", i);
    verdict.expectNear(acc[i].y, ay, 1e-3, 1e-2, "ay", i);
    verdict.expectNear(acc[i].z, az, 1e-3, 1e-2, "az", i);
  }
  CHECK(cudaFree(dPos));
  CHECK(cudaFree(dAcc));
}

} // namespace

int main() {
  Random random(13);
  Verdict verdict;
  chemistry(random, verdict);
  stencil(random, verdict);
  sgemm(random, verdict);
  nbody(random, verdict);
  return verdict.finish();
}
