#include "runtime/cudart/DeviceServices.h"

#include "runtime/cudart/Printf.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <new>

namespace cudart {

namespace {

// cudaGraphKernelNodeField.
constexpr int kFieldGridDim = 1, kFieldParam = 2, kFieldEnabled = 3;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

/// A printf argument buffer in device memory (the calling thread's local
/// memory, reached through a generic address).
class BufferArguments final : public PrintfArguments {
public:
  BufferArguments(runtime::HostCall &call, uint64_t base) : call_(call), base_(base) {}
  bool next(unsigned size, uint64_t &bits) override {
    if (base_ == 0) return false; // no argument buffer: the format has more conversions than arguments
    offset_ = (offset_ + size - 1) / size * size;
    bits = 0;
    if (!call_.read(base_ + offset_, &bits, size)) return false;
    offset_ += size;
    return true;
  }
  bool string(uint64_t address, std::string &out) override { return call_.readString(address, out); }

private:
  runtime::HostCall &call_;
  uint64_t base_, offset_ = 0;
};

} // namespace

void DeviceServices::install(runtime::Device &device) {
  device_ = &device;
  device.setHostFunction("vprintf", [this](runtime::HostCall &call) {
    uint64_t format = call.argument(0), buffer = call.argument(1);
    if (format == 0) {
      call.setResult(static_cast<uint32_t>(-1));
      return;
    }
    std::string text;
    if (!call.readString(format, text)) return;
    BufferArguments args(call, buffer);
    PrintfResult r = formatDevicePrintf(text, args);
    print(call, std::move(r.text));
    call.setResult(static_cast<uint32_t>(r.arguments));
  });
  device.setHostFunction("malloc", [this](runtime::HostCall &call) {
    uint64_t bytes = call.argument(0), address = 0;
    std::lock_guard lock(mutex_);
    if (bytes != 0 && heapUsed_ <= heapSize && bytes <= heapSize - heapUsed_) {
      // Out of memory: malloc returns NULL, as on a full device heap.
      address = device_->allocate(bytes, 16);
      if (address) {
        heap_[address] = bytes;
        heapUsed_ += bytes;
      }
    }
    call.setResult(address);
  });
  device.setHostFunction("free", [this](runtime::HostCall &call) {
    uint64_t address = call.argument(0);
    if (address == 0) return;
    std::unique_lock lock(mutex_);
    auto it = heap_.find(address);
    if (it == heap_.end()) {
      lock.unlock();
      call.fail(ptx::DiagKind::Trap,
                "free(" + hex(address) +
                    "): not a live allocation of device-side malloc (double free, or a "
                    "pointer malloc did not return)",
                {{"address", hex(address)}});
      return;
    }
    heapUsed_ -= it->second;
    heap_.erase(it);
    // Other CTAs of this launch may still hold the range: the device keeps
    // its bytes until the launch ends; this thread's view of it goes now.
    device_->free(address);
    call.heapChanged(address);
  });
  device.setHostFunction("cudaGraphSetConditional", [this](runtime::HostCall &call) {
    const uint64_t handle = call.argument(0);
    if (std::shared_ptr<ConditionalHandle> c = conditional(handle)) {
      c->value.store(static_cast<unsigned>(call.argument(1)));
      return;
    }
    call.fail(ptx::DiagKind::Trap,
              "cudaGraphSetConditional(" + hex(handle) +
                  "): not a conditional handle (cudaGraphConditionalHandleCreate makes them)",
              {{"handle", hex(handle)}});
  });
  // Device-updatable kernel nodes. cudaGraphKernelNodeUpdatesApply takes an array of
  // cudaGraphKernelNodeUpdate: the node (8 bytes), the field (4, then 4 of padding) and a 24-byte
  // union (a dim3; a parameter's value pointer, offset and size; or an enable flag).
  device.setHostFunction("cudaGraphKernelNodeSetParam", [this](runtime::HostCall &call) {
    uint8_t data[24];
    const uint64_t param[3] = {call.argument(2), call.argument(1), call.argument(3)};
    std::memcpy(data, param, sizeof data);
    call.setResult(static_cast<uint32_t>(updateDeviceNode(call, call.argument(0), kFieldParam, data)));
  });
  device.setHostFunction("cudaGraphKernelNodeSetGridDim", [this](runtime::HostCall &call) {
    uint8_t data[24] = {};
    call.argumentBytes(1, data, 12);
    call.setResult(static_cast<uint32_t>(updateDeviceNode(call, call.argument(0), kFieldGridDim, data)));
  });
  device.setHostFunction("cudaGraphKernelNodeSetEnabled", [this](runtime::HostCall &call) {
    uint8_t data[24] = {};
    const auto enabled = static_cast<uint32_t>(call.argument(1) & 0xFF);
    std::memcpy(data, &enabled, sizeof enabled);
    call.setResult(static_cast<uint32_t>(updateDeviceNode(call, call.argument(0), kFieldEnabled, data)));
  });
  device.setHostFunction("cudaGraphKernelNodeUpdatesApply", [this](runtime::HostCall &call) {
    const uint64_t updates = call.argument(0), count = call.argument(1);
    int result = 0;
    for (uint64_t i = 0; i < count && result == 0; ++i) {
      uint8_t update[40];
      if (!call.read(updates + i * sizeof update, update, sizeof update)) return;
      uint64_t handle;
      int32_t field;
      std::memcpy(&handle, update, sizeof handle);
      std::memcpy(&field, update + 8, sizeof field);
      result = updateDeviceNode(call, handle, field, update + 16);
    }
    call.setResult(static_cast<uint32_t>(result));
  });
  device.setHostFunction("__assertfail", [this](runtime::HostCall &call) {
    std::string message, file, function;
    if (!call.readString(call.argument(0), message) || !call.readString(call.argument(1), file) ||
        !call.readString(call.argument(3), function))
      return;
    auto line = static_cast<uint32_t>(call.argument(2));
    runtime::Dim3 b = call.blockIndex(), t = call.threadIndex();
    char text[128];
    std::snprintf(text, sizeof text, ": block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `", b.x, b.y, b.z,
                  t.x, t.y, t.z);
    // What CUDA prints for a failed device-side assert (on stderr).
    printAssertion(call,
                   file + ":" + std::to_string(line) + ": " + function + text + message + "` failed.\n");
    call.fail(ptx::DiagKind::Trap,
              "device-side assertion `" + message + "` failed in " + function + " at " + file + ":" +
                  std::to_string(line),
              {{"cuda_error", "cudaErrorAssert"},
               {"assertion", message},
               {"source", file + ":" + std::to_string(line)},
               {"source_function", function}});
  });
}

namespace {
uint64_t linearCta(const runtime::HostCall &call) {
  runtime::Dim3 b = call.blockIndex(), grid = call.gridDim();
  return b.x + uint64_t{grid.x} * (b.y + uint64_t{grid.y} * b.z);
}
} // namespace

DeviceServices::RunningLaunch &DeviceServices::launchOf(const runtime::HostCall &call) {
  return running_[call.launchTag()];
}

void DeviceServices::print(const runtime::HostCall &call, std::string text) {
  std::lock_guard lock(mutex_);
  launchOf(call).output[linearCta(call)] += text;
}

void DeviceServices::printAssertion(const runtime::HostCall &call, std::string text) {
  std::lock_guard lock(mutex_);
  launchOf(call).assertions[linearCta(call)] += text;
}

void DeviceServices::beginLaunch(uint64_t tag) {
  std::lock_guard lock(mutex_);
  running_[tag] = RunningLaunch{};
}

void DeviceServices::endLaunch(uint64_t tag, std::FILE *err) {
  std::lock_guard lock(mutex_);
  auto node = running_.extract(tag);
  if (node.empty()) return;
  RunningLaunch &launch = node.mapped();
  if (err)
    for (const auto &[cta, text] : launch.assertions) std::fwrite(text.data(), 1, text.size(), err);
  for (auto &[cta, text] : launch.output) {
    // The GPU's printf buffer has a fixed size (cudaLimitPrintfFifoSize):
    // output beyond it between two flushes is lost.
    if (pending_.size() + text.size() > printfFifoSize) {
      dropped_ = true;
      continue;
    }
    pending_ += text;
  }
}

void DeviceServices::flush(std::FILE *out) {
  std::lock_guard lock(mutex_);
  if (!pending_.empty()) {
    std::fwrite(pending_.data(), 1, pending_.size(), out);
    std::fflush(out);
    pending_.clear();
  }
  if (dropped_) {
    std::fprintf(stderr,
                 "ptxvm: device printf output beyond cudaLimitPrintfFifoSize (%llu bytes) was dropped\n",
                 static_cast<unsigned long long>(printfFifoSize));
    dropped_ = false;
  }
}

void DeviceServices::resetHeap() {
  std::lock_guard lock(mutex_);
  heap_.clear();
  heapUsed_ = 0;
}

bool DeviceServices::isHeapAllocation(uint64_t address) {
  std::lock_guard lock(mutex_);
  return heap_.count(address) != 0;
}

uint64_t DeviceServices::createConditional(const void *graph, unsigned initial, bool assignDefault) {
  std::lock_guard lock(mutex_);
  // Handles are opaque to programs; a tag in the high bits keeps them apart from small integers
  // a kernel might pass by mistake.
  const uint64_t handle = 0xC0DE'0000'0000'0000ull + conditionals_.size() + 1;
  auto c = std::make_shared<ConditionalHandle>();
  c->value = c->initial = initial;
  c->assignDefault = assignDefault;
  c->graph = graph;
  conditionals_.emplace(handle, std::move(c));
  return handle;
}

uint64_t DeviceServices::createDeviceNode() {
  std::lock_guard lock(mutex_);
  // Opaque to programs, as conditional handles are, with a tag of their own.
  const uint64_t handle = 0xDE7E'0000'0000'0000ull + deviceNodes_.size() + 1;
  deviceNodes_.emplace(handle, std::make_shared<DeviceUpdatableNode>());
  return handle;
}

std::shared_ptr<DeviceUpdatableNode> DeviceServices::deviceNode(uint64_t handle) {
  std::lock_guard lock(mutex_);
  auto it = deviceNodes_.find(handle);
  return it == deviceNodes_.end() ? nullptr : it->second;
}

int DeviceServices::updateDeviceNode(runtime::HostCall &call, uint64_t handle, int field,
                                     const uint8_t *data) {
  constexpr int kInvalidValue = 1; // cudaErrorInvalidValue
  std::shared_ptr<DeviceUpdatableNode> node = deviceNode(handle);
  if (!node) return kInvalidValue;
  switch (field) {
  case kFieldGridDim: {
    uint32_t grid[3];
    std::memcpy(grid, data, sizeof grid);
    if (!grid[0] || !grid[1] || !grid[2]) return kInvalidValue;
    std::lock_guard lock(node->mutex);
    node->grid = {grid[0], grid[1], grid[2]};
    return 0;
  }
  case kFieldParam: {
    uint64_t param[3]; // value pointer, offset, size
    std::memcpy(param, data, sizeof param);
    std::lock_guard lock(node->mutex);
    if (param[1] > node->params.size() || param[2] > node->params.size() - param[1]) return kInvalidValue;
    std::vector<uint8_t> value(param[2]);
    if (!call.read(param[0], value.data(), static_cast<unsigned>(value.size()))) return kInvalidValue;
    std::copy(value.begin(), value.end(), node->params.begin() + static_cast<ptrdiff_t>(param[1]));
    return 0;
  }
  case kFieldEnabled: {
    uint32_t enabled;
    std::memcpy(&enabled, data, sizeof enabled);
    std::lock_guard lock(node->mutex);
    node->enabled = enabled != 0;
    return 0;
  }
  default: return kInvalidValue;
  }
}

std::shared_ptr<ConditionalHandle> DeviceServices::conditional(uint64_t handle) {
  std::lock_guard lock(mutex_);
  auto it = conditionals_.find(handle);
  return it == conditionals_.end() ? nullptr : it->second;
}

} // namespace cudart
