// Memory spaces of the emulated device: the global heap with its allocation
// table, and the fixed windows that generic addresses use for shared and
// local memory. Every access is checked; a bad one yields a MemoryFault that
// the caller turns into a diagnostic, never a host crash.
#pragma once

#include <cstdint>
#include <map>
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
  GlobalMemory() = default;
  GlobalMemory(const GlobalMemory &) = delete;
  GlobalMemory &operator=(const GlobalMemory &) = delete;

  /// Returns the device address of `bytes` zeroed bytes.
  uint64_t allocate(uint64_t bytes, uint64_t alignment = 256);
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
  struct Allocation {
    uint64_t base, size;
    std::vector<uint8_t> bytes;
    bool live = true;
    uint8_t *external = nullptr; // adopted host memory (bytes stays empty)
    uint8_t *data() { return external ? external : bytes.data(); }
    const uint8_t *data() const { return external ? external : bytes.data(); }
  };
  std::vector<uint64_t> retired_; // freed while launches ran: bytes kept until they end
  unsigned runningLaunches_ = 0;
  const Allocation *find(uint64_t address) const;
  std::string describeNearest(uint64_t address) const;

  mutable std::mutex mutex_;
  std::map<uint64_t, Allocation> allocations_; // by base
  uint64_t next_ = kGlobalBase;
};

} // namespace emu
