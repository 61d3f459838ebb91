// Leaving SSA form, for transforms that give SSA values registers of their
// own (renaming, coalescing, register allocation): each φ-node becomes a
// copy on each incoming edge. The copies of one edge happen at once (a
// parallel copy); sequentialize() orders them into moves, with a temporary
// only where they form a cycle (the "swap problem"). Copies on a critical
// edge (from a block with several successors to one with several
// predecessors) need a block of their own on that edge.
#pragma once

#include "analysis/SSA.h"

#include <span>
#include <vector>

namespace analysis {

/// dst := src, between locations (registers, or the temporary).
struct Copy {
  uint32_t dst, src;
  bool operator==(const Copy &) const = default;
};

struct EdgeCopies {
  uint32_t from, to;        // a CFG edge
  bool critical;            // the copies need a new block on the edge
  std::vector<Copy> copies; // in execution order, sequentialized
};

/// Orders the parallel copy `parallel` (every destination distinct; all
/// sources are read before any destination is written) into sequential
/// moves with the same effect, using `temp` (not among the locations) to
/// break cycles. Copies whose source is their destination are dropped.
std::vector<Copy> sequentialize(std::span<const Copy> parallel, uint32_t temp);

/// The moves that implement every φ-node of `ssa` when value v lives in
/// register registerOf[v]: for each edge into a block with φ-nodes, the
/// parallel copy φ := incoming, sequentialized with `temp`. Edges whose
/// copies all vanish are left out. The function-entry value of an entry
/// block φ (no edge) is left out too: its register must already hold it.
std::vector<EdgeCopies> phiCopies(const SSA &ssa, std::span<const uint32_t> registerOf, uint32_t temp);

} // namespace analysis
