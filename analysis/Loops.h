// The loop nesting forest of a CFG, irreducible loops included: each loop is
// a strongly connected region with one header (reducible) or several entry
// blocks (irreducible), found as in Steensgaard's decomposition.
#pragma once

#include "analysis/Cfg.h"

#include <span>
#include <string>
#include <vector>

namespace analysis {

struct Loop {
  uint32_t parent = kNone;
  uint32_t depth = 1; // outermost loops have depth 1
  /// Blocks entered from outside the loop (or the function entry); more
  /// than one makes the loop irreducible.
  std::vector<uint32_t> headers;
  /// Every block of the loop, nested loops' blocks included, ascending.
  std::vector<uint32_t> blocks;
  /// Edges from a block of the loop to a header.
  std::vector<std::pair<uint32_t, uint32_t>> backEdges;
  /// Edges leaving the loop (the virtual exit counts as outside).
  std::vector<std::pair<uint32_t, uint32_t>> exits;
  /// Targets of `exits`, without repeats, ascending.
  std::vector<uint32_t> exitBlocks;
  bool irreducible() const { return headers.size() > 1; }
};

class LoopForest {
public:
  LoopForest() = default;
  explicit LoopForest(const Cfg &cfg);

  /// Loops in pre-order: a loop's descendants follow it contiguously.
  std::span<const Loop> loops() const { return loops_; }
  const Loop &loop(uint32_t id) const { return loops_[id]; }
  /// The innermost loop holding block `b`, or kNone.
  uint32_t loopOf(uint32_t b) const { return b < loopOf_.size() ? loopOf_[b] : kNone; }
  /// The loop whose header `b` is, or kNone.
  uint32_t headerOf(uint32_t b) const { return b < headerOf_.size() ? headerOf_[b] : kNone; }
  /// Whether loop `id` holds block `b` (directly or in a nested loop); O(1).
  bool contains(uint32_t id, uint32_t b) const {
    uint32_t l = loopOf(b);
    return l != kNone && l >= id && l <= lastDescendant_[id];
  }
  /// Whether loop `outer` is `inner` or one of its ancestors.
  bool encloses(uint32_t outer, uint32_t inner) const {
    return inner != kNone && inner >= outer && inner <= lastDescendant_[outer];
  }
  /// The innermost loop holding both loops (kNone if none does).
  uint32_t commonLoop(uint32_t a, uint32_t b) const;
  /// The outermost loop around block `b`, or kNone.
  uint32_t outermostLoopOf(uint32_t b) const;

  /// One line per loop: `loop 0 (depth 1) headers bb1 blocks bb1 bb2 exits bb3`.
  std::string print(const Cfg &cfg) const;

private:
  void decompose(const Cfg &cfg, std::span<const uint32_t> nodes, uint32_t parent);

  std::vector<Loop> loops_;
  std::vector<uint32_t> loopOf_, headerOf_, lastDescendant_;
  // Scratch for the strongly-connected-component search, reused per level.
  std::vector<uint32_t> inSet_, index_, low_, compOf_;
  uint32_t setStamp_ = 0;
};

} // namespace analysis
