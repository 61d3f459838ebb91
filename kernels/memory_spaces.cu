// ptxvm test corpus: state spaces and module-level variables.
// Local arrays with dynamic indices (ld.local/st.local), static and dynamic (extern __shared__)
// shared memory, __constant__ and __device__ variables and arrays with initializers, a __device__
// pointer initialized to the address of another variable (generic(sym) initializer), __managed__
// variables, cache-operator loads/stores (__ldg/__ldcg/__ldcs/__ldlu/__ldcv, __stcg/__stcs/__stwt/
// __stwb), vector loads/stores, generic<->specific address conversion (cvta, isspacep),
// volatile accesses, texture/surface objects.
#include <cstdint>

// ---- module-scope variables ------------------------------------------------------------------
__constant__ float c_coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, -1.0f, -0.5f, 2.0f, 4.0f};
__constant__ int c_scalar = 42;
__constant__ int c_uninit[16];                       // filled by cudaMemcpyToSymbol
__constant__ double c_dtab[3] = {3.141592653589793, 2.718281828459045, 1.4142135623730951};
__constant__ struct {
    int a;
    short b[3];
    char c;
    double d;
} c_struct = {7, {1, -2, 3}, 'x', 0.5};

__device__ int g_counter = 0;
__device__ int g_table[10] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81};
__device__ unsigned long long g_big[2] = {0xFFFFFFFFFFFFFFFFULL, 0x0123456789ABCDEFULL};
__device__ float g_farr[4] = {1.5f, -2.5f, 1e-30f, 3e38f};
__device__ char g_str[] = "ptxvm";
__device__ int *g_ptr = &g_table[3];                 // pointer to another variable (+offset)
__device__ float *g_fptr = g_farr;
__device__ int **g_pptr = &g_ptr;                    // pointer to pointer
__device__ const float *g_cptr = c_coeffs;           // pointer into constant memory
__device__ uint8_t g_bytes[7] = {1, 2, 3, 4, 5, 6, 7};
__device__ int16_t g_shorts[3] = {-1, 2, -3};
__device__ double g_uninit_d[4];
__managed__ int m_value = 5;                         // .attribute(.managed)

extern "C" __global__ void mem_module_vars(int *out, float *fout)
{
    int t = threadIdx.x;
    int k = t % 10;
    out[8 * t + 0] = g_table[k] + c_scalar + c_uninit[t & 15];
    out[8 * t + 1] = *g_ptr + (*g_pptr)[1];
    out[8 * t + 2] = (int)g_big[t & 1] + g_str[t % 5] + g_bytes[t % 7] + g_shorts[t % 3];
    out[8 * t + 3] = c_struct.a + c_struct.b[t % 3] + c_struct.c;
    out[8 * t + 4] = m_value;
    out[8 * t + 5] = atomicAdd(&g_counter, 1);
    out[8 * t + 6] = (int)(g_ptr - g_table);
    out[8 * t + 7] = (int)c_dtab[t % 3];
    fout[2 * t] = c_coeffs[t & 7] * g_fptr[t & 3] + g_cptr[(t + 1) & 7];
    fout[2 * t + 1] = (float)c_struct.d;
    g_uninit_d[t & 3] = (double)t;
    if (t == 0)
        g_ptr = &g_table[4];                         // retarget the pointer
}

// ---- local memory ------------------------------------------------------------------------------
__device__ __noinline__ int sum_local(const int *a, int n)
{
    int s = 0;
    for (int k = 0; k < n; ++k)
        s += a[k];
    return s;
}

extern "C" __global__ void mem_local_arrays(const int *idx, const float *vals, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float lut[32];                                   // dynamically indexed -> .local
    int hist[16] = {0};
    double dl[8];
    for (int k = 0; k < 32; ++k)
        lut[k] = vals[(i + k) % n] * (float)k;
    for (int k = 0; k < 8; ++k)
        dl[k] = (double)lut[(idx[i] + k) & 31];
    for (int k = 0; k < 32; ++k)
        hist[(int)lut[k] & 15]++;
    int j = idx[i] & 31;
    lut[j] += 1.0f;
    lut[(j * 7) & 31] *= 2.0f;
    out[i] = lut[idx[(i + 1) % n] & 31] + (float)sum_local(hist, 16) + (float)dl[idx[i] & 7];
}

// ---- shared memory -------------------------------------------------------------------------------
extern "C" __global__ void mem_static_shared(const float *in, float *out, int n)
{
    __shared__ float tile[32][33];                   // padded 2-D transpose tile
    __shared__ int s_flag;
    __shared__ double s_d[4];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        s_flag = 1;
        for (int k = 0; k < 4; ++k)
            s_d[k] = k * 0.5;
    }
    if (x < n && y < n)
        tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    int tx = blockIdx.y * 32 + threadIdx.x;
    int ty = blockIdx.x * 32 + threadIdx.y;
    if (tx < n && ty < n)
        out[ty * n + tx] = tile[threadIdx.x][threadIdx.y] * (float)s_flag + (float)s_d[threadIdx.x & 3];
}

extern __shared__ float dyn_smem[];                  // .extern .shared .align 16 .b8 dyn_smem[]

extern "C" __global__ void mem_dynamic_shared(const float *in, float *out, int n)
{
    // layout: [blockDim.x floats][blockDim.x ints] in the dynamic allocation
    float *fs = dyn_smem;
    int *is = reinterpret_cast<int *>(dyn_smem + blockDim.x);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    fs[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    is[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    unsigned j = blockDim.x - 1 - threadIdx.x;
    if (i < n)
        out[i] = fs[j] + (float)is[j];
}

extern "C" __global__ void mem_dynamic_shared_typed(double *out)
{
    extern __shared__ double dyn_d[];                // a second extern shared, different type
    dyn_d[threadIdx.x] = threadIdx.x * 1.5;
    __syncthreads();
    out[threadIdx.x] = dyn_d[(threadIdx.x + 1) % blockDim.x];
}

// ---- cache operators, vector accesses, volatile ---------------------------------------------------
extern "C" __global__ void mem_cache_ops(const float4 *__restrict__ in, const float *__restrict__ ro,
                                         float4 *out, float *sout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 a = __ldg(&in[i]);                        // ld.global.nc.v4.f32
    float b = __ldcg(&ro[i]);                        // ld.global.cg
    float c = __ldcs(&ro[(i + 1) % n]);              // ld.global.cs
    float d = __ldlu(&ro[(i + 2) % n]);              // ld.global.lu
    float e = __ldcv(&ro[(i + 3) % n]);              // ld.global.cv
    float f = ro[(i + 4) % n];                       // restrict const -> ld.global.nc
    float4 r = make_float4(a.x + b, a.y + c, a.z + d, a.w + e + f);
    __stcg(&out[i], r);                              // st.global.cg.v4
    __stcs(&sout[i], b);                             // st.global.cs
    __stwt(&sout[n + i], c);                         // st.global.wt
    __stwb(&sout[2 * n + i], d);                     // st.global.wb
    double2 dd = __ldg(reinterpret_cast<const double2 *>(ro) + (i % (n / 4 > 0 ? n / 4 : 1)));
    sout[3 * n + i] = (float)(dd.x + dd.y);
}

extern "C" __global__ void mem_vectors(const int4 *a, const short2 *b, const char4 *c,
                                       const double2 *d, int4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int4 x = a[i];                                   // ld.global.v4.u32
    short2 y = b[i];                                 // ld.global.v2.u16
    char4 z = c[i];                                  // ld.global.v4.u8
    double2 w = d[i];                                // ld.global.v2.f64
    out[i] = make_int4(x.x + y.x, x.y + y.y, x.z + z.z + z.w, x.w + (int)(w.x * w.y));
}

extern "C" __global__ void mem_volatile(volatile int *flag, volatile int *data, int *out)
{
    // ld.volatile / st.volatile on global and shared memory
    __shared__ volatile int s[32];
    s[threadIdx.x & 31] = data[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0)
        *flag = s[31];
    out[threadIdx.x] = s[(threadIdx.x + 1) & 31] + *flag;
}

// ---- generic addressing ---------------------------------------------------------------------
__device__ __noinline__ int classify(const void *p)
{
    return (__isGlobal(p) ? 1 : 0) | (__isShared(p) ? 2 : 0) | (__isLocal(p) ? 4 : 0) |
           (__isConstant(p) ? 8 : 0);
}

extern "C" __global__ void mem_generic(int *g, int *out)
{
    __shared__ int s[4];
    int l[4];
    l[threadIdx.x & 3] = (int)threadIdx.x;
    s[threadIdx.x & 3] = 1;
    const int *ptrs[4] = {g, s, l, &c_scalar};
    int r = classify(ptrs[threadIdx.x & 3]);
    size_t sa = __cvta_generic_to_shared(s);         // cvta.to.shared
    void *back = __cvta_shared_to_generic(sa);       // cvta.shared
    r |= (back == (void *)s) ? 16 : 0;
    size_t ga = __cvta_generic_to_global(g);
    r |= (__cvta_global_to_generic(ga) == (void *)g) ? 32 : 0;
    unsigned sa32;
    asm("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(sa32) : "l"(s));
    int v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(sa32));   // 32-bit shared address
    out[threadIdx.x] = r + v + l[(threadIdx.x + 1) & 3] * 0;
}

// ---- texture and surface objects --------------------------------------------------------------
extern "C" __global__ void mem_texture(cudaTextureObject_t tex, cudaTextureObject_t tex1d,
                                       cudaSurfaceObject_t surf, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);          // tex.2d.v4.f32.f32
    float u = tex1Dfetch<float>(tex1d, y * w + x);              // tex.1d.v4.f32.s32
    float s;
    surf2Dread(&s, surf, x * (int)sizeof(float), y);            // suld.b.2d
    surf2Dwrite(v + u + s, surf, x * (int)sizeof(float), y);    // sust.b.2d
    out[y * w + x] = v - u;
}

// ---- prefetch and address arithmetic with large offsets -------------------------------------------
extern "C" __global__ void mem_prefetch(const float *in, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(in + i + 4096));
    asm volatile("prefetch.global.L1 [%0];" ::"l"(in + i + 32));
    out[i] = in[i] + in[(i + 1000000) % n];
}
