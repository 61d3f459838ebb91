// ptxvm test corpus: integer arithmetic of every width.
// 8/16/32/64-bit, signed and unsigned: add/sub/mul, mul.hi, mul.wide, mad,
// div/rem (constant and variable divisors), shifts, min/max/abs, negation,
// comparisons and selects.
#include <cstdint>

template <typename T>
__device__ __noinline__ T mix3(T a, T b, T c)
{
    // noinline keeps one .func per instantiation, with parameters of each width
    return (T)(a * b + c - (a ^ c));
}

__device__ int32_t clamp_i32(int32_t v, int32_t lo, int32_t hi)
{
    return min(max(v, lo), hi);
}

extern "C" __global__ void int8_ops(const int8_t *a, const int8_t *b, int8_t *out,
                                    uint8_t *uout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int8_t x = a[i];
    int8_t y = b[i];
    uint8_t ux = (uint8_t)x;
    uint8_t uy = (uint8_t)y;
    int8_t r = (int8_t)(x + y);
    r = (int8_t)(r * (int8_t)(y | 1));
    r = (int8_t)(r - (int8_t)(x >> 2));
    if (y != 0)
        r = (int8_t)(r + x / y + x % y);
    uint8_t u = (uint8_t)(ux + uy);
    u = (uint8_t)(u * 3u);
    if (uy != 0)
        u = (uint8_t)(u + ux / uy + ux % uy);
    u = (uint8_t)(u >> (uy & 7));
    out[i] = mix3<int8_t>(r, x, y);
    uout[i] = (uint8_t)(u ^ (uint8_t)~ux);
}

extern "C" __global__ void int16_ops(const int16_t *a, const int16_t *b, int16_t *out,
                                     uint16_t *uout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int16_t x = a[i];
    int16_t y = b[i];
    uint16_t ux = (uint16_t)x;
    uint16_t uy = (uint16_t)y;
    int16_t r = (int16_t)(x * y);
    r = (int16_t)(r + (int16_t)(x << 3));
    r = (int16_t)(r >> 1);
    if (y != 0)
        r = (int16_t)(r + x / y - x % y);
    r = (int16_t)(r / 7 + r % 5);
    uint16_t u = (uint16_t)(ux * uy);
    u = (uint16_t)(u + (uint16_t)(ux >> 4));
    if (uy != 0)
        u = (uint16_t)(u / uy + u % uy);
    u = (uint16_t)(u / 10u + u % 3u);
    out[i] = mix3<int16_t>(r, x, (int16_t)-y);
    uout[i] = mix3<uint16_t>(u, ux, uy);
}

extern "C" __global__ void int32_ops(const int32_t *a, const int32_t *b, int32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t x = a[i];
    int32_t y = b[i];
    int32_t acc = 0;
    acc += x + y;
    acc += x - y;
    acc ^= x * y;
    acc += __mulhi(x, y);               // mul.hi.s32
    acc += __mul24(x, y);               // mul24.lo.s32
    acc += __mul24(x, y) + acc;         // mad24 candidate
    acc += x * 17 + y;                  // mad.lo.s32
    if (y != 0) {
        acc += x / y;                   // div.s32
        acc += x % y;                   // rem.s32
    }
    acc += x / 3 + x % 9;               // magic-number division
    acc += x / 16 + x % 32;             // power-of-two signed division
    acc += (x >> 5) + (x << (y & 31));  // shr.s32, shl.b32
    acc += abs(x) + min(x, y) + max(x, y);
    acc += -x;
    acc += (x < y) ? x : y;
    acc += (x >= y) ? 1 : -1;
    acc += clamp_i32(x, -100, 100);
    acc += mix3<int32_t>(x, y, acc);
    out[i] = acc;
}

extern "C" __global__ void uint32_ops(const uint32_t *a, const uint32_t *b, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x = a[i];
    uint32_t y = b[i];
    uint32_t acc = x * y;
    acc += __umulhi(x, y);              // mul.hi.u32
    acc += __umul24(x, y);
    acc += x * 2654435761u + y;
    if (y != 0) {
        acc += x / y;                   // div.u32
        acc += x % y;                   // rem.u32
    }
    acc += x / 7u + x % 11u;
    acc += x >> (y & 31);               // shr.u32
    acc += umin(x, y) + umax(x, y);
    acc += (x > y) ? x - y : y - x;     // absolute difference
    acc += __usad(x, y, acc);           // sad.u32
    acc += __sad((int)x, (int)y, 1u);   // sad.s32
    acc += __uhadd(x, y) + __urhadd(x, y);
    acc += (uint32_t)__hadd((int)x, (int)y) + (uint32_t)__rhadd((int)x, (int)y);
    out[i] = mix3<uint32_t>(acc, x, y);
}

extern "C" __global__ void int64_ops(const int64_t *a, const int64_t *b, int64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int64_t x = a[i];
    int64_t y = b[i];
    int64_t acc = x * y;
    acc += __mul64hi(x, y);             // mul.hi.s64
    acc += x * 1000003LL + y;           // mad.lo.s64
    if (y != 0) {
        acc += x / y;                   // div.s64
        acc += x % y;                   // rem.s64
    }
    acc += x / 10LL + x % 1000LL;
    acc += (x >> 7) + (x << (y & 63));
    acc += llabs(x) + llmin(x, y) + llmax(x, y);
    acc -= (x < 0) ? -x : x;
    acc += mix3<int64_t>(x, y, acc);
    out[i] = acc;
}

extern "C" __global__ void uint64_ops(const uint64_t *a, const uint64_t *b, uint64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t x = a[i];
    uint64_t y = b[i];
    uint64_t acc = x * y;
    acc += __umul64hi(x, y);            // mul.hi.u64
    if (y != 0) {
        acc += x / y;                   // div.u64
        acc += x % y;                   // rem.u64
    }
    acc += x / 12345ULL + x % 97ULL;
    acc += x >> (y & 63);
    acc += ullmin(x, y) + ullmax(x, y);
    acc ^= 0x9E3779B97F4A7C15ULL;
    out[i] = mix3<uint64_t>(acc, x, y);
}

// Widening multiplies: mul.wide.s32 / mul.wide.u32 / mul.wide.s16 / mul.wide.u16
extern "C" __global__ void mul_wide(const int32_t *a, const int32_t *b, int64_t *s64,
                                    uint64_t *u64, int32_t *s16w, uint32_t *u16w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t x = a[i];
    int32_t y = b[i];
    s64[i] = (int64_t)x * (int64_t)y;
    u64[i] = (uint64_t)(uint32_t)x * (uint64_t)(uint32_t)y + (uint64_t)(uint32_t)i;
    int16_t hx = (int16_t)x;
    int16_t hy = (int16_t)y;
    s16w[i] = (int32_t)hx * (int32_t)hy;
    u16w[i] = (uint32_t)(uint16_t)hx * (uint32_t)(uint16_t)hy;
}

// Saturating and overflow-aware arithmetic written with intrinsics and explicit clamps.
extern "C" __global__ void saturating_ops(const int32_t *a, const int32_t *b, int32_t *out,
                                          uint8_t *u8sat, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t x = a[i];
    int32_t y = b[i];
    int32_t r;
    // add.sat.s32 / sub.sat.s32 through inline PTX (no C++ intrinsic exists)
    asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    int32_t s;
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(x), "r"(y));
    int64_t wide = (int64_t)x + (int64_t)y;
    int32_t clamped = (int32_t)(wide > INT32_MAX ? INT32_MAX : (wide < INT32_MIN ? INT32_MIN : wide));
    out[i] = r ^ s ^ clamped;
    // saturate to [0,255] (cvt.sat.u8.s32 candidate)
    u8sat[i] = (uint8_t)min(max(x, 0), 255);
}

// Carry chains: add.cc / addc / sub.cc / subc / mad.cc for 128-bit arithmetic.
extern "C" __global__ void carry_chain(const uint4 *a, const uint4 *b, uint4 *sum, uint4 *diff,
                                       uint4 *prod_lo, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint4 x = a[i];
    uint4 y = b[i];
    uint4 s, d;
    asm("add.cc.u32  %0, %4, %8;\n\t"
        "addc.cc.u32 %1, %5, %9;\n\t"
        "addc.cc.u32 %2, %6, %10;\n\t"
        "addc.u32    %3, %7, %11;"
        : "=r"(s.x), "=r"(s.y), "=r"(s.z), "=r"(s.w)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    asm("sub.cc.u32  %0, %4, %8;\n\t"
        "subc.cc.u32 %1, %5, %9;\n\t"
        "subc.cc.u32 %2, %6, %10;\n\t"
        "subc.u32    %3, %7, %11;"
        : "=r"(d.x), "=r"(d.y), "=r"(d.z), "=r"(d.w)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    sum[i] = s;
    diff[i] = d;
    // 64x64 -> low 128 bits using 32-bit limbs via 64-bit arithmetic
    uint64_t xa = ((uint64_t)x.y << 32) | x.x;
    uint64_t ya = ((uint64_t)y.y << 32) | y.x;
    uint64_t lo = xa * ya;
    uint64_t hi = __umul64hi(xa, ya);
    prod_lo[i] = make_uint4((uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32));
}

// Grid-stride loop with mixed-width induction variables and 64-bit indexing.
extern "C" __global__ void mixed_width_loop(const uint8_t *bytes, uint64_t *hash, long long n)
{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    uint64_t h = 1469598103934665603ULL;
    unsigned short count = 0;
    for (long long i = tid; i < n; i += stride) {
        h ^= bytes[i];
        h *= 1099511628211ULL;
        ++count;
    }
    hash[tid] = h + count;
}
