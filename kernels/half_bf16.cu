// ptxvm test corpus: half precision (cuda_fp16.h) and bfloat16 (cuda_bf16.h).
// __half / __half2 arithmetic, hfma / hfma2 (incl. .relu / .sat), comparisons, min/max,
// packing and unpacking, conversions to/from float and integers;
// __nv_bfloat16 / __nv_bfloat162 arithmetic (native on sm_80+, emulated on sm_75).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __noinline__ __half2 h2_axpy(__half2 a, __half2 x, __half2 y)
{
    return __hfma2(a, x, y);
}

// bf16 fma intrinsics exist only for sm_80+; sm_75 goes through f32.
__device__ __forceinline__ __nv_bfloat16 bf_fma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
#if __CUDA_ARCH__ >= 800
    return __hfma(a, b, c);                 // fma.rn.bf16
#else
    return __float2bfloat16(__fmaf_rn(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
#endif
}

__device__ __forceinline__ __nv_bfloat162 bf2_fma(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
#if __CUDA_ARCH__ >= 800
    return __hfma2(a, b, c);                // fma.rn.bf16x2
#else
    return __halves2bfloat162(bf_fma(__low2bfloat16(a), __low2bfloat16(b), __low2bfloat16(c)),
                              bf_fma(__high2bfloat16(a), __high2bfloat16(b), __high2bfloat16(c)));
#endif
}

__device__ __noinline__ __nv_bfloat162 bf2_axpy(__nv_bfloat162 a, __nv_bfloat162 x, __nv_bfloat162 y)
{
    return bf2_fma(a, x, y);
}

extern "C" __global__ void half_scalar(const __half *a, const __half *b, const __half *c,
                                       __half *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half x = a[i], y = b[i], z = c[i];
    __half r = __hadd(x, y);          // add.f16
    r = __hmul(r, z);                 // mul.f16
    r = __hsub(r, x);                 // sub.f16
    r = __hfma(x, y, r);              // fma.rn.f16
    r = __hadd(r, __hdiv(x, __hadd(y, __float2half(4.0f))));
    r = __hadd(r, __hneg(z));
    r = __hadd(r, __habs(x));
    r = __hadd(r, __hmax(x, y));
    r = __hadd(r, __hmin(y, z));
    r = __hadd(r, __hfma_sat(x, y, z));
    r = __hadd(r, __hadd_sat(x, z));
    r = __hadd(r, hsqrt(__habs(y)));
    r = __hadd(r, hrcp(__hadd(z, __float2half(2.0f))));
    r = x + r * y;                    // operator overloads
    out[i] = r;
}

extern "C" __global__ void half2_vector(const __half2 *a, const __half2 *b, const __half2 *c,
                                        __half2 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half2 x = a[i], y = b[i], z = c[i];
    __half2 r = __hadd2(x, y);        // add.f16x2
    r = __hmul2(r, z);                // mul.f16x2
    r = __hsub2(r, x);
    r = __hfma2(x, y, r);             // fma.rn.f16x2
    r = __hadd2(r, __hfma2_sat(x, y, z));
    r = __hadd2(r, __hneg2(z));
    r = __hadd2(r, __habs2(y));
    r = __hadd2(r, __hmax2(x, y));
    r = __hadd2(r, __hmin2(x, z));
#if __CUDA_ARCH__ >= 800
    r = __hadd2(r, __hfma2_relu(x, y, z));   // fma.rn.relu.f16x2
    r = __hadd2(r, __hmax2_nan(x, y));       // max.NaN.f16x2
#endif
    r = __hadd2(r, h2_axpy(x, y, z));
    r = __hadd2(r, __lowhigh2highlow(r));    // swap halves
    r = __hadd2(r, __halves2half2(__low2half(x), __high2half(y)));
    out[i] = r;
}

extern "C" __global__ void half_compare(const __half2 *a, const __half2 *b, unsigned *mask, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half2 x = a[i], y = b[i];
    __half lx = __low2half(x), ly = __low2half(y);
    unsigned m = 0;
    m |= __heq(lx, ly) << 0;                  // setp.eq.f16
    m |= __hne(lx, ly) << 1;
    m |= __hlt(lx, ly) << 2;
    m |= __hle(lx, ly) << 3;
    m |= __hgt(lx, ly) << 4;
    m |= __hge(lx, ly) << 5;
    m |= __hltu(lx, ly) << 6;                 // unordered
    m |= __hisnan(lx) << 7;
    m |= (__hisinf(ly) != 0) << 8;
    m |= __hbeq2(x, y) << 9;                  // setp.eq.f16x2 + and
    m |= __hblt2(x, y) << 10;
    m |= __hbgeu2(x, y) << 11;
    __half2 le = __hle2(x, y);                // set.le.f16x2 -> 1.0/0.0 per half
    m |= (__half2float(__low2half(le)) != 0.0f) << 12;
    m |= (__half2float(__high2half(le)) != 0.0f) << 13;
#if __CUDA_ARCH__ >= 800
    m |= (__hle2_mask(x, y) & 0xFFFFu) ? (1u << 14) : 0u;
#endif
    mask[i] = m;
}

extern "C" __global__ void half_convert(const float *f, const int *iv, __half *h, __half2 *h2,
                                        float *back, int *iback, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    int k = iv[i];
    __half a = __float2half(x);          // cvt.rn.f16.f32
    __half b = __float2half_rz(x);       // cvt.rz.f16.f32
    __half c = __float2half_ru(x);
    __half d = __float2half_rd(x);
    __half e = __int2half_rn(k);         // cvt.rn.f16.s32
    __half g = __uint2half_rd((unsigned)k);
    __half s = __short2half_rn((short)k);
    __half ll = __ll2half_rz((long long)k * 3);
    h[6 * i + 0] = a;
    h[6 * i + 1] = __hadd(b, c);
    h[6 * i + 2] = __hadd(d, e);
    h[6 * i + 3] = __hadd(g, s);
    h[6 * i + 4] = ll;
    h[6 * i + 5] = __double2half((double)x * 0.5);
    h2[i] = __floats2half2_rn(x, x * 2.0f);   // cvt.rn.f16x2.f32 on sm_80+
    float2 f2 = __half22float2(h2[i]);
    back[2 * i] = __half2float(a) + f2.x;
    back[2 * i + 1] = __low2float(h2[i]) + __high2float(h2[i]) + f2.y;
    iback[4 * i + 0] = __half2int_rn(a);
    iback[4 * i + 1] = __half2int_rz(c);
    iback[4 * i + 2] = (int)__half2uint_rd(__habs(d));
    iback[4 * i + 3] = (int)__half2short_ru(e) + (int)__half_as_ushort(a);
}

extern "C" __global__ void bf16_scalar(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                       const __nv_bfloat16 *c, __nv_bfloat16 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat16 x = a[i], y = b[i], z = c[i];
    __nv_bfloat16 r = __hadd(x, y);
    r = __hmul(r, z);
    r = __hsub(r, x);
    r = bf_fma(x, y, r);
    r = __hadd(r, __hneg(z));
    r = __hadd(r, __habs(x));
    r = __hadd(r, __hmax(x, y));
    r = __hadd(r, __hmin(y, z));
    r = __hadd(r, __hdiv(x, __hadd(__habs(y), __float2bfloat16(1.0f))));
    r = x * y + r;
    out[i] = r;
}

extern "C" __global__ void bf16_vector(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                                       const __nv_bfloat162 *c, __nv_bfloat162 *out,
                                       unsigned *mask, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat162 x = a[i], y = b[i], z = c[i];
    __nv_bfloat162 r = __hadd2(x, y);
    r = __hmul2(r, z);
    r = __hsub2(r, y);
    r = bf2_fma(x, y, r);
    r = __hadd2(r, bf2_axpy(x, z, y));
    r = __hadd2(r, __hmax2(x, y));
    r = __hadd2(r, __habs2(z));
#if __CUDA_ARCH__ >= 800
    r = __hadd2(r, __hfma2_relu(x, y, z));
#endif
    out[i] = r;
    unsigned m = 0;
    m |= __hbeq2(x, y) << 0;
    m |= __hblt2(x, z) << 1;
    m |= __heq(__low2bfloat16(x), __high2bfloat16(y)) << 2;
    m |= __hisnan(__low2bfloat16(z)) << 3;
    mask[i] = m;
}

extern "C" __global__ void bf16_convert(const float *f, const double *d, __nv_bfloat16 *bf,
                                        __nv_bfloat162 *bf2, float *back, int *iback, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    __nv_bfloat16 a = __float2bfloat16(x);        // cvt.rn.bf16.f32 (sm_80+)
    __nv_bfloat16 b = __float2bfloat16_rz(x);     // cvt.rz.bf16.f32
    __nv_bfloat16 c = __float2bfloat16_ru(x);
    __nv_bfloat16 e = __double2bfloat16(d[i]);
    __nv_bfloat16 g = __int2bfloat16_rn(i - 7);
    bf[4 * i + 0] = a;
    bf[4 * i + 1] = __hadd(b, c);
    bf[4 * i + 2] = e;
    bf[4 * i + 3] = g;
    bf2[i] = __floats2bfloat162_rn(x, -x);        // cvt.rn.bf16x2.f32
    back[i] = __bfloat162float(a) + __low2float(bf2[i]) + __high2float(bf2[i]);
    iback[2 * i] = __bfloat162int_rz(c);
    iback[2 * i + 1] = (int)__bfloat16_as_ushort(a);
    // half <-> bf16 through float
    __half h = __float2half(__bfloat162float(b));
    back[i] += __half2float(h);
}
