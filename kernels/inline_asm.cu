// ptxvm test corpus: inline PTX.
// Nested { } scopes that declare their own .reg (including names that shadow an outer scope's),
// labels local to a scope, predicates declared in scopes, brx.idx with .branchtargets,
// vector operands, d|p pairs, the sink _, read-write ("+r") operands, 64-bit and 16-bit
// constraints, memory clobbers, special registers, and an asm block with many instructions.
#include <cstdint>

// Two levels of nesting; the inner scope re-declares %t with a different type.
__device__ __forceinline__ uint32_t nested_scopes(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm("{\n\t"
        ".reg .u32 t;\n\t"
        ".reg .pred p;\n\t"
        "add.u32 t, %1, %2;\n\t"
        "setp.gt.u32 p, t, 100;\n\t"
        "{\n\t"
        "  .reg .u64 t;\n\t"             // shadows the outer t
        "  .reg .u32 lo, hi;\n\t"
        "  mul.wide.u32 t, %1, %2;\n\t"
        "  mov.b64 {lo, hi}, t;\n\t"
        "  xor.b32 %0, lo, hi;\n\t"
        "}\n\t"
        "@p add.u32 %0, %0, t;\n\t"      // outer t again
        "@!p sub.u32 %0, %0, t;\n\t"
        "}"
        : "=r"(r)
        : "r"(a), "r"(b));
    return r;
}

// A loop written entirely in PTX with a label inside a scope.
__device__ __forceinline__ uint32_t asm_popc_loop(uint32_t x)
{
    uint32_t count;
    asm("{\n\t"
        ".reg .u32 v, bit;\n\t"
        ".reg .pred more;\n\t"
        "mov.u32 v, %1;\n\t"
        "mov.u32 %0, 0;\n\t"
        "setp.ne.u32 more, v, 0;\n\t"
        "@!more bra.uni ASM_POPC_DONE;\n\t"
        "ASM_POPC_LOOP:\n\t"
        "and.b32 bit, v, 1;\n\t"
        "add.u32 %0, %0, bit;\n\t"
        "shr.u32 v, v, 1;\n\t"
        "setp.ne.u32 more, v, 0;\n\t"
        "@more bra ASM_POPC_LOOP;\n\t"
        "ASM_POPC_DONE:\n\t"
        "}"
        : "=r"(count)
        : "r"(x));
    return count;
}

// brx.idx with a .branchtargets list; __noinline__ so the labels appear exactly once.
__device__ __noinline__ int asm_jump_table(int sel, int x)
{
    int r;
    asm volatile("{\n\t"
                 ".reg .u32 idx;\n\t"
                 "and.b32 idx, %1, 3;\n\t"
                 "JT_TARGETS: .branchtargets JT_0, JT_1, JT_2, JT_3;\n\t"
                 "brx.idx idx, JT_TARGETS;\n\t"
                 "JT_0:\n\t"
                 "add.s32 %0, %2, 10;\n\t"
                 "bra.uni JT_END;\n\t"
                 "JT_1:\n\t"
                 "mul.lo.s32 %0, %2, 3;\n\t"
                 "bra.uni JT_END;\n\t"
                 "JT_2:\n\t"
                 "neg.s32 %0, %2;\n\t"
                 "bra.uni JT_END;\n\t"
                 "JT_3:\n\t"
                 "shl.b32 %0, %2, 4;\n\t"
                 "JT_END:\n\t"
                 "}"
                 : "=r"(r)
                 : "r"(sel), "r"(x));
    return r;
}

extern "C" __global__ void asm_scopes(const uint32_t *a, const uint32_t *b, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t x = a[i], y = b[i];
    // the same scoped asm inlined twice: each copy has its own scope, same names
    out[3 * i + 0] = nested_scopes(x, y) + nested_scopes(y, x);
    out[3 * i + 1] = asm_popc_loop(x);
    out[3 * i + 2] = (uint32_t)asm_jump_table((int)y, (int)x) + (uint32_t)asm_jump_table((int)x, 5);
}

// Vector operands, d|p pairs, sink, 16-bit and 64-bit constraints, read-write operands.
extern "C" __global__ void asm_operands(const float4 *in, uint64_t *out64, unsigned short *out16,
                                        float4 *outv, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(in + i));
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(outv + i), "f"(v.w), "f"(v.z),
                 "f"(v.y), "f"(v.x)
                 : "memory");
    uint64_t w = (uint64_t)i * 0x100000001ULL;
    asm("{\n\t.reg .u32 l, h;\n\tmov.b64 {l, h}, %0;\n\tadd.u32 l, l, h;\n\tmov.b64 %0, {l, h};\n\t}"
        : "+l"(w));
    out64[i] = w;
    unsigned short h16 = (unsigned short)i;
    asm("add.u16 %0, %0, 0x0101;" : "+h"(h16));
    unsigned lane_val;
    asm volatile("{\n\t.reg .pred valid;\n\t"
                 "shfl.sync.idx.b32 %0|valid, %1, 0, 0x1f, 0xffffffff;\n\t"
                 "@!valid mov.u32 %0, 0;\n\t}"
                 : "=r"(lane_val) : "r"((unsigned)i));
    unsigned q;
    asm volatile("{\n\t.reg .pred lt, ge;\n\t"
                 "setp.lt.s32 lt|ge, %1, 16;\n\t"         // p|q form of setp
                 "selp.u32 %0, 1, 2, lt;\n\t"
                 "@ge add.u32 %0, %0, 10;\n\t}"
                 : "=r"(q) : "r"(i));
    asm volatile("shfl.sync.bfly.b32 %0|_, %0, 1, 0x1f, 0xffffffff;" : "+r"(lane_val));   // sink pred
    unsigned old;
    asm volatile("{\n\t.reg .pred hi;\n\t"
                 "setp.gt.s32 _|hi, %1, 1000;\n\t"       // sink for the first predicate
                 "selp.u32 %0, 3, 4, hi;\n\t}"
                 : "=r"(old) : "r"(i));
    asm volatile("atom.global.add.u32 _, [%0], 1;" ::"l"(out64 + i) : "memory");   // sink dest
    q += old;
    out16[i] = (unsigned short)(h16 + (unsigned short)lane_val + (unsigned short)q);
}

// Special registers read through inline asm.
extern "C" __global__ void asm_special_regs(unsigned *out)
{
    unsigned v[12];
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v[0]));
    asm volatile("mov.u32 %0, %%ntid.x;" : "=r"(v[1]));
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v[2]));
    asm volatile("mov.u32 %0, %%nctaid.x;" : "=r"(v[3]));
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(v[4]));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(v[5]));
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(v[6]));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(v[7]));
    asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(v[8]));
    asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(v[9]));
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(v[10]));
    asm volatile("mov.u32 %0, %%clock;" : "=r"(v[11]));
    unsigned long long gid;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(gid));
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 12; ++k)
        out[13 * t + k] = v[k];
    out[13 * t + 12] = (unsigned)gid;
}

// A long straight-line asm block: 64-bit FNV-1a over four words, all in PTX.
extern "C" __global__ void asm_long_block(const uint4 *in, uint64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint4 v = in[i];
    uint64_t h;
    asm("{\n\t"
        ".reg .u64 acc, prime, w;\n\t"
        "mov.u64 acc, 0xcbf29ce484222325;\n\t"
        "mov.u64 prime, 1099511628211;\n\t"
        "cvt.u64.u32 w, %1;\n\txor.b64 acc, acc, w;\n\tmul.lo.u64 acc, acc, prime;\n\t"
        "cvt.u64.u32 w, %2;\n\txor.b64 acc, acc, w;\n\tmul.lo.u64 acc, acc, prime;\n\t"
        "cvt.u64.u32 w, %3;\n\txor.b64 acc, acc, w;\n\tmul.lo.u64 acc, acc, prime;\n\t"
        "cvt.u64.u32 w, %4;\n\txor.b64 acc, acc, w;\n\tmul.lo.u64 acc, acc, prime;\n\t"
        "mov.u64 %0, acc;\n\t"
        "}"
        : "=l"(h)
        : "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
    out[i] = h;
}

// Float immediates in inline asm (0f / 0d forms) and predicated float ops.
extern "C" __global__ void asm_float_imms(const float *in, const double *din, float *out, double *dout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float f;
    asm("{\n\t.reg .pred neg;\n\t"
        "setp.lt.f32 neg, %1, 0f00000000;\n\t"
        "mul.f32 %0, %1, 0f3F000000;\n\t"               // * 0.5
        "@neg add.f32 %0, %0, 0fBF800000;\n\t"          // -1.0
        "}"
        : "=f"(f) : "f"(in[i]));
    double d;
    asm("fma.rn.f64 %0, %1, 0d4000000000000000, 0d3FF0000000000000;" : "=d"(d) : "d"(din[i]));
    out[i] = f;
    dout[i] = d;
}
