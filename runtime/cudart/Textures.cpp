// Texture and surface objects: cudaCreateTextureObject over a CUDA array, linear memory
// (tex1Dfetch) or pitched 2-D memory, cudaCreateSurfaceObject over an array made with
// cudaArraySurfaceLoadStore, their destruction and the getters. Each object is an
// emu::TextureObject in the device's table (runtime::Device::createTexture), whose handle is what
// device code passes to tex/suld/sust; the runtime keeps the descriptors it was given for the
// getters. A device without a texture table (createTexture gives 0) answers cudaErrorNotSupported.
// Block-compressed resource views are not served.
#include "runtime/cudart/Runtime.h"

#include <string>

using namespace cudart;

namespace {

/// Linear textures hold at most 2^27 texels (cudaDeviceGetTexture1DLinearMaxWidth on sm_80).
constexpr uint64_t kMaxLinearTexels = uint64_t{1} << 27;

/// Whether [address, address + bytes) lies in one live allocation of the device (device memory,
/// or host memory it maps).
bool inAllocation(Runtime &rt, uint64_t address, uint64_t bytes) {
  auto info = rt.device->allocationAt(address);
  return info && info->live && bytes <= info->base + info->size - address;
}

/// An array's memory and shape as a texture resource.
void fromArray(const cudaArray &array, emu::TextureResource &out) {
  out.kind = emu::TextureResource::Array;
  out.address = array.address;
  out.format = array.format;
  out.dimensions = array.dimensions;
  out.width = array.width;
  out.height = array.height;
  out.depth = array.layers ? 1 : array.depth;
  out.layers = array.layers;
  out.cubemap = array.flags & cudaArrayCubemap;
  out.rowPitch = array.rowPitch;
  out.slicePitch = array.slicePitch;
}

/// The resource's memory and shape, checked as CUDA does. Device pointers must be aligned to
/// 256 bytes, the device's allocation granularity (CUDA asks for textureAlignment, 512, which the
/// device's allocations do not all meet); pitches to texturePitchAlignment (32).
cudaError_t resourceOf(Runtime &rt, const cudaResourceDesc &r, emu::TextureResource &out,
                       const cudaArray *&array) {
  if (r.flags != 0) return cudaErrorInvalidValue;
  cudaDeviceProp props;
  fillProperties(props, rt.totalMemory());
  switch (r.resType) {
  case cudaResourceTypeArray: {
    if (!r.res.array.array) return cudaErrorInvalidValue;
    array = rt.array(r.res.array.array);
    if (!array) return cudaErrorInvalidResourceHandle;
    fromArray(*array, out);
    return cudaSuccess;
  }
  case cudaResourceTypeMipmappedArray: {
    // Level 0 as an array, and every level's memory and extent.
    auto it = rt.mipmaps.find(r.res.mipmap.mipmap);
    if (!r.res.mipmap.mipmap) return cudaErrorInvalidValue;
    if (it == rt.mipmaps.end()) return cudaErrorInvalidResourceHandle;
    const std::vector<cudaArray *> &levels = it->second->levels;
    fromArray(*levels[0], out);
    out.levels = static_cast<unsigned>(levels.size());
    for (size_t l = 0; l < levels.size(); ++l) {
      emu::TextureResource one;
      fromArray(*levels[l], one);
      out.level[l] = {one.address, one.width, one.height, one.depth, one.rowPitch, one.slicePitch};
    }
    return cudaSuccess;
  }
  case cudaResourceTypeLinear: {
    const auto &l = r.res.linear;
    if (!texelFormat(l.desc, out.format)) return cudaErrorInvalidChannelDescriptor;
    const uint64_t address = reinterpret_cast<uint64_t>(l.devPtr);
    const uint64_t texels = l.sizeInBytes / out.format.bytes();
    if (!l.devPtr || address % 256 || texels == 0 || texels > kMaxLinearTexels ||
        !inAllocation(rt, address, l.sizeInBytes))
      return cudaErrorInvalidValue;
    out.kind = emu::TextureResource::Linear;
    out.address = address;
    out.dimensions = 1;
    out.width = texels;
    out.rowPitch = out.slicePitch = texels * out.format.bytes();
    return cudaSuccess;
  }
  case cudaResourceTypePitch2D: {
    const auto &p = r.res.pitch2D;
    if (!texelFormat(p.desc, out.format)) return cudaErrorInvalidChannelDescriptor;
    const uint64_t address = reinterpret_cast<uint64_t>(p.devPtr);
    if (!p.devPtr || address % 256 || p.width == 0 || p.height == 0 ||
        p.width > uint64_t(props.maxTexture2DLinear[0]) || p.height > uint64_t(props.maxTexture2DLinear[1]) ||
        p.pitchInBytes > uint64_t(props.maxTexture2DLinear[2]) ||
        p.pitchInBytes % props.texturePitchAlignment || p.pitchInBytes < p.width * out.format.bytes() ||
        !inAllocation(rt, address, (p.height - 1) * p.pitchInBytes + p.width * out.format.bytes()))
      return cudaErrorInvalidValue;
    out.kind = emu::TextureResource::Pitch2D;
    out.address = address;
    out.dimensions = 2;
    out.width = p.width;
    out.height = p.height;
    out.rowPitch = p.pitchInBytes;
    out.slicePitch = p.pitchInBytes * p.height;
    return cudaSuccess;
  }
  }
  return cudaErrorInvalidValue;
}

/// The format a resource view names, or false for one that names none (block-compressed views
/// are refused before).
bool viewFormat(cudaResourceViewFormat f, emu::TexelFormat &out) {
  if (f < cudaResViewFormatUnsignedChar1 || f > cudaResViewFormatFloat4) return false;
  const unsigned index = f - cudaResViewFormatUnsignedChar1; // 0..23: groups of three channel counts
  const unsigned group = index / 3; // uchar, char, ushort, short, uint, int, half, float
  static constexpr uint8_t channels[3] = {1, 2, 4};
  static constexpr uint8_t bits[8] = {8, 8, 16, 16, 32, 32, 16, 32};
  static constexpr emu::ChannelKind kinds[8] = {emu::ChannelKind::Unsigned, emu::ChannelKind::Signed,
                                                emu::ChannelKind::Unsigned, emu::ChannelKind::Signed,
                                                emu::ChannelKind::Unsigned, emu::ChannelKind::Signed,
                                                emu::ChannelKind::Float,    emu::ChannelKind::Float};
  out = {channels[index % 3], bits[group], kinds[group]};
  return true;
}

/// A resource view of an array: the same shape (CUDA allows other widths and heights only for
/// block-compressed views, which are not served), a format of the same texel size, no mipmap
/// levels, and for a layered array a range of its layers.
cudaError_t applyView(Runtime &rt, const cudaResourceViewDesc &v, const cudaArray *array,
                      emu::TextureResource &out) {
  if (!array) return cudaErrorInvalidValue; // views are for arrays only
  if (v.format >= cudaResViewFormatUnsignedBlockCompressed1)
    return v.format <= cudaResViewFormatUnsignedBlockCompressed7
               ? rt.unsupported("block-compressed resource views")
               : cudaErrorInvalidValue;
  if (v.format != cudaResViewFormatNone) {
    emu::TexelFormat f;
    if (!viewFormat(v.format, f) || f.bytes() != out.format.bytes()) return cudaErrorInvalidValue;
    out.format = f;
  }
  if (v.width != array->extent.width || v.height != array->extent.height || v.depth != array->extent.depth ||
      v.firstMipmapLevel != 0 || v.lastMipmapLevel != 0)
    return cudaErrorInvalidValue;
  if (!array->layers) return v.firstLayer || v.lastLayer ? cudaErrorInvalidValue : cudaSuccess;
  if (v.firstLayer > v.lastLayer || v.lastLayer >= array->layers) return cudaErrorInvalidValue;
  out.address += v.firstLayer * array->slicePitch;
  out.layers = v.lastLayer - v.firstLayer + 1;
  return cudaSuccess;
}

/// The sampler a texture descriptor asks for, checked as CUDA does: known modes; linear filtering
/// only of what reads as floats (float formats, and 8- and 16-bit integers read normalised).
cudaError_t samplerOf(const cudaTextureDesc &t, const emu::TextureResource &r, emu::Sampler &out) {
  for (cudaTextureAddressMode m : t.addressMode)
    if (m < cudaAddressModeWrap || m > cudaAddressModeBorder) return cudaErrorInvalidValue;
  if ((t.filterMode != cudaFilterModePoint && t.filterMode != cudaFilterModeLinear) ||
      (t.readMode != cudaReadModeElementType && t.readMode != cudaReadModeNormalizedFloat))
    return cudaErrorInvalidValue;
  const bool integer = r.format.kind != emu::ChannelKind::Float;
  const bool normalizedRead = integer && r.format.bits < 32 && t.readMode == cudaReadModeNormalizedFloat;
  const bool linear = t.filterMode == cudaFilterModeLinear && r.kind != emu::TextureResource::Linear;
  if (linear && integer && !normalizedRead) return cudaErrorInvalidValue;
  out.linear = linear;
  out.normalizedFloat = normalizedRead;
  out.normalizedCoords = t.normalizedCoords != 0;
  out.srgb = t.sRGB != 0;
  if (t.mipmapFilterMode != cudaFilterModePoint && t.mipmapFilterMode != cudaFilterModeLinear)
    return cudaErrorInvalidValue;
  out.mipmapLinear = t.mipmapFilterMode == cudaFilterModeLinear;
  out.levelBias = t.mipmapLevelBias;
  out.minLevel = t.minMipmapLevelClamp;
  out.maxLevel = t.maxMipmapLevelClamp;
  for (int i = 0; i < 4; ++i) out.border[i] = t.borderColor[i];
  for (int i = 0; i < 3; ++i) {
    auto mode = static_cast<emu::AddressMode>(t.addressMode[i]);
    // Unnormalised coordinates cannot wrap or mirror: CUDA clamps them instead.
    if (!out.normalizedCoords && (mode == emu::AddressMode::Wrap || mode == emu::AddressMode::Mirror))
      mode = emu::AddressMode::Clamp;
    out.address[i] = mode;
  }
  // tex1Dfetch ignores the address and filter modes: a fetch outside the buffer reads zeros.
  if (r.kind == emu::TextureResource::Linear) {
    for (auto &m : out.address) m = emu::AddressMode::Border;
    for (float &b : out.border) b = 0;
    out.normalizedCoords = false;
  }
  return cudaSuccess;
}

/// Puts `object` in the device's table; cudaErrorNotSupported on a device without one.
cudaError_t install(Api &api, const emu::TextureObject &object, TextureState state, uint64_t &handle) {
  handle = api.rt.device->createTexture(object);
  if (handle == 0) {
    const std::string what = std::string(object.surface ? "surface" : "texture") + " objects on the " +
                             std::string(api.rt.device->name()) + " device (it has no texture table)";
    return api.rt.unsupported(what.c_str());
  }
  api.rt.textures[handle] = state;
  return cudaSuccess;
}

/// The live object `handle` names, if it is of the kind asked for.
const TextureState *find(Runtime &rt, uint64_t handle, bool surface) {
  auto it = rt.textures.find(handle);
  return it == rt.textures.end() || it->second.surface != surface ? nullptr : &it->second;
}

cudaError_t destroy(const char *name, uint64_t handle, bool surface) {
  Api api(name);
  if (api.blocked()) return api.sticky();
  if (!find(api.rt, handle, surface)) return api(cudaErrorInvalidValue);
  api.rt.device->destroyTexture(handle);
  api.rt.textures.erase(handle);
  return cudaSuccess;
}

} // namespace

CUDART_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                                  const cudaResourceDesc *pResDesc,
                                                  const cudaTextureDesc *pTexDesc,
                                                  const cudaResourceViewDesc *pResViewDesc) {
  Api api("cudaCreateTextureObject");
  if (api.blocked()) return api.sticky();
  if (!pTexObject || !pResDesc || !pTexDesc) return api(cudaErrorInvalidValue);
  emu::TextureObject object;
  const cudaArray *array = nullptr;
  if (cudaError_t e = resourceOf(api.rt, *pResDesc, object.resource, array)) return api(e);
  if (pResViewDesc)
    if (cudaError_t e = applyView(api.rt, *pResViewDesc, array, object.resource)) return api(e);
  if (cudaError_t e = samplerOf(*pTexDesc, object.resource, object.sampler)) return api(e);
  TextureState state;
  state.resource = *pResDesc;
  state.texture = *pTexDesc;
  if (pResViewDesc) state.hasView = true, state.view = *pResViewDesc;
  uint64_t handle = 0;
  if (cudaError_t e = install(api, object, state, handle)) return api(e);
  *pTexObject = handle;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  return destroy("cudaDestroyTextureObject", texObject, false);
}

CUDART_EXPORT cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc,
                                                           cudaTextureObject_t texObject) {
  Api api("cudaGetTextureObjectResourceDesc");
  if (api.blocked()) return api.sticky();
  const TextureState *t = find(api.rt, texObject, false);
  if (!pResDesc || !t) return api(cudaErrorInvalidValue);
  *pResDesc = t->resource;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc,
                                                          cudaTextureObject_t texObject) {
  Api api("cudaGetTextureObjectTextureDesc");
  if (api.blocked()) return api.sticky();
  const TextureState *t = find(api.rt, texObject, false);
  if (!pTexDesc || !t) return api(cudaErrorInvalidValue);
  *pTexDesc = t->texture;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc *pResViewDesc,
                                                               cudaTextureObject_t texObject) {
  Api api("cudaGetTextureObjectResourceViewDesc");
  if (api.blocked()) return api.sticky();
  const TextureState *t = find(api.rt, texObject, false);
  // CUDA: without a view the call fails.
  if (!pResViewDesc || !t || !t->hasView) return api(cudaErrorInvalidValue);
  *pResViewDesc = t->view;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                                  const cudaResourceDesc *pResDesc) {
  Api api("cudaCreateSurfaceObject");
  if (api.blocked()) return api.sticky();
  if (!pSurfObject || !pResDesc) return api(cudaErrorInvalidValue);
  if (pResDesc->resType != cudaResourceTypeArray) return api(cudaErrorInvalidValue);
  emu::TextureObject object;
  object.surface = true;
  const cudaArray *array = nullptr;
  if (cudaError_t e = resourceOf(api.rt, *pResDesc, object.resource, array)) return api(e);
  // Surfaces need an array made for load and store.
  if (!(array->flags & cudaArraySurfaceLoadStore)) return api(cudaErrorInvalidValue);
  TextureState state;
  state.surface = true;
  state.resource = *pResDesc;
  uint64_t handle = 0;
  if (cudaError_t e = install(api, object, state, handle)) return api(e);
  *pSurfObject = handle;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  return destroy("cudaDestroySurfaceObject", surfObject, true);
}

CUDART_EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *pResDesc,
                                                           cudaSurfaceObject_t surfObject) {
  Api api("cudaGetSurfaceObjectResourceDesc");
  if (api.blocked()) return api.sticky();
  const TextureState *t = find(api.rt, surfObject, true);
  if (!pResDesc || !t) return api(cudaErrorInvalidValue);
  *pResDesc = t->resource;
  return cudaSuccess;
}
