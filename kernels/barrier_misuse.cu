// ptxvm test corpus: named-barrier MISUSE. These kernels compile and pass ptxas, but each one
// hangs, faults or is undefined on hardware (see DESIGN.md section 4, "Named barriers").
// They exist so the emulator's checkers have real nvcc output to diagnose. The expected
// diagnostic is named in each kernel's comment. Do not run them expecting success.
//
// Launch with blockDim.x == 64 unless noted.

__device__ __forceinline__ void bsync(unsigned id, unsigned n)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}

__device__ __forceinline__ void barrive(unsigned id, unsigned n)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}

// barrier-deadlock: warp 1 exits, warp 0 waits on bar.sync 1,64 for it forever.
extern "C" __global__ void misuse_partner_exited(int *out)
{
    if (threadIdx.x >= 32)
        return;
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[threadIdx.x] = 1;
}

// No diagnostic: same as above but the count matches the surviving warp (completes).
extern "C" __global__ void ok_partner_exited_count32(int *out)
{
    if (threadIdx.x >= 32)
        return;
    asm volatile("bar.sync 1, 32;" ::: "memory");
    out[threadIdx.x] = 1;
}

// barrier-deadlock: the DMA warp (warp 1) does sync, sync, arrive, arrive per iteration while
// the compute warp (warp 0) does arrive, sync. Barrier 1 = full, 2 = empty.
extern "C" __global__ void misuse_dma_wrong_order(const float *in, float *out, int iters)
{
    __shared__ float buf[32];
    unsigned lane = threadIdx.x & 31;
    if (threadIdx.x >= 32) {
        for (int t = 0; t < iters; ++t) {
            bsync(2, 64);
            bsync(1, 64);             // wrong: waits on "full", which it should signal
            buf[lane] = in[t * 32 + lane];
            barrive(1, 64);
            barrive(2, 64);
        }
    } else {
        for (int t = 0; t < iters; ++t) {
            barrive(2, 64);
            bsync(1, 64);
            out[t * 32 + lane] = buf[lane];
        }
    }
}

// barrier-double-arrive: the compute warp arrives twice on barrier 2 before the DMA warp syncs
// (the DMA warp is delayed by a long loop).
extern "C" __global__ void misuse_double_arrive(float *out, int delay)
{
    unsigned lane = threadIdx.x & 31;
    if (threadIdx.x >= 32) {
        float x = (float)lane;
        for (int k = 0; k < delay; ++k)
            x = x * 0.999f + 1.0f;
        out[32 + lane] = x;
        bsync(2, 64);
        bsync(2, 64);
    } else {
        barrive(2, 64);
        barrive(2, 64);
        out[lane] = 1.0f;
    }
}

// barrier-count-mismatch: warps of one generation give different counts (64 and 96).
// blockDim.x == 96.
extern "C" __global__ void misuse_count_mismatch(int *out)
{
    if (threadIdx.x < 64)
        bsync(1, 64);
    else
        bsync(1, 96);
    out[threadIdx.x] = 1;
}

// barrier-invalid-operand: barrier id 16 passed in a register.
extern "C" __global__ void misuse_bad_id(int *out, unsigned id)
{
    bsync(id, 64);                    // launched with id == 16
    out[threadIdx.x] = (int)id;
}

// divergent-barrier (warning only): __syncthreads() inside a branch that splits each warp 16/16.
extern "C" __global__ void misuse_divergent_syncthreads(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    if ((threadIdx.x & 31) < 16) {
        __syncthreads();
        out[threadIdx.x] = s[63 - threadIdx.x];
    } else {
        __syncthreads();
        out[threadIdx.x] = -s[63 - threadIdx.x];
    }
}

// barrier-mixed-ops: one generation of barrier 3 mixes bar.red and bar.sync.
extern "C" __global__ void misuse_mixed_ops(int *out)
{
    unsigned r = 0;
    if (threadIdx.x < 32) {
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t"
                     "bar.red.popc.u32 %0, 3, 64, p;\n\t}"
                     : "=r"(r) : "r"(threadIdx.x & 1) : "memory");
    } else {
        bsync(3, 64);
    }
    out[threadIdx.x] = (int)r;
}

// Completes (may note it): a bar.arrive is still pending when the kernel exits.
extern "C" __global__ void note_pending_arrive(int *out)
{
    if (threadIdx.x < 32)
        barrive(1, 64);
    out[threadIdx.x] = 2;
}
