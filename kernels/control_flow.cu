// ptxvm test corpus: control flow and device functions.
// Recursion (__noinline__ fibonacci, factorial, Ackermann-like, mutual recursion), function
// pointers (indirect call through .callprototype), dispatch tables of function pointers,
// dense switch (jump table / brx.idx candidate) and sparse switch, nested loops with
// break/continue, early returns, goto, and a __noinline__ function with many parameters.
#include <cstdint>

__device__ __noinline__ unsigned long long fib(unsigned n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ double factorial(int n)
{
    return n <= 1 ? 1.0 : (double)n * factorial(n - 1);
}

__device__ __noinline__ bool is_odd(unsigned n);

__device__ __noinline__ bool is_even(unsigned n)
{
    return n == 0 ? true : is_odd(n - 1);
}

__device__ __noinline__ bool is_odd(unsigned n)
{
    return n == 0 ? false : is_even(n - 1);
}

// Recursion over an array held in local memory (sorting a small array).
__device__ __noinline__ void quicksort(int *a, int lo, int hi)
{
    if (lo >= hi)
        return;
    int p = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p)
            ++i;
        while (a[j] > p)
            --j;
        if (i <= j) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
            ++i;
            --j;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

extern "C" __global__ void cf_recursion(const unsigned *in, unsigned long long *fibs, double *facts,
                                        int *parity, int *sorted, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned k = in[i] % 20;
    fibs[i] = fib(k);
    facts[i] = factorial((int)k);
    parity[i] = is_even(k) ? 2 : (is_odd(k) ? 1 : 0);
    int local[16];
    for (int j = 0; j < 16; ++j)
        local[j] = (int)((in[i] * 2654435761u) >> (j + 3)) & 255;
    quicksort(local, 0, 15);
    for (int j = 0; j < 16; ++j)
        sorted[16 * i + j] = local[j];
}

// ---- function pointers ---------------------------------------------------------------------
typedef float (*unary_fn)(float);
typedef int (*binop_fn)(int, int);

__device__ __noinline__ float op_square(float x) { return x * x; }
__device__ __noinline__ float op_negate(float x) { return -x; }
__device__ __noinline__ float op_half(float x) { return 0.5f * x; }
__device__ __noinline__ float op_recip(float x) { return 1.0f / x; }

__device__ __noinline__ int bop_add(int a, int b) { return a + b; }
__device__ __noinline__ int bop_sub(int a, int b) { return a - b; }
__device__ __noinline__ int bop_mul(int a, int b) { return a * b; }
__device__ __noinline__ int bop_max(int a, int b) { return a > b ? a : b; }

// Dispatch tables in global and constant memory (initialized with function addresses).
__device__ unary_fn g_unary_table[4] = {op_square, op_negate, op_half, op_recip};
__constant__ binop_fn c_binop_table[4] = {bop_add, bop_sub, bop_mul, bop_max};

extern "C" __global__ void cf_function_pointers(const float *x, const int *sel, float *out,
                                                int *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int s = sel[i] & 3;
    unary_fn f = g_unary_table[s];          // indirect call through a loaded pointer
    float r = f(x[i]);
    unary_fn g = (s & 1) ? op_half : op_square;   // select between two addresses
    r += g(r);
    out[i] = r;
    binop_fn b = c_binop_table[(s + 1) & 3];
    iout[i] = b(i, s) + c_binop_table[s](s, 7);
}

// "Virtual" dispatch: objects carry a pointer to a table of function pointers.
struct Shape;
struct ShapeVTable {
    float (*area)(const Shape *);
    float (*perimeter)(const Shape *);
};
struct Shape {
    const ShapeVTable *vt;
    float a, b;
};

__device__ __noinline__ float rect_area(const Shape *s) { return s->a * s->b; }
__device__ __noinline__ float rect_perim(const Shape *s) { return 2.0f * (s->a + s->b); }
__device__ __noinline__ float circle_area(const Shape *s) { return 3.14159265f * s->a * s->a; }
__device__ __noinline__ float circle_perim(const Shape *s) { return 2.0f * 3.14159265f * s->a; }

__device__ const ShapeVTable rect_vt = {rect_area, rect_perim};
__device__ const ShapeVTable circle_vt = {circle_area, circle_perim};

extern "C" __global__ void cf_vtable(const float *dims, int *kind, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Shape s;
    s.vt = (kind[i] & 1) ? &circle_vt : &rect_vt;
    s.a = dims[2 * i];
    s.b = dims[2 * i + 1];
    out[2 * i] = s.vt->area(&s);
    out[2 * i + 1] = s.vt->perimeter(&s);
}

// C++ virtual functions on objects constructed on the device.
struct Op {
    __device__ virtual int apply(int x) const = 0;
    __device__ virtual ~Op() {}
};
struct AddOp : Op {
    int k;
    __device__ AddOp(int k_) : k(k_) {}
    __device__ int apply(int x) const override { return x + k; }
};
struct XorOp : Op {
    int k;
    __device__ XorOp(int k_) : k(k_) {}
    __device__ int apply(int x) const override { return x ^ k; }
};

extern "C" __global__ void cf_virtual(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    AddOp a(5);
    XorOp x(0x55);
    const Op *op = (in[i] & 1) ? static_cast<const Op *>(&a) : static_cast<const Op *>(&x);
    out[i] = op->apply(in[i]);
}

// ---- switches --------------------------------------------------------------------------------
__device__ __noinline__ int dense_switch(int k, int x)
{
    switch (k) {
    case 0: return x + 1;
    case 1: return x * 3;
    case 2: return x - 7;
    case 3: return x ^ 0x5a;
    case 4: return x << 2;
    case 5: return x >> 1;
    case 6: return ~x;
    case 7: return -x;
    case 8: return x * x;
    case 9: return x / 3;
    case 10: return x % 11;
    case 11: return x & 0xff;
    case 12: return x | 0x100;
    case 13: return x + 1000;
    case 14: return 42;
    case 15: return x - 1;
    default: return 0;
    }
}

__device__ __noinline__ int sparse_switch(int k)
{
    switch (k) {
    case -1000: return 1;
    case 3: return 2;
    case 17: return 3;
    case 250: return 4;
    case 4096: return 5;
    case 65537: return 6;
    case 1 << 30: return 7;
    default: return -1;
    }
}

extern "C" __global__ void cf_switch(const int *keys, const int *vals, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = keys[i];
    int r = dense_switch(k & 15, vals[i]) + dense_switch(k % 20, vals[i]);
    r += sparse_switch(k);
    // switch with fallthrough, inline in the kernel
    int acc = 0;
    switch (vals[i] & 7) {
    case 0: acc += 1; [[fallthrough]];
    case 1: acc += 2; [[fallthrough]];
    case 2: acc += 4; break;
    case 3: acc += 8; [[fallthrough]];
    case 4: acc += 16; break;
    case 5:
    case 6: acc += 32; break;
    default: acc += 64;
    }
    out[i] = r + acc;
}

// ---- loops and early exits --------------------------------------------------------------------
extern "C" __global__ void cf_loops(const int *m, int rows, int cols, int *out, int target)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;                                  // early exit
    const int *row = m + (size_t)r * cols;
    int found = -1;
    int sum = 0;
    for (int c = 0; c < cols; ++c) {             // loop with break and continue
        int v = row[c];
        if (v < 0)
            continue;
        sum += v;
        if (v == target) {
            found = c;
            break;
        }
    }
    int iters = 0;
    unsigned x = (unsigned)(sum | 1);
    while (x != 1 && iters < 1000) {             // Collatz: data-dependent trip count
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        ++iters;
    }
    int k = 0;
    do {                                         // do-while
        k += 3;
    } while (k < (sum & 63));
    // nested loops with a labeled exit via goto
    int pairs = 0;
    for (int a = 0; a < 8; ++a) {
        for (int b = 0; b < 8; ++b) {
            if (row[(a * 8 + b) % cols] == target)
                goto done;
            ++pairs;
        }
    }
done:
    out[4 * r + 0] = found;
    out[4 * r + 1] = sum;
    out[4 * r + 2] = iters + k;
    out[4 * r + 3] = pairs;
}

// Unrolled vs. not unrolled loops (#pragma unroll / nounroll).
extern "C" __global__ void cf_unroll(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = 0.0f, b = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k)
        a += in[(i + k) % n] * (float)k;
#pragma unroll 1
    for (int k = 0; k < 8; ++k)
        b += in[(i + 3 * k) % n];
    out[i] = a - b;
}

// A __noinline__ function with many parameters of mixed types (param space, .param .align).
struct Pod {
    int a;
    float b;
    double c;
    char d[5];
};

__device__ __noinline__ double many_params(int a, long long b, float c, double d, unsigned char e,
                                           short f, Pod p, const int *ptr, float2 v2, double4 v4)
{
    return a + (double)b + c + d + e + f + p.a + p.b + p.c + p.d[4] + ptr[0] + v2.x + v2.y + v4.x +
           v4.w;
}

__device__ __noinline__ Pod make_pod(int k)
{
    Pod p;
    p.a = k;
    p.b = (float)k * 0.5f;
    p.c = (double)k * 0.25;
    for (int j = 0; j < 5; ++j)
        p.d[j] = (char)(k + j);
    return p;                                    // struct returned through .param
}

extern "C" __global__ void cf_params(const int *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Pod p = make_pod(in[i]);
    out[i] = many_params(in[i], (long long)i << 20, 1.5f, 2.25, (unsigned char)i, (short)-i, p,
                         in + i, make_float2(1.0f, 2.0f), make_double4(1.0, 2.0, 3.0, 4.0));
}

// __trap / assert-like early termination on a condition (never taken for valid inputs).
extern "C" __global__ void cf_trap_guard(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (in[i] == 0x7fffffff)
        __trap();                                // trap;
    if (in[i] == 0x7ffffffe)
        asm volatile("exit;");                   // explicit exit
    out[i] = in[i] + 1;
}
