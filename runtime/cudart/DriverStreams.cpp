// The driver API's streams, events, stream capture and graph launches: the runtime's own objects
// (a CUstream is a cudaStream_t, a CUevent a cudaEvent_t, as in CUDA), so work issued through
// either API is ordered on one set of queues. The _ptsz forms (programs built with per-thread
// default streams) read the null stream as the calling thread's own.
#include "runtime/cudart/Driver.h"

using namespace cudart;

// ---- Streams -------------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority) {
  DriverCall call("cuStreamCreateWithPriority");
  if (call.status()) return call.status();
  return call(cudaStreamCreateWithPriority(stream, flags, priority)); // CU_STREAM_* are cudaStream*
}

CUDA_DRIVER CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  DriverCall call("cuStreamCreate");
  if (call.status()) return call.status();
  return call(cudaStreamCreateWithPriority(stream, flags, 0));
}

CUDA_DRIVER CUresult cuStreamDestroy_v2(CUstream stream) {
  DriverCall call("cuStreamDestroy_v2", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaStreamDestroy(stream));
}

/// A driver call served by one runtime call, and its _ptsz form.
#define DRIVER_SERVED(name, params, args, stream, runtimeCall)                                               \
  CUDA_DRIVER CUresult name params {                                                                         \
    DriverCall call(#name);                                                                                  \
    if (call.status()) return call.status();                                                                 \
    return call(runtimeCall);                                                                                \
  }                                                                                                          \
  CUDA_DRIVER CUresult name##_ptsz params {                                                                  \
    stream = perThreadDefault(stream);                                                                       \
    return name args;                                                                                        \
  }

DRIVER_SERVED(cuStreamSynchronize, (CUstream s), (s), s, cudaStreamSynchronize(s))
DRIVER_SERVED(cuStreamQuery, (CUstream s), (s), s, cudaStreamQuery(s))
DRIVER_SERVED(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags), (s, e, flags), s,
              cudaStreamWaitEvent(s, e, flags))
// A stream callback is told the result as a runtime code; for the faults a
// callback can see the two codes are equal, so the driver's callback type is
// served as is.
DRIVER_SERVED(cuStreamAddCallback, (CUstream s, CUstreamCallback fn, void *data, unsigned int flags),
              (s, fn, data, flags), s,
              cudaStreamAddCallback(s, reinterpret_cast<cudaStreamCallback_t>(fn), data, flags))
DRIVER_SERVED(cuLaunchHostFunc, (CUstream s, CUhostFn fn, void *data), (s, fn, data), s,
              cudaLaunchHostFunc(s, fn, data))
DRIVER_SERVED(cuStreamGetFlags, (CUstream s, unsigned int *flags), (s, flags), s,
              cudaStreamGetFlags(s, flags))
DRIVER_SERVED(cuStreamGetPriority, (CUstream s, int *priority), (s, priority), s,
              cudaStreamGetPriority(s, priority))
DRIVER_SERVED(cuStreamGetId, (CUstream s, unsigned long long *id), (s, id), s, cudaStreamGetId(s, id))
DRIVER_SERVED(cuStreamBeginCapture_v2, (CUstream s, int mode), (s, mode), s,
              cudaStreamBeginCapture(s, static_cast<cudaStreamCaptureMode>(mode)))
DRIVER_SERVED(cuStreamEndCapture, (CUstream s, CUgraph *graph), (s, graph), s, cudaStreamEndCapture(s, graph))
DRIVER_SERVED(cuStreamIsCapturing, (CUstream s, int *status), (s, status), s,
              cudaStreamIsCapturing(s, reinterpret_cast<cudaStreamCaptureStatus *>(status)))
DRIVER_SERVED(cuEventRecord, (CUevent e, CUstream s), (e, s), s, cudaEventRecordWithFlags(e, s, 0))
DRIVER_SERVED(cuEventRecordWithFlags, (CUevent e, CUstream s, unsigned int flags), (e, s, flags), s,
              cudaEventRecordWithFlags(e, s, flags))
DRIVER_SERVED(cuGraphLaunch, (CUgraphExec exec, CUstream s), (exec, s), s, cudaGraphLaunch(exec, s))
DRIVER_SERVED(cuGraphUpload, (CUgraphExec exec, CUstream s), (exec, s), s, cudaGraphUpload(exec, s))
#undef DRIVER_SERVED

CUDA_DRIVER CUresult cuStreamGetCtx(CUstream stream, CUcontext *context) {
  DriverCall call("cuStreamGetCtx");
  if (call.status()) return call.status();
  if (!context) return call(CUDA_ERROR_INVALID_VALUE);
  unsigned flags = 0;
  if (CUresult r = call(cudaStreamGetFlags(stream, &flags))) return r;
  *context = currentContext(); // every context shares the device's streams
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuStreamGetDevice(CUstream stream, CUdevice *device) {
  DriverCall call("cuStreamGetDevice");
  if (call.status()) return call.status();
  if (!device) return call(CUDA_ERROR_INVALID_VALUE);
  unsigned flags = 0;
  if (CUresult r = call(cudaStreamGetFlags(stream, &flags))) return r;
  *device = 0;
  return CUDA_SUCCESS;
}

// ---- Events --------------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  DriverCall call("cuEventCreate");
  if (call.status()) return call.status();
  return call(cudaEventCreateWithFlags(event, flags)); // CU_EVENT_* are cudaEvent*
}

CUDA_DRIVER CUresult cuEventDestroy_v2(CUevent event) {
  DriverCall call("cuEventDestroy_v2", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaEventDestroy(event));
}

CUDA_DRIVER CUresult cuEventQuery(CUevent event) {
  DriverCall call("cuEventQuery");
  if (call.status()) return call.status();
  return call(cudaEventQuery(event));
}

CUDA_DRIVER CUresult cuEventSynchronize(CUevent event) {
  DriverCall call("cuEventSynchronize");
  if (call.status()) return call.status();
  return call(cudaEventSynchronize(event));
}

CUDA_DRIVER CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  DriverCall call("cuEventElapsedTime");
  if (call.status()) return call.status();
  return call(cudaEventElapsedTime(ms, start, end));
}

CUDA_DRIVER CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
  return cuEventElapsedTime(ms, start, end);
}

// ---- Graphs --------------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuGraphCreate(CUgraph *graph, unsigned int flags) {
  DriverCall call("cuGraphCreate");
  if (call.status()) return call.status();
  return call(cudaGraphCreate(graph, flags));
}

CUDA_DRIVER CUresult cuGraphDestroy(CUgraph graph) {
  DriverCall call("cuGraphDestroy", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaGraphDestroy(graph));
}

CUDA_DRIVER CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags) {
  DriverCall call("cuGraphInstantiateWithFlags");
  if (call.status()) return call.status();
  return call(cudaGraphInstantiateWithFlags(exec, graph, flags));
}

CUDA_DRIVER CUresult cuGraphExecDestroy(CUgraphExec exec) {
  DriverCall call("cuGraphExecDestroy", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaGraphExecDestroy(exec));
}

std::span<const DriverEntry> cudart::streamEntries() {
  static const DriverEntry entries[] = {
      DRIVER_ENTRY(cuStreamCreateWithPriority),
      DRIVER_ENTRY(cuStreamCreate),
      DRIVER_ENTRY(cuStreamDestroy_v2),
      DRIVER_ENTRY(cuStreamGetCtx),
      DRIVER_ENTRY(cuStreamGetDevice),
      DRIVER_ENTRY(cuEventCreate),
      DRIVER_ENTRY(cuEventDestroy_v2),
      DRIVER_ENTRY(cuEventQuery),
      DRIVER_ENTRY(cuEventSynchronize),
      DRIVER_ENTRY(cuEventElapsedTime),
      DRIVER_ENTRY(cuEventElapsedTime_v2),
      DRIVER_ENTRY(cuGraphCreate),
      DRIVER_ENTRY(cuGraphDestroy),
      DRIVER_ENTRY(cuGraphInstantiateWithFlags),
      DRIVER_ENTRY(cuGraphExecDestroy),
      DRIVER_ENTRY(cuStreamSynchronize),
      DRIVER_ENTRY(cuStreamSynchronize_ptsz),
      DRIVER_ENTRY(cuStreamQuery),
      DRIVER_ENTRY(cuStreamQuery_ptsz),
      DRIVER_ENTRY(cuStreamWaitEvent),
      DRIVER_ENTRY(cuStreamWaitEvent_ptsz),
      DRIVER_ENTRY(cuStreamAddCallback),
      DRIVER_ENTRY(cuStreamAddCallback_ptsz),
      DRIVER_ENTRY(cuLaunchHostFunc),
      DRIVER_ENTRY(cuLaunchHostFunc_ptsz),
      DRIVER_ENTRY(cuStreamGetFlags),
      DRIVER_ENTRY(cuStreamGetFlags_ptsz),
      DRIVER_ENTRY(cuStreamGetPriority),
      DRIVER_ENTRY(cuStreamGetPriority_ptsz),
      DRIVER_ENTRY(cuStreamGetId),
      DRIVER_ENTRY(cuStreamGetId_ptsz),
      DRIVER_ENTRY(cuStreamBeginCapture_v2),
      DRIVER_ENTRY(cuStreamBeginCapture_v2_ptsz),
      DRIVER_ENTRY(cuStreamEndCapture),
      DRIVER_ENTRY(cuStreamEndCapture_ptsz),
      DRIVER_ENTRY(cuStreamIsCapturing),
      DRIVER_ENTRY(cuStreamIsCapturing_ptsz),
      DRIVER_ENTRY(cuEventRecord),
      DRIVER_ENTRY(cuEventRecord_ptsz),
      DRIVER_ENTRY(cuEventRecordWithFlags),
      DRIVER_ENTRY(cuEventRecordWithFlags_ptsz),
      DRIVER_ENTRY(cuGraphLaunch),
      DRIVER_ENTRY(cuGraphLaunch_ptsz),
      DRIVER_ENTRY(cuGraphUpload),
      DRIVER_ENTRY(cuGraphUpload_ptsz),
  };
  return entries;
}
