// The analyses' CFG: blocks, a virtual exit, fake edges out of infinite loops.
#include "analysis/Cfg.h"

#include <algorithm>

namespace analysis {

Graph::Graph(uint32_t numNodes, std::span<const std::pair<uint32_t, uint32_t>> edges) {
  succBegin_.assign(numNodes + 1, 0);
  predBegin_.assign(numNodes + 1, 0);
  for (auto [from, to] : edges) {
    ++succBegin_[from + 1];
    ++predBegin_[to + 1];
  }
  for (uint32_t v = 0; v < numNodes; ++v) {
    succBegin_[v + 1] += succBegin_[v];
    predBegin_[v + 1] += predBegin_[v];
  }
  succ_.resize(edges.size());
  pred_.resize(edges.size());
  std::vector<uint32_t> nextSucc(succBegin_.begin(), succBegin_.end() - 1);
  std::vector<uint32_t> nextPred(predBegin_.begin(), predBegin_.end() - 1);
  for (auto [from, to] : edges) {
    succ_[nextSucc[from]++] = to;
    pred_[nextPred[to]++] = from;
  }
}

Graph Graph::reversed() const {
  Graph r;
  r.succBegin_ = predBegin_;
  r.succ_ = pred_;
  r.predBegin_ = succBegin_;
  r.pred_ = succ_;
  return r;
}

namespace {

ExitEdge exitKindOf(const ptx::Function &fn, const ptx::BasicBlock &b) {
  const ptx::InstrTable &table = ptx::InstrTable::get();
  bool deviceFunction = !fn.isKernel;
  if (b.numInstrs == 0) return deviceFunction ? ExitEdge::Return : ExitEdge::Death;
  const ptx::Instruction &last = fn.instrs[b.firstInstr + b.numInstrs - 1];
  uint32_t flags = table.info(last.opcode).flags;
  if ((flags & ptx::iflag::Return) && deviceFunction) return ExitEdge::Return;
  if (flags & ptx::iflag::NoFallthrough) return ExitEdge::Death;
  // Falling off the end of the body (or a branch to a missing label).
  return deviceFunction ? ExitEdge::Return : ExitEdge::Death;
}

} // namespace

Cfg::Cfg(const ptx::Function &fn, CfgOptions options)
    : fn_(&fn), numBlocks_(static_cast<uint32_t>(fn.blocks.size())) {
  const ptx::InstrTable &table = ptx::InstrTable::get();
  const uint32_t exitNode = numBlocks_;
  exitEdge_.assign(numBlocks_, ExitEdge::None);
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(fn.edges.size() + numBlocks_);
  for (uint32_t b = 0; b < numBlocks_; ++b) {
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t s : fn.succs(block)) edges.emplace_back(b, s);
    if (block.numSuccs == 0) {
      exitEdge_[b] = exitKindOf(fn, block);
    } else if (options.guardedReturnEdges && !fn.isKernel && block.numInstrs) {
      const ptx::Instruction &last = fn.instrs[block.firstInstr + block.numInstrs - 1];
      if (last.hasGuard && table.has(last.opcode, ptx::iflag::Return)) exitEdge_[b] = ExitEdge::Return;
    }
    if (exitEdge_[b] != ExitEdge::None) edges.emplace_back(b, exitNode);
  }
  // Blocks that cannot reach the exit: walk the reverse graph from the exit,
  // then give the highest-numbered block not reached a fake edge and walk
  // from it, until every block is reached.
  {
    Graph g(size(), edges);
    std::vector<char> reached(size(), 0);
    std::vector<uint32_t> stack;
    auto walk = [&](uint32_t root) {
      reached[root] = 1;
      stack.push_back(root);
      while (!stack.empty()) {
        uint32_t v = stack.back();
        stack.pop_back();
        for (uint32_t p : g.preds(v))
          if (!reached[p]) {
            reached[p] = 1;
            stack.push_back(p);
          }
      }
    };
    walk(exitNode);
    for (uint32_t b = numBlocks_; b-- > 0;) {
      if (reached[b]) continue;
      exitEdge_[b] = ExitEdge::Fake;
      edges.emplace_back(b, exitNode);
      walk(b);
    }
  }
  // Edges by source block (a stable sort keeps each block's successor
  // order), so that predecessor lists are ordered by source too.
  std::stable_sort(edges.begin(), edges.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  graph_ = Graph(size(), edges);
  succOffset_.assign(size() + 1, 0);
  for (uint32_t v = 0; v < size(); ++v) succOffset_[v + 1] = succOffset_[v] + graph_.succs(v).size();
  predIndex_.resize(edges.size());
  {
    std::vector<uint32_t> seen(size(), 0);
    for (uint32_t v = 0; v < size(); ++v) {
      auto succ = graph_.succs(v);
      for (uint32_t i = 0; i < succ.size(); ++i) predIndex_[succOffset_[v] + i] = seen[succ[i]]++;
    }
  }

  rpoIndex_.assign(size(), kNone);
  if (numBlocks_ > 0) {
    std::vector<uint32_t> post;
    std::vector<char> seen(size(), 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack{{entry(), 0}};
    seen[entry()] = 1;
    while (!stack.empty()) {
      auto &[v, i] = stack.back();
      auto succ = graph_.succs(v);
      if (i < succ.size()) {
        uint32_t w = succ[i++];
        if (!seen[w]) {
          seen[w] = 1;
          stack.emplace_back(w, 0);
        }
      } else {
        post.push_back(v);
        stack.pop_back();
      }
    }
    rpo_.assign(post.rbegin(), post.rend());
  } else {
    rpo_.push_back(exitNode);
  }
  for (uint32_t i = 0; i < rpo_.size(); ++i) rpoIndex_[rpo_[i]] = i;

  blockOfInstr_.assign(fn.instrs.size(), kNone);
  for (uint32_t b = 0; b < numBlocks_; ++b)
    for (uint32_t i = 0; i < fn.blocks[b].numInstrs; ++i) blockOfInstr_[fn.blocks[b].firstInstr + i] = b;
}

uint32_t Cfg::terminator(uint32_t b) const {
  if (b >= numBlocks_) return kNone;
  const ptx::BasicBlock &block = fn_->blocks[b];
  return block.numInstrs ? block.firstInstr + block.numInstrs - 1 : kNone;
}

std::string Cfg::blockName(uint32_t v, const ptx::Module *m) const {
  if (v == exit()) return "exit";
  std::string out = "bb" + std::to_string(v);
  const ptx::BasicBlock &b = fn_->blocks[v];
  if (m && b.label != UINT32_MAX) {
    out += '(';
    out += m->str(fn_->labels[b.label].name);
    out += ')';
  }
  return out;
}

std::string Cfg::print(const ptx::Module *m) const {
  static const char *const kKind[] = {"", "", " [death]", " [fake]"};
  std::string out;
  for (uint32_t v = 0; v < size(); ++v) {
    out += blockName(v, m);
    if (!reachable(v)) out += " [unreachable]";
    out += " ->";
    for (uint32_t s : succs(v)) {
      out += ' ';
      out += blockName(s, m);
      if (s == exit() && v != exit()) out += kKind[static_cast<int>(exitEdge_[v])];
    }
    out += '\n';
  }
  return out;
}

} // namespace analysis
