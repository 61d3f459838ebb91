// ptxvm test corpus: tensor cores.
// wmma (mma.h): 16x16x16 f16 -> f32 and f16 -> f16, row/col layouts, 32x8x16 and 8x32x16 shapes,
// s8 -> s32 (sm_72+), and on sm_80+ bf16 -> f32, tf32 -> f32 (m16n16k8) and f64 (m8n8k4).
// Also inline-PTX mma.sync.aligned.m16n8k8 (sm_75+), m16n8k16 (sm_80+) and ldmatrix.
// One warp computes one 16x16 tile; matrices are dense row-major unless noted.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

// C[16x16] (+)= A[16xK] * B[Kx16], one warp per tile, K multiple of 16.
extern "C" __global__ void wmma_f16_f32(const __half *a, const __half *b, float *c, int K)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + k, K);            // A row-major, ld = K
        wmma::load_matrix_sync(fb, b + k, K);            // B col-major, ld = K
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int e = 0; e < acc.num_elements; ++e)
        acc.x[e] = acc.x[e] * 2.0f;                      // element-wise fragment access
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_f16(const __half *a, const __half *b, const __half *cin, __half *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(acc, cin, 16, wmma::mem_col_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_col_major);
}

// Non-square shapes through shared memory.
extern "C" __global__ void wmma_shapes(const __half *a, const __half *b, float *c1, float *c2)
{
    __shared__ __half sa[32 * 16];
    __shared__ __half sb[16 * 32];
    for (int k = threadIdx.x; k < 32 * 16; k += blockDim.x) {
        sa[k] = a[k];
        sb[k] = b[k];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::row_major> fa1;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::row_major> fb1;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> c32x8;
    wmma::fill_fragment(c32x8, 1.0f);
    wmma::load_matrix_sync(fa1, sa, 16);
    wmma::load_matrix_sync(fb1, sb, 8);
    wmma::mma_sync(c32x8, fa1, fb1, c32x8);
    wmma::store_matrix_sync(c1, c32x8, 8, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 32, 16, __half, wmma::row_major> fa2;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, __half, wmma::row_major> fb2;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> c8x32;
    wmma::fill_fragment(c8x32, 0.0f);
    wmma::load_matrix_sync(fa2, sa, 16);
    wmma::load_matrix_sync(fb2, sb, 32);
    wmma::mma_sync(c8x32, fa2, fb2, c8x32);
    wmma::store_matrix_sync(c2, c8x32, 32, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s8_s32(const signed char *a, const signed char *b, int *c)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc, /*satf=*/true);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

// bf16 and tf32 variants need sm_80; on sm_75 the kernels exist but do nothing.
extern "C" __global__ void wmma_bf16_f32(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c)
{
#if __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
#else
    (void)a; (void)b; (void)c;
#endif
}

extern "C" __global__ void wmma_tf32_f32(const float *a, const float *b, float *c)
{
#if __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < 16; k += 8) {
        wmma::load_matrix_sync(fa, a + k, 16);
        wmma::load_matrix_sync(fb, b + k, 16);
        for (int e = 0; e < fa.num_elements; ++e)
            fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
        for (int e = 0; e < fb.num_elements; ++e)
            fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
#else
    (void)a; (void)b; (void)c;
#endif
}

extern "C" __global__ void wmma_f64(const double *a, const double *b, double *c)
{
#if __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
    wmma::fill_fragment(acc, 0.0);
    wmma::load_matrix_sync(fa, a, 4);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 8, wmma::mem_row_major);
#else
    (void)a; (void)b; (void)c;
#endif
}

// Raw mma.sync and ldmatrix. One warp; A is 16x8 f16 row-major, B 8x8 f16 col-major,
// C/D 16x8 f32. Register layouts follow the PTX ISA fragment tables.
// On sm_80+ a second m16n8k16 bf16 mma reuses the A/B registers (bits reinterpreted as bf16,
// A's two k-halves duplicated) and writes its 16x8 result to d2.
extern "C" __global__ void mma_sync_raw(const __half *a, const __half *b, float *d, float *d2)
{
    __shared__ alignas(16) __half sa[16 * 8];
    __shared__ alignas(16) __half sb[8 * 8];
    unsigned lane = threadIdx.x & 31;
    for (int k = lane; k < 128; k += 32)
        sa[k] = a[k];
    for (int k = lane; k < 64; k += 32)
        sb[k] = b[k];
    __syncwarp();
    unsigned a0, a1, b0;
    // ldmatrix: each of lanes 0-15 supplies one 8-element row address of A
    unsigned arow = (unsigned)__cvta_generic_to_shared(&sa[(lane & 15) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(a0), "=r"(a1) : "r"(arow));
    unsigned brow = (unsigned)__cvta_generic_to_shared(&sb[(lane & 7) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(b0) : "r"(brow));
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(a0), "r"(a1), "r"(b0));
#if __CUDA_ARCH__ >= 800
    // m16n8k16 with bf16 inputs reusing the same registers (values reinterpreted)
    float e0 = 0.f, e1 = 0.f, e2 = 0.f, e3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(e0), "+f"(e1), "+f"(e2), "+f"(e3)
                 : "r"(a0), "r"(a1), "r"(a0), "r"(a1), "r"(b0), "r"(b0));
    {
        unsigned row = lane >> 2, col = (lane & 3) * 2;
        d2[row * 8 + col] = e0;
        d2[row * 8 + col + 1] = e1;
        d2[(row + 8) * 8 + col] = e2;
        d2[(row + 8) * 8 + col + 1] = e3;
    }
#else
    (void)d2;
#endif
    unsigned row = lane >> 2, col = (lane & 3) * 2;
    d[row * 8 + col] = c0;
    d[row * 8 + col + 1] = c1;
    d[(row + 8) * 8 + col] = c2;
    d[(row + 8) * 8 + col + 1] = c3;
}
