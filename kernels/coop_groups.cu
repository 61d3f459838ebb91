// ptxvm test corpus: cooperative groups.
// thread_block (sync, thread_rank, group_index), tiled_partition (dynamic and static <32>,
// <16>, <8>, <4>), coalesced_threads in divergent code, cg::reduce / cg::inclusive_scan /
// cg::exclusive_scan with plus/greater/bit_and, tile shuffles and votes, labeled_partition,
// and grid-wide synchronization (grid.sync) in a separate kernel that needs a cooperative launch.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

template <typename Group>
__device__ int tile_sum_manual(Group g, int v)
{
    for (int off = g.size() / 2; off > 0; off /= 2)
        v += g.shfl_down(v, off);
    return v;
}

extern "C" __global__ void cg_block_and_tiles(const int *in, int *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ int partial[32];
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = (i < n) ? in[i] : 0;

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(warp);
    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(eighth);

    int ws = cg::reduce(warp, v, cg::plus<int>());
    int hs = cg::reduce(half, v, cg::greater<int>());
    int es = tile_sum_manual(eighth, v);
    int qs = quad.shfl(v, 3) + quad.shfl_xor(v, 1);
    unsigned anyodd = warp.any(v & 1);
    unsigned allpos = half.all(v > 0);
    unsigned bal = warp.ballot(v > 10);

    if (warp.thread_rank() == 0)
        partial[warp.meta_group_rank()] = ws;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int p = (warp.thread_rank() < warp.meta_group_size()) ? partial[warp.thread_rank()] : 0;
        int total = cg::reduce(warp, p, cg::plus<int>());
        if (warp.thread_rank() == 0)
            out[n + block.group_index().x] = total;
    }
    if (i < n)
        out[i] = ws + hs + es + qs + (int)anyodd + (int)allpos + __popc(bal);
}

extern "C" __global__ void cg_dynamic_partition(const int *in, int *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, 8);   // dynamic tile size
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = (i < n) ? in[i] : 0;
    __shared__ int scratch[1024];
    scratch[block.thread_rank()] = v;
    tile.sync();
    int base = block.thread_rank() - tile.thread_rank();
    int sum = 0;
    for (unsigned k = 0; k < tile.size(); ++k)
        sum += scratch[base + k];
    if (i < n)
        out[i] = sum;
}

extern "C" __global__ void cg_coalesced(const int *in, int *out, int *counter, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    if (v & 1) {
        // only odd values reach here: a coalesced group of the active lanes
        cg::coalesced_group active = cg::coalesced_threads();
        int slot = 0;
        if (active.thread_rank() == 0)
            slot = atomicAdd(counter, (int)active.size());
        slot = active.shfl(slot, 0) + active.thread_rank();
        int s = cg::reduce(active, v, cg::plus<int>());
        out[i] = slot * 1000 + s;
    } else {
        cg::coalesced_group active = cg::coalesced_threads();
        cg::coalesced_group sub = cg::labeled_partition(active, (v >> 1) & 3);
        out[i] = (int)sub.size() + (int)sub.thread_rank() * 100;
    }
}

extern "C" __global__ void cg_scans(const int *in, int *inc, int *exc, unsigned *andv, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int a = cg::inclusive_scan(warp, v);
    int b = cg::exclusive_scan(warp, v, cg::plus<int>());
    unsigned c = cg::reduce(warp, (unsigned)v | 0x80000000u, cg::bit_and<unsigned>());
    if (i < n) {
        inc[i] = a;
        exc[i] = b;
        andv[i] = c;
    }
}

// Grid-wide barrier: every block writes, grid.sync(), then reads another block's value.
// Must be launched with cudaLaunchCooperativeKernel.
extern "C" __global__ void cg_grid_sync(int *buf, int *out, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long r = grid.thread_rank();
    unsigned long long total = grid.size();
    int v = (int)r;
    for (int k = 0; k < rounds; ++k) {
        buf[r] = v;
        grid.sync();
        v += buf[(r + 1 + k) % total];
        grid.sync();
    }
    out[r] = v + (int)grid.num_blocks() + (int)grid.block_rank();
}
