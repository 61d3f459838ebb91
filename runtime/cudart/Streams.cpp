// Streams and events. Work runs when it is issued, in issue order, which every stream ordering
// allows; what stays observable is checked as a GPU checks it: handles (a destroyed stream or
// event is cudaErrorInvalidResourceHandle), flags, timing (elapsed time between two recorded
// events with timing), host callbacks in stream order, and the errors they report.
#include "runtime/cudart/Runtime.h"

using namespace cudart;

namespace cudart {

bool Runtime::validStream(cudaStream_t s) const {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread || streams.count(s) != 0;
}

} // namespace cudart

namespace {

/// Stream and event handles are unique addresses the runtime owns.
template <typename Handle> Handle newHandle() { return reinterpret_cast<Handle>(::operator new(1)); }
template <typename Handle> void deleteHandle(Handle h) { ::operator delete(reinterpret_cast<void *>(h)); }

thread_local cudaStreamCaptureMode g_captureMode = cudaStreamCaptureModeGlobal;

} // namespace

CUDART_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                       int priority) {
  Api api("cudaStreamCreateWithPriority");
  if (api.blocked()) return api.sticky();
  if (!pStream || (flags & ~cudaStreamNonBlocking)) return api(cudaErrorInvalidValue);
  cudaStream_t s = newHandle<cudaStream_t>();
  // Priorities outside [greatest, least] = [-5, 0] are clamped, as CUDA does.
  api.rt.streams[s] = {flags, std::min(0, std::max(-5, priority)), api.rt.nextStreamId++};
  *pStream = s;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
  return cudaStreamCreateWithPriority(pStream, flags, 0);
}

CUDART_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

CUDART_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Api api("cudaStreamDestroy");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.streams.find(stream);
  if (it == api.rt.streams.end()) return api(cudaErrorInvalidResourceHandle);
  api.rt.streams.erase(it);
  deleteHandle(stream);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Api api("cudaStreamSynchronize", Api::Synchronizes);
  api.rt.synchronize();
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) {
  Api api("cudaStreamQuery", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  return cudaSuccess; // all work issued to it has run
}

CUDART_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  Api api("cudaStreamWaitEvent");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream) || !api.rt.events.count(event)) return api(cudaErrorInvalidResourceHandle);
  if (flags & ~1u) return api(cudaErrorInvalidValue);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                void *userData, unsigned int flags) {
  Api api("cudaStreamAddCallback");
  if (api.blocked()) return api.sticky();
  if (!callback || flags != 0) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  // The work before it in the stream has completed, or failed: a callback
  // is told which.
  callback(stream, api.rt.pendingFault, userData);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
  Api api("cudaLaunchHostFunc");
  if (api.blocked()) return api.sticky();
  if (!fn) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  // Unlike stream callbacks, host functions are not called after an error.
  if (api.rt.pendingFault == cudaSuccess) fn(userData);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags) {
  Api api("cudaStreamGetFlags");
  if (!flags) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  auto it = api.rt.streams.find(stream);
  *flags = it == api.rt.streams.end() ? cudaStreamDefault : it->second.flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority) {
  Api api("cudaStreamGetPriority");
  if (!priority) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  auto it = api.rt.streams.find(stream);
  *priority = it == api.rt.streams.end() ? 0 : it->second.priority;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long *streamId) {
  Api api("cudaStreamGetId");
  if (!streamId) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  auto it = api.rt.streams.find(stream);
  *streamId = it != api.rt.streams.end() ? it->second.id : stream == cudaStreamPerThread ? 2 : 1;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t stream, int *device) {
  Api api("cudaStreamGetDevice");
  if (!device) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  *device = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status) {
  Api api("cudaStreamIsCapturing");
  if (!status) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  *status = cudaStreamCaptureStatusNone; // capture (graphs) is not supported: never capturing
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *status,
                                                   unsigned long long *id, void **graph,
                                                   const void **dependencies, const void **edgeData,
                                                   size_t *numDependencies) {
  Api api("cudaStreamGetCaptureInfo");
  if (!status) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  *status = cudaStreamCaptureStatusNone;
  if (id) *id = 0;
  if (graph) *graph = nullptr;
  if (dependencies) *dependencies = nullptr;
  if (edgeData) *edgeData = nullptr;
  if (numDependencies) *numDependencies = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
  Api api("cudaThreadExchangeStreamCaptureMode");
  if (!mode || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
    return api(cudaErrorInvalidValue);
  std::swap(*mode, g_captureMode);
  return cudaSuccess;
}

// ---- Events -----------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  Api api("cudaEventCreateWithFlags");
  if (api.blocked()) return api.sticky();
  constexpr unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!event || (flags & ~known)) return api(cudaErrorInvalidValue);
  // An interprocess event must not record timing.
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return api(cudaErrorInvalidValue);
  cudaEvent_t e = newHandle<cudaEvent_t>();
  api.rt.events[e] = {flags, false, {}};
  *event = e;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

CUDART_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) {
  Api api("cudaEventDestroy");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.events.find(event);
  if (it == api.rt.events.end()) return api(cudaErrorInvalidResourceHandle);
  api.rt.events.erase(it);
  deleteHandle(event);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                   unsigned int flags) {
  Api api("cudaEventRecord");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.events.find(event);
  if (it == api.rt.events.end() || !api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (flags & ~1u) return api(cudaErrorInvalidValue);
  // Everything issued before has run: the event completes now.
  it->second.recorded = true;
  it->second.time = std::chrono::steady_clock::now();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, 0);
}

CUDART_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
  Api api("cudaEventQuery", Api::Synchronizes);
  if (api.blocked()) return api.sticky();
  if (!api.rt.events.count(event)) return api(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  Api api("cudaEventSynchronize", Api::Synchronizes);
  api.rt.synchronize();
  if (api.blocked()) return api.sticky();
  if (!api.rt.events.count(event)) return api(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  Api api("cudaEventElapsedTime");
  if (api.blocked()) return api.sticky();
  if (!ms) return api(cudaErrorInvalidValue);
  auto a = api.rt.events.find(start), b = api.rt.events.find(end);
  if (a == api.rt.events.end() || b == api.rt.events.end()) return api(cudaErrorInvalidResourceHandle);
  // Events without timing, or never recorded, have no time to compare.
  if ((a->second.flags | b->second.flags) & cudaEventDisableTiming)
    return api(cudaErrorInvalidResourceHandle);
  if (!a->second.recorded || !b->second.recorded) return api(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(b->second.time - a->second.time).count();
  return cudaSuccess;
}

// Per-thread default stream forms.
CUDART_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(s); }
CUDART_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(s); }
CUDART_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  return cudaStreamWaitEvent(s, e, flags);
}
CUDART_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb, void *data,
                                                     unsigned int flags) {
  return cudaStreamAddCallback(s, cb, data, flags);
}
CUDART_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void *data) {
  return cudaLaunchHostFunc(s, fn, data);
}
CUDART_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int *flags) {
  return cudaStreamGetFlags(s, flags);
}
CUDART_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t s, int *priority) {
  return cudaStreamGetPriority(s, priority);
}
CUDART_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long *id) {
  return cudaStreamGetId(s, id);
}
CUDART_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t s, int *device) {
  return cudaStreamGetDevice(s, device);
}
CUDART_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t s, cudaStreamCaptureStatus *status) {
  return cudaStreamIsCapturing(s, status);
}
CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, cudaStreamCaptureStatus *status,
                                                        unsigned long long *id, void **graph,
                                                        const void **deps, const void **edges, size_t *n) {
  return cudaStreamGetCaptureInfo(s, status, id, graph, deps, edges, n);
}
CUDART_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  return cudaEventRecord(e, s);
}
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  return cudaEventRecordWithFlags(e, s, flags);
}
