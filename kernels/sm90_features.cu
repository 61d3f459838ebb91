// ptxvm test corpus: sm_90 features (guarded; on sm_75/sm_80 the kernels compile to stubs or
// fallbacks so the file builds for every target).
// Thread block clusters: __cluster_dims__ (.reqnctapercluster), cluster.sync()
// (barrier.cluster.arrive/wait), distributed shared memory via cg::this_cluster().map_shared_rank
// (mapa + ld/st.shared::cluster), %cluster_ctarank / %clusterid / %nclusterid special registers,
// elect.sync, fence.proxy.async, mbarrier expect_tx, cp.async.bulk (TMA 1-D bulk copy),
// griddepcontrol, and __nanosleep (sm_70+, so present on every target).
#include <cooperative_groups.h>
#include <cstdint>

namespace cg = cooperative_groups;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PTXVM_CLUSTER_DIMS(x, y, z) __cluster_dims__(x, y, z)
#else
#define PTXVM_CLUSTER_DIMS(x, y, z)
#endif

// Each CTA of a 2-CTA cluster fills its shared array, then reads its partner's through DSMEM.
extern "C" __global__ void PTXVM_CLUSTER_DIMS(2, 1, 1) cluster_dsmem_exchange(int *out)
{
    __shared__ int smem[128];
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    smem[threadIdx.x] = (int)(rank * 1000 + threadIdx.x);
    cluster.sync();
    unsigned partner = rank ^ 1u;
    int *remote = cluster.map_shared_rank(smem, partner);   // mapa.u64 -> generic DSMEM ptr
    int v = remote[(threadIdx.x + 1) % blockDim.x];
    cluster.sync();                                         // keep partner's smem alive
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + (int)cluster.num_blocks() * 100000;
#else
    smem[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
#endif
}

// Cluster-wide histogram: every CTA adds into CTA 0's shared histogram with remote atomics.
// Launched with a runtime cluster size (no __cluster_dims__).
extern "C" __global__ void cluster_dsmem_histogram(const unsigned *keys, unsigned *hist, int n)
{
    __shared__ unsigned bins[64];
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    for (int k = threadIdx.x; k < 64; k += blockDim.x)
        bins[k] = 0;
    cluster.sync();
    unsigned *root = cluster.map_shared_rank(bins, 0);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&root[keys[i] & 63], 1u);                 // atom on shared::cluster via generic
    cluster.sync();
    if (cluster.block_rank() == 0)
        for (int k = threadIdx.x; k < 64; k += blockDim.x)
            atomicAdd(&hist[k], bins[k]);
#else
    for (int k = threadIdx.x; k < 64; k += blockDim.x)
        bins[k] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[keys[i] & 63], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < 64; k += blockDim.x)
        atomicAdd(&hist[k], bins[k]);
#endif
}

// Cluster special registers and split cluster barrier through inline PTX.
extern "C" __global__ void PTXVM_CLUSTER_DIMS(4, 1, 1) cluster_special_regs(unsigned *out)
{
    unsigned r[6] = {0, 0, 0, 0, 0, 0};
#if __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r[0]));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r[1]));
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r[2]));
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r[3]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r[4]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r[5]));
    asm volatile("barrier.cluster.arrive.release;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    // explicit mapa + ld.shared::cluster on a 32-bit shared::cta address
    __shared__ unsigned word;
    if (threadIdx.x == 0)
        word = r[0] + 7;
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    unsigned local = (unsigned)__cvta_generic_to_shared(&word);
    unsigned remote_addr, val;
    unsigned target = (r[0] + 1) % r[1];
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_addr) : "r"(local), "r"(target));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(val) : "r"(remote_addr) : "memory");
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    r[0] += val << 16;
#endif
    for (int k = 0; k < 6; ++k)
        out[(blockIdx.x * blockDim.x + threadIdx.x) * 6 + k] = r[k];
}

// elect.sync: one lane per warp is elected; fences of the async proxy.
extern "C" __global__ void sm90_elect_fence(int *counter, int *out)
{
    unsigned elected = 0;
#if __CUDA_ARCH__ >= 900
    asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 leader;\n\t"
                 "elect.sync leader|p, 0xffffffff;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(elected));
    asm volatile("fence.proxy.async;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
    elected = (threadIdx.x & 31) == 0;
#endif
    if (elected)
        atomicAdd(counter, 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)elected;
}

// TMA-style 1-D bulk copy global -> shared completed through an mbarrier transaction count.
extern "C" __global__ void sm90_bulk_copy(const int4 *in, int4 *out, int nvec)
{
    __shared__ alignas(128) int4 buf[256];
#if __CUDA_ARCH__ >= 900
    __shared__ alignas(8) unsigned long long mbar;
    unsigned bytes = (unsigned)(min(nvec, 256) * (int)sizeof(int4));
    unsigned sbuf = (unsigned)__cvta_generic_to_shared(buf);
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&mbar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(bytes)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(sbuf), "l"(in + (size_t)blockIdx.x * 256), "r"(bytes), "r"(sbar)
                     : "memory");
    }
    asm volatile("{\n\t.reg .pred done;\n\t"
                 "LAB_WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
                 "@!done bra LAB_WAIT;\n\t}" ::"r"(sbar) : "memory");
#else
    for (int k = threadIdx.x; k < min(nvec, 256); k += blockDim.x)
        buf[k] = in[(size_t)blockIdx.x * 256 + k];
    __syncthreads();
#endif
    for (int k = threadIdx.x; k < min(nvec, 256); k += blockDim.x) {
        int4 v = buf[k];
        out[(size_t)blockIdx.x * 256 + k] = make_int4(v.w, v.z, v.y, v.x);
    }
}

// __nanosleep back-off (sm_70+) and programmatic dependent launch controls (sm_90).
extern "C" __global__ void sm90_nanosleep_pdl(int *flag, int *out)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    unsigned ns = 8;
    int spins = 0;
    while (atomicAdd(flag, 0) == 0 && spins < 16) {
        __nanosleep(ns);                                // nanosleep.u32
        ns = ns < 256 ? ns * 2 : 256;
        ++spins;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = spins;
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// stmatrix (sm_90) and redux-free warp code paths; also %globaltimer / %clock64 reads.
extern "C" __global__ void sm90_misc(unsigned *out, unsigned long long *times)
{
    __shared__ alignas(16) unsigned short tile[8 * 8];
    unsigned lane = threadIdx.x & 31;
    unsigned long long t0 = clock64();
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
#if __CUDA_ARCH__ >= 900
    unsigned frag = (lane << 16) | lane;
    unsigned row = (unsigned)__cvta_generic_to_shared(&tile[(lane & 7) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(row), "r"(frag) : "memory");
#else
    tile[lane * 2] = (unsigned short)lane;
    tile[lane * 2 + 1] = (unsigned short)lane;
#endif
    __syncwarp();
    out[lane] = tile[lane] | ((unsigned)tile[63 - lane] << 16);
    times[2 * lane] = clock64() - t0;
    times[2 * lane + 1] = g0;
}
