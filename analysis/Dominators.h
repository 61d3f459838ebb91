// Dominator trees of any Graph from a root (Lengauer and Tarjan), and the
// dominance frontiers SSA construction needs. The post-dominator tree is the
// dominator tree of the reversed CFG rooted at the virtual exit.
#pragma once

#include "analysis/Cfg.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace analysis {

class DominatorTree {
public:
  DominatorTree() = default;
  DominatorTree(const Graph &g, uint32_t root);

  /// The forward tree of a CFG, rooted at its entry.
  static DominatorTree forward(const Cfg &cfg) { return DominatorTree(cfg.graph(), cfg.entry()); }
  /// The post-dominator tree of a CFG, rooted at its virtual exit.
  static DominatorTree backward(const Cfg &cfg) { return DominatorTree(cfg.graph().reversed(), cfg.exit()); }

  uint32_t size() const { return static_cast<uint32_t>(idom_.size()); }
  uint32_t root() const { return root_; }
  /// The immediate dominator; kNone for the root and for unreachable nodes.
  uint32_t idom(uint32_t v) const { return idom_[v]; }
  bool reachable(uint32_t v) const { return v == root_ || idom_[v] != kNone; }
  /// Whether `a` dominates `b` (every node dominates itself); O(1).
  bool dominates(uint32_t a, uint32_t b) const {
    return reachable(a) && reachable(b) && pre_[a] <= pre_[b] && post_[b] <= post_[a];
  }
  std::span<const uint32_t> children(uint32_t v) const {
    return {child_.data() + childBegin_[v], childBegin_[v + 1] - childBegin_[v]};
  }
  uint32_t depth(uint32_t v) const { return depth_[v]; }
  /// The reachable nodes in a pre-order of the tree (parents first).
  std::span<const uint32_t> preorder() const { return preorder_; }
  /// The deepest node dominating both (kNone if either is unreachable).
  uint32_t nearestCommonDominator(uint32_t a, uint32_t b) const;

  /// One line per node: `bb2 -> idom bb0`.
  std::string print(const std::function<std::string(uint32_t)> &name) const;

private:
  uint32_t root_ = kNone;
  std::vector<uint32_t> idom_, childBegin_, child_, depth_, pre_, post_, preorder_;
};

/// DF(v): the nodes where v's dominance ends (Cytron et al., computed with
/// the "runner" walk of Cooper, Harvey and Kennedy).
class DominanceFrontier {
public:
  DominanceFrontier() = default;
  DominanceFrontier(const Graph &g, const DominatorTree &tree);
  std::span<const uint32_t> of(uint32_t v) const {
    return {frontier_.data() + begin_[v], begin_[v + 1] - begin_[v]};
  }

private:
  std::vector<uint32_t> begin_, frontier_;
};

} // namespace analysis
