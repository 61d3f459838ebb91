// Memory the program allocates: device memory (emulator addresses, which the host cannot
// dereference, as on a GPU), pinned and registered host memory and managed memory (host memory
// the device adopts at the same address, so one pointer works on both sides), pitched and 3D
// allocations, stream-ordered allocations and the default pool, pointer attributes, mem info.
#include "runtime/cudart/Limits.h"
#include "runtime/cudart/Runtime.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace cudart {

const Allocation *Runtime::allocationAt(uint64_t address, uint64_t bytes, uint64_t *base) const {
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin()) return nullptr;
  --it;
  uint64_t size = std::max<uint64_t>(it->second.size, 1);
  if (address < it->first || address - it->first >= size || bytes > size - (address - it->first))
    return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

cudaError_t deviceAlloc(Runtime &rt, void **p, size_t size) {
  if (!p) return cudaErrorInvalidValue;
  if (size == 0) {
    *p = nullptr;
    return cudaSuccess;
  }
  if (size > rt.totalMemory() - std::min(rt.totalMemory(), rt.device->liveBytes()))
    return cudaErrorMemoryAllocation;
  uint64_t address = rt.device->allocate(size);
  if (!address) return cudaErrorMemoryAllocation;
  rt.allocations[address] = {Allocation::Kind::Device, size, 0};
  *p = reinterpret_cast<void *>(address);
  return cudaSuccess;
}

} // namespace cudart

using namespace cudart;

namespace {

/// Host memory the device adopts (pinned, managed).
cudaError_t sharedAlloc(Runtime &rt, void **p, size_t size, Allocation::Kind kind, unsigned flags) {
  // Refused before the host is asked: a size beyond the device's memory
  // (which is host memory here, as this is) cannot be had, and rounding it
  // up to whole pages must not wrap.
  if (size > rt.totalMemory()) return cudaErrorMemoryAllocation;
  uint64_t rounded = (size + 4095) / 4096 * 4096;
  void *memory = std::aligned_alloc(4096, rounded);
  if (!memory) return cudaErrorMemoryAllocation;
  std::memset(memory, 0, rounded);
  if (!rt.device->mapHost(memory, size)) {
    std::free(memory);
    return cudaErrorMemoryAllocation;
  }
  rt.allocations[reinterpret_cast<uint64_t>(memory)] = {kind, size, flags};
  *p = memory;
  return cudaSuccess;
}

cudaError_t freeAt(Runtime &rt, void *p, bool host) {
  if (!p) return cudaSuccess;
  uint64_t address = reinterpret_cast<uint64_t>(p);
  auto it = rt.allocations.find(address);
  if (it == rt.allocations.end()) return cudaErrorInvalidValue;
  Allocation::Kind kind = it->second.kind;
  if (host != (kind == Allocation::Kind::Host)) return cudaErrorInvalidValue;
  // A graph's allocation goes back to its graph (which keeps the address for its next
  // launch); freeing one that is not allocated now is an error.
  if (auto graph = it->second.graph.lock()) return graph->release() ? cudaSuccess : cudaErrorInvalidValue;
  if (it->second.fromGraph) { // left allocated by a launch of a graph that is gone
    rt.graphMemoryUse.used -= it->second.size;
    rt.graphMemoryUse.reserved -= it->second.size;
  }
  switch (kind) {
  case Allocation::Kind::Device: rt.device->free(address); break;
  case Allocation::Kind::Managed:
  case Allocation::Kind::Host:
    rt.device->unmapHost(address);
    std::free(p);
    break;
  case Allocation::Kind::ManagedVariable:
  case Allocation::Kind::Registered: return cudaErrorInvalidValue;
  }
  rt.allocations.erase(it);
  return cudaSuccess;
}

uint64_t pitchOf(size_t width) {
  return (width + limits::kPitchAlignment - 1) / limits::kPitchAlignment * limits::kPitchAlignment;
}

/// The bytes of a pitched allocation of `rows` rows (and `depth` slices), or
/// false when the size overflows (cudaErrorInvalidValue, as the H100's
/// runtime answers; never a wrapped-around small allocation).
bool pitchedBytes(size_t width, size_t rows, size_t depth, uint64_t &pitch, uint64_t &bytes) {
  if (width > UINT64_MAX - limits::kPitchAlignment) return false;
  pitch = pitchOf(width);
  return !__builtin_mul_overflow(pitch, rows, &bytes) && !__builtin_mul_overflow(bytes, depth, &bytes);
}

/// The one memory pool: stream-ordered allocations come from device memory.
struct MemPool {
  uint64_t releaseThreshold = 0;
  uint64_t usedHigh = 0;
} g_pool;
cudaMemPool_t poolHandle() { return reinterpret_cast<cudaMemPool_t>(&g_pool); }

} // namespace

CUDART_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size) {
  Api api("cudaMalloc");
  if (api.blocked()) return api.sticky();
  return api(deviceAlloc(api.rt, devPtr, size));
}

CUDART_EXPORT cudaError_t cudaFree(void *devPtr) {
  Api api("cudaFree", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  return api(freeAt(api.rt, devPtr, false));
}

CUDART_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
  Api api("cudaMallocPitch");
  if (api.blocked()) return api.sticky();
  if (!pitch) return api(cudaErrorInvalidValue);
  uint64_t rowBytes = 0, bytes = 0;
  if (!pitchedBytes(width, height, 1, rowBytes, bytes)) return api(cudaErrorInvalidValue);
  *pitch = rowBytes;
  return api(deviceAlloc(api.rt, devPtr, bytes));
}

CUDART_EXPORT cudaError_t cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent) {
  Api api("cudaMalloc3D");
  if (api.blocked()) return api.sticky();
  if (!pitchedDevPtr) return api(cudaErrorInvalidValue);
  uint64_t pitch = 0, bytes = 0;
  if (!pitchedBytes(extent.width, extent.height, extent.depth, pitch, bytes))
    return api(cudaErrorInvalidValue);
  void *p = nullptr;
  if (cudaError_t e = deviceAlloc(api.rt, &p, bytes)) return api(e);
  *pitchedDevPtr = {p, pitch, extent.width, extent.height};
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size) {
  Api api("cudaMallocHost");
  if (api.blocked()) return api.sticky();
  if (!ptr) return api(cudaErrorInvalidValue);
  return api(sharedAlloc(api.rt, ptr, size, Allocation::Kind::Host, cudaHostAllocDefault));
}

CUDART_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
  Api api("cudaHostAlloc");
  if (api.blocked()) return api.sticky();
  if (!pHost || (flags & ~(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)))
    return api(cudaErrorInvalidValue);
  return api(sharedAlloc(api.rt, pHost, size, Allocation::Kind::Host, flags));
}

CUDART_EXPORT cudaError_t cudaFreeHost(void *ptr) {
  Api api("cudaFreeHost", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  return api(freeAt(api.rt, ptr, true));
}

CUDART_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
  Api api("cudaMallocManaged");
  if (api.blocked()) return api.sticky();
  if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
    return api(cudaErrorInvalidValue);
  return api(sharedAlloc(api.rt, devPtr, size, Allocation::Kind::Managed, flags));
}

CUDART_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  Api api("cudaHostRegister");
  if (api.blocked()) return api.sticky();
  constexpr unsigned known =
      cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
  if (!ptr || size == 0 || (flags & ~known)) return api(cudaErrorInvalidValue);
  uint64_t address = reinterpret_cast<uint64_t>(ptr);
  if (api.rt.allocationAt(address, 1) || api.rt.allocationAt(address + size - 1, 1))
    return api(cudaErrorHostMemoryAlreadyRegistered);
  if (!api.rt.device->mapHost(ptr, size)) return api(cudaErrorHostMemoryAlreadyRegistered);
  api.rt.allocations[address] = {Allocation::Kind::Registered, size, flags};
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaHostUnregister(void *ptr) {
  // Work still queued may read or write the memory.
  Api api("cudaHostUnregister", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  auto it = api.rt.allocations.find(reinterpret_cast<uint64_t>(ptr));
  if (!ptr || it == api.rt.allocations.end() || it->second.kind != Allocation::Kind::Registered)
    return api(cudaErrorHostMemoryNotRegistered);
  api.rt.device->unmapHost(it->first);
  api.rt.allocations.erase(it);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
  Api api("cudaHostGetDevicePointer");
  if (api.blocked()) return api.sticky();
  if (!pDevice || flags != 0) return api(cudaErrorInvalidValue);
  const Allocation *a = api.rt.allocationAt(reinterpret_cast<uint64_t>(pHost), 1);
  if (!a || a->kind == Allocation::Kind::Device) return api(cudaErrorInvalidValue);
  *pDevice = pHost; // adopted memory: the device address is the host address
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
  Api api("cudaHostGetFlags");
  if (api.blocked()) return api.sticky();
  const Allocation *a = api.rt.allocationAt(reinterpret_cast<uint64_t>(pHost), 1);
  if (!pFlags || !a || (a->kind != Allocation::Kind::Host && a->kind != Allocation::Kind::Registered))
    return api(cudaErrorInvalidValue);
  *pFlags = a->flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  Api api("cudaMemGetInfo");
  if (api.blocked()) return api.sticky();
  if (!free || !total) return api(cudaErrorInvalidValue);
  *total = api.rt.totalMemory();
  *free = *total - std::min<uint64_t>(*total, api.rt.device->liveBytes());
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes, const void *ptr) {
  Api api("cudaPointerGetAttributes");
  if (api.blocked()) return api.sticky();
  if (!attributes) return api(cudaErrorInvalidValue);
  *attributes = {};
  void *p = const_cast<void *>(ptr);
  uint64_t address = reinterpret_cast<uint64_t>(ptr);
  const Allocation *a = api.rt.allocationAt(address, 1);
  auto global = api.rt.device->allocationAt(address);
  if (a) {
    attributes->device = 0;
    switch (a->kind) {
    case Allocation::Kind::Device:
      attributes->type = cudaMemoryTypeDevice;
      attributes->devicePointer = p;
      break;
    case Allocation::Kind::Managed:
    case Allocation::Kind::ManagedVariable:
      attributes->type = cudaMemoryTypeManaged;
      attributes->devicePointer = attributes->hostPointer = p;
      break;
    case Allocation::Kind::Host:
    case Allocation::Kind::Registered:
      attributes->type = cudaMemoryTypeHost;
      attributes->devicePointer = attributes->hostPointer = p;
      break;
    }
  } else if (global && global->live && !global->hostMapped) {
    // Device memory the program did not cudaMalloc: a __device__ variable
    // (cudaGetSymbolAddress) or device-side malloc.
    attributes->type = cudaMemoryTypeDevice;
    attributes->device = 0;
    attributes->devicePointer = p;
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
  }
  return cudaSuccess;
}

// ---- Stream-ordered allocation and the default pool ------------------------------------------

CUDART_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream) {
  Api api("cudaMallocAsync");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  // Captured: a memory allocation node, its address fixed now.
  if (StreamCapture *c = api.rt.captureOf(stream)) {
    if (!devPtr) return api(cudaErrorInvalidValue);
    if (c->sequence->invalidated) return api(cudaErrorStreamCaptureInvalidated);
    cudaMemAllocNodeParams params{};
    params.poolProps.allocType = cudaMemAllocationTypePinned;
    params.poolProps.location = {cudaMemLocationTypeDevice, 0};
    params.bytesize = size;
    CUgraphNode_st made;
    made.type = cudaGraphNodeTypeMemAlloc;
    if (cudaError_t e = makeAllocNode(api.rt, &params, made)) return api(e);
    *devPtr = params.dptr;
    addCaptured(*c, std::move(made));
    return cudaSuccess;
  }
  cudaError_t e = deviceAlloc(api.rt, devPtr, size);
  g_pool.usedHigh = std::max(g_pool.usedHigh, api.rt.device->liveBytes());
  return api(e);
}

CUDART_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t stream) {
  return cudaMallocAsync(devPtr, size, perThreadDefault(stream));
}

CUDART_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
                                                  cudaStream_t stream) {
  if (pool != poolHandle()) {
    Api api("cudaMallocFromPoolAsync");
    return api(cudaErrorInvalidValue);
  }
  return cudaMallocAsync(ptr, size, stream);
}

CUDART_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
                                                       cudaStream_t stream) {
  return cudaMallocFromPoolAsync(ptr, size, pool, perThreadDefault(stream));
}

CUDART_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream) {
  Api api("cudaFreeAsync");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (!devPtr) return cudaSuccess;
  const uint64_t address = reinterpret_cast<uint64_t>(devPtr);
  auto it = api.rt.allocations.find(address);
  if (it == api.rt.allocations.end() || it->second.kind != Allocation::Kind::Device)
    return api(cudaErrorInvalidValue);
  std::shared_ptr<GraphMemory> graph = it->second.graph.lock();
  // Captured: a memory free node, for memory a graph allocated.
  if (StreamCapture *c = api.rt.captureOf(stream)) {
    if (!graph) return api.rt.unsupported("cudaFreeAsync during stream capture of memory no graph allocated");
    if (c->sequence->invalidated) return api(cudaErrorStreamCaptureInvalidated);
    CUgraphNode_st made;
    made.type = cudaGraphNodeTypeMemFree;
    if (cudaError_t e = makeFreeNode(api.rt, devPtr, made)) return api(e);
    addCaptured(*c, std::move(made));
    return cudaSuccess;
  }
  // A graph's allocation goes back to its graph in stream order.
  if (graph) {
    api.rt.submit(stream, [graph] { graph->release(); });
    return cudaSuccess;
  }
  if (it->second.fromGraph) { // left allocated by a launch of a graph that is gone
    api.rt.graphMemoryUse.used -= it->second.size;
    api.rt.graphMemoryUse.reserved -= it->second.size;
  }
  // The pointer is gone for the program now; the memory goes once the work
  // issued to the stream before has run (a kernel still running elsewhere
  // keeps its bytes until it ends).
  api.rt.allocations.erase(it);
  Runtime &rt = api.rt;
  rt.submit(stream, [&rt, address] { rt.device->free(address); });
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream) {
  return cudaFreeAsync(devPtr, perThreadDefault(stream));
}

CUDART_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
  Api api("cudaDeviceGetDefaultMemPool");
  if (!memPool) return api(cudaErrorInvalidValue);
  if (device != 0) return api(cudaErrorInvalidDevice);
  *memPool = poolHandle();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
  return cudaDeviceGetDefaultMemPool(memPool, device);
}

CUDART_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  Api api("cudaDeviceSetMemPool");
  if (device != 0) return api(cudaErrorInvalidDevice);
  if (memPool != poolHandle()) return api(cudaErrorInvalidValue);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void *value) {
  Api api("cudaMemPoolSetAttribute");
  if (memPool != poolHandle() || !value) return api(cudaErrorInvalidValue);
  switch (attr) {
  case cudaMemPoolAttrReleaseThreshold:
    g_pool.releaseThreshold = *static_cast<uint64_t *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh: g_pool.usedHigh = 0; return cudaSuccess; // only resets are allowed
  case cudaMemPoolReuseFollowEventDependencies:
  case cudaMemPoolReuseAllowOpportunistic:
  case cudaMemPoolReuseAllowInternalDependencies: return cudaSuccess;
  default: return api(cudaErrorInvalidValue);
  }
}

CUDART_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void *value) {
  Api api("cudaMemPoolGetAttribute");
  if (memPool != poolHandle() || !value) return api(cudaErrorInvalidValue);
  uint64_t used = api.rt.device->liveBytes();
  switch (attr) {
  case cudaMemPoolAttrReleaseThreshold:
    *static_cast<uint64_t *>(value) = g_pool.releaseThreshold;
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemCurrent:
  case cudaMemPoolAttrUsedMemCurrent: *static_cast<uint64_t *>(value) = used; return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh:
    *static_cast<uint64_t *>(value) = std::max(used, g_pool.usedHigh);
    return cudaSuccess;
  case cudaMemPoolReuseFollowEventDependencies:
  case cudaMemPoolReuseAllowOpportunistic:
  case cudaMemPoolReuseAllowInternalDependencies: *static_cast<int *>(value) = 1; return cudaSuccess;
  }
  return api(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  Api api("cudaMemPoolTrimTo");
  return memPool == poolHandle() ? cudaSuccess : api(cudaErrorInvalidValue);
}

// ---- Managed-memory hints: accepted (the memory is always where both sides see it) -----------

namespace {
cudaError_t checkManagedRange(Runtime &rt, const void *p, size_t count) {
  const Allocation *a = rt.allocationAt(reinterpret_cast<uint64_t>(p), count);
  if (!p || !a || (a->kind != Allocation::Kind::Managed && a->kind != Allocation::Kind::ManagedVariable))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}
} // namespace

CUDART_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, cudaMemLocation,
                                               unsigned int, cudaStream_t stream) {
  Api api("cudaMemPrefetchAsync");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  return api(checkManagedRange(api.rt, devPtr, count));
}

CUDART_EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                                    cudaMemLocation location, unsigned int flags,
                                                    cudaStream_t stream) {
  return cudaMemPrefetchAsync(devPtr, count, location, flags, perThreadDefault(stream));
}

CUDART_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice,
                                        cudaMemLocation) {
  Api api("cudaMemAdvise");
  if (api.blocked()) return api.sticky();
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
    return api(cudaErrorInvalidValue);
  return api(checkManagedRange(api.rt, devPtr, count));
}

CUDART_EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, int, const void *devPtr,
                                                   size_t count) {
  Api api("cudaMemRangeGetAttribute");
  if (api.blocked()) return api.sticky();
  if (!data || dataSize == 0) return api(cudaErrorInvalidValue);
  if (cudaError_t e = checkManagedRange(api.rt, devPtr, count)) return api(e);
  std::memset(data, 0, dataSize);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                   unsigned int) {
  Api api("cudaStreamAttachMemAsync");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  return api(checkManagedRange(api.rt, devPtr, length ? length : 1));
}

CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                        unsigned int flags) {
  return cudaStreamAttachMemAsync(perThreadDefault(stream), devPtr, length, flags);
}
