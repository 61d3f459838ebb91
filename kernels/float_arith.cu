// ptxvm test corpus: f32 and f64 arithmetic.
// add/sub/mul with explicit rounding (__fadd_rn/rz/ru/rd ...), fma, IEEE and approximate
// division, sqrt, rsqrt, rcp, min/max (incl. NaN handling), abs/neg, copysign,
// comparisons (ordered/unordered), selp, testp (isnan/isinf/isfinite), saturate.
#include <cmath>

__device__ __noinline__ float horner_f32(float x, const float *c, int n)
{
    float r = c[n - 1];
    for (int k = n - 2; k >= 0; --k)
        r = fmaf(r, x, c[k]);
    return r;
}

__device__ __noinline__ double horner_f64(double x, const double *c, int n)
{
    double r = c[n - 1];
    for (int k = n - 2; k >= 0; --k)
        r = fma(r, x, c[k]);
    return r;
}

extern "C" __global__ void f32_basic(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float r = x + y;
    r = r * z - x;
    r += fmaf(x, y, z);                 // fma.rn.f32
    r += x / y;                          // div.rn.f32 (IEEE)
    r += sqrtf(fabsf(x));                // sqrt.rn.f32
    r += rsqrtf(fabsf(y) + 1.0f);        // rsqrt.approx.f32
    r += 1.0f / z;                       // rcp.rn.f32
    r += fminf(x, y) + fmaxf(y, z);      // min/max.f32
    r += copysignf(r, y);
    r += -fabsf(z);
    r = (x > y) ? r : -r;
    out[i] = r;
}

extern "C" __global__ void f32_rounding(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    out[16 * i + 0] = __fadd_rn(x, y);
    out[16 * i + 1] = __fadd_rz(x, y);
    out[16 * i + 2] = __fadd_ru(x, y);
    out[16 * i + 3] = __fadd_rd(x, y);
    out[16 * i + 4] = __fmul_rn(x, y);
    out[16 * i + 5] = __fmul_rz(x, y);
    out[16 * i + 6] = __fsub_ru(x, y);
    out[16 * i + 7] = __fsub_rd(x, y);
    out[16 * i + 8] = __fmaf_rz(x, y, z);
    out[16 * i + 9] = __fmaf_ru(x, y, z);
    out[16 * i + 10] = __fdiv_rz(x, y);
    out[16 * i + 11] = __fdiv_rd(x, y);
    out[16 * i + 12] = __fsqrt_ru(fabsf(x));
    out[16 * i + 13] = __frcp_rd(y);
    out[16 * i + 14] = __frsqrt_rn(fabsf(z) + 0.5f);
    out[16 * i + 15] = __saturatef(x);          // cvt/add.sat.f32
}

extern "C" __global__ void f64_basic(const double *a, const double *b, const double *c, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], z = c[i];
    double r = x * y + z;               // fma contraction
    r -= x - y;
    r += fma(x, z, y);                  // fma.rn.f64
    r += x / y;                          // div.rn.f64
    r += sqrt(fabs(z));                  // sqrt.rn.f64
    r += rsqrt(fabs(x) + 1.0);           // rsqrt.approx.f64 / refinement
    r += 1.0 / z;                        // rcp.rn.f64
    r += fmin(x, y) + fmax(y, z);
    r += copysign(r, x);
    r = (x <= z) ? r : -r;
    out[i] = r;
}

extern "C" __global__ void f64_rounding(const double *a, const double *b, const double *c, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], z = c[i];
    out[12 * i + 0] = __dadd_rn(x, y);
    out[12 * i + 1] = __dadd_rz(x, y);
    out[12 * i + 2] = __dadd_ru(x, y);
    out[12 * i + 3] = __dadd_rd(x, y);
    out[12 * i + 4] = __dmul_rz(x, y);
    out[12 * i + 5] = __dsub_ru(x, y);
    out[12 * i + 6] = __fma_rz(x, y, z);
    out[12 * i + 7] = __fma_rd(x, y, z);
    out[12 * i + 8] = __ddiv_ru(x, y);
    out[12 * i + 9] = __dsqrt_rd(fabs(x));
    out[12 * i + 10] = __drcp_rz(y);
    out[12 * i + 11] = __dsqrt_rn(fabs(z));
}

// Comparisons, including unordered ones, and classification (testp).
extern "C" __global__ void float_compare(const float *a, const float *b, const double *da,
                                         const double *db, unsigned *mask, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    double u = da[i], v = db[i];
    unsigned m = 0;
    m |= (x == y) << 0;
    m |= (x != y) << 1;                // setp.neu
    m |= (x < y) << 2;
    m |= (x <= y) << 3;
    m |= !(x >= y) << 4;               // setp.ltu / unordered forms
    m |= !(x > y) << 5;
    m |= (isnan(x) ? 1u : 0u) << 6;    // testp.nan / setp.nan
    m |= (isinf(y) ? 1u : 0u) << 7;
    m |= (isfinite(x) ? 1u : 0u) << 8;
    m |= (signbit(y) ? 1u : 0u) << 9;
    m |= (u == v) << 10;
    m |= (u < v) << 11;
    m |= !(u >= v) << 12;
    m |= (isnan(u) ? 1u : 0u) << 13;
    m |= (isinf(v) ? 1u : 0u) << 14;
    m |= (x != 0.0f && fabsf(x) < 1.17549435e-38f) << 15; // subnormal
    unsigned t;
    asm("{\n\t.reg .pred p;\n\t"
        "testp.normal.f32 p, %1;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(t) : "f"(x));
    m |= t << 16;
    mask[i] = m;
}

// Polynomial evaluation through noinline functions taking float/double params by value.
extern "C" __global__ void float_poly(const float *x, const double *dx, float *out, double *dout, int n)
{
    const float cf[6] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f};
    const double cd[6] = {1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = horner_f32(x[i], cf, 6);
    dout[i] = horner_f64(dx[i], cd, 6);
}

// Special values as immediates: inf, -inf, nan, denormals, -0.0, f32 and f64 limits.
extern "C" __global__ void float_specials(float *out, double *dout)
{
    int i = threadIdx.x;
    volatile float vz = 0.0f;
    float zero = vz;
    out[8 * i + 0] = __int_as_float(0x7f800000);      // +inf
    out[8 * i + 1] = -__int_as_float(0x7f800000);     // -inf
    out[8 * i + 2] = zero / zero;                     // nan
    out[8 * i + 3] = 1.0e-40f * (float)(i + 1);       // denormal
    out[8 * i + 4] = -0.0f * (float)i;
    out[8 * i + 5] = 3.4028235e38f;
    out[8 * i + 6] = 1.17549435e-38f;
    out[8 * i + 7] = __fdiv_rn(1.0f, zero);
    dout[4 * i + 0] = __longlong_as_double(0x7ff0000000000000LL);
    dout[4 * i + 1] = 4.9406564584124654e-324 * (double)(i + 1);
    dout[4 * i + 2] = 1.7976931348623157e308;
    dout[4 * i + 3] = (double)zero / (double)zero;
}

// Reduction of a float array in shared memory (add.f32 with ordering dependence).
extern "C" __global__ void float_block_sum(const float *in, float *out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (t < w)
            s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
