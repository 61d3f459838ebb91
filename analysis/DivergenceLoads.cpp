// What loads read, for the divergence fixpoint (DivergenceSolver.cpp has the
// rest): the state space a generic address points into, a launch's argument
// bytes behind ld.param, and the uniformity of a load by its space (read-only
// memory, a quiet shared phase, a thread's own local places).
#include "analysis/DivergenceSolver.h"

namespace analysis {

namespace {

bool isParamSpace(ptx::Mod m) {
  return m == ptx::Mod::Param || m == ptx::Mod::ParamEntry || m == ptx::Mod::ParamFunc;
}

bool isSharedOrGlobal(ptx::Mod m) {
  return m == ptx::Mod::Global || m == ptx::Mod::Shared || m == ptx::Mod::SharedCta ||
         m == ptx::Mod::SharedCluster;
}

} // namespace

ptx::Mod DivergenceSolver::spaceOf(ValueId v) {
  using ptx::Mod;
  if (space_of_.empty()) space_of_.assign(ssa_.values().size(), kSpaceUnknown);
  uint16_t &memo = space_of_[v];
  if (memo == kSpaceComputing) return Mod::Reg; // a cycle: adds nothing of its own
  if (memo != kSpaceUnknown) return static_cast<Mod>(memo);
  memo = kSpaceComputing;
  Mod result = Mod::None;
  const Value &val = ssa_.value(v);
  auto sourceSpace = [&](uint32_t i, uint32_t position) {
    auto uses = du_.uses(i);
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].operand == position && uses[u].role == UseRole::Source && ssa_.useValues(i)[u] != kNoValue)
        return spaceOf(ssa_.useValues(i)[u]);
    return Mod::None;
  };
  // Mod::Reg stands for "no space of its own" (an immediate offset, or a
  // value on a cycle still being looked at); where an address has it, the
  // space is unknown.
  auto combine = [](Mod a, Mod b) {
    if (a == Mod::Reg) return b;
    if (b == Mod::Reg) return a;
    return a == b ? a : Mod::None;
  };
  if (val.kind == ValueKind::Phi) {
    result = Mod::Reg;
    for (ValueId in : ssa_.incoming(val.index))
      result = in == kNoValue ? Mod::None : combine(result, spaceOf(in));
  } else if (val.kind == ValueKind::Def && du_.defs(val.index)[val.slot].registerIndex == 0 &&
             !du_.defs(val.index)[val.slot].partial) {
    const ptx::Instruction &in = fn_.instrs[val.index];
    const ptx::InstrDesc &desc = m_.desc(in);
    auto ops = fn_.operandsOf(in);
    const Mod space = desc.firstOfKind(ptx::ModKind::Space);
    const bool toGeneric = !desc.has(Mod::MemTo);
    switch (in.opcode) {
    case ptx::Opcode::Cvta:
      if (toGeneric && (space == Mod::Shared || space == Mod::Global || space == Mod::Const)) result = space;
      break;
    case ptx::Opcode::Mov:
      if (ops.size() == 2 && ops[1].kind == ptx::OperandKind::Register) result = sourceSpace(val.index, 1);
      break;
    case ptx::Opcode::Add:
    case ptx::Opcode::Sub: {
      // The pointer and an offset: the offset's own space is none.
      if (ops.size() != 3 || desc.has(Mod::Cc)) break;
      auto side = [&](uint32_t k) {
        return ops[k].kind == ptx::OperandKind::Register ? sourceSpace(val.index, k) : Mod::Reg;
      };
      Mod a = side(1), b = in.opcode == ptx::Opcode::Add ? side(2) : Mod::Reg;
      auto isSpace = [](Mod m) { return m != Mod::None && m != Mod::Reg; };
      if (isSpace(a) && !isSpace(b))
        result = a;
      else if (isSpace(b) && !isSpace(a))
        result = b;
      else if (a == Mod::Reg && b == Mod::Reg)
        result = Mod::Reg;
      break;
    }
    case ptx::Opcode::Ld:
      // A kernel's pointer parameters hold what the host passed: global
      // memory (the host has no address of shared or local memory).
      if (fn_.isKernel && (space == Mod::Param || space == Mod::ParamEntry) &&
          ptx::bitWidth(desc.lastType()) == 64)
        for (const ptx::Operand &op : ops)
          if (op.kind == ptx::OperandKind::Address && op.base == ptx::AddressBase::Symbol)
            for (const ptx::Variable &p : fn_.params)
              if (p.name == op.id) result = Mod::Global;
      break;
    default: break;
    }
  }
  memo = static_cast<uint16_t>(result);
  return result;
}

std::optional<uint64_t> DivergenceSolver::argumentLoaded(uint32_t i) {
  if (!ctx_.arguments || !fn_.isKernel) return std::nullopt;
  const ptx::Instruction &in = fn_.instrs[i];
  const ptx::InstrDesc &desc = m_.desc(in);
  auto defs = du_.defs(i);
  auto ops = fn_.operandsOf(in);
  if (in.hasGuard || defs.size() != 1 || defs[0].partial || defs[0].registerIndex == Def::kNotRegister ||
      desc.firstOfKind(ptx::ModKind::Vector) != ptx::Mod::None || ops.size() != 2 ||
      ops[1].kind != ptx::OperandKind::Address || ops[1].base != ptx::AddressBase::Symbol || ops[1].value < 0)
    return std::nullopt;
  const ptx::Type type = desc.lastType();
  const unsigned bytes = ptx::bitWidth(type) / 8, regWidth = ptx::bitWidth(fn_.registerType(defs[0].var));
  if (!isIntegerType(type) || bytes == 0 || bytes > 8 || regWidth < 8 * bytes) return std::nullopt;
  for (size_t p = 0; p < fn_.params.size() && p < ctx_.arguments->size(); ++p) {
    if (fn_.params[p].name != ops[1].id) continue;
    const std::vector<uint8_t> &argument = (*ctx_.arguments)[p];
    const uint64_t offset = static_cast<uint64_t>(ops[1].value);
    if (offset > argument.size() || argument.size() - offset < bytes) return std::nullopt;
    uint64_t v = 0;
    for (unsigned k = 0; k < bytes; ++k) v |= uint64_t{argument[offset + k]} << (8 * k); // little-endian
    // Narrower than its register: extended as the type says.
    if (bytes < 8 && ptx::typeClass(type) == ptx::TypeClass::Signed && (v >> (8 * bytes - 1)) & 1)
      v |= ~uint64_t{0} << (8 * bytes);
    return v & widthMask(regWidth);
  }
  return std::nullopt;
}

std::pair<Uniformity, Affine> DivergenceSolver::loadRule(uint32_t i) {
  const ptx::InstrDesc &desc = m_.desc(fn_.instrs[i]);
  ptx::Mod space = desc.firstOfKind(ptx::ModKind::Space);
  Uniformity address = useLevel(i, UseRole::Address);
  bool symbolAddress = false;
  for (const ptx::Operand &op : fn_.operandsOf(fn_.instrs[i]))
    symbolAddress |= op.kind == ptx::OperandKind::Address && op.base != ptx::AddressBase::Register;
  Uniformity level = Uniformity::Divergent;
  bool localPlace = false;
  for (const Use &u : du_.uses(i)) localPlace |= u.role == UseRole::Memory;
  if (space == ptx::Mod::None && !localPlace) {
    // A generic address made from a shared or global one reads that space.
    auto uses = du_.uses(i);
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].role == UseRole::Address && ssa_.useValues(i)[u] != kNoValue)
        space = spaceOf(ssa_.useValues(i)[u]);
    if (space == ptx::Mod::Reg) space = ptx::Mod::None; // no evidence of any space
  }
  if (localPlace) {
    // A thread's own local memory: as uniform as what was stored at the
    // places it reads (their values flow through SSA like registers').
    level = join(address, useLevel(i, UseRole::Memory));
  } else if (isParamSpace(space)) {
    // A named .param variable carries its value through SSA; through a
    // register only a kernel's (read-only, the same for all threads).
    if (symbolAddress)
      level = join(address, useLevel(i, UseRole::Param));
    else if (fn_.isKernel)
      level = address;
    if (std::optional<uint64_t> value = argumentLoaded(i))
      return {Uniformity::CtaUniform, Affine::constant(static_cast<int64_t>(*value),
                                                       ptx::bitWidth(fn_.registerType(du_.defs(i)[0].var)))};
  } else if (space == ptx::Mod::Const || desc.has(ptx::Mod::Nc) || facts(i).readOnly) {
    // Memory that cannot change during the kernel.
    level = address;
  } else if ((space == ptx::Mod::Shared || space == ptx::Mod::SharedCta) &&
             address == Uniformity::CtaUniform && phases_ && barriersAligned_ && phases_->quiet(i)) {
    // The same word in every thread, and no write beside it in its phase:
    // what the phase began with.
    level = Uniformity::CtaUniform;
    quietLoads_.push_back(i);
  } else if (isSharedOrGlobal(space) && address != Uniformity::Divergent) {
    // One address read by a whole warp at once; other warps may read after
    // a write.
    level = join(address, Uniformity::WarpUniform);
  }
  return {level, Affine::unknown(level, 64)};
}

} // namespace analysis
