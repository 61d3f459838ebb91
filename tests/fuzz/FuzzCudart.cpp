// libFuzzer target for libcudart.so.13: each input is a sequence of CUDA runtime API calls with
// arguments chosen by the input: pointers among live and freed allocations, offsets before,
// at and past their ends, host buffers, null and made-up values; sizes small, at the edges and
// huge; streams and events live, destroyed and made-up. Every call must answer with an error
// code: never a crash, a leak, a write outside what the program owns, or a hang.
//
// The harness itself plays by the rules a correct program's host side obeys (ones the
// runtime cannot check on any GPU): plain host memory it passes is its own, with the count it
// owns; freed pinned memory is never handed to a call that would touch it. Allocations stay
// within kBudget per input unless their size is beyond the device's memory (which every
// runtime must refuse without allocating). Each input ends with cudaDeviceReset.
#include "runtime/cudart/CudaTypes.h"
#include "runtime/cudart/Limits.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace cudart;

// The entry points called, with the runtime's own types (CudaTypes.h).
extern "C" {
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaFree(void *);
cudaError_t cudaMallocPitch(void **, size_t *, size_t, size_t);
cudaError_t cudaMalloc3D(cudaPitchedPtr *, cudaExtent);
cudaError_t cudaMallocHost(void **, size_t);
cudaError_t cudaHostAlloc(void **, size_t, unsigned);
cudaError_t cudaFreeHost(void *);
cudaError_t cudaMallocManaged(void **, size_t, unsigned);
cudaError_t cudaHostRegister(void *, size_t, unsigned);
cudaError_t cudaHostUnregister(void *);
cudaError_t cudaHostGetDevicePointer(void **, void *, unsigned);
cudaError_t cudaHostGetFlags(unsigned *, void *);
cudaError_t cudaMallocAsync(void **, size_t, cudaStream_t);
cudaError_t cudaFreeAsync(void *, cudaStream_t);
cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy2D(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t);
cudaError_t cudaMemset2D(void *, size_t, int, size_t, size_t);
cudaError_t cudaMemset3D(cudaPitchedPtr, int, cudaExtent);
cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t, size_t, cudaMemcpyKind);
cudaError_t cudaGetSymbolAddress(void **, const void *);
cudaError_t cudaMemPrefetchAsync(const void *, size_t, cudaMemLocation, unsigned, cudaStream_t);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *, unsigned, int);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventQuery(cudaEvent_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *, const void *);
cudaError_t cudaMemGetInfo(size_t *, size_t *);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *, const void *);
const char *cudaGetErrorName(cudaError_t);
const char *cudaGetErrorString(cudaError_t);
}

namespace {

constexpr uint64_t kBudget = uint64_t{48} << 20; // bytes one input may allocate
constexpr size_t kMaxCalls = 256;
constexpr size_t kArenaBytes = 64 << 10; // the harness's plain host memory

enum class Kind { Device, Pinned, Managed, Registered };

struct Block {
  uint8_t *base;
  uint64_t size;
  Kind kind;
  bool live = true;
};

/// A pointer for a call, and how many bytes from it the harness owns on the
/// host (0: not the host's to touch, so the runtime must check it).
struct Pointer {
  uint8_t *p = nullptr;
  uint64_t hostBytes = 0;
};

class Session {
public:
  Session(FuzzedDataProvider &in, uint64_t deviceBytes) : in_(in), deviceBytes_(deviceBytes) {
    // The arena is a host buffer the harness owns: what it passes as plain host memory.
    arena_.assign(kArenaBytes, 0);
  }

  ~Session() {
    check(cudaDeviceReset() == cudaSuccess);
    // Registered memory is the program's own: it goes after the runtime forgot it.
    for (uint8_t *r : registered_) std::free(r);
  }

  void run() {
    for (size_t n = 0; n < kMaxCalls && in_.remaining_bytes() > 0; ++n) call(in_.ConsumeIntegral<uint8_t>());
  }

private:
  static void check(bool ok) {
    if (!ok) std::abort();
  }

  /// A size: small, at an edge of an allocation, or huge.
  uint64_t size(uint64_t around = 256) {
    switch (in_.ConsumeIntegralInRange(0, 7)) {
    case 0: return 0;
    case 1: return in_.ConsumeIntegralInRange<uint64_t>(1, 64);
    case 2: return around;
    case 3: return around + in_.ConsumeIntegralInRange<uint64_t>(1, 4097);
    case 4: return around ? around - 1 : 0;
    case 5: return UINT64_MAX - in_.ConsumeIntegralInRange<uint64_t>(0, 4096);
    case 6: return uint64_t{1} << in_.ConsumeIntegralInRange(32, 63);
    default: return in_.ConsumeIntegral<uint64_t>();
    }
  }

  /// Whether an allocation of `bytes` may be asked for: within the budget,
  /// or beyond the device (an answer without allocating).
  bool affordable(uint64_t bytes) const {
    return bytes <= kBudget - std::min(kBudget, spent_) || bytes > deviceBytes_;
  }

  void allocated(void *p, uint64_t bytes, Kind kind) {
    if (!p) return;
    spent_ += bytes;
    blocks_.push_back({static_cast<uint8_t *>(p), bytes, kind});
  }

  /// The block starting at `p`, if the harness made one.
  Block *blockAt(const void *p) {
    for (Block &b : blocks_)
      if (b.base == p && b.live) return &b;
    return nullptr;
  }

  /// After a free that succeeded: the block at `p` is gone.
  void released(void *p) {
    Block *b = blockAt(p);
    check(b != nullptr); // the runtime freed something it never gave out
    b->live = false;
  }

  /// Made-up values: never dereferenced by a correct runtime unless they
  /// are in memory it handed out, and the harness only uses them where a
  /// runtime has no reason to touch host memory.
  uint8_t *madeUp() {
    static const uint64_t values[] = {1,
                                      8,
                                      0x1000,
                                      0xdeadbeef,
                                      0x7000'0000'0000ull,
                                      0x7000'0000'0100ull,
                                      0x7fff'ffff'ffffull,
                                      0xffff'ffff'ffff'f000ull,
                                      UINT64_MAX};
    return reinterpret_cast<uint8_t *>(values[in_.ConsumeIntegralInRange<size_t>(0, std::size(values) - 1)]);
  }

  /// A pointer the runtime may be asked to read or write through: device
  /// memory (live or freed, any offset the device heap still holds), memory
  /// both sides share (inside its block), the harness's host arena, or null.
  Pointer reachable() {
    uint8_t choice = in_.ConsumeIntegralInRange(0, 9);
    if (choice == 0 || blocks_.empty()) return {};
    if (choice == 1) {
      // Never at the end: hostBytes 0 means "not host memory" to owned().
      uint64_t at = in_.ConsumeIntegralInRange<uint64_t>(0, kArenaBytes - 1);
      return {arena_.data() + at, kArenaBytes - at};
    }
    Block &b = blocks_[in_.ConsumeIntegralInRange<size_t>(0, blocks_.size() - 1)];
    if (b.kind != Kind::Device) {
      // Shared memory: inside the block only, and only while it lives (past
      // its end or after its free it is host memory nobody owns).
      if (!b.live || b.size == 0) return {};
      return {b.base + in_.ConsumeIntegralInRange<uint64_t>(0, b.size - 1), 0};
    }
    // Device memory: any offset in the device heap is for the runtime to check.
    int64_t offset = 0;
    switch (in_.ConsumeIntegralInRange(0, 6)) {
    case 0: offset = 0; break;
    case 1: offset = static_cast<int64_t>(b.size) - 1; break;
    case 2: offset = static_cast<int64_t>(b.size); break;
    case 3: offset = static_cast<int64_t>(b.size) + in_.ConsumeIntegralInRange<int64_t>(1, 8192); break;
    case 4: offset = -in_.ConsumeIntegralInRange<int64_t>(1, 256); break;
    case 5: offset = in_.ConsumeIntegralInRange<int64_t>(0, int64_t{1} << 30); break;
    default: offset = in_.ConsumeIntegralInRange<int64_t>(0, static_cast<int64_t>(b.size)); break;
    }
    uint8_t *p = b.base + offset;
    // Below the first device block is not the device heap: host memory no one owns.
    if (p < lowestDevice()) return {b.base, 0};
    return {p, 0};
  }

  uint8_t *lowestDevice() const {
    uint8_t *low = reinterpret_cast<uint8_t *>(UINTPTR_MAX);
    for (const Block &b : blocks_)
      if (b.kind == Kind::Device) low = std::min(low, b.base);
    return low;
  }

  /// Any pointer at all, for calls that must not touch memory through it.
  uint8_t *anything() {
    switch (in_.ConsumeIntegralInRange(0, 3)) {
    case 0: return madeUp();
    case 1:
      if (!blocks_.empty()) {
        Block &b = blocks_[in_.ConsumeIntegralInRange<size_t>(0, blocks_.size() - 1)];
        return b.base + in_.ConsumeIntegralInRange<int64_t>(-16, static_cast<int64_t>(b.size) + 16);
      }
      return nullptr;
    case 2: return arena_.data() + in_.ConsumeIntegralInRange<size_t>(0, kArenaBytes);
    default: return reachable().p;
    }
  }

  /// Whether the host bytes a call may touch through `p` are the harness's:
  /// `span` bytes from it, when the runtime would take it for host memory.
  static bool owned(const Pointer &p, uint64_t span) { return p.hostBytes == 0 || span <= p.hostBytes; }

  cudaMemcpyKind kind() {
    return static_cast<cudaMemcpyKind>(in_.ConsumeBool() ? cudaMemcpyDefault
                                                         : in_.ConsumeIntegralInRange(-1, 6));
  }

  cudaStream_t stream() {
    switch (in_.ConsumeIntegralInRange(0, 4)) {
    case 0: return nullptr;
    case 1: return cudaStreamPerThread;
    case 2: return reinterpret_cast<cudaStream_t>(madeUp());
    default:
      return streams_.empty() ? nullptr
                              : streams_[in_.ConsumeIntegralInRange<size_t>(0, streams_.size() - 1)];
    }
  }

  cudaEvent_t event() {
    if (events_.empty() || in_.ConsumeIntegralInRange(0, 4) == 0)
      return reinterpret_cast<cudaEvent_t>(madeUp());
    return events_[in_.ConsumeIntegralInRange<size_t>(0, events_.size() - 1)];
  }

  /// The bytes of a pitched allocation; false when they overflow (which
  /// the runtime must refuse).
  static bool pitched(uint64_t width, uint64_t rows, uint64_t depth, uint64_t &bytes) {
    constexpr uint64_t align = limits::kPitchAlignment;
    if (width > UINT64_MAX - align) return false;
    return !__builtin_mul_overflow((width + align - 1) / align * align, rows, &bytes) &&
           !__builtin_mul_overflow(bytes, depth, &bytes);
  }

  /// The host span of a pitched range: rows of `width` bytes `pitch` apart.
  static bool span2D(uint64_t pitch, uint64_t width, uint64_t rows, uint64_t &span) {
    if (rows == 0 || width == 0) return (span = 0), true;
    uint64_t last = 0;
    return !__builtin_mul_overflow(rows - 1, pitch, &last) && !__builtin_add_overflow(last, width, &span);
  }

  void call(uint8_t op) {
    switch (op % 32) {
    case 0: {
      uint64_t n = size(in_.ConsumeIntegralInRange<uint64_t>(0, 1 << 16));
      if (!affordable(n)) return;
      void *p = nullptr;
      if (cudaMalloc(in_.ConsumeIntegralInRange(0, 15) ? &p : nullptr, n) == cudaSuccess)
        allocated(p, n, Kind::Device);
      return;
    }
    case 1: {
      uint8_t *p = anything();
      if (cudaFree(p) == cudaSuccess && p) released(p);
      return;
    }
    case 2: {
      uint64_t width = size(), height = size(4);
      uint64_t bytes = 0;
      if (pitched(width, height, 1, bytes) && !affordable(bytes)) return;
      void *p = nullptr;
      size_t pitch = 0;
      if (cudaMallocPitch(&p, in_.ConsumeIntegralInRange(0, 15) ? &pitch : nullptr, width, height) ==
          cudaSuccess)
        allocated(p, pitch * height, Kind::Device);
      return;
    }
    case 3: {
      cudaExtent e{size(64), size(4), size(2)};
      uint64_t bytes = 0;
      if (pitched(e.width, e.height, e.depth, bytes) && !affordable(bytes)) return;
      cudaPitchedPtr pp{};
      if (cudaMalloc3D(&pp, e) == cudaSuccess) allocated(pp.ptr, pp.pitch * e.height * e.depth, Kind::Device);
      return;
    }
    case 4:
    case 5: {
      uint64_t n = size(in_.ConsumeIntegralInRange<uint64_t>(0, 1 << 16));
      if (!affordable(n)) return;
      void *p = nullptr;
      cudaError_t e =
          op % 32 == 4 ? cudaMallocHost(&p, n) : cudaHostAlloc(&p, n, in_.ConsumeIntegral<uint8_t>() & 0x0f);
      if (e == cudaSuccess) allocated(p, n, Kind::Pinned);
      return;
    }
    case 6: {
      uint8_t *p = anything();
      if (cudaFreeHost(p) == cudaSuccess && p) released(p);
      return;
    }
    case 7: {
      uint64_t n = size(in_.ConsumeIntegralInRange<uint64_t>(0, 1 << 16));
      if (!affordable(n)) return;
      void *p = nullptr;
      unsigned flags = in_.ConsumeIntegralInRange(0, 5);
      if (cudaMallocManaged(&p, n, flags) == cudaSuccess) allocated(p, n, Kind::Managed);
      return;
    }
    case 8: {
      // The program's own memory, registered in full or in part; or a range
      // that cannot be memory at all (it wraps past 2^64).
      uint64_t n = in_.ConsumeIntegralInRange<uint64_t>(1, 1 << 16);
      auto *memory = static_cast<uint8_t *>(std::malloc(n));
      check(memory != nullptr);
      registered_.push_back(memory);
      uint64_t asked = in_.ConsumeBool() ? in_.ConsumeIntegralInRange<uint64_t>(0, n)
                                         : UINT64_MAX - in_.ConsumeIntegralInRange(0, 64);
      if (cudaHostRegister(memory, asked, in_.ConsumeIntegral<uint8_t>() & 0x1f) == cudaSuccess) {
        check(asked <= n); // a range past the end of memory must not register
        blocks_.push_back({memory, asked, Kind::Registered});
      }
      return;
    }
    case 9: {
      uint8_t *p = anything();
      if (cudaHostUnregister(p) == cudaSuccess) released(p);
      return;
    }
    case 10:
    case 11: {
      Pointer dst = reachable(), src = reachable();
      uint64_t n = size(in_.ConsumeIntegralInRange<uint64_t>(0, 1 << 16));
      if (!owned(dst, n) || !owned(src, n)) return;
      if (op % 32 == 10)
        cudaMemcpy(dst.p, src.p, n, kind());
      else
        cudaMemcpyAsync(dst.p, src.p, n, kind(), stream());
      return;
    }
    case 12: {
      Pointer dst = reachable(), src = reachable();
      uint64_t dpitch = size(), spitch = size(), width = size(64), height = size(4), dspan = 0, sspan = 0;
      if (!span2D(dpitch, width, height, dspan) || !span2D(spitch, width, height, sspan)) {
        if (dst.hostBytes || src.hostBytes) return;
      } else if (!owned(dst, dspan) || !owned(src, sspan)) {
        return;
      }
      cudaMemcpy2D(dst.p, dpitch, src.p, spitch, width, height, kind());
      return;
    }
    case 13: {
      // Device and shared memory only: a 3D span over host memory is the program's to get right.
      Pointer dst = reachable(), src = reachable();
      if (dst.hostBytes || src.hostBytes) return;
      cudaMemcpy3DParms p{};
      p.dstPtr = {dst.p, size(512), size(64), size(4)};
      p.srcPtr = {src.p, size(512), size(64), size(4)};
      p.dstPos = {size(0), size(0), size(0)};
      p.srcPos = {size(0), size(0), size(0)};
      p.extent = {size(64), size(4), size(2)};
      p.kind = kind();
      cudaMemcpy3D(in_.ConsumeIntegralInRange(0, 15) ? &p : nullptr);
      return;
    }
    case 14: {
      Pointer p = reachable();
      if (p.hostBytes) return; // host memory is refused before it is touched; keep to the device's
      if (in_.ConsumeBool())
        cudaMemset(p.p, in_.ConsumeIntegral<int>(), size(256));
      else
        cudaMemsetAsync(p.p, in_.ConsumeIntegral<int>(), size(256), stream());
      return;
    }
    case 15: {
      Pointer p = reachable();
      if (p.hostBytes) return;
      cudaMemset2D(p.p, size(512), in_.ConsumeIntegral<int>(), size(64), size(4));
      return;
    }
    case 16: {
      Pointer p = reachable();
      if (p.hostBytes) return;
      cudaMemset3D({p.p, size(512), size(64), size(4)}, in_.ConsumeIntegral<int>(),
                   {size(64), size(4), size(2)});
      return;
    }
    case 17: {
      cudaStream_t s = nullptr;
      if (cudaStreamCreateWithPriority(in_.ConsumeIntegralInRange(0, 15) ? &s : nullptr,
                                       in_.ConsumeIntegralInRange(0, 3),
                                       in_.ConsumeIntegral<int>()) == cudaSuccess)
        streams_.push_back(s);
      return;
    }
    case 18: cudaStreamDestroy(stream()); return;
    case 19: in_.ConsumeBool() ? cudaStreamSynchronize(stream()) : cudaStreamQuery(stream()); return;
    case 20: {
      cudaEvent_t e = nullptr;
      if (cudaEventCreateWithFlags(in_.ConsumeIntegralInRange(0, 15) ? &e : nullptr,
                                   in_.ConsumeIntegralInRange(0, 9)) == cudaSuccess)
        events_.push_back(e);
      return;
    }
    case 21:
      switch (in_.ConsumeIntegralInRange(0, 4)) {
      case 0: cudaEventDestroy(event()); return;
      case 1: cudaEventRecord(event(), stream()); return;
      case 2: cudaEventQuery(event()); return;
      case 3: cudaEventSynchronize(event()); return;
      default: {
        float ms = 0;
        cudaEventElapsedTime(in_.ConsumeBool() ? &ms : nullptr, event(), event());
        return;
      }
      }
    case 22: cudaStreamWaitEvent(stream(), event(), in_.ConsumeIntegralInRange(0, 2)); return;
    case 23:
      if (in_.ConsumeIntegralInRange(0, 7) == 0) {
        check(cudaDeviceReset() == cudaSuccess);
        for (Block &b : blocks_)
          if (b.kind != Kind::Registered) b.live = false; // the runtime's memory is gone
        // Registered ranges are forgotten; the memory is still the program's.
        std::erase_if(blocks_, [](const Block &b) { return b.kind == Kind::Registered; });
        streams_.clear();
        events_.clear();
      }
      return;
    case 24: {
      cudaError_t e = in_.ConsumeBool() ? cudaGetLastError() : cudaPeekAtLastError();
      check(cudaGetErrorName(e) != nullptr && cudaGetErrorString(e) != nullptr);
      return;
    }
    case 25: {
      cudaPointerAttributes a{};
      cudaPointerGetAttributes(in_.ConsumeIntegralInRange(0, 15) ? &a : nullptr, anything());
      return;
    }
    case 26: {
      size_t free = 0, total = 0;
      cudaMemGetInfo(in_.ConsumeIntegralInRange(0, 15) ? &free : nullptr, &total);
      return;
    }
    case 27: {
      cudaFuncAttributes a{};
      cudaFuncGetAttributes(in_.ConsumeIntegralInRange(0, 15) ? &a : nullptr, anything());
      return;
    }
    case 28: cudaDeviceSynchronize(); return;
    case 29: {
      // No module is registered: every symbol is unknown.
      void *address = nullptr;
      uint8_t bytes[16] = {};
      if (in_.ConsumeBool())
        cudaGetSymbolAddress(&address, anything());
      else
        cudaMemcpyToSymbol(anything(), bytes, in_.ConsumeIntegralInRange(0, 16), size(0), kind());
      return;
    }
    case 30: {
      uint8_t *p = anything();
      void *device = nullptr;
      unsigned flags = 0;
      if (in_.ConsumeBool())
        cudaHostGetDevicePointer(&device, p, in_.ConsumeIntegralInRange(0, 1));
      else
        cudaHostGetFlags(&flags, p);
      return;
    }
    default: {
      if (in_.ConsumeBool()) {
        uint64_t n = size(in_.ConsumeIntegralInRange<uint64_t>(0, 1 << 16));
        if (!affordable(n)) return;
        void *p = nullptr;
        if (cudaMallocAsync(&p, n, stream()) == cudaSuccess) allocated(p, n, Kind::Device);
      } else if (in_.ConsumeBool()) {
        uint8_t *p = anything();
        if (cudaFreeAsync(p, stream()) == cudaSuccess && p) released(p);
      } else {
        cudaMemPrefetchAsync(anything(), size(256), cudaMemLocation{}, 0, stream());
      }
      return;
    }
    }
  }

  FuzzedDataProvider &in_;
  uint64_t deviceBytes_;
  uint64_t spent_ = 0;
  std::vector<uint8_t> arena_;
  std::vector<Block> blocks_;
  std::vector<uint8_t *> registered_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
};

uint64_t g_deviceBytes = 0;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) std::abort();
  g_deviceBytes = total;
  // The runtime takes the fatal signals nobody handles yet (to flush a
  // program's output); libFuzzer, which sets its handlers after this and
  // only where none is set, must get them to save the input that crashed.
  for (int sig : {SIGABRT, SIGILL, SIGINT, SIGTERM, SIGHUP}) std::signal(sig, SIG_DFL);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  Session session(in, g_deviceBytes);
  session.run();
  return 0;
}
