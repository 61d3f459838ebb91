// ptxvm test corpus: small realistic workloads (used by tests and benchmarks).
// vector add (grid-stride), SAXPY, tiled SGEMM in shared memory, block reduction + atomics,
// bitonic sort in shared memory, 2-D 5-point stencil, histogram, Mandelbrot (divergent
// loop trip counts), N-body step (rsqrtf), prefix-sum based stream compaction.

extern "C" __global__ void vec_add(const float *a, const float *b, float *c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float alpha, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}

// C[MxN] = A[MxK] * B[KxN], row-major, 16x16 tiles, blockDim = (16,16).
#define TS 16
extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS + 1];
    int row = blockIdx.y * TS + threadIdx.y;
    int col = blockIdx.x * TS + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TS) {
        As[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? A[row * K + t + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && t + threadIdx.y < K) ? B[(t + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

// Sum of an array: shared-memory tree + warp shuffle tail + one atomic per block.
extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float s[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        s[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = (threadIdx.x < (blockDim.x + 31) / 32) ? s[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0)
            atomicAdd(out, v);
    }
}

// Bitonic sort of 1024 keys per block (blockDim.x == 512, two keys per thread).
extern "C" __global__ void bitonic_sort_1024(unsigned *keys)
{
    __shared__ unsigned s[1024];
    unsigned *base = keys + blockIdx.x * 1024;
    s[threadIdx.x] = base[threadIdx.x];
    s[threadIdx.x + 512] = base[threadIdx.x + 512];
    __syncthreads();
    for (unsigned size = 2; size <= 1024; size <<= 1) {
        for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
            unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            bool up = ((pos & size) == 0);
            unsigned a = s[pos], b = s[pos + stride];
            if ((a > b) == up) {
                s[pos] = b;
                s[pos + stride] = a;
            }
            __syncthreads();
        }
    }
    base[threadIdx.x] = s[threadIdx.x];
    base[threadIdx.x + 512] = s[threadIdx.x + 512];
}

// 5-point Jacobi stencil with a shared-memory halo; blockDim = (16,16).
extern "C" __global__ void stencil_2d(const float *in, float *out, int w, int h)
{
    __shared__ float t[18][18];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    auto at = [&](int xx, int yy) {
        xx = min(max(xx, 0), w - 1);
        yy = min(max(yy, 0), h - 1);
        return in[yy * w + xx];
    };
    t[threadIdx.y + 1][threadIdx.x + 1] = at(x, y);
    if (threadIdx.x == 0)
        t[threadIdx.y + 1][0] = at(x - 1, y);
    if (threadIdx.x == 15)
        t[threadIdx.y + 1][17] = at(x + 1, y);
    if (threadIdx.y == 0)
        t[0][threadIdx.x + 1] = at(x, y - 1);
    if (threadIdx.y == 15)
        t[17][threadIdx.x + 1] = at(x, y + 1);
    __syncthreads();
    if (x < w && y < h) {
        int ty = threadIdx.y + 1, tx = threadIdx.x + 1;
        out[y * w + x] = 0.2f * (t[ty][tx] + t[ty - 1][tx] + t[ty + 1][tx] + t[ty][tx - 1] + t[ty][tx + 1]);
    }
}

extern "C" __global__ void histogram_256(const unsigned char *data, unsigned *hist, int n)
{
    __shared__ unsigned local[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x)
        local[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < 256; k += blockDim.x)
        if (local[k])
            atomicAdd(&hist[k], local[k]);
}

extern "C" __global__ void mandelbrot(unsigned char *img, int w, int h, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h)
        return;
    float cx = -2.0f + 3.0f * px / w;
    float cy = -1.5f + 3.0f * py / h;
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (x * x + y * y <= 4.0f && it < max_iter) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        ++it;
    }
    img[py * w + px] = (unsigned char)(255 * it / max_iter);
}

// Black-Scholes call and put prices, one option per thread: expf, logf, sqrtf and divisions, the
// arithmetic of long programs of many short launches (bench_emulator, issue 14).
__device__ inline float cumulative_normal(float d)
{
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    const float poly =
        k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    const float tail = 0.39894228040143267794f * expf(-0.5f * d * d) * poly;
    return d > 0 ? 1.0f - tail : tail;
}

extern "C" __global__ void black_scholes(float *call, float *put, const float *spot, const float *strike,
                                         const float *years, float rate, float volatility, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = spot[i], x = strike[i], t = years[i], sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (rate + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float discount = x * expf(-rate * t);
    call[i] = s * cumulative_normal(d1) - discount * cumulative_normal(d2);
    put[i] = discount * (1.0f - cumulative_normal(d2)) - s * (1.0f - cumulative_normal(d1));
}

// One explicit-Euler N-body step; bodies are float4 (x, y, z, mass), tiled through shared memory.
extern "C" __global__ void nbody_step(const float4 *pos, float4 *vel, float4 *npos, int n, float dt)
{
    __shared__ float4 tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = (i < n) ? pos[i] : make_float4(0, 0, 0, 0);
    float3 a = make_float3(0, 0, 0);
    for (int base = 0; base < n; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = (j < n) ? pos[j] : make_float4(0, 0, 0, 0);
        __syncthreads();
        for (int k = 0; k < (int)blockDim.x && base + k < n; ++k) {
            float4 q = tile[k];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-3f);
            float s = q.w * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        v.x += a.x * dt;
        v.y += a.y * dt;
        v.z += a.z * dt;
        vel[i] = v;
        npos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
    }
}

// Stream compaction of positive values within one block (blockDim.x <= 1024).
extern "C" __global__ void compact_positive(const int *in, int *out, int *count, int n)
{
    __shared__ int scan[1024];
    int t = threadIdx.x;
    int v = (t < n) ? in[t] : 0;
    int flag = v > 0;
    scan[t] = flag;
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off <<= 1) {
        int add = (t >= off) ? scan[t - off] : 0;
        __syncthreads();
        scan[t] += add;
        __syncthreads();
    }
    if (flag)
        out[scan[t] - 1] = v;
    if (t == (int)blockDim.x - 1)
        *count = scan[t];
}
