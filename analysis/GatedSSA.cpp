// Gates of the φ-nodes: joins of each branch by label propagation (the
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

  label_.assign(nodes, kNone);
  labelStamp_.assign(nodes, 0);
  joinStamp_.assign(nodes, 0);
  queuedStamp_.assign(nodes, 0);
  regionBegin_.push_back(0);
  joinBegin_.push_back(0);
  exitedBegin_.push_back(0);
  wrappedBegin_.push_back(0);
  for (uint32_t br = 0; br < branches_.size(); ++br) propagate(br);
  label_ = {};
  labelStamp_ = {};
  joinStamp_ = {};
  queuedStamp_ = {};

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
  auto labeled = [&](uint32_t v) { return labelStamp_[v] == stamp; };
  auto isJoin = [&](uint32_t v) { return joinStamp_[v] == stamp; };
  // Labels stop at the reconvergence point, at the exit, and at headers of
  // loops around the branch (threads there start another iteration).
  auto stops = [&](uint32_t v) {
    if (v == branch.floor || v == cfg.exit()) return true;
    uint32_t l = loops_->headerOf(v);
    return l != kNone && loops_->contains(l, x);
  };
  std::vector<uint32_t> work;
  const size_t regionStart = region_.size();
  auto push = [&](uint32_t v) {
    if (queuedStamp_[v] == stamp) return;
    queuedStamp_[v] = stamp;
    work.push_back(v);
  };
  for (uint32_t s : sides(br)) push(s);
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    queuedStamp_[v] = 0;
    // A node's label: the one label all its labelled predecessors carry, or
    // the node itself when they differ. The edge from the branch carries the
    // successor's own label.
    uint32_t label = kNone;
    bool join = false;
    for (uint32_t p : cfg.preds(v)) {
      if (cfg.isFakeEdge(p, v)) continue;
      uint32_t incoming = p == x ? v : (labeled(p) && !stops(p) ? label_[p] : kNone);
      if (incoming == kNone) continue;
      if (label == kNone)
        label = incoming;
      else if (label != incoming)
        join = true;
    }
    if (label == kNone) continue;
    if (join) label = v;
    bool changed = !labeled(v) || label_[v] != label;
    if (!labeled(v)) {
      labelStamp_[v] = stamp;
      region_.push_back({v, 0});
    }
    if (join && !isJoin(v)) {
      joinStamp_[v] = stamp;
      joins_.push_back(v);
    }
    label_[v] = label;
    if (changed && !stops(v))
      for (uint32_t s : cfg.succs(v))
        if (!cfg.isFakeEdge(v, s)) push(s);
  }
  // Sides: a label that is a join node means threads of several sides.
  auto succ = sides(br);
  for (size_t r = regionStart; r < region_.size(); ++r) {
    uint32_t l = label_[region_[r].node];
    if (isJoin(l)) {
      region_[r].side = RegionNode::kMixed;
    } else {
      auto it = std::find(succ.begin(), succ.end(), l);
      region_[r].side = it == succ.end() ? RegionNode::kMixed : static_cast<uint32_t>(it - succ.begin());
    }
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

GateKind GatedSSA::kind(uint32_t phi) const {
  uint32_t b = ssa_->phis()[phi].block;
  if (loops_->headerOf(b) != kNone) return GateKind::Mu;
  if (!exitOf(b).empty()) return GateKind::Eta;
  return GateKind::Gamma;
}

std::string GatedSSA::print(const ptx::Module &m) const {
  const Cfg &cfg = *cfg_;
  const ptx::Function &fn = cfg.function();
  auto branchName = [&](uint32_t br) {
    const ptx::Instruction &in = fn.instrs[branches_[br].instr];
    return cfg.blockName(branches_[br].block) + "(line " + std::to_string(in.loc.line) + ")";
  };
  std::string out;
  for (uint32_t v = 0; v < cfg.size(); ++v) {
    for (uint32_t p : ssa_->phisOf(v)) {
      const Phi &phi = ssa_->phis()[p];
      out += cfg.blockName(v, &m) + ": " + std::string(gateKindName(kind(p))) + ' ' +
             ssa_->valueName(phi.value) + " = [";
      auto in = ssa_->incoming(p);
      auto preds = cfg.preds(v);
      for (uint32_t j = 0; j < in.size(); ++j) {
        if (j) out += ", ";
        out += (j < preds.size() ? cfg.blockName(preds[j]) : std::string("entry")) + ": " +
               ssa_->valueName(in[j]);
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
      out += '\n';
    }
  }
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
