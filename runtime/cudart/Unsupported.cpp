// The rest of libcudart.so.13's exports. The unsupported ones (Unsupported.def) take whatever
// arguments the caller passes (the C calling convention lets a function ignore them) and return
// cudaErrorNotSupported after saying once which function it was; they never crash or abort.
// A few small functions with no better home are here too.
#include "runtime/cudart/Runtime.h"

#include <cstring>

using namespace cudart;

#define CUDART_UNSUPPORTED(name)                                                                             \
  CUDART_EXPORT cudaError_t name() {                                                                         \
    Api api(#name, Api::Ignores);                                                                            \
    return api.rt.unsupported(#name);                                                                        \
  }
#include "runtime/cudart/Unsupported.def"
#undef CUDART_UNSUPPORTED

/// Returns a struct: a stub would break its caller, so it is served.
CUDART_EXPORT cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          cudaChannelFormatKind f) {
  return {x, y, z, w, f};
}

CUDART_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                                 cudaLaunchAttributeValue *value) {
  Api api("cudaStreamGetAttribute");
  if (!value) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  std::memset(value, 0, sizeof *value);
  auto it = api.rt.streams.find(stream);
  if (attr == cudaLaunchAttributePriority && it != api.rt.streams.end())
    value->priority = it->second.priority;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                                 const cudaLaunchAttributeValue *value) {
  Api api("cudaStreamSetAttribute");
  if (!value) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  // Access policy windows, synchronisation policies and the like change
  // nothing when work runs as it is issued; a priority is kept.
  auto it = api.rt.streams.find(stream);
  if (attr == cudaLaunchAttributePriority && it != api.rt.streams.end())
    it->second.priority = std::min(0, std::max(-5, value->priority));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  Api api("cudaStreamCopyAttributes");
  if (!api.rt.validStream(dst) || !api.rt.validStream(src)) return api(cudaErrorInvalidResourceHandle);
  auto from = api.rt.streams.find(src), to = api.rt.streams.find(dst);
  if (from != api.rt.streams.end() && to != api.rt.streams.end()) to->second.priority = from->second.priority;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t s, cudaLaunchAttributeID a,
                                                      cudaLaunchAttributeValue *v) {
  return cudaStreamGetAttribute(s, a, v);
}
CUDART_EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaLaunchAttributeID a,
                                                      const cudaLaunchAttributeValue *v) {
  return cudaStreamSetAttribute(s, a, v);
}
CUDART_EXPORT cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  return cudaStreamCopyAttributes(dst, src);
}

extern "C" cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);

CUDART_EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, cudaFuncAttribute attr,
                                                          int value, int device) {
  if (device != 0) {
    Api api("cudaKernelSetAttributeForDevice");
    return api(cudaErrorInvalidDevice);
  }
  return cudaFuncSetAttribute(kernel, attr, value);
}
