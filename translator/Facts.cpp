#include "translator/Facts.h"

#include "analysis/Divergence.h"
#include "analysis/UniformityFacts.h"
#include "emulator/Kernel.h"
#include "emulator/Semantics.h"

#include <optional>

namespace translator {

namespace {

using analysis::ValueId;

/// The stride s for which a value's lanes in a warp that is one row of the
/// block (Frame.h's warpRows) run B + s * %tid.x with B warp-uniform, except
/// that a 32-bit index widened on the way (`mul.wide.s32 %rd, %r, 4` of
/// `%r = U + %tid.x`, the address of `a[i]` with an int i) may wrap around
/// once within the warp: its lanes then drop by 2^32 times the multiplier
/// past the wrap, a jump that consecutiveSpan's check of the last lane's
/// address finds (translator/LoweringMemory.cpp). 0 for a warp-uniform
/// value; nothing when the value is of no such shape.
class WrappedStrides {
public:
  WrappedStrides(const ptx::Module &m, const analysis::FunctionDivergence &fd) : m_(m), fd_(fd) {}

  std::optional<int64_t> of(ValueId v, unsigned depth = 6) const {
    if (v == analysis::kNoValue) return std::nullopt;
    if (fd_.valueLevel(v) != analysis::Uniformity::Divergent) return 0;
    if (auto s = exact(fd_.valueForm(v))) return s;
    const analysis::SSA &ssa = fd_.gated().ssa();
    const analysis::Value &val = ssa.value(v);
    if (depth == 0 || val.kind != analysis::ValueKind::Def || val.slot != 0) return std::nullopt;
    const ptx::Function &fn = fd_.function();
    const ptx::Instruction &in = fn.instrs[val.index];
    const ptx::InstrDesc &desc = m_.desc(in);
    if (in.hasGuard || ssa.defUse().defs(val.index).size() != 1) return std::nullopt;
    auto ops = fn.operandsOf(in);
    auto immediate = [&](unsigned i) -> std::optional<int64_t> {
      if (i < ops.size() && ops[i].kind == ptx::OperandKind::Int) return ops[i].value;
      return std::nullopt;
    };
    auto operand = [&](unsigned i) { return operandValue(val.index, i); };
    const analysis::AffineOp op = analysis::instrFacts(desc).affine;
    switch (op) {
    case analysis::AffineOp::Copy:
      if (ops.size() == 2) return of(operand(1), depth - 1);
      return std::nullopt;
    case analysis::AffineOp::Add: {
      // One side uniform (an immediate or a register), the other the stride.
      auto a = immediate(1) ? std::optional<int64_t>(0) : of(operand(1), depth - 1);
      auto b = immediate(2) ? std::optional<int64_t>(0) : of(operand(2), depth - 1);
      if (!a || !b || (*a != 0 && *b != 0)) return std::nullopt;
      return *a + *b;
    }
    case analysis::AffineOp::Sub: {
      // x - u (u uniform): x's stride.
      auto b = immediate(2) ? std::optional<int64_t>(0) : of(operand(2), depth - 1);
      if (b != 0) return std::nullopt;
      return of(operand(1), depth - 1);
    }
    case analysis::AffineOp::Mad: {
      // x * k + u (u uniform).
      if (!immediate(3) && of(operand(3), depth - 1) != 0) return std::nullopt;
      for (unsigned i = 1; i <= 2; ++i)
        if (auto k = immediate(3 - i)) return scaled(of(operand(i), depth - 1), *k);
      return std::nullopt;
    }
    case analysis::AffineOp::Shl: {
      auto k = immediate(2);
      if (!k || *k < 0 || *k > 16) return std::nullopt;
      return scaled(of(operand(1), depth - 1), int64_t{1} << *k);
    }
    case analysis::AffineOp::Mul: {
      for (unsigned i = 1; i <= 2; ++i)
        if (auto k = immediate(3 - i)) return scaled(of(operand(i), depth - 1), *k);
      return std::nullopt;
    }
    case analysis::AffineOp::MulWide:
    case analysis::AffineOp::MadWide: {
      // size * ext(Y) (+ a uniform addend).
      if (op == analysis::AffineOp::MadWide && !immediate(3)) {
        const ValueId addend = operand(3);
        if (addend == analysis::kNoValue || fd_.valueLevel(addend) == analysis::Uniformity::Divergent)
          return std::nullopt;
      }
      for (unsigned i = 1; i <= 2; ++i)
        if (auto k = immediate(3 - i)) return *k > 0 ? scaled(narrowStride(operand(i)), *k) : std::nullopt;
      return std::nullopt;
    }
    case analysis::AffineOp::Convert: {
      auto integer = [](ptx::Type t) {
        return ptx::typeClass(t) == ptx::TypeClass::Signed || ptx::typeClass(t) == ptx::TypeClass::Unsigned;
      };
      const ptx::Type from = desc.type(1), to = desc.type(0);
      if (ptx::bitWidth(to) != 64 || !integer(from) || !integer(to)) return std::nullopt;
      return narrowStride(operand(1));
    }
    default: return std::nullopt;
    }
  }

private:
  /// A stride times a constant, both small (an access's stride is at most
  /// 16 bytes: larger ones are of no use, and cannot overflow here).
  static std::optional<int64_t> scaled(std::optional<int64_t> stride, int64_t k) {
    if (!stride || *stride < -65536 || *stride > 65536 || k < -65536 || k > 65536) return std::nullopt;
    return *stride * k;
  }
  /// The stride of an affine form exact in its width: U + s * %tid.x + V *
  /// %tid.y + W * %tid.z, U, V and W warp-uniform (%tid.y and %tid.z are the
  /// same in every lane of a warp that is one row of the block, the shape
  /// the fact is used in).
  static std::optional<int64_t> exact(const analysis::Affine &form) {
    if (!form.known() || !form.coef(1).isConst()) return std::nullopt;
    for (unsigned i : {0u, 2u, 3u})
      if (!form.coef(i).isConst() && form.coef(i).level == analysis::Uniformity::Divergent)
        return std::nullopt;
    return form.coef(1).value;
  }
  /// A 32-bit index's stride, positive and small: its lanes wrap around at
  /// most once within a warp, and widened to 64 bits they drop by 2^32
  /// times the stride the address has.
  std::optional<int64_t> narrowStride(ValueId v) const {
    if (v == analysis::kNoValue || fd_.valueForm(v).width() != 32) return std::nullopt;
    auto s = exact(fd_.valueForm(v));
    if (!s || *s <= 0 || *s > 64) return std::nullopt;
    return s;
  }
  ValueId operandValue(uint32_t instr, unsigned position) const {
    const analysis::SSA &ssa = fd_.gated().ssa();
    auto uses = ssa.defUse().uses(instr);
    auto values = ssa.useValues(instr);
    for (size_t u = 0; u < uses.size(); ++u)
      if (uses[u].operand == position && uses[u].role == analysis::UseRole::Source) return values[u];
    return analysis::kNoValue;
  }

  const ptx::Module &m_;
  const analysis::FunctionDivergence &fd_;
};

} // namespace

AddressFacts addressFacts(const emu::Kernel &k) {
  AddressFacts facts;
  facts.kind.assign(k.code.size(), AddressFacts::None);
  if (!k.module || k.regions.empty() || !k.regions[0].function) return facts;
  // The launch shape is the kernel's own (.reqntid, a 1-D .maxntid) or any:
  // compiled code serves every launch.
  const analysis::DivergenceResult result = analysis::analyzeDivergence(*k.module, *k.regions[0].function);
  facts.uniformSlots.resize(k.regions.size());
  for (size_t r = 0; r < k.regions.size(); ++r) {
    const emu::CodeRegion &region = k.regions[r];
    const analysis::FunctionDivergence *fd = region.function ? result.find(*region.function) : nullptr;
    if (!fd) continue;
    const analysis::SSA &ssa = fd->gated().ssa();
    // .b128 high halves (slots past the function's registers) stay vectors.
    std::vector<uint8_t> &uniform = facts.uniformSlots[r];
    uniform.assign(region.numRegisters, 0);
    std::fill_n(uniform.begin(), std::min<size_t>(region.function->numRegisters, uniform.size()), 1);
    const auto values = ssa.values();
    for (analysis::ValueId v = 0; v < values.size(); ++v)
      if (values[v].var < uniform.size() && ssa.defUse().isRegister(values[v].var) &&
          fd->valueLevel(v) == analysis::Uniformity::Divergent)
        uniform[values[v].var] = 0;
    for (size_t slot = 0; slot < region.highSlot.size(); ++slot)
      if (region.highSlot[slot]) uniform[slot] = 0;
  }
  for (uint32_t pc = 0; pc < k.code.size(); ++pc) {
    const emu::DInstr &in = k.code[pc];
    using ptx::Opcode;
    if (in.opcode != Opcode::Ld && in.opcode != Opcode::Ldu && in.opcode != Opcode::St) continue;
    const emu::DOp &addr = k.op(in, in.opcode == Opcode::St ? 0 : 1);
    if (addr.kind != emu::DOp::Addr || !addr.hasBase) continue;
    const analysis::FunctionDivergence *fd = result.find(k.functionOf(in));
    if (!fd) continue;
    const analysis::SSA &ssa = fd->gated().ssa();
    const auto uses = ssa.defUse().uses(in.irIndex);
    const auto values = ssa.useValues(in.irIndex);
    for (size_t u = 0; u < uses.size(); ++u) {
      if (uses[u].role != analysis::UseRole::Address || values[u] == analysis::kNoValue) continue;
      if (fd->valueLevel(values[u]) != analysis::Uniformity::Divergent) {
        facts.kind[pc] = AddressFacts::Uniform;
        break;
      }
      const int64_t size = static_cast<int64_t>(emu::byteSize(in.type));
      if (WrappedStrides(*k.module, *fd).of(values[u]) == size) facts.kind[pc] = AddressFacts::Consecutive;
      break;
    }
  }
  return facts;
}

} // namespace translator
