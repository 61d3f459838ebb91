// What one kernel or module may lay out (constant banks, shared, local and
// parameter memory, register slots), shared by module loading
// (ModuleLoad.cpp) and kernel decoding (Decoder.cpp). Internal to emulator/.
#pragma once

#include "ptx/IR.h"
#include "ptx/Layout.h"

#include <cstdint>
#include <optional>

namespace emu::limits {

inline uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

// What one kernel may lay out, far beyond what real kernels use and what
// ptxas accepts, and small enough that no layout arithmetic can wrap and a
// CTA's buffers stay allocatable: beyond them a module or kernel is refused
// with a resource-limit diagnostic.
constexpr uint64_t kMaxConstBank = 64 << 10;     // ptxas: 0x10000 of global constant data
constexpr uint64_t kMaxStaticShared = 227 << 10; // the most an H100 CTA can have, dynamic included
constexpr uint64_t kMaxLocalPerThread = 512 << 10;
constexpr uint64_t kMaxParamFrame = 1 << 20;     // a kernel's parameters or a call's .param frame
constexpr uint32_t kMaxRegisterSlots = 1u << 20; // 64-bit registers per thread of one function

/// The bytes of `v` as laid out, or nullopt when they do not fit in 64 bits
/// (the verifier rejects such declarations; the decoder refuses them too).
inline std::optional<uint64_t> bytesOf(const ptx::Variable &v) { return ptx::variableBytes(v); }

} // namespace emu::limits
