// The joins of a branch computed the way GatedSSA did before it labelled
// each region in one pass: labels propagated by a worklist until nothing
// changes. Slow (a label can change many times on irreducible regions), and
// kept as the oracle the fast version must agree with.
#pragma once

#include "analysis/GatedSSA.h"

#include <vector>

namespace analysis::test {

struct ReferenceRegion {
  std::vector<RegionNode> region; // by node
  std::vector<uint32_t> joins;    // ascending
};

/// Region and joins of branch `br` of `g`, by chaotic label propagation.
ReferenceRegion referenceRegion(const GatedSSA &g, uint32_t br);

} // namespace analysis::test
