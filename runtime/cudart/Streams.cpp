// Streams and events. Each stream is a work queue (WorkQueues.h) run by a device worker thread
// while the host goes on: kernels, copies, fills, host functions and callbacks run in stream
// order, events complete when the work issued before them has run, cudaStreamWaitEvent orders a
// stream after another's event, and the legacy default stream synchronises with the blocking
// streams. Handles are checked as a GPU checks them (a destroyed stream or event is
// cudaErrorInvalidResourceHandle); queries say cudaErrorNotReady while work is pending.
#include "runtime/cudart/Runtime.h"

#include <algorithm>

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

cudaStreamCaptureStatus captureStatus(const StreamCapture *c) {
  if (!c) return cudaStreamCaptureStatusNone;
  return c->sequence->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
}

} // namespace

CUDART_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                       int priority) {
  Api api("cudaStreamCreateWithPriority");
  if (api.blocked()) return api.sticky();
  if (!pStream || (flags & ~cudaStreamNonBlocking)) return api(cudaErrorInvalidValue);
  cudaStream_t s = newHandle<cudaStream_t>();
  // Priorities outside [greatest, least] = [-5, 0] are clamped, as CUDA does.
  auto kind = (flags & cudaStreamNonBlocking) ? Queue::Kind::NonBlocking : Queue::Kind::Blocking;
  api.rt.streams[s] = {flags, std::min(0, std::max(-5, priority)), api.rt.nextStreamId++,
                       api.rt.work.create(kind)};
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
  // Work already issued to it still runs, as on a GPU.
  api.rt.work.close(it->second.queue);
  api.rt.streams.erase(it);
  deleteHandle(stream);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Api api("cudaStreamSynchronize");
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = api.rt.mayWaitFor(stream)) return api(e);
  if (!Api::mayWait()) return api(cudaErrorNotPermitted);
  std::shared_ptr<Queue> q = api.rt.queueOf(stream);
  // The legacy default stream also waits for the blocking streams' work
  // issued before: an empty item of its own carries that order.
  QueuePoint target = q->kind() == Queue::Kind::Legacy ? api.rt.work.submit(q, [] {}) : api.rt.work.tail(q);
  api.wait({target});
  api.rt.synchronize();
  if (api.blocked()) return api.sticky();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) {
  Api api("cudaStreamQuery");
  api.observe();
  if (api.blocked()) return api.sticky();
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = api.rt.mayWaitFor(stream)) return api(e);
  return api.rt.work.tail(api.rt.queueOf(stream)).reached() ? cudaSuccess : api(cudaErrorNotReady);
}

CUDART_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  Api api("cudaStreamWaitEvent");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.events.find(event);
  if (!api.rt.validStream(stream) || it == api.rt.events.end()) return api(cudaErrorInvalidResourceHandle);
  if (flags & ~1u) return api(cudaErrorInvalidValue);
  EventState &e = it->second;
  StreamCapture *capture = api.rt.captureOf(stream);
  if (e.capture && e.capture->ended) return cudaSuccess; // stands for nothing any more
  if (e.capture) {
    // An event recorded in a capture: the stream joins it (or, already in
    // it, its next work also depends on what the event stands for).
    if (e.capture->invalidated) return api(cudaErrorStreamCaptureInvalidated);
    if (capture && capture->sequence != e.capture) return api(cudaErrorStreamCaptureMerge);
    if (!capture) {
      api.rt.captures[api.rt.queueOf(stream).get()] = {e.capture, e.captured};
      return cudaSuccess;
    }
    for (CUgraphNode_st *n : e.captured)
      if (std::find(capture->frontier.begin(), capture->frontier.end(), n) == capture->frontier.end())
        capture->frontier.push_back(n);
    return cudaSuccess;
  }
  if (capture) {
    // Waiting for work outside the capture: only as an external event node.
    if (!(flags & cudaEventWaitExternal)) {
      capture->sequence->invalidated = true;
      return api(cudaErrorStreamCaptureIsolation);
    }
    CUgraphNode_st &node = capture->sequence->graph->add(cudaGraphNodeTypeWaitEvent, capture->frontier, "");
    node.event = event;
    capture->frontier = {&node};
    return cudaSuccess;
  }
  if (cudaError_t err = api.rt.mayIssue(stream)) return api(err);
  // The stream's later work waits for the event's last record (an event
  // never recorded is complete). The wait is work of its own, so that
  // synchronising the stream also waits for the event.
  if (e.recorded) api.rt.submit(stream, [] {}, {e.point});
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                void *userData, unsigned int flags) {
  Api api("cudaStreamAddCallback");
  if (api.blocked()) return api.sticky();
  if (!callback || flags != 0) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  // Callbacks cannot be captured (host functions can).
  if (api.rt.captureOf(stream)) return api(api.rt.mayWaitFor(stream));
  if (cudaError_t e = api.rt.mayIssue(stream)) return api(e);
  // It runs once the work before it in the stream has completed, or failed:
  // a callback is told which.
  Runtime &rt = api.rt;
  rt.submit(stream, [&rt, stream, callback, userData] { callback(stream, rt.fault(), userData); });
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
  Api api("cudaLaunchHostFunc");
  if (api.blocked()) return api.sticky();
  if (!fn) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = api.rt.mayIssue(stream)) return api(e);
  // Unlike stream callbacks, host functions are not called after an error.
  Runtime &rt = api.rt;
  rt.submit(stream,
            [&rt, fn, userData] {
              if (rt.fault() == cudaSuccess) fn(userData);
            },
            {}, {cudaGraphNodeTypeHost, ""});
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
  StreamCapture *c = api.rt.captureOf(stream);
  *status = captureStatus(c);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *status,
                                                   unsigned long long *id, void **graph,
                                                   const void **dependencies, const void **edgeData,
                                                   size_t *numDependencies) {
  Api api("cudaStreamGetCaptureInfo");
  if (!status) return api(cudaErrorInvalidValue);
  if (!api.rt.validStream(stream)) return api(cudaErrorInvalidResourceHandle);
  StreamCapture *c = api.rt.captureOf(stream);
  *status = captureStatus(c);
  if (id) *id = c ? c->sequence->id : 0;
  if (graph) *graph = c ? c->sequence->graph.get() : nullptr;
  // The array stays valid until the stream's next captured work, as CUDA's.
  if (dependencies)
    *dependencies = c && !c->frontier.empty() ? reinterpret_cast<const void *>(c->frontier.data()) : nullptr;
  if (edgeData) *edgeData = nullptr;
  if (numDependencies) *numDependencies = c ? c->frontier.size() : 0;
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
  api.rt.events[e] = EventState{};
  api.rt.events[e].flags = flags;
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
  if (StreamCapture *c = api.rt.captureOf(stream)) {
    if (flags & cudaEventRecordExternal) {
      CUgraphNode_st &node = c->sequence->graph->add(cudaGraphNodeTypeEventRecord, c->frontier, "");
      node.event = event;
      c->frontier = {&node};
      return cudaSuccess;
    }
    // Stands for the stream's captured work so far: streams that wait for
    // it join the capture.
    it->second.capture = c->sequence;
    it->second.captured = c->frontier;
    return cudaSuccess;
  }
  if (cudaError_t e = api.rt.mayIssue(stream)) return api(e);
  it->second.capture = nullptr;
  it->second.captured.clear();
  // The event completes, and takes its time, once the work issued to the
  // stream before it has run.
  auto time = std::make_shared<std::chrono::steady_clock::time_point>();
  it->second.recorded = true;
  it->second.time = time;
  it->second.point = api.rt.submit(stream, [time] { *time = std::chrono::steady_clock::now(); });
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, 0);
}

CUDART_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
  Api api("cudaEventQuery");
  api.observe();
  if (api.blocked()) return api.sticky();
  auto it = api.rt.events.find(event);
  if (it == api.rt.events.end()) return api(cudaErrorInvalidResourceHandle);
  return it->second.point.reached() ? cudaSuccess : api(cudaErrorNotReady);
}

CUDART_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  Api api("cudaEventSynchronize");
  if (api.blocked()) return api.sticky();
  auto it = api.rt.events.find(event);
  if (it == api.rt.events.end()) return api(cudaErrorInvalidResourceHandle);
  if (!api.wait({it->second.point})) return api(cudaErrorNotPermitted);
  api.rt.synchronize();
  if (api.blocked()) return api.sticky();
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
  if (!a->second.point.reached() || !b->second.point.reached()) return api(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(*b->second.time - *a->second.time).count();
  return cudaSuccess;
}

// Per-thread default stream forms.
CUDART_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) {
  return cudaStreamSynchronize(perThreadDefault(s));
}
CUDART_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) {
  return cudaStreamQuery(perThreadDefault(s));
}
CUDART_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  return cudaStreamWaitEvent(perThreadDefault(s), e, flags);
}
CUDART_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb, void *data,
                                                     unsigned int flags) {
  return cudaStreamAddCallback(perThreadDefault(s), cb, data, flags);
}
CUDART_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void *data) {
  return cudaLaunchHostFunc(perThreadDefault(s), fn, data);
}
CUDART_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int *flags) {
  return cudaStreamGetFlags(perThreadDefault(s), flags);
}
CUDART_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t s, int *priority) {
  return cudaStreamGetPriority(perThreadDefault(s), priority);
}
CUDART_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long *id) {
  return cudaStreamGetId(perThreadDefault(s), id);
}
CUDART_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t s, int *device) {
  return cudaStreamGetDevice(perThreadDefault(s), device);
}
CUDART_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t s, cudaStreamCaptureStatus *status) {
  return cudaStreamIsCapturing(perThreadDefault(s), status);
}
CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, cudaStreamCaptureStatus *status,
                                                        unsigned long long *id, void **graph,
                                                        const void **deps, const void **edges, size_t *n) {
  return cudaStreamGetCaptureInfo(perThreadDefault(s), status, id, graph, deps, edges, n);
}
CUDART_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  return cudaEventRecord(e, perThreadDefault(s));
}
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  return cudaEventRecordWithFlags(e, perThreadDefault(s), flags);
}
