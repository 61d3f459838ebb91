// Operand values for the differential test: for each PTX type a list of edge
// values (zeros of both signs, infinities, NaNs, subnormals, the largest and
// smallest normals, INT_MIN/INT_MAX, shift amounts at and past the width,
// conversion boundaries such as 2^31 and 65520) and a random mix, from a
// seeded generator that gives the same values on every machine.
#pragma once

#include "ptx/Types.h"

#include <cstdint>
#include <vector>

namespace ptxvm::test {

/// splitmix64: portable, so inputs can be regenerated anywhere (also on the
/// machine that records the GPU's answers).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// The edge values of a type, as register bits.
const std::vector<uint64_t> &edgeValues(ptx::Type t);
/// A random value of a type: a random edge, random bits, or a random value
/// of moderate size (so that sums and products interact).
uint64_t randomValue(ptx::Type t, Rng &rng);

} // namespace ptxvm::test
