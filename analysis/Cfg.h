// The control-flow graph as the analyses see it: a function's basic blocks
// plus one virtual exit node, in a compact graph with edge kinds, reverse
// post-order and reachability from the entry.
#pragma once

#include "ptx/IR.h"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace analysis {

constexpr uint32_t kNone = UINT32_MAX;

/// A directed graph in compressed rows: the successors and the predecessors
/// of a node are contiguous slices, in the order the edges were given.
class Graph {
public:
  Graph() = default;
  Graph(uint32_t numNodes, std::span<const std::pair<uint32_t, uint32_t>> edges);

  uint32_t size() const { return static_cast<uint32_t>(succBegin_.empty() ? 0 : succBegin_.size() - 1); }
  size_t numEdges() const { return succ_.size(); }
  std::span<const uint32_t> succs(uint32_t v) const {
    return {succ_.data() + succBegin_[v], succBegin_[v + 1] - succBegin_[v]};
  }
  std::span<const uint32_t> preds(uint32_t v) const {
    return {pred_.data() + predBegin_[v], predBegin_[v + 1] - predBegin_[v]};
  }
  /// The same nodes with every edge turned around.
  Graph reversed() const;

private:
  std::vector<uint32_t> succBegin_, succ_, predBegin_, pred_;
};

/// Why a block has an edge to the virtual exit.
enum class ExitEdge : uint8_t {
  None,
  Return, // `ret` of a device function (guarded or not), or falling off its end
  Death,  // `exit`, `trap`, a kernel's `ret` or end: the threads end
  Fake,   // added so that blocks of an infinite loop reach the exit
};

struct CfgOptions {
  /// Give a guarded `ret` of a device function its edge to the exit. The
  /// emulator's reconvergence points are computed without it (lanes that
  /// return wait for the call to finish), the dataflow analyses with it.
  bool guardedReturnEdges = true;
};

/// Nodes 0..numBlocks()-1 are the function's blocks (Function::blocks), node
/// numBlocks() is the virtual exit. Every block without successors, and every
/// guarded device-function `ret`, has an edge to the exit; blocks that cannot
/// reach it (infinite loops) get a fake edge from the last block (by index)
/// of each such region, so every node reaches the exit. Predecessor lists
/// are ordered by source node.
class Cfg {
public:
  explicit Cfg(const ptx::Function &fn, CfgOptions options = {});

  const ptx::Function &function() const { return *fn_; }
  uint32_t numBlocks() const { return numBlocks_; }
  /// Number of nodes: the blocks and the exit.
  uint32_t size() const { return numBlocks_ + 1; }
  uint32_t entry() const { return numBlocks_ == 0 ? numBlocks_ : 0; }
  uint32_t exit() const { return numBlocks_; }
  const Graph &graph() const { return graph_; }
  std::span<const uint32_t> succs(uint32_t v) const { return graph_.succs(v); }
  std::span<const uint32_t> preds(uint32_t v) const { return graph_.preds(v); }
  /// Where v appears among the predecessors of its i-th successor.
  uint32_t predIndex(uint32_t v, uint32_t i) const { return predIndex_[succOffset_[v] + i]; }
  ExitEdge exitEdge(uint32_t block) const { return exitEdge_[block]; }
  /// Whether edge v -> w is a fake edge (only edges to the exit can be).
  bool isFakeEdge(uint32_t v, uint32_t w) const { return w == exit() && exitEdge_[v] == ExitEdge::Fake; }

  /// Nodes reachable from the entry, in reverse post-order of a depth-first
  /// search that visits successors in order.
  std::span<const uint32_t> rpo() const { return rpo_; }
  /// Position of `v` in rpo(), or kNone when unreachable.
  uint32_t rpoIndex(uint32_t v) const { return rpoIndex_[v]; }
  bool reachable(uint32_t v) const { return rpoIndex_[v] != kNone; }

  /// The block holding instruction `instr` (an index into Function::instrs).
  uint32_t blockOf(uint32_t instr) const { return blockOfInstr_[instr]; }
  /// The last instruction of block `b`, or kNone for an empty block.
  uint32_t terminator(uint32_t b) const;

  /// `bb3`, or `bb3($L__BB0_4)` when the module is given; `exit` for the
  /// virtual exit.
  std::string blockName(uint32_t v, const ptx::Module *m = nullptr) const;
  /// One line per node: `bb0 -> bb1 bb2`, for tests.
  std::string print(const ptx::Module *m = nullptr) const;

private:
  const ptx::Function *fn_;
  uint32_t numBlocks_;
  Graph graph_;
  std::vector<ExitEdge> exitEdge_;
  std::vector<uint32_t> rpo_, rpoIndex_, blockOfInstr_, succOffset_, predIndex_;
};

} // namespace analysis
