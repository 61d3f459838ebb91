// Graph memory: the device memory of allocation nodes (its address fixed when the node is made,
// the program's from the launch that runs the node until it is freed), free nodes, and the
// device's graph memory attributes.
#include "runtime/cudart/Runtime.h"

#include <string>

using namespace cudart;

namespace cudart {

void GraphMemoryUse::add(std::atomic<uint64_t> &current, std::atomic<uint64_t> &high, uint64_t bytes) {
  const uint64_t now = current += bytes;
  uint64_t seen = high.load();
  while (now > seen && !high.compare_exchange_weak(seen, now)) {
  }
}

GraphMemory::GraphMemory(Runtime &rt, uint64_t address, size_t bytes)
    : rt(rt), device(rt.device.get()), address(address), bytes(bytes) {
  rt.graphMemoryUse.add(rt.graphMemoryUse.reserved, rt.graphMemoryUse.reservedHigh, bytes);
}

void GraphMemory::allocate() {
  if (!held.exchange(true)) rt.graphMemoryUse.add(rt.graphMemoryUse.used, rt.graphMemoryUse.usedHigh, bytes);
}

bool GraphMemory::release() {
  if (!held.exchange(false)) return false;
  rt.graphMemoryUse.used -= bytes;
  return true;
}

GraphMemory::~GraphMemory() {
  // The last holder may be stream work (a captured free, cudaFreeAsync) ending on a worker
  // thread: the runtime's lock guards the allocation table there.
  std::lock_guard lock(rt.mutex);
  // After a reset the device, and this memory with it, are gone.
  if (rt.device.get() != device) return;
  auto it = rt.allocations.find(address);
  if (held) {
    // Allocated by a launch and not freed since: the program's now, for cudaFree (which
    // takes it off the graph memory counts).
    if (it != rt.allocations.end()) it->second.graph.reset();
    return;
  }
  if (it != rt.allocations.end()) rt.allocations.erase(it);
  rt.graphMemoryUse.reserved -= bytes;
  rt.device->free(address);
}

cudaError_t makeAllocNode(Runtime &rt, cudaMemAllocNodeParams *p, CUgraphNode_st &out) {
  if (!p || !p->bytesize) return cudaErrorInvalidValue;
  // Pinned device memory of the one device, with no export handles.
  const cudaMemPoolProps &props = p->poolProps;
  if (props.allocType != cudaMemAllocationTypePinned || props.handleTypes != cudaMemHandleTypeNone ||
      props.location.type != cudaMemLocationTypeDevice || props.location.id != 0)
    return cudaErrorInvalidValue;
  if (p->accessDescCount && !p->accessDescs) return cudaErrorInvalidValue;
  for (size_t i = 0; i < p->accessDescCount; ++i)
    if (p->accessDescs[i].location.type != cudaMemLocationTypeDevice || p->accessDescs[i].location.id != 0)
      return cudaErrorInvalidDevice;
  void *dptr = nullptr;
  if (cudaError_t e = deviceAlloc(rt, &dptr, p->bytesize)) return e;
  const uint64_t address = reinterpret_cast<uint64_t>(dptr);
  out.memory = std::make_shared<GraphMemory>(rt, address, p->bytesize);
  Allocation &a = rt.allocations.at(address);
  a.graph = out.memory;
  a.fromGraph = true;
  p->dptr = dptr;
  out.params.allocation = *p;
  out.params.allocation.accessDescs = nullptr;
  out.params.allocation.accessDescCount = 0;
  out.work = [memory = out.memory] { memory->allocate(); };
  out.label = "alloc " + std::to_string(p->bytesize) + " bytes";
  return cudaSuccess;
}

cudaError_t makeFreeNode(Runtime &rt, void *address, CUgraphNode_st &out) {
  // Only what an allocation node allocated.
  auto it = rt.allocations.find(reinterpret_cast<uint64_t>(address));
  std::shared_ptr<GraphMemory> memory = it == rt.allocations.end() ? nullptr : it->second.graph.lock();
  if (!memory) return cudaErrorInvalidValue;
  out.params.freed = address;
  out.work = [memory] { memory->release(); };
  out.label = "free";
  return cudaSuccess;
}

} // namespace cudart

CUDART_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                         void *value) {
  Api api("cudaDeviceGetGraphMemAttribute");
  if (device != 0) return api(cudaErrorInvalidDevice);
  if (!value) return api(cudaErrorInvalidValue);
  const GraphMemoryUse &use = api.rt.graphMemoryUse;
  uint64_t v = 0;
  switch (attr) {
  case cudaGraphMemAttrUsedMemCurrent: v = use.used; break;
  case cudaGraphMemAttrUsedMemHigh: v = use.usedHigh; break;
  case cudaGraphMemAttrReservedMemCurrent: v = use.reserved; break;
  case cudaGraphMemAttrReservedMemHigh: v = use.reservedHigh; break;
  default: return api(cudaErrorInvalidValue);
  }
  *static_cast<uint64_t *>(value) = v;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                         void *value) {
  Api api("cudaDeviceSetGraphMemAttribute");
  if (device != 0) return api(cudaErrorInvalidDevice);
  // Only the highs can be set, and only to zero (they restart from the current use).
  if (!value || *static_cast<const uint64_t *>(value) != 0) return api(cudaErrorInvalidValue);
  GraphMemoryUse &use = api.rt.graphMemoryUse;
  switch (attr) {
  case cudaGraphMemAttrUsedMemHigh: use.usedHigh = use.used.load(); break;
  case cudaGraphMemAttrReservedMemHigh: use.reservedHigh = use.reserved.load(); break;
  default: return api(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device) {
  Api api("cudaDeviceGraphMemTrim");
  if (device != 0) return api(cudaErrorInvalidDevice);
  // Nothing is cached: graph memory goes back to the device as soon as nothing holds it.
  return cudaSuccess;
}
