// The divergence fixpoint's exact part (DivergenceSolver.cpp has the rest):
// values computed from the thread id alone, evaluated in every thread of a
// known block shape (ThreadValues), through -G's local-memory frame too; the
// threads that can reach a block, from the thread-id conditions of the
// branches that dominate it; and the blocks so few threads reach that each
// warp has at most one lane there.
#include "analysis/DivergenceSolver.h"

#include <limits>

namespace analysis {

void DivergenceSolver::evaluateForThreads(uint32_t i) {
  evaluated_[i] = 1;
  const ptx::Instruction &in = fn_.instrs[i];
  auto defs = du_.defs(i);
  auto defValues = ssa_.defValues(i);
  const ptx::InstrTable &table = ptx::InstrTable::get();
  if (in.hasGuard || defs.empty() || defs.size() > 2 || in.form >= table.forms().size()) return;
  if (evaluateThroughLocalMemory(i)) return;
  for (const Def &d : defs)
    if (d.partial || d.registerIndex == Def::kNotRegister) return;
  auto ops = fn_.operandsOf(in);
  const size_t first = destinationOperands(table.form(in.form));
  if (first != 1) return;
  auto uses = du_.uses(i);
  auto useValues = ssa_.useValues(i);
  std::vector<ThreadValues::Vector> sources;
  for (size_t j = first; j < ops.size(); ++j) {
    const ptx::Operand &op = ops[j];
    ThreadValues::Vector v = nullptr;
    if (op.kind == ptx::OperandKind::Int) {
      v = threads_.constant(static_cast<uint64_t>(op.value));
    } else if (op.kind == ptx::OperandKind::SpecialReg) {
      unsigned component = op.selector == ptx::Selector::X   ? 1
                           : op.selector == ptx::Selector::Y ? 2
                           : op.selector == ptx::Selector::Z ? 3
                                                             : 0;
      v = threads_.specialRegister(static_cast<ptx::SpecialReg>(op.id), component);
    } else if (op.kind == ptx::OperandKind::Register && op.selector == ptx::Selector::None) {
      for (size_t u = 0; u < uses.size(); ++u)
        if (uses[u].operand == j && uses[u].role == UseRole::Source && useValues[u] != kNoValue)
          v = threads_.find(useValues[u]);
      if (op.negated()) v = threads_.negate(v);
    }
    if (!v) return;
    sources.push_back(v);
  }
  ThreadValues::Vector result = threads_.evaluate(m_.desc(in), sources);
  if (!result) return;
  threads_.set(defValues[0], result);
  if (defs.size() == 2) {
    // setp's p|q: q is the negation of p.
    if (in.opcode != ptx::Opcode::Setp) return;
    threads_.set(defValues[1], threads_.negate(result));
  }
}

const DivergenceSolver::ThreadSet &DivergenceSolver::threadsReaching(uint32_t b) {
  // The threads that can reach b: those that took, at every dominator
  // entered from a branch alone, the side that leads there. Computed down
  // the dominator tree from the nearest block already known.
  if (reaching_.empty()) {
    dominators_ = DominatorTree::forward(cfg_);
    reaching_.resize(cfg_.size());
    reachingKnown_.assign(cfg_.size(), 0);
  }
  std::vector<uint32_t> chain;
  for (uint32_t d = b; d != kNone && !reachingKnown_[d]; d = dominators_->idom(d)) chain.push_back(d);
  const uint32_t n = threads_.space().size();
  for (size_t k = chain.size(); k-- > 0;) {
    const uint32_t d = chain[k];
    ThreadSet &may = reaching_[d];
    const uint32_t up = dominators_->idom(d);
    if (up == kNone)
      for (uint32_t t = 0; t < n; ++t) may.set(t);
    else
      may = reaching_[up];
    reachingKnown_[d] = 1;
    auto preds = cfg_.preds(d);
    if (d >= cfg_.numBlocks() || preds.size() != 1 || preds[0] >= cfg_.numBlocks()) continue;
    const uint32_t p = preds[0];
    const uint32_t term = cfg_.terminator(p);
    if (term == kNone || cfg_.succs(p).size() != 2) continue;
    const ptx::Instruction &in = fn_.instrs[term];
    if (!in.hasGuard || !ptx::InstrTable::get().has(in.opcode, ptx::iflag::Branch)) continue;
    ThreadValues::Vector guard = nullptr;
    auto uses = du_.uses(term);
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].role == UseRole::Guard && ssa_.useValues(term)[u] != kNoValue)
        guard = threads_.find(ssa_.useValues(term)[u]);
    if (!guard) continue;
    // The fall-through side is the next block; the label the other.
    const bool takenWhen = (d != p + 1) != in.guardNegated;
    for (uint32_t t = 0; t < n; ++t)
      if ((guard[t] != 0) != takenWhen) may.reset(t);
  }
  return reaching_[b];
}

bool DivergenceSolver::evaluateThroughLocalMemory(uint32_t i) {
  // -G builds keep every variable in the frame: a store that fills a place
  // gives it the stored numbers, a load of the whole place takes them back.
  auto access = du_.localSlots().accesses(i);
  if (access.size() != 1 || !access[0].exact) return false;
  const ptx::InstrDesc &desc = m_.desc(fn_.instrs[i]);
  const ptx::Type type = desc.lastType();
  const unsigned width = ptx::bitWidth(type);
  const LocalSlots::Place &place = du_.localSlots().places()[access[0].first];
  // The same bits in and out: no sign or zero extension of a narrow type.
  if (desc.firstOfKind(ptx::ModKind::Vector) != ptx::Mod::None || width < 32 ||
      place.begin == std::numeric_limits<int64_t>::min() ||
      static_cast<int64_t>(width / 8) != place.end - place.begin)
    return true;
  auto defs = du_.defs(i);
  auto uses = du_.uses(i);
  auto useValues = ssa_.useValues(i);
  if (access[0].write) {
    auto ops = fn_.operandsOf(fn_.instrs[i]);
    if (defs.size() != 1 || ops.size() != 2) return true;
    ThreadValues::Vector stored = nullptr;
    if (ops[1].kind == ptx::OperandKind::Int) stored = threads_.constant(static_cast<uint64_t>(ops[1].value));
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].operand == 1 && uses[u].role == UseRole::Source && useValues[u] != kNoValue)
        stored = threads_.find(useValues[u]);
    if (stored) threads_.set(ssa_.defValues(i)[0], stored);
    return true;
  }
  if (defs.size() != 1 || defs[0].registerIndex == Def::kNotRegister) return true;
  for (size_t u = 0; u < uses.size(); ++u)
    if (uses[u].role == UseRole::Memory && useValues[u] != kNoValue)
      if (ThreadValues::Vector held = threads_.find(useValues[u])) threads_.set(ssa_.defValues(i)[0], held);
  return true;
}

Uniformity DivergenceSolver::fewThreads(uint32_t b) {
  if (!threads_.active() || b >= cfg_.numBlocks()) return Uniformity::Divergent;
  if (fewThreads_.empty()) fewThreads_.assign(cfg_.size(), 0);
  if (fewThreads_[b]) return static_cast<Uniformity>(fewThreads_[b] - 1);
  const ThreadSet &may = threadsReaching(b);
  const uint32_t n = threads_.space().size();
  Uniformity level = may.count() > 1 ? Uniformity::WarpUniform : Uniformity::CtaUniform;
  for (uint32_t w = 0; w < n && level != Uniformity::Divergent; w += 32) {
    unsigned inWarp = 0;
    for (uint32_t t = w; t < w + 32 && t < n; ++t) inWarp += may.test(t);
    if (inWarp > 1) level = Uniformity::Divergent;
  }
  fewThreads_[b] = static_cast<uint8_t>(1 + static_cast<unsigned>(level));
  return level;
}

} // namespace analysis
