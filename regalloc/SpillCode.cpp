// Spill code placed by the divergence lattice.
#include "regalloc/SpillCode.h"

#include "analysis/Analyses.h"
#include "analysis/Divergence.h"
#include "ptx/Edit.h"
#include "regalloc/LiveIntervals.h"

#include <cmath>
#include <stdexcept>

namespace regalloc {

using namespace analysis;

std::string_view spillClassName(SpillClass c) {
  switch (c) {
  case SpillClass::Remat: return "affine";
  case SpillClass::Reload: return "read-only";
  case SpillClass::CtaShared: return "cta-uniform";
  case SpillClass::WarpShared: return "warp-uniform";
  case SpillClass::Local: return "divergent";
  }
  return "divergent";
}

namespace {

/// How a spilled register is kept: its class, its slot (byte offset in its
/// area) and, for a recomputed value, the form to recompute.
struct Placement {
  SpillClass cls = SpillClass::Local;
  uint32_t offset = 0;
  int64_t constant = 0;           // Remat: c0
  int64_t coefficient = 0;        // Remat: the tid coefficient
  int tidComponent = -1;          // Remat: 0, 1, 2 for tid.x/y/z, -1 for none
  uint32_t defInstr = UINT32_MAX; // Remat, Reload: the one write (erased when pure)
  uint32_t loadDesc = 0;          // Reload: the load
  ptx::Operand address;           // Reload: its address
};

ptx::Selector componentSelector(int c) {
  return c == 0 ? ptx::Selector::X : c == 1 ? ptx::Selector::Y : ptx::Selector::Z;
}

/// Writes instructions for one function; a spelling the table refuses is a
/// bug of this file, reported as an exception the pass turns into a remark.
class Emitter {
public:
  Emitter(ptx::Module &m, ptx::Function &fn) : m_(m), fn_(fn) {}
  ptx::Instruction operator()(std::string_view spelling, std::initializer_list<ptx::Operand> ops) {
    std::string error;
    std::optional<ptx::Instruction> in = ptx::makeInstruction(m_, fn_, spelling, ops, error);
    if (!in) throw std::logic_error("regalloc spill code: " + error);
    return *in;
  }

private:
  ptx::Module &m_;
  ptx::Function &fn_;
};

/// A fresh register like `like` (a temporary of the spill code).
uint32_t newRegister(ptx::Module &m, ptx::Function &fn, ptx::RegisterDecl like, SpillState &state) {
  const uint32_t id = fn.numRegisters++;
  like.count = 0;
  like.firstRegister = id;
  like.name = m.names.intern("%__spill" + std::to_string(id));
  fn.regDecls.push_back(like);
  state.unspillable.resize(fn.numRegisters, false);
  state.unspillable[id] = true;
  return id;
}

/// The module-scope .shared array `name` (declared before `fn`), sized later.
ptx::Name sharedArea(ptx::Module &m, const ptx::Function &fn, std::string name) {
  ptx::Variable v;
  v.name = m.names.intern(name);
  v.space = ptx::Mod::Shared;
  v.type = ptx::Type::B8;
  v.alignment = 16;
  v.dims = {16};
  const auto fnIndex = static_cast<uint32_t>(&fn - m.functions.data());
  auto at = std::find_if(m.order.begin(), m.order.end(), [&](const ptx::TopLevel &t) {
    return t.kind == ptx::TopLevelKind::Function && t.index == fnIndex;
  });
  m.order.insert(at, {ptx::TopLevelKind::Variable, static_cast<uint32_t>(m.globals.size())});
  m.globals.push_back(v);
  return v.name;
}

uint32_t align(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

} // namespace

void recordRegisterFacts(ptx::Function &fn, AnalysisManager &am, SpillState &state) {
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  const Cfg &cfg = am.get<CfgAnalysis>(fn);
  const LoopForest &loops = am.get<LoopAnalysis>(fn);
  const FunctionDivergence *fd = am.getModule<DivergenceAnalysis>().find(fn);
  state.facts.assign(fn.numRegisters, {});
  if (!fd) return;
  std::vector<uint32_t> writes(fn.numRegisters, 0);
  std::vector<bool> partial(fn.numRegisters, false);
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    auto defs = du.defs(i);
    const uint32_t block = cfg.blockOf(i);
    const bool reachable = block < cfg.numBlocks() && cfg.reachable(block);
    for (uint32_t d = 0; d < defs.size(); ++d) {
      const uint32_t r = defs[d].var;
      if (r >= fn.numRegisters) continue;
      RegisterFacts &f = state.facts[r];
      if (!f.known) {
        f.known = true;
        f.level = Uniformity::CtaUniform;
      }
      f.level = join(f.level, fd->def(i, d));
      f.inLoop |= reachable && loops.loopOf(block) != kNone;
      partial[r] = partial[r] || defs[d].partial;
      if (++writes[r] > 1) {
        f.remat = false;
        continue;
      }
      const Affine &form = fd->defForm(i, d);
      int tidTerms = 0, component = -1;
      if (form.known() && form.allConst())
        for (int c = 0; c < 3; ++c)
          if (!form.coef(c + 1).isZero()) {
            ++tidTerms;
            component = c;
          }
      const unsigned width = ptx::bitWidth(fn.declOf(r).type);
      f.remat = form.known() && form.allConst() && width == form.width() &&
                ((width == 32 && tidTerms <= 1) || (width == 64 && tidTerms == 0));
      f.constant = form.coef(0).value;
      f.tidComponent = component;
      f.coefficient = component >= 0 ? form.coef(component + 1).value : 0;
    }
  }
  // A phi-node joins the web's values under the decision that chose between
  // them: a divergent branch makes the web divergent however uniform each
  // write is (the lanes of one warp would store different values in its
  // slot). A web with a phi-node is not one value to recompute either.
  const SSA &ssa = am.get<SSAAnalysis>(fn);
  std::vector<bool> merged(fn.numRegisters, false);
  for (const Phi &phi : ssa.phis()) {
    if (phi.var >= fn.numRegisters) continue;
    merged[phi.var] = true;
    RegisterFacts &f = state.facts[phi.var];
    if (f.known) f.level = join(f.level, fd->valueLevel(phi.value));
  }
  for (uint32_t r = 0; r < fn.numRegisters; ++r)
    if (partial[r] || merged[r]) state.facts[r].remat = false;

  // Loads from memory no thread writes during the kernel, at an address that
  // is the same wherever the value lives: the value and the address register
  // each one SSA value (one write, no phi-node), so every path from a new
  // write of the address to a read of the value passes the load again.
  const ptx::Module &m = am.module();
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    const ptx::Instruction &in = fn.instrs[i];
    if (in.opcode != ptx::Opcode::Ld || in.hasGuard || in.numOperands != 2) continue;
    auto ops = fn.operandsOf(in);
    if (ops[0].kind != ptx::OperandKind::Register || ops[0].selector != ptx::Selector::None ||
        ops[1].kind != ptx::OperandKind::Address)
      continue;
    const uint32_t r = ops[0].id;
    if (r >= fn.numRegisters || writes[r] != 1 || partial[r] || merged[r] || du.defs(i).size() != 1) continue;
    const ptx::InstrDesc &desc = m.desc(in);
    const ptx::Mod space = desc.firstOfKind(ptx::ModKind::Space);
    const bool readOnly = space == ptx::Mod::Const || (space == ptx::Mod::Param && fn.isKernel) ||
                          (space == ptx::Mod::Global && desc.has(ptx::Mod::Nc));
    if (!readOnly || desc.has(ptx::Mod::V2) || desc.has(ptx::Mod::V4) || desc.has(ptx::Mod::V8)) continue;
    if (ops[1].base == ptx::AddressBase::Register &&
        (ops[1].id >= fn.numRegisters || writes[ops[1].id] != 1 || partial[ops[1].id] || merged[ops[1].id]))
      continue;
    if (ops[1].base == ptx::AddressBase::None) continue;
    // Only the kernel's own parameters: a call's return value is a .param
    // that the call writes, declared in a scope of its own.
    if (space == ptx::Mod::Param) {
      bool parameter = false;
      for (const ptx::Variable &v : fn.params)
        parameter |= ops[1].base == ptx::AddressBase::Symbol && v.name == ops[1].id;
      if (!parameter) continue;
    }
    RegisterFacts &f = state.facts[r];
    f.reload = true;
    f.loadDesc = in.desc;
    f.address = ops[1];
  }
}

void insertSpillCode(ptx::Module &m, ptx::Function &fn, AnalysisManager &am,
                     std::span<const uint32_t> spilled, SpillState &state) {
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  const Cfg &cfg = am.get<CfgAnalysis>(fn);
  const LoopForest &loops = am.get<LoopAnalysis>(fn);
  const uint32_t numRegisters = fn.numRegisters;
  std::vector<int32_t> index(numRegisters, -1); // register -> position in `spilled`
  for (size_t k = 0; k < spilled.size(); ++k) index[spilled[k]] = static_cast<int32_t>(k);

  // Writes of each spilled register.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> writes(spilled.size()); // (instr, def slot)
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    auto defs = du.defs(i);
    for (uint32_t d = 0; d < defs.size(); ++d)
      if (defs[d].var < numRegisters && index[defs[d].var] >= 0)
        writes[index[defs[d].var]].emplace_back(i, d);
  }

  const ptx::InstrTable &table = ptx::InstrTable::get();
  std::vector<Placement> place(spilled.size());
  for (size_t k = 0; k < spilled.size(); ++k) {
    const ptx::RegisterDecl decl = fn.declOf(spilled[k]);
    const unsigned bytes = std::max(1u, ptx::bitWidth(decl.type) / 8);
    const RegisterFacts facts = spilled[k] < state.facts.size() ? state.facts[spilled[k]] : RegisterFacts{};
    Placement &p = place[k];
    p.cls = SpillClass::Local;
    if (state.mode == SpillMode::Divergence && facts.known && !writes[k].empty()) {
      if (facts.remat && writes[k].size() == 1) {
        p.cls = SpillClass::Remat;
        p.constant = facts.constant;
        p.tidComponent = facts.tidComponent;
        p.coefficient = facts.coefficient;
        p.defInstr = writes[k].front().first;
      } else if (state.reload && facts.reload && writes[k].size() == 1 &&
                 (facts.address.base != ptx::AddressBase::Register ||
                  (index[facts.address.id] < 0 && !(facts.address.id < state.spilledBefore.size() &&
                                                    state.spilledBefore[facts.address.id])))) {
        p.cls = SpillClass::Reload;
        p.loadDesc = facts.loadDesc;
        p.address = facts.address;
        p.defInstr = writes[k].front().first;
      } else if (fn.isKernel && facts.level != Uniformity::Divergent) {
        // A CTA slot is shared by warps that run at their own pace: only a
        // value written once per thread can live there.
        const bool cta = facts.level == Uniformity::CtaUniform && !facts.inLoop;
        const uint32_t need =
            cta ? align(state.ctaBytes, bytes) + bytes
                : state.ctaBytes + state.maxWarps * (align(state.warpSlotBytes, bytes) + bytes);
        const uint32_t total = cta ? need + state.maxWarps * state.warpSlotBytes : need;
        if (total <= state.sharedLimit) p.cls = cta ? SpillClass::CtaShared : SpillClass::WarpShared;
      }
    }
    switch (p.cls) {
    case SpillClass::Remat:
    case SpillClass::Reload: break;
    case SpillClass::CtaShared:
      p.offset = align(state.ctaBytes, bytes);
      state.ctaBytes = p.offset + bytes;
      break;
    case SpillClass::WarpShared:
      p.offset = align(state.warpSlotBytes, bytes);
      state.warpSlotBytes = p.offset + bytes;
      break;
    case SpillClass::Local:
      p.offset = align(state.localBytes, bytes);
      state.localBytes = p.offset + bytes;
      break;
    }
    ++state.spilled[static_cast<size_t>(p.cls)];
  }

  Emitter emit(m, fn);
  ptx::BodyEdit edit(fn);
  const std::string fnName(m.str(fn.name));
  auto needArea = [&](SpillClass c) {
    if (c == SpillClass::Local && !state.localArea) {
      ptx::Variable v;
      v.name = state.localArea = m.names.intern("__ptxvm_spill_local");
      v.space = ptx::Mod::Local;
      v.type = ptx::Type::B8;
      v.alignment = 16;
      v.dims = {16};
      fn.body.insert(fn.body.begin(), {ptx::StmtKind::Variable, 1, static_cast<uint32_t>(fn.locals.size())});
      fn.locals.push_back(v);
    } else if (c == SpillClass::CtaShared && !state.ctaArea) {
      state.ctaArea = sharedArea(m, fn, "__ptxvm_spill_cta_" + fnName);
    } else if (c == SpillClass::WarpShared && !state.warpArea) {
      state.warpArea = sharedArea(m, fn, "__ptxvm_spill_warp_" + fnName);
      // warpBase = area + (linear thread index / 32) * bytes per warp.
      ptx::RegisterDecl b32;
      b32.type = ptx::Type::B32;
      const uint32_t w = state.warpBase = newRegister(m, fn, b32, state);
      const analysis::LaunchShape shape = analysis::LaunchShape::ofFunction(fn);
      using ptx::SpecialReg;
      auto reg = ptx::registerOperand;
      auto sreg = [](SpecialReg r, ptx::Selector s) { return ptx::specialOperand(r, s); };
      const bool linear = shape.kind == analysis::LaunchShape::Kind::Linear ||
                          (shape.kind == analysis::LaunchShape::Kind::Exact && shape.y == 1 && shape.z == 1);
      const uint32_t t = newRegister(m, fn, b32, state);
      if (linear) {
        edit.insertAtEntry(emit("mov.u32", {reg(w), sreg(SpecialReg::Tid, ptx::Selector::X)}));
      } else {
        edit.insertAtEntry(emit("mov.u32", {reg(w), sreg(SpecialReg::Tid, ptx::Selector::Z)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Ntid, ptx::Selector::Y)}));
        edit.insertAtEntry(emit("mul.lo.u32", {reg(w), reg(w), reg(t)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Tid, ptx::Selector::Y)}));
        edit.insertAtEntry(emit("add.u32", {reg(w), reg(w), reg(t)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Ntid, ptx::Selector::X)}));
        edit.insertAtEntry(emit("mul.lo.u32", {reg(w), reg(w), reg(t)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Tid, ptx::Selector::X)}));
        edit.insertAtEntry(emit("add.u32", {reg(w), reg(w), reg(t)}));
      }
      edit.insertAtEntry(emit("shr.u32", {reg(w), reg(w), ptx::intOperand(5)}));
      ptx::Instruction scale = emit("mul.lo.u32", {reg(w), reg(w), ptx::intOperand(0)});
      state.strideOperand = scale.firstOperand + 2;
      edit.insertAtEntry(scale);
      edit.insertAtEntry(emit("mov.u32", {reg(t), ptx::symbolOperand(state.warpArea)}));
      edit.insertAtEntry(emit("add.u32", {reg(w), reg(w), reg(t)}));
    }
  };
  for (const Placement &p : place) needArea(p.cls);

  std::vector<uint32_t> here;
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    here.clear();
    const uint32_t block = cfg.blockOf(i);
    const double frequency =
        block < cfg.numBlocks() && cfg.reachable(block) ? blockFrequency(loops, block) : 1;
    bool eraseDef = false;
    for (const Use &u : du.uses(i))
      if (u.var < numRegisters && index[u.var] >= 0) here.push_back(u.var);
    for (const Def &d : du.defs(i))
      if (d.var < numRegisters && index[d.var] >= 0) here.push_back(d.var);
    std::sort(here.begin(), here.end());
    here.erase(std::unique(here.begin(), here.end()), here.end());
    for (uint32_t r : here) {
      const Placement &p = place[index[r]];
      const ptx::RegisterDecl decl = fn.declOf(r);
      const std::string width = std::to_string(std::max(8u, ptx::bitWidth(decl.type)));
      bool reads = false, written = false, partial = false;
      for (const Use &u : du.uses(i)) reads |= u.var == r;
      for (const Def &d : du.defs(i))
        if (d.var == r) {
          written = true;
          partial |= d.partial;
        }
      reads |= partial;
      if (p.cls == SpillClass::Reload && i == p.defInstr && !reads) {
        // Every read loads the value again.
        eraseDef = true;
        continue;
      }
      if (p.cls == SpillClass::Remat && i == p.defInstr) {
        const uint32_t flags = table.flags(fn.instrs[i].opcode, m.desc(fn.instrs[i]).modifiers());
        const uint32_t effects = ptx::iflag::Store | ptx::iflag::Atomic | ptx::iflag::Call |
                                 ptx::iflag::Barrier | ptx::iflag::WarpSync | ptx::iflag::Terminator |
                                 ptx::iflag::Texture | ptx::iflag::Tensor | ptx::iflag::Load |
                                 ptx::iflag::CarryOut;
        if (!(flags & effects) && du.defs(i).size() == 1 && !reads) {
          eraseDef = true;
          continue;
        }
      }
      const uint32_t t = newRegister(m, fn, decl, state);
      auto address = [&]() {
        switch (p.cls) {
        case SpillClass::Local: return ptx::symbolAddress(state.localArea, p.offset);
        case SpillClass::CtaShared: return ptx::symbolAddress(state.ctaArea, p.offset);
        default: return ptx::registerAddress(state.warpBase, p.offset);
        }
      };
      const std::string space = p.cls == SpillClass::Local ? "local" : "shared";
      if (reads) {
        if (p.cls == SpillClass::Remat) {
          ++state.remats;
          state.rematOps += frequency;
          if (p.tidComponent < 0) {
            edit.insertBefore(i,
                              emit("mov.b" + width, {ptx::registerOperand(t), ptx::intOperand(p.constant)}));
          } else {
            edit.insertBefore(i, emit("mov.u32", {ptx::registerOperand(t),
                                                  ptx::specialOperand(ptx::SpecialReg::Tid,
                                                                      componentSelector(p.tidComponent))}));
            if (p.coefficient != 1 || p.constant != 0)
              edit.insertBefore(
                  i, emit("mad.lo.s32", {ptx::registerOperand(t), ptx::registerOperand(t),
                                         ptx::intOperand(p.coefficient), ptx::intOperand(p.constant)}));
          }
        } else if (p.cls == SpillClass::Reload) {
          ++state.loads;
          state.reloadOps += frequency;
          ptx::Instruction load = fn.instrs[p.defInstr];
          const ptx::Operand ops[] = {ptx::registerOperand(t), p.address};
          load.firstOperand = static_cast<uint32_t>(fn.operands.size());
          load.numOperands = 2;
          load.hasGuard = false;
          fn.operands.insert(fn.operands.end(), std::begin(ops), std::end(ops));
          edit.insertBefore(i, load);
        } else {
          ++state.loads;
          (p.cls == SpillClass::Local ? state.localOps : state.sharedOps) += frequency;
          edit.insertBefore(i, emit("ld." + space + ".b" + width, {ptx::registerOperand(t), address()}));
        }
      }
      if (written && p.cls != SpillClass::Remat && p.cls != SpillClass::Reload) {
        ++state.stores;
        (p.cls == SpillClass::Local ? state.localOps : state.sharedOps) += frequency;
        edit.insertAfter(i, emit("st." + space + ".b" + width, {address(), ptx::registerOperand(t)}));
      }
      // Every mention of r in the instruction names t.
      ptx::forEachRegister(fn, fn.instrs[i], [&](uint32_t &reg) {
        if (reg == r) reg = t;
      });
    }
    if (eraseDef) edit.erase(i);
  }
  edit.apply();
  state.spilledBefore.resize(fn.numRegisters, false);
  for (uint32_t r : spilled) state.spilledBefore[r] = true;
}

void finishSpillAreas(ptx::Module &m, ptx::Function &fn, SpillState &state) {
  auto resize = [&](ptx::Name name, uint32_t bytes) {
    for (ptx::Variable &v : m.globals)
      if (v.name == name) v.dims = {std::max(bytes, 1u)};
    for (ptx::Variable &v : fn.locals)
      if (v.name == name) v.dims = {std::max(bytes, 1u)};
  };
  if (state.localArea) resize(state.localArea, align(state.localBytes, 16));
  if (state.ctaArea) resize(state.ctaArea, align(state.ctaBytes, 16));
  const uint32_t stride = align(state.warpSlotBytes, 16);
  if (state.warpArea) resize(state.warpArea, stride * state.maxWarps);
  if (state.strideOperand != UINT32_MAX) fn.operands[state.strideOperand].value = stride;
}

} // namespace regalloc
