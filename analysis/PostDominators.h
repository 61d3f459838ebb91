// Post-dominator tree of a function's CFG, with a virtual exit that every
// block without successors (and every infinite loop) reaches. The emulator
// reconverges divergent warps at immediate post-dominators; the divergence
// analysis uses the same tree for control dependence.
#pragma once

#include "ptx/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace analysis {

class PostDominatorTree {
public:
  /// The virtual exit's index: one past the last block.
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit PostDominatorTree(const ptx::Function &fn);

  uint32_t virtualExit() const { return numBlocks_; }
  /// Immediate post-dominator of block `b`: another block, or virtualExit().
  uint32_t ipdom(uint32_t b) const { return ipdom_[b]; }
  /// Whether `a` post-dominates `b` (every block post-dominates itself).
  bool postDominates(uint32_t a, uint32_t b) const;
  /// One line per block: `bb3 -> ipdom bb5`, for tests.
  std::string print() const;

private:
  uint32_t numBlocks_;
  std::vector<uint32_t> ipdom_; // size numBlocks_ + 1; the exit's is kNone
};

} // namespace analysis
