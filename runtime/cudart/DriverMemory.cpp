// The driver API's memory calls: allocations of every kind, copies and fills (blocking and
// stream-ordered), address ranges and pointer attributes. They are served by the runtime's own
// functions, so driver and runtime allocations are one table and either API frees either's memory.
#include "runtime/cudart/Driver.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace cudart;

namespace {

void *pointer(CUdeviceptr p) { return reinterpret_cast<void *>(static_cast<uintptr_t>(p)); }

/// The stream a per-thread-default-stream form (_ptsz) means.
CUstream perThread(CUstream s) { return perThreadDefault(s); }

/// Fills `count` elements of `size` bytes (1, 2 or 4) at `dst` with `value`, `height` rows
/// `pitch` bytes apart, on `stream` (blocking when `blocking`). Equal bytes are one cudaMemset;
/// other patterns are staged in host memory and copied (an async copy from pageable memory
/// takes its bytes at once, so the staging buffer may go when the call returns).
CUresult fill(DriverCall &call, CUdeviceptr dst, size_t pitch, unsigned value, unsigned size, size_t count,
              size_t height, CUstream stream, bool blocking) {
  if (call.status()) return call.status();
  if (dst % size) return call(CUDA_ERROR_INVALID_VALUE);
  size_t rowBytes = count * size;
  if (height > 1 && pitch < rowBytes) return call(CUDA_ERROR_INVALID_VALUE);
  uint8_t bytes[4];
  std::memcpy(bytes, &value, sizeof bytes);
  bool uniform = std::all_of(bytes, bytes + size, [&](uint8_t b) { return b == bytes[0]; });
  if (uniform) {
    if (height <= 1)
      return call(blocking ? cudaMemset(pointer(dst), bytes[0], rowBytes)
                           : cudaMemsetAsync(pointer(dst), bytes[0], rowBytes, stream));
    return call(blocking ? cudaMemset2D(pointer(dst), pitch, bytes[0], rowBytes, height)
                         : cudaMemset2DAsync(pointer(dst), pitch, bytes[0], rowBytes, height, stream));
  }
  constexpr size_t kChunk = size_t{1} << 20;
  std::vector<uint8_t> pattern(std::min(rowBytes, kChunk));
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = bytes[i % size];
  for (size_t row = 0; row < std::max<size_t>(height, 1); ++row)
    for (size_t done = 0; done < rowBytes;) {
      size_t n = std::min(pattern.size(), rowBytes - done);
      void *to = pointer(dst + row * pitch + done);
      cudaError_t e = blocking ? cudaMemcpy(to, pattern.data(), n, cudaMemcpyHostToDevice)
                               : cudaMemcpyAsync(to, pattern.data(), n, cudaMemcpyHostToDevice, stream);
      if (e != cudaSuccess) return call(e);
      done += n;
    }
  return CUDA_SUCCESS;
}

/// Where one side of a CUDA_MEMCPY2D starts; false for arrays (not served) and unknown types.
bool side(CUmemorytype type, const void *host, CUdeviceptr device, size_t x, size_t y, size_t pitch,
          const void *&out) {
  uintptr_t base = 0;
  switch (type) {
  case CU_MEMORYTYPE_HOST: base = reinterpret_cast<uintptr_t>(host); break;
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED: base = static_cast<uintptr_t>(device); break;
  default: return false;
  }
  out = reinterpret_cast<const void *>(base + y * pitch + x);
  return true;
}

CUresult copy2D(const char *name, const CUDA_MEMCPY2D *c, CUstream stream, bool blocking) {
  DriverCall call(name);
  if (call.status()) return call.status();
  if (!c) return call(CUDA_ERROR_INVALID_VALUE);
  if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    std::lock_guard lock(call.rt().mutex);
    return call(call.rt().unsupported("cuMemcpy2D with CUDA arrays"));
  }
  const void *src = nullptr, *dst = nullptr;
  if (!side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY, c->srcPitch, src) ||
      !side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY, c->dstPitch, dst))
    return call(CUDA_ERROR_INVALID_VALUE);
  size_t srcPitch = c->Height > 1 ? c->srcPitch : c->WidthInBytes;
  size_t dstPitch = c->Height > 1 ? c->dstPitch : c->WidthInBytes;
  void *to = const_cast<void *>(dst);
  return call(blocking
                  ? cudaMemcpy2D(to, dstPitch, src, srcPitch, c->WidthInBytes, c->Height, cudaMemcpyDefault)
                  : cudaMemcpy2DAsync(to, dstPitch, src, srcPitch, c->WidthInBytes, c->Height,
                                      cudaMemcpyDefault, stream));
}

} // namespace

// ---- Allocations ---------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
  DriverCall call("cuMemAlloc_v2");
  if (call.status()) return call.status();
  if (!dptr || bytes == 0) return call(CUDA_ERROR_INVALID_VALUE);
  void *p = nullptr;
  CUresult r = call(cudaMalloc(&p, bytes));
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return r;
}

CUDA_DRIVER CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                        unsigned int elementSize) {
  DriverCall call("cuMemAllocPitch_v2");
  if (call.status()) return call.status();
  if (!dptr || !pitch || !width || !height || (elementSize != 4 && elementSize != 8 && elementSize != 16))
    return call(CUDA_ERROR_INVALID_VALUE);
  void *p = nullptr;
  CUresult r = call(cudaMallocPitch(&p, pitch, width, height));
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return r;
}

CUDA_DRIVER CUresult cuMemFree_v2(CUdeviceptr dptr) {
  DriverCall call("cuMemFree_v2", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaFree(pointer(dptr)));
}

CUDA_DRIVER CUresult cuMemAllocHost_v2(void **p, size_t bytes) {
  DriverCall call("cuMemAllocHost_v2");
  if (call.status()) return call.status();
  if (!p || bytes == 0) return call(CUDA_ERROR_INVALID_VALUE);
  return call(cudaMallocHost(p, bytes));
}

CUDA_DRIVER CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags) {
  DriverCall call("cuMemHostAlloc");
  if (call.status()) return call.status();
  if (!p || bytes == 0) return call(CUDA_ERROR_INVALID_VALUE);
  return call(cudaHostAlloc(p, bytes, flags)); // CU_MEMHOSTALLOC_* are cudaHostAlloc*
}

CUDA_DRIVER CUresult cuMemFreeHost(void *p) {
  DriverCall call("cuMemFreeHost", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaFreeHost(p));
}

CUDA_DRIVER CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags) {
  DriverCall call("cuMemHostGetDevicePointer_v2");
  if (call.status()) return call.status();
  if (!dptr) return call(CUDA_ERROR_INVALID_VALUE);
  void *d = nullptr;
  CUresult r = call(cudaHostGetDevicePointer(&d, p, flags));
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(d);
  return r;
}

CUDA_DRIVER CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags) {
  DriverCall call("cuMemHostRegister_v2");
  if (call.status()) return call.status();
  return call(cudaHostRegister(p, bytes, flags));
}

CUDA_DRIVER CUresult cuMemHostUnregister(void *p) {
  DriverCall call("cuMemHostUnregister", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaHostUnregister(p));
}

CUDA_DRIVER CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags) {
  DriverCall call("cuMemAllocManaged");
  if (call.status()) return call.status();
  if (!dptr || bytes == 0) return call(CUDA_ERROR_INVALID_VALUE);
  void *p = nullptr;
  CUresult r = call(cudaMallocManaged(&p, bytes, flags)); // CU_MEM_ATTACH_* are cudaMemAttach*
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return r;
}

CUDA_DRIVER CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream) {
  DriverCall call("cuMemAllocAsync");
  if (call.status()) return call.status();
  if (!dptr) return call(CUDA_ERROR_INVALID_VALUE);
  void *p = nullptr;
  CUresult r = call(cudaMallocAsync(&p, bytes, stream));
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<CUdeviceptr>(p);
  return r;
}
CUDA_DRIVER CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream) {
  return cuMemAllocAsync(dptr, bytes, perThread(stream));
}

CUDA_DRIVER CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream) {
  DriverCall call("cuMemFreeAsync");
  if (call.status()) return call.status();
  return call(cudaFreeAsync(pointer(dptr), stream));
}
CUDA_DRIVER CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream) {
  return cuMemFreeAsync(dptr, perThread(stream));
}

CUDA_DRIVER CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  DriverCall call("cuMemGetInfo_v2");
  if (call.status()) return call.status();
  return call(cudaMemGetInfo(free, total));
}

CUDA_DRIVER CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr dptr) {
  DriverCall call("cuMemGetAddressRange_v2");
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  uint64_t start = 0;
  const Allocation *a = call.rt().allocationAt(dptr, 1, &start);
  if (!a) return call(CUDA_ERROR_NOT_FOUND);
  if (base) *base = start;
  if (size) *size = a->size;
  return CUDA_SUCCESS;
}

/// Hints that change nothing where memory is one address space: checked and accepted.
CUDA_DRIVER CUresult cuMemPrefetchAsync_v2(CUdeviceptr dptr, size_t count, int64_t location,
                                           unsigned int flags, CUstream stream) {
  (void)location;
  DriverCall call("cuMemPrefetchAsync_v2");
  if (call.status()) return call.status();
  if (flags != 0 || count == 0) return call(CUDA_ERROR_INVALID_VALUE);
  std::lock_guard lock(call.rt().mutex);
  if (!call.rt().allocationAt(dptr, count) || !call.rt().validStream(stream))
    return call(CUDA_ERROR_INVALID_VALUE);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuMemAdvise_v2(CUdeviceptr dptr, size_t count, int advice, int64_t location) {
  (void)advice;
  (void)location;
  DriverCall call("cuMemAdvise_v2");
  if (call.status()) return call.status();
  std::lock_guard lock(call.rt().mutex);
  if (count == 0 || !call.rt().allocationAt(dptr, count)) return call(CUDA_ERROR_INVALID_VALUE);
  return CUDA_SUCCESS;
}

// ---- Copies --------------------------------------------------------------------------------------

#define DRIVER_COPY(name, version, DstType, SrcType, kind, toPtr, fromPtr)                                   \
  CUDA_DRIVER CUresult name##version(DstType dst, SrcType src, size_t bytes) {                               \
    DriverCall call(#name #version);                                                                         \
    if (call.status()) return call.status();                                                                 \
    return call(cudaMemcpy(toPtr(dst), fromPtr(src), bytes, kind));                                          \
  }                                                                                                          \
  CUDA_DRIVER CUresult name##Async##version(DstType dst, SrcType src, size_t bytes, CUstream stream) {       \
    DriverCall call(#name "Async" #version);                                                                 \
    if (call.status()) return call.status();                                                                 \
    return call(cudaMemcpyAsync(toPtr(dst), fromPtr(src), bytes, kind, stream));                             \
  }                                                                                                          \
  CUDA_DRIVER CUresult name##Async##version##_ptsz(DstType dst, SrcType src, size_t bytes,                   \
                                                   CUstream stream) {                                        \
    return name##Async##version(dst, src, bytes, perThread(stream));                                         \
  }

namespace {
void *same(void *p) { return p; }
const void *same(const void *p) { return p; }
const void *constPointer(CUdeviceptr p) { return pointer(p); }
} // namespace

DRIVER_COPY(cuMemcpy, , CUdeviceptr, CUdeviceptr, cudaMemcpyDefault, pointer, constPointer)
DRIVER_COPY(cuMemcpyHtoD, _v2, CUdeviceptr, const void *, cudaMemcpyHostToDevice, pointer, same)
DRIVER_COPY(cuMemcpyDtoH, _v2, void *, CUdeviceptr, cudaMemcpyDeviceToHost, same, constPointer)
DRIVER_COPY(cuMemcpyDtoD, _v2, CUdeviceptr, CUdeviceptr, cudaMemcpyDeviceToDevice, pointer, constPointer)
#undef DRIVER_COPY

CUDA_DRIVER CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c) {
  return copy2D("cuMemcpy2D_v2", c, nullptr, true);
}
CUDA_DRIVER CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c) {
  return copy2D("cuMemcpy2DUnaligned_v2", c, nullptr, true);
}
CUDA_DRIVER CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream stream) {
  return copy2D("cuMemcpy2DAsync_v2", c, stream, false);
}
CUDA_DRIVER CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream stream) {
  return copy2D("cuMemcpy2DAsync_v2", c, perThread(stream), false);
}

// ---- Fills ---------------------------------------------------------------------------------------

#define DRIVER_FILL(bits, Value)                                                                             \
  CUDA_DRIVER CUresult cuMemsetD##bits##_v2(CUdeviceptr dst, Value value, size_t count) {                    \
    DriverCall call("cuMemsetD" #bits "_v2");                                                                \
    return fill(call, dst, 0, value, bits / 8, count, 1, nullptr, true);                                     \
  }                                                                                                          \
  CUDA_DRIVER CUresult cuMemsetD##bits##Async(CUdeviceptr dst, Value value, size_t count, CUstream stream) { \
    DriverCall call("cuMemsetD" #bits "Async");                                                              \
    return fill(call, dst, 0, value, bits / 8, count, 1, stream, false);                                     \
  }                                                                                                          \
  CUDA_DRIVER CUresult cuMemsetD##bits##Async_ptsz(CUdeviceptr dst, Value value, size_t count,               \
                                                   CUstream stream) {                                        \
    return cuMemsetD##bits##Async(dst, value, count, perThread(stream));                                     \
  }                                                                                                          \
  CUDA_DRIVER CUresult cuMemsetD2D##bits##_v2(CUdeviceptr dst, size_t pitch, Value value, size_t width,      \
                                              size_t height) {                                               \
    DriverCall call("cuMemsetD2D" #bits "_v2");                                                              \
    return fill(call, dst, pitch, value, bits / 8, width, height, nullptr, true);                            \
  }                                                                                                          \
  CUDA_DRIVER CUresult cuMemsetD2D##bits##Async(CUdeviceptr dst, size_t pitch, Value value, size_t width,    \
                                                size_t height, CUstream stream) {                            \
    DriverCall call("cuMemsetD2D" #bits "Async");                                                            \
    return fill(call, dst, pitch, value, bits / 8, width, height, stream, false);                            \
  }                                                                                                          \
  CUDA_DRIVER CUresult cuMemsetD2D##bits##Async_ptsz(CUdeviceptr dst, size_t pitch, Value value,             \
                                                     size_t width, size_t height, CUstream stream) {         \
    return cuMemsetD2D##bits##Async(dst, pitch, value, width, height, perThread(stream));                    \
  }

DRIVER_FILL(8, unsigned char)
DRIVER_FILL(16, unsigned short)
DRIVER_FILL(32, unsigned int)
#undef DRIVER_FILL

// ---- Pointer attributes --------------------------------------------------------------------------

namespace {

/// One attribute of `ptr` into `data` (its type per the attribute), or why not.
CUresult pointerAttribute(DriverCall &call, void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, pointer(ptr)) != cudaSuccess || a.type == cudaMemoryTypeUnregistered)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t start = 0, size = 0;
  {
    std::lock_guard lock(call.rt().mutex);
    if (const Allocation *range = call.rt().allocationAt(ptr, 1, &start)) size = range->size;
  }
  auto put = [&](auto value) { std::memcpy(data, &value, sizeof value); };
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_CONTEXT: put(currentContext()); break;
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    put(static_cast<unsigned>(a.type == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE));
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: put(reinterpret_cast<CUdeviceptr>(a.devicePointer)); break;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (!a.hostPointer) return CUDA_ERROR_INVALID_VALUE;
    put(a.hostPointer);
    break;
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: put(1); break;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID: put(static_cast<unsigned long long>(start)); break;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED: put(a.type == cudaMemoryTypeManaged ? 1 : 0); break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: put(0); break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: put(static_cast<CUdeviceptr>(start)); break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE: put(static_cast<size_t>(size)); break;
  case CU_POINTER_ATTRIBUTE_MAPPED: put(1); break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

} // namespace

CUDA_DRIVER CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  DriverCall call("cuPointerGetAttribute");
  if (call.status()) return call.status();
  if (!data) return call(CUDA_ERROR_INVALID_VALUE);
  return call(pointerAttribute(call, data, attribute, ptr));
}

CUDA_DRIVER CUresult cuPointerGetAttributes(unsigned int count, CUpointer_attribute *attributes, void **data,
                                            CUdeviceptr ptr) {
  DriverCall call("cuPointerGetAttributes");
  if (call.status()) return call.status();
  if (!attributes || !data) return call(CUDA_ERROR_INVALID_VALUE);
  for (unsigned i = 0; i < count; ++i) {
    if (!data[i]) continue;
    // An attribute a pointer does not have reads as zero here (no error).
    if (pointerAttribute(call, data[i], attributes[i], ptr) != CUDA_SUCCESS) {
      if (attributes[i] == CU_POINTER_ATTRIBUTE_CONTEXT ||
          attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER ||
          attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_POINTER ||
          attributes[i] == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
        std::memset(data[i], 0, sizeof(void *));
      else
        std::memset(data[i], 0, sizeof(unsigned));
    }
  }
  return CUDA_SUCCESS;
}

std::span<const DriverEntry> cudart::memoryEntries() {
  static const DriverEntry entries[] = {
      DRIVER_ENTRY(cuMemAlloc_v2),
      DRIVER_ENTRY(cuMemAllocPitch_v2),
      DRIVER_ENTRY(cuMemFree_v2),
      DRIVER_ENTRY(cuMemAllocHost_v2),
      DRIVER_ENTRY(cuMemHostAlloc),
      DRIVER_ENTRY(cuMemFreeHost),
      DRIVER_ENTRY(cuMemHostGetDevicePointer_v2),
      DRIVER_ENTRY(cuMemHostRegister_v2),
      DRIVER_ENTRY(cuMemHostUnregister),
      DRIVER_ENTRY(cuMemAllocManaged),
      DRIVER_ENTRY(cuMemAllocAsync),
      DRIVER_ENTRY(cuMemAllocAsync_ptsz),
      DRIVER_ENTRY(cuMemFreeAsync),
      DRIVER_ENTRY(cuMemFreeAsync_ptsz),
      DRIVER_ENTRY(cuMemGetInfo_v2),
      DRIVER_ENTRY(cuMemGetAddressRange_v2),
      DRIVER_ENTRY(cuMemPrefetchAsync_v2),
      DRIVER_ENTRY(cuMemAdvise_v2),
      DRIVER_ENTRY(cuMemcpy),
      DRIVER_ENTRY(cuMemcpyAsync),
      DRIVER_ENTRY(cuMemcpyAsync_ptsz),
      DRIVER_ENTRY(cuMemcpyHtoD_v2),
      DRIVER_ENTRY(cuMemcpyHtoDAsync_v2),
      DRIVER_ENTRY(cuMemcpyHtoDAsync_v2_ptsz),
      DRIVER_ENTRY(cuMemcpyDtoH_v2),
      DRIVER_ENTRY(cuMemcpyDtoHAsync_v2),
      DRIVER_ENTRY(cuMemcpyDtoHAsync_v2_ptsz),
      DRIVER_ENTRY(cuMemcpyDtoD_v2),
      DRIVER_ENTRY(cuMemcpyDtoDAsync_v2),
      DRIVER_ENTRY(cuMemcpyDtoDAsync_v2_ptsz),
      DRIVER_ENTRY(cuMemcpy2D_v2),
      DRIVER_ENTRY(cuMemcpy2DUnaligned_v2),
      DRIVER_ENTRY(cuMemcpy2DAsync_v2),
      DRIVER_ENTRY(cuMemcpy2DAsync_v2_ptsz),
      DRIVER_ENTRY(cuPointerGetAttribute),
      DRIVER_ENTRY(cuPointerGetAttributes),
      DRIVER_ENTRY(cuMemsetD8_v2),
      DRIVER_ENTRY(cuMemsetD8Async),
      DRIVER_ENTRY(cuMemsetD8Async_ptsz),
      DRIVER_ENTRY(cuMemsetD2D8_v2),
      DRIVER_ENTRY(cuMemsetD2D8Async),
      DRIVER_ENTRY(cuMemsetD2D8Async_ptsz),
      DRIVER_ENTRY(cuMemsetD16_v2),
      DRIVER_ENTRY(cuMemsetD16Async),
      DRIVER_ENTRY(cuMemsetD16Async_ptsz),
      DRIVER_ENTRY(cuMemsetD2D16_v2),
      DRIVER_ENTRY(cuMemsetD2D16Async),
      DRIVER_ENTRY(cuMemsetD2D16Async_ptsz),
      DRIVER_ENTRY(cuMemsetD32_v2),
      DRIVER_ENTRY(cuMemsetD32Async),
      DRIVER_ENTRY(cuMemsetD32Async_ptsz),
      DRIVER_ENTRY(cuMemsetD2D32_v2),
      DRIVER_ENTRY(cuMemsetD2D32Async),
      DRIVER_ENTRY(cuMemsetD2D32Async_ptsz),
  };
  return entries;
}
