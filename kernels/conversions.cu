// ptxvm test corpus: conversions between every integer and float type.
// Sign/zero extension and truncation (cvt.s64.s8, cvt.u16.u64, ...), float<->int with every
// rounding mode (__float2int_rn/rz/ru/rd, __float2uint_*, __double2ll_*, __int2float_*),
// float<->double with rounding (__double2float_rn/rz/ru/rd), saturating conversions
// (cvt.sat), float<->half/bf16, bit reinterpretation (mov.b32 / mov.b64 packs).
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void cvt_int_widths(const int64_t *in, int64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int64_t v = in[i];
    int8_t s8 = (int8_t)v;
    uint8_t u8 = (uint8_t)v;
    int16_t s16 = (int16_t)v;
    uint16_t u16 = (uint16_t)v;
    int32_t s32 = (int32_t)v;
    uint32_t u32 = (uint32_t)v;
    // sign extensions and zero extensions back up to 64 bits
    int64_t acc = 0;
    acc += (int64_t)s8;
    acc += (int64_t)u8 << 1;
    acc += (int64_t)s16 << 2;
    acc += (int64_t)u16 << 3;
    acc += (int64_t)s32 << 4;
    acc += (int64_t)u32 << 5;
    // narrow-to-narrow
    acc += (int16_t)s8 * 3;
    acc += (uint16_t)u8 * 5;
    acc += (int32_t)s16 + (int32_t)u16;
    acc += (uint32_t)s8;          // sign-extend then reinterpret
    out[i] = acc;
}

extern "C" __global__ void cvt_float_to_int(const float *f, const double *d, int *oi, unsigned *ou,
                                            long long *oll, unsigned long long *oull, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    double y = d[i];
    oi[8 * i + 0] = __float2int_rn(x);     // cvt.rni.s32.f32
    oi[8 * i + 1] = __float2int_rz(x);     // cvt.rzi.s32.f32
    oi[8 * i + 2] = __float2int_ru(x);     // cvt.rpi.s32.f32
    oi[8 * i + 3] = __float2int_rd(x);     // cvt.rmi.s32.f32
    oi[8 * i + 4] = __double2int_rn(y);
    oi[8 * i + 5] = __double2int_rz(y);
    oi[8 * i + 6] = (int)x;                // C cast = rz
    oi[8 * i + 7] = (short)x + (signed char)y;   // cvt.rzi.s16.f32 / s8.f64
    ou[6 * i + 0] = __float2uint_rn(x);
    ou[6 * i + 1] = __float2uint_rz(x);
    ou[6 * i + 2] = __float2uint_ru(x);
    ou[6 * i + 3] = __float2uint_rd(x);
    ou[6 * i + 4] = __double2uint_ru(y);
    ou[6 * i + 5] = (unsigned char)x + (unsigned short)y;
    oll[4 * i + 0] = __float2ll_rn(x);     // cvt.rni.s64.f32
    oll[4 * i + 1] = __float2ll_rd(x);
    oll[4 * i + 2] = __double2ll_rz(y);    // cvt.rzi.s64.f64
    oll[4 * i + 3] = __double2ll_ru(y);
    oull[3 * i + 0] = __float2ull_rz(x);
    oull[3 * i + 1] = __double2ull_rn(y);
    oull[3 * i + 2] = (unsigned long long)y;
}

extern "C" __global__ void cvt_int_to_float(const int *iv, const long long *llv, float *of,
                                            double *od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = iv[i];
    long long q = llv[i];
    of[10 * i + 0] = __int2float_rn(k);    // cvt.rn.f32.s32
    of[10 * i + 1] = __int2float_rz(k);
    of[10 * i + 2] = __int2float_ru(k);
    of[10 * i + 3] = __int2float_rd(k);
    of[10 * i + 4] = __uint2float_rn((unsigned)k);
    of[10 * i + 5] = __uint2float_rz((unsigned)k);
    of[10 * i + 6] = __ll2float_rn(q);     // cvt.rn.f32.s64
    of[10 * i + 7] = __ll2float_ru(q);
    of[10 * i + 8] = __ull2float_rd((unsigned long long)q);
    of[10 * i + 9] = (float)(short)k + (float)(unsigned char)k;  // cvt.rn.f32.s16 / u8
    od[5 * i + 0] = __int2double_rn(k);    // cvt.rn.f64.s32 (exact)
    od[5 * i + 1] = __uint2double_rn((unsigned)k);
    od[5 * i + 2] = __ll2double_rz(q);
    od[5 * i + 3] = __ull2double_ru((unsigned long long)q);
    od[5 * i + 4] = __ll2double_rd(q);
}

extern "C" __global__ void cvt_float_double(const double *d, const float *f, float *of,
                                            double *od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double y = d[i];
    float x = f[i];
    of[5 * i + 0] = __double2float_rn(y);  // cvt.rn.f32.f64
    of[5 * i + 1] = __double2float_rz(y);
    of[5 * i + 2] = __double2float_ru(y);
    of[5 * i + 3] = __double2float_rd(y);
    of[5 * i + 4] = (float)y;
    od[3 * i + 0] = (double)x;             // cvt.f64.f32 (exact)
    od[3 * i + 1] = rint(y) + trunc(y);    // cvt.rni.f64.f64 / cvt.rzi.f64.f64
    od[3 * i + 2] = floor(y) + ceil(y) + (double)(floorf(x) + ceilf(x) + truncf(x) + rintf(x));
}

// Saturating conversions (cvt.sat.*) written with inline PTX, and clamps.
extern "C" __global__ void cvt_saturating(const float *f, const int *iv, const long long *llv,
                                          int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    int k = iv[i];
    long long q = llv[i];
    unsigned short a;
    asm("cvt.rni.sat.u8.f32 %0, %1;" : "=h"(a) : "f"(x));     // float -> u8 saturating
    unsigned short b;
    asm("cvt.sat.s8.s32 %0, %1;" : "=h"(b) : "r"(k));          // narrow with saturation
    int c;
    asm("cvt.sat.s32.s64 %0, %1;" : "=r"(c) : "l"(q));
    unsigned d;
    asm("cvt.sat.u32.s32 %0, %1;" : "=r"(d) : "r"(k));
    float e;
    asm("cvt.sat.f32.f32 %0, %1;" : "=f"(e) : "f"(x));         // clamp to [0,1]
    unsigned short g;
    asm("cvt.sat.u16.s64 %0, %1;" : "=h"(g) : "l"(q));
    out[6 * i + 0] = a;
    out[6 * i + 1] = (signed char)b;
    out[6 * i + 2] = c;
    out[6 * i + 3] = (int)d;
    out[6 * i + 4] = __float_as_int(e);
    out[6 * i + 5] = g;
}

extern "C" __global__ void cvt_half_bf16(const float *f, const double *d, unsigned short *oh,
                                         float *of, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    oh[8 * i + 0] = __half_as_ushort(__float2half_rn(x));
    oh[8 * i + 1] = __half_as_ushort(__float2half_rz(x));
    oh[8 * i + 2] = __half_as_ushort(__float2half_ru(x));
    oh[8 * i + 3] = __half_as_ushort(__float2half_rd(x));
    oh[8 * i + 4] = __bfloat16_as_ushort(__float2bfloat16(x));
    oh[8 * i + 5] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
    oh[8 * i + 6] = __bfloat16_as_ushort(__float2bfloat16_rd(x));
    oh[8 * i + 7] = __half_as_ushort(__double2half(d[i]));
    of[2 * i + 0] = __half2float(__ushort_as_half(oh[8 * i]));
    of[2 * i + 1] = __bfloat162float(__ushort_as_bfloat16(oh[8 * i + 4]));
#if __CUDA_ARCH__ >= 800
    // cvt.rn.satfinite / relu variants via inline PTX (PTX 7.0+, sm_80+)
    unsigned packed;
    asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(x), "f"(-x));
    unsigned short t;
    asm("cvt.rn.relu.bf16.f32 %0, %1;" : "=h"(t) : "f"(x));
    oh[8 * i + 0] ^= (unsigned short)(packed ^ (packed >> 16) ^ t);
    unsigned tf;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(x));
    of[2 * i + 1] += __uint_as_float(tf);
#endif
}

// Bit reinterpretation and packing (mov.b64 {lo,hi}, mov.b32 {a,b}).
extern "C" __global__ void cvt_reinterpret(const double *d, const float *f, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double y = d[i];
    int lo = __double2loint(y);
    int hi = __double2hiint(y);
    double z = __hiloint2double(lo, hi + 1);
    long long bits = __double_as_longlong(z);
    unsigned fb = __float_as_uint(f[i]);
    float g = __uint_as_float(fb ^ 0x80000000u);
    unsigned packed;
    asm("{\n\t.reg .b16 lo16, hi16;\n\t"
        "mov.b32 {lo16, hi16}, %1;\n\t"
        "mov.b32 %0, {hi16, lo16};\n\t}"
        : "=r"(packed) : "r"(fb));
    out[4 * i + 0] = (unsigned)lo ^ (unsigned)hi;
    out[4 * i + 1] = (unsigned)(bits >> 32) ^ (unsigned)bits;
    out[4 * i + 2] = __float_as_uint(g);
    out[4 * i + 3] = packed;
}

// Integer <-> float through generic templates, so many cvt forms appear in one loop body.
template <typename From, typename To>
__device__ __noinline__ To convert_sum(const From *p, int n)
{
    To acc = To(0);
    for (int k = 0; k < n; ++k)
        acc += static_cast<To>(p[k]);
    return acc;
}

extern "C" __global__ void cvt_templates(const signed char *s8, const unsigned short *u16,
                                         const long long *s64, const float *f32, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0)
        return;
    double r = 0;
    r += convert_sum<signed char, float>(s8, n);
    r += convert_sum<unsigned short, double>(u16, n);
    r += convert_sum<long long, float>(s64, n);
    r += (double)convert_sum<float, int>(f32, n);
    r += (double)convert_sum<float, unsigned long long>(f32, n);
    r += (double)convert_sum<double, short>((const double *)s64, n);
    out[0] = r;
}
