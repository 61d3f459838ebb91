// Memory spaces of the emulated device: the global heap with its allocation
// table, and the fixed windows that generic addresses use for shared and
// local memory. Every access is checked; a bad one yields a MemoryFault that
// the caller turns into a diagnostic, never a host crash.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace emu {

/// Generic address layout. Global allocations live at kGlobalBase and up;
/// the shared window maps the running CTA's shared memory, the local window
/// the running thread's local memory.
constexpr uint64_t kGlobalBase = 0x0000'7000'0000'0000ull;
constexpr uint64_t kSharedWindow = 0x0000'0100'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'0200'0000'0000ull;
constexpr uint64_t kWindowSize = 0x0000'0001'0000'0000ull;
/// A .shared::cluster address of another CTA of the cluster (what mapa
/// gives): (rank + 1) << kClusterRankShift | offset in that CTA's shared
/// memory. Offsets below 1 << kClusterRankShift are the CTA's own.
constexpr unsigned kClusterRankShift = 24;
/// The largest cluster (16 CTAs, non-portable on sm_90): tags above it are
/// not cluster addresses but plain out-of-bounds shared addresses.
constexpr uint64_t kMaxClusterCtas = 16;

/// Whether [offset, offset + size) lies inside [0, limit). No sum is formed,
/// so an offset near 2^64 (a negative index, a wild pointer) cannot wrap
/// around into the window: every bounds check of every space goes through
/// here or through the same subtraction.
constexpr bool fitsIn(uint64_t offset, uint64_t size, uint64_t limit) {
  return size <= limit && offset <= limit - size;
}
/// How many of `want` bytes at `offset` lie inside a buffer of `limit` bytes:
/// the copies of call arguments and results never leave their frames, even
/// for a call site the verifier would reject.
constexpr uint64_t bytesInside(uint64_t offset, uint64_t want, uint64_t limit) {
  return offset >= limit ? 0 : want < limit - offset ? want : limit - offset;
}
/// Where [offset, offset + size) lies relative to a window of `limit` bytes
/// that it does not fit in, for reports: "N bytes before its start" (an
/// offset above 2^63 reads as negative), "N bytes past its end", or
/// "straddles its end by N bytes".
std::string describeOutside(uint64_t offset, uint64_t size, uint64_t limit);

/// Param is a kernel's parameter buffer; Frame a thread's .param frame of a
/// device-function call (its arguments, results and call-site variables).
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const, Frame };
const char *spaceName(Space s);

struct MemoryFault {
  enum Kind : uint8_t { OutOfBounds, Misaligned, UseAfterFree } kind;
  Space space;
  uint64_t address;
  unsigned size;
  std::string nearest; // "allocation 0x... of 256 bytes, 4 bytes past its end"
};

/// The device heap: allocations at synthetic addresses with guard gaps, so
/// an access one past the end never lands in a neighbour.
class GlobalMemory {
public:
  GlobalMemory();
  GlobalMemory(const GlobalMemory &) = delete;
  GlobalMemory &operator=(const GlobalMemory &) = delete;

  /// Returns the device address of `bytes` zeroed bytes, or 0 when the live
  /// allocations would pass the capacity or the host refuses the memory.
  uint64_t allocate(uint64_t bytes, uint64_t alignment = 256);
  /// Bytes the synthetic heap may hold at once: by default half the host's
  /// physical memory (every device byte is a host byte), so an allocation
  /// the host cannot back fails as cudaErrorMemoryAllocation does on a GPU
  /// instead of aborting or swapping the process.
  uint64_t capacity() const;
  void setCapacity(uint64_t bytes);
  /// Whether `address` lies in the address range the synthetic heap has used
  /// (a device pointer, live or not, rather than a host one).
  bool inHeapRange(uint64_t address) const;
  /// False when `address` is not the start of a live allocation. While a
  /// launch runs (a device-side free, or a host thread freeing beside a
  /// launch) the allocation is dead at once but its bytes stay until the
  /// last running launch ends, since CTAs may hold its range.
  bool free(uint64_t address);
  /// Brackets a launch (Device::launch): frees wait for its end.
  void beginLaunch();
  void endLaunch();

  /// The host pointer for [address, address+size), or nullptr with `fault`
  /// describing why not.
  uint8_t *translate(uint64_t address, unsigned size, MemoryFault &fault);

  /// A live allocation's range and bytes, which a CTA may cache while a
  /// launch runs (allocations change only between launches).
  struct Range {
    uint64_t base = 0, end = 0;
    uint8_t *bytes = nullptr;
  };
  /// The live allocation containing `address`, if any.
  Range rangeOf(uint64_t address);

  /// Copies to and from device memory (host side); false on a bad range.
  bool write(uint64_t address, const void *data, uint64_t size);
  bool read(uint64_t address, void *data, uint64_t size) const;

  /// Adopts `bytes` of host memory at `host` as an allocation whose device
  /// address is the host address, checked like any other (managed memory,
  /// mapped pinned memory: host and device share one pointer). The memory
  /// stays the caller's. False when the range is empty, overlaps a live
  /// allocation, or falls in a generic-address window or the synthetic heap.
  bool adopt(void *host, uint64_t bytes);
  /// Ends an adopted allocation (later device accesses are use after free).
  bool release(uint64_t address);
  /// What the allocation table knows about an address.
  struct AllocationInfo {
    uint64_t base = 0, size = 0;
    bool live = false, adopted = false;
  };
  /// The allocation (live or freed) containing `address`, if any.
  std::optional<AllocationInfo> allocationAt(uint64_t address) const;
  /// Bytes in live allocations of the synthetic heap (adopted ones excluded).
  uint64_t liveBytes() const;

private:
  struct FreeBytes {
    void operator()(uint8_t *p) const;
  };
  struct Allocation {
    uint64_t base, size;
    // calloc'd: large allocations are zero pages the host maps on first
    // touch, so a big cudaMalloc costs what the kernel actually uses.
    std::unique_ptr<uint8_t[], FreeBytes> bytes;
    bool live = true;
    uint8_t *external = nullptr; // adopted host memory (bytes stays empty)
    uint8_t *data() { return external ? external : bytes.get(); }
    const uint8_t *data() const { return external ? external : bytes.get(); }
  };
  std::vector<uint64_t> retired_; // freed while launches ran: bytes kept until they end
  unsigned runningLaunches_ = 0;
  const Allocation *find(uint64_t address) const;
  std::string describeNearest(uint64_t address, uint64_t size) const;

  mutable std::mutex mutex_;
  std::map<uint64_t, Allocation> allocations_; // by base
  uint64_t next_ = kGlobalBase;
  uint64_t live_ = 0; // bytes of live synthetic allocations
  uint64_t capacity_;
};

} // namespace emu
