// Copies and fills in every direction: cudaMemcpy and cudaMemset with their async, 2D, 3D, peer
// and symbol forms (the CUDA array forms are in Arrays.cpp; cudaMemcpy3D takes arrays as the device
// memory holding them). A pointer is device memory (an allocation of the device, which only the
// device can reach), memory both sides share (pinned, registered, managed), or plain host memory; a
// range that leaves its allocation, a freed pointer or a direction that contradicts the pointers
// is cudaErrorInvalidValue, as on a GPU, never a host crash. A call is checked whole when it is
// made, then its pieces run in stream order on the stream's worker thread: the async forms return
// at once (pageable host bytes they read are staged first; a pageable host destination waits, as
// on a GPU), the blocking forms wait for their stream's work and flush device printf output.
#include "runtime/cudart/Runtime.h"
#include "runtime/cudart/Transfers.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>

using namespace cudart;

namespace {

enum class Side { Host, Device, Shared };

/// Which side [p, p+count) is on: device memory (a live allocation of the
/// device), memory both sides share (host memory the device maps), or plain
/// host memory. False when the range is not all inside one live device
/// allocation, or points into freed or made-up device memory.
bool classify(Runtime &rt, const void *p, uint64_t count, Side &side) {
  uint64_t address = reinterpret_cast<uint64_t>(p);
  auto info = rt.device->allocationAt(address);
  if (info && info->live) {
    if (count > info->base + info->size - address) return false;
    side = info->hostMapped ? Side::Shared : Side::Device;
    return true;
  }
  if (info && !info->hostMapped) return false; // freed device memory
  // Addresses where the device places its allocations that no allocation
  // holds are stale or made-up device pointers; anything else is the host's.
  if (rt.device->inDeviceHeap(address)) return false;
  side = Side::Host;
  return true;
}

/// Whether [base + offset, base + offset + bytes) stays in the allocation
/// `base` points into, when the device knows one (device memory, or host
/// memory it maps): a pitched copy that starts there may not run past it
/// into host memory nobody gave the runtime (rows past a registered block, a
/// 3D position beyond it, an offset that takes a device pointer out of the
/// device heap). Plain host pointers are the program's.
bool staysInAllocation(Runtime &rt, const void *base, uint64_t offset, uint64_t bytes) {
  const uint64_t address = reinterpret_cast<uint64_t>(base);
  auto info = rt.device->allocationAt(address);
  // A stale or made-up device pointer names no host memory either, whatever
  // the offset added to it.
  if (!info || !info->live) return !rt.device->inDeviceHeap(address);
  const uint64_t room = info->base + info->size - address;
  return offset <= room && bytes <= room - offset;
}

/// One contiguous piece of a copy or fill between classified ranges,
/// checked when the call was made.
struct Piece {
  uint8_t *dst;
  Side ds;
  const uint8_t *src; // null: a fill with `value`
  Side ss;
  uint64_t count;
  uint8_t value = 0;
};

/// A copy or fill as the pieces it runs.
struct Transfer {
  std::vector<Piece> pieces;
  std::vector<uint8_t> staged; // pageable host bytes read when the call was made
};

/// Runs one piece: host and shared memory are the host's to touch, device
/// memory only the device's. False when the device refuses a range (freed
/// since the call was made).
bool runPiece(Runtime &rt, const Piece &p) {
  auto to = reinterpret_cast<uint64_t>(p.dst), from = reinterpret_cast<uint64_t>(p.src);
  if (!p.src) {
    if (p.ds == Side::Device) return rt.device->fill(to, p.value, p.count);
    std::memset(p.dst, p.value, p.count);
    return true;
  }
  if (p.ds == Side::Device && p.ss == Side::Device) return rt.device->copy(to, from, p.count);
  if (p.ds == Side::Device) return rt.device->write(to, p.src, p.count);
  if (p.ss == Side::Device) return rt.device->read(from, p.dst, p.count);
  std::memmove(p.dst, p.src, p.count);
  return true;
}

/// Whether the sides agree with the direction the program gave.
bool directionFits(cudaMemcpyKind kind, Side dst, Side src) {
  switch (kind) {
  case cudaMemcpyHostToDevice: return dst != Side::Host && src != Side::Device;
  case cudaMemcpyDeviceToHost: return src != Side::Host && dst != Side::Device;
  case cudaMemcpyDeviceToDevice: return dst != Side::Host && src != Side::Host;
  case cudaMemcpyHostToHost: return dst != Side::Device && src != Side::Device;
  case cudaMemcpyDefault: return true;
  }
  return false;
}

/// `p` + `offset` as an address: rows of made-up pitches may wrap past 2^64
/// (classify then refuses them), which pointer arithmetic may not.
uint8_t *at(const void *p, uint64_t offset) {
  return reinterpret_cast<uint8_t *>(reinterpret_cast<uintptr_t>(p) + offset);
}

bool validKind(cudaMemcpyKind kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

/// Copies `rows` rows of `width` bytes between pitched ranges.
cudaError_t copyRows(Runtime &rt, Transfer &t, void *dst, size_t dpitch, const void *src, size_t spitch,
                     size_t width, size_t rows, cudaMemcpyKind kind) {
  if (!validKind(kind)) return cudaErrorInvalidMemcpyDirection;
  if (width == 0 || rows == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  for (auto [p, pitch] : {std::pair{static_cast<const void *>(dst), dpitch}, std::pair{src, spitch}}) {
    uint64_t last = 0, span = 0;
    if (__builtin_mul_overflow(uint64_t{rows - 1}, uint64_t{pitch}, &last) ||
        __builtin_add_overflow(last, uint64_t{width}, &span) || !staysInAllocation(rt, p, 0, span))
      return cudaErrorInvalidValue;
  }
  for (size_t r = 0; r < rows; ++r) {
    Side ds, ss;
    uint8_t *to = at(dst, r * dpitch);
    const uint8_t *from = at(src, r * spitch);
    if (!classify(rt, to, width, ds) || !classify(rt, from, width, ss) || !directionFits(kind, ds, ss))
      return cudaErrorInvalidValue;
    t.pieces.push_back({to, ds, from, ss, width});
  }
  return cudaSuccess;
}

cudaError_t copy(Runtime &rt, Transfer &t, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  return copyRows(rt, t, dst, count, src, count, count, 1, kind);
}

/// Fills `rows` rows of `width` bytes of device-reachable memory.
cudaError_t fillRows(Runtime &rt, Transfer &t, void *dst, size_t pitch, int value, size_t width,
                     size_t rows) {
  if (width == 0 || rows == 0) return cudaSuccess;
  for (size_t r = 0; r < rows; ++r) {
    Side side;
    uint8_t *to = at(dst, r * pitch);
    if (!classify(rt, to, width, side) || side == Side::Host) return cudaErrorInvalidValue;
    t.pieces.push_back({to, side, nullptr, side, width, static_cast<uint8_t>(value)});
  }
  return cudaSuccess;
}

/// The byte span a 3D copy touches on one side: rows of `e.width` bytes at
/// `pos` in a pitched volume. False when the extent does not fit the pitch
/// or the slice height, or the arithmetic overflows.
bool span3D(const cudaPitchedPtr &v, const cudaPos &pos, const cudaExtent &e, uint64_t &first,
            uint64_t &bytes) {
  uint64_t rowEnd = 0, slice = 0, z = 0, y = 0, last = 0;
  if (__builtin_add_overflow(pos.x, e.width, &rowEnd) || rowEnd > v.pitch) return false;
  // ysize is the slice height; it bounds the rows only when there are slices.
  if (e.depth > 1 && (pos.y > v.ysize || e.height > v.ysize - pos.y)) return false;
  if (__builtin_mul_overflow(v.ysize, v.pitch, &slice) || __builtin_mul_overflow(pos.z, slice, &z) ||
      __builtin_mul_overflow(pos.y, v.pitch, &y) || __builtin_add_overflow(z, y, &first) ||
      __builtin_add_overflow(first, pos.x, &first))
    return false;
  // The last byte: slice depth-1, row height-1, column width-1.
  uint64_t lastSlice = 0, lastRow = 0;
  if (__builtin_mul_overflow(e.depth - 1, slice, &lastSlice) ||
      __builtin_mul_overflow(e.height - 1, v.pitch, &lastRow) ||
      __builtin_add_overflow(first, lastSlice, &last) || __builtin_add_overflow(last, lastRow, &last) ||
      __builtin_add_overflow(last, e.width, &last) ||
      __builtin_add_overflow(reinterpret_cast<uint64_t>(v.ptr), last, &last))
    return false;
  bytes = last - reinterpret_cast<uint64_t>(v.ptr) - first;
  return true;
}

/// A 3-D copy with CUDA arrays as one with pitched pointers: an array side becomes the device
/// memory holding it, its position and the extent (in its texels) bytes. The extent is in texels
/// of the array taking part (of both, which must then have texels of one size), in bytes when
/// none does; a pointer side's position is in bytes.
cudaError_t arraysAsPitched(Runtime &rt, cudaMemcpy3DParms &p) {
  if ((p.srcArray && p.srcPtr.ptr) || (p.dstArray && p.dstPtr.ptr)) return cudaErrorInvalidValue;
  cudaExtent srcExtent = p.extent, dstExtent = p.extent;
  if (p.srcArray)
    if (cudaError_t e = arrayAsPitched(rt, p.srcArray, p.srcPos, srcExtent, p.srcPtr)) return e;
  if (p.dstArray)
    if (cudaError_t e = arrayAsPitched(rt, p.dstArray, p.dstPos, dstExtent, p.dstPtr)) return e;
  if (p.srcArray && p.dstArray && srcExtent.width != dstExtent.width) return cudaErrorInvalidValue;
  p.extent = p.srcArray ? srcExtent : dstExtent;
  p.srcArray = p.dstArray = nullptr;
  return cudaSuccess;
}

cudaError_t copy3D(Runtime &rt, Transfer &t, const cudaMemcpy3DParms *given) {
  if (!given) return cudaErrorInvalidValue;
  cudaMemcpy3DParms parms = *given;
  const cudaMemcpy3DParms *p = &parms;
  if (!validKind(p->kind)) return cudaErrorInvalidMemcpyDirection;
  if (parms.srcArray || parms.dstArray)
    if (cudaError_t e = arraysAsPitched(rt, parms)) return e;
  const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
  const cudaExtent &e = p->extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  if (e.width > s.pitch || e.width > d.pitch) return cudaErrorInvalidPitchValue;
  // Every byte either side touches is checked before any is copied: a copy
  // that fails leaves the destination as it was.
  uint64_t srcFirst = 0, srcBytes = 0, dstFirst = 0, dstBytes = 0;
  if (!s.ptr || !d.ptr || !span3D(s, p->srcPos, e, srcFirst, srcBytes) ||
      !span3D(d, p->dstPos, e, dstFirst, dstBytes) || !staysInAllocation(rt, s.ptr, srcFirst, srcBytes) ||
      !staysInAllocation(rt, d.ptr, dstFirst, dstBytes))
    return cudaErrorInvalidValue;
  Side ss, ds;
  if (!classify(rt, at(s.ptr, srcFirst), srcBytes, ss) || !classify(rt, at(d.ptr, dstFirst), dstBytes, ds) ||
      !directionFits(p->kind, ds, ss))
    return cudaErrorInvalidValue;
  for (size_t z = 0; z < e.depth; ++z) {
    uint8_t *dstRow = at(d.ptr, dstFirst + z * d.ysize * d.pitch);
    const uint8_t *srcRow = at(s.ptr, srcFirst + z * s.ysize * s.pitch);
    if (cudaError_t err = copyRows(rt, t, dstRow, d.pitch, srcRow, s.pitch, e.width, e.height, p->kind))
      return err;
  }
  return cudaSuccess;
}

cudaError_t fill3D(Runtime &rt, Transfer &t, cudaPitchedPtr p, int value, cudaExtent e) {
  if (e.width > p.pitch) return cudaErrorInvalidValue;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  // The whole span is checked before any byte is written, as for copies:
  // a fill that fails leaves memory as it was, and the slices and rows,
  // all inside one allocation, are as many as it can hold (a made-up depth
  // over a slice height of 0 looped for ever).
  uint64_t first = 0, bytes = 0;
  Side side;
  if (!p.ptr || !span3D(p, cudaPos{0, 0, 0}, e, first, bytes) ||
      !classify(rt, at(p.ptr, first), bytes, side) || side == Side::Host)
    return cudaErrorInvalidValue;
  for (size_t z = 0; z < e.depth; ++z)
    if (cudaError_t err =
            fillRows(rt, t, at(p.ptr, first + z * p.ysize * p.pitch), p.pitch, value, e.width, e.height))
      return err;
  return cudaSuccess;
}

cudaError_t toSymbol(Runtime &rt, Transfer &t, const void *symbol, const void *src, size_t count,
                     size_t offset, cudaMemcpyKind kind) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  VariableInfo *v = nullptr;
  runtime::Symbol where;
  if (cudaError_t e = rt.symbol(symbol, v, where)) return e;
  if (offset > where.size || count > where.size - offset) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  Side side;
  if (!src || !classify(rt, src, count, side) || !directionFits(kind, Side::Device, side))
    return cudaErrorInvalidValue;
  // A __constant__ variable lives in device memory too (its module's bank).
  return copy(rt, t, reinterpret_cast<void *>(where.address + offset), src, count, cudaMemcpyDefault);
}

cudaError_t fromSymbol(Runtime &rt, Transfer &t, void *dst, const void *symbol, size_t count, size_t offset,
                       cudaMemcpyKind kind) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  VariableInfo *v = nullptr;
  runtime::Symbol where;
  if (cudaError_t e = rt.symbol(symbol, v, where)) return e;
  if (offset > where.size || count > where.size - offset) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  Side side;
  if (!dst || !classify(rt, dst, count, side) || !directionFits(kind, side, Side::Device))
    return cudaErrorInvalidValue;
  return copy(rt, t, dst, reinterpret_cast<const void *>(where.address + offset), count, cudaMemcpyDefault);
}

/// Copies the pageable host bytes `t` reads, so that the call may return before it runs and the
/// program may reuse its buffer at once (what a GPU's staging copy does).
void stage(Transfer &t) {
  uint64_t bytes = 0;
  for (const Piece &p : t.pieces)
    if (p.src && p.ss == Side::Host) bytes += p.count;
  t.staged.resize(bytes);
  uint8_t *next = t.staged.data();
  for (Piece &p : t.pieces)
    if (p.src && p.ss == Side::Host) {
      std::memcpy(next, p.src, p.count);
      p.src = next;
      next += p.count;
    }
}

/// The stream work that runs checked pieces. Behind a kernel fault nothing runs. A piece whose
/// device memory went away before it ran sets `failed`; unless the caller waits for it (and
/// says so itself), that is a fault of its own (cudaErrorIllegalAddress), as on a GPU.
std::function<void()> transferWork(Runtime &rt, std::shared_ptr<const Transfer> pieces,
                                   std::shared_ptr<std::atomic<bool>> failed, bool waits, const char *name) {
  return [&rt, pieces = std::move(pieces), failed = std::move(failed), waits, name] {
    if (rt.fault() != cudaSuccess) return;
    for (const Piece &p : pieces->pieces)
      if (!runPiece(rt, p)) {
        failed->store(true, std::memory_order_release);
        if (!waits) {
          std::fprintf(stderr, "ptxvm: %s: its memory was freed before the copy ran\n", name);
          rt.raiseFault(cudaErrorIllegalAddress);
        }
        return;
      }
  };
}

/// What a node label says of a transfer.
std::string describe(const char *what, const Transfer &t) {
  uint64_t bytes = 0;
  for (const Piece &p : t.pieces) bytes += p.count;
  return std::string(what) + " " + std::to_string(bytes) + " bytes";
}

/// Issues checked pieces to `stream`. A blocking call waits for them (and for the work issued
/// to the stream before); so does one that writes pageable host memory, as on a GPU. Captured
/// (a graph node), the pieces read and write host memory when the graph runs.
cudaError_t issue(Api &api, cudaStream_t stream, Transfer t, bool blocking) {
  if (cudaError_t e = api.rt.mayIssue(stream)) return e;
  if (blocking)
    if (cudaError_t e = api.rt.mayWaitFor(stream)) return e;
  if (t.pieces.empty()) return cudaSuccess;
  const bool captured = api.rt.captureOf(stream) != nullptr;
  bool waits = blocking;
  for (const Piece &p : t.pieces) waits |= p.ds == Side::Host && !captured;
  if (waits && !Api::mayWait()) return cudaErrorNotPermitted;
  if (!waits && !captured) stage(t);
  std::string label = describe(t.pieces.front().src ? "copy" : "fill", t);
  auto pieces = std::make_shared<const Transfer>(std::move(t));
  auto failed = std::make_shared<std::atomic<bool>>(false);
  QueuePoint done = api.rt.submit(
      stream, transferWork(api.rt, pieces, failed, waits, api.name()), {},
      {pieces->pieces.front().src ? cudaGraphNodeTypeMemcpy : cudaGraphNodeTypeMemset, std::move(label)});
  if (!waits) return cudaSuccess;
  api.wait({done});
  api.rt.synchronize(); // a synchronisation point: device printf output comes out
  return failed->load(std::memory_order_acquire) ? cudaErrorInvalidValue : cudaSuccess;
}

/// A copy or fill call on `stream`: `check` turns it into pieces, which are then issued.
template <class Check>
cudaError_t transferCall(const char *name, cudaStream_t stream, bool blocking, Check check) {
  Api api(name);
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  Transfer t;
  if (cudaError_t e = check(api.rt, t)) return api(e);
  cudaError_t e = issue(api, stream, std::move(t), blocking);
  if (api.blocked()) return api.sticky();
  return api(e);
}

// Each form once, with the stream it runs on and whether it blocks.
cudaError_t memcpy1D(const char *name, cudaStream_t stream, bool blocking, void *dst, const void *src,
                     size_t count, cudaMemcpyKind kind) {
  return transferCall(name, stream, blocking,
                      [&](Runtime &rt, Transfer &t) { return copy(rt, t, dst, src, count, kind); });
}

cudaError_t memcpy2D(const char *name, cudaStream_t stream, bool blocking, void *dst, size_t dpitch,
                     const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) {
    if (height > 1 && (width > dpitch || width > spitch)) return cudaErrorInvalidPitchValue;
    return copyRows(rt, t, dst, dpitch, src, spitch, width, height, kind);
  });
}

} // namespace

cudaError_t cudart::rowsCall(const char *name, cudaStream_t stream, bool blocking, cudaMemcpyKind kind,
                             const std::function<cudaError_t(Runtime &, std::vector<RowCopy> &)> &resolve) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) {
    if (!validKind(kind)) return cudaErrorInvalidMemcpyDirection;
    std::vector<RowCopy> parts;
    if (cudaError_t e = resolve(rt, parts)) return e;
    for (const RowCopy &c : parts)
      if (cudaError_t e = copyRows(rt, t, c.dst, c.dpitch, c.src, c.spitch, c.width, c.height, kind))
        return e;
    return cudaSuccess;
  });
}

namespace {

cudaError_t memcpy3D(const char *name, cudaStream_t stream, bool blocking, const cudaMemcpy3DParms *p) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) { return copy3D(rt, t, p); });
}

cudaError_t memcpyPeer(const char *name, cudaStream_t stream, bool blocking, void *dst, int dstDevice,
                       const void *src, int srcDevice, size_t count) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) {
    if (dstDevice != 0 || srcDevice != 0) return cudaErrorInvalidDevice;
    return copy(rt, t, dst, src, count, cudaMemcpyDeviceToDevice);
  });
}

// cudaMemset is asynchronous to the host on a GPU; waiting for it is one of
// the orders a GPU may show, and keeps a program that reads memset memory
// through a mapped pointer right.
cudaError_t memset2D(const char *name, cudaStream_t stream, bool blocking, void *devPtr, size_t pitch,
                     int value, size_t width, size_t height) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) {
    if (height > 1 && width > pitch) return cudaErrorInvalidValue;
    return fillRows(rt, t, devPtr, pitch, value, width, height);
  });
}

cudaError_t memset3D(const char *name, cudaStream_t stream, bool blocking, cudaPitchedPtr p, int value,
                     cudaExtent extent) {
  return transferCall(name, stream, blocking,
                      [&](Runtime &rt, Transfer &t) { return fill3D(rt, t, p, value, extent); });
}

cudaError_t memcpyToSymbol(const char *name, cudaStream_t stream, bool blocking, const void *symbol,
                           const void *src, size_t count, size_t offset, cudaMemcpyKind kind) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) {
    return toSymbol(rt, t, symbol, src, count, offset, kind);
  });
}

cudaError_t memcpyFromSymbol(const char *name, cudaStream_t stream, bool blocking, void *dst,
                             const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
  return transferCall(name, stream, blocking, [&](Runtime &rt, Transfer &t) {
    return fromSymbol(rt, t, dst, symbol, count, offset, kind);
  });
}

} // namespace

namespace cudart {

namespace {
cudaError_t nodeWork(Runtime &rt, Transfer t, const char *what, std::function<void()> &work,
                     std::string &label) {
  label = describe(what, t);
  work = transferWork(rt, std::make_shared<const Transfer>(std::move(t)),
                      std::make_shared<std::atomic<bool>>(false), false, "cudaGraphLaunch");
  return cudaSuccess;
}
} // namespace

cudaError_t copyWork3D(Runtime &rt, const cudaMemcpy3DParms *p, std::function<void()> &work,
                       std::string &label) {
  Transfer t;
  if (cudaError_t e = copy3D(rt, t, p)) return e;
  return nodeWork(rt, std::move(t), "copy", work, label);
}

cudaError_t copyWork1D(Runtime &rt, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                       std::function<void()> &work, std::string &label) {
  Transfer t;
  if (cudaError_t e = copy(rt, t, dst, src, count, kind)) return e;
  return nodeWork(rt, std::move(t), "copy", work, label);
}

cudaError_t memsetWork(Runtime &rt, const cudaMemsetParams &p, std::function<void()> &work,
                       std::string &label) {
  const unsigned size = p.elementSize;
  uint64_t rowBytes = 0;
  if ((size != 1 && size != 2 && size != 4) || __builtin_mul_overflow(uint64_t{p.width}, size, &rowBytes) ||
      (p.height > 1 && rowBytes > p.pitch) || !p.dst)
    return cudaErrorInvalidValue;
  Transfer t;
  if (size == 1) {
    if (cudaError_t e = fillRows(rt, t, p.dst, p.pitch, static_cast<int>(p.value), rowBytes, p.height))
      return e;
    return nodeWork(rt, std::move(t), "fill", work, label);
  }
  // Wider elements: every row is a copy of one row of the pattern.
  if (rowBytes == 0 || p.height == 0) return nodeWork(rt, std::move(t), "fill", work, label);
  t.staged.resize(rowBytes);
  for (uint64_t i = 0; i < rowBytes; i += size) std::memcpy(t.staged.data() + i, &p.value, size);
  for (size_t r = 0; r < p.height; ++r) {
    Side side;
    uint8_t *to = at(p.dst, r * p.pitch);
    if (!classify(rt, to, rowBytes, side) || side == Side::Host) return cudaErrorInvalidValue;
    t.pieces.push_back({to, side, t.staged.data(), Side::Host, rowBytes});
  }
  return nodeWork(rt, std::move(t), "fill", work, label);
}

} // namespace cudart

// The blocking forms run on the legacy default stream (the _ptds forms of
// --default-stream per-thread programs on the calling thread's own).

CUDART_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  return memcpy1D("cudaMemcpy", nullptr, true, dst, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  return memcpy1D("cudaMemcpy", cudaStreamPerThread, true, dst, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                          cudaStream_t stream) {
  return memcpy1D("cudaMemcpyAsync", stream, false, dst, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                               cudaStream_t stream) {
  return memcpy1D("cudaMemcpyAsync", perThreadDefault(stream), false, dst, src, count, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind) {
  return memcpy2D("cudaMemcpy2D", nullptr, true, dst, dpitch, src, spitch, width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                                            size_t width, size_t height, cudaMemcpyKind kind) {
  return memcpy2D("cudaMemcpy2D", cudaStreamPerThread, true, dst, dpitch, src, spitch, width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                            size_t width, size_t height, cudaMemcpyKind kind,
                                            cudaStream_t stream) {
  return memcpy2D("cudaMemcpy2DAsync", stream, false, dst, dpitch, src, spitch, width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                 size_t width, size_t height, cudaMemcpyKind kind,
                                                 cudaStream_t stream) {
  return memcpy2D("cudaMemcpy2DAsync", perThreadDefault(stream), false, dst, dpitch, src, spitch, width,
                  height, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  return memcpy3D("cudaMemcpy3D", nullptr, true, p);
}
CUDART_EXPORT cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms *p) {
  return memcpy3D("cudaMemcpy3D", cudaStreamPerThread, true, p);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  return memcpy3D("cudaMemcpy3DAsync", stream, false, p);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  return memcpy3D("cudaMemcpy3DAsync", perThreadDefault(stream), false, p);
}

CUDART_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                         size_t count) {
  return memcpyPeer("cudaMemcpyPeer", nullptr, true, dst, dstDevice, src, srcDevice, count);
}
CUDART_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                              size_t count, cudaStream_t stream) {
  return memcpyPeer("cudaMemcpyPeerAsync", stream, false, dst, dstDevice, src, srcDevice, count);
}

CUDART_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  return memset2D("cudaMemset", nullptr, true, devPtr, count, value, count, 1);
}
CUDART_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
  return memset2D("cudaMemset", cudaStreamPerThread, true, devPtr, count, value, count, 1);
}
CUDART_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
  return memset2D("cudaMemsetAsync", stream, false, devPtr, count, value, count, 1);
}
CUDART_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream) {
  return memset2D("cudaMemsetAsync", perThreadDefault(stream), false, devPtr, count, value, count, 1);
}

CUDART_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
  return memset2D("cudaMemset2D", nullptr, true, devPtr, pitch, value, width, height);
}
CUDART_EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height) {
  return memset2D("cudaMemset2D", cudaStreamPerThread, true, devPtr, pitch, value, width, height);
}
CUDART_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream) {
  return memset2D("cudaMemset2DAsync", stream, false, devPtr, pitch, value, width, height);
}
CUDART_EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                                 size_t height, cudaStream_t stream) {
  return memset2D("cudaMemset2DAsync", perThreadDefault(stream), false, devPtr, pitch, value, width, height);
}

CUDART_EXPORT cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  return memset3D("cudaMemset3D", nullptr, true, p, value, extent);
}
CUDART_EXPORT cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int value, cudaExtent extent) {
  return memset3D("cudaMemset3D", cudaStreamPerThread, true, p, value, extent);
}
CUDART_EXPORT cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent extent,
                                            cudaStream_t stream) {
  return memset3D("cudaMemset3DAsync", stream, false, p, value, extent);
}
CUDART_EXPORT cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int value, cudaExtent extent,
                                                 cudaStream_t stream) {
  return memset3D("cudaMemset3DAsync", perThreadDefault(stream), false, p, value, extent);
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                             cudaMemcpyKind kind) {
  return memcpyToSymbol("cudaMemcpyToSymbol", nullptr, true, symbol, src, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind) {
  return memcpyToSymbol("cudaMemcpyToSymbol", cudaStreamPerThread, true, symbol, src, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  return memcpyToSymbol("cudaMemcpyToSymbolAsync", stream, false, symbol, src, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                                       size_t offset, cudaMemcpyKind kind,
                                                       cudaStream_t stream) {
  return memcpyToSymbol("cudaMemcpyToSymbolAsync", perThreadDefault(stream), false, symbol, src, count,
                        offset, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                               cudaMemcpyKind kind) {
  return memcpyFromSymbol("cudaMemcpyFromSymbol", nullptr, true, dst, symbol, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind) {
  return memcpyFromSymbol("cudaMemcpyFromSymbol", cudaStreamPerThread, true, dst, symbol, count, offset,
                          kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  return memcpyFromSymbol("cudaMemcpyFromSymbolAsync", stream, false, dst, symbol, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                         size_t offset, cudaMemcpyKind kind,
                                                         cudaStream_t stream) {
  return memcpyFromSymbol("cudaMemcpyFromSymbolAsync", perThreadDefault(stream), false, dst, symbol, count,
                          offset, kind);
}

CUDART_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  Api api("cudaGetSymbolAddress");
  if (api.blocked()) return api.sticky();
  if (!devPtr) return api(cudaErrorInvalidValue);
  VariableInfo *v = nullptr;
  runtime::Symbol where;
  if (cudaError_t e = api.rt.symbol(symbol, v, where)) return api(e);
  // A __constant__ variable's address is its place in the module's constant
  // bank, which lives in device memory (the pointer a kernel's cvta.const
  // gives).
  if (where.space != runtime::Symbol::Space::Global && where.space != runtime::Symbol::Space::Const)
    return api(cudaErrorInvalidSymbol);
  *devPtr = reinterpret_cast<void *>(where.address);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  Api api("cudaGetSymbolSize");
  if (api.blocked()) return api.sticky();
  if (!size) return api(cudaErrorInvalidValue);
  VariableInfo *v = nullptr;
  runtime::Symbol where;
  if (cudaError_t e = api.rt.symbol(symbol, v, where)) return api(e);
  *size = where.size;
  return cudaSuccess;
}
