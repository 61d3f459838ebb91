// The driver API's initialisation, versions, errors, devices and contexts. ptxvm has one device
// (ordinal 0) and one state behind it: the primary context and the contexts cuCtxCreate makes
// are handles onto that state, each current per host thread as the driver keeps them (a stack per
// thread), so allocations, modules and streams of one are usable from another.
#include "runtime/cudart/Driver.h"
#include "runtime/cudart/Sanitizer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <set>

namespace cudart {

namespace {

std::atomic<bool> &initialized() {
  static std::atomic<bool> flag{false};
  return flag;
}

/// The primary context and the created ones (live or destroyed: a handle stays recognisable).
struct Contexts {
  std::mutex mutex; // for everything but the atomics
  CUctx_st primary{true, false, 0, 1};
  unsigned primaryRetains = 0;
  std::atomic<bool> primaryActive{false};
  /// The runtime API has used the primary context: it holds a reference of its own (as NVIDIA's
  /// runtime does), so the driver's last release does not destroy it.
  std::atomic<bool> runtimeHolds{false};
  std::set<CUctx_st *> created;
  unsigned long long nextId = 2;
};
Contexts &contexts() {
  static Contexts c;
  return c;
}

std::vector<CUcontext> &contextStack() {
  thread_local std::vector<CUcontext> stack;
  return stack;
}

unsigned &driverDepth() {
  thread_local unsigned depth = 0;
  return depth;
}

/// The device ordinal a call names: ptxvm has device 0 only.
bool validDevice(CUdevice d) { return d == 0; }

} // namespace

// ---- Results -------------------------------------------------------------------------------------

CUresult toDriver(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return CUDA_SUCCESS;
  case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
  case cudaErrorInitializationError: return CUDA_ERROR_NOT_INITIALIZED;
  case cudaErrorCudartUnloading: return CUDA_ERROR_DEINITIALIZED;
  case cudaErrorInvalidSymbol: return CUDA_ERROR_NOT_FOUND;
  case cudaErrorInvalidDeviceFunction: return CUDA_ERROR_INVALID_HANDLE;
  case cudaErrorMissingConfiguration:
  case cudaErrorInvalidConfiguration:
  case cudaErrorInvalidPitchValue:
  case cudaErrorInvalidHostPointer:
  case cudaErrorInvalidDevicePointer:
  case cudaErrorInvalidMemcpyDirection:
  case cudaErrorInvalidChannelDescriptor:
  case cudaErrorInvalidTexture: return CUDA_ERROR_INVALID_VALUE;
  default:
    // The other codes the two APIs share have one value (CUDA 11 aligned them).
    return driverErrorName(static_cast<CUresult>(e)) ? static_cast<CUresult>(e) : CUDA_ERROR_UNKNOWN;
  }
}

cudaError_t toRuntime(CUresult e) {
  switch (e) {
  case CUDA_SUCCESS: return cudaSuccess;
  case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
  case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
  case CUDA_ERROR_DEINITIALIZED: return cudaErrorCudartUnloading;
  default: return static_cast<cudaError_t>(e);
  }
}

const char *driverErrorName(CUresult e) {
  switch (e) {
#define CUDA_DRIVER_ERROR(name, value, message)                                                              \
  case name:                                                                                                 \
    return #name;
#include "runtime/cudart/DriverErrors.def"
#undef CUDA_DRIVER_ERROR
  }
  return nullptr;
}

const char *driverErrorString(CUresult e) {
  switch (e) {
#define CUDA_DRIVER_ERROR(name, value, message)                                                              \
  case name:                                                                                                 \
    return message[0] ? message : errorString(static_cast<cudaError_t>(value));
#include "runtime/cudart/DriverErrors.def"
#undef CUDA_DRIVER_ERROR
  }
  return nullptr;
}

// ---- DriverCall ----------------------------------------------------------------------------------

DriverCall::DriverCall(const char *name, Needs needs, bool blockedByFault)
    : rt_(Runtime::get()), name_(name) {
  ++driverDepth();
  if (needs == Nothing) return;
  if (!initialized()) {
    status_ = (*this)(CUDA_ERROR_NOT_INITIALIZED);
    return;
  }
  if (needs == Context) {
    CUcontext c = currentContext();
    if (CUresult r = c ? contextStatus(c) : CUDA_ERROR_INVALID_CONTEXT) {
      status_ = (*this)(r);
      return;
    }
  }
  if (blockedByFault)
    if (cudaError_t e = rt_.sticky.load(); e != cudaSuccess) status_ = (*this)(e);
}

DriverCall::~DriverCall() { --driverDepth(); }

bool DriverCall::active() { return driverDepth() > 0; }

CUresult DriverCall::operator()(CUresult e) {
  if (e == CUDA_SUCCESS) return e;
  // As compute-sanitizer does: every failing call is named, except the
  // expected answers of queries and what was said already.
  constexpr unsigned kMaxPrinted = 100;
  std::lock_guard lock(rt_.mutex);
  Runtime &rt = rt_;
  bool stickyFault = rt.sticky != cudaSuccess && toDriver(rt.sticky) == e;
  if (e != CUDA_ERROR_NOT_READY && e != CUDA_ERROR_NOT_SUPPORTED && rt.apiErrorsPrinted < kMaxPrinted &&
      !(stickyFault && rt.stickyAnnounced)) {
    ++rt.apiErrorsPrinted;
    if (stickyFault) rt.stickyAnnounced = true;
    const char *message = driverErrorString(e);
    std::fputs(renderApiError(name_, e, driverErrorName(e) ? driverErrorName(e) : "CUDA_ERROR_UNKNOWN",
                              message ? message : "unknown error")
                   .c_str(),
               stderr);
  }
  return e;
}

// ---- Contexts ------------------------------------------------------------------------------------

CUcontext currentContext() {
  std::vector<CUcontext> &stack = contextStack();
  return stack.empty() ? nullptr : stack.back();
}

void runtimeEntered() {
  initialized() = true;
  Contexts &all = contexts();
  if (!all.runtimeHolds.exchange(true)) {
    std::lock_guard lock(all.mutex);
    all.primary.destroyed = false;
    all.primaryActive = true;
  }
  std::vector<CUcontext> &stack = contextStack();
  if (stack.empty()) stack.push_back(&all.primary);
}

CUresult contextStatus(CUcontext c) {
  std::lock_guard lock(contexts().mutex);
  if (!c || (c != &contexts().primary && !contexts().created.count(c))) return CUDA_ERROR_INVALID_CONTEXT;
  return c->destroyed ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_SUCCESS;
}

} // namespace cudart

using namespace cudart;

// ---- Initialisation, versions, errors -----------------------------------------------------------

CUDA_DRIVER CUresult cuInit(unsigned int flags) {
  DriverCall call("cuInit", DriverCall::Nothing, false);
  if (flags != 0) return call(CUDA_ERROR_INVALID_VALUE);
  if (!call.rt().device) return call(CUDA_ERROR_NO_DEVICE);
  initialized() = true;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDriverGetVersion(int *version) {
  DriverCall call("cuDriverGetVersion", DriverCall::Nothing, false);
  if (!version) return call(CUDA_ERROR_INVALID_VALUE);
  *version = 13000;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuGetErrorName(CUresult error, const char **name) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  *name = driverErrorName(error);
  return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUDA_DRIVER CUresult cuGetErrorString(CUresult error, const char **text) {
  if (!text) return CUDA_ERROR_INVALID_VALUE;
  *text = driverErrorString(error);
  return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// ---- Devices -------------------------------------------------------------------------------------

CUDA_DRIVER CUresult cuDeviceGetCount(int *count) {
  DriverCall call("cuDeviceGetCount", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!count) return call(CUDA_ERROR_INVALID_VALUE);
  *count = call.rt().device ? 1 : 0;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  DriverCall call("cuDeviceGet", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!device) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(ordinal) || !call.rt().device) return call(CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  DriverCall call("cuDeviceGetName", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!name || length <= 0) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp p{};
  fillProperties(p, call.rt().totalMemory());
  std::strncpy(name, p.name, static_cast<size_t>(length) - 1);
  name[length - 1] = 0;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice device) {
  DriverCall call("cuDeviceGetUuid", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!uuid) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp p{};
  fillProperties(p, call.rt().totalMemory());
  static_assert(sizeof p.uuid == sizeof *uuid);
  std::memcpy(uuid, &p.uuid, sizeof *uuid);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice device) {
  return cuDeviceGetUuid(uuid, device);
}

CUDA_DRIVER CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  DriverCall call("cuDeviceTotalMem_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!bytes) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  *bytes = call.rt().totalMemory();
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  DriverCall call("cuDeviceGetAttribute", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  // The driver's attribute numbers are the runtime's.
  return call(cudaDeviceGetAttribute(value, static_cast<cudaDeviceAttr>(attribute), device));
}

CUDA_DRIVER CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice device) {
  DriverCall call("cuDeviceComputeCapability", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!major || !minor) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp p{};
  fillProperties(p, call.rt().totalMemory());
  *major = p.major;
  *minor = p.minor;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice device) {
  DriverCall call("cuDeviceGetProperties", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!prop) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp p{};
  fillProperties(p, call.rt().totalMemory());
  prop->maxThreadsPerBlock = p.maxThreadsPerBlock;
  std::copy(p.maxThreadsDim, p.maxThreadsDim + 3, prop->maxThreadsDim);
  std::copy(p.maxGridSize, p.maxGridSize + 3, prop->maxGridSize);
  prop->sharedMemPerBlock = static_cast<int>(p.sharedMemPerBlock);
  prop->totalConstantMemory = static_cast<int>(p.totalConstMem);
  prop->SIMDWidth = p.warpSize;
  prop->memPitch = static_cast<int>(std::min<size_t>(p.memPitch, 0x7fffffff));
  prop->regsPerBlock = p.regsPerBlock;
  int clock = 0;
  cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
  prop->clockRate = clock;
  prop->textureAlign = static_cast<int>(p.textureAlignment);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDeviceGetPCIBusId(char *busId, int length, CUdevice device) {
  DriverCall call("cuDeviceGetPCIBusId", DriverCall::Init, false);
  if (call.status()) return call.status();
  return call(cudaDeviceGetPCIBusId(busId, length, device));
}

CUDA_DRIVER CUresult cuDeviceGetByPCIBusId(CUdevice *device, const char *busId) {
  DriverCall call("cuDeviceGetByPCIBusId", DriverCall::Init, false);
  if (call.status()) return call.status();
  return call(cudaDeviceGetByPCIBusId(device, busId));
}

CUDA_DRIVER CUresult cuDeviceCanAccessPeer(int *canAccess, CUdevice device, CUdevice peer) {
  DriverCall call("cuDeviceCanAccessPeer", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!canAccess) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device) || !validDevice(peer)) return call(CUDA_ERROR_INVALID_DEVICE);
  *canAccess = 0;
  return CUDA_SUCCESS;
}

// ---- Primary context -----------------------------------------------------------------------------

CUDA_DRIVER CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  DriverCall call("cuDevicePrimaryCtxRetain", DriverCall::Init, false);
  if (call.status()) return call.status();
  std::lock_guard lock(contexts().mutex);
  if (!context) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  ++contexts().primaryRetains;
  contexts().primaryActive = true;
  contexts().primary.destroyed = false; // a released primary context is made anew
  *context = &contexts().primary;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  DriverCall call("cuDevicePrimaryCtxRelease_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  Contexts &all = contexts();
  bool resetState = false;
  {
    std::lock_guard lock(all.mutex);
    if (all.primaryRetains == 0) return call(CUDA_ERROR_INVALID_CONTEXT);
    // The last reference destroys the primary context (the runtime, once it
    // has run, holds one of its own); its memory and modules go with it
    // unless a created context, which shares ptxvm's one state, lives on.
    if (--all.primaryRetains > 0 || all.runtimeHolds) return CUDA_SUCCESS;
    all.primary.destroyed = true;
    all.primaryActive = false;
    resetState =
        std::none_of(all.created.begin(), all.created.end(), [](CUctx_st *c) { return !c->destroyed; });
  }
  return resetState ? call(cudaDeviceReset()) : CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned int flags) {
  DriverCall call("cuDevicePrimaryCtxSetFlags_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  std::lock_guard lock(contexts().mutex);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  contexts().primary.flags = flags;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int *flags, int *active) {
  DriverCall call("cuDevicePrimaryCtxGetState", DriverCall::Init, false);
  if (call.status()) return call.status();
  std::lock_guard lock(contexts().mutex);
  if (!flags || !active) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  *flags = contexts().primary.flags;
  *active = contexts().primaryActive ? 1 : 0;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  DriverCall call("cuDevicePrimaryCtxReset_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  return call(cudaDeviceReset());
}

// ---- Contexts ------------------------------------------------------------------------------------

namespace {
CUresult createContext(const char *name, CUcontext *context, unsigned flags, CUdevice device) {
  DriverCall call(name, DriverCall::Init, false);
  if (call.status()) return call.status();
  std::lock_guard lock(contexts().mutex);
  if (!context) return call(CUDA_ERROR_INVALID_VALUE);
  if (!validDevice(device)) return call(CUDA_ERROR_INVALID_DEVICE);
  Contexts &all = contexts();
  auto *c = new CUctx_st{false, false, flags, all.nextId++};
  all.created.insert(c);
  contextStack().push_back(c); // the new context is current
  *context = c;
  return CUDA_SUCCESS;
}
} // namespace

CUDA_DRIVER CUresult cuCtxCreate_v2(CUcontext *context, unsigned int flags, CUdevice device) {
  return createContext("cuCtxCreate_v2", context, flags, device);
}

CUDA_DRIVER CUresult cuCtxCreate_v3(CUcontext *context, void *affinity, int numAffinity, unsigned int flags,
                                    CUdevice device) {
  if (affinity && numAffinity > 0) {
    DriverCall call("cuCtxCreate_v3", DriverCall::Nothing, false);
    return call(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
  }
  return createContext("cuCtxCreate_v3", context, flags, device);
}

CUDA_DRIVER CUresult cuCtxCreate_v4(CUcontext *context, CUctxCreateParams *params, unsigned int flags,
                                    CUdevice device) {
  if (params && ((params->execAffinityParams && params->numExecAffinityParams > 0) || params->cigParams)) {
    DriverCall call("cuCtxCreate_v4", DriverCall::Nothing, false);
    return call(CUDA_ERROR_NOT_SUPPORTED);
  }
  return createContext("cuCtxCreate_v4", context, flags, device);
}

CUDA_DRIVER CUresult cuCtxDestroy_v2(CUcontext context) {
  DriverCall call("cuCtxDestroy_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (CUresult r = contextStatus(context)) return call(r);
  if (context->primary) return call(CUDA_ERROR_INVALID_CONTEXT);
  // Its work ends first; its memory and modules stay, shared with every
  // context of the device (ptxvm keeps one state per device).
  if (Api::mayWait()) call.rt().work.wait(call.rt().work.pending());
  std::lock_guard lock(contexts().mutex);
  context->destroyed = true;
  std::vector<CUcontext> &stack = contextStack();
  std::erase(stack, context);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxPushCurrent_v2(CUcontext context) {
  DriverCall call("cuCtxPushCurrent_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (CUresult r = contextStatus(context)) return call(r);
  contextStack().push_back(context);
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  DriverCall call("cuCtxPopCurrent_v2", DriverCall::Init, false);
  if (call.status()) return call.status();
  std::vector<CUcontext> &stack = contextStack();
  if (stack.empty()) return call(CUDA_ERROR_INVALID_CONTEXT);
  if (context) *context = stack.back();
  stack.pop_back();
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxSetCurrent(CUcontext context) {
  DriverCall call("cuCtxSetCurrent", DriverCall::Init, false);
  if (call.status()) return call.status();
  std::vector<CUcontext> &stack = contextStack();
  if (!context) {
    if (!stack.empty()) stack.pop_back();
    return CUDA_SUCCESS;
  }
  if (CUresult r = contextStatus(context)) return call(r);
  if (stack.empty())
    stack.push_back(context);
  else
    stack.back() = context;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxGetCurrent(CUcontext *context) {
  DriverCall call("cuCtxGetCurrent", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!context) return call(CUDA_ERROR_INVALID_VALUE);
  *context = currentContext();
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxGetDevice(CUdevice *device) {
  DriverCall call("cuCtxGetDevice", DriverCall::Context, false);
  if (call.status()) return call.status();
  if (!device) return call(CUDA_ERROR_INVALID_VALUE);
  *device = 0;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxGetFlags(unsigned int *flags) {
  DriverCall call("cuCtxGetFlags", DriverCall::Context, false);
  if (call.status()) return call.status();
  std::lock_guard lock(contexts().mutex);
  if (!flags) return call(CUDA_ERROR_INVALID_VALUE);
  *flags = currentContext()->flags;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxSetFlags(unsigned int flags) {
  DriverCall call("cuCtxSetFlags", DriverCall::Context, false);
  if (call.status()) return call.status();
  std::lock_guard lock(contexts().mutex);
  currentContext()->flags = flags;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxGetId(CUcontext context, unsigned long long *id) {
  DriverCall call("cuCtxGetId", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!context) context = currentContext();
  if (CUresult r = contextStatus(context)) return call(r);
  if (!id) return call(CUDA_ERROR_INVALID_VALUE);
  *id = context->id;
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxGetApiVersion(CUcontext context, unsigned int *version) {
  DriverCall call("cuCtxGetApiVersion", DriverCall::Init, false);
  if (call.status()) return call.status();
  if (!context) context = currentContext();
  if (CUresult r = contextStatus(context)) return call(r);
  if (!version) return call(CUDA_ERROR_INVALID_VALUE);
  *version = 3020; // the context API version every current driver reports
  return CUDA_SUCCESS;
}

CUDA_DRIVER CUresult cuCtxSynchronize() {
  DriverCall call("cuCtxSynchronize", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaDeviceSynchronize());
}

CUDA_DRIVER CUresult cuCtxSetLimit(int limit, size_t value) {
  DriverCall call("cuCtxSetLimit", DriverCall::Context, false);
  if (call.status()) return call.status();
  CUresult r = toDriver(cudaDeviceSetLimit(static_cast<cudaLimit>(limit), value));
  return call(r == CUDA_ERROR_INVALID_VALUE ? CUDA_ERROR_UNSUPPORTED_LIMIT : r);
}

CUDA_DRIVER CUresult cuCtxGetLimit(size_t *value, int limit) {
  DriverCall call("cuCtxGetLimit", DriverCall::Context, false);
  if (call.status()) return call.status();
  if (!value) return call(CUDA_ERROR_INVALID_VALUE);
  CUresult r = toDriver(cudaDeviceGetLimit(value, static_cast<cudaLimit>(limit)));
  return call(r == CUDA_ERROR_INVALID_VALUE ? CUDA_ERROR_UNSUPPORTED_LIMIT : r);
}

CUDA_DRIVER CUresult cuCtxGetCacheConfig(int *config) {
  DriverCall call("cuCtxGetCacheConfig", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaDeviceGetCacheConfig(reinterpret_cast<cudaFuncCache *>(config)));
}

CUDA_DRIVER CUresult cuCtxSetCacheConfig(int config) {
  DriverCall call("cuCtxSetCacheConfig", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(config)));
}

CUDA_DRIVER CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
  DriverCall call("cuCtxGetStreamPriorityRange", DriverCall::Context, false);
  if (call.status()) return call.status();
  return call(cudaDeviceGetStreamPriorityRange(least, greatest));
}

std::span<const DriverEntry> cudart::contextEntries() {
  static const DriverEntry entries[] = {
      DRIVER_ENTRY(cuInit),
      DRIVER_ENTRY(cuDriverGetVersion),
      DRIVER_ENTRY(cuGetErrorName),
      DRIVER_ENTRY(cuGetErrorString),
      DRIVER_ENTRY(cuDeviceGetCount),
      DRIVER_ENTRY(cuDeviceGet),
      DRIVER_ENTRY(cuDeviceGetName),
      DRIVER_ENTRY(cuDeviceGetUuid),
      DRIVER_ENTRY(cuDeviceGetUuid_v2),
      DRIVER_ENTRY(cuDeviceTotalMem_v2),
      DRIVER_ENTRY(cuDeviceGetAttribute),
      DRIVER_ENTRY(cuDeviceComputeCapability),
      DRIVER_ENTRY(cuDeviceGetProperties),
      DRIVER_ENTRY(cuDeviceGetPCIBusId),
      DRIVER_ENTRY(cuDeviceGetByPCIBusId),
      DRIVER_ENTRY(cuDeviceCanAccessPeer),
      DRIVER_ENTRY(cuDevicePrimaryCtxRetain),
      DRIVER_ENTRY(cuDevicePrimaryCtxRelease_v2),
      DRIVER_ENTRY(cuDevicePrimaryCtxSetFlags_v2),
      DRIVER_ENTRY(cuDevicePrimaryCtxGetState),
      DRIVER_ENTRY(cuDevicePrimaryCtxReset_v2),
      DRIVER_ENTRY(cuCtxCreate_v2),
      DRIVER_ENTRY(cuCtxCreate_v3),
      DRIVER_ENTRY(cuCtxCreate_v4),
      DRIVER_ENTRY(cuCtxDestroy_v2),
      DRIVER_ENTRY(cuCtxPushCurrent_v2),
      DRIVER_ENTRY(cuCtxPopCurrent_v2),
      DRIVER_ENTRY(cuCtxSetCurrent),
      DRIVER_ENTRY(cuCtxGetCurrent),
      DRIVER_ENTRY(cuCtxGetDevice),
      DRIVER_ENTRY(cuCtxGetFlags),
      DRIVER_ENTRY(cuCtxSetFlags),
      DRIVER_ENTRY(cuCtxGetId),
      DRIVER_ENTRY(cuCtxGetApiVersion),
      DRIVER_ENTRY(cuCtxSynchronize),
      DRIVER_ENTRY(cuCtxSetLimit),
      DRIVER_ENTRY(cuCtxGetLimit),
      DRIVER_ENTRY(cuCtxGetCacheConfig),
      DRIVER_ENTRY(cuCtxSetCacheConfig),
      DRIVER_ENTRY(cuCtxGetStreamPriorityRange),
  };
  return entries;
}
