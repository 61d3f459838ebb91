// The sizes and places of PTX variables as the ABI lays them out: a
// variable's bytes (array dimensions and vector width included) and natural
// alignment, and a function's parameter buffer. Every device computes layouts
// here, so a size that does not fit in 64 bits is caught once, as a value,
// rather than wrapping around in each place that multiplies dimensions.
#pragma once

#include "ptx/IR.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ptx {

/// The bytes of `v` (an unsized `[]` counts 0), or nullopt when the product
/// of its element size and dimensions does not fit in 64 bits.
std::optional<uint64_t> variableBytes(const Variable &v);

/// `.align N` when given, else the element's size (vector width included).
uint32_t naturalAlignment(const Variable &v);

/// Where a function's parameters lie in its parameter buffer.
struct ParamLayout {
  uint32_t bytes = 0; // the buffer, rounded up to 8
  std::vector<uint32_t> offsets, sizes;
};
/// The layout of `f`'s parameters, each at its natural alignment; nullopt
/// when a parameter's size overflows or the buffer passes 4 GiB.
std::optional<ParamLayout> paramLayout(const Function &f);

} // namespace ptx
