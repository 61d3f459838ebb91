// The per-function divergence fixpoint. Every value starts CTA-uniform with
// no affine form (bottom) and only rises: a value is recomputed when one of
// its operands, gates or block floors rises, so each is recomputed a bounded
// number of times (the lattices have finite height) and the whole is
// near-linear in the number of uses.
#include "analysis/DivergenceSolver.h"

#include <bitset>
#include <limits>
#include <optional>

namespace analysis {

bool isIntegerType(ptx::Type t) {
  ptx::TypeClass c = ptx::typeClass(t);
  return (c == ptx::TypeClass::Signed || c == ptx::TypeClass::Unsigned || c == ptx::TypeClass::Bits) &&
         ptx::bitWidth(t) > 0 && ptx::bitWidth(t) <= 64;
}

std::optional<int64_t> constantOf(const Affine &a) {
  if (!a.threadInvariant() || !a.coef(0).isConst()) return std::nullopt;
  return a.coef(0).value;
}

DivergenceSolver::DivergenceSolver(const ptx::Module &m, const GatedSSA &gated, const LaunchShape &shape,
                                   const FunctionContext &ctx, FunctionDivergence &out)
    : m_(m), g_(gated), cfg_(gated.cfg()), ssa_(gated.ssa()), du_(gated.ssa().defUse()),
      loops_(gated.loops()), fn_(gated.cfg().function()), space_(shape), ctx_(ctx), out_(out),
      threads_(space_) {
  out_.gated_ = &gated;
  out_.shape_ = shape;
  out_.levels_.assign(ssa_.values().size(), Uniformity::CtaUniform);
  out_.forms_.assign(ssa_.values().size(), Affine::bottom());
  out_.branchLevels_.assign(g_.branches().size(), Uniformity::CtaUniform);
  floor_.assign(cfg_.size(), Uniformity::CtaUniform);
  loopFloor_.assign(loops_.loops().size(), Uniformity::CtaUniform);
  misaligning_.assign(g_.branches().size(), 0);
  evaluated_.assign(threads_.active() ? fn_.instrs.size() : 0, 0);
  if (fn_.isKernel) {
    phases_.emplace(m, cfg_);
    synchronizes_.assign(cfg_.size(), 0);
    for (uint32_t i : phases_->synchronizing()) synchronizes_[cfg_.blockOf(i)] = 1;
  }
  descFacts_.resize(m.descs.size());
  descKnown_.assign(m.descs.size(), 0);
  if (!ctx_.wholeWarps.empty()) {
    // Optimistic where butterflies can run (and only rising from there);
    // parameters and everything else symmetric only when uniform.
    laneSymmetry_.assign(ssa_.values().size(), 0);
    for (ValueId v = 0; v < ssa_.values().size(); ++v) {
      const Value &val = ssa_.value(v);
      if (val.kind != ValueKind::Entry && val.block < ctx_.wholeWarps.size() && ctx_.wholeWarps[val.block])
        laneSymmetry_[v] = kAllLaneBits;
    }
  }
}

const InstrFacts &DivergenceSolver::facts(uint32_t i) {
  uint32_t d = fn_.instrs[i].desc;
  if (!descKnown_[d]) {
    descFacts_[d] = instrFacts(m_.descs[d]);
    descKnown_[d] = 1;
  }
  return descFacts_[d];
}

void DivergenceSolver::buildUsers() {
  const uint32_t values = static_cast<uint32_t>(ssa_.values().size());
  std::vector<std::pair<ValueId, uint32_t>> pairs;
  for (uint32_t b : cfg_.rpo()) {
    if (b == cfg_.exit()) continue;
    const ptx::BasicBlock &block = fn_.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      for (ValueId v : ssa_.useValues(i))
        if (v != kNoValue) pairs.emplace_back(v, kInstr | i);
      for (ValueId v : ssa_.oldValues(i))
        if (v != kNoValue) pairs.emplace_back(v, kInstr | i);
      // maskedLevel looks through and/or/xor operands of an `and`: it reads
      // their operands' levels and forms too.
      if (fn_.instrs[i].opcode == ptx::Opcode::And)
        for (ValueId v : ssa_.useValues(i))
          if (v != kNoValue)
            forEachBitwiseSource(v, kBitwiseDepth, [&](ValueId w) { pairs.emplace_back(w, kInstr | i); });
    }
  }
  for (uint32_t p = 0; p < ssa_.phis().size(); ++p)
    for (ValueId v : ssa_.incoming(p))
      if (v != kNoValue) pairs.emplace_back(v, kPhi | p);
  for (uint32_t br = 0; br < g_.branches().size(); ++br)
    for (ValueId v : g_.conditions(br))
      if (v != kNoValue) pairs.emplace_back(v, kBranch | br);
  userBegin_.assign(values + 1, 0);
  for (auto [v, u] : pairs) ++userBegin_[v + 1];
  for (uint32_t v = 0; v < values; ++v) userBegin_[v + 1] += userBegin_[v];
  users_.resize(pairs.size());
  std::vector<uint32_t> next(userBegin_.begin(), userBegin_.end() - 1);
  for (auto [v, u] : pairs) users_[next[v]++] = u;
  queued_.assign(fn_.instrs.size() + ssa_.phis().size() + g_.branches().size(), 0);
}

void DivergenceSolver::push(uint32_t item) {
  uint32_t index = item & ~kMask;
  uint32_t slot = (item & kMask) == kInstr ? index
                  : (item & kMask) == kPhi
                      ? static_cast<uint32_t>(fn_.instrs.size()) + index
                      : static_cast<uint32_t>(fn_.instrs.size() + ssa_.phis().size()) + index;
  if (queued_[slot]) return;
  queued_[slot] = 1;
  work_.push_back(item);
}

void DivergenceSolver::pushValueUsers(ValueId v) {
  for (uint32_t k = userBegin_[v]; k < userBegin_[v + 1]; ++k) push(users_[k]);
}

void DivergenceSolver::pushBlock(uint32_t b) {
  for (uint32_t p : ssa_.phisOf(b)) push(kPhi | p);
  if (b >= cfg_.numBlocks()) return;
  const ptx::BasicBlock &block = fn_.blocks[b];
  for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) push(kInstr | i);
}

void DivergenceSolver::raiseFloor(uint32_t block, Uniformity level) {
  if (level <= floor_[block]) return;
  floor_[block] = level;
  pushBlock(block);
}

void DivergenceSolver::raiseLoopFloor(uint32_t loop, Uniformity level) {
  // Many branches can leave or wrap one loop: each level raises its blocks
  // once.
  if (level <= loopFloor_[loop]) return;
  loopFloor_[loop] = level;
  for (uint32_t b : loops_.loop(loop).blocks) raiseFloor(b, level);
}

bool DivergenceSolver::update(ValueId v, Uniformity level, Affine form, const ThreadSpace::Mask *among) {
  if (form.known()) level = meet(level, levelOf(form, space_, among));
  // Values only rise: the new result joined with the old one (a no-op
  // while the transfer functions are monotone, and a guarantee of
  // termination if one is not).
  level = join(level, out_.levels_[v]);
  form = merge(out_.forms_[v], form, Uniformity::CtaUniform);
  if (level == out_.levels_[v] && form == out_.forms_[v]) return false;
  out_.levels_[v] = level;
  out_.forms_[v] = form;
  return true;
}

void DivergenceSolver::run() {
  buildUsers();
  // Instructions of unreachable blocks never run: nothing is claimed.
  for (uint32_t i = 0; i < fn_.instrs.size(); ++i)
    if (!cfg_.reachable(cfg_.blockOf(i)))
      for (ValueId v : ssa_.defValues(i)) {
        out_.levels_[v] = Uniformity::Divergent;
        out_.forms_[v] = Affine::top();
      }
  for (uint32_t var = 0; var < du_.numVars(); ++var) {
    ValueId v = ssa_.entryValue(var);
    if (v == kNoValue) continue;
    Uniformity level = var < ctx_.entry.size() ? ctx_.entry[var] : Uniformity::CtaUniform;
    // Local memory before any store holds what earlier code left there.
    if (du_.isPlaceVar(var)) level = Uniformity::Divergent;
    out_.levels_[v] = level;
    bool integer = du_.isRegister(var) && isIntegerType(fn_.registerType(var));
    out_.forms_[v] = integer ? Affine::unknown(level, ptx::bitWidth(fn_.registerType(var))) : Affine::top();
  }
  for (uint32_t b : cfg_.rpo()) pushBlock(b);
  for (uint32_t br = 0; br < g_.branches().size(); ++br) push(kBranch | br);
  while (!work_.empty()) {
    uint32_t item = work_.front();
    work_.pop_front();
    uint32_t index = item & ~kMask;
    switch (item & kMask) {
    case kInstr:
      queued_[index] = 0;
      processInstr(index);
      break;
    case kPhi:
      queued_[fn_.instrs.size() + index] = 0;
      processPhi(index);
      break;
    default:
      queued_[fn_.instrs.size() + ssa_.phis().size() + index] = 0;
      processBranch(index);
      break;
    }
  }
  out_.returns_.clear();
  for (ValueId v : ssa_.exitValues())
    out_.returns_.push_back(v == kNoValue ? Uniformity::CtaUniform : out_.levels_[v]);
}

// ---- Instructions -------------------------------------------------------------------

Affine DivergenceSolver::formOf(ValueId v, unsigned width) const {
  const Affine &f = out_.forms_[v];
  if (f.isBottom()) return f;
  if (f.known() && f.width() == width) return f;
  return Affine::unknown(out_.levels_[v], width);
}

Uniformity DivergenceSolver::useLevel(uint32_t i, UseRole role) const {
  Uniformity level = Uniformity::CtaUniform;
  auto uses = du_.uses(i);
  auto values = ssa_.useValues(i);
  for (size_t u = 0; u < uses.size(); ++u)
    if (uses[u].role == role && values[u] != kNoValue) level = join(level, out_.levels_[values[u]]);
  return level;
}

DivergenceSolver::Operand DivergenceSolver::operand(uint32_t i, uint32_t position, unsigned width) {
  Operand r;
  auto ops = fn_.operandsOf(fn_.instrs[i]);
  if (position >= ops.size()) return r;
  const ptx::Operand &op = ops[position];
  switch (op.kind) {
  case ptx::OperandKind::Int: r.form = Affine::constant(op.value, width); return r;
  case ptx::OperandKind::F32:
  case ptx::OperandKind::F64: return r;
  case ptx::OperandKind::Symbol: r.form = Affine::unknown(Uniformity::CtaUniform, width); return r;
  case ptx::OperandKind::SpecialReg: {
    auto reg = static_cast<ptx::SpecialReg>(op.id);
    unsigned component = op.selector == ptx::Selector::X   ? 1
                         : op.selector == ptx::Selector::Y ? 2
                         : op.selector == ptx::Selector::Z ? 3
                                                           : 0;
    r.level = specialRegUniformity(reg);
    const LaunchShape &shape = space_.shape();
    if (reg == ptx::SpecialReg::Tid && component) {
      r.form = Affine::threadId(component, width);
      r.level = levelOf(r.form, space_);
    } else if (reg == ptx::SpecialReg::Ntid && component && shape.kind == LaunchShape::Kind::Exact) {
      r.form = Affine::constant(component == 1 ? shape.x : component == 2 ? shape.y : shape.z, width);
    } else if (reg == ptx::SpecialReg::Ntid && component > 1 && shape.kind == LaunchShape::Kind::Linear) {
      r.form = Affine::constant(1, width);
    } else if (reg == ptx::SpecialReg::NCtaId && component && ctx_.grid[component - 1]) {
      r.form = Affine::constant(ctx_.grid[component - 1], width);
    } else if (reg == ptx::SpecialReg::CtaId && component && ctx_.grid[component - 1]) {
      r.form = Affine::unknownIn(r.level, width, 0, ctx_.grid[component - 1] - 1);
    } else {
      r.form = Affine::unknown(r.level, width);
    }
    return r;
  }
  default: break;
  }
  // Registers (possibly inside a vector or an address): the values of the
  // uses at this position.
  auto uses = du_.uses(i);
  auto values = ssa_.useValues(i);
  bool single = op.kind == ptx::OperandKind::Register && op.selector == ptx::Selector::None;
  for (size_t u = 0; u < uses.size(); ++u) {
    if (uses[u].operand != position || uses[u].role == UseRole::Guard || values[u] == kNoValue) continue;
    r.level = join(r.level, out_.levels_[values[u]]);
    if (single) r.form = formOf(values[u], width);
  }
  if (!single) r.form = Affine::unknown(r.level, width);
  return r;
}

std::pair<Uniformity, Affine> DivergenceSolver::transfer(uint32_t i, uint32_t slot) {
  const ptx::Instruction &in = fn_.instrs[i];
  const ptx::InstrDesc &desc = m_.desc(in);
  const Def &def = du_.defs(i)[slot];
  const InstrFacts &f = facts(i);
  const bool registerDef = def.registerIndex != Def::kNotRegister;
  const bool predicate = registerDef && fn_.registerType(def.var) == ptx::Type::Pred;
  // Data dependence: every operand read, guards and old values aside.
  Uniformity data = Uniformity::CtaUniform;
  {
    auto uses = du_.uses(i);
    auto values = ssa_.useValues(i);
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].role != UseRole::Guard && values[u] != kNoValue) data = join(data, out_.levels_[values[u]]);
    for (const ptx::Operand &op : fn_.operandsOf(in))
      if (op.kind == ptx::OperandKind::SpecialReg)
        data = join(data, operand(i, static_cast<uint32_t>(&op - fn_.operandsOf(in).data()), 32).level);
  }
  auto unknown = [](Uniformity level) { return std::pair(level, Affine::unknown(level, 64)); };

  if (f.rule == ResultRule::Call) {
    size_t flat = du_.defBegin(i) + slot;
    Uniformity level = flat < ctx_.callResults.size() ? ctx_.callResults[flat] : Uniformity::Divergent;
    return unknown(join(level, useLevel(i, UseRole::Target)));
  }
  // The carry flag and .param stores follow their operands.
  if (!registerDef) return unknown(data);
  // Lanes that pass different member masks take part in different
  // collectives (cooperative groups' tiles): nothing is uniform then.
  if (f.memberMask && operand(i, fn_.instrs[i].numOperands - 1u, 32).level == Uniformity::Divergent)
    return {Uniformity::Divergent, Affine::top()};

  switch (f.rule) {
  case ResultRule::Divergent: return {Uniformity::Divergent, Affine::top()};
  case ResultRule::WarpUniform: {
    // bar.red over every thread of the CTA (no thread count: d, a, c) gives
    // each generation's participants one result.
    const ptx::BarrierInfo &barrier = ptx::InstrTable::get().barrier(in.opcode);
    if (barrier.kind == ptx::BarrierKind::Reduce && in.numOperands == 3)
      return unknown(Uniformity::CtaUniform);
    return unknown(Uniformity::WarpUniform);
  }
  case ResultRule::Elect:
    return predicate ? std::pair(Uniformity::Divergent, Affine::top()) : unknown(Uniformity::WarpUniform);
  case ResultRule::Load: return loadRule(i);
  case ResultRule::Shuffle:
  case ResultRule::ShuffleIndexed: {
    // shfl d|p, a, b, c: a value that is already uniform stays so; with
    // .idx, a warp-uniform lane b and c = 0x1f (one segment of 32 lanes)
    // every lane reads the same lane.
    Operand a = operand(i, 1, 32), b = operand(i, 2, 32), c = operand(i, 3, 32);
    auto cval = constantOf(c.form);
    bool sameLane = f.rule == ResultRule::ShuffleIndexed && b.level != Uniformity::Divergent && cval &&
                    (*cval & 0x1f) == 0x1f && ((*cval >> 8) & 0x1f) == 0;
    // The predicate (source lane in range): with c = 0x1f and no segments,
    // .bfly (lane ^ b) and .idx (b's low five bits) never leave the warp, so
    // it is true in every lane whatever b is. Otherwise it holds for every
    // lane when they all read one lane, and is left warp-uniform then, like
    // the results of the other collectives.
    if (predicate) {
      const bool inRange = cval && (*cval & 0x1f) == 0x1f && ((*cval >> 8) & 0x1f) == 0 &&
                           (f.rule == ResultRule::ShuffleIndexed || desc.has(ptx::Mod::Bfly));
      if (inRange) return {Uniformity::CtaUniform, Affine::top()};
      // .idx without segments compares one lane number, b's, with c's bound.
      const bool oneLane = f.rule == ResultRule::ShuffleIndexed && b.level != Uniformity::Divergent && cval &&
                           ((*cval >> 8) & 0x1f) == 0;
      return oneLane ? std::pair(join(join(b.level, c.level), Uniformity::WarpUniform), Affine::top())
                     : unknown(Uniformity::Divergent);
    }
    if (a.level != Uniformity::Divergent) return {a.level, a.form};
    return sameLane ? unknown(Uniformity::WarpUniform) : std::pair(Uniformity::Divergent, Affine::top());
  }
  default: break;
  }

  // Data: uniform as the operands, refined by the affine forms.
  const ptx::Type type = desc.lastType();
  if (!isIntegerType(type) || ptx::bitWidth(fn_.registerType(def.var)) == 0 ||
      (f.affine == AffineOp::None && f.refine == RefineOp::None))
    return unknown(data);
  const unsigned width = ptx::bitWidth(type);
  if (f.refine != RefineOp::None) {
    Operand a = operand(i, 1, width), b = operand(i, 2, width);
    Uniformity refined = Uniformity::Divergent;
    std::optional<uint64_t> andMask;
    switch (f.refine) {
    case RefineOp::ShiftRight:
      if (auto k = constantOf(b.form))
        refined = refineShiftRight(a.form, static_cast<unsigned>(std::min<uint64_t>(*k, 64)),
                                   ptx::typeClass(type) == ptx::TypeClass::Signed, space_);
      break;
    case RefineOp::And:
      if (auto k = constantOf(b.form)) {
        andMask = static_cast<uint64_t>(*k);
      } else if (auto k2 = constantOf(a.form)) {
        andMask = static_cast<uint64_t>(*k2);
        std::swap(a, b);
      }
      if (andMask) refined = maskedLevel(i, b.form.known() && constantOf(b.form) ? 1 : 2, *andMask, width);
      break;
    case RefineOp::Div:
    case RefineOp::Rem:
      if (auto k = constantOf(b.form))
        refined = refineDivRem(a.form, static_cast<uint64_t>(*k), f.refine == RefineOp::Rem,
                               ptx::typeClass(type) == ptx::TypeClass::Signed, space_);
      break;
    case RefineOp::Compare: {
      refined = refineCompare(a.form, b.form, desc.firstOfKind(ptx::ModKind::Compare),
                              ptx::typeClass(type) == ptx::TypeClass::Signed, space_);
      // setp's optional boolean operation with a third predicate.
      refined = join(refined, operand(i, 3, width).level);
      break;
    }
    default: break;
    }
    Uniformity level = meet(data, refined);
    if (predicate) return {level, Affine::top()};
    if (andMask) return {level, maskedForm(a.form, *andMask, level, space_)};
    return {level, Affine::unknown(level, width)};
  }

  Affine form = Affine::top();
  switch (f.affine) {
  case AffineOp::Copy:
    if (fn_.operandsOf(in).size() == 2) form = operand(i, 1, width).form;
    break;
  case AffineOp::Add: form = add(operand(i, 1, width).form, operand(i, 2, width).form); break;
  case AffineOp::Sub: form = sub(operand(i, 1, width).form, operand(i, 2, width).form); break;
  case AffineOp::Mul: form = mul(operand(i, 1, width).form, operand(i, 2, width).form); break;
  case AffineOp::Mad:
    form = add(mul(operand(i, 1, width).form, operand(i, 2, width).form), operand(i, 3, width).form);
    break;
  case AffineOp::MulWide:
  case AffineOp::MadWide: {
    // Exact in twice the width when neither source wraps as it widens
    // (convert() keeps a form only then).
    const bool sign = ptx::typeClass(type) == ptx::TypeClass::Signed;
    form = mul(convert(operand(i, 1, width).form, 2 * width, sign),
               convert(operand(i, 2, width).form, 2 * width, sign));
    if (f.affine == AffineOp::MadWide) form = add(form, operand(i, 3, 2 * width).form);
    break;
  }
  case AffineOp::Shl:
    if (auto k = constantOf(operand(i, 2, width).form))
      form = static_cast<uint64_t>(*k) >= width ? Affine::constant(0, width)
                                                : scale(operand(i, 1, width).form, int64_t{1} << *k);
    break;
  case AffineOp::Neg: form = neg(operand(i, 1, width).form); break;
  case AffineOp::Or:
    if (!predicate) form = orForm(i, width);
    break;
  case AffineOp::Convert: {
    ptx::Type from = desc.type(1);
    if (isIntegerType(desc.type(0)) && isIntegerType(from) &&
        desc.firstOfKind(ptx::ModKind::Rounding) == ptx::Mod::None)
      form = convert(operand(i, 1, ptx::bitWidth(from)).form, ptx::bitWidth(desc.type(0)),
                     ptx::typeClass(from) == ptx::TypeClass::Signed);
    break;
  }
  default: break;
  }
  const unsigned resultWidth =
      f.affine == AffineOp::MulWide || f.affine == AffineOp::MadWide ? 2 * width : width;
  return {data, form.isBottom() || form.known() ? form : Affine::unknown(data, resultWidth)};
}

uint32_t DivergenceSolver::bitwiseDefinition(ValueId v) const {
  const Value &val = ssa_.value(v);
  if (val.kind != ValueKind::Def || val.slot != 0) return kNone;
  const ptx::Instruction &in = fn_.instrs[val.index];
  const bool bitwise =
      in.opcode == ptx::Opcode::And || in.opcode == ptx::Opcode::Or || in.opcode == ptx::Opcode::Xor;
  if (!bitwise || in.hasGuard || du_.defs(val.index).size() != 1 || du_.defs(val.index)[0].partial ||
      !isIntegerType(m_.desc(in).lastType()))
    return kNone;
  return val.index;
}

template <class F> void DivergenceSolver::forEachBitwiseSource(ValueId v, unsigned depth, F f) const {
  const uint32_t j = bitwiseDefinition(v);
  if (j == kNone || depth == 0) return;
  for (ValueId w : ssa_.useValues(j))
    if (w != kNoValue) {
      f(w);
      forEachBitwiseSource(w, depth - 1, f);
    }
}

Uniformity DivergenceSolver::maskedLevel(uint32_t i, uint32_t position, uint64_t mask, unsigned width,
                                         unsigned depth) {
  const Operand a = operand(i, position, width);
  const Uniformity level = meet(a.level, refineAnd(a.form, mask, space_));
  if (level != Uniformity::Divergent || depth == 0) return level;
  // (x | y) & m = (x & m) | (y & m), and so for xor and and: uniform when
  // both sides are under the mask (`(i | n) & 0xFFFFFFFF00000000`, the test
  // of a 64-bit division's 32-bit fast path, with n uniform and i's high
  // word uniform).
  const ptx::Operand &op = fn_.operandsOf(fn_.instrs[i])[position];
  if (op.kind != ptx::OperandKind::Register || op.selector != ptx::Selector::None) return level;
  auto uses = du_.uses(i);
  auto values = ssa_.useValues(i);
  for (size_t u = 0; u < uses.size(); ++u) {
    if (uses[u].operand != position || uses[u].role != UseRole::Source || values[u] == kNoValue) continue;
    // Only definitions in the same block: what they compute there is what
    // the `and` reads, under the same floor (which processInstr joins).
    const uint32_t j = bitwiseDefinition(values[u]);
    if (j == kNone || cfg_.blockOf(j) != cfg_.blockOf(i) ||
        ptx::bitWidth(m_.desc(fn_.instrs[j]).lastType()) != width)
      return level;
    return join(maskedLevel(j, 1, mask, width, depth - 1), maskedLevel(j, 2, mask, width, depth - 1));
  }
  return level;
}

Affine DivergenceSolver::orForm(uint32_t i, unsigned width) {
  Operand a = operand(i, 1, width), b = operand(i, 2, width);
  // a | c with c every bit from j up (`lane | -32`): the low bits of a,
  // plus c.
  for (int side = 0; side < 2; ++side, std::swap(a, b))
    if (auto c = constantOf(b.form)) {
      const uint64_t bits = static_cast<uint64_t>(*c) & widthMask(width);
      const uint64_t low = ~bits & widthMask(width);
      if (bits != 0 && std::has_single_bit(low + 1)) {
        const Uniformity lowLevel = meet(a.level, refineAnd(a.form, low, space_));
        return add(maskedForm(a.form, low, lowLevel, space_), b.form);
      }
    }
  // Operands without a common bit: one a multiple of 2^j, the other below
  // 2^j in every thread (`(k << 9) | lane`).
  for (int side = 0; side < 2; ++side, std::swap(a, b)) {
    const unsigned j = knownAlignment(a.form);
    if (j == 0 || !b.form.known()) continue;
    if (std::optional<uint64_t> most = largestInThreads(i, side == 0 ? 2 : 1, b.form))
      if (j >= 64 || *most < (uint64_t{1} << j)) return add(a.form, b.form);
  }
  return Affine::top();
}

std::optional<uint64_t> DivergenceSolver::largestInThreads(uint32_t i, uint32_t position,
                                                           const Affine &form) {
  if (auto c = constantOf(form)) return static_cast<uint64_t>(*c) & widthMask(form.width());
  if (!threads_.active()) return std::nullopt;
  auto uses = du_.uses(i);
  auto values = ssa_.useValues(i);
  for (size_t u = 0; u < uses.size(); ++u)
    if (uses[u].operand == position && uses[u].role == UseRole::Source && values[u] != kNoValue)
      if (ThreadValues::Vector numbers = threads_.find(values[u])) {
        uint64_t most = 0;
        for (uint32_t t = 0; t < threads_.space().size(); ++t) most = std::max(most, numbers[t]);
        return most;
      }
  return std::nullopt;
}

void DivergenceSolver::processInstr(uint32_t i) {
  const uint32_t b = cfg_.blockOf(i);
  if (!cfg_.reachable(b)) return;
  const ptx::Instruction &in = fn_.instrs[i];
  auto defs = du_.defs(i);
  if (defs.empty()) return;
  if (threads_.active() && !evaluated_[i]) evaluateForThreads(i);
  Uniformity guard = in.hasGuard ? useLevel(i, UseRole::Guard) : Uniformity::CtaUniform;
  for (uint32_t k = 0; k < defs.size(); ++k) {
    auto [level, form] = transfer(i, k);
    if (form.known()) level = meet(level, levelOf(form, space_));
    const ValueId v = ssa_.defValues(i)[k];
    // A butterfly reduction is the same in every lane whatever its inputs.
    const bool symmetryChanged = !laneSymmetry_.empty() && lowerLaneSymmetry(v, laneSymmetryOfDef(i, k));
    const bool butterfly = !laneSymmetry_.empty() && laneSymmetry_[v] == kAllLaneBits;
    // A value of the thread id alone is what its numbers say, at every
    // execution.
    if (ThreadValues::Vector numbers = threads_.active() ? threads_.find(v) : nullptr) {
      const ThreadSet &reaching = threadsReaching(b);
      const Uniformity among = threads_.level(numbers, &reaching);
      if (update(v, meet(meet(level, among), fewThreads(b)), form, &reaching) || symmetryChanged)
        pushValueUsers(v);
      continue;
    }
    // A partial write keeps the old value where the guard is false.
    ValueId old = ssa_.oldValues(i)[k];
    if (old != kNoValue) {
      level = join(join(level, guard), out_.levels_[old]);
      const Affine &oldForm = out_.forms_[old];
      form = merge(form,
                   oldForm.known() && form.known() && oldForm.width() != form.width()
                       ? Affine::unknown(out_.levels_[old], form.width())
                       : oldForm,
                   guard);
    }
    if (!form.allConst()) level = join(level, floor_[b]);
    form = raise(form, floor_[b]);
    if (threads_.active()) level = meet(level, fewThreads(b));
    if (butterfly) level = meet(level, Uniformity::WarpUniform);
    // Only the threads that can reach this block compute the value: a
    // thread-id term that is the same in all of them (`ctaid * 16 + tid.x`
    // under `if (tid.x == 0)`) makes no difference.
    if (update(v, level, form, threads_.active() ? &threadsReaching(b) : nullptr) || symmetryChanged)
      pushValueUsers(v);
  }
}

// ---- φ-nodes and branches ----------------------------------------------------------------

void DivergenceSolver::processPhi(uint32_t p) {
  const Phi &phi = ssa_.phis()[p];
  const uint32_t j = phi.block;
  auto in = ssa_.incoming(p);
  auto preds = cfg_.preds(j);
  ValueId same = kNoValue;
  bool allSame = true;
  for (ValueId v : in) {
    if (v == kNoValue) continue;
    if (same == kNoValue)
      same = v;
    else if (v != same)
      allSame = false;
  }
  if (same == kNoValue) return;
  // γ: branches whose sides meet here (irrelevant when every path brings
  // the same value). η: loops this block exits, when a value defined in the
  // loop comes out of it.
  Uniformity gate = Uniformity::CtaUniform;
  if (!allSame)
    for (uint32_t br : g_.gates(j)) gate = join(gate, out_.branchLevels_[br]);
  for (uint32_t l : g_.exitOf(j)) {
    bool carriesLoopValue = false;
    for (size_t k = 0; k < preds.size() && k < in.size(); ++k) {
      if (in[k] == kNoValue || !loops_.contains(l, preds[k])) continue;
      const Value &v = ssa_.value(in[k]);
      carriesLoopValue |=
          v.kind != ValueKind::Entry && v.block < cfg_.numBlocks() && loops_.contains(l, v.block);
    }
    if (carriesLoopValue)
      for (uint32_t br : g_.exitBranches(l)) gate = join(gate, out_.branchLevels_[br]);
  }
  Uniformity level = gate;
  Affine form = Affine::bottom();
  unsigned width = du_.isRegister(phi.var) ? ptx::bitWidth(fn_.registerType(phi.var)) : 64;
  for (ValueId v : in) {
    if (v == kNoValue) continue;
    level = join(level, out_.levels_[v]);
    form = merge(form, formOf(v, width), gate);
  }
  // A single incoming value through an η gate still changes with the
  // iteration a thread leaves in, unless it depends on the thread id alone.
  form = raise(form, gate);
  if (!form.allConst()) level = join(level, floor_[j]);
  form = raise(form, floor_[j]);
  if (threads_.active()) level = meet(level, fewThreads(j));
  // Lane symmetry passes through a join that whole warps take one way.
  bool symmetryChanged = false;
  if (!laneSymmetry_.empty()) {
    uint8_t bits = gate == Uniformity::Divergent || floor_[j] == Uniformity::Divergent ? 0 : kAllLaneBits;
    for (ValueId v : in) bits &= v == kNoValue ? 0 : laneSymmetry(v);
    symmetryChanged = lowerLaneSymmetry(phi.value, bits);
    if (laneSymmetry_[phi.value] == kAllLaneBits) level = meet(level, Uniformity::WarpUniform);
  }
  if (update(phi.value, level, form) || symmetryChanged) pushValueUsers(phi.value);
}

void DivergenceSolver::checkBarrierAlignment(uint32_t br) {
  if (!phases_ || !barriersAligned_) return;
  bool around = false;
  for (const RegionNode &r : g_.region(br))
    around |= r.node != g_.branches()[br].floor && r.node < cfg_.numBlocks() && synchronizes_[r.node];
  for (auto loopsOf : {g_.exitedLoops(br), g_.wrappedLoops(br)})
    for (uint32_t l : loopsOf)
      for (uint32_t b : loops_.loop(l).blocks) around |= synchronizes_[b] != 0;
  if (!around) return;
  barriersAligned_ = false;
  for (uint32_t i : quietLoads_) push(kInstr | i);
  quietLoads_.clear();
}

void DivergenceSolver::processBranch(uint32_t br) {
  Uniformity level = Uniformity::CtaUniform;
  for (ValueId v : g_.conditions(br))
    if (v != kNoValue) level = join(level, out_.levels_[v]);
  if (threads_.active()) level = meet(level, fewThreads(g_.branches()[br].block));
  if (level <= out_.branchLevels_[br]) return;
  out_.branchLevels_[br] = level;
  checkBarrierAlignment(br);
  for (uint32_t j : g_.joins(br))
    for (uint32_t p : ssa_.phisOf(j)) push(kPhi | p);
  for (uint32_t l : g_.exitedLoops(br))
    for (uint32_t e : loops_.loop(l).exitBlocks)
      for (uint32_t p : ssa_.phisOf(e)) push(kPhi | p);
  // Threads that reach the reconvergence point after different numbers of
  // trips around a loop: every value of the loop.
  for (uint32_t l : g_.wrappedLoops(br)) raiseLoopFloor(l, level);
  // Warps that take different sides inside a loop execute the blocks the
  // branch decides a different number of times: at best warp-uniform there.
  const Branch &branch = g_.branches()[br];
  uint32_t outer = loops_.outermostLoopOf(branch.block);
  if (level != Uniformity::CtaUniform && outer != kNone && !misaligning_[br]) {
    misaligning_[br] = 1;
    for (const RegionNode &r : g_.region(br))
      if (r.node != branch.floor && r.node < cfg_.numBlocks() && loops_.outermostLoopOf(r.node) == outer)
        raiseFloor(r.node, Uniformity::WarpUniform);
    for (uint32_t l : g_.exitedLoops(br)) raiseLoopFloor(l, Uniformity::WarpUniform);
  }
}

} // namespace analysis
