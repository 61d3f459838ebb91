// Post-dominator tree of a function's CFG, with a virtual exit that every
// block without successors (and every infinite loop) reaches. The emulator
// reconverges divergent warps at immediate post-dominators; the divergence
// analysis uses the same tree (over its own CFG view) for control dependence.
#pragma once

#include "analysis/Dominators.h"
#include "ptx/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace analysis {

/// The emulator's view: the CFG without the edge of a guarded device-function
/// `ret` (lanes that return early wait for the call to finish).
class PostDominatorTree {
public:
  static constexpr uint32_t kNone = analysis::kNone;

  explicit PostDominatorTree(const ptx::Function &fn);

  /// The virtual exit's index: one past the last block.
  uint32_t virtualExit() const { return numBlocks_; }
  /// Immediate post-dominator of block `b`: another block, or virtualExit().
  uint32_t ipdom(uint32_t b) const { return tree_.idom(b); }
  /// Whether `a` post-dominates `b` (every block post-dominates itself).
  bool postDominates(uint32_t a, uint32_t b) const { return tree_.dominates(a, b); }
  const DominatorTree &tree() const { return tree_; }
  /// One line per block: `bb3 -> ipdom bb5`, for tests.
  std::string print() const;

private:
  uint32_t numBlocks_;
  DominatorTree tree_;
};

} // namespace analysis
