// ptxvm test corpus: precise math library (libdevice-style code inlined by nvcc).
// sinf/cosf/tanf/sincosf, expf/exp2f/exp10f, logf/log2f/log10f/log1pf, powf, erff/erfcf,
// tanhf, atan2f, cbrtf, hypotf, fmodf/remainderf, lgammaf, and double sin/cos/exp/log/pow.
// These expand into long straight-line code with ex2.approx/lg2.approx, range reduction
// loops (local-memory arrays in sinf's Payne-Hanek path) and many f64 operations.
#include <cmath>

extern "C" __global__ void math_f32_trig(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float s, c;
    sincosf(v, &s, &c);
    out[6 * i + 0] = sinf(v);
    out[6 * i + 1] = cosf(v);
    out[6 * i + 2] = tanf(v);
    out[6 * i + 3] = s * c;
    out[6 * i + 4] = atan2f(v, 1.5f) + asinf(fminf(fmaxf(v, -1.0f), 1.0f));
    out[6 * i + 5] = sinpif(v) + cospif(v);
}

extern "C" __global__ void math_f32_exp_log(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float w = y[i];
    float a = fabsf(v) + 1e-3f;
    out[10 * i + 0] = expf(v);
    out[10 * i + 1] = exp2f(v);
    out[10 * i + 2] = exp10f(v);
    out[10 * i + 3] = expm1f(v);
    out[10 * i + 4] = logf(a);
    out[10 * i + 5] = log2f(a);
    out[10 * i + 6] = log10f(a);
    out[10 * i + 7] = log1pf(a);
    out[10 * i + 8] = powf(a, w);
    out[10 * i + 9] = cbrtf(v) + hypotf(v, w);
}

extern "C" __global__ void math_f32_special(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float w = y[i];
    out[8 * i + 0] = erff(v);
    out[8 * i + 1] = erfcf(v);
    out[8 * i + 2] = tanhf(v);
    out[8 * i + 3] = sinhf(v) + coshf(v);
    out[8 * i + 4] = fmodf(v, w);
    out[8 * i + 5] = remainderf(v, w);
    out[8 * i + 6] = lgammaf(fabsf(v) + 0.5f);
    int e;
    float m = frexpf(v, &e);
    out[8 * i + 7] = ldexpf(m, e + 1) + (float)ilogbf(w) + nextafterf(v, w);
}

extern "C" __global__ void math_f64(const double *x, const double *y, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i];
    double w = y[i];
    double a = fabs(v) + 1e-6;
    double s, c;
    sincos(v, &s, &c);
    out[10 * i + 0] = sin(v);
    out[10 * i + 1] = cos(v);
    out[10 * i + 2] = s + c + tan(v);
    out[10 * i + 3] = exp(v);
    out[10 * i + 4] = log(a);
    out[10 * i + 5] = pow(a, w);
    out[10 * i + 6] = erf(v) + tanh(v);
    out[10 * i + 7] = atan2(v, w) + acos(fmin(fmax(v, -1.0), 1.0));
    out[10 * i + 8] = fmod(v, w) + cbrt(v);
    out[10 * i + 9] = exp2(v) + log2(a) + log10(a);
}

// Intrinsics that map 1:1 to approximate PTX instructions even without -use_fast_math.
extern "C" __global__ void math_intrinsics(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float w = y[i];
    out[8 * i + 0] = __sinf(v);                 // sin.approx.f32
    out[8 * i + 1] = __cosf(v);                 // cos.approx.f32
    out[8 * i + 2] = __expf(v);                 // ex2.approx after scaling
    out[8 * i + 3] = __logf(fabsf(v) + 1.0f);   // lg2.approx
    out[8 * i + 4] = __fdividef(v, w);          // div.approx.f32
    out[8 * i + 5] = __powf(fabsf(v), w);
    out[8 * i + 6] = __tanf(v);
    out[8 * i + 7] = __exp10f(v) + __log2f(fabsf(w) + 1.0f) + __log10f(fabsf(w) + 2.0f);
}

// A numerical loop that mixes math calls with data-dependent trip counts.
extern "C" __global__ void math_newton_sqrt(const double *x, double *out, int *iters, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = fabs(x[i]) + 1.0;
    double g = a * 0.5;
    int k = 0;
    while (fabs(g * g - a) > 1e-12 * a && k < 64) {
        g = 0.5 * (g + a / g);
        ++k;
    }
    out[i] = g;
    iters[i] = k;
}
