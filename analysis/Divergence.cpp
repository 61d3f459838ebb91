// The interprocedural driver: analyses every function a kernel may call,
// with each device function's parameters as uniform as the arguments of all
// its calls and each call's results as uniform as the callee's returns,
// iterating to a fixpoint; then which blocks can run with part of a warp.
#include "analysis/Divergence.h"

#include "analysis/Analyses.h"
#include "analysis/DivergenceSolver.h"

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

namespace analysis {

// ---- Queries ----------------------------------------------------------------------------

Uniformity FunctionDivergence::def(uint32_t instr, uint32_t slot) const {
  const SSA &ssa = gated_->ssa();
  if (instr >= function().instrs.size() || slot >= ssa.defValues(instr).size()) return Uniformity::Divergent;
  return levels_[ssa.defValues(instr)[slot]];
}

const Affine &FunctionDivergence::defForm(uint32_t instr, uint32_t slot) const {
  return forms_[gated_->ssa().defValues(instr)[slot]];
}

Uniformity FunctionDivergence::value(uint32_t instr, uint32_t k) const {
  if (instr >= function().instrs.size()) return Uniformity::Divergent;
  auto defs = gated_->ssa().defUse().defs(instr);
  for (uint32_t slot = 0; slot < defs.size(); ++slot)
    if (defs[slot].registerIndex == k) return def(instr, slot);
  return Uniformity::Divergent;
}

Uniformity FunctionDivergence::branch(uint32_t instr) const {
  const Cfg &cfg = gated_->cfg();
  if (instr >= function().instrs.size()) return Uniformity::Divergent;
  uint32_t b = cfg.blockOf(instr);
  if (!cfg.reachable(b) || cfg.terminator(b) != instr) return Uniformity::Divergent;
  uint32_t br = gated_->branchOfBlock(b);
  if (br != kNone) return branchLevels_[br];
  const ptx::InstrTable &table = ptx::InstrTable::get();
  return table.has(function().instrs[instr].opcode, ptx::iflag::Branch) ? Uniformity::CtaUniform
                                                                        : Uniformity::Divergent;
}

const FunctionDivergence *DivergenceResult::find(const ptx::Function &fn) const {
  auto it = index_.find(&fn);
  return it == index_.end() ? nullptr : functions_[it->second].get();
}

Uniformity DivergenceResult::value(const ptx::Function &fn, uint32_t instr, uint32_t k) const {
  const FunctionDivergence *f = find(fn);
  return f ? f->value(instr, k) : Uniformity::Divergent;
}

Uniformity DivergenceResult::branch(const ptx::Function &fn, uint32_t instr) const {
  const FunctionDivergence *f = find(fn);
  return f ? f->branch(instr) : Uniformity::Divergent;
}

// ---- The module-level fixpoint -----------------------------------------------------------

class ModuleDivergenceSolver {
public:
  using WholeWarps = std::unordered_map<const ptx::Function *, std::vector<char>>;
  ModuleDivergenceSolver(AnalysisManager &am, const DivergenceOptions &options,
                         const WholeWarps *wholeWarps = nullptr)
      : am_(am), m_(am.module()), options_(options), wholeWarps_(wholeWarps) {}

  /// From a finished solve: for each function with butterfly shuffles, the
  /// blocks every lane of every warp runs together (CTAs of a known shape
  /// made of full warps, blocks no divergent branch or exit splits). A
  /// second solve given them proves the reductions warp-uniform; it only
  /// proves more, so the blocks stay whole in it.
  static WholeWarps wholeWarpBlocks(const ptx::Module &m, const DivergenceResult &r);

  DivergenceResult run(std::span<const ptx::Function *const> kernels);
  static void keepAlive(DivergenceResult &r, std::shared_ptr<AnalysisManager> am) {
    r.owned_ = std::move(am);
  }

private:
  struct CallSite {
    uint32_t instr;
    std::vector<size_t> callees; // states; empty with `unknown` for code we cannot see
    bool unknown = false;
  };
  struct State {
    const ptx::Function *fn;
    const GatedSSA *gated;
    LaunchShape shape;
    bool shapeSet = false;
    FunctionContext ctx;
    std::vector<CallSite> calls;
    std::set<size_t> callers;
    std::unique_ptr<FunctionDivergence> result;
    bool calledPartially = false;
    bool expanded = false;  // its call sites are known
    uint32_t callSites = 0; // calls that may reach it
    /// Per parameter: the one constant every call passes, or none.
    std::vector<std::optional<int64_t>> argConstant;
    std::vector<char> argVaries;
  };

  size_t stateOf(const ptx::Function &fn);
  std::vector<const ptx::Function *> calleesOf(const ptx::Function &fn, const ptx::Instruction &in,
                                               bool &unknown);
  void findAddressTaken();
  void solve(size_t s);
  void propagateArguments(size_t s, std::deque<size_t> &work, std::vector<char> &queued);
  void markPartial(size_t s);
  Uniformity localWritesOf(size_t s) const;

  AnalysisManager &am_;
  const ptx::Module &m_;
  DivergenceOptions options_;
  const WholeWarps *wholeWarps_;
  std::vector<State> states_;
  std::unordered_map<const ptx::Function *, size_t> index_;
  std::set<const ptx::Function *> addressTaken_;
};

size_t ModuleDivergenceSolver::stateOf(const ptx::Function &fn) {
  auto [it, fresh] = index_.try_emplace(&fn, states_.size());
  if (fresh) {
    State st;
    st.fn = &fn;
    st.gated = &am_.get<GatedSSAAnalysis>(fn);
    const DefUse &du = st.gated->ssa().defUse();
    st.ctx.entry.assign(du.numVars(), Uniformity::CtaUniform);
    st.ctx.callResults.assign(du.totalDefs(), Uniformity::Divergent);
    if (wholeWarps_)
      if (auto w = wholeWarps_->find(&fn); w != wholeWarps_->end()) st.ctx.wholeWarps = w->second;
    st.ctx.grid = options_.grid;
    states_.push_back(std::move(st));
  }
  return it->second;
}

void ModuleDivergenceSolver::findAddressTaken() {
  // A function whose name is used as a value (mov of its address, an
  // initializer) may be called through a pointer from anywhere.
  for (const ptx::Variable &v : m_.globals)
    for (const ptx::InitItem &item : v.init)
      if (item.kind == ptx::InitItem::Address)
        if (const ptx::Function *f = m_.findFunction(m_.str(item.symbol))) addressTaken_.insert(f);
  const ptx::InstrTable &table = ptx::InstrTable::get();
  for (const ptx::Function &fn : m_.functions) {
    if (!fn.hasBody) continue;
    for (const ptx::Instruction &in : fn.instrs) {
      if (table.has(in.opcode, ptx::iflag::Call)) continue;
      for (const ptx::Operand &op : fn.operandsOf(in))
        if (op.kind == ptx::OperandKind::Symbol)
          if (const ptx::Function *f = m_.findFunction(m_.str(op.id)); f && !f->isKernel)
            addressTaken_.insert(f);
    }
  }
}

std::vector<const ptx::Function *>
ModuleDivergenceSolver::calleesOf(const ptx::Function &fn, const ptx::Instruction &in, bool &unknown) {
  std::vector<const ptx::Function *> out;
  unknown = false;
  DefUse::CallOperands c = DefUse::callOperands(fn, in);
  auto ops = fn.operandsOf(in);
  if (c.callee == Use::kNoOperand) {
    unknown = true;
    return out;
  }
  const ptx::Operand &target = ops[c.callee];
  auto add = [&](ptx::Name name) {
    const ptx::Function *f = m_.findFunction(m_.str(name));
    if (f && f->hasBody && !f->isKernel)
      out.push_back(f);
    else
      unknown = true;
  };
  if (target.kind == ptx::OperandKind::Symbol) {
    add(target.id);
    return out;
  }
  // Through a register: a .calltargets list names the candidates;
  // otherwise any function whose address is taken.
  const ptx::Operand &last = ops.back();
  if (last.kind == ptx::OperandKind::Symbol)
    for (const ptx::TargetList &tl : fn.targetLists)
      if (tl.calls && tl.name == last.id) {
        for (ptx::Name n : tl.targets) add(n);
        return out;
      }
  unknown = true;
  for (const ptx::Function *f : addressTaken_)
    if (f->hasBody) out.push_back(f);
  return out;
}

void ModuleDivergenceSolver::solve(size_t s) {
  State &st = states_[s];
  const DefUse &du = st.gated->ssa().defUse();
  // Call results from the callees' current summaries.
  for (const CallSite &call : st.calls) {
    auto defs = du.defs(call.instr);
    auto ops = st.fn->operandsOf(st.fn->instrs[call.instr]);
    DefUse::CallOperands c = DefUse::callOperands(*st.fn, st.fn->instrs[call.instr]);
    for (uint32_t slot = 0; slot < defs.size(); ++slot) {
      // The j-th entry of the results list is the j-th write of the call;
      // the writes of local places follow.
      Uniformity level = call.unknown ? Uniformity::Divergent : Uniformity::CtaUniform;
      uint32_t j = slot;
      if (defs[slot].operand == c.args && c.args != Use::kNoOperand)
        level = Uniformity::CtaUniform; // an argument the call consumed
      else if (du.isPlaceVar(defs[slot].var))
        for (size_t callee : call.callees) {
          if (const State &ce = states_[callee]; ce.result) level = join(level, ce.result->localWrites());
        }
      else if (c.results != Use::kNoOperand && j < ops[c.results].count())
        for (size_t callee : call.callees) {
          const State &ce = states_[callee];
          if (!ce.result || j >= ce.result->returns().size()) {
            if (!ce.result) continue; // not solved yet: optimistic
            level = Uniformity::Divergent;
          } else {
            level = join(level, ce.result->returns()[j]);
          }
        }
      else
        level = Uniformity::Divergent;
      st.ctx.callResults[du.defBegin(call.instr) + slot] = level;
    }
  }
  auto result = std::make_unique<FunctionDivergence>();
  result->grid_ = st.ctx.grid;
  if (st.ctx.arguments)
    for (const std::vector<uint8_t> &a : *st.ctx.arguments) result->knownArguments_ += !a.empty();
  DivergenceSolver(m_, *st.gated, st.shape, st.ctx, *result).run();
  st.result = std::move(result);
  markPartial(s);
  st.result->localWrites_ = localWritesOf(s);
}

Uniformity ModuleDivergenceSolver::localWritesOf(size_t s) const {
  const State &st = states_[s];
  const FunctionDivergence &r = *st.result;
  const SSA &ssa = st.gated->ssa();
  const DefUse &du = ssa.defUse();
  const Cfg &cfg = st.gated->cfg();
  const LocalSlots &slots = du.localSlots();
  const ptx::InstrTable &table = ptx::InstrTable::get();
  Uniformity level = Uniformity::CtaUniform;
  auto operands = [&](uint32_t i) {
    Uniformity u = Uniformity::CtaUniform;
    auto values = ssa.useValues(i);
    for (size_t k = 0; k < values.size(); ++k)
      u = join(u, values[k] == kNoValue ? Uniformity::Divergent : r.valueLevel(values[k]));
    return u;
  };
  for (uint32_t i = 0; i < st.fn->instrs.size() && level != Uniformity::Divergent; ++i) {
    const uint32_t b = cfg.blockOf(i);
    if (!cfg.reachable(b) || !slots.writesUnknownPointer(i)) continue;
    // Lanes that skip the write keep what was there before.
    if (r.partialWarp(b) || table.has(st.fn->instrs[i].opcode, ptx::iflag::Atomic))
      return Uniformity::Divergent;
    level = join(level, operands(i));
  }
  for (const CallSite &call : st.calls) {
    const uint32_t b = cfg.blockOf(call.instr);
    if (call.unknown || r.partialWarp(b)) return Uniformity::Divergent;
    for (size_t c : call.callees)
      if (states_[c].result) level = join(level, states_[c].result->localWrites());
    // The call's guard: whether it happens at all.
    if (st.fn->instrs[call.instr].hasGuard) level = join(level, operands(call.instr));
  }
  return level;
}

void ModuleDivergenceSolver::propagateArguments(size_t s, std::deque<size_t> &work,
                                                std::vector<char> &queued) {
  State &st = states_[s];
  const SSA &ssa = st.gated->ssa();
  const DefUse &du = ssa.defUse();
  for (const CallSite &call : st.calls) {
    const ptx::Instruction &in = st.fn->instrs[call.instr];
    DefUse::CallOperands c = DefUse::callOperands(*st.fn, in);
    if (c.args == Use::kNoOperand) continue;
    // Levels of the arguments, in list order (immediates are uniform), and
    // their values when constant.
    std::vector<Uniformity> args;
    std::vector<std::optional<int64_t>> constants;
    auto uses = du.uses(call.instr);
    auto values = ssa.useValues(call.instr);
    size_t u = 0;
    for (const ptx::Operand &a : DefUse::callArguments(*st.fn, in)) {
      Uniformity level = Uniformity::CtaUniform;
      std::optional<int64_t> constant;
      if (a.kind == ptx::OperandKind::Int) constant = a.value;
      if (a.kind == ptx::OperandKind::Register || a.kind == ptx::OperandKind::Symbol) {
        while (u < uses.size() && uses[u].operand != c.args) ++u;
        if (u < uses.size()) {
          if (values[u] == kNoValue) {
            level = Uniformity::Divergent;
          } else {
            level = st.result->valueLevel(values[u]);
            const Affine &form = st.result->valueForm(values[u]);
            if (form.threadInvariant() && form.coef(0).isConst()) constant = form.coef(0).value;
          }
          ++u;
        }
      }
      args.push_back(level);
      constants.push_back(constant);
    }
    for (size_t callee : call.callees) {
      State &ce = states_[callee];
      auto params = ce.gated->ssa().defUse().entryParams();
      ce.argConstant.resize(params.size());
      ce.argVaries.resize(params.size(), 0);
      bool changed = false;
      for (size_t j = 0; j < params.size(); ++j) {
        Uniformity level = j < args.size() ? args[j] : Uniformity::Divergent;
        // The k-th execution of the callee is not the k-th call from one
        // place when several calls reach it: parameters that differ between
        // the calls are at best warp-uniform.
        std::optional<int64_t> constant = j < constants.size() ? constants[j] : std::nullopt;
        if (!constant || (ce.argConstant[j] && *ce.argConstant[j] != *constant)) ce.argVaries[j] = 1;
        if (constant && !ce.argConstant[j]) ce.argConstant[j] = constant;
        if (ce.callSites > 1 && ce.argVaries[j]) level = join(level, Uniformity::WarpUniform);
        Uniformity &entry = ce.ctx.entry[params[j]];
        if (join(entry, level) != entry) {
          entry = join(entry, level);
          changed = true;
        }
      }
      if (changed && !queued[callee]) {
        queued[callee] = 1;
        work.push_back(callee);
      }
    }
  }
}

void ModuleDivergenceSolver::markPartial(size_t s) {
  State &st = states_[s];
  FunctionDivergence &r = *st.result;
  const GatedSSA &g = *st.gated;
  const Cfg &cfg = g.cfg();
  r.partialCause_.assign(cfg.size(), kNone);
  auto mark = [&](uint32_t b, uint32_t cause) {
    if (b < cfg.numBlocks() && r.partialCause_[b] == kNone) r.partialCause_[b] = cause;
  };
  if (st.calledPartially)
    for (uint32_t b = 0; b < cfg.numBlocks(); ++b) mark(b, FunctionDivergence::kCalledPartially);
  // A loop marked whole once has a cause in every block: many branches
  // leave the same loop.
  std::vector<char> loopMarked(g.loops().loops().size(), 0);
  for (uint32_t br = 0; br < g.branches().size(); ++br) {
    if (r.branchLevels_[br] != Uniformity::Divergent) continue;
    for (const RegionNode &node : g.region(br))
      if (node.node != g.branches()[br].floor) mark(node.node, br);
    for (auto loopsOf : {g.exitedLoops(br), g.wrappedLoops(br)})
      for (uint32_t l : loopsOf)
        if (!std::exchange(loopMarked[l], 1))
          for (uint32_t b : g.loops().loop(l).blocks) mark(b, br);
  }
}

DivergenceResult ModuleDivergenceSolver::run(std::span<const ptx::Function *const> kernels) {
  findAddressTaken();
  std::vector<const ptx::Function *> roots(kernels.begin(), kernels.end());
  const bool wholeModule = roots.empty();
  if (wholeModule)
    for (const ptx::Function &fn : m_.functions)
      if (fn.isKernel && fn.hasBody) roots.push_back(&fn);
  if (roots.size() == 1 && !wholeModule && roots[0]->isKernel && !options_.arguments.empty())
    states_[stateOf(*roots[0])].ctx.arguments = &options_.arguments;

  // The call graph from the roots; each function takes the launch shape of
  // the kernels that reach it, or any shape when they disagree.
  std::vector<char> unknownCallers;
  for (const ptx::Function *root : roots) {
    LaunchShape shape = options_.block ? *options_.block : LaunchShape::ofFunction(*root);
    std::vector<size_t> stack{stateOf(*root)};
    std::set<size_t> seen{stack.back()};
    while (!stack.empty()) {
      size_t s = stack.back();
      stack.pop_back();
      State *st = &states_[s];
      if (!st->shapeSet)
        st->shape = shape, st->shapeSet = true;
      else if (!(st->shape == shape))
        st->shape = LaunchShape{};
      if (st->expanded) {
        // Already expanded for an earlier root: only shapes need visiting.
        for (const CallSite &call : st->calls)
          for (size_t c : call.callees)
            if (seen.insert(c).second) stack.push_back(c);
        continue;
      }
      const ptx::InstrTable &table = ptx::InstrTable::get();
      const Cfg &cfg = st->gated->cfg();
      std::vector<CallSite> calls;
      for (uint32_t i = 0; i < st->fn->instrs.size(); ++i) {
        if (!table.has(st->fn->instrs[i].opcode, ptx::iflag::Call) || !cfg.reachable(cfg.blockOf(i)))
          continue;
        CallSite call{i, {}, false};
        for (const ptx::Function *f : calleesOf(*st->fn, st->fn->instrs[i], call.unknown)) {
          size_t c = stateOf(*f);
          st = &states_[s]; // stateOf may grow the vector
          call.callees.push_back(c);
          states_[c].callers.insert(s);
          if (seen.insert(c).second) stack.push_back(c);
        }
        calls.push_back(std::move(call));
      }
      st->calls = std::move(calls);
      st->expanded = true;
    }
  }
  // Functions that may be called from code we cannot see get divergent
  // parameters: address-taken ones, and in a whole-module run those that
  // no kernel reaches.
  if (wholeModule)
    for (const ptx::Function &fn : m_.functions)
      if (!fn.isKernel && fn.hasBody && !index_.count(&fn)) {
        size_t s = stateOf(fn);
        states_[s].shapeSet = true;
        addressTaken_.insert(&fn);
        // Its own calls.
        const ptx::InstrTable &table = ptx::InstrTable::get();
        for (uint32_t i = 0; i < fn.instrs.size(); ++i)
          if (table.has(fn.instrs[i].opcode, ptx::iflag::Call)) {
            CallSite call{i, {}, false};
            for (const ptx::Function *f : calleesOf(fn, fn.instrs[i], call.unknown))
              if (index_.count(f))
                call.callees.push_back(index_[f]);
              else
                call.unknown = true;
            states_[s].calls.push_back(std::move(call));
          }
      }
  for (const State &st : states_)
    for (const CallSite &call : st.calls)
      for (size_t c : call.callees) ++states_[c].callSites;
  for (size_t s = 0; s < states_.size(); ++s)
    if (addressTaken_.count(states_[s].fn))
      for (uint32_t var : states_[s].gated->ssa().defUse().entryParams())
        states_[s].ctx.entry[var] = Uniformity::Divergent;

  // The fixpoint: callees first (reverse discovery order).
  std::deque<size_t> work;
  std::vector<char> queued(states_.size(), 1);
  for (size_t s = states_.size(); s-- > 0;) work.push_back(s);
  while (!work.empty()) {
    size_t s = work.front();
    work.pop_front();
    queued[s] = 0;
    std::vector<Uniformity> before;
    Uniformity writesBefore = Uniformity::CtaUniform;
    if (states_[s].result) {
      auto r = states_[s].result->returns();
      before.assign(r.begin(), r.end());
      writesBefore = states_[s].result->localWrites();
    }
    solve(s);
    propagateArguments(s, work, queued);
    auto after = states_[s].result->returns();
    if (!std::equal(before.begin(), before.end(), after.begin(), after.end()) ||
        writesBefore != states_[s].result->localWrites())
      for (size_t caller : states_[s].callers)
        if (!queued[caller]) queued[caller] = 1, work.push_back(caller);
  }

  // Partial warps, then callees of partial blocks, to a fixpoint.
  for (size_t s = 0; s < states_.size(); ++s) markPartial(s);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < states_.size(); ++s) {
      const Cfg &cfg = states_[s].gated->cfg();
      for (const CallSite &call : states_[s].calls) {
        if (!states_[s].result->partialWarp(cfg.blockOf(call.instr))) continue;
        for (size_t c : call.callees)
          if (!states_[c].calledPartially) {
            states_[c].calledPartially = true;
            markPartial(c);
            changed = true;
          }
      }
    }
  }

  DivergenceResult result;
  for (State &st : states_) {
    result.index_[st.fn] = result.functions_.size();
    result.functions_.push_back(std::move(st.result));
  }
  return result;
}

ModuleDivergenceSolver::WholeWarps ModuleDivergenceSolver::wholeWarpBlocks(const ptx::Module &m,
                                                                           const DivergenceResult &r) {
  WholeWarps out;
  for (const auto &f : r.functions()) {
    if (!f) continue;
    const LaunchShape &shape = f->shape();
    const uint64_t threads = uint64_t{shape.x} * shape.y * shape.z;
    if (shape.kind != LaunchShape::Kind::Exact || threads == 0 || threads % 32 != 0) continue;
    const ptx::Function &fn = f->function();
    bool butterflies = false;
    for (const ptx::Instruction &in : fn.instrs)
      butterflies |= in.opcode == ptx::Opcode::ShflSync && m.desc(in).has(ptx::Mod::Bfly);
    if (!butterflies) continue;
    const Cfg &cfg = f->gated().cfg();
    std::vector<char> whole(cfg.size(), 0);
    for (uint32_t b = 0; b < cfg.numBlocks(); ++b) whole[b] = cfg.reachable(b) && !f->partialWarp(b);
    out.emplace(&fn, std::move(whole));
  }
  return out;
}

DivergenceResult analyzeDivergence(AnalysisManager &am, std::span<const ptx::Function *const> kernels,
                                   const DivergenceOptions &options) {
  DivergenceResult first = ModuleDivergenceSolver(am, options).run(kernels);
  auto whole = ModuleDivergenceSolver::wholeWarpBlocks(am.module(), first);
  if (whole.empty()) return first;
  return ModuleDivergenceSolver(am, options, &whole).run(kernels);
}

DivergenceResult analyzeDivergence(const ptx::Module &m, const ptx::Function &kernel,
                                   const DivergenceOptions &options) {
  auto am = std::make_shared<AnalysisManager>(m);
  const ptx::Function *roots[] = {&kernel};
  DivergenceResult r = analyzeDivergence(*am, roots, options);
  ModuleDivergenceSolver::keepAlive(r, std::move(am));
  return r;
}

DivergenceResult DivergenceAnalysis::run(AnalysisManager &am) {
  DivergenceOptions options;
  const uint32_t *b = am.launch().block;
  if (b[0]) options.block = LaunchShape::exact(b[0], b[1] ? b[1] : 1, b[2] ? b[2] : 1);
  return analyzeDivergence(am, {}, options);
}

} // namespace analysis
