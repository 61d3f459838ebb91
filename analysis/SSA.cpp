// SSA construction (Cytron et al.): φ-nodes at the iterated dominance
// frontier of each variable's definitions, extended with the exit blocks of
// loops that define it, kept only where the variable is live (pruned SSA);
// then one renaming walk over the dominator tree with an undo log instead of
// per-variable stacks.
#include "analysis/SSA.h"

#include "ptx/Writer.h"

#include <algorithm>

namespace analysis {

SSA::SSA(const Cfg &cfg, const DominatorTree &dom, const DominanceFrontier &df, const LoopForest &loops,
         const DefUse &du, const Liveness &live)
    : cfg_(&cfg), du_(&du) {
  const ptx::Function &fn = cfg.function();
  const uint32_t nodes = cfg.size(), vars = du.numVars();
  const uint32_t entry = cfg.entry();

  // Values of every instruction's definitions, reachable or not.
  defValue_.assign(du.totalDefs(), kNoValue);
  oldValue_.assign(du.totalDefs(), kNoValue);
  useValue_.assign(du.totalUses(), kNoValue);
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    auto defs = du.defs(i);
    for (uint32_t k = 0; k < defs.size(); ++k) {
      defValue_[du.defBegin(i) + k] = static_cast<ValueId>(values_.size());
      values_.push_back({ValueKind::Def, defs[k].var, cfg.blockOf(i), i, k});
    }
  }

  // Blocks that write each variable.
  std::vector<std::pair<uint32_t, uint32_t>> written; // (var, block)
  for (uint32_t b = 0; b < cfg.numBlocks(); ++b) {
    if (!cfg.reachable(b)) continue;
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i)
      for (const Def &d : du.defs(i)) written.emplace_back(d.var, b);
  }
  std::sort(written.begin(), written.end());
  written.erase(std::unique(written.begin(), written.end()), written.end());

  // φ placement, one variable at a time; stamps avoid clearing per variable.
  std::vector<std::pair<uint32_t, uint32_t>> placed; // (block, var)
  std::vector<uint32_t> siteStamp(nodes, kNone), queuedStamp(nodes, kNone),
      loopStamp(loops.loops().size(), kNone);
  std::vector<std::pair<uint32_t, bool>> work; // (block, holds a write of the variable)
  auto addSite = [&](uint32_t b, uint32_t var) {
    if (siteStamp[b] == var) return;
    siteStamp[b] = var;
    if (live.isLiveIn(var, b)) placed.emplace_back(b, var);
    if (queuedStamp[b] != var) {
      queuedStamp[b] = var;
      work.emplace_back(b, false);
    }
  };
  for (size_t w = 0; w < written.size();) {
    const uint32_t var = written[w].first;
    for (; w < written.size() && written[w].first == var; ++w) {
      queuedStamp[written[w].second] = var;
      work.emplace_back(written[w].second, true);
    }
    while (!work.empty()) {
      auto [b, writes] = work.back();
      work.pop_back();
      for (uint32_t d : df.of(b)) addSite(d, var);
      // A write inside a loop: the loop's exits get a node (η) too.
      if (!writes) continue;
      for (uint32_t l = loops.loopOf(b); l != kNone && loopStamp[l] != var; l = loops.loop(l).parent) {
        loopStamp[l] = var;
        for (uint32_t e : loops.loop(l).exitBlocks) addSite(e, var);
      }
    }
  }
  std::sort(placed.begin(), placed.end());
  phiBegin_.assign(nodes + 1, 0);
  for (auto [b, var] : placed) {
    Phi p;
    p.block = b;
    p.var = var;
    p.value = static_cast<ValueId>(values_.size());
    p.firstIncoming = static_cast<uint32_t>(incoming_.size());
    values_.push_back({ValueKind::Phi, var, b, static_cast<uint32_t>(phis_.size()), 0});
    phis_.push_back(p);
    ++phiBegin_[b + 1];
    incoming_.resize(incoming_.size() + cfg.preds(b).size() + (b == entry ? 1 : 0), kNoValue);
  }
  for (uint32_t v = 0; v < nodes; ++v) phiBegin_[v + 1] += phiBegin_[v];
  phiOrder_.resize(phis_.size());
  for (uint32_t p = 0; p < phis_.size(); ++p) phiOrder_[p] = p; // already sorted by block

  // Renaming: a pre-order walk of the dominator tree; `current` holds the
  // reaching value of each variable, the log undoes a subtree's writes.
  entryValue_.assign(vars, kNoValue);
  std::vector<ValueId> current(vars, kNoValue);
  std::vector<std::pair<uint32_t, ValueId>> log;
  auto read = [&](uint32_t var) {
    if (current[var] != kNoValue) return current[var];
    if (entryValue_[var] == kNoValue) {
      entryValue_[var] = static_cast<ValueId>(values_.size());
      values_.push_back({ValueKind::Entry, var, entry, 0, 0});
    }
    return entryValue_[var];
  };
  auto write = [&](uint32_t var, ValueId v) {
    log.emplace_back(var, current[var]);
    current[var] = v;
  };
  exitValue_.assign(du.exitUses().size(), kNoValue);
  // The entry block's φ-nodes also merge the value on entry.
  for (uint32_t p : phisOf(entry))
    incoming_[phis_[p].firstIncoming + cfg.preds(entry).size()] = read(phis_[p].var);
  struct Frame {
    uint32_t node;
    size_t logMark;
    uint32_t child;
  };
  std::vector<Frame> stack;
  auto enter = [&](uint32_t v) {
    stack.push_back({v, log.size(), 0});
    for (uint32_t p : phisOf(v)) write(phis_[p].var, phis_[p].value);
    if (v < cfg.numBlocks()) {
      const ptx::BasicBlock &block = fn.blocks[v];
      for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
        auto uses = du.uses(i);
        for (uint32_t u = 0; u < uses.size(); ++u) useValue_[du.useBegin(i) + u] = read(uses[u].var);
        auto defs = du.defs(i);
        for (uint32_t k = 0; k < defs.size(); ++k) {
          if (defs[k].partial) oldValue_[du.defBegin(i) + k] = read(defs[k].var);
          write(defs[k].var, defValue_[du.defBegin(i) + k]);
        }
      }
    } else {
      auto exits = du.exitUses();
      for (uint32_t k = 0; k < exits.size(); ++k) exitValue_[k] = read(exits[k]);
    }
    auto succ = cfg.succs(v);
    for (uint32_t i = 0; i < succ.size(); ++i) {
      uint32_t at = cfg.predIndex(v, i);
      for (uint32_t p : phisOf(succ[i])) incoming_[phis_[p].firstIncoming + at] = read(phis_[p].var);
    }
  };
  if (dom.reachable(dom.root())) enter(dom.root());
  while (!stack.empty()) {
    Frame &f = stack.back();
    auto kids = dom.children(f.node);
    if (f.child < kids.size()) {
      enter(kids[f.child++]);
      continue;
    }
    for (size_t k = log.size(); k-- > f.logMark;) current[log[k].first] = log[k].second;
    log.resize(f.logMark);
    stack.pop_back();
  }

  // Version numbers for names: Entry values are version 0.
  version_.assign(values_.size(), 0);
  std::vector<uint32_t> count(vars, 0);
  for (ValueId v = 0; v < values_.size(); ++v)
    if (values_[v].kind != ValueKind::Entry) version_[v] = ++count[values_[v].var];
}

std::string SSA::valueName(ValueId v) const {
  if (v == kNoValue) return "undef";
  return du_->varName(values_[v].var) + "." + std::to_string(version_[v]);
}

std::string SSA::print(const ptx::Module &m) const {
  const ptx::Function &fn = cfg_->function();
  std::string out;
  auto printPhis = [&](uint32_t v) {
    for (uint32_t p : phisOf(v)) {
      out += "  phi " + valueName(phis_[p].value) + " = [";
      auto in = incoming(p);
      auto preds = cfg_->preds(v);
      for (uint32_t j = 0; j < in.size(); ++j) {
        if (j) out += ", ";
        out += j < preds.size() ? cfg_->blockName(preds[j]) : std::string("entry");
        out += ": " + valueName(in[j]);
      }
      out += "]\n";
    }
  };
  for (uint32_t b = 0; b < cfg_->numBlocks(); ++b) {
    out += cfg_->blockName(b, &m) + (cfg_->reachable(b) ? ":\n" : ": (unreachable)\n");
    printPhis(b);
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      out += "  " + ptx::writeInstruction(m, fn, fn.instrs[i]);
      auto defs = defValues(i);
      auto olds = oldValues(i);
      auto uses = useValues(i);
      if (!defs.empty()) {
        out += "  ; defs";
        for (uint32_t k = 0; k < defs.size(); ++k) {
          out += ' ' + valueName(defs[k]);
          if (du_->defs(i)[k].partial) out += "(partial of " + valueName(olds[k]) + ")";
        }
      }
      if (!uses.empty()) {
        out += defs.empty() ? "  ; uses" : " uses";
        for (ValueId u : uses) out += ' ' + valueName(u);
      }
      out += '\n';
    }
  }
  out += "exit:\n";
  printPhis(cfg_->exit());
  if (!exitValue_.empty()) {
    out += "  returns";
    for (ValueId v : exitValue_) out += ' ' + valueName(v);
    out += '\n';
  }
  return out;
}

} // namespace analysis
