// ptxvm test corpus: libcu++ atomics with memory orders and scopes.
// cuda::atomic_ref<T, scope> for system/device/block scopes with relaxed, acquire, release,
// acq_rel and seq_cst orders (atom.acquire.gpu, ld.acquire.sys, st.release.cta, fence.sc ...),
// cuda::atomic_thread_fence, cuda::std::atomic in global memory, a spin lock and a
// message-passing (flag/data) pattern.
#include <cuda/atomic>

using cuda::memory_order_relaxed;
using cuda::memory_order_acquire;
using cuda::memory_order_release;
using cuda::memory_order_acq_rel;
using cuda::memory_order_seq_cst;

extern "C" __global__ void aref_orders(int *data, unsigned long long *wide, float *fl, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    cuda::atomic_ref<int, cuda::thread_scope_device> dev(data[0]);
    cuda::atomic_ref<int, cuda::thread_scope_system> sys(data[1]);
    cuda::atomic_ref<int, cuda::thread_scope_block> blk(data[2]);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(*wide);
    cuda::atomic_ref<float, cuda::thread_scope_device> f(*fl);
    int acc = 0;
    acc += dev.fetch_add(1, memory_order_relaxed);
    acc += dev.fetch_sub(1, memory_order_acquire);
    acc += dev.fetch_and(~0, memory_order_release);
    acc += dev.fetch_or(i & 1, memory_order_acq_rel);
    acc += dev.fetch_xor(0, memory_order_seq_cst);
    acc += sys.fetch_add(2, memory_order_relaxed);
    acc += sys.fetch_max(i, memory_order_acq_rel);
    acc += sys.load(memory_order_acquire);
    acc += blk.fetch_min(-i, memory_order_seq_cst);
    acc += blk.exchange(i, memory_order_release);
    acc += blk.load(memory_order_relaxed);
    int expected = 0;
    blk.compare_exchange_strong(expected, i, memory_order_acq_rel, memory_order_acquire);
    acc += expected;
    w.fetch_add((unsigned long long)acc, memory_order_relaxed);
    w.fetch_max(7ull, memory_order_seq_cst);
    f.fetch_add(0.5f, memory_order_relaxed);
    data[3 + i] = acc;
}

extern "C" __global__ void aref_load_store(int *flags, int *vals, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    cuda::atomic_ref<int, cuda::thread_scope_device> a(vals[i]);
    cuda::atomic_ref<int, cuda::thread_scope_system> s(flags[i]);
    cuda::atomic_ref<int, cuda::thread_scope_block> b(flags[n + i]);
    a.store(i, memory_order_relaxed);
    a.store(i + 1, memory_order_release);     // st.release.gpu
    s.store(1, memory_order_seq_cst);         // fence.sc.sys + st.relaxed.sys
    b.store(2, memory_order_release);         // st.release.cta
    int x = a.load(memory_order_seq_cst);
    int y = s.load(memory_order_relaxed);
    int z = b.load(memory_order_acquire);
    vals[i] = x + y + z;
}

// Explicit fences of every scope/order.
extern "C" __global__ void aref_fences(int *data)
{
    int t = threadIdx.x;
    data[t] = t;
    cuda::atomic_thread_fence(memory_order_release, cuda::thread_scope_block);
    data[t] += 1;
    cuda::atomic_thread_fence(memory_order_acquire, cuda::thread_scope_device);
    data[t] += 2;
    cuda::atomic_thread_fence(memory_order_seq_cst, cuda::thread_scope_system);
    data[t] += 3;
    cuda::atomic_thread_fence(memory_order_acq_rel, cuda::thread_scope_device);
    __threadfence_block();    // membar.cta
    __threadfence();          // membar.gl / fence.sc.gpu
    __threadfence_system();   // membar.sys
}

// Spin lock guarding a non-atomic critical section (one lane per warp takes it).
struct SpinLock {
    int word;
    __device__ void lock()
    {
        cuda::atomic_ref<int, cuda::thread_scope_device> r(word);
        int expected = 0;
        while (!r.compare_exchange_weak(expected, 1, memory_order_acquire, memory_order_relaxed)) {
            expected = 0;
#if __CUDA_ARCH__ >= 700
            __nanosleep(32);
#endif
        }
    }
    __device__ void unlock()
    {
        cuda::atomic_ref<int, cuda::thread_scope_device> r(word);
        r.store(0, memory_order_release);
    }
};

extern "C" __global__ void aref_spinlock(SpinLock *lock, long long *counter)
{
    if ((threadIdx.x & 31) == 0) {
        lock->lock();
        long long v = *(volatile long long *)counter;
        *(volatile long long *)counter = v + 1;
        lock->unlock();
    }
}

// Message passing between blocks: block 0 produces, the others consume.
extern "C" __global__ void aref_message_passing(int *payload, int *flag, int *out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) {
            payload[0] = 1234;
            f.store(1, memory_order_release);
        }
    } else if (threadIdx.x == 0) {
        while (f.load(memory_order_acquire) == 0) {
        }
        out[blockIdx.x] = payload[0];
    }
}

// cuda::std::atomic objects placed in global memory by the host (constructed in place).
extern "C" __global__ void aref_std_atomic(cuda::std::atomic<int> *a, cuda::atomic<unsigned, cuda::thread_scope_block> *b,
                                           int *out)
{
    int old = a->fetch_add(1);
    unsigned o2 = b->fetch_add(2u, cuda::std::memory_order_relaxed);
    out[blockIdx.x * blockDim.x + threadIdx.x] = old + (int)o2 + a->load();
}
