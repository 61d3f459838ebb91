// `ptxvm run --arg SPEC`: a kernel argument from its command-line spec (a scalar, or a device
// buffer with its contents). A library of its own so that fuzz_run_args can reach it.
#pragma once

#include "runtime/Device.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxvm {

/// The largest buffer `--arg buf:` allocates (its bytes are also built on the host).
constexpr uint64_t kMaxBufferBytes = uint64_t{16} << 30;

/// A device buffer an argument made, and the file its contents go to after the run.
struct Buffer {
  uint64_t address = 0, size = 0;
  std::string out;
};

/// What scalarArgument made of a spec.
enum class ScalarSpec { Scalar, NotScalar, Malformed };

/// The bytes of a scalar spec (`u32:`, `s32:`, `u64:`, `s64:`, `f32:`, `f64:`), little-endian;
/// NotScalar for any other kind (a buffer), Malformed with `error` for a value out of its type's
/// range. Needs no device: `ptxvm analyze --arg` reads the same specs.
ScalarSpec scalarArgument(const std::string &spec, std::vector<uint8_t> &bytes, std::string &error);

/// Builds one argument's bytes (and its buffer, allocated on `dev`); false
/// with `error` on a malformed spec, a value out of its type's range, an
/// unreadable or unwritable file, or memory `dev` cannot give.
bool buildArgument(const std::string &spec, runtime::Device &dev, std::vector<uint8_t> &bytes,
                   std::vector<Buffer> &buffers, std::string &error);

/// Whether an output file can be written, found out before the run rather
/// than after it (when the results would be lost).
bool writable(const std::string &path);

} // namespace ptxvm
