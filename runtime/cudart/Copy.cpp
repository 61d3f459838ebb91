// Copies and fills in every direction: cudaMemcpy and cudaMemset with their async, 2D, 3D, peer
// and symbol forms. A pointer is device memory (an emulator allocation, which only the runtime
// can reach), memory both sides share (pinned, registered, managed), or plain host memory; a
// range that leaves its allocation, a freed pointer or a direction that contradicts the pointers
// is cudaErrorInvalidValue, as on a GPU, never a host crash. Blocking copies are synchronisation
// points: device printf output is flushed first.
#include "runtime/cudart/Runtime.h"

#include <cstring>

using namespace cudart;

namespace {

enum class Side { Host, Device, Shared };

/// A host pointer for [p, p+count): the bytes of the emulator allocation
/// that holds the range, or p itself for plain host memory. nullptr when
/// the range is not all inside one live allocation of device memory.
uint8_t *view(Runtime &rt, const void *p, uint64_t count, Side &side) {
  uint64_t address = reinterpret_cast<uint64_t>(p);
  auto info = rt.device->global.allocationAt(address);
  if (info && info->live) {
    if (count > info->base + info->size - address) return nullptr;
    side = info->adopted ? Side::Shared : Side::Device;
    emu::GlobalMemory::Range r = rt.device->global.rangeOf(address);
    return r.bytes ? r.bytes + (address - r.base) : nullptr;
  }
  if (info && !info->adopted) return nullptr; // freed device memory
  // Addresses in the emulator's heap that no allocation holds are stale or
  // made-up device pointers; anything else is the host's.
  if (address >= emu::kGlobalBase && address < emu::kGlobalBase + (uint64_t{1} << 40)) return nullptr;
  side = Side::Host;
  return static_cast<uint8_t *>(const_cast<void *>(p));
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

bool validKind(cudaMemcpyKind kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

/// Copies `rows` rows of `width` bytes between pitched ranges.
cudaError_t copyRows(Runtime &rt, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                     size_t rows, cudaMemcpyKind kind) {
  if (!validKind(kind)) return cudaErrorInvalidMemcpyDirection;
  if (width == 0 || rows == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  for (size_t r = 0; r < rows; ++r) {
    Side ds, ss;
    uint8_t *to = view(rt, static_cast<uint8_t *>(dst) + r * dpitch, width, ds);
    const uint8_t *from = view(rt, static_cast<const uint8_t *>(src) + r * spitch, width, ss);
    if (!to || !from || !directionFits(kind, ds, ss)) return cudaErrorInvalidValue;
    std::memmove(to, from, width);
  }
  return cudaSuccess;
}

cudaError_t copy(Runtime &rt, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  return copyRows(rt, dst, count, src, count, count, 1, kind);
}

/// Fills `rows` rows of `width` bytes of device-reachable memory.
cudaError_t fillRows(Runtime &rt, void *dst, size_t pitch, int value, size_t width, size_t rows) {
  if (width == 0 || rows == 0) return cudaSuccess;
  for (size_t r = 0; r < rows; ++r) {
    Side side;
    uint8_t *to = view(rt, static_cast<uint8_t *>(dst) + r * pitch, width, side);
    if (!to || side == Side::Host) return cudaErrorInvalidValue;
    std::memset(to, value, width);
  }
  return cudaSuccess;
}

cudaError_t copy3D(Runtime &rt, const cudaMemcpy3DParms *p) {
  if (!p) return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray) return rt.unsupported("cudaMemcpy3D with CUDA arrays");
  const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
  const cudaExtent &e = p->extent;
  if (e.width > s.pitch || e.width > d.pitch) return cudaErrorInvalidPitchValue;
  for (size_t z = 0; z < e.depth; ++z) {
    auto *dstRow =
        static_cast<uint8_t *>(d.ptr) + ((p->dstPos.z + z) * d.ysize + p->dstPos.y) * d.pitch + p->dstPos.x;
    auto *srcRow = static_cast<const uint8_t *>(s.ptr) +
                   ((p->srcPos.z + z) * s.ysize + p->srcPos.y) * s.pitch + p->srcPos.x;
    if (cudaError_t err = copyRows(rt, dstRow, d.pitch, srcRow, s.pitch, e.width, e.height, p->kind))
      return err;
  }
  return cudaSuccess;
}

cudaError_t fill3D(Runtime &rt, cudaPitchedPtr p, int value, cudaExtent e) {
  if (e.width > p.pitch) return cudaErrorInvalidValue;
  for (size_t z = 0; z < e.depth; ++z)
    if (cudaError_t err = fillRows(rt, static_cast<uint8_t *>(p.ptr) + z * p.ysize * p.pitch, p.pitch, value,
                                   e.width, e.height))
      return err;
  return cudaSuccess;
}

cudaError_t toSymbol(Runtime &rt, const void *symbol, const void *src, size_t count, size_t offset,
                     cudaMemcpyKind kind) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  VariableInfo *v = nullptr;
  emu::SymbolLocation where;
  if (cudaError_t e = rt.symbol(symbol, v, where)) return e;
  if (offset > where.size || count > where.size - offset) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  Side side;
  const uint8_t *from = src ? view(rt, src, count, side) : nullptr;
  if (!from || !directionFits(kind, Side::Device, side)) return cudaErrorInvalidValue;
  if (where.space == emu::Space::Const)
    return rt.device->writeConstBank(*v->image->module, where.address + offset, from, count)
               ? cudaSuccess
               : cudaErrorInvalidValue;
  return copy(rt, reinterpret_cast<void *>(where.address + offset), from, count, cudaMemcpyDefault);
}

cudaError_t fromSymbol(Runtime &rt, void *dst, const void *symbol, size_t count, size_t offset,
                       cudaMemcpyKind kind) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  VariableInfo *v = nullptr;
  emu::SymbolLocation where;
  if (cudaError_t e = rt.symbol(symbol, v, where)) return e;
  if (offset > where.size || count > where.size - offset) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  Side side;
  uint8_t *to = dst ? view(rt, dst, count, side) : nullptr;
  if (!to || !directionFits(kind, side, Side::Device)) return cudaErrorInvalidValue;
  if (where.space == emu::Space::Const) {
    std::span<const uint8_t> bank = rt.device->constBank(*v->image->module);
    if (where.address + offset + count > bank.size()) return cudaErrorInvalidValue;
    std::memcpy(to, bank.data() + where.address + offset, count);
    return cudaSuccess;
  }
  return copy(rt, to, reinterpret_cast<const void *>(where.address + offset), count, cudaMemcpyDefault);
}

/// The entry of a blocking copy: a synchronisation point.
#define BLOCKING(name)                                                                                       \
  Api api(name, Api::Synchronizes);                                                                          \
  api.rt.synchronize();                                                                                      \
  if (api.blocked()) return api.sticky()

/// The entry of an async copy on `stream`.
#define ON_STREAM(name, stream)                                                                              \
  Api api(name);                                                                                             \
  if (api.blocked()) return api.sticky();                                                                    \
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle)

} // namespace

CUDART_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  BLOCKING("cudaMemcpy");
  return api(copy(api.rt, dst, src, count, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                          cudaStream_t stream) {
  ON_STREAM("cudaMemcpyAsync", stream);
  return api(copy(api.rt, dst, src, count, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind) {
  BLOCKING("cudaMemcpy2D");
  if (height > 1 && (width > dpitch || width > spitch)) return api(cudaErrorInvalidPitchValue);
  return api(copyRows(api.rt, dst, dpitch, src, spitch, width, height, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                            size_t width, size_t height, cudaMemcpyKind kind,
                                            cudaStream_t stream) {
  ON_STREAM("cudaMemcpy2DAsync", stream);
  if (height > 1 && (width > dpitch || width > spitch)) return api(cudaErrorInvalidPitchValue);
  return api(copyRows(api.rt, dst, dpitch, src, spitch, width, height, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  BLOCKING("cudaMemcpy3D");
  return api(copy3D(api.rt, p));
}

CUDART_EXPORT cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  ON_STREAM("cudaMemcpy3DAsync", stream);
  return api(copy3D(api.rt, p));
}

CUDART_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                         size_t count) {
  BLOCKING("cudaMemcpyPeer");
  if (dstDevice != 0 || srcDevice != 0) return api(cudaErrorInvalidDevice);
  return api(copy(api.rt, dst, src, count, cudaMemcpyDeviceToDevice));
}

CUDART_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                              size_t count, cudaStream_t stream) {
  ON_STREAM("cudaMemcpyPeerAsync", stream);
  if (dstDevice != 0 || srcDevice != 0) return api(cudaErrorInvalidDevice);
  return api(copy(api.rt, dst, src, count, cudaMemcpyDeviceToDevice));
}

CUDART_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  Api api("cudaMemset");
  if (api.blocked()) return api.sticky();
  return api(fillRows(api.rt, devPtr, count, value, count, 1));
}

CUDART_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
  ON_STREAM("cudaMemsetAsync", stream);
  return api(fillRows(api.rt, devPtr, count, value, count, 1));
}

CUDART_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
  Api api("cudaMemset2D");
  if (api.blocked()) return api.sticky();
  if (height > 1 && width > pitch) return api(cudaErrorInvalidValue);
  return api(fillRows(api.rt, devPtr, pitch, value, width, height));
}

CUDART_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream) {
  ON_STREAM("cudaMemset2DAsync", stream);
  if (height > 1 && width > pitch) return api(cudaErrorInvalidValue);
  return api(fillRows(api.rt, devPtr, pitch, value, width, height));
}

CUDART_EXPORT cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent) {
  Api api("cudaMemset3D");
  if (api.blocked()) return api.sticky();
  return api(fill3D(api.rt, pitchedDevPtr, value, extent));
}

CUDART_EXPORT cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                                            cudaStream_t stream) {
  ON_STREAM("cudaMemset3DAsync", stream);
  return api(fill3D(api.rt, pitchedDevPtr, value, extent));
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                             cudaMemcpyKind kind) {
  BLOCKING("cudaMemcpyToSymbol");
  return api(toSymbol(api.rt, symbol, src, count, offset, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  ON_STREAM("cudaMemcpyToSymbolAsync", stream);
  return api(toSymbol(api.rt, symbol, src, count, offset, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                               cudaMemcpyKind kind) {
  BLOCKING("cudaMemcpyFromSymbol");
  return api(fromSymbol(api.rt, dst, symbol, count, offset, kind));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  ON_STREAM("cudaMemcpyFromSymbolAsync", stream);
  return api(fromSymbol(api.rt, dst, symbol, count, offset, kind));
}

CUDART_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  Api api("cudaGetSymbolAddress");
  if (api.blocked()) return api.sticky();
  if (!devPtr) return api(cudaErrorInvalidValue);
  VariableInfo *v = nullptr;
  emu::SymbolLocation where;
  if (cudaError_t e = api.rt.symbol(symbol, v, where)) return api(e);
  // A __constant__ variable's address is its place in the module's constant
  // bank, which lives in device memory (the pointer a kernel's cvta.const
  // gives).
  uint64_t address = where.address;
  if (where.space == emu::Space::Const)
    address += api.rt.device->constBankAddress(*v->image->module);
  else if (where.space != emu::Space::Global)
    return api(cudaErrorInvalidSymbol);
  *devPtr = reinterpret_cast<void *>(address);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  Api api("cudaGetSymbolSize");
  if (api.blocked()) return api.sticky();
  if (!size) return api(cudaErrorInvalidValue);
  VariableInfo *v = nullptr;
  emu::SymbolLocation where;
  if (cudaError_t e = api.rt.symbol(symbol, v, where)) return api(e);
  *size = where.size;
  return cudaSuccess;
}

// The per-thread default stream forms (-default-stream per-thread): streams
// run in order here, so they are the same calls.
CUDART_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  return cudaMemcpy(dst, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                               cudaStream_t stream) {
  return cudaMemcpyAsync(dst, src, count, kind, stream);
}
CUDART_EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                                            size_t width, size_t height, cudaMemcpyKind kind) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                 size_t width, size_t height, cudaMemcpyKind kind,
                                                 cudaStream_t stream) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}
CUDART_EXPORT cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms *p) { return cudaMemcpy3D(p); }
CUDART_EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  return cudaMemcpy3DAsync(p, stream);
}
CUDART_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
  return cudaMemset(devPtr, value, count);
}
CUDART_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream) {
  return cudaMemsetAsync(devPtr, value, count, stream);
}
CUDART_EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height) {
  return cudaMemset2D(devPtr, pitch, value, width, height);
}
CUDART_EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                                 size_t height, cudaStream_t stream) {
  return cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
}
CUDART_EXPORT cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int value, cudaExtent extent) {
  return cudaMemset3D(p, value, extent);
}
CUDART_EXPORT cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int value, cudaExtent extent,
                                                 cudaStream_t stream) {
  return cudaMemset3DAsync(p, value, extent, stream);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                                       size_t offset, cudaMemcpyKind kind,
                                                       cudaStream_t stream) {
  return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                         size_t offset, cudaMemcpyKind kind,
                                                         cudaStream_t stream) {
  return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
}
