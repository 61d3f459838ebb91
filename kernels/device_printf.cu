// ptxvm test corpus: device printf (vprintf with a packed argument buffer in .local).
// Format strings live in .global .b8 arrays; arguments of every type are promoted and packed
// with their alignment (int, unsigned, long long, double, char, string pointer, pointer),
// printf from divergent code, and printf inside a __noinline__ function.
#include <cstdio>
#include <cstdint>

__device__ const char g_name[] = "ptxvm";

__device__ __noinline__ void report(int where, float value)
{
    printf("report: where=%d value=%.3f\n", where, value);
}

extern "C" __global__ void printf_basic()
{
    printf("hello from thread %d of block %d\n", (int)threadIdx.x, (int)blockIdx.x);
}

extern "C" __global__ void printf_types(int i, unsigned u, long long ll, unsigned long long ull,
                                        float f, double d, char c, const char *s, const void *p)
{
    if (threadIdx.x != 0)
        return;
    printf("int=%d neg=%i unsigned=%u hex=%x HEX=%X oct=%o\n", i, -i, u, u, u, u);
    printf("ll=%lld ull=%llu llx=%llx\n", ll, ull, ull);
    printf("float=%f exp=%e g=%g double=%.10f\n", f, f, f, d);       // floats promoted to double
    printf("char=%c string=%s name=%s ptr=%p\n", c, s, g_name, p);
    printf("width=[%8d] left=[%-8d] zero=[%08.3f] percent=%%\n", i, i, f);
    short sh = (short)i;
    unsigned char uc = (unsigned char)u;
    printf("short=%hd uchar=%hhu size=%lu\n", sh, uc, (unsigned long)sizeof(double2));
}

extern "C" __global__ void printf_divergent(const int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (v[i] < 0)
        printf("negative value %d at %d\n", v[i], i);
    else if (v[i] % 7 == 0)
        report(i, (float)v[i] / 7.0f);
    int r = printf("");                              // return value of printf used
    if (r < 0)
        printf("printf failed\n");
}

extern "C" __global__ void printf_many_args(const double *d)
{
    int t = threadIdx.x;
    printf("%d %d %d %d %d %d %d %d | %f %f %f %f | %lld %c%c%c\n", t, t + 1, t + 2, t + 3, t + 4,
           t + 5, t + 6, t + 7, d[0], d[1], d[2], d[3], (long long)t << 40, 'a' + (t % 26), 'P',
           'X');
}
