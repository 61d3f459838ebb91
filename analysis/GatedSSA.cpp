// Gates of the φ-nodes: joins of each branch by labelling its region (the
// "sync dependence" of LLVM's uniformity analysis), the loops whose exits a
// branch decides, and the kind of each φ-node.
#include "analysis/GatedSSA.h"

#include "ptx/Writer.h"

#include <algorithm>

namespace analysis {

namespace {

/// Compressed rows from (row, value) pairs, rows in [0, n).
void toRows(std::vector<std::pair<uint32_t, uint32_t>> &pairs, uint32_t n, std::vector<uint32_t> &begin,
            std::vector<uint32_t> &data) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  begin.assign(n + 1, 0);
  for (auto [row, v] : pairs) ++begin[row + 1];
  for (uint32_t r = 0; r < n; ++r) begin[r + 1] += begin[r];
  data.resize(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) data[i] = pairs[i].second;
}

} // namespace

std::string_view gateKindName(GateKind k) {
  switch (k) {
  case GateKind::Gamma: return "gamma";
  case GateKind::Mu: return "mu";
  case GateKind::Eta: return "eta";
  }
  return "?";
}

GatedSSA::GatedSSA(const Cfg &cfg, const DominatorTree &postDom, const LoopForest &loops, const SSA &ssa)
    : cfg_(&cfg), loops_(&loops), ssa_(&ssa) {
  const uint32_t nodes = cfg.size();
  const DefUse &du = ssa.defUse();
  branchOfBlock_.assign(nodes, kNone);
  sideBegin_.push_back(0);
  condBegin_.push_back(0);
  for (uint32_t b : cfg.rpo()) {
    if (b == cfg.exit()) continue;
    uint32_t real = 0;
    for (uint32_t s : cfg.succs(b)) real += !cfg.isFakeEdge(b, s);
    uint32_t term = cfg.terminator(b);
    if (real < 2 || term == kNone) continue;
    branchOfBlock_[b] = static_cast<uint32_t>(branches_.size());
    branches_.push_back({b, term, postDom.idom(b)});
    for (uint32_t s : cfg.succs(b))
      if (!cfg.isFakeEdge(b, s)) sides_.push_back(s);
    sideBegin_.push_back(static_cast<uint32_t>(sides_.size()));
    auto uses = du.uses(term);
    auto values = ssa.useValues(term);
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].role == UseRole::Guard || uses[u].role == UseRole::Index) conds_.push_back(values[u]);
    condBegin_.push_back(static_cast<uint32_t>(conds_.size()));
  }

  regionStamp_.assign(nodes, 0);
  local_.assign(nodes, 0);
  regionBegin_.push_back(0);
  joinBegin_.push_back(0);
  exitedBegin_.push_back(0);
  wrappedBegin_.push_back(0);
  for (uint32_t br = 0; br < branches_.size(); ++br) propagate(br);
  for (std::vector<uint32_t> *v :
       {&regionStamp_, &local_, &nodes_, &order_, &pending_, &labels_, &succBegin_, &predBegin_, &preds_})
    *v = {};
  edges_ = {};
  joinFlags_ = {};
  sideFlags_ = {};

  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (uint32_t br = 0; br < branches_.size(); ++br)
    for (uint32_t j : joins(br)) pairs.emplace_back(j, br);
  toRows(pairs, nodes, gateBegin_, gates_);
  pairs.clear();
  for (uint32_t br = 0; br < branches_.size(); ++br)
    for (uint32_t l : exitedLoops(br)) pairs.emplace_back(l, br);
  toRows(pairs, static_cast<uint32_t>(loops.loops().size()), exitBranchBegin_, exitBranches_);
  pairs.clear();
  for (uint32_t l = 0; l < loops.loops().size(); ++l)
    for (uint32_t e : loops.loop(l).exitBlocks) pairs.emplace_back(e, l);
  toRows(pairs, nodes, exitOfBegin_, exitOf_);
}

void GatedSSA::propagate(uint32_t br) {
  const Cfg &cfg = *cfg_;
  const Branch &branch = branches_[br];
  const uint32_t x = branch.block, stamp = ++stamp_;
  auto inRegion = [&](uint32_t v) { return regionStamp_[v] == stamp; };
  // Labels stop at the reconvergence point, at the exit, and at headers of
  // loops around the branch (threads there start another iteration).
  auto stops = [&](uint32_t v) {
    if (v == branch.floor || v == cfg.exit()) return true;
    uint32_t l = loops_->headerOf(v);
    return l != kNone && loops_->contains(l, x);
  };
  // Whether edge v -> w carries v's label: the branch's own edges carry
  // the successor's label instead, and stops pass nothing on.
  auto passes = [&](uint32_t v, uint32_t w) { return v != x && !stops(v) && !cfg.isFakeEdge(v, w); };

  // The region: every node a label reaches. Local numbers: 0 stands for the
  // branch's edges, k + 1 for nodes[k].
  std::vector<uint32_t> &nodes = nodes_;
  nodes.clear();
  auto reach = [&](uint32_t v) {
    if (inRegion(v)) return;
    regionStamp_[v] = stamp;
    local_[v] = static_cast<uint32_t>(nodes.size() + 1);
    nodes.push_back(v);
  };
  for (uint32_t s : sides(br)) reach(s);
  for (size_t k = 0; k < nodes.size(); ++k)
    for (uint32_t w : cfg.succs(nodes[k]))
      if (passes(nodes[k], w)) reach(w);
  const uint32_t size = static_cast<uint32_t>(nodes.size() + 1);
  edges_.clear();
  for (uint32_t s : sides(br)) edges_.emplace_back(0, local_[s]);
  for (uint32_t k = 0; k + 1 < size; ++k)
    for (uint32_t w : cfg.succs(nodes[k]))
      if (passes(nodes[k], w)) edges_.emplace_back(k + 1, local_[w]);
  labelRegion(size);
  const std::vector<uint32_t> &label = labels_;
  const std::vector<char> &join = joinFlags_;

  // A node whose label is a join is reached by threads of several sides.
  auto succ = sides(br);
  const size_t regionStart = region_.size();
  for (uint32_t k = 1; k < size; ++k) {
    uint32_t l = label[k];
    uint32_t side = RegionNode::kMixed;
    if (!join[l]) {
      auto it = std::find(succ.begin(), succ.end(), nodes[l - 1]);
      if (it != succ.end()) side = static_cast<uint32_t>(it - succ.begin());
    }
    region_.push_back({nodes[k - 1], side});
    if (join[k]) joins_.push_back(nodes[k - 1]);
  }
  std::sort(region_.begin() + static_cast<std::ptrdiff_t>(regionStart), region_.end(),
            [](const RegionNode &a, const RegionNode &b) { return a.node < b.node; });
  std::sort(joins_.begin() + joinBegin_.back(), joins_.end());
  regionBegin_.push_back(static_cast<uint32_t>(region_.size()));
  joinBegin_.push_back(static_cast<uint32_t>(joins_.size()));

  // Loops around the branch that the labels leave.
  uint32_t inner = loops_->loopOf(x);
  if (inner != kNone) {
    uint32_t keepDepth = loops_->loop(inner).depth;
    for (size_t r = regionStart; r < region_.size(); ++r) {
      uint32_t common = loops_->commonLoop(inner, loops_->loopOf(region_[r].node));
      keepDepth = std::min(keepDepth, common == kNone ? 0u : loops_->loop(common).depth);
    }
    for (uint32_t l = inner; l != kNone && loops_->loop(l).depth > keepDepth; l = loops_->loop(l).parent)
      exited_.push_back(l);
  }
  exitedBegin_.push_back(static_cast<uint32_t>(exited_.size()));

  // Headers of loops around the branch reached before the floor, where the
  // floor is inside that loop and is not the header itself.
  for (size_t r = regionStart; r < region_.size(); ++r) {
    uint32_t v = region_[r].node;
    uint32_t l = v == branch.floor ? kNone : loops_->headerOf(v);
    if (l != kNone && loops_->contains(l, x) && loops_->contains(l, branch.floor)) wrapped_.push_back(l);
  }
  wrappedBegin_.push_back(static_cast<uint32_t>(wrapped_.size()));
}

void GatedSSA::labelRegion(uint32_t size) {
  // Each side is a definition of the label, each join a new one (a φ);
  // a node's label is the one definition reaching it. The side nodes are
  // the successors of local node 0. edges_ is ordered by source.
  std::vector<uint32_t> &label = labels_, &succBegin = succBegin_, &predBegin = predBegin_, &preds = preds_;
  std::vector<char> &join = joinFlags_, &side = sideFlags_;
  label.assign(size, kNone);
  join.assign(size, 0);
  side.assign(size, 0);
  succBegin.assign(size + 1, 0);
  predBegin.assign(size + 1, 0);
  for (auto [from, to] : edges_) {
    ++succBegin[from + 1];
    ++predBegin[to + 1];
  }
  for (uint32_t v = 0; v < size; ++v) {
    succBegin[v + 1] += succBegin[v];
    predBegin[v + 1] += predBegin[v];
  }
  preds.resize(edges_.size());
  {
    std::vector<uint32_t> &next = pending_;
    next.assign(predBegin.begin(), predBegin.end() - 1);
    for (auto [from, to] : edges_) preds[next[to]++] = from;
  }
  for (uint32_t k = succBegin[0]; k < succBegin[1]; ++k) side[edges_[k].second] = 1;

  // A node's label from its predecessors: the single label they carry (an
  // edge from the branch carries the side's own), or the node itself.
  auto rule = [&](uint32_t v) {
    uint32_t l = kNone;
    for (uint32_t k = predBegin[v]; k < predBegin[v + 1]; ++k) {
      uint32_t incoming = preds[k] == 0 ? v : label[preds[k]];
      if (incoming == kNone) continue;
      if (l == kNone)
        l = incoming;
      else if (l != incoming)
        join[v] = 1;
    }
    label[v] = join[v] ? v : l;
  };
  // Without cycles, predecessors first: every node sees its final inputs
  // (Kahn's topological order).
  std::vector<uint32_t> &order = order_, &pending = pending_;
  order.clear();
  for (uint32_t v = 0; v < size; ++v) pending[v] = predBegin[v + 1] - predBegin[v];
  order.push_back(0);
  for (size_t k = 0; k < order.size(); ++k)
    for (uint32_t e = succBegin[order[k]]; e < succBegin[order[k] + 1]; ++e)
      if (--pending[edges_[e].second] == 0) order.push_back(edges_[e].second);
  if (order.size() == size) {
    for (size_t k = 1; k < order.size(); ++k) rule(order[k]);
    return;
  }
  // With cycles: the joins are the iterated dominance frontier of the
  // sides (minimal SSA), and a node's label is the nearest definition
  // among its dominators. A side is a join when a label other than its own
  // comes back to it.
  std::vector<uint32_t> &idom = idom_, &rpo = rpo_;
  dominators(size);
  // Dominance frontiers by the runner walk, as (node, member) pairs.
  std::vector<std::pair<uint32_t, uint32_t>> &frontier = frontier_;
  frontier.clear();
  std::vector<uint32_t> &seen = pending_;
  seen.assign(size, kNone);
  for (uint32_t v = 1; v < size; ++v) {
    if (predBegin[v + 1] - predBegin[v] < 2) continue;
    for (uint32_t k = predBegin[v]; k < predBegin[v + 1]; ++k)
      for (uint32_t r = preds[k]; r != idom[v] && seen[r] != v; r = idom[r]) {
        seen[r] = v;
        frontier.emplace_back(r, v);
      }
  }
  // In rows by node (a counting sort).
  std::vector<uint32_t> &frontierBegin = frontierBegin_, &frontierOf = frontierOf_;
  frontierBegin.assign(size + 1, 0);
  for (auto [v, f] : frontier) ++frontierBegin[v + 1];
  for (uint32_t v = 0; v < size; ++v) frontierBegin[v + 1] += frontierBegin[v];
  frontierOf.resize(frontier.size());
  {
    std::vector<uint32_t> &next = seen;
    next.assign(frontierBegin.begin(), frontierBegin.end() - 1);
    for (auto [v, f] : frontier) frontierOf[next[v]++] = f;
  }
  std::vector<uint32_t> &work = order;
  work.clear();
  for (uint32_t v = 1; v < size; ++v)
    if (side[v]) work.push_back(v);
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    for (uint32_t k = frontierBegin[v]; k < frontierBegin[v + 1]; ++k) {
      uint32_t f = frontierOf[k];
      if (!side[f] && !join[f]) {
        join[f] = 1;
        work.push_back(f);
      }
    }
  }
  // Reverse post-order puts every dominator before the nodes it dominates.
  for (uint32_t v : rpo) {
    if (v == 0) continue;
    // Below the root only a side or a node reached from several sides.
    if (!side[v] && !join[v] && idom[v] == 0) join[v] = 1;
    label[v] = side[v] || join[v] ? v : label[idom[v]];
  }
  for (uint32_t v = 1; v < size; ++v)
    if (side[v])
      for (uint32_t k = predBegin[v]; k < predBegin[v + 1]; ++k)
        if (preds[k] != 0 && label[preds[k]] != v) join[v] = 1;
}

void GatedSSA::dominators(uint32_t size) {
  std::vector<uint32_t> &idom = idom_, &rpo = rpo_, &rpoIndex = rpoIndex_;
  idom.assign(size, kNone);
  rpo.clear();
  if (size > kSmallRegion) {
    // Lengauer and Tarjan on large regions.
    Graph g(size, edges_);
    DominatorTree tree(g, 0);
    for (uint32_t v = 0; v < size; ++v) idom[v] = v == 0 ? 0 : tree.idom(v);
    // Pre-order of the tree: dominators first, as reverse post-order.
    rpo.assign(tree.preorder().begin(), tree.preorder().end());
    return;
  }
  // Small regions: Cooper, Harvey and Kennedy's iteration over the reverse
  // post-order, in scratch that every branch reuses.
  rpoIndex.assign(size, kNone);
  std::vector<std::pair<uint32_t, uint32_t>> &stack = dfs_;
  stack.assign(1, {0, succBegin_[0]});
  rpoIndex[0] = 0;
  while (!stack.empty()) {
    auto &[v, e] = stack.back();
    if (e < succBegin_[v + 1]) {
      uint32_t w = edges_[e++].second;
      if (rpoIndex[w] == kNone) {
        rpoIndex[w] = 0;
        stack.emplace_back(w, succBegin_[w]);
      }
      continue;
    }
    rpo.push_back(v);
    stack.pop_back();
  }
  std::reverse(rpo.begin(), rpo.end());
  for (uint32_t k = 0; k < rpo.size(); ++k) rpoIndex[rpo[k]] = k;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (rpoIndex[a] > rpoIndex[b]) a = idom[a];
      while (rpoIndex[b] > rpoIndex[a]) b = idom[b];
    }
    return a;
  };
  idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t k = 1; k < rpo.size(); ++k) {
      uint32_t v = rpo[k], d = kNone;
      for (uint32_t j = predBegin_[v]; j < predBegin_[v + 1]; ++j) {
        uint32_t p = preds_[j];
        if (idom[p] == kNone) continue;
        d = d == kNone ? p : intersect(p, d);
      }
      if (d != idom[v]) {
        idom[v] = d;
        changed = true;
      }
    }
  }
}

GateKind GatedSSA::kind(uint32_t phi) const {
  uint32_t b = ssa_->phis()[phi].block;
  if (loops_->headerOf(b) != kNone) return GateKind::Mu;
  if (!exitOf(b).empty()) return GateKind::Eta;
  return GateKind::Gamma;
}

std::string GatedSSA::branchName(uint32_t br) const {
  const ptx::Instruction &in = cfg_->function().instrs[branches_[br].instr];
  return cfg_->blockName(branches_[br].block) + "(line " + std::to_string(in.loc.line) + ")";
}

std::string GatedSSA::describePhi(uint32_t p) const {
  const Cfg &cfg = *cfg_;
  const Phi &phi = ssa_->phis()[p];
  const uint32_t v = phi.block;
  std::string out = std::string(gateKindName(kind(p))) + ' ' + ssa_->valueName(phi.value) + " = [";
  auto in = ssa_->incoming(p);
  auto preds = cfg.preds(v);
  for (uint32_t j = 0; j < in.size(); ++j) {
    if (j) out += ", ";
    out +=
        (j < preds.size() ? cfg.blockName(preds[j]) : std::string("entry")) + ": " + ssa_->valueName(in[j]);
  }
  out += ']';
  if (!gates(v).empty()) {
    out += " if";
    for (uint32_t br : gates(v)) out += ' ' + branchName(br);
  }
  for (uint32_t l : exitOf(v)) {
    out += " leaving loop " + std::to_string(l);
    if (!exitBranches(l).empty()) {
      out += " when";
      for (uint32_t br : exitBranches(l)) out += ' ' + branchName(br);
    }
  }
  return out;
}

std::string GatedSSA::print(const ptx::Module &m) const {
  const Cfg &cfg = *cfg_;
  std::string out;
  for (uint32_t v = 0; v < cfg.size(); ++v)
    for (uint32_t p : ssa_->phisOf(v)) out += cfg.blockName(v, &m) + ": " + describePhi(p) + '\n';
  for (uint32_t br = 0; br < branches_.size(); ++br) {
    out += "branch " + branchName(br) + " reconverges at " + cfg.blockName(branches_[br].floor) + "; joins";
    for (uint32_t j : joins(br)) out += ' ' + cfg.blockName(j);
    if (!exitedLoops(br).empty()) {
      out += "; decides exits of loop";
      for (uint32_t l : exitedLoops(br)) out += ' ' + std::to_string(l);
    }
    if (!wrappedLoops(br).empty()) {
      out += "; wraps loop";
      for (uint32_t l : wrappedLoops(br)) out += ' ' + std::to_string(l);
    }
    out += '\n';
  }
  return out;
}

} // namespace analysis
