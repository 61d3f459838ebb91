// ptxvm test corpus: atomic operations on global and shared memory.
// atomicAdd (int, unsigned, ull, float, double, __half2, __half, __nv_bfloat16), atomicSub,
// atomicExch (32/64/float), atomicMin/Max (s32, u32, s64, u64), atomicInc/Dec (wrapping),
// atomicCAS (16/32/64-bit), atomicAnd/Or/Xor (32/64-bit), scoped variants (_block, _system),
// results used and unused (atom vs red), and a CAS loop implementing a float max.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct Counters {
    int i32;
    unsigned u32;
    unsigned long long u64;
    long long s64;
    float f32;
    double f64;
    unsigned inc;
    unsigned dec;
    unsigned bits32;
    unsigned long long bits64;
    int mn;
    int mx;
    unsigned umn;
    unsigned umx;
    long long mn64;
    unsigned long long umx64;
};

__device__ float atomic_max_float(float *addr, float value)
{
    int *ia = (int *)addr;
    int old = *ia;
    while (__int_as_float(old) < value) {
        int assumed = old;
        old = atomicCAS(ia, assumed, __float_as_int(value));
        if (old == assumed)
            break;
    }
    return __int_as_float(old);
}

__device__ __noinline__ unsigned long long atomic_mul_u64(unsigned long long *addr, unsigned long long m)
{
    unsigned long long old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed * m);
    } while (assumed != old);
    return old;
}

// Every kind on global memory; results discarded (red.* candidates).
extern "C" __global__ void atomics_global_noret(Counters *c, const int *vals, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = vals[i];
    atomicAdd(&c->i32, v);
    atomicSub(&c->i32, 1);
    atomicAdd(&c->u32, (unsigned)v);
    atomicAdd(&c->u64, (unsigned long long)(unsigned)v);
    atomicAdd(&c->f32, (float)v * 0.5f);
    atomicAdd(&c->f64, (double)v * 0.25);
    atomicInc(&c->inc, 15u);
    atomicDec(&c->dec, 15u);
    atomicAnd(&c->bits32, ~(1u << (i & 31)));
    atomicOr(&c->bits32, 1u << (v & 31));
    atomicXor(&c->bits64, 1ull << (i & 63));
    atomicMin(&c->mn, v);
    atomicMax(&c->mx, v);
    atomicMin(&c->umn, (unsigned)v);
    atomicMax(&c->umx, (unsigned)v);
    atomicMin(&c->mn64, (long long)v * 3);
    atomicMax(&c->umx64, (unsigned long long)v << 20);
    atomicAnd(&c->bits64, ~0ull >> 1);
    atomicOr(&c->bits64, (unsigned long long)i);
    // explicit reductions (no result register)
    asm volatile("red.global.add.u32 [%0], %1;" :: "l"(&c->u32), "r"(1u) : "memory");
    asm volatile("red.relaxed.gpu.global.max.s32 [%0], %1;" :: "l"(&c->mx), "r"(v) : "memory");
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(&c->f32), "f"(1.0f) : "memory");
}

// Every kind on global memory with the old value used (atom.* with destination).
extern "C" __global__ void atomics_global_ret(Counters *c, const int *vals, int *old, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = vals[i];
    long long acc = 0;
    acc += atomicAdd(&c->i32, v);
    acc += atomicSub(&c->i32, 2);
    acc += atomicExch(&c->u32, (unsigned)i);
    acc += (long long)atomicExch(&c->u64, (unsigned long long)i << 32);
    acc += (long long)atomicExch(&c->f32, (float)i);
    acc += atomicCAS(&c->mn, v, v + 1);
    acc += (long long)atomicCAS(&c->u64, 0ull, 42ull);
    acc += atomicInc(&c->inc, 7u);
    acc += atomicDec(&c->dec, 7u);
    acc += atomicMin(&c->mn, v);
    acc += atomicMax(&c->mx, -v);
    acc += atomicMin(&c->mn64, (long long)v);
    acc += (long long)atomicMax(&c->umx64, 7ull);
    acc += atomicAnd(&c->bits32, 0xF0F0F0F0u);
    acc += atomicOr(&c->bits32, 1u);
    acc += atomicXor(&c->bits32, 0xFFu);
    acc += (long long)atomicAdd(&c->f64, 1.0);
    acc += (long long)atomic_max_float(&c->f32, (float)v);
    acc += (long long)atomic_mul_u64(&c->bits64, 3ull);
    old[i] = (int)acc;
}

// Half-precision atomics: __half2 (atom.add.noftz.f16x2), __half and bf16 variants.
extern "C" __global__ void atomics_half(__half2 *h2, __half *h, __nv_bfloat16 *bf,
                                        __nv_bfloat162 *bf2, const float *vals, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = vals[i];
    atomicAdd(h2, __floats2half2_rn(v, -v));
    __half2 o = atomicAdd(h2 + 1, __floats2half2_rn(1.0f, 2.0f));
    atomicAdd(h, __float2half(v));
    atomicAdd(bf, __float2bfloat16(v));
    atomicAdd(bf2, __floats2bfloat162_rn(v, 0.5f));
    if (__low2float(o) < -1e4f)
        h[1] = o.x;
}

// 16-bit CAS (sm_70+) and a byte-wise atomic add built from a 32-bit CAS.
__device__ void atomic_add_u8(unsigned char *addr, unsigned char val)
{
    unsigned *base = (unsigned *)((size_t)addr & ~(size_t)3);
    unsigned shift = ((size_t)addr & 3) * 8;
    unsigned old = *base, assumed;
    do {
        assumed = old;
        unsigned byte = ((assumed >> shift) + val) & 0xFFu;
        old = atomicCAS(base, assumed, (assumed & ~(0xFFu << shift)) | (byte << shift));
    } while (assumed != old);
}

extern "C" __global__ void atomics_narrow(unsigned short *s16, unsigned char *b8, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned short expected = s16[i % 4];
    unsigned short prev = atomicCAS(&s16[i % 4], expected, (unsigned short)(expected + 1));
    atomic_add_u8(&b8[i % 16], (unsigned char)(prev & 3));
}

// Scoped atomics: _block (atom.cta) and _system (atom.sys).
extern "C" __global__ void atomics_scoped(int *g, unsigned long long *g64, float *gf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd_block(&g[0], 1);
    atomicAdd_system(&g[1], 1);
    atomicMax_block(&g[2], i);
    atomicMin_system(&g[3], -i);
    atomicExch_block(&g[4], i);
    atomicCAS_system(&g[5], 0, i);
    atomicOr_block(&g64[0], 1ull << (i & 63));
    atomicAdd_system(&g64[1], 1ull);
    atomicAdd_block(gf, 0.5f);
    atomicInc_system((unsigned *)&g[6], 100u);
}

// Shared-memory atomics: histogram, block-wide counters, and a lock-free stack index.
extern "C" __global__ void atomics_shared(const unsigned *keys, unsigned *hist, int *stack_out, int n)
{
    __shared__ unsigned s_hist[64];
    __shared__ int s_top;
    __shared__ unsigned long long s_sum;
    __shared__ float s_fsum;
    __shared__ double s_dsum;
    __shared__ int s_minmax[2];
    __shared__ int s_slots[256];
    int t = threadIdx.x;
    for (int k = t; k < 64; k += blockDim.x)
        s_hist[k] = 0;
    if (t == 0) {
        s_top = 0;
        s_sum = 0;
        s_fsum = 0.0f;
        s_dsum = 0.0;
        s_minmax[0] = 0x7fffffff;
        s_minmax[1] = (int)0x80000000;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) {
        unsigned k = keys[i];
        atomicAdd(&s_hist[k & 63], 1u);
        atomicAdd(&s_sum, (unsigned long long)k);
        atomicAdd(&s_fsum, 1.0f);
        atomicAdd(&s_dsum, (double)k);
        atomicMin(&s_minmax[0], (int)k);
        atomicMax(&s_minmax[1], (int)k);
        atomicXor(&s_hist[(k >> 6) & 63], 0x100u);
        atomicInc(&s_hist[63], 1000u);
        atomicCAS(&s_hist[62], 0u, k);
        if (k & 1) {
            int slot = atomicAdd(&s_top, 1);
            s_slots[slot] = i;
        }
    }
    __syncthreads();
    for (int k = t; k < 64; k += blockDim.x)
        atomicAdd(&hist[k], s_hist[k]);
    if (t < s_top)
        stack_out[blockIdx.x * blockDim.x + t] = s_slots[t];
    if (t == 0) {
        atomicAdd((unsigned long long *)&hist[64], s_sum);
        atomicAdd((float *)&hist[66], s_fsum + (float)s_dsum);
        atomicMin((int *)&hist[67], s_minmax[0]);
        atomicMax((int *)&hist[68], s_minmax[1]);
    }
}

// Atomics through a generic pointer that may point to shared or global memory.
__device__ __noinline__ int generic_bump(int *p, int v)
{
    return atomicAdd(p, v) + atomicExch(p + 1, v);
}

extern "C" __global__ void atomics_generic(int *g, int *out)
{
    __shared__ int s[2];
    if (threadIdx.x == 0) {
        s[0] = 0;
        s[1] = 0;
    }
    __syncthreads();
    int *p = (threadIdx.x & 1) ? s : g;
    int r = generic_bump(p, (int)threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = r + s[0];
}
