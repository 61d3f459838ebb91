// ptxvm test corpus: named barriers (all of these complete on hardware).
// CudaDMA-style warp specialization: DMA warps copy global -> shared and signal with
// bar.arrive, compute warps wait with bar.sync and hand the buffer back with bar.arrive.
// Single- and double-buffered versions; barrier ids and thread counts as immediates and as
// registers computed from blockDim; bar.red (via __syncthreads_count/and/or and inline PTX);
// non-aligned barrier.sync / barrier.arrive reached from divergent code; independent
// barriers for disjoint warp pairs.
//
// Launch shapes expected by the host tests:
//   dma_single_buffer_imm:   blockDim.x == 160 (4 compute warps + 1 DMA warp)
//   dma_single_buffer_reg:   any blockDim.x = 32*k, k >= 2 (last warp is the DMA warp)
//   dma_double_buffer:       blockDim.x = 32*k, k >= 3 (last two warps are DMA warps)
//   bar_reductions, bar_pairs, syncthreads_after_exit: blockDim.x == 128
//   barrier_nonaligned:      blockDim.x == 64
//   bar_partial_warp:        blockDim.x == 48 (warp 1 has 16 threads)
//   bar_pipeline_stages:     blockDim.x == 96
#include <cstdint>

#define TILE 512

// ---- thin wrappers over the barrier instructions -------------------------------------
__device__ __forceinline__ void bar_sync_reg(unsigned id, unsigned count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void bar_arrive_reg(unsigned id, unsigned count)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void barrier_sync_nonaligned(unsigned id, unsigned count)
{
    asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void barrier_arrive_nonaligned(unsigned id, unsigned count)
{
    asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ unsigned bar_red_popc(unsigned id, unsigned count, bool p)
{
    unsigned r;
    asm volatile("{\n\t"
                 ".reg .pred q;\n\t"
                 "setp.ne.u32 q, %3, 0;\n\t"
                 "bar.red.popc.u32 %0, %1, %2, q;\n\t"
                 "}"
                 : "=r"(r)
                 : "r"(id), "r"(count), "r"((unsigned)p)
                 : "memory");
    return r;
}

// ---- single buffer, immediate operands -------------------------------------------------
// Barrier 1: "buffer full"  (DMA arrives, compute syncs), 160 threads.
// Barrier 2: "buffer empty" (compute arrives, DMA syncs), 160 threads.
extern "C" __global__ void __launch_bounds__(160) dma_single_buffer_imm(const float *in, float *out,
                                                                        int num_tiles)
{
    __shared__ float buf[TILE];
    const unsigned warp = threadIdx.x >> 5;
    const unsigned lane = threadIdx.x & 31;
    const float *src = in + (size_t)blockIdx.x * num_tiles * TILE;
    float *dst = out + (size_t)blockIdx.x * num_tiles * TILE;
    if (warp == 4) {
        // DMA warp
        for (int t = 0; t < num_tiles; ++t) {
            asm volatile("bar.sync 2, 160;" ::: "memory");
            for (int k = lane; k < TILE; k += 32)
                buf[k] = src[t * TILE + k];
            asm volatile("bar.arrive 1, 160;" ::: "memory");
        }
    } else {
        // compute warps: 128 threads, 4 elements each
        asm volatile("bar.arrive 2, 160;" ::: "memory");
        for (int t = 0; t < num_tiles; ++t) {
            asm volatile("bar.sync 1, 160;" ::: "memory");
            float acc[TILE / 128];
#pragma unroll
            for (int k = 0; k < TILE / 128; ++k)
                acc[k] = buf[threadIdx.x + 128 * k] * 2.0f + 1.0f;
            if (t + 1 < num_tiles)
                asm volatile("bar.arrive 2, 160;" ::: "memory");
#pragma unroll
            for (int k = 0; k < TILE / 128; ++k)
                dst[t * TILE + threadIdx.x + 128 * k] = acc[k];
        }
    }
}

// ---- single buffer, register operands ----------------------------------------------------
// Same protocol; ids come from a kernel parameter and the count from blockDim.x.
extern "C" __global__ void dma_single_buffer_reg(const float *in, float *out, int num_tiles,
                                                 unsigned first_id)
{
    __shared__ float buf[TILE];
    const unsigned nthreads = blockDim.x;               // register count operand
    const unsigned ncompute = nthreads - 32;
    const unsigned full_id = first_id;                  // register id operands
    const unsigned empty_id = first_id + 1;
    const bool is_dma = threadIdx.x >= ncompute;
    const float *src = in + (size_t)blockIdx.x * num_tiles * TILE;
    float *dst = out + (size_t)blockIdx.x * num_tiles * TILE;
    if (is_dma) {
        unsigned lane = threadIdx.x - ncompute;
        for (int t = 0; t < num_tiles; ++t) {
            bar_sync_reg(empty_id, nthreads);
            for (unsigned k = lane; k < TILE; k += 32)
                buf[k] = src[t * TILE + k];
            bar_arrive_reg(full_id, nthreads);
        }
    } else {
        bar_arrive_reg(empty_id, nthreads);
        for (int t = 0; t < num_tiles; ++t) {
            bar_sync_reg(full_id, nthreads);
            float s = 0.0f;
            for (unsigned k = threadIdx.x; k < TILE; k += ncompute)
                s += buf[k];
            for (unsigned k = threadIdx.x; k < TILE; k += ncompute)
                dst[t * TILE + k] = buf[k] - s / (float)TILE;
            if (t + 1 < num_tiles)
                bar_arrive_reg(empty_id, nthreads);
        }
    }
}

// ---- double buffer with two DMA warps, register operands ----------------------------------
// Buffer b in {0,1}: full barrier 1+2b, empty barrier 2+2b. The id is computed per tile.
extern "C" __global__ void dma_double_buffer(const float *in, float *out, int num_tiles)
{
    __shared__ float buf[2][TILE];
    const unsigned nthreads = blockDim.x;
    const unsigned ndma = 64;
    const unsigned ncompute = nthreads - ndma;
    const float *src = in + (size_t)blockIdx.x * num_tiles * TILE;
    float *dst = out + (size_t)blockIdx.x * num_tiles * TILE;
    if (threadIdx.x >= ncompute) {
        unsigned dlane = threadIdx.x - ncompute;
        for (int t = 0; t < num_tiles; ++t) {
            unsigned b = t & 1;
            unsigned full_id = 1 + 2 * b;
            unsigned empty_id = full_id + 1;
            bar_sync_reg(empty_id, nthreads);
            const float4 *s4 = reinterpret_cast<const float4 *>(src + t * TILE);
            float4 *d4 = reinterpret_cast<float4 *>(buf[b]);
            for (unsigned k = dlane; k < TILE / 4; k += ndma)
                d4[k] = s4[k];                          // 128-bit vector loads/stores
            bar_arrive_reg(full_id, nthreads);
        }
    } else {
        bar_arrive_reg(2, nthreads);                    // both buffers start empty
        bar_arrive_reg(4, nthreads);
        for (int t = 0; t < num_tiles; ++t) {
            unsigned b = t & 1;
            unsigned full_id = 1 + 2 * b;
            bar_sync_reg(full_id, nthreads);
            for (unsigned k = threadIdx.x; k < TILE; k += ncompute) {
                float left = buf[b][(k + TILE - 1) % TILE];
                float right = buf[b][(k + 1) % TILE];
                dst[t * TILE + k] = 0.25f * left + 0.5f * buf[b][k] + 0.25f * right;
            }
            if (t + 2 < num_tiles)
                bar_arrive_reg(full_id + 1, nthreads);
        }
    }
}

// ---- __syncthreads_count / _and / _or and explicit bar.red ---------------------------------
extern "C" __global__ void bar_reductions(const int *in, int *out)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int cnt = __syncthreads_count(v > 0);      // bar.red.popc.u32 0
    int all = __syncthreads_and(v != 0);       // bar.red.and.pred 0
    int any = __syncthreads_or(v < -100);      // bar.red.or.pred 0
    // warps 0-1 reduce on barrier 3 (64 threads), warps 2-3 on barrier 4 (64 threads)
    unsigned warp = threadIdx.x >> 5;
    unsigned sub = (warp < 2) ? bar_red_popc(3, 64, v & 1) : bar_red_popc(4, 64, v & 2);
    unsigned andp;
    asm volatile("{\n\t.reg .pred p, q;\n\t"
                 "setp.gt.s32 p, %1, -1000;\n\t"
                 "bar.red.and.pred q, 5, p;\n\t"
                 "selp.u32 %0, 1, 0, q;\n\t}"
                 : "=r"(andp) : "r"(v) : "memory");
    unsigned orp;
    asm volatile("{\n\t.reg .pred p, q;\n\t"
                 "setp.eq.s32 p, %1, 42;\n\t"
                 "bar.red.or.pred q, 6, %2, !p;\n\t"
                 "selp.u32 %0, 1, 0, q;\n\t}"
                 : "=r"(orp) : "r"(v), "r"(blockDim.x) : "memory");
    out[blockIdx.x * blockDim.x + threadIdx.x] = cnt * 16 + all * 8 + any * 4 + (int)(sub << 8) +
                                                 (int)(andp * 2 + orp);
}

// ---- disjoint warp pairs on different barriers ---------------------------------------------
// Warps 0,1 exchange through barrier 1 (64 threads); warps 2,3 through barrier 2.
extern "C" __global__ void bar_pairs(int *out)
{
    __shared__ int x[128];
    unsigned warp = threadIdx.x >> 5;
    x[threadIdx.x] = (int)threadIdx.x * 3;
    if (warp < 2) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[threadIdx.x] = x[threadIdx.x ^ 32];
    } else {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        out[threadIdx.x] = x[threadIdx.x ^ 32] + 1000;
    }
    __syncthreads();                          // bar.sync 0
    asm volatile("bar.sync 0;" ::: "memory"); // explicit barrier 0 without count
    asm volatile("bar.sync 15, 128;" ::: "memory");   // highest id
}

// ---- non-aligned barrier.sync from divergent code ------------------------------------------
// Two warps; within each warp the halves reach barrier.sync 1,64 at different PCs.
extern "C" __global__ void barrier_nonaligned(int *out)
{
    __shared__ int x[64];
    unsigned lane = threadIdx.x & 31;
    x[threadIdx.x] = (int)threadIdx.x;
    int r;
    if (lane < 16) {
        barrier_sync_nonaligned(1, 64);
        r = x[63 - threadIdx.x];
    } else {
        barrier_sync_nonaligned(1, 64);
        r = x[63 - threadIdx.x] * 2;
    }
    // non-aligned producer/consumer: warp 1 arrives, warp 0 waits
    if (threadIdx.x >= 32) {
        x[threadIdx.x] = r + 1;
        barrier_arrive_nonaligned(2, 64);
    } else {
        barrier_sync_nonaligned(2, 64);
        r += x[threadIdx.x + 32];
    }
    asm volatile("barrier.sync 3;" ::: "memory");          // all threads, non-aligned
    asm volatile("barrier.sync.aligned 4, 64;" ::: "memory");
    out[threadIdx.x] = r;
}

// ---- __syncthreads() after a warp exited ---------------------------------------------------
// Warp 1 returns early; the remaining warps still complete __syncthreads().
extern "C" __global__ void syncthreads_after_exit(int *out)
{
    __shared__ int s[128];
    if ((threadIdx.x >> 5) == 1)
        return;
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    unsigned p = threadIdx.x ^ 64;
    if ((p >> 5) == 1)
        p = threadIdx.x;                      // never read the exited warp's slots
    out[threadIdx.x] = s[p];
}

// ---- partial-warp CTA: 48 threads, both warps sync on 64 ------------------------------------
extern "C" __global__ void bar_partial_warp(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x + 1;
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[threadIdx.x] = s[(threadIdx.x + 16) % blockDim.x];
}

// ---- producer/consumer ring with many warps and a barrier per stage -------------------------
// Each of 3 stages is a warp; stage s waits on barrier s+1 (filled by stage s-1) and signals
// barrier s+2. Stage 0 reads global memory, stage 2 writes it.
extern "C" __global__ void bar_pipeline_stages(const int *in, int *out, int iters)
{
    __shared__ int stage_buf[3][32];
    unsigned warp = threadIdx.x >> 5;
    unsigned lane = threadIdx.x & 31;
    for (int it = 0; it < iters; ++it) {
        if (warp == 0) {
            if (it > 0)
                asm volatile("bar.sync 4, 64;" ::: "memory");   // stage 1 released buffer 0
            stage_buf[0][lane] = in[it * 32 + lane];
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        } else if (warp == 1) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            int v = stage_buf[0][lane] * 2;
            if (it + 1 < iters)
                asm volatile("bar.arrive 4, 64;" ::: "memory");
            if (it > 0)
                asm volatile("bar.sync 5, 64;" ::: "memory");   // stage 2 released buffer 1
            stage_buf[1][lane] = v;
            asm volatile("bar.arrive 2, 64;" ::: "memory");
        } else {
            asm volatile("bar.sync 2, 64;" ::: "memory");
            int v = stage_buf[1][lane] + 1;
            if (it + 1 < iters)
                asm volatile("bar.arrive 5, 64;" ::: "memory");
            out[it * 32 + lane] = v;
        }
    }
}
