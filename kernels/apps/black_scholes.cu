// kernels/apps: Black-Scholes option pricing, the shape of a long program (issue 14, item 6):
// many short launches of a kernel heavy in expf/logf/sqrtf and divisions. Prices 2,048 calls
// and puts per launch for 64 launches (each launch moves the risk-free rate a little), then
// compares every price of the last launch, and a checksum over all launches, with a
// double-precision host reference.
#include "app_check.h"

#include <vector>

// Cumulative normal distribution: the Abramowitz-Stegun polynomial (error below 7.5e-8).
__device__ __host__ inline float cumulativeNormal(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  const float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  const float tail = rsqrt2pi * expf(-0.5f * d * d) * poly;
  return d > 0 ? 1.0f - tail : tail;
}

__global__ void blackScholes(float *call, float *put, const float *spot, const float *strike,
                             const float *years, float rate, float volatility, int n, float *sum) {
  float local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float s = spot[i], x = strike[i], t = years[i];
    const float sqrtT = sqrtf(t);
    const float d1 = (logf(s / x) + (rate + 0.5f * volatility * volatility) * t) / (volatility * sqrtT);
    const float d2 = d1 - volatility * sqrtT;
    const float discount = expf(-rate * t);
    const float c = s * cumulativeNormal(d1) - x * discount * cumulativeNormal(d2);
    const float p = x * discount * (1.0f - cumulativeNormal(d2)) - s * (1.0f - cumulativeNormal(d1));
    call[i] = c;
    put[i] = p;
    local += c + p;
  }
  // One atomic per warp: the checksum of every launch.
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, local);
}

static double normalReference(double d) { return 0.5 * std::erfc(-d / std::sqrt(2.0)); }

int main() {
  const int n = 2048, launches = 64;
  const float volatility = 0.30f;
  Random random(7);
  std::vector<float> spot(n), strike(n), years(n);
  for (int i = 0; i < n; ++i) {
    spot[i] = random.uniform(5.0f, 30.0f);
    strike[i] = random.uniform(1.0f, 100.0f);
    years[i] = random.uniform(0.25f, 10.0f);
  }
  float *dCall, *dPut, *dSpot, *dStrike, *dYears, *dSum;
  const size_t bytes = n * sizeof(float);
  for (float **p : {&dCall, &dPut, &dSpot, &dStrike, &dYears}) CHECK(cudaMalloc(p, bytes));
  CHECK(cudaMalloc(&dSum, launches * sizeof(float)));
  CHECK(cudaMemset(dSum, 0, launches * sizeof(float)));
  CHECK(cudaMemcpy(dSpot, spot.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dStrike, strike.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dYears, years.data(), bytes, cudaMemcpyHostToDevice));

  auto rateOf = [](int launch) { return 0.02f + 0.0005f * launch; };
  for (int launch = 0; launch < launches; ++launch) {
    blackScholes<<<8, 128>>>(dCall, dPut, dSpot, dStrike, dYears, rateOf(launch), volatility, n,
                               dSum + launch);
    CHECK_LAUNCH();
  }
  std::vector<float> call(n), put(n), sums(launches);
  CHECK(cudaMemcpy(call.data(), dCall, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(put.data(), dPut, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums.data(), dSum, launches * sizeof(float), cudaMemcpyDeviceToHost));

  // Single precision through expf/logf and the polynomial: within 1e-4 of the price's
  // magnitude or 2e-4 absolutely (the polynomial alone is off by up to 7.5e-8 per unit price).
  Verdict verdict;
  auto price = [&](int i, double rate, double &c, double &p) {
    const double s = spot[i], x = strike[i], t = years[i], v = volatility;
    const double d1 = (std::log(s / x) + (rate + 0.5 * v * v) * t) / (v * std::sqrt(t)), d2 = d1 - v * std::sqrt(t);
    const double discount = std::exp(-rate * t);
    c = s * normalReference(d1) - x * discount * normalReference(d2);
    p = x * discount * normalReference(-d2) - s * normalReference(-d1);
  };
  for (int i = 0; i < n; ++i) {
    double c, p;
    price(i, rateOf(launches - 1), c, p);
    verdict.expectNear(call[i], c, 1e-4, 2e-4, "call", i);
    verdict.expectNear(put[i], p, 1e-4, 2e-4, "put", i);
  }
  for (int launch = 0; launch < launches; launch += 7) {
    double total = 0;
    for (int i = 0; i < n; ++i) {
      double c, p;
      price(i, rateOf(launch), c, p);
      total += c + p;
    }
    verdict.expectNear(sums[launch], total, 1e-4, 0, "checksum of launch", launch);
  }
  for (float *p : {dCall, dPut, dSpot, dStrike, dYears, dSum}) CHECK(cudaFree(p));
  return verdict.finish();
}
