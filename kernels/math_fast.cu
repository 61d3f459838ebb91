// ptxvm test corpus: fast math. Built with -use_fast_math (see FAST_MATH list in
// CMakeLists.txt): sinf/expf/logf become sin.approx/ex2.approx/lg2.approx, division becomes
// div.approx/div.full, and f32 operations carry .ftz.
#include <cmath>

extern "C" __global__ void fast_transcendental(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float w = y[i];
    out[8 * i + 0] = sinf(v) + cosf(w);
    out[8 * i + 1] = expf(v);
    out[8 * i + 2] = logf(fabsf(w) + 1.0f);
    out[8 * i + 3] = powf(fabsf(v) + 1.0f, w);
    out[8 * i + 4] = v / w;                     // div.full.ftz.f32 / div.approx
    out[8 * i + 5] = sqrtf(fabsf(v));           // sqrt.approx.ftz.f32
    out[8 * i + 6] = 1.0f / w;                  // rcp.approx.ftz
    out[8 * i + 7] = tanhf(v) + exp2f(w) + log2f(fabsf(v) + 1.0f);
}

extern "C" __global__ void fast_intrinsics(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float w = y[i];
    float s, c;
    __sincosf(v, &s, &c);
    out[4 * i + 0] = __sinf(v) * __cosf(w) + s * c;
    out[4 * i + 1] = __expf(v) + __logf(fabsf(w) + 1.0f);
    out[4 * i + 2] = __fdividef(v, w);
    out[4 * i + 3] = __fsqrt_rn(fabsf(v)) + rsqrtf(fabsf(w) + 1.0f);
}

// Softmax over one row per block: exp, max and sum reductions with fast math.
extern "C" __global__ void fast_softmax(const float *in, float *out, int cols)
{
    __shared__ float red[256];
    const float *row = in + (size_t)blockIdx.x * cols;
    float *orow = out + (size_t)blockIdx.x * cols;
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int c = t; c < cols; c += blockDim.x)
        m = fmaxf(m, row[c]);
    red[t] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = t; c < cols; c += blockDim.x)
        sum += expf(row[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int c = t; c < cols; c += blockDim.x)
        orow[c] = expf(row[c] - m) * inv;
}

// Double precision is unaffected by -use_fast_math except for contraction.
extern "C" __global__ void fast_mixed_precision(const double *x, const float *y, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double d = x[i];
    float f = y[i];
    out[i] = sin(d) * (double)__sinf(f) + d / (double)f;
}
