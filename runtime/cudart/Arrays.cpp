// CUDA arrays: cudaMallocArray, cudaMalloc3DArray, cudaFreeArray, their descriptions, and the
// copies that name an array (the 2-D forms, the deprecated ones whose rows wrap, and the array
// side of cudaMemcpy3D). An array is a runtime object (cudaArray in Runtime.h) holding zeroed
// device memory of row-major texels without padding; a handle the runtime did not hand out is an
// error, never dereferenced. The copies become pitched copies of that memory (Copy.cpp's checks
// and stream work), bounded by the array first: a copy that leaves it is cudaErrorInvalidValue.
// Sparse and deferred-mapping arrays and mipmapped arrays are not served; cubemaps are layered 2-D arrays.
#include "runtime/cudart/Runtime.h"
#include "runtime/cudart/Transfers.h"

#include <algorithm>

namespace cudart {

cudaArray *Runtime::array(const cudaArray *handle) {
  auto it = arrays.find(handle);
  return it == arrays.end() ? nullptr : it->second.get();
}

bool texelFormat(const cudaChannelFormatDesc &d, emu::TexelFormat &out) {
  const int bits = d.x;
  if (bits != 8 && bits != 16 && bits != 32) return false;
  unsigned channels = 0;
  if (d.y == 0 && d.z == 0 && d.w == 0)
    channels = 1;
  else if (d.y == bits && d.z == 0 && d.w == 0)
    channels = 2;
  else if (d.y == bits && d.z == bits && d.w == bits)
    channels = 4;
  else
    return false;
  switch (d.f) {
  case cudaChannelFormatKindSigned: out.kind = emu::ChannelKind::Signed; break;
  case cudaChannelFormatKindUnsigned: out.kind = emu::ChannelKind::Unsigned; break;
  case cudaChannelFormatKindFloat:
    if (bits == 8) return false;
    out.kind = emu::ChannelKind::Float;
    break;
  default: return false;
  }
  out.channels = static_cast<uint8_t>(channels);
  out.bits = static_cast<uint8_t>(bits);
  return true;
}

} // namespace cudart

using namespace cudart;

namespace {

/// Whether an array's extent is within what the device allows for its kind (cudaMalloc3DArray's
/// table; the surface limits with cudaArraySurfaceLoadStore).
bool withinLimits(const cudaDeviceProp &p, const cudaArray &a) {
  const bool surface = a.flags & cudaArraySurfaceLoadStore;
  auto fits = [&](std::initializer_list<std::pair<uint64_t, int>> dims) {
    return std::all_of(dims.begin(), dims.end(), [](auto d) { return d.first <= uint64_t(d.second); });
  };
  if (a.flags & cudaArrayCubemap) {
    if (!(a.flags & cudaArrayLayered))
      return fits({{a.width, surface ? p.maxSurfaceCubemap : p.maxTextureCubemap}});
    return fits({{a.width, surface ? p.maxSurfaceCubemapLayered[0] : p.maxTextureCubemapLayered[0]},
                 {a.layers / 6, surface ? p.maxSurfaceCubemapLayered[1] : p.maxTextureCubemapLayered[1]}});
  }
  if (a.layers)
    return a.dimensions == 1
               ? fits({{a.width, surface ? p.maxSurface1DLayered[0] : p.maxTexture1DLayered[0]},
                       {a.layers, surface ? p.maxSurface1DLayered[1] : p.maxTexture1DLayered[1]}})
               : fits({{a.width, surface ? p.maxSurface2DLayered[0] : p.maxTexture2DLayered[0]},
                       {a.height, surface ? p.maxSurface2DLayered[1] : p.maxTexture2DLayered[1]},
                       {a.layers, surface ? p.maxSurface2DLayered[2] : p.maxTexture2DLayered[2]}});
  switch (a.dimensions) {
  case 1: return fits({{a.width, surface ? p.maxSurface1D : p.maxTexture1D}});
  case 2:
    if (a.flags & cudaArrayTextureGather)
      return fits({{a.width, p.maxTexture2DGather[0]}, {a.height, p.maxTexture2DGather[1]}});
    return fits({{a.width, surface ? p.maxSurface2D[0] : p.maxTexture2D[0]},
                 {a.height, surface ? p.maxSurface2D[1] : p.maxTexture2D[1]}});
  default:
    if (surface)
      return fits(
          {{a.width, p.maxSurface3D[0]}, {a.height, p.maxSurface3D[1]}, {a.depth, p.maxSurface3D[2]}});
    return fits(
               {{a.width, p.maxTexture3D[0]}, {a.height, p.maxTexture3D[1]}, {a.depth, p.maxTexture3D[2]}}) ||
           fits({{a.width, p.maxTexture3DAlt[0]},
                 {a.height, p.maxTexture3DAlt[1]},
                 {a.depth, p.maxTexture3DAlt[2]}});
  }
}

/// cudaMalloc3DArray's rules (cudaMallocArray's are the same without layers): the extent's zeros
/// give the dimensions, a layered array's depth is its layer count.
cudaError_t mallocArray(Api &api, cudaArray_t *handle, const cudaChannelFormatDesc *desc, cudaExtent e,
                        unsigned flags) {
  Runtime &rt = api.rt;
  if (!handle || !desc) return cudaErrorInvalidValue;
  constexpr unsigned known = cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap |
                             cudaArrayTextureGather | cudaArraySparse | cudaArrayDeferredMapping;
  if (flags & ~known) return cudaErrorInvalidValue;
  if (flags & (cudaArraySparse | cudaArrayDeferredMapping))
    return rt.unsupported("sparse and deferred-mapping CUDA arrays");
  auto a = std::make_unique<cudaArray>();
  if (!texelFormat(*desc, a->format)) return cudaErrorInvalidChannelDescriptor;
  a->desc = *desc;
  a->extent = e;
  a->flags = flags;
  const bool layered = flags & cudaArrayLayered;
  if (e.width == 0) return cudaErrorInvalidValue;
  if (flags & cudaArrayCubemap) {
    // Six square faces, or six per cube with cudaArrayLayered: stored as the
    // layers of a 2-D array.
    if (e.height != e.width || e.depth == 0 || e.depth % 6 || (!layered && e.depth != 6))
      return cudaErrorInvalidValue;
    a->dimensions = 2;
    a->layers = a->depth = e.depth;
  } else if (layered) {
    if (e.depth == 0) return cudaErrorInvalidValue;
    a->dimensions = e.height == 0 ? 1 : 2;
    a->layers = a->depth = e.depth;
  } else {
    if (e.height == 0 && e.depth != 0) return cudaErrorInvalidValue;
    a->dimensions = e.depth ? 3 : e.height ? 2 : 1;
    a->depth = std::max<size_t>(e.depth, 1);
  }
  a->width = e.width;
  a->height = std::max<size_t>(e.height, 1);
  if ((flags & cudaArrayTextureGather) && a->dimensions != 2) return cudaErrorInvalidValue;
  cudaDeviceProp props;
  fillProperties(props, rt.totalMemory());
  if (!withinLimits(props, *a)) return cudaErrorInvalidValue;
  // Within the limits none of these products overflows.
  a->rowPitch = a->width * a->format.bytes();
  a->slicePitch = a->rowPitch * a->height;
  const uint64_t bytes = a->slicePitch * a->depth;
  if (bytes > rt.totalMemory() - std::min(rt.totalMemory(), rt.device->liveBytes()))
    return cudaErrorMemoryAllocation;
  a->address = rt.device->allocate(bytes); // zeroed
  if (!a->address) return cudaErrorMemoryAllocation;
  *handle = a.get();
  rt.arrays.emplace(a.get(), std::move(a));
  return cudaSuccess;
}

/// The rectangle of `width` bytes by `height` rows at (`wOffset` bytes, `hOffset` rows) of an
/// array's first slice as device memory, or cudaErrorInvalidValue when it leaves the array.
cudaError_t arrayRows(Runtime &rt, const cudaArray *handle, size_t wOffset, size_t hOffset, size_t width,
                      size_t height, void *&at) {
  const cudaArray *a = rt.array(handle);
  if (!a) return cudaErrorInvalidResourceHandle;
  if (wOffset > a->rowPitch || width > a->rowPitch - wOffset || hOffset > a->height ||
      height > a->height - hOffset)
    return cudaErrorInvalidValue;
  at = reinterpret_cast<void *>(a->address + hOffset * a->rowPitch + wOffset);
  return cudaSuccess;
}

/// The deprecated forms' `count` bytes from (`wOffset` bytes, `hOffset` rows) of an array, rows
/// wrapping to the next, as rectangles: the first row's rest, whole rows, the last row's start.
/// `other` (the pointer side, contiguous) advances with them.
cudaError_t wrappedRows(Runtime &rt, const cudaArray *handle, size_t wOffset, size_t hOffset, size_t count,
                        bool toArray, const void *other, std::vector<RowCopy> &parts) {
  const cudaArray *a = rt.array(handle);
  if (!a) return cudaErrorInvalidResourceHandle;
  const uint64_t row = a->rowPitch, total = a->rowPitch * a->height;
  if (hOffset >= a->height || wOffset >= row) return count ? cudaErrorInvalidValue : cudaSuccess;
  const uint64_t start = hOffset * row + wOffset;
  if (count > total - start) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  auto add = [&](uint64_t arrayOffset, uint64_t otherOffset, uint64_t width, uint64_t rows) {
    void *in = reinterpret_cast<void *>(a->address + arrayOffset);
    auto *out = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(other) + otherOffset);
    if (toArray)
      parts.push_back({in, row, out, width, width, rows});
    else
      parts.push_back({out, width, in, row, width, rows});
  };
  const uint64_t first = std::min<uint64_t>(count, row - wOffset);
  add(start, 0, first, 1);
  const uint64_t whole = (count - first) / row, last = (count - first) % row;
  if (whole) add(start + first, first, row, whole);
  if (last) add(start + first + whole * row, first + whole * row, last, 1);
  return cudaSuccess;
}

// Each copy form once, with the stream it runs on and whether it blocks.
cudaError_t toArray2D(const char *name, cudaStream_t stream, bool blocking, cudaArray_t dst, size_t wOffset,
                      size_t hOffset, const void *src, size_t spitch, size_t width, size_t height,
                      cudaMemcpyKind kind) {
  return rowsCall(name, stream, blocking, kind, [&](Runtime &rt, std::vector<RowCopy> &parts) {
    if (height > 1 && width > spitch) return cudaErrorInvalidPitchValue;
    void *at = nullptr;
    if (cudaError_t e = arrayRows(rt, dst, wOffset, hOffset, width, height, at)) return e;
    parts.push_back({at, rt.array(dst)->rowPitch, src, spitch, width, height});
    return cudaSuccess;
  });
}

cudaError_t fromArray2D(const char *name, cudaStream_t stream, bool blocking, void *dst, size_t dpitch,
                        cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height,
                        cudaMemcpyKind kind) {
  return rowsCall(name, stream, blocking, kind, [&](Runtime &rt, std::vector<RowCopy> &parts) {
    if (height > 1 && width > dpitch) return cudaErrorInvalidPitchValue;
    void *at = nullptr;
    if (cudaError_t e = arrayRows(rt, src, wOffset, hOffset, width, height, at)) return e;
    parts.push_back({dst, dpitch, at, rt.array(src)->rowPitch, width, height});
    return cudaSuccess;
  });
}

cudaError_t arrayToArray2D(const char *name, cudaStream_t stream, cudaArray_t dst, size_t wOffsetDst,
                           size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                           size_t width, size_t height, cudaMemcpyKind kind) {
  return rowsCall(name, stream, true, kind, [&](Runtime &rt, std::vector<RowCopy> &parts) {
    void *to = nullptr, *from = nullptr;
    if (cudaError_t e = arrayRows(rt, dst, wOffsetDst, hOffsetDst, width, height, to)) return e;
    if (cudaError_t e = arrayRows(rt, src, wOffsetSrc, hOffsetSrc, width, height, from)) return e;
    parts.push_back({to, rt.array(dst)->rowPitch, from, rt.array(src)->rowPitch, width, height});
    return cudaSuccess;
  });
}

cudaError_t toArray(const char *name, cudaStream_t stream, bool blocking, cudaArray_t dst, size_t wOffset,
                    size_t hOffset, const void *src, size_t count, cudaMemcpyKind kind) {
  return rowsCall(name, stream, blocking, kind, [&](Runtime &rt, std::vector<RowCopy> &parts) {
    return wrappedRows(rt, dst, wOffset, hOffset, count, true, src, parts);
  });
}

cudaError_t fromArray(const char *name, cudaStream_t stream, bool blocking, void *dst, cudaArray_const_t src,
                      size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind) {
  return rowsCall(name, stream, blocking, kind, [&](Runtime &rt, std::vector<RowCopy> &parts) {
    return wrappedRows(rt, src, wOffset, hOffset, count, false, dst, parts);
  });
}

/// cudaMemcpyArrayToArray: `count` bytes, rows wrapping on both sides. The pieces are those of
/// the source's wrapping, each split again where the destination's rows wrap.
cudaError_t arrayToArray(const char *name, cudaStream_t stream, cudaArray_t dst, size_t wOffsetDst,
                         size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                         size_t count, cudaMemcpyKind kind) {
  return rowsCall(name, stream, true, kind, [&](Runtime &rt, std::vector<RowCopy> &parts) {
    std::vector<RowCopy> from, to;
    // Each side as if the other were contiguous memory at offset 0.
    if (cudaError_t e = wrappedRows(rt, src, wOffsetSrc, hOffsetSrc, count, false, nullptr, from)) return e;
    if (cudaError_t e = wrappedRows(rt, dst, wOffsetDst, hOffsetDst, count, true, nullptr, to)) return e;
    // Byte by byte position: walk both row lists at once, one piece per common run.
    auto rowsOf = [](const std::vector<RowCopy> &list, bool arraySideIsDst) {
      std::vector<std::pair<uint64_t, uint64_t>> runs; // (array address, bytes)
      for (const RowCopy &c : list)
        for (size_t r = 0; r < c.height; ++r) {
          uint64_t base = reinterpret_cast<uint64_t>(arraySideIsDst ? c.dst : c.src);
          runs.push_back({base + r * (arraySideIsDst ? c.dpitch : c.spitch), c.width});
        }
      return runs;
    };
    auto a = rowsOf(from, false), b = rowsOf(to, true);
    size_t i = 0, j = 0;
    uint64_t ai = 0, bj = 0; // bytes used of run i, j
    while (i < a.size() && j < b.size()) {
      uint64_t n = std::min(a[i].second - ai, b[j].second - bj);
      parts.push_back({reinterpret_cast<void *>(b[j].first + bj), n,
                       reinterpret_cast<const void *>(a[i].first + ai), n, n, 1});
      if ((ai += n) == a[i].second) ++i, ai = 0;
      if ((bj += n) == b[j].second) ++j, bj = 0;
    }
    return cudaSuccess;
  });
}

} // namespace

cudaError_t cudart::arrayAsPitched(Runtime &rt, const cudaArray *handle, cudaPos &pos, cudaExtent &extent,
                                   cudaPitchedPtr &out) {
  const cudaArray *a = rt.array(handle);
  if (!a) return cudaErrorInvalidResourceHandle;
  auto fits = [](size_t at, size_t n, uint64_t size) { return at <= size && n <= size - at; };
  if (!fits(pos.x, extent.width, a->width) || !fits(pos.y, extent.height, a->height) ||
      !fits(pos.z, extent.depth, a->depth))
    return cudaErrorInvalidValue;
  const unsigned bytes = a->format.bytes();
  pos.x *= bytes;
  extent.width *= bytes;
  out = {reinterpret_cast<void *>(a->address), a->rowPitch, a->rowPitch, a->height};
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width,
                                          size_t height, unsigned int flags) {
  Api api("cudaMallocArray");
  if (api.blocked()) return api.sticky();
  // Layers and cubemaps are cudaMalloc3DArray's.
  if (flags & (cudaArrayLayered | cudaArrayCubemap)) return api(cudaErrorInvalidValue);
  return api(mallocArray(api, array, desc, cudaExtent{width, height, 0}, flags));
}

CUDART_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                            cudaExtent extent, unsigned int flags) {
  Api api("cudaMalloc3DArray");
  if (api.blocked()) return api.sticky();
  return api(mallocArray(api, array, desc, extent, flags));
}

CUDART_EXPORT cudaError_t cudaFreeArray(cudaArray_t array) {
  // As cudaFree: the device's work issued before (copies into the array) ends first.
  Api api("cudaFreeArray", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  if (!array) return cudaSuccess;
  auto it = api.rt.arrays.find(array);
  if (it == api.rt.arrays.end() || it->second->owner) return api(cudaErrorInvalidValue);
  api.rt.device->free(it->second->address);
  api.rt.arrays.erase(it);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent,
                                           unsigned int *flags, cudaArray_t array) {
  Api api("cudaArrayGetInfo");
  if (api.blocked()) return api.sticky();
  const cudaArray *a = api.rt.array(array);
  if (!a) return api(cudaErrorInvalidValue);
  if (desc) *desc = a->desc;
  if (extent) *extent = a->extent;
  if (flags) *flags = a->flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array) {
  Api api("cudaGetChannelDesc");
  if (api.blocked()) return api.sticky();
  const cudaArray *a = api.rt.array(array);
  if (!desc || !a) return api(cudaErrorInvalidValue);
  *desc = a->desc;
  return cudaSuccess;
}

// ---- Mipmapped arrays: a chain of arrays, each level half the extent of the one before ----

CUDART_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmap,
                                                   const cudaChannelFormatDesc *desc, cudaExtent extent,
                                                   unsigned int numLevels, unsigned int flags) {
  Api api("cudaMallocMipmappedArray");
  if (api.blocked()) return api.sticky();
  if (!mipmap) return api(cudaErrorInvalidValue);
  if (flags & (cudaArraySurfaceLoadStore | cudaArrayTextureGather)) return api(cudaErrorInvalidValue);
  // numLevels is clamped to [1, 1 + floor(log2(the largest extent))]; layers do not shrink.
  const bool layered = flags & (cudaArrayLayered | cudaArrayCubemap);
  const size_t largest = std::max({extent.width, extent.height, layered ? size_t{0} : extent.depth});
  unsigned most = 1;
  while (most < emu::TextureResource::kMaxLevels && (largest >> most) != 0) ++most;
  const unsigned levels = std::clamp(numLevels, 1u, most);
  auto m = std::make_unique<cudaMipmappedArray>();
  for (unsigned l = 0; l < levels; ++l) {
    auto half = [l](size_t n) { return n == 0 ? size_t{0} : std::max<size_t>(n >> l, 1); };
    cudaExtent e{half(extent.width), half(extent.height), layered ? extent.depth : half(extent.depth)};
    cudaArray_t level = nullptr;
    cudaError_t err = mallocArray(api, &level, desc, e, flags);
    if (err != cudaSuccess) {
      for (cudaArray *made : m->levels) {
        api.rt.device->free(made->address);
        api.rt.arrays.erase(made);
      }
      return api(err);
    }
    api.rt.arrays[level]->owner = m.get();
    m->levels.push_back(level);
  }
  *mipmap = m.get();
  api.rt.mipmaps.emplace(m.get(), std::move(m));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                                     cudaMipmappedArray_const_t mipmap, unsigned int level) {
  Api api("cudaGetMipmappedArrayLevel");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.mipmaps.find(mipmap);
  if (!levelArray || it == api.rt.mipmaps.end()) return api(cudaErrorInvalidResourceHandle);
  if (level >= it->second->levels.size()) return api(cudaErrorInvalidValue);
  *levelArray = it->second->levels[level];
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmap) {
  Api api("cudaFreeMipmappedArray", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  if (!mipmap) return cudaSuccess;
  auto it = api.rt.mipmaps.find(mipmap);
  if (it == api.rt.mipmaps.end()) return api(cudaErrorInvalidValue);
  for (cudaArray *level : it->second->levels) {
    api.rt.device->free(level->address);
    api.rt.arrays.erase(level);
  }
  api.rt.mipmaps.erase(it);
  return cudaSuccess;
}

// The blocking forms run on the legacy default stream (the _ptds forms on the calling thread's
// own), the async forms on theirs.

CUDART_EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t spitch, size_t width, size_t height,
                                              cudaMemcpyKind kind) {
  return toArray2D("cudaMemcpy2DToArray", nullptr, true, dst, wOffset, hOffset, src, spitch, width, height,
                   kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                   const void *src, size_t spitch, size_t width,
                                                   size_t height, cudaMemcpyKind kind) {
  return toArray2D("cudaMemcpy2DToArray", cudaStreamPerThread, true, dst, wOffset, hOffset, src, spitch,
                   width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                   const void *src, size_t spitch, size_t width,
                                                   size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  return toArray2D("cudaMemcpy2DToArrayAsync", stream, false, dst, wOffset, hOffset, src, spitch, width,
                   height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                        const void *src, size_t spitch, size_t width,
                                                        size_t height, cudaMemcpyKind kind,
                                                        cudaStream_t stream) {
  return toArray2D("cudaMemcpy2DToArrayAsync", perThreadDefault(stream), false, dst, wOffset, hOffset, src,
                   spitch, width, height, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                                size_t wOffset, size_t hOffset, size_t width, size_t height,
                                                cudaMemcpyKind kind) {
  return fromArray2D("cudaMemcpy2DFromArray", nullptr, true, dst, dpitch, src, wOffset, hOffset, width,
                     height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src,
                                                     size_t wOffset, size_t hOffset, size_t width,
                                                     size_t height, cudaMemcpyKind kind) {
  return fromArray2D("cudaMemcpy2DFromArray", cudaStreamPerThread, true, dst, dpitch, src, wOffset, hOffset,
                     width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                                     size_t wOffset, size_t hOffset, size_t width,
                                                     size_t height, cudaMemcpyKind kind,
                                                     cudaStream_t stream) {
  return fromArray2D("cudaMemcpy2DFromArrayAsync", stream, false, dst, dpitch, src, wOffset, hOffset, width,
                     height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                                          size_t wOffset, size_t hOffset, size_t width,
                                                          size_t height, cudaMemcpyKind kind,
                                                          cudaStream_t stream) {
  return fromArray2D("cudaMemcpy2DFromArrayAsync", perThreadDefault(stream), false, dst, dpitch, src, wOffset,
                     hOffset, width, height, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                   cudaArray_const_t src, size_t wOffsetSrc,
                                                   size_t hOffsetSrc, size_t width, size_t height,
                                                   cudaMemcpyKind kind) {
  return arrayToArray2D("cudaMemcpy2DArrayToArray", nullptr, dst, wOffsetDst, hOffsetDst, src, wOffsetSrc,
                        hOffsetSrc, width, height, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                        cudaArray_const_t src, size_t wOffsetSrc,
                                                        size_t hOffsetSrc, size_t width, size_t height,
                                                        cudaMemcpyKind kind) {
  return arrayToArray2D("cudaMemcpy2DArrayToArray", cudaStreamPerThread, dst, wOffsetDst, hOffsetDst, src,
                        wOffsetSrc, hOffsetSrc, width, height, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                            size_t count, cudaMemcpyKind kind) {
  return toArray("cudaMemcpyToArray", nullptr, true, dst, wOffset, hOffset, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                 const void *src, size_t count, cudaMemcpyKind kind) {
  return toArray("cudaMemcpyToArray", cudaStreamPerThread, true, dst, wOffset, hOffset, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                 const void *src, size_t count, cudaMemcpyKind kind,
                                                 cudaStream_t stream) {
  return toArray("cudaMemcpyToArrayAsync", stream, false, dst, wOffset, hOffset, src, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                      const void *src, size_t count, cudaMemcpyKind kind,
                                                      cudaStream_t stream) {
  return toArray("cudaMemcpyToArrayAsync", perThreadDefault(stream), false, dst, wOffset, hOffset, src, count,
                 kind);
}

CUDART_EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                              size_t hOffset, size_t count, cudaMemcpyKind kind) {
  return fromArray("cudaMemcpyFromArray", nullptr, true, dst, src, wOffset, hOffset, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset,
                                                   size_t hOffset, size_t count, cudaMemcpyKind kind) {
  return fromArray("cudaMemcpyFromArray", cudaStreamPerThread, true, dst, src, wOffset, hOffset, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                                   size_t hOffset, size_t count, cudaMemcpyKind kind,
                                                   cudaStream_t stream) {
  return fromArray("cudaMemcpyFromArrayAsync", stream, false, dst, src, wOffset, hOffset, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                                        size_t hOffset, size_t count, cudaMemcpyKind kind,
                                                        cudaStream_t stream) {
  return fromArray("cudaMemcpyFromArrayAsync", perThreadDefault(stream), false, dst, src, wOffset, hOffset,
                   count, kind);
}

CUDART_EXPORT cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                 cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                                 size_t count, cudaMemcpyKind kind) {
  return arrayToArray("cudaMemcpyArrayToArray", nullptr, dst, wOffsetDst, hOffsetDst, src, wOffsetSrc,
                      hOffsetSrc, count, kind);
}
CUDART_EXPORT cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                      cudaArray_const_t src, size_t wOffsetSrc,
                                                      size_t hOffsetSrc, size_t count, cudaMemcpyKind kind) {
  return arrayToArray("cudaMemcpyArrayToArray", cudaStreamPerThread, dst, wOffsetDst, hOffsetDst, src,
                      wOffsetSrc, hOffsetSrc, count, kind);
}
