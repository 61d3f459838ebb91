// Operand roles from the instruction table: the leading destination operands
// of a form are written, everything else is read. Forms write at most their
// first operand position unless it is a `d` (destination) shape, so `v` and
// `p` operands count as written only in first position (`mov.b32 {a,b}, %r`,
// `setp ... p|q`, `mma ... {d}, {a}, {b}, {c}`).
#include "analysis/DefUse.h"

#include "analysis/Cfg.h"
#include "ptx/Layout.h"

#include <algorithm>
#include <limits>

namespace analysis {

namespace {

bool isParamSpace(ptx::Mod m) {
  return m == ptx::Mod::Param || m == ptx::Mod::ParamEntry || m == ptx::Mod::ParamFunc;
}

bool isComponent(ptx::Selector s) {
  return s == ptx::Selector::X || s == ptx::Selector::Y || s == ptx::Selector::Z || s == ptx::Selector::W;
}

} // namespace

size_t destinationOperands(const ptx::Form &form) {
  size_t position = 0, defs = 0;
  for (size_t s = 0; s < form.operands.size(); ++s) {
    const ptx::OperandSpec &spec = form.operands[s];
    if (spec.pairedWithPrevious) continue;
    bool dest = spec.shape == ptx::OperandShape::Dest ||
                (position == 0 &&
                 (spec.shape == ptx::OperandShape::Pred || spec.shape == ptx::OperandShape::RegVector));
    if (!dest || defs != position) break;
    ++defs;
    ++position;
  }
  return defs;
}

DefUse::DefUse(const ptx::Module &m, const ptx::Function &fn)
    : m_(&m), fn_(&fn), slots_(m, fn), firstPlaceVar_(fn.numRegisters + 1),
      firstParamVar_(firstPlaceVar_ + static_cast<uint32_t>(slots_.places().size())) {
  // Old-style .reg parameters are the body's first registers (returns, then
  // parameters, as FunctionBuilder declares them); the rest are .param
  // variables.
  auto varOfParameter = [&](const ptx::Variable &v) -> uint32_t {
    if (v.space != ptx::Mod::Reg) return internParam(v.name);
    for (const ptx::RegisterDecl &d : fn.regDecls)
      if (d.name == v.name && d.count == 0) return d.firstRegister;
    return internParam(v.name); // not declared: keep the lists parallel
  };
  for (const ptx::Variable &v : fn.params) entryParams_.push_back(varOfParameter(v));
  for (const ptx::Variable &v : fn.returns) exitUses_.push_back(varOfParameter(v));

  useBegin_.reserve(fn.instrs.size() + 1);
  defBegin_.reserve(fn.instrs.size() + 1);
  uses_.reserve(fn.instrs.size() * 2);
  defs_.reserve(fn.instrs.size());
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    useBegin_.push_back(static_cast<uint32_t>(uses_.size()));
    defBegin_.push_back(static_cast<uint32_t>(defs_.size()));
    collect(i);
  }
  useBegin_.push_back(static_cast<uint32_t>(uses_.size()));
  defBegin_.push_back(static_cast<uint32_t>(defs_.size()));
}

uint32_t DefUse::internParam(ptx::Name name) {
  auto [it, fresh] =
      paramIndex_.try_emplace(name, static_cast<uint32_t>(firstParamVar_ + paramNames_.size()));
  if (fresh) paramNames_.push_back(name);
  return it->second;
}

bool DefUse::coversParam(const ptx::Operand &address, const ptx::InstrDesc &store) const {
  if (address.value != 0) return false;
  const auto bytes = static_cast<uint64_t>(accessBytes(store));
  // Every declaration of the name (each callseq declares its own param0).
  uint64_t declared = 0;
  for (const auto *list : {&fn_->locals, &fn_->params, &fn_->returns})
    for (const ptx::Variable &v : *list)
      if (v.name == address.id) {
        auto size = ptx::variableBytes(v);
        if (!size || *size == 0) return false;
        declared = std::max(declared, *size);
      }
  return declared != 0 && bytes >= declared;
}

bool DefUse::isConsumedArgument(uint32_t var) const {
  return std::find(entryParams_.begin(), entryParams_.end(), var) == entryParams_.end() &&
         std::find(exitUses_.begin(), exitUses_.end(), var) == exitUses_.end();
}

uint32_t DefUse::paramVar(ptx::Name name) const {
  auto it = paramIndex_.find(name);
  return it == paramIndex_.end() ? kNone : it->second;
}

std::string DefUse::varName(uint32_t var) const {
  if (isRegister(var)) return ptx::registerName(*m_, *fn_, var);
  if (var == carryVar()) return "%cc";
  if (isPlaceVar(var)) {
    const LocalSlots::Place &p = slots_.places()[var - firstPlaceVar_];
    std::string name(m_->str(slots_.symbols()[p.symbol].name));
    if (p.begin == std::numeric_limits<int64_t>::min()) return "[" + name + "+?]";
    return "[" + name + "+" + std::to_string(p.begin) + ".." + std::to_string(p.end) + "]";
  }
  return "[" + std::string(m_->str(paramName(var))) + "]";
}

uint32_t DefUse::registerDefCount(uint32_t instr) const {
  uint32_t n = 0;
  for (const Def &d : defs(instr)) n += d.registerIndex != Def::kNotRegister;
  return n;
}

DefUse::CallOperands DefUse::callOperands(const ptx::Function &fn, const ptx::Instruction &in) {
  CallOperands c;
  auto ops = fn.operandsOf(in);
  for (uint16_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == ptx::OperandKind::List) {
      if (c.callee == Use::kNoOperand)
        c.results = i;
      else if (c.args == Use::kNoOperand)
        c.args = i;
    } else if (c.callee == Use::kNoOperand) {
      c.callee = i;
    } else if (c.args == Use::kNoOperand && ops[i].kind != ptx::OperandKind::Symbol) {
      c.args = i; // a one-element list whose parentheses the parser dropped
    }
  }
  return c;
}

std::span<const ptx::Operand> DefUse::callArguments(const ptx::Function &fn, const ptx::Instruction &in) {
  CallOperands c = callOperands(fn, in);
  if (c.args == Use::kNoOperand) return {};
  const ptx::Operand &a = fn.operandsOf(in)[c.args];
  return a.kind == ptx::OperandKind::List ? fn.children(a) : std::span<const ptx::Operand>(&a, 1);
}

void DefUse::addRegisterUses(const ptx::Operand &op, UseRole role, uint16_t operand) {
  switch (op.kind) {
  case ptx::OperandKind::Register: addUse(op.id, role, operand); return;
  case ptx::OperandKind::Address:
    if (op.base == ptx::AddressBase::Register) addUse(op.id, UseRole::Address, operand);
    return;
  case ptx::OperandKind::AddressList:
  case ptx::OperandKind::Vector:
  case ptx::OperandKind::Pair:
  case ptx::OperandKind::List:
    for (const ptx::Operand &c : fn_->children(op)) addRegisterUses(c, role, operand);
    return;
  default: return;
  }
}

void DefUse::addRegisterDefs(const ptx::Operand &op, bool partial, uint16_t operand, uint16_t &k) {
  switch (op.kind) {
  case ptx::OperandKind::Register:
    defs_.push_back({op.id, partial || isComponent(op.selector), k++, operand});
    return;
  case ptx::OperandKind::Vector:
  case ptx::OperandKind::Pair:
    for (const ptx::Operand &c : fn_->children(op)) addRegisterDefs(c, partial, operand, k);
    return;
  default: return;
  }
}

void DefUse::collect(uint32_t i) {
  const ptx::Instruction &in = fn_->instrs[i];
  const ptx::InstrTable &table = ptx::InstrTable::get();
  const ptx::InstrDesc &desc = m_->desc(in);
  // The opcode's facts and those its modifiers add (.cc: writes the carry).
  const uint32_t flags = table.flags(in.opcode, desc.modifiers());
  auto ops = fn_->operandsOf(in);
  const bool guarded = in.hasGuard;
  uint16_t k = 0;
  if (guarded) addUse(in.guard, UseRole::Guard, Use::kNoOperand);

  if (flags & ptx::iflag::Call) {
    CallOperands c = callOperands(*fn_, in);
    if (c.callee != Use::kNoOperand && ops[c.callee].kind == ptx::OperandKind::Register)
      addUse(ops[c.callee].id, UseRole::Target, c.callee);
    if (c.args != Use::kNoOperand) {
      for (const ptx::Operand &a : callArguments(*fn_, in)) {
        if (a.kind == ptx::OperandKind::Symbol)
          addUse(internParam(a.id), UseRole::Param, c.args);
        else
          addRegisterUses(a, UseRole::Source, c.args);
      }
    }
    if (c.results != Use::kNoOperand) {
      for (const ptx::Operand &r : fn_->children(ops[c.results])) {
        if (r.kind == ptx::OperandKind::Symbol)
          defs_.push_back({internParam(r.id), guarded, Def::kNotRegister, c.results});
        else
          addRegisterDefs(r, guarded, c.results, k);
      }
    }
    addLocalEffects(i, guarded); // after the results: their order is the callee's
    // The call consumes its .param arguments: each callseq declares and
    // fills its own, so nothing of one call's arguments reaches the next
    // (nvcc names them param0, param1, ... in every callseq).
    if (c.args != Use::kNoOperand && !guarded)
      for (const ptx::Operand &a : callArguments(*fn_, in))
        if (a.kind == ptx::OperandKind::Symbol && isConsumedArgument(internParam(a.id)))
          defs_.push_back({internParam(a.id), false, Def::kNotRegister, c.args});
    return;
  }

  // Tensor-core instructions accumulate into their destination fragments.
  const bool accumulates = flags & ptx::iflag::Tensor;
  const size_t destinations = in.form < table.forms().size() ? destinationOperands(table.form(in.form)) : 0;
  for (uint16_t j = 0; j < ops.size(); ++j) {
    if (j < destinations) {
      addRegisterDefs(ops[j], guarded || accumulates, j, k);
    } else {
      // A branch's register operand is brx.idx's index (bra names only a label).
      UseRole role = (flags & ptx::iflag::Branch) && j == 0 ? UseRole::Index : UseRole::Source;
      addRegisterUses(ops[j], role, j);
    }
  }

  // .param variables named in an address: ld.param reads one, st.param
  // writes part of one.
  if ((flags & (ptx::iflag::Load | ptx::iflag::Store)) &&
      isParamSpace(desc.firstOfKind(ptx::ModKind::Space))) {
    for (uint16_t j = 0; j < ops.size(); ++j) {
      const ptx::Operand &op = ops[j];
      if (op.kind != ptx::OperandKind::Address || op.base != ptx::AddressBase::Symbol) continue;
      uint32_t var = internParam(op.id);
      if (flags & ptx::iflag::Store)
        defs_.push_back({var, guarded || !coversParam(op, desc), Def::kNotRegister, j});
      else
        addUse(var, UseRole::Param, j);
    }
  }
  if (flags & ptx::iflag::CarryIn) addUse(carryVar(), UseRole::Carry, Use::kNoOperand);
  if (flags & ptx::iflag::CarryOut)
    defs_.push_back({carryVar(), guarded, Def::kNotRegister, Use::kNoOperand});
  addLocalEffects(i, guarded);
}

void DefUse::addLocalEffects(uint32_t i, bool guarded) {
  for (const LocalSlots::Access &a : slots_.accesses(i))
    for (uint32_t p = a.first; p < a.first + a.count; ++p) {
      if (a.write)
        defs_.push_back({placeVar(p), guarded || !a.exact, Def::kNotRegister, a.operand});
      else
        addUse(placeVar(p), UseRole::Memory, Use::kNoOperand);
    }
  if (slots_.clobbers(i))
    for (uint32_t p : slots_.escapedPlaces())
      defs_.push_back({placeVar(p), true, Def::kNotRegister, Use::kNoOperand});
}

} // namespace analysis
