// Functions the host provides to device code: an `.extern .func` without a
// body (vprintf, malloc, free, __assertfail) that a runtime serves. Device
// code calls them like any device function; the emulator runs the host
// callback once per calling lane, with that lane's arguments and results
// laid out per the PTX declaration, and checked access to device memory.
#pragma once

#include "emulator/Cta.h"
#include "emulator/Kernel.h"
#include "ptx/Diagnostic.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace emu {

/// Addresses of host functions as device code holds them (in a register for
/// an indirect call, or resolved from the symbol): a tag and an index into
/// the device's table of host callees.
constexpr uint64_t kHostFunctionTag = 0xF00E'0000'0000'0000ull;

/// One lane's call of a host function.
class HostCall {
public:
  HostCall(Exec &x, const CodeRegion &layout, unsigned lane, uint8_t *frame)
      : x_(x), layout_(layout), lane_(lane), frame_(frame) {}

  /// Parameter `i` as raw bits (its first 8 bytes, zero-extended).
  uint64_t argument(unsigned i) const;
  unsigned numArguments() const { return static_cast<unsigned>(layout_.paramOffsets.size()); }
  /// The first `size` bytes of parameter `i` (an aggregate passed by value: a dim3), zero past
  /// its end; false when there is no such parameter.
  bool argumentBytes(unsigned i, void *out, unsigned size) const;
  /// Sets return value `i` (its first min(size, 8) bytes).
  void setResult(uint64_t bits, unsigned i = 0);

  /// Reads device memory at a generic address, checked like a load by the
  /// lane; false after the fault was reported (the launch then fails).
  bool read(uint64_t address, void *out, unsigned size);
  /// Reads a NUL-terminated string (at most `limit` bytes) at a generic
  /// address; false after a fault was reported.
  bool readString(uint64_t address, std::string &out, size_t limit = 1u << 20);
  /// Writes device memory at a generic address, checked like a store by the lane; false after
  /// the fault was reported.
  bool write(uint64_t address, const void *in, unsigned size);

  /// Fails the launch: an error diagnostic at the call, for this lane.
  void fail(ptx::DiagKind kind, std::string message,
            std::vector<std::pair<std::string, std::string>> fields = {});
  /// Reports a diagnostic of any severity at the call, for this lane.
  void report(ptx::DiagKind kind, ptx::Severity severity, std::string message,
              std::vector<std::pair<std::string, std::string>> fields = {});

  /// Forgets the running CTA's cached view of the allocation at `address`
  /// (after a device-side free, so later accesses see it is gone).
  void forgetCachedRange(uint64_t address);

  unsigned lane() const { return lane_; }
  Dim3 threadIndex() const; // %tid of the calling thread
  Dim3 blockIndex() const { return x_.cta.ctaid; }
  Dim3 blockDim() const { return x_.cta.ntid; }
  Dim3 gridDim() const { return x_.cta.nctaid; }
  uint64_t launchTag() const { return x_.cta.launchTag; }
  const Kernel &kernel() const { return x_.cta.kernel; }
  /// The PTX line of the call instruction.
  uint32_t line() const { return x_.cta.kernel.line(x_.pc); }

private:
  Exec &x_;
  const CodeRegion &layout_;
  unsigned lane_;
  uint8_t *frame_; // this lane's frame of the callee layout
};

using HostFunction = std::function<void(HostCall &)>;

/// A host function as one module declares it: the callback and the frame
/// layout of its declaration.
struct HostCallee {
  std::string name;
  const HostFunction *function = nullptr;
  CodeRegion layout; // function = the declaration; entry = end = 0
};

/// Lays out a declaration's parameters and returns in a frame, as the
/// decoder lays out device functions.
std::optional<CodeRegion> hostFrameLayout(const ptx::Function &declaration);

/// Runs a call to a host function for the lanes in x.mask, copying the
/// arguments from the caller and the results back. False when a lane's call
/// failed the launch.
bool callHostFunction(Exec &x, const DInstr &in, const HostCallee &callee);

} // namespace emu
