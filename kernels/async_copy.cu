// ptxvm test corpus: asynchronous copies and split barriers.
// cuda::barrier<thread_scope_block> (mbarrier.init/arrive/test_wait/try_wait on sm_80+),
// cuda::memcpy_async with a barrier and with cuda::pipeline (cp.async.ca/cg + commit/wait_group),
// multi-stage pipelines with producer_acquire/commit/consumer_wait/release, the
// __pipeline_memcpy_async primitives, cg::memcpy_async + cg::wait, and raw cp.async /
// mbarrier inline PTX. sm_75 builds fall back to synchronous copies where the feature is absent.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

#define CHUNK 256

// cuda::barrier split arrive/wait without async copies.
extern "C" __global__ void async_barrier_basic(const int *in, int *out, int n)
{
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[1024];
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n) ? in[i] : 0;
    cuda::barrier<cuda::thread_scope_block>::arrival_token tok = bar.arrive();
    int local = (int)threadIdx.x * 2;                 // independent work between arrive and wait
    bar.wait(std::move(tok));
    int r = s[(threadIdx.x + 1) % blockDim.x] + local;
    bar.arrive_and_wait();                            // second phase
    s[threadIdx.x] = r;
    bar.arrive_and_wait();
    if (i < n)
        out[i] = s[blockDim.x - 1 - threadIdx.x];
}

// cuda::memcpy_async tracked by a cuda::barrier (cp.async + mbarrier complete_tx on sm_90).
extern "C" __global__ void async_memcpy_barrier(const float *in, float *out, int nchunks)
{
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(16) float buf[CHUNK];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    for (int c = 0; c < nchunks; ++c) {
        const float *src = in + ((size_t)blockIdx.x * nchunks + c) * CHUNK;
        cuda::memcpy_async(block, buf, src, sizeof(float) * CHUNK, bar);
        bar.arrive_and_wait();
        float *dst = out + ((size_t)blockIdx.x * nchunks + c) * CHUNK;
        for (unsigned k = block.thread_rank(); k < CHUNK; k += block.size())
            dst[k] = buf[k] * 3.0f;
        block.sync();
    }
}

// Two-stage cuda::pipeline (block scope) double-buffering chunks into shared memory.
extern "C" __global__ void async_pipeline_2stage(const float *in, float *out, int nchunks)
{
    constexpr int stages = 2;
    __shared__ alignas(16) float buf[stages][CHUNK];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *base = in + (size_t)blockIdx.x * nchunks * CHUNK;
    float *obase = out + (size_t)blockIdx.x * nchunks * CHUNK;
    int fetch = 0;
    for (; fetch < stages && fetch < nchunks; ++fetch) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[fetch % stages], base + fetch * CHUNK,
                           cuda::aligned_size_t<16>(sizeof(float) * CHUNK), pipe);
        pipe.producer_commit();
    }
    for (int c = 0; c < nchunks; ++c) {
        pipe.consumer_wait();
        float *b = buf[c % stages];
        for (unsigned k = block.thread_rank(); k < CHUNK; k += block.size())
            obase[c * CHUNK + k] = b[k] + (float)c;
        block.sync();
        pipe.consumer_release();
        if (fetch < nchunks) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[fetch % stages], base + fetch * CHUNK,
                               cuda::aligned_size_t<16>(sizeof(float) * CHUNK), pipe);
            pipe.producer_commit();
            ++fetch;
        }
    }
}

// Per-thread pipeline (thread scope) with the primitive API: __pipeline_memcpy_async,
// __pipeline_commit, __pipeline_wait_prior (cp.async.ca.shared.global + wait_group).
extern "C" __global__ void async_pipeline_primitives(const int4 *in, int4 *out, int n)
{
    __shared__ int4 s[2][128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i + gridDim.x * blockDim.x;
    if (j >= n)
        return;
    __pipeline_memcpy_async(&s[0][threadIdx.x], &in[i], sizeof(int4));
    __pipeline_commit();
    __pipeline_memcpy_async(&s[1][threadIdx.x], &in[j], sizeof(int4));
    __pipeline_commit();
    __pipeline_wait_prior(1);                          // first group complete
    int4 a = s[0][threadIdx.x];
    __pipeline_wait_prior(0);
    int4 b = s[1][threadIdx.x];
    out[i] = make_int4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// cooperative_groups::memcpy_async + cg::wait.
extern "C" __global__ void async_cg_memcpy(const double *in, double *out, int n)
{
    __shared__ alignas(16) double s[512];
    auto block = cg::this_thread_block();
    int count = min(n - (int)(blockIdx.x * 512), 512);
    if (count <= 0)
        return;
    cg::memcpy_async(block, s, in + blockIdx.x * 512, sizeof(double) * count);
    cg::wait(block);
    for (int k = block.thread_rank(); k < count; k += block.size())
        out[blockIdx.x * 512 + k] = s[count - 1 - k];
}

// Raw inline PTX: cp.async (4/8/16 bytes, .cg, zero-fill src-size), commit/wait groups,
// and an mbarrier driven by hand (init, arrive, expect_tx on sm_90, try_wait loop).
extern "C" __global__ void async_raw_ptx(const float4 *in, float4 *out, int n)
{
    __shared__ alignas(16) float4 s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || blockDim.x > 128)
        return;
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(8) unsigned long long mbar;
    unsigned saddr = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
    unsigned baddr = (unsigned)__cvta_generic_to_shared(&mbar);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(&in[i]) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    // 4-byte copy with zero fill: copy 0 bytes of source, fill 4 with zeros
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, 0;" ::"r"(saddr + 12), "l"(&in[i]) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(baddr), "r"(blockDim.x) : "memory");
    __syncthreads();
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(baddr) : "memory");
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(baddr), "l"(state) : "memory");
    }
#if __CUDA_ARCH__ >= 900
    // phase-parity wait form and try_wait (sm_90)
    asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(baddr) : "memory");
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "WAIT_LOOP:\n\t"
                 "mbarrier.try_wait.parity.shared.b64 p, [%0], 1;\n\t"
                 "@!p bra WAIT_LOOP;\n\t}" ::"r"(baddr) : "memory");
#endif
    float4 v = s[threadIdx.x];
    out[i] = make_float4(v.x * 2.0f, v.y, v.z, v.w);
#else
    s[threadIdx.x] = in[i];
    float4 v = s[threadIdx.x];
    v.w = 0.0f;
    out[i] = make_float4(v.x * 2.0f, v.y, v.z, v.w);
#endif
}
