// Butterfly all-reductions (DivergenceSolver's second solve): the lane-xor
// distances each value is symmetric under, where every lane of every warp
// takes part. x op shfl.sync.bfly(x, k) with a commutative op is the same in
// lane l and lane l ^ k; five distances make a value warp-uniform.
#include "analysis/DivergenceSolver.h"

namespace analysis {

uint8_t DivergenceSolver::laneSymmetry(ValueId v) const {
  if (out_.levels_[v] != Uniformity::Divergent) return kAllLaneBits;
  return laneSymmetry_.empty() ? 0 : laneSymmetry_[v];
}

bool DivergenceSolver::lowerLaneSymmetry(ValueId v, uint8_t bits) {
  if (laneSymmetry_.empty() || (laneSymmetry_[v] & bits) == laneSymmetry_[v]) return false;
  laneSymmetry_[v] &= bits;
  return true;
}

ValueId DivergenceSolver::copiedFrom(ValueId v) const {
  for (int depth = 0; depth < 8; ++depth) {
    const Value &val = ssa_.value(v);
    if (val.kind != ValueKind::Def || val.slot != 0) break;
    const ptx::Instruction &in = fn_.instrs[val.index];
    auto ops = fn_.operandsOf(in);
    if (in.opcode != ptx::Opcode::Mov || in.hasGuard || ops.size() != 2 ||
        ops[0].kind != ptx::OperandKind::Register || ops[1].kind != ptx::OperandKind::Register ||
        ops[0].selector != ptx::Selector::None || ops[1].selector != ptx::Selector::None ||
        ptx::bitWidth(fn_.registerType(ops[0].id)) != ptx::bitWidth(fn_.registerType(ops[1].id)))
      break;
    auto values = ssa_.useValues(val.index);
    if (values.size() != 1 || values[0] == kNoValue) break;
    v = values[0];
  }
  return v;
}

uint32_t DivergenceSolver::butterflyPartner(ValueId y, ValueId x) {
  // The single-bit distance of a whole-warp bfly shuffle defining v (through
  // copies), and the value it shuffles.
  auto shuffled = [&](ValueId v, ValueId &source) -> uint32_t {
    const Value &val = ssa_.value(copiedFrom(v));
    if (val.kind != ValueKind::Def || val.slot != 0 || fn_.instrs[val.index].hasGuard) return 0;
    const uint32_t k = butterflyDistance(val.index);
    if (!k || (k & (k - 1)) != 0) return 0; // one bit: the partner's partner is the lane
    auto uses = du_.uses(val.index);
    auto values = ssa_.useValues(val.index);
    source = kNoValue;
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].operand == 1 && uses[u].role != UseRole::Guard) source = values[u];
    return source == kNoValue ? 0 : k;
  };
  ValueId source = kNoValue;
  const ValueId root = copiedFrom(x);
  if (const uint32_t k = shuffled(y, source)) return copiedFrom(source) == root ? k : 0;
  // A value wider than 32 bits shuffles in 32-bit parts: mov.b64 {lo, hi},
  // x; each part shuffled by k; mov.b64 y, {lo', hi'}.
  const Value &packed = ssa_.value(copiedFrom(y));
  if (packed.kind != ValueKind::Def || packed.slot != 0) return 0;
  const ptx::Instruction &pack = fn_.instrs[packed.index];
  auto packOps = fn_.operandsOf(pack);
  if (pack.opcode != ptx::Opcode::Mov || pack.hasGuard || packOps.size() != 2 ||
      packOps[1].kind != ptx::OperandKind::Vector)
    return 0;
  auto packValues = ssa_.useValues(packed.index);
  uint32_t distance = 0, unpack = UINT32_MAX;
  for (uint32_t j = 0; j < packValues.size(); ++j) {
    if (packValues[j] == kNoValue) return 0;
    const uint32_t k = shuffled(packValues[j], source);
    if (!k || (distance && k != distance)) return 0;
    // Part j of the shuffle is part j of one unpacking, by one distance.
    const Value &part = ssa_.value(copiedFrom(source));
    if (part.kind != ValueKind::Def || part.slot != j || (unpack != UINT32_MAX && part.index != unpack))
      return 0;
    distance = k, unpack = part.index;
  }
  if (unpack == UINT32_MAX || du_.defs(unpack).size() != packValues.size()) return 0;
  const ptx::Instruction &split = fn_.instrs[unpack];
  auto splitOps = fn_.operandsOf(split);
  auto splitValues = ssa_.useValues(unpack);
  if (split.opcode != ptx::Opcode::Mov || split.hasGuard || splitOps.size() != 2 ||
      splitOps[0].kind != ptx::OperandKind::Vector || splitValues.size() != 1 || splitValues[0] == kNoValue)
    return 0;
  return copiedFrom(splitValues[0]) == root ? distance : 0;
}

uint32_t DivergenceSolver::butterflyDistance(uint32_t i) {
  const ptx::Instruction &in = fn_.instrs[i];
  if (in.opcode != ptx::Opcode::ShflSync || !m_.desc(in).has(ptx::Mod::Bfly) || in.numOperands != 5) return 0;
  // shfl.sync.bfly d|p, a, b, c, membermask: every lane of the warp takes
  // part (PTX leaves a lane named in the mask that does not execute the
  // shuffle undefined; wholeWarps says none is missing), and with
  // c = 0x1f every lane reads lane ^ b.
  auto b = constantOf(operand(i, 2, 32).form), c = constantOf(operand(i, 3, 32).form),
       mask = constantOf(operand(i, 4, 32).form);
  if (!b || !c || !mask || (*c & 0x1f1f) != 0x1f ||
      (static_cast<uint64_t>(*mask) & 0xffffffffu) != 0xffffffffu)
    return 0;
  return static_cast<uint32_t>(*b) & kAllLaneBits;
}

uint8_t DivergenceSolver::laneSymmetryOfDef(uint32_t i, uint32_t slot) {
  const uint32_t b = cfg_.blockOf(i);
  if (ctx_.wholeWarps.empty() || b >= ctx_.wholeWarps.size() || !ctx_.wholeWarps[b]) return 0;
  const ptx::Instruction &in = fn_.instrs[i];
  const Def &def = du_.defs(i)[slot];
  if (def.registerIndex == Def::kNotRegister) return 0;
  for (const ptx::Operand &op : fn_.operandsOf(in))
    if (op.kind == ptx::OperandKind::SpecialReg &&
        operand(i, static_cast<uint32_t>(&op - fn_.operandsOf(in).data()), 32).level == Uniformity::Divergent)
      return 0;
  auto uses = du_.uses(i);
  auto values = ssa_.useValues(i);
  // What every operand (guard, carry and old value included) is symmetric
  // under, leaving out the uses of one register.
  auto operandsExcept = [&](ValueId skip1, ValueId skip2) {
    uint8_t bits = kAllLaneBits;
    for (size_t u = 0; u < uses.size(); ++u)
      if (values[u] == kNoValue || (values[u] != skip1 && values[u] != skip2))
        bits &= values[u] == kNoValue ? 0 : laneSymmetry(values[u]);
    for (ValueId old : ssa_.oldValues(i))
      if (old != kNoValue) bits &= laneSymmetry(old);
    return bits;
  };
  const InstrFacts &f = facts(i);
  if (f.rule == ResultRule::Shuffle) {
    // d = a from lane ^ k: symmetric wherever a is. The in-range predicate
    // is uniform by transfer().
    const uint32_t k = butterflyDistance(i);
    if (!k || fn_.registerType(def.var) == ptx::Type::Pred) return 0;
    return operandsExcept(kNoValue, kNoValue);
  }
  if (f.rule != ResultRule::Data) return 0;
  // x op shfl.bfly(x, k) for a commutative op: lane and lane ^ k compute
  // op(x_lane, x_partner) and op(x_partner, x_lane).
  auto ops = fn_.operandsOf(in);
  const bool commutative = in.opcode == ptx::Opcode::Add || in.opcode == ptx::Opcode::Mul ||
                           in.opcode == ptx::Opcode::Min || in.opcode == ptx::Opcode::Max ||
                           in.opcode == ptx::Opcode::And || in.opcode == ptx::Opcode::Or ||
                           in.opcode == ptx::Opcode::Xor;
  if (commutative && ops.size() == 3 && ops[1].kind == ptx::OperandKind::Register &&
      ops[2].kind == ptx::OperandKind::Register && ops[1].selector == ptx::Selector::None &&
      ops[2].selector == ptx::Selector::None) {
    ValueId x = kNoValue, y = kNoValue;
    for (size_t u = 0; u < uses.size(); ++u) {
      if (uses[u].role == UseRole::Guard) continue;
      if (uses[u].operand == 1) x = values[u];
      if (uses[u].operand == 2) y = values[u];
    }
    for (int side = 0; side < 2 && x != kNoValue && y != kNoValue; ++side, std::swap(x, y))
      if (const uint32_t k = butterflyPartner(y, x))
        return static_cast<uint8_t>((laneSymmetry(x) | k) & operandsExcept(x, y));
  }
  return operandsExcept(kNoValue, kNoValue);
}

} // namespace analysis
