#include "emulator/Memory.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace emu {

const char *spaceName(Space s) {
  switch (s) {
  case Space::Generic: return "generic";
  case Space::Global: return "global";
  case Space::Shared: return "shared";
  case Space::Local: return "local";
  case Space::Param: return "param";
  case Space::Const: return "const";
  case Space::Frame: return "param (call frame)";
  }
  return "?";
}

namespace {
constexpr uint64_t kGuard = 4096; // unmapped bytes between allocations
std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}
} // namespace

std::string describeOutside(uint64_t offset, uint64_t size, uint64_t limit) {
  if (offset >> 63) return std::to_string(0 - offset) + " bytes before its start";
  if (offset >= limit) return std::to_string(offset - limit) + " bytes past its end";
  return "straddles its end by " + std::to_string(size - (limit - offset)) + " bytes";
}

void GlobalMemory::FreeBytes::operator()(uint8_t *p) const { std::free(p); }

GlobalMemory::GlobalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  capacity_ = pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) / 2 : uint64_t{16} << 30;
}

uint64_t GlobalMemory::capacity() const {
  std::lock_guard lock(mutex_);
  return capacity_;
}

void GlobalMemory::setCapacity(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  capacity_ = bytes;
}

bool GlobalMemory::inHeapRange(uint64_t address) const {
  std::lock_guard lock(mutex_);
  return address >= kGlobalBase && address < next_;
}

uint64_t GlobalMemory::allocate(uint64_t bytes, uint64_t alignment) {
  std::lock_guard lock(mutex_);
  if (alignment == 0 || (alignment & (alignment - 1))) alignment = 256;
  alignment = std::min<uint64_t>(alignment, uint64_t{1} << 20);
  // The heap's addresses stay far below 2^63, so no sum here can wrap.
  if (bytes > capacity_ - std::min(capacity_, live_) || bytes > (uint64_t{1} << 62) - next_) return 0;
  std::unique_ptr<uint8_t[], FreeBytes> storage(
      static_cast<uint8_t *>(std::calloc(std::max<uint64_t>(bytes, 1), 1)));
  if (!storage) return 0;
  uint64_t base = (next_ + alignment - 1) & ~(alignment - 1);
  next_ = base + bytes + kGuard;
  live_ += bytes;
  allocations_.emplace(base, Allocation{base, bytes, std::move(storage), true, nullptr});
  return base;
}

bool GlobalMemory::free(uint64_t address) {
  std::lock_guard lock(mutex_);
  auto it = allocations_.find(address);
  if (it == allocations_.end() || !it->second.live) return false;
  // Keep the range (and release the bytes) so later accesses are reported
  // as use after free rather than out of bounds.
  it->second.live = false;
  if (!it->second.external) live_ -= it->second.size;
  if (runningLaunches_)
    retired_.push_back(address);
  else
    it->second.bytes.reset();
  return true;
}

void GlobalMemory::beginLaunch() {
  std::lock_guard lock(mutex_);
  ++runningLaunches_;
}

void GlobalMemory::endLaunch() {
  std::lock_guard lock(mutex_);
  if (runningLaunches_ && --runningLaunches_) return;
  for (uint64_t address : retired_)
    if (auto it = allocations_.find(address); it != allocations_.end() && !it->second.live)
      it->second.bytes.reset();
  retired_.clear();
}

const GlobalMemory::Allocation *GlobalMemory::find(uint64_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  const Allocation &a = it->second;
  if (address >= a.base && address < a.base + a.size) return &a;
  return nullptr;
}

std::string GlobalMemory::describeNearest(uint64_t address, uint64_t size) const {
  const Allocation *best = nullptr;
  uint64_t bestDistance = UINT64_MAX;
  for (const auto &[base, a] : allocations_) {
    uint64_t end = a.base + a.size;
    uint64_t d = address < a.base ? a.base - address : address >= end ? address - end + 1 : 0;
    if (d < bestDistance) {
      bestDistance = d;
      best = &a;
    }
  }
  if (!best) return "no allocations";
  std::string where = address < best->base ? std::to_string(best->base - address) + " bytes before it"
                                           : describeOutside(address - best->base, size, best->size);
  return std::string(best->live ? "" : "freed ") + "allocation " + hex(best->base) + " of " +
         std::to_string(best->size) + " bytes, " + where;
}

uint8_t *GlobalMemory::translate(uint64_t address, unsigned size, MemoryFault &fault) {
  std::lock_guard lock(mutex_);
  const Allocation *a = find(address);
  if (a && fitsIn(address - a->base, size, a->size)) {
    if (!a->live) {
      fault = {MemoryFault::UseAfterFree, Space::Global, address, size, describeNearest(address, size)};
      return nullptr;
    }
    if (size > 1 && (address & (size - 1))) {
      fault = {MemoryFault::Misaligned, Space::Global, address, size, ""};
      return nullptr;
    }
    return const_cast<uint8_t *>(a->data()) + (address - a->base);
  }
  fault = {MemoryFault::OutOfBounds, Space::Global, address, size, describeNearest(address, size)};
  return nullptr;
}

GlobalMemory::Range GlobalMemory::rangeOf(uint64_t address) {
  std::lock_guard lock(mutex_);
  const Allocation *a = find(address);
  if (!a || !a->live) return {};
  return {a->base, a->base + a->size, const_cast<uint8_t *>(a->data())};
}

bool GlobalMemory::write(uint64_t address, const void *data, uint64_t size) {
  std::lock_guard lock(mutex_);
  const Allocation *a = find(address);
  if (!a || !a->live || !fitsIn(address - a->base, size, a->size)) return false;
  if (size) std::memcpy(const_cast<uint8_t *>(a->data()) + (address - a->base), data, size);
  return true;
}

bool GlobalMemory::read(uint64_t address, void *data, uint64_t size) const {
  std::lock_guard lock(mutex_);
  const Allocation *a = find(address);
  if (!a || !a->live || !fitsIn(address - a->base, size, a->size)) return false;
  if (size) std::memcpy(data, a->data() + (address - a->base), size);
  return true;
}

bool GlobalMemory::adopt(void *host, uint64_t bytes) {
  uint64_t base = reinterpret_cast<uint64_t>(host);
  if (!host || bytes == 0 || base + bytes < base) return false;
  auto overlaps = [&](uint64_t lo, uint64_t hi) { return base < hi && lo < base + bytes; };
  // Generic addresses in the windows mean shared or local memory, and the
  // synthetic heap grows from kGlobalBase: host memory there cannot be
  // given the same device address.
  if (overlaps(kSharedWindow, kSharedWindow + kWindowSize) ||
      overlaps(kLocalWindow, kLocalWindow + kWindowSize))
    return false;
  std::lock_guard lock(mutex_);
  if (overlaps(kGlobalBase, next_ + kGuard)) return false;
  // Live allocations may not overlap; dead ones in the range (an earlier
  // adoption of memory the host has since reused) are forgotten.
  auto it = allocations_.lower_bound(base);
  if (it != allocations_.begin()) --it;
  while (it != allocations_.end() && it->first < base + bytes) {
    if (overlaps(it->second.base, it->second.base + std::max<uint64_t>(it->second.size, 1))) {
      if (it->second.live) return false;
      it = allocations_.erase(it);
      continue;
    }
    ++it;
  }
  allocations_.emplace(base, Allocation{base, bytes, nullptr, true, static_cast<uint8_t *>(host)});
  return true;
}

bool GlobalMemory::release(uint64_t address) {
  std::lock_guard lock(mutex_);
  auto it = allocations_.find(address);
  if (it == allocations_.end() || !it->second.live || !it->second.external) return false;
  it->second.live = false;
  return true;
}

std::optional<GlobalMemory::AllocationInfo> GlobalMemory::allocationAt(uint64_t address) const {
  std::lock_guard lock(mutex_);
  const Allocation *a = find(address);
  if (!a) return std::nullopt;
  return AllocationInfo{a->base, a->size, a->live, a->external != nullptr};
}

uint64_t GlobalMemory::liveBytes() const {
  std::lock_guard lock(mutex_);
  return live_;
}

} // namespace emu
