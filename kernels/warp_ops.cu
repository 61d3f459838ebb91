// ptxvm test corpus: warp-level primitives.
// __shfl_sync / __shfl_up_sync / __shfl_down_sync / __shfl_xor_sync (32/64-bit, float, with
// width < 32), votes (__all_sync, __any_sync, __uni_sync, __ballot_sync, __activemask),
// __match_any_sync / __match_all_sync, __reduce_*_sync (sm_80+), __syncwarp with partial
// masks, %laneid / %lanemask_* special registers, and divergent shuffles.
#include <cstdint>

__device__ __forceinline__ unsigned lane_id()
{
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

__device__ __forceinline__ unsigned lanemask_lt()
{
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

template <typename T>
__device__ __noinline__ T warp_sum(T v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

template <typename T>
__device__ T warp_allreduce_max(T v)
{
    for (int m = 1; m < 32; m <<= 1) {
        T o = __shfl_xor_sync(0xffffffffu, v, m);
        v = v > o ? v : o;
    }
    return v;
}

extern "C" __global__ void warp_shuffles(const int *in, const float *fin, const double *din,
                                         int *out, float *fout, double *dout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    float f = (i < n) ? fin[i] : 0.0f;
    double d = (i < n) ? din[i] : 0.0;
    unsigned lane = lane_id();
    int r = 0;
    r += __shfl_sync(0xffffffffu, v, 0);                 // broadcast from lane 0
    r += __shfl_sync(0xffffffffu, v, (lane + 5) & 31);   // register source lane
    r += __shfl_up_sync(0xffffffffu, v, 1);
    r += __shfl_down_sync(0xffffffffu, v, 3);
    r += __shfl_xor_sync(0xffffffffu, v, 16);
    r += __shfl_sync(0xffffffffu, v, 2, 8);              // width 8: segments of 8 lanes
    r += __shfl_up_sync(0xffffffffu, v, 2, 16);          // width 16
    r += __shfl_down_sync(0xffffffffu, v, 1, 4);         // width 4
    r += __shfl_xor_sync(0xffffffffu, v, 1, 2);          // width 2
    r += warp_sum<int>(v);
    float fr = warp_sum<float>(f) + __shfl_xor_sync(0xffffffffu, f, 7);
    double dr = warp_sum<double>(d) + __shfl_sync(0xffffffffu, d, 31);   // 64-bit: two shfl
    long long ll = __shfl_up_sync(0xffffffffu, (long long)v << 33, 4);
    r += (int)(ll >> 33) + warp_allreduce_max<int>(v);
    if (i < n) {
        out[i] = r;
        fout[i] = fr;
        dout[i] = dr;
    }
}

// Inclusive warp scan with __shfl_up_sync, then block scan through shared memory.
extern "C" __global__ void warp_scan(const int *in, int *out, int n)
{
    __shared__ int warp_tot[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    unsigned lane = threadIdx.x & 31;
    unsigned warp = threadIdx.x >> 5;
    for (int off = 1; off < 32; off <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= (unsigned)off)
            v += up;
    }
    if (lane == 31)
        warp_tot[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nw = (blockDim.x + 31) / 32;
        int t = (lane < (unsigned)nw) ? warp_tot[lane] : 0;
        for (int off = 1; off < 32; off <<= 1) {
            int up = __shfl_up_sync(0xffffffffu, t, off);
            if (lane >= (unsigned)off)
                t += up;
        }
        warp_tot[lane] = t;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_tot[warp - 1];
    if (i < n)
        out[i] = v;
}

extern "C" __global__ void warp_votes(const int *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : -1;
    unsigned r = 0;
    r += __all_sync(0xffffffffu, v > 0);            // vote.sync.all.pred
    r += __any_sync(0xffffffffu, v == 7) << 1;       // vote.sync.any.pred
    r += __uni_sync(0xffffffffu, v & 1) << 2;        // vote.sync.uni.pred
    unsigned b = __ballot_sync(0xffffffffu, v & 1);  // vote.sync.ballot.b32
    r += __popc(b) << 3;
    r += __popc(b & lanemask_lt()) << 9;             // rank among set lanes
    unsigned act = __activemask();                   // activemask.b32
    r ^= act;
    if (v & 2) {
        // divergent vote: only the active subset votes
        unsigned sub = __activemask();
        unsigned bb = __ballot_sync(sub, v & 4);
        r += __popc(bb) << 16;
    }
    if (i < n)
        out[i] = r;
}

extern "C" __global__ void warp_match(const int *keys, const long long *keys64, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = (i < n) ? keys[i] : 0;
    long long k64 = (i < n) ? keys64[i] : 0;
    unsigned any32 = __match_any_sync(0xffffffffu, k);       // match.any.sync.b32
    unsigned any64 = __match_any_sync(0xffffffffu, k64);     // match.any.sync.b64
    int pred = 0;
    unsigned all32 = __match_all_sync(0xffffffffu, k & 0xF0, &pred);   // match.all.sync.b32
    int pred64 = 0;
    unsigned all64 = __match_all_sync(0xffffffffu, k64 >> 40, &pred64);
    // leader of each group of equal keys performs the aggregated update
    unsigned leader = __ffs(any32) - 1;
    unsigned is_leader = (lane_id() == leader);
    if (i < n) {
        out[4 * i + 0] = any32;
        out[4 * i + 1] = any64 ^ (is_leader << 31);
        out[4 * i + 2] = all32 | (unsigned)pred;
        out[4 * i + 3] = all64 | (unsigned)pred64;
    }
}

extern "C" __global__ void warp_reduce_ops(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = (i < n) ? in[i] : 0;
    unsigned r[6];
#if __CUDA_ARCH__ >= 800
    r[0] = __reduce_add_sync(0xffffffffu, v);           // redux.sync.add.u32
    r[1] = (unsigned)__reduce_min_sync(0xffffffffu, (int)v);   // redux.sync.min.s32
    r[2] = __reduce_max_sync(0xffffffffu, v);           // redux.sync.max.u32
    r[3] = __reduce_and_sync(0xffffffffu, v);           // redux.sync.and.b32
    r[4] = __reduce_or_sync(0xffffffffu, v);
    r[5] = __reduce_xor_sync(0xffffffffu, v);
#else
    r[0] = warp_sum<unsigned>(v);
    r[1] = r[2] = r[3] = r[4] = r[5] = v;
    for (int off = 16; off > 0; off >>= 1) {
        unsigned o1 = __shfl_xor_sync(0xffffffffu, r[1], off);
        unsigned o2 = __shfl_xor_sync(0xffffffffu, r[2], off);
        r[1] = (unsigned)min((int)r[1], (int)o1);
        r[2] = max(r[2], o2);
        r[3] &= __shfl_xor_sync(0xffffffffu, r[3], off);
        r[4] |= __shfl_xor_sync(0xffffffffu, r[4], off);
        r[5] ^= __shfl_xor_sync(0xffffffffu, r[5], off);
    }
#endif
    if (i < n)
        for (int k = 0; k < 6; ++k)
            out[6 * i + k] = r[k];
}

// __syncwarp with full and partial masks; lanes exchange through shared memory.
extern "C" __global__ void warp_syncwarp(int *out)
{
    __shared__ int buf[64];
    unsigned lane = threadIdx.x & 31;
    buf[threadIdx.x] = (int)threadIdx.x;
    __syncwarp();                                   // bar.warp.sync -1
    int v = buf[threadIdx.x ^ 1];
    __syncwarp(0xffffffffu);
    if (lane < 16) {
        buf[threadIdx.x] = v * 2;
        __syncwarp(0x0000ffffu);                    // lower half only
        v = buf[threadIdx.x ^ 8];
    } else {
        buf[threadIdx.x] = v * 3;
        __syncwarp(0xffff0000u);                    // upper half only
        v = buf[(threadIdx.x ^ 4)];
    }
    __syncwarp();
    unsigned mask = 0x55555555u;                    // even lanes
    if ((lane & 1) == 0) {
        __syncwarp(mask);
        v += __shfl_sync(mask, v, 0);
    }
    out[threadIdx.x] = v;
}

// Shuffle inside divergent code with a computed mask (only lanes < k take part).
extern "C" __global__ void warp_partial_shuffle(const int *in, int *out, int k)
{
    unsigned lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    if ((int)lane < k) {
        unsigned mask = (k >= 32) ? 0xffffffffu : ((1u << k) - 1u);
        int s = v;
        for (int off = 1; off < 32; off <<= 1) {
            int o = __shfl_down_sync(mask, s, off);
            if ((int)(lane + off) < k)
                s += o;
        }
        v = __shfl_sync(mask, s, 0);
    }
    out[threadIdx.x] = v;
}
