#include "runtime/cudart/DeviceLaunches.h"

#include "runtime/cudart/Limits.h"

#include <algorithm>
#include <cstring>

namespace cudart {

namespace {

// The device runtime's own error codes (what its system calls return; libcudadevrt's
// cudartErrorCnpMap turns them into cudaError values).
enum Cnp : uint32_t {
  CnpSuccess = 0,
  CnpInvalidValue = 1,
  CnpMemoryAllocation = 4,
  CnpOutOfResources = 6,
  CnpInvalidConfiguration = 7,
  CnpPendingCountExceeded = 12,
};
// The cudaError values device code reads back.
constexpr int kInvalidDeviceFunction = 98, kMemoryAllocation = 2;

// The special streams of device code (cuda_device_runtime_api.h).
constexpr uint64_t kTailLaunchStream = 0x3, kFireAndForgetStream = 0x4;
// Streams and events that device code makes: a tag keeps them apart from the special streams.
constexpr uint64_t kHandleTag = 0xCD9'0000'0000ull;

runtime::Dim3 dim3At(const runtime::HostCall &call, unsigned i) {
  uint32_t v[3] = {1, 1, 1};
  call.argumentBytes(i, v, sizeof v);
  return {v[0], v[1], v[2]};
}

std::pair<uint64_t, uint64_t> threadKey(const runtime::HostCall &call) {
  runtime::Dim3 b = call.blockIndex(), g = call.gridDim(), t = call.threadIndex(), n = call.blockDim();
  return {b.x + uint64_t{g.x} * (b.y + uint64_t{g.y} * b.z),
          t.x + uint64_t{n.x} * (t.y + uint64_t{n.y} * t.z)};
}

bool validConfiguration(runtime::Dim3 grid, runtime::Dim3 block) {
  uint64_t threads = uint64_t{block.x} * block.y * block.z;
  return grid.x && grid.y && grid.z && block.x && block.y && block.z && block.x <= limits::kMaxBlockDim[0] &&
         block.y <= limits::kMaxBlockDim[1] && block.z <= limits::kMaxBlockDim[2] &&
         threads <= limits::kMaxThreadsPerBlock && grid.x <= limits::kMaxGridDim[0] &&
         grid.y <= limits::kMaxGridDim[1] && grid.z <= limits::kMaxGridDim[2];
}

} // namespace

DeviceLaunches::Grid *DeviceLaunches::gridOf(const runtime::HostCall &call) {
  auto it = grids_.find(call.launchTag());
  return it == grids_.end() ? nullptr : &it->second;
}

void DeviceLaunches::setError(const runtime::HostCall &call, int error) {
  if (Grid *g = gridOf(call); g && error != 0) g->errors[threadKey(call)] = error;
}

void DeviceLaunches::install(runtime::Device &device, Resolver resolve, Attributes attributes) {
  device_ = &device;
  resolve_ = std::move(resolve);
  attributes_ = std::move(attributes);
  device.setHostFunction("__cuda_syscall_cnpv2GetParameterBufferV2", [this](runtime::HostCall &call) {
    const uint64_t address = call.argument(0);
    ChildLaunch launch;
    launch.grid = dim3At(call, 1);
    launch.block = dim3At(call, 2);
    launch.dynamicShared = static_cast<uint32_t>(call.argument(3));
    std::optional<DeviceKernelShape> shape = resolve_(call.launchTag(), address);
    std::lock_guard lock(mutex_);
    if (!shape) {
      setError(call, kInvalidDeviceFunction);
      call.setResult(0);
      return;
    }
    launch.kernel = shape->name;
    launch.paramBytes = shape->paramBytes;
    launch.maxDynamicShared = shape->maxDynamicShared;
    // Aligned for any parameter; never empty, so that each launch has its own buffer.
    launch.buffer = device_->allocate(std::max<uint32_t>(launch.paramBytes, 8), 64);
    Grid *grid = gridOf(call);
    if (!launch.buffer || !grid) {
      setError(call, kMemoryAllocation);
      call.setResult(0);
      return;
    }
    const uint64_t buffer = launch.buffer;
    grid->buffers.emplace(buffer, std::move(launch));
    call.setResult(buffer);
  });
  device.setHostFunction("__cuda_syscall_cnpv2LaunchDeviceV2", [this](runtime::HostCall &call) {
    const uint64_t buffer = call.argument(0), stream = call.argument(1);
    std::lock_guard lock(mutex_);
    Grid *grid = gridOf(call);
    if (!grid || !grid->buffers.count(buffer)) {
      call.setResult(CnpInvalidValue);
      return;
    }
    auto it = grid->buffers.find(buffer);
    ChildLaunch launch = std::move(it->second);
    grid->buffers.erase(it);
    uint32_t result = CnpSuccess;
    if (stream != 0 && stream != kTailLaunchStream && stream != kFireAndForgetStream &&
        !grid->streams.count(stream))
      result = CnpInvalidValue;
    else if (!validConfiguration(launch.grid, launch.block))
      result = CnpInvalidConfiguration;
    else if (launch.dynamicShared > launch.maxDynamicShared)
      result = CnpOutOfResources;
    else if (pending_.load() >= pendingLimit.load())
      result = CnpPendingCountExceeded;
    if (result != CnpSuccess) {
      device_->free(launch.buffer);
      call.setResult(result);
      return;
    }
    launch.tail = stream == kTailLaunchStream;
    ++pending_;
    grid->launches.push_back(std::move(launch));
    call.setResult(CnpSuccess);
  });
  // The thread's last error: read without clearing (cudaPeekAtLastError); libcudadevrt's
  // cudaGetLastError then sets it to cudaSuccess.
  device.setHostFunction("__cuda_syscall_cnpv2GetLastError", [this](runtime::HostCall &call) {
    std::lock_guard lock(mutex_);
    int error = 0;
    if (Grid *grid = gridOf(call))
      if (auto it = grid->errors.find(threadKey(call)); it != grid->errors.end()) error = it->second;
    call.setResult(static_cast<uint32_t>(error));
  });
  device.setHostFunction("__cuda_syscall_cnpv2SetLastError", [this](runtime::HostCall &call) {
    const auto error = static_cast<int>(call.argument(0));
    std::lock_guard lock(mutex_);
    if (error != 0)
      setError(call, error);
    else if (Grid *grid = gridOf(call))
      grid->errors.erase(threadKey(call));
    call.setResult(static_cast<uint32_t>(error));
  });
  // Streams and events: every launch of a grid runs in launch order once the grid's threads are
  // done, so a stream orders nothing more and an event is reached as soon as it is recorded.
  auto create = [this](std::set<uint64_t> Grid::*handles) {
    return [this, handles](runtime::HostCall &call) {
      const uint64_t out = call.argument(0);
      std::unique_lock lock(mutex_);
      Grid *grid = gridOf(call);
      if (!grid || out == 0) {
        call.setResult(CnpInvalidValue);
        return;
      }
      const uint64_t handle = kHandleTag | nextHandle_++;
      (grid->*handles).insert(handle);
      lock.unlock();
      if (call.write(out, &handle, sizeof handle)) call.setResult(CnpSuccess);
    };
  };
  auto destroy = [this](std::set<uint64_t> Grid::*handles) {
    return [this, handles](runtime::HostCall &call) {
      std::lock_guard lock(mutex_);
      Grid *grid = gridOf(call);
      call.setResult(grid && (grid->*handles).erase(call.argument(0)) ? CnpSuccess : CnpInvalidValue);
    };
  };
  device.setHostFunction("__cuda_syscall_cnpv2StreamCreate", create(&Grid::streams));
  device.setHostFunction("__cuda_syscall_cnpv2EventCreate", create(&Grid::events));
  device.setHostFunction("__cuda_syscall_cnpv2StreamDestroy", destroy(&Grid::streams));
  device.setHostFunction("__cuda_syscall_cnpv2EventDestroy", destroy(&Grid::events));
  device.setHostFunction("__cuda_syscall_cnpv2EventRecord", [this](runtime::HostCall &call) {
    std::lock_guard lock(mutex_);
    Grid *grid = gridOf(call);
    call.setResult(grid && grid->events.count(call.argument(0)) ? CnpSuccess : CnpInvalidValue);
  });
  device.setHostFunction("__cuda_syscall_cnpv2StreamWaitEvent", [this](runtime::HostCall &call) {
    std::lock_guard lock(mutex_);
    Grid *grid = gridOf(call);
    const uint64_t stream = call.argument(0), event = call.argument(1);
    bool ok = grid && grid->events.count(event) && (stream == 0 || grid->streams.count(stream));
    call.setResult(ok ? CnpSuccess : CnpInvalidValue);
  });
  device.setHostFunction("__cuda_syscall_cnpv2GetDevice", [](runtime::HostCall &call) {
    const int device = 0;
    if (call.write(call.argument(0), &device, sizeof device)) call.setResult(CnpSuccess);
  });
  device.setHostFunction("__cuda_syscall_cnpv2DeviceGetAttribute", [this](runtime::HostCall &call) {
    int value = 0;
    const auto attribute = static_cast<int>(call.argument(1));
    if (call.argument(2) != 0 || !attributes_ || !attributes_(attribute, value)) {
      call.setResult(CnpInvalidValue);
      return;
    }
    if (call.write(call.argument(0), &value, sizeof value)) call.setResult(CnpSuccess);
  });
  device.setHostFunction("__cuda_syscall_cnpv2GetDeviceCount", [](runtime::HostCall &call) {
    const int count = 1;
    if (call.write(call.argument(0), &count, sizeof count)) call.setResult(CnpSuccess);
  });
}

void DeviceLaunches::beginLaunch(uint64_t tag) {
  std::lock_guard lock(mutex_);
  grids_[tag];
}

std::vector<ChildLaunch> DeviceLaunches::endLaunch(uint64_t tag) {
  std::lock_guard lock(mutex_);
  auto node = grids_.extract(tag);
  if (node.empty()) return {};
  Grid &grid = node.mapped();
  // Buffers taken and never launched go back.
  for (auto &[buffer, launch] : grid.buffers) device_->free(buffer);
  std::stable_partition(grid.launches.begin(), grid.launches.end(),
                        [](const ChildLaunch &l) { return !l.tail; });
  return std::move(grid.launches);
}

void DeviceLaunches::reset() {
  std::lock_guard lock(mutex_);
  grids_.clear();
  pending_ = 0;
}

} // namespace cudart
