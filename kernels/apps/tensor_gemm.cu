// Matrix products on tensor cores (issue 14, item 5): wmma (mma.h) for f16 -> f32, f16 -> f16,
// bf16, tf32, f64 and s8, and inline-PTX ldmatrix + mma.sync, each checked against a host
// reference. Integer-valued inputs make most products exact whatever order the tensor core adds
// in; the random-float GEMM is checked within a bound from its rounding (25 bits kept per fused
// step of 16 products, so far below 1e-5 of the magnitudes here).
#include "app_check.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <vector>

using namespace nvcuda;

constexpr int M = 64, N = 64, K = 128; // 16 tiles of 16x16, one per warp

// One warp per 16x16 tile of C = A * B (A row-major MxK, B column-major KxN, C row-major).
template <typename In, typename Acc, int TK>
__global__ void wmmaGemm(const In *a, const In *b, Acc *c) {
  int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int row = (tile / (N / 16)) * 16, col = (tile % (N / 16)) * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, TK, In, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, TK, In, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, TK, Acc> acc;
  wmma::fill_fragment(acc, Acc(0));
  for (int k = 0; k < K; k += TK) {
    wmma::load_matrix_sync(fa, a + row * K + k, K);
    wmma::load_matrix_sync(fb, b + col * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + row * N + col, acc, N, wmma::mem_row_major);
}

// tf32: the fragments hold floats that must be rounded to tf32 first.
__global__ void wmmaGemmTf32(const float *a, const float *b, float *c) {
  int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int row = (tile / (N / 16)) * 16, col = (tile % (N / 16)) * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, a + row * K + k, K);
    wmma::load_matrix_sync(fb, b + col * K + k, K);
    for (int e = 0; e < fa.num_elements; ++e) fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
    for (int e = 0; e < fb.num_elements; ++e) fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + row * N + col, acc, N, wmma::mem_row_major);
}

// f64: 8x8 tiles, k steps of 4; 64 tiles, one per warp.
__global__ void wmmaGemmF64(const double *a, const double *b, double *c) {
  int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int row = (tile / (N / 8)) * 8, col = (tile % (N / 8)) * 8;
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(fa, a + row * K + k, K);
    wmma::load_matrix_sync(fb, b + col * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + row * N + col, acc, N, wmma::mem_row_major);
}

// ldmatrix + mma.sync.m16n8k16 (bf16 -> f32): one warp per 16x8 tile of C, A and B staged
// through shared memory 16x16 / 8x16 at a time.
__global__ void mmaSyncGemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c) {
  __shared__ alignas(16) __nv_bfloat16 sa[4][16 * 16];
  __shared__ alignas(16) __nv_bfloat16 sb[4][8 * 16];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int tile = blockIdx.x * 4 + warp;
  int row = (tile / (N / 8)) * 16, col = (tile % (N / 8)) * 8;
  float d[4] = {0, 0, 0, 0};
  for (int k = 0; k < K; k += 16) {
    for (int i = lane; i < 16 * 16; i += 32) sa[warp][i] = a[(row + i / 16) * K + k + i % 16];
    for (int i = lane; i < 8 * 16; i += 32) sb[warp][i] = b[(col + i / 16) * K + k + i % 16];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    // x4: lanes 0-15 give rows 0-15 of the left 8 columns, lanes 16-31 of the right 8
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[warp][(lane % 16) * 16 + (lane / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(pa));
    // B is column-major, so its 8 columns are rows of 16 k values: x2 gives k 0-7 and 8-15
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[warp][(lane % 8) * 16 + ((lane / 8) % 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(pb));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    __syncwarp();
  }
  int g = lane / 4, t = lane % 4;
  c[(row + g) * N + col + 2 * t] = d[0];
  c[(row + g) * N + col + 2 * t + 1] = d[1];
  c[(row + g + 8) * N + col + 2 * t] = d[2];
  c[(row + g + 8) * N + col + 2 * t + 1] = d[3];
}


// The host product of integer-valued matrices (A row-major, B column-major).
std::vector<double> product(const std::vector<double> &a, const std::vector<double> &b) {
  std::vector<double> c(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k) c[i * N + j] += a[i * K + k] * b[j * K + k];
  return c;
}

int main() {
  Random rng(20261127);
  Verdict verdict;
  std::vector<double> ia(M * K), ib(N * K), fa(M * K), fb(N * K);
  for (double &v : ia) v = double(rng.range(-3, 3));
  for (double &v : ib) v = double(rng.range(-3, 3));
  for (double &v : fa) v = rng.uniform(-1, 1);
  for (double &v : fb) v = rng.uniform(-1, 1);
  std::vector<double> exact = product(ia, ib);
  auto convert = [](const std::vector<double> &v, auto make) {
    std::vector<decltype(make(0.0))> out;
    for (double x : v) out.push_back(make(x));
    return out;
  };
  auto half = [](double x) { return __float2half(float(x)); };
  auto bf16 = [](double x) { return __float2bfloat16(float(x)); };

  // f16 -> f32 and f16 -> f16 on small integers: exact.
  __half *ha = deviceCopy(convert(ia, half)), *hb = deviceCopy(convert(ib, half));
  float *c32;
  __half *c16;
  CHECK(cudaMalloc(&c32, M * N * sizeof(float)));
  CHECK(cudaMalloc(&c16, M * N * sizeof(__half)));
  wmmaGemm<__half, float, 16><<<4, 128>>>(ha, hb, c32);
  CHECK_LAUNCH();
  std::vector<float> r32 = hostCopy(c32, M * N);
  for (int i = 0; i < M * N; ++i) verdict.expectEq((long long)r32[i], (long long)exact[i], "f16->f32", i);
  wmmaGemm<__half, __half, 16><<<4, 128>>>(ha, hb, c16);
  CHECK_LAUNCH();
  std::vector<__half> r16 = hostCopy(c16, M * N);
  for (int i = 0; i < M * N; ++i)
    verdict.expectEq((long long)__half2float(r16[i]), (long long)exact[i], "f16->f16", i);

  // bf16 on small integers: exact.
  __nv_bfloat16 *ba = deviceCopy(convert(ia, bf16)), *bb = deviceCopy(convert(ib, bf16));
  wmmaGemm<__nv_bfloat16, float, 16><<<4, 128>>>(ba, bb, c32);
  CHECK_LAUNCH();
  r32 = hostCopy(c32, M * N);
  for (int i = 0; i < M * N; ++i) verdict.expectEq((long long)r32[i], (long long)exact[i], "bf16", i);

  // tf32 and the same integers as floats: exact.
  std::vector<float> ta(ia.begin(), ia.end()), tb(ib.begin(), ib.end());
  float *fda = deviceCopy(ta), *fdb = deviceCopy(tb);
  wmmaGemmTf32<<<4, 128>>>(fda, fdb, c32);
  CHECK_LAUNCH();
  r32 = hostCopy(c32, M * N);
  for (int i = 0; i < M * N; ++i) verdict.expectEq((long long)r32[i], (long long)exact[i], "tf32", i);

  // f64 on random doubles: the tensor core's fma chain in k order equals the host's.
  double *da = deviceCopy(fa), *db = deviceCopy(fb), *c64;
  CHECK(cudaMalloc(&c64, M * N * sizeof(double)));
  wmmaGemmF64<<<16, 128>>>(da, db, c64);
  CHECK_LAUNCH();
  std::vector<double> r64 = hostCopy(c64, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want = std::fma(fa[i * K + k], fb[j * K + k], want);
      verdict.expect(r64[i * N + j] == want, "f64[%d]: got %.17g, expected %.17g", i * N + j, r64[i * N + j], want);
    }

  // f16 -> f32 on random floats in [-1, 1): within 1e-5 of the exact product of the f16 inputs.
  std::vector<__half> qa = convert(fa, half), qb = convert(fb, half);
  __half *hra = deviceCopy(qa), *hrb = deviceCopy(qb);
  wmmaGemm<__half, float, 16><<<4, 128>>>(hra, hrb, c32);
  CHECK_LAUNCH();
  r32 = hostCopy(c32, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(__half2float(qa[i * K + k])) * double(__half2float(qb[j * K + k]));
      verdict.expectNear(r32[i * N + j], want, 1e-5, 1e-5, "f16 random", i * N + j);
    }

  // s8 -> s32 with saturation: small values, so exact.
  std::vector<signed char> sa(M * K), sb(N * K);
  for (int i = 0; i < M * K; ++i) sa[i] = (signed char)ia[i];
  for (int i = 0; i < N * K; ++i) sb[i] = (signed char)ib[i];
  signed char *s8a = deviceCopy(sa), *s8b = deviceCopy(sb);
  int *ci;
  CHECK(cudaMalloc(&ci, M * N * sizeof(int)));
  wmmaGemm<signed char, int, 16><<<4, 128>>>(s8a, s8b, ci);
  CHECK_LAUNCH();
  std::vector<int> ri = hostCopy(ci, M * N);
  for (int i = 0; i < M * N; ++i) verdict.expectEq(ri[i], (long long)exact[i], "s8", i);

  // ldmatrix + mma.sync (bf16): exact.
  mmaSyncGemm<<<8, 128>>>(ba, bb, c32);
  CHECK_LAUNCH();
  r32 = hostCopy(c32, M * N);
  for (int i = 0; i < M * N; ++i) verdict.expectEq((long long)r32[i], (long long)exact[i], "mma.sync", i);

  CHECK(cudaDeviceSynchronize());
  std::printf("tensor_gemm: %dx%dx%d products with wmma (f16, bf16, tf32, f64, s8) and mma.sync\n", M, N, K);
  return verdict.finish();
}
