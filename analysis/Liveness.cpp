// Liveness by exploring backwards from each variable's upward-exposed uses
// (one variable at a time, as in Appel's "path exploration"): the cost is
// proportional to the size of the live sets, never to blocks x variables.
#include "analysis/Liveness.h"

#include <algorithm>
#include <set>

namespace analysis {

Liveness::Liveness(const Cfg &cfg, const DefUse &du) : cfg_(&cfg), du_(&du) {
  const uint32_t nodes = cfg.size(), vars = du.numVars();
  const ptx::Function &fn = cfg.function();
  liveIn_.assign(nodes, {});
  liveOut_.assign(nodes, {});

  // Per block: upward-exposed reads (a partial write reads the old value)
  // and variables written in full.
  std::vector<std::pair<uint32_t, uint32_t>> exposed; // (var, block)
  std::vector<std::vector<uint32_t>> kills(nodes);
  std::vector<uint32_t> writtenIn(vars, kNone);
  for (uint32_t b = 0; b < cfg.numBlocks(); ++b) {
    if (!cfg.reachable(b)) continue;
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      for (const Use &u : du.uses(i))
        if (writtenIn[u.var] != b) exposed.emplace_back(u.var, b);
      for (const Def &d : du.defs(i)) {
        if (d.partial) {
          if (writtenIn[d.var] != b) exposed.emplace_back(d.var, b);
        } else {
          writtenIn[d.var] = b;
          kills[b].push_back(d.var);
        }
      }
    }
    std::sort(kills[b].begin(), kills[b].end());
    kills[b].erase(std::unique(kills[b].begin(), kills[b].end()), kills[b].end());
  }
  for (uint32_t var : du.exitUses()) exposed.emplace_back(var, cfg.exit());
  std::sort(exposed.begin(), exposed.end());
  exposed.erase(std::unique(exposed.begin(), exposed.end()), exposed.end());

  std::vector<uint32_t> inStamp(nodes, kNone), outStamp(nodes, kNone), stack;
  for (size_t e = 0; e < exposed.size();) {
    const uint32_t var = exposed[e].first;
    for (; e < exposed.size() && exposed[e].first == var; ++e) {
      uint32_t b = exposed[e].second;
      if (inStamp[b] == var) continue;
      inStamp[b] = var;
      liveIn_[b].push_back(var);
      stack.push_back(b);
    }
    while (!stack.empty()) {
      uint32_t b = stack.back();
      stack.pop_back();
      for (uint32_t p : cfg.preds(b)) {
        if (!cfg.reachable(p) || cfg.isFakeEdge(p, b)) continue;
        if (outStamp[p] != var) {
          outStamp[p] = var;
          liveOut_[p].push_back(var);
        }
        if (inStamp[p] == var || std::binary_search(kills[p].begin(), kills[p].end(), var)) continue;
        inStamp[p] = var;
        liveIn_[p].push_back(var);
        stack.push_back(p);
      }
    }
  }
}

bool Liveness::isLiveIn(uint32_t var, uint32_t v) const {
  return std::binary_search(liveIn_[v].begin(), liveIn_[v].end(), var);
}

std::vector<uint32_t> Liveness::liveBefore(uint32_t instr) const {
  uint32_t b = cfg_->blockOf(instr);
  const ptx::BasicBlock &block = cfg_->function().blocks[b];
  std::set<uint32_t> live(liveOut_[b].begin(), liveOut_[b].end());
  for (uint32_t i = block.firstInstr + block.numInstrs; i-- > instr;) {
    for (const Def &d : du_->defs(i))
      if (d.partial)
        live.insert(d.var);
      else
        live.erase(d.var);
    for (const Use &u : du_->uses(i)) live.insert(u.var);
  }
  return {live.begin(), live.end()};
}

std::string Liveness::print() const {
  std::string out;
  for (uint32_t v : cfg_->rpo()) {
    out += cfg_->blockName(v) + " in:";
    for (uint32_t var : liveIn_[v]) out += ' ' + du_->varName(var);
    out += " out:";
    for (uint32_t var : liveOut_[v]) out += ' ' + du_->varName(var);
    out += '\n';
  }
  return out;
}

} // namespace analysis
