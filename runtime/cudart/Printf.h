// Device-side printf as CUDA defines it: the format string and a buffer of arguments packed with
// their natural alignment (ints and chars as 4 bytes, longs, pointers and strings as 8, floats
// promoted to double), formatted on the host with C's conversions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cudart {

/// Where a printf reads its arguments.
class PrintfArguments {
public:
  virtual ~PrintfArguments() = default;
  /// The next argument of `size` bytes (4 or 8), at the next offset aligned
  /// to its size; false when it cannot be read.
  virtual bool next(unsigned size, uint64_t &bits) = 0;
  /// The NUL-terminated string at a device address; false when unreadable.
  virtual bool string(uint64_t address, std::string &out) = 0;
};

struct PrintfResult {
  std::string text;
  int arguments = 0; // arguments consumed: what device printf returns
  bool ok = true;    // false when an argument could not be read (the rest is printed as written)
};

PrintfResult formatDevicePrintf(std::string_view format, PrintfArguments &args);

} // namespace cudart
