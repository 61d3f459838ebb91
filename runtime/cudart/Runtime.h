// The state behind the CUDA runtime replacement: one device (runtime/Device.h: the emulator
// unless PTXVM_DEVICE names another), the program's registered
// fatbins with their kernels and variables, memory, streams (work queues run by device worker
// threads) and events, the error state, and the report. Every exported function enters through
// Api, which serialises calls, applies the sticky error of a faulted kernel, waits for the device
// where the call does, and records the last error.
#pragma once

#include "emulator/Timeline.h"
#include "ptx/Diagnostic.h"
#include "ptx/IR.h"
#include "runtime/Device.h"
#include "runtime/Fatbin.h"
#include "runtime/cudart/Config.h"
#include "runtime/cudart/CudaTypes.h"
#include "runtime/cudart/DeviceLaunches.h"
#include "runtime/cudart/DeviceServices.h"
#include "runtime/cudart/Graph.h"
#include "runtime/cudart/RuntimeApi.h"
#include "runtime/cudart/WorkQueues.h"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cudart {

struct FatbinImage;

/// A __global__ function: the host stub nvcc registered and its PTX name.
struct KernelInfo {
  FatbinImage *image = nullptr;
  std::string name;
  const void *hostFunction = nullptr;
  std::unique_ptr<runtime::Kernel> decoded; // loaded on the device on first launch or query
  int maxDynamicShared = -1;                // cudaFuncAttributeMaxDynamicSharedMemorySize; -1: the default
  int carveout = -1;                        // cudaFuncAttributePreferredSharedMemoryCarveout
  bool driverModule = false;                // a function of a module the driver API loaded (a CUfunction)
};

/// A __device__, __constant__ or __managed__ variable: its host shadow and PTX name.
struct VariableInfo {
  FatbinImage *image = nullptr;
  std::string name;
  uint64_t size = 0;
  bool constant = false;
  void **managedPointer = nullptr; // __managed__: where the host reads the variable's address
};

/// One registered fatbin (a translation unit, or the device-linked program with -rdc=true), or
/// a module the driver API loads (its PTX given as text). Its PTX is extracted and parsed on
/// first use; kernel bodies are parsed when a kernel is decoded.
struct FatbinImage {
  const void *wrapper = nullptr;
  std::string ptxText, ptxName;    // without a wrapper: the PTX and the file name it goes by
  ptx::DiagnosticList diagnostics; // what loading it said (the driver's JIT logs)
  bool loaded = false, failed = false;
  std::unique_ptr<ptx::Module> module;
  std::vector<VariableInfo *> variables;
  std::map<std::string, void *, std::less<>> managedMemory; // host memory of __managed__ variables
};

/// What cudaMalloc and friends handed out.
struct Allocation {
  enum class Kind : uint8_t { Device, Managed, ManagedVariable, Host, Registered };
  Kind kind = Kind::Device;
  uint64_t size = 0;
  unsigned flags = 0;
  /// Device memory of a graph's allocation node: cudaFree hands it back to the graph.
  std::weak_ptr<GraphMemory> graph = {};
  /// Graph memory a launch left allocated after its graph went: still counted as graph memory.
  bool fromGraph = false;
};

/// A CUDA array (cudaArray_t points to one): zeroed device memory of
/// row-major texels, rowPitch = width * texel bytes and slicePitch = rowPitch
/// * height, slices (a 3-D array's depth, or a layered array's layers) one
/// after another. Arrays.cpp makes and checks them.
struct cudaArray {
  uint64_t address = 0;
  cudaChannelFormatDesc desc{};
  emu::TexelFormat format;
  cudaExtent extent{}; // as given: 0 along a dimension the array lacks
  unsigned flags = 0;
  unsigned dimensions = 1; // 1, 2 or 3 (layers apart)
  /// Texels along x and y, and slices: 1 along a dimension the array lacks.
  uint64_t width = 1, height = 1, depth = 1;
  uint64_t layers = 0; // a layered array's layer count (then depth == layers)
  uint64_t rowPitch = 0, slicePitch = 0;
  /// A level of a mipmapped array (cudaGetMipmappedArrayLevel): freed with it, not on its own.
  const cudaMipmappedArray *owner = nullptr;
};

/// A mipmapped array: its levels, each a CUDA array of half the extent of the one before.
struct cudaMipmappedArray {
  std::vector<cudaArray *> levels;
};

/// A texture or surface object: the descriptors it was made from, for the getters.
struct TextureState {
  bool surface = false;
  cudaResourceDesc resource{};
  cudaTextureDesc texture{};
  bool hasView = false;
  cudaResourceViewDesc view{};
};

struct StreamState {
  unsigned flags = 0;
  int priority = 0;
  unsigned long long id = 0;
  std::shared_ptr<Queue> queue;
};

struct EventState {
  unsigned flags = 0;
  bool recorded = false;
  /// The last record: reached once the work issued before it has run; its
  /// time is written by then (shared with the record's queue item).
  QueuePoint point;
  std::shared_ptr<std::chrono::steady_clock::time_point> time;
  /// Recorded in a capturing stream: the capture and the nodes it stands for.
  std::shared_ptr<CaptureSequence> capture;
  std::vector<CUgraphNode_st *> captured;
};

/// The launch configuration <<<...>>> pushes for the stub to pop.
struct CallConfiguration {
  dim3 grid, block;
  size_t sharedMem = 0;
  cudaStream_t stream = nullptr;
};

class Runtime {
public:
  static Runtime &get();
  /// At exit: gives issued launches a moment to end (drainFor), then
  /// flushes device printf output if the runtime exists and no other host
  /// thread is inside it - never waits longer (that thread, or the device
  /// thread, may be in a launch that will not end).
  static void flushIfIdle();

  std::recursive_mutex mutex;
  Config config;
  std::unique_ptr<runtime::Device> device;
  DeviceServices services;
  DeviceLaunches deviceLaunches; // dynamic parallelism (DeviceLaunch.cpp)
  /// PTXVM_TRACE: every launch's warps and barriers, written with the report.
  std::unique_ptr<emu::Timeline> timeline;

  // Registration (Registration.cpp).
  std::vector<std::unique_ptr<FatbinImage>> images;
  std::unordered_map<const void *, std::unique_ptr<KernelInfo>> kernels;     // by host stub
  std::unordered_set<const void *> kernelHandles;                            // the KernelInfo pointers
  std::unordered_map<const void *, std::unique_ptr<VariableInfo>> variables; // by host shadow
  std::unordered_map<const ptx::Module *, FatbinImage *> imageOf;
  FatbinImage *image(void **handle);
  /// Extracts and parses the image's PTX once; false when it has none or it does not parse.
  bool load(FatbinImage &image);
  /// The PTX to run of a parsed fatbin (`linked`: the wrapper of a device-linked program, whose
  /// translation units are linked here) and a file name for it; false after noting why.
  bool ptxOf(const runtime::Fatbin &fatbin, bool linked, size_t index, std::string &text, std::string &name);
  /// The kernel behind a host stub or a cudaKernel_t / cudaFunction_t handle.
  KernelInfo *kernel(const void *function);
  /// The decoded kernel (parsing its body and its callees' on first use); an error otherwise.
  cudaError_t decode(KernelInfo &k);
  /// PTXVM_PASSES over a module just parsed (every body materialized); false
  /// after noting why when a pass fails or the list is malformed.
  bool runPasses(ptx::Module &m);
  /// Where a registered variable lives on the device.
  cudaError_t symbol(const void *hostVariable, VariableInfo *&info, runtime::Symbol &where);

  // Memory (Memory.cpp).
  std::map<uint64_t, Allocation> allocations; // by address
  /// The allocation containing [address, address+bytes), if any.
  const Allocation *allocationAt(uint64_t address, uint64_t bytes, uint64_t *base = nullptr) const;
  uint64_t totalMemory() const;

  // CUDA arrays (Arrays.cpp), texture and surface objects (Textures.cpp).
  std::map<const cudaArray *, std::unique_ptr<cudaArray>> arrays;
  std::map<const cudaMipmappedArray *, std::unique_ptr<cudaMipmappedArray>> mipmaps;
  std::map<uint64_t, TextureState> textures; // by handle
  /// The array `handle` names, or null.
  cudaArray *array(const cudaArray *handle);

  // Streams and events (Streams.cpp).
  std::map<cudaStream_t, StreamState> streams;
  std::map<cudaEvent_t, EventState> events;
  unsigned long long nextStreamId = 16;
  bool validStream(cudaStream_t s) const;
  WorkQueues work;
  /// The queue behind a valid stream: the legacy default stream for null and
  /// cudaStreamLegacy, the calling thread's own for cudaStreamPerThread.
  std::shared_ptr<Queue> queueOf(cudaStream_t s);
  /// Issues `job` to a valid stream (WorkQueues::submit); when the stream is
  /// capturing, records it as a node of the capture's graph instead (the
  /// point returned is then reached).
  QueuePoint submit(cudaStream_t s, std::function<void()> job, std::vector<QueuePoint> after = {},
                    WorkInfo info = {});
  /// Why work may not be issued to `s` now (a capture forbids it), or success.
  cudaError_t mayIssue(cudaStream_t s);
  /// Why the host may not wait for `s` now (it is capturing), or success.
  cudaError_t mayWaitFor(cudaStream_t s);
  /// Why a call that synchronises the device may not run now (a capture in
  /// global mode, or this thread's thread-local one), or success; the
  /// capture is invalidated, as on a GPU.
  cudaError_t maySynchronize();

  // Graphs and stream capture (Graphs.cpp).
  GraphMemoryUse graphMemoryUse;
  std::map<cudaGraph_t, std::unique_ptr<CUgraph_st>> graphs;
  std::map<cudaGraphExec_t, std::unique_ptr<CUgraphExec_st>> graphExecs;
  std::map<const Queue *, StreamCapture> captures;
  unsigned long long nextCaptureId = 1;
  /// The capture `s` takes part in, or null.
  StreamCapture *captureOf(cudaStream_t s);
  /// The kernel fault of the context, if any: pending or sticky. Work
  /// issued behind a fault does not run (the GPU's context is lost).
  cudaError_t fault() const {
    cudaError_t s = sticky.load(std::memory_order_acquire);
    return s != cudaSuccess ? s : pendingFault.load(std::memory_order_acquire);
  }

  // Device state (Device.cpp).
  unsigned deviceFlags = 0;
  cudaFuncCache cacheConfig = cudaFuncCachePreferNone;
  cudaSharedMemConfig sharedMemConfig = cudaSharedMemBankSizeFourByte;
  uint64_t stackSize = 1024;

  // Errors (Errors.cpp).
  // A kernel fault is pending until a call that waits for the device sees
  // it (the launch itself succeeds, as kernels run asynchronously on a GPU);
  // from then on it is sticky: every call returns it. Written by the
  // device's worker threads (a fault) and the host (a reset).
  std::atomic<cudaError_t> pendingFault{cudaSuccess};
  std::atomic<cudaError_t> sticky{cudaSuccess};
  /// Records a fault of stream work; the first one stays.
  void raiseFault(cudaError_t e) {
    cudaError_t none = cudaSuccess;
    pendingFault.compare_exchange_strong(none, e);
  }
  bool stickyAnnounced = false;
  unsigned apiErrorsPrinted = 0;
  /// Prints `ptxvm: NAME is not supported` once per name.
  cudaError_t unsupported(const char *name);

  // Launches (Launch.cpp).
  /// Checks a launch as a GPU does and makes the work that runs it (on a
  /// stream, or as a graph's kernel node); `name` is the kernel's, demangled.
  /// `updatable`: a device-updatable graph node's state, whose parameters, grid and enabling the
  /// work reads each time it runs.
  cudaError_t prepareLaunch(const char *api, const void *function, dim3 grid, dim3 block, void **args,
                            size_t sharedMem, bool cooperative, dim3 cluster, std::function<void()> &work,
                            std::string &name, std::shared_ptr<DeviceUpdatableNode> updatable = nullptr);
  /// Runs grid `k` (its LaunchConfig but the tag) on the device, then the grids its threads
  /// launched, depth first: a grid completes after its children, as on a GPU. Records the launch
  /// in the report and a fault as pending; false when the grid or a child failed.
  bool runGrid(const KernelInfo &k, runtime::LaunchConfig launch, const std::string &api);
  /// `cluster`: the launch's cluster shape (cudaLaunchAttributeClusterDimension), 1x1x1 for none.
  cudaError_t launch(const char *api, const void *function, dim3 grid, dim3 block, void **args,
                     size_t sharedMem, cudaStream_t stream, bool cooperative, dim3 cluster = dim3{1, 1, 1});

  /// Flushes device printf output (CUDA's synchronisation points).
  void synchronize();
  /// Destroys the device's state (cudaDeviceReset): memory, decoded kernels, streams, events,
  /// the driver API's modules.
  void reset();
  /// At exit: flushes printf output, writes the report, prints the error summary.
  void finish();

  // The report (PTXVM_REPORT), written by host calls and stream work alike
  // under reportMutex.
  std::mutex reportMutex;
  std::vector<boost::json::object> launchReports; // launchJson (LaunchReport.h)
  ptx::DiagnosticList reportDiagnostics;
  size_t errorsReported = 0;
  /// Prints a diagnostic that has no launch (a PTX parse error, an API problem) and records it.
  void note(ptx::Diagnostic d);

  /// Waits for the work of every stream issued so far for at most `limit`;
  /// false if some is still queued or running then. For exit paths: what
  /// finished kernels printed still comes out, a kernel that will not end
  /// is abandoned, as on a GPU.
  bool waitForDevice(std::chrono::milliseconds limit);

  // Dynamic parallelism (DeviceLaunch.cpp): the kernels device code may launch, decoded with the
  // kernel that names them (on the host, under the lock), and the image each running grid came
  // from; both read by device worker threads under deviceKernelsMutex.
  std::mutex deviceKernelsMutex;
  std::map<std::pair<const FatbinImage *, std::string>, std::unique_ptr<KernelInfo>> deviceKernels;
  std::map<uint64_t, const FatbinImage *> gridImages; // by launch tag
  /// Decodes the kernels `k`'s code takes the address of (what it may launch), and theirs.
  void prepareDeviceLaunches(const KernelInfo &k);
  /// What a device-side launch of launch `tag` names by `address`.
  std::optional<DeviceKernelShape> deviceKernel(uint64_t tag, uint64_t address);

  /// Launches run one at a time on a device that cannot run several at once.
  std::mutex serialLaunches;
  std::atomic<uint64_t> nextLaunchTag{1};

private:
  Runtime();
  void createDevice();
  bool finished_ = false;
  std::shared_ptr<Queue> legacy_;
  std::map<std::thread::id, std::shared_ptr<Queue>> perThread_; // per-thread default streams
};

/// Makes fatal signals (where the program keeps their default action) flush
/// printf output and write the report before the process dies.
void installSignalHandlers();

/// The entry of every exported function: holds the runtime's lock, and knows the sticky error.
class Api {
public:
  /// How a call meets a kernel fault: most return the sticky error; calls
  /// that wait for the whole device (cudaDeviceSynchronize, frees) do so
  /// first and also observe a pending one; a few (versions, errors) ignore
  /// both. Calls that wait for part of the device use wait().
  enum Sticky { Blocks, Synchronizes, Ignores };
  explicit Api(const char *name, Sticky sticky = Blocks);
  ~Api();
  Api(const Api &) = delete;
  Api &operator=(const Api &) = delete;
  Runtime &rt;
  /// A kernel fault happened before this call: it must return sticky().
  bool blocked() const { return blocked_; }
  cudaError_t sticky();
  /// Waits until every point is reached, without holding the runtime's lock,
  /// then observes a pending fault (blocked() may now hold). False, without
  /// waiting, on a stream's worker thread: a host function or callback that
  /// waited for the device could wait for itself.
  bool wait(const std::vector<QueuePoint> &points);
  /// Makes a pending fault sticky: the call has looked at the device.
  void observe();
  /// Whether this call may wait for the device (see wait()).
  static bool mayWait() { return WorkQueues::current() == nullptr; }
  /// Records `e` as the last error (unless success) and returns it.
  cudaError_t operator()(cudaError_t e);
  const char *name() const { return name_; }

private:
  std::unique_lock<std::recursive_mutex> lock_;
  const char *name_;
  bool blocked_ = false;
};

/// Device memory (cudaMalloc): an allocation of the device, recorded in rt.allocations; null for
/// size 0, cudaErrorMemoryAllocation beyond what the device has left.
cudaError_t deviceAlloc(Runtime &rt, void **p, size_t size);

/// The texel format a channel descriptor asks for (Arrays.cpp): 1, 2 or 4 channels of one width
/// (8, 16 or 32 bits, floats 16 or 32); false for any other (cudaErrorInvalidChannelDescriptor).
bool texelFormat(const cudaChannelFormatDesc &d, emu::TexelFormat &out);

/// What cudaGetDeviceProperties reports (Device.cpp).
void fillProperties(cudaDeviceProp &p, uint64_t totalMemory);
/// What cudaDeviceGetAttribute reports for a device with properties `p`; false for an attribute
/// that does not exist.
bool deviceAttribute(cudaDeviceAttr a, const cudaDeviceProp &p, int &v);

/// Whether `edgeData` (n entries, or none) asks only for plain full dependencies: programmatic
/// edges (port and type fields) are not served.
bool plainEdges(const cudaGraphEdgeData *edgeData, size_t n);

/// What a launch's attributes ask for that the runtime serves: a cooperative launch, a cluster shape
/// (the others change nothing where every CTA runs as issued).
void readLaunchAttributes(const cudaLaunchAttribute *attributes, unsigned count, bool &cooperative,
                          dim3 &cluster);

/// The largest dynamic shared memory a launch of a decoded kernel may ask
/// for: its cudaFuncAttributeMaxDynamicSharedMemorySize, or what fits in 48 KiB.
uint64_t maxDynamicShared(const KernelInfo &k);
/// Registers per thread assumed for a decoded kernel (its .maxnreg, or a typical count).
int registersPerThread(const KernelInfo &k);
/// Blocks of a decoded kernel resident on one multiprocessor (occupancy).
int activeBlocksPerSm(const KernelInfo &k, int blockSize, size_t dynamicShared);

/// The stream a per-thread form (the _ptsz and _ptds calls of programs built
/// with --default-stream per-thread) means: null is the calling thread's own
/// default stream.
inline cudaStream_t perThreadDefault(cudaStream_t s) { return s == nullptr ? cudaStreamPerThread : s; }

/// The calling host thread's last error (cudaGetLastError).
cudaError_t &lastError();
const char *errorName(cudaError_t e);
const char *errorString(cudaError_t e);
/// The error code named `name` ("cudaErrorIllegalAddress"), or cudaErrorLaunchFailure.
cudaError_t errorNamed(std::string_view name);

} // namespace cudart
