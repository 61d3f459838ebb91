// ptxvm test corpus: bit manipulation.
// popc, clz, brev, ffs, byte_perm (prmt), funnel shifts (shf), bfe/bfi patterns,
// logical ops on every width, rotates, lop3 candidates, dp4a/dp2a.
#include <cstdint>

__device__ __forceinline__ uint32_t rotl32(uint32_t x, int r)
{
    return (x << (r & 31)) | (x >> ((32 - r) & 31));
}

// Explicit bfe/bfi through inline PTX so both forms are always present.
__device__ __forceinline__ uint32_t bfe_u32(uint32_t v, uint32_t pos, uint32_t len)
{
    uint32_t r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(pos), "r"(len));
    return r;
}

__device__ __forceinline__ int32_t bfe_s32(int32_t v, uint32_t pos, uint32_t len)
{
    int32_t r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(pos), "r"(len));
    return r;
}

__device__ __forceinline__ uint32_t bfi_b32(uint32_t ins, uint32_t base, uint32_t pos, uint32_t len)
{
    uint32_t r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(ins), "r"(base), "r"(pos), "r"(len));
    return r;
}

__device__ __forceinline__ uint64_t bfe_u64(uint64_t v, uint32_t pos, uint32_t len)
{
    uint64_t r;
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(v), "r"(pos), "r"(len));
    return r;
}

__device__ __noinline__ uint32_t parity_fold(uint32_t x)
{
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    return (0x6996u >> (x & 0xf)) & 1u;
}

extern "C" __global__ void bit_count(const uint32_t *in32, const uint64_t *in64, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x = in32[i];
    uint64_t y = in64[i];
    int r = 0;
    r += __popc(x);        // popc.b32
    r += __popcll(y);      // popc.b64
    r += __clz((int)x);    // clz.b32
    r += __clzll((long long)y); // clz.b64
    r += __ffs((int)x);    // brev+bfind / ffs pattern
    r += __ffsll((long long)y);
    r += (int)parity_fold(x);
    out[4 * i + 0] = r;
    out[4 * i + 1] = (int)__brev(x);              // brev.b32
    out[4 * i + 2] = (int)(__brevll(y) >> 32);    // brev.b64
    out[4 * i + 3] = 31 - __clz((int)(x | 1));    // bfind-like
}

extern "C" __global__ void bit_byte_perm(const uint32_t *a, const uint32_t *b, const uint32_t *sel,
                                         uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x = a[i];
    uint32_t y = b[i];
    uint32_t r = __byte_perm(x, y, sel[i]);       // prmt.b32 with register selector
    r ^= __byte_perm(x, 0, 0x0123);               // byte swap, immediate selector
    r ^= __byte_perm(x, y, 0x5140);               // interleave
    uint32_t m;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(m) : "r"(x), "r"(y), "r"(i & 7));
    uint32_t q;
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(q) : "r"(x), "r"(y), "r"(i & 3));
    out[i] = r ^ m ^ q;
}

extern "C" __global__ void bit_funnel(const uint32_t *lo, const uint32_t *hi, const int *sh,
                                      uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t l = lo[i];
    uint32_t h = hi[i];
    int s = sh[i];
    uint32_t r = 0;
    r ^= __funnelshift_l(l, h, s);    // shf.l.wrap
    r ^= __funnelshift_lc(l, h, s);   // shf.l.clamp
    r ^= __funnelshift_r(l, h, s);    // shf.r.wrap
    r ^= __funnelshift_rc(l, h, s);   // shf.r.clamp
    r ^= rotl32(l, s);
    r ^= __funnelshift_l(l, l, 13);   // rotate by immediate
    uint64_t w = ((uint64_t)h << 32) | l;
    w = (w << (s & 63)) | (w >> ((64 - s) & 63)); // 64-bit rotate
    out[2 * i] = r;
    out[2 * i + 1] = (uint32_t)(w ^ (w >> 32));
}

extern "C" __global__ void bit_fields(const uint32_t *in, const uint64_t *in64, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t v = in[i];
    uint32_t pos = (uint32_t)i % 24u;
    uint32_t len = 1u + (uint32_t)i % 8u;
    uint32_t r = 0;
    r += bfe_u32(v, pos, len);
    r += (uint32_t)bfe_s32((int32_t)v, 4, 12);
    r += bfi_b32(v >> 3, v, pos, len);
    r += (uint32_t)bfe_u64(in64[i], 20, 24);
    // C++ bitfield-style extract/insert patterns the compiler lowers itself
    r += (v >> 8) & 0xFFu;
    r += (uint32_t)(((int32_t)(v << 4)) >> 20);
    r = (r & ~(0x3Fu << 10)) | (((v >> 2) & 0x3Fu) << 10);
    out[i] = r;
}

// Logical operations of every width, including lop3 candidates and not/cnot.
extern "C" __global__ void bit_logic(const uint8_t *b8, const uint16_t *b16, const uint32_t *b32,
                                     const uint64_t *b64, uint64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint8_t a = b8[i], a2 = b8[(i + 1) % n];
    uint16_t c = b16[i], c2 = b16[(i + 1) % n];
    uint32_t d = b32[i], d2 = b32[(i + 1) % n], d3 = b32[(i + 2) % n];
    uint64_t e = b64[i], e2 = b64[(i + 1) % n];
    uint8_t r8 = (uint8_t)((a & a2) | (uint8_t)~(a ^ a2));
    uint16_t r16 = (uint16_t)((c | c2) ^ (uint16_t)(c << 3) ^ (uint16_t)(c2 >> 2));
    uint32_t r32 = (d & d2) ^ (~d & d3);           // choose: lop3
    r32 ^= (d & d2) | (d & d3) | (d2 & d3);        // majority: lop3
    uint32_t lop;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(lop) : "r"(d), "r"(d2), "r"(d3));
    uint32_t cn;
    asm("cnot.b32 %0, %1;" : "=r"(cn) : "r"(d));
    uint64_t r64 = (e ^ e2) & ~(e >> 1);
    r64 |= (uint64_t)(!d) << 63;
    out[i] = r8 + ((uint64_t)r16 << 8) + ((uint64_t)(r32 ^ lop ^ cn) << 24) + r64;
}

// Byte/halfword dot products (dp4a / dp2a) and vector-of-bytes SIMD intrinsics.
extern "C" __global__ void bit_simd(const uint32_t *a, const uint32_t *b, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x = a[i];
    uint32_t y = b[i];
    int r = __dp4a((int)x, (int)y, 0);                  // dp4a.s32.s32
    r += (int)__dp4a(x, y, 7u);                         // dp4a.u32.u32
    r += __dp2a_lo((int)x, (int)y, 1);                  // dp2a.lo
    r += (int)__dp2a_hi(x, y, 2u);                      // dp2a.hi
    r += (int)__vadd4(x, y);
    r += (int)__vsub2(x, y);
    r += (int)__vabsdiffu4(x, y);
    r += (int)__vmaxs2(x, y);
    r += (int)__vcmpgtu4(x, y);
    r += (int)__vsads2(x, y);
    out[i] = r;
}
