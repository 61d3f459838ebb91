#include "ptx/Layout.h"

#include "ptx/Types.h"

#include <algorithm>

namespace ptx {

namespace {
uint64_t elementBytes(const Variable &v) {
  return uint64_t{(bitWidth(v.type) + 7) / 8} * (v.vectorWidth ? v.vectorWidth : 1);
}
} // namespace

std::optional<uint64_t> variableBytes(const Variable &v) {
  uint64_t bytes = elementBytes(v);
  for (uint64_t d : v.dims)
    if (__builtin_mul_overflow(bytes, d, &bytes)) return std::nullopt;
  return bytes;
}

uint32_t naturalAlignment(const Variable &v) {
  if (v.alignment) return v.alignment;
  return static_cast<uint32_t>(std::max<uint64_t>(1, elementBytes(v)));
}

std::optional<ParamLayout> paramLayout(const Function &f) {
  ParamLayout layout;
  uint64_t cursor = 0;
  for (const Variable &p : f.params) {
    std::optional<uint64_t> bytes = variableBytes(p);
    uint64_t align = naturalAlignment(p);
    if (!bytes) return std::nullopt;
    cursor = (cursor + align - 1) / align * align;
    if (cursor > UINT32_MAX || *bytes > UINT32_MAX - cursor) return std::nullopt;
    layout.offsets.push_back(static_cast<uint32_t>(cursor));
    layout.sizes.push_back(static_cast<uint32_t>(*bytes));
    cursor += *bytes;
  }
  cursor = (cursor + 7) / 8 * 8;
  if (cursor > UINT32_MAX) return std::nullopt;
  layout.bytes = static_cast<uint32_t>(cursor);
  return layout;
}

} // namespace ptx
