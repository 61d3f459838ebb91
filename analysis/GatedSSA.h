// Gated SSA (after Tu and Padua, as used by Sampaio et al. for divergence):
// each φ-node knows which branches decide the value it selects, so control
// dependence on a branch predicate becomes data dependence on a gate.
//   γ  at a join: gated by the branches whose two sides first meet there;
//   μ  at a loop header: merges the value on entry with the loop-carried one;
//   η  at a loop exit: gated by the branches that decide in which iteration a
//      thread leaves the loop (temporal divergence).
// The joins of a branch: one label per successor travels forward until the
// branch's immediate post-dominator (the reconvergence point), without
// re-entering loops around the branch; a block reached with two labels is a
// join and passes on a label of its own. Each branch's region is labelled in
// one pass, in topological order, or where it has cycles as minimal SSA
// would place φ-nodes for a variable written by each side (the iterated
// dominance frontier of the sides in the region), so the cost is linear in
// the region's size. A branch whose labels leave a loop around it makes
// that loop's exits depend on it. A branch whose labels come back to the
// header of a loop around it before reconverging inside that loop (a
// `continue` that skips the block where the sides meet) lets threads reach
// the reconvergence point after different numbers of iterations: such a
// loop is "wrapped" by the branch, and every value of the loop depends on it.
#pragma once

#include "analysis/Cfg.h"
#include "analysis/DefUse.h"
#include "analysis/Dominators.h"
#include "analysis/Loops.h"
#include "analysis/SSA.h"

#include <span>
#include <string>
#include <vector>

namespace analysis {

enum class GateKind : uint8_t { Gamma, Mu, Eta };
std::string_view gateKindName(GateKind k); // "gamma", "mu", "eta"

/// A block whose terminator can send threads to different successors.
struct Branch {
  uint32_t block;
  uint32_t instr; // the terminator (bra, brx.idx, a guarded ret)
  uint32_t floor; // immediate post-dominator: where all sides reconverge
};

/// A node reached from a branch before its reconvergence point, and from
/// which side: the index among the branch's successors, or kMixed when
/// threads from different sides can both reach it.
struct RegionNode {
  uint32_t node;
  uint32_t side;
  static constexpr uint32_t kMixed = UINT32_MAX;
};

class GatedSSA {
public:
  GatedSSA(const Cfg &cfg, const DominatorTree &postDom, const LoopForest &loops, const SSA &ssa);

  const Cfg &cfg() const { return *cfg_; }
  const SSA &ssa() const { return *ssa_; }
  const LoopForest &loops() const { return *loops_; }

  std::span<const Branch> branches() const { return branches_; }
  /// The branch ending block `b`, or kNone.
  uint32_t branchOfBlock(uint32_t b) const { return b < branchOfBlock_.size() ? branchOfBlock_[b] : kNone; }
  /// The branch's successors, in CFG order (fake edges left out).
  std::span<const uint32_t> sides(uint32_t branch) const { return slice(sideBegin_, sides_, branch); }
  /// The values the branch decides on (its guard, the brx.idx index).
  std::span<const ValueId> conditions(uint32_t branch) const { return slice(condBegin_, conds_, branch); }
  /// Nodes reached from the branch up to and including its floor; loop
  /// headers around the branch end the walk (they are included).
  std::span<const RegionNode> region(uint32_t branch) const { return slice(regionBegin_, region_, branch); }
  /// Nodes where threads from different sides meet: the γ gates' blocks.
  std::span<const uint32_t> joins(uint32_t branch) const { return slice(joinBegin_, joins_, branch); }
  /// Loops around the branch that threads can leave on one side while
  /// others stay (the branch is among their exitBranches).
  std::span<const uint32_t> exitedLoops(uint32_t branch) const {
    return slice(exitedBegin_, exited_, branch);
  }
  /// Loops around the branch whose header a side reaches again before the
  /// sides reconverge inside the loop.
  std::span<const uint32_t> wrappedLoops(uint32_t branch) const {
    return slice(wrappedBegin_, wrapped_, branch);
  }

  /// Branches for which node `v` is a join.
  std::span<const uint32_t> gates(uint32_t v) const { return slice(gateBegin_, gates_, v); }
  /// Branches that decide when threads leave loop `l`.
  std::span<const uint32_t> exitBranches(uint32_t l) const {
    return slice(exitBranchBegin_, exitBranches_, l);
  }
  /// Loops of which node `v` is an exit block.
  std::span<const uint32_t> exitOf(uint32_t v) const { return slice(exitOfBegin_, exitOf_, v); }

  /// μ at loop headers, η at loop exits, γ elsewhere.
  GateKind kind(uint32_t phi) const;

  /// Every φ-node with its kind, incoming values and gates, then every
  /// branch with its joins and the loops whose exits it decides.
  std::string print(const ptx::Module &m) const;
  /// One φ-node (an index into SSA::phis()) as print() writes it, without
  /// its block: "gamma %r5.2 = [B1: %r5.1, B2: %r5.0] if B0(line 12)".
  std::string describePhi(uint32_t phi) const;
  /// "B0(line 12)": a branch's block and PTX line.
  std::string branchName(uint32_t branch) const;

private:
  template <class T>
  static std::span<const T> slice(const std::vector<uint32_t> &begin, const std::vector<T> &data,
                                  uint32_t i) {
    return {data.data() + begin[i], begin[i + 1] - begin[i]};
  }
  void propagate(uint32_t branch);
  /// Labels (labels_) of the region graph in edges_ (node 0: the branch),
  /// and which nodes are joins (joinFlags_).
  void labelRegion(uint32_t size);
  /// Immediate dominators (idom_) of the region graph from node 0, and an
  /// order with every dominator first (rpo_).
  void dominators(uint32_t size);
  /// Regions up to this size get their dominators by iteration in scratch
  /// (no allocation per branch); larger ones by Lengauer and Tarjan.
  static constexpr uint32_t kSmallRegion = 256;

  const Cfg *cfg_;
  const LoopForest *loops_;
  const SSA *ssa_;
  std::vector<Branch> branches_;
  std::vector<uint32_t> branchOfBlock_;
  std::vector<uint32_t> sideBegin_, sides_, condBegin_;
  std::vector<ValueId> conds_;
  std::vector<uint32_t> regionBegin_, joinBegin_, exitedBegin_, wrappedBegin_;
  std::vector<RegionNode> region_;
  std::vector<uint32_t> joins_, exited_, wrapped_;
  std::vector<uint32_t> gateBegin_, gates_, exitBranchBegin_, exitBranches_, exitOfBegin_, exitOf_;
  // Scratch of the region walks, reused by every branch.
  std::vector<uint32_t> regionStamp_, local_, nodes_, order_, pending_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
  std::vector<uint32_t> labels_, succBegin_, predBegin_, preds_, idom_, rpo_, rpoIndex_, frontierBegin_,
      frontierOf_;
  std::vector<std::pair<uint32_t, uint32_t>> frontier_, dfs_;
  std::vector<char> joinFlags_, sideFlags_;
  uint32_t stamp_ = 0;
};

} // namespace analysis
