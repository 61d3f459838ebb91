// What the divergence and affine analyses (analysis/Divergence.h) prove
// about a kernel's memory addresses, in the terms the code generator uses:
// per pc, whether the base register of its address is the same in every
// lane of a warp (one address: no per-lane span to compute), or steps by the
// access size with %tid.x (consecutive lanes where each warp is one row of
// the block: a one-dimensional block, or %ntid.x a multiple of 32).
// Without facts every access computes its span at run time; with them the
// checks the facts settle are left out (Sampaio et al.: divergence analysis
// "improves the translation of SIMD code to non-SIMD CPUs").
#pragma once

#include <cstdint>
#include <vector>

namespace emu {
struct Kernel;
}

namespace translator {

struct AddressFacts {
  enum Kind : uint8_t {
    None = 0,
    Uniform = 1,     // the base register is warp-uniform
    Consecutive = 2, // base = u + size * %tid.x, u warp-uniform
  };
  /// Per pc of the kernel's code (device functions included).
  std::vector<uint8_t> kind;
  /// Per code region (emu::Kernel::regions), per register slot: 1 when
  /// every value the register takes in that function is warp-uniform, so
  /// that the lanes of any group running there hold the same value and
  /// compiled code keeps it as one scalar. Empty: none known.
  std::vector<std::vector<uint8_t>> uniformSlots;
};

/// The facts for every memory access of `k` (ld, ldu, st with a register
/// base) and its registers. Empty (all None) when the analysis cannot run.
AddressFacts addressFacts(const emu::Kernel &k);

} // namespace translator
