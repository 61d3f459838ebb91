// PTX generators for the analysis tests: kernels whose CFG is an arbitrary
// graph (every block ends in brx.idx over its successors), and random
// programs over a few registers for checking SSA against reaching
// definitions computed by brute force.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace analysis::test {

/// A kernel `g` whose block i is labelled Li and has exactly the given
/// successors, in order (none: `ret`). Block 0 is the entry.
std::string graphKernel(uint32_t numBlocks, const std::vector<std::pair<uint32_t, uint32_t>> &edges);

/// Random edges over `n` blocks: each block gets 0-3 successors, block i
/// always one of i+1 (when it exists) so most blocks are reachable.
std::vector<std::pair<uint32_t, uint32_t>> randomEdges(uint32_t n, std::mt19937 &rng);

/// A random kernel `r` on the CFG of randomEdges: each block reads and
/// writes registers %r1..%r6, some writes guarded by %p1.
std::string randomProgram(uint32_t n, std::mt19937 &rng);

} // namespace analysis::test
