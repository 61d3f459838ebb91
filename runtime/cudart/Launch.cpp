// Kernel launches: the <<<...>>> path nvcc 13 emits (__cudaPushCallConfiguration, then the stub's
// __cudaPopCallConfiguration, __cudaGetKernel and __cudaLaunchKernel), and cudaLaunchKernel,
// cudaLaunchCooperativeKernel and cudaLaunchKernelExC for code that calls them. A launch checks
// its configuration as a GPU does, lays the arguments out per the PTX signature and is issued to
// its stream (Runtime::submit): it runs on the stream's worker thread, in stream order, while the
// host goes on. A kernel that faults makes the launch succeed and the calls that see it (the
// synchronising ones first) return the fault, as on a GPU; work behind it does not run.
#include "runtime/cudart/LaunchReport.h"
#include "runtime/cudart/Limits.h"
#include "runtime/cudart/Runtime.h"
#include "runtime/cudart/Sanitizer.h"

#include <cstring>

namespace cudart {

namespace {

std::vector<CallConfiguration> &callStack() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

} // namespace

cudaError_t Runtime::launch(const char *api, const void *function, dim3 grid, dim3 block, void **args,
                            size_t sharedMem, cudaStream_t stream, bool cooperative, dim3 cluster) {
  if (!validStream(stream)) return cudaErrorInvalidResourceHandle;
  if (cudaError_t e = mayIssue(stream)) return e;
  std::function<void()> work;
  std::string name;
  if (cudaError_t e =
          prepareLaunch(api, function, grid, block, args, sharedMem, cooperative, cluster, work, name))
    return e;
  // Behind a faulted kernel nothing runs: the GPU's context is lost.
  if (fault() != cudaSuccess) return cudaSuccess;
  submit(stream, std::move(work), {}, {cudaGraphNodeTypeKernel, std::move(name)});
  return cudaSuccess;
}

cudaError_t Runtime::prepareLaunch(const char *api, const void *function, dim3 grid, dim3 block, void **args,
                                   size_t sharedMem, bool cooperative, dim3 cluster,
                                   std::function<void()> &work, std::string &name,
                                   std::shared_ptr<DeviceUpdatableNode> updatable) {
  KernelInfo *k = kernel(function);
  if (!k) return cudaErrorInvalidDeviceFunction;
  uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (!block.x || !block.y || !block.z || !grid.x || !grid.y || !grid.z ||
      block.x > limits::kMaxBlockDim[0] || block.y > limits::kMaxBlockDim[1] ||
      block.z > limits::kMaxBlockDim[2] || threads > limits::kMaxThreadsPerBlock ||
      grid.x > limits::kMaxGridDim[0] || grid.y > limits::kMaxGridDim[1] || grid.z > limits::kMaxGridDim[2])
    return cudaErrorInvalidConfiguration;
  if (cudaError_t e = decode(*k)) return e;
  const runtime::Kernel &code = *k->decoded;
  const runtime::KernelAttributes &attributes = code.attributes();
  // Launch bounds (__launch_bounds__, .maxntid / .reqntid).
  for (const ptx::FunctionDirective &d : code.function().directives) {
    uint64_t product = 1;
    for (uint32_t v : d.values) product *= v;
    // A block larger than the kernel allows is "too many resources", as when
    // its registers do not fit.
    if (d.kind == ptx::DirectiveKind::MaxNTid && threads > product) return cudaErrorLaunchOutOfResources;
    if (d.kind == ptx::DirectiveKind::ReqNCtaPerCluster) { // __cluster_dims__
      uint32_t shape[3] = {1, 1, 1};
      for (size_t i = 0; i < d.values.size() && i < 3; ++i) shape[i] = std::max(d.values[i], 1u);
      if (grid.x % shape[0] || grid.y % shape[1] || grid.z % shape[2]) return cudaErrorInvalidClusterSize;
    }
    if (d.kind == ptx::DirectiveKind::ReqNTid) {
      uint32_t want[3] = {1, 1, 1};
      for (size_t i = 0; i < d.values.size() && i < 3; ++i) want[i] = d.values[i];
      if (block.x != want[0] || block.y != want[1] || block.z != want[2]) return cudaErrorInvalidValue;
    }
  }
  // Clusters: at most 8 CTAs (the portable size), and whole clusters.
  if (!cluster.x || !cluster.y || !cluster.z || uint64_t{cluster.x} * cluster.y * cluster.z > 8 ||
      grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    return cudaErrorInvalidClusterSize;
  if (sharedMem > maxDynamicShared(*k) || attributes.staticShared + sharedMem > limits::kSharedPerBlockOptin)
    return cudaErrorInvalidValue;
  if (cooperative) {
    uint64_t resident = static_cast<uint64_t>(activeBlocksPerSm(*k, static_cast<int>(threads), sharedMem)) *
                        limits::kMultiprocessors;
    if (uint64_t{grid.x} * grid.y * grid.z > resident) return cudaErrorCooperativeLaunchTooLarge;
  }
  std::vector<uint8_t> params(attributes.paramBytes, 0);
  if (!attributes.paramOffsets.empty() && !args) return cudaErrorInvalidValue;
  for (size_t i = 0; i < attributes.paramOffsets.size(); ++i) {
    if (!args[i]) return cudaErrorInvalidValue;
    std::memcpy(params.data() + attributes.paramOffsets[i], args[i], attributes.paramSizes[i]);
  }

  runtime::LaunchConfig launch;
  launch.grid = {grid.x, grid.y, grid.z};
  launch.block = {block.x, block.y, block.z};
  launch.dynamicShared = static_cast<uint32_t>(sharedMem);
  launch.params = std::move(params);
  launch.threads = config.threads;
  launch.maxInstructions = config.maxInstructions;
  launch.timeoutSeconds = config.timeoutSeconds;
  launch.racecheck = config.racecheck;
  launch.statistics = !config.reportPath.empty(); // the report has divergent_branches
  launch.memoryStatistics = false;                // and no memory accesses per space
  launch.randomSchedule = config.randomSchedule;
  launch.seed = config.seed;
  launch.timeline = timeline.get();
  launch.cooperative = cooperative; // every CTA resident at once, for grid-wide sync
  launch.cluster = {cluster.x, cluster.y, cluster.z};
  name = demangle(k->name);
  // The launch runs on its stream's worker thread while the host goes on
  // (a graph may run it many times); its fault becomes pending when it ends
  // (the next call that waits sees it). The runtime's lock is not taken
  // there: a host call may hold it while it waits for this launch.
  work = [this, k, config = std::move(launch), api = std::string(api), updatable = std::move(updatable)] {
    if (fault() != cudaSuccess) return; // the context is lost
    runtime::LaunchConfig launch = config;
    if (updatable) { // what device code last set for the node
      std::lock_guard lock(updatable->mutex);
      if (!updatable->enabled) return;
      launch.params = updatable->params;
      launch.grid = updatable->grid;
    }
    runGrid(*k, std::move(launch), api);
  };
  return cudaSuccess;
}

void readLaunchAttributes(const cudaLaunchAttribute *attributes, unsigned count, bool &cooperative,
                          dim3 &cluster) {
  for (unsigned i = 0; i < count && attributes; ++i) {
    const cudaLaunchAttribute &a = attributes[i];
    if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
    if (a.id == cudaLaunchAttributeClusterDimension)
      cluster = dim3{a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z};
  }
}

} // namespace cudart

using namespace cudart;

CUDART_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                   cudaStream_t stream) {
  callStack().push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

CUDART_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                                     void *stream) {
  std::vector<CallConfiguration> &stack = callStack();
  if (stack.empty()) return cudaErrorMissingConfiguration;
  CallConfiguration c = stack.back();
  stack.pop_back();
  if (gridDim) *gridDim = c.grid;
  if (blockDim) *blockDim = c.block;
  if (sharedMem) *sharedMem = c.sharedMem;
  if (stream) *static_cast<cudaStream_t *>(stream) = c.stream;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *function) {
  Api api("__cudaGetKernel", Api::Ignores);
  KernelInfo *k = api.rt.kernel(function);
  if (!kernel) return api(cudaErrorInvalidValue);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return api(k ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

CUDART_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *function) {
  Api api("cudaGetKernel");
  if (api.blocked()) return api.sticky();
  KernelInfo *k = api.rt.kernel(function);
  if (!kernel) return api(cudaErrorInvalidValue);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return api(k ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

namespace {
cudaError_t launchVia(const char *name, const void *function, dim3 grid, dim3 block, void **args,
                      size_t shared, cudaStream_t stream, bool cooperative, dim3 cluster = dim3{1, 1, 1}) {
  Api api(name);
  if (api.blocked()) return api.sticky();
  return api(api.rt.launch(name, function, grid, block, args, shared, stream, cooperative, cluster));
}
} // namespace

CUDART_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                             size_t sharedMem, cudaStream_t stream) {
  return launchVia("cudaLaunchKernel", kernel, grid, block, args, sharedMem, stream, false);
}

CUDART_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                                  size_t sharedMem, cudaStream_t stream) {
  return launchVia("cudaLaunchKernel", kernel, grid, block, args, sharedMem, perThreadDefault(stream), false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                           size_t sharedMem, cudaStream_t stream) {
  return launchVia("cudaLaunchKernel", func, grid, block, args, sharedMem, stream, false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
                                                size_t sharedMem, cudaStream_t stream) {
  return launchVia("cudaLaunchKernel", func, grid, block, args, sharedMem, perThreadDefault(stream), false);
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                                      size_t sharedMem, cudaStream_t stream) {
  return launchVia("cudaLaunchCooperativeKernel", func, grid, block, args, sharedMem, stream, true);
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid, dim3 block,
                                                           void **args, size_t sharedMem,
                                                           cudaStream_t stream) {
  return launchVia("cudaLaunchCooperativeKernel", func, grid, block, args, sharedMem,
                   perThreadDefault(stream), true);
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                              void **args) {
  if (!config) {
    Api api("cudaLaunchKernelExC");
    return api(cudaErrorInvalidValue);
  }
  bool cooperative = false;
  dim3 cluster{1, 1, 1};
  readLaunchAttributes(config->attrs, config->numAttrs, cooperative, cluster);
  return launchVia("cudaLaunchKernelExC", func, config->gridDim, config->blockDim, args,
                   config->dynamicSmemBytes, config->stream, cooperative, cluster);
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                                   void **args) {
  if (!config) return cudaLaunchKernelExC(config, func, args);
  cudaLaunchConfig_t own = *config;
  own.stream = perThreadDefault(own.stream);
  return cudaLaunchKernelExC(&own, func, args);
}
