// Editing a function body, for passes that add, remove or replace
// instructions (register allocation's spill code): new instructions from a
// spelling and operands, resolved against the instruction table as the front
// ends resolve them, and one rebuild of the body, its statement runs and its
// CFG once every edit is known.
#pragma once

#include "ptx/IR.h"

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptx {

/// `spelling ops` as an instruction of `fn` (its operands, none of them a
/// composite, appended to fn.operands); nullopt with `error` when the
/// spelling is unknown or no form of it takes these operands.
std::optional<Instruction> makeInstruction(Module &m, Function &fn, std::string_view spelling,
                                           std::span<const Operand> ops, std::string &error);

inline std::optional<Instruction> makeInstruction(Module &m, Function &fn, std::string_view spelling,
                                                  std::initializer_list<Operand> ops, std::string &error) {
  return makeInstruction(m, fn, spelling, std::span<const Operand>(ops.begin(), ops.size()), error);
}

/// Operand constructors for the code passes write.
Operand registerOperand(uint32_t reg);
Operand specialOperand(SpecialReg r, Selector component = Selector::None);
Operand intOperand(int64_t value);
Operand symbolOperand(Name name);
/// `[reg+offset]`, `[symbol+offset]`.
Operand registerAddress(uint32_t reg, int64_t offset = 0);
Operand symbolAddress(Name symbol, int64_t offset = 0);

/// Calls f(id) with a reference to every register id `op` names (itself, an
/// address's base register, the elements of a vector, list or pair).
template <class F> void forEachRegister(Function &fn, Operand &op, F &&f) {
  if (op.kind == OperandKind::Register ||
      (op.kind == OperandKind::Address && op.base == AddressBase::Register))
    f(op.id);
  else if (op.isComposite())
    for (uint32_t c = 0; c < op.count(); ++c) forEachRegister(fn, fn.operands[op.id + c], f);
}

/// The same for every register instruction `in` names, its guard included.
template <class F> void forEachRegister(Function &fn, Instruction &in, F &&f) {
  if (in.hasGuard) f(in.guard);
  for (uint16_t j = 0; j < in.numOperands; ++j) forEachRegister(fn, fn.operands[in.firstOperand + j], f);
}

/// Edits of one function's instructions, collected and then applied at once:
/// indices refer to the instructions as they were before apply().
class BodyEdit {
public:
  explicit BodyEdit(Function &fn)
      : fn_(fn), before_(fn.instrs.size()), after_(fn.instrs.size()), erased_(fn.instrs.size(), false) {}
  /// Code that runs right before `instr`, after any label in front of it.
  void insertBefore(uint32_t instr, Instruction in) { before_[instr].push_back(in); }
  /// Code that runs right after `instr` (which must not be a terminator).
  void insertAfter(uint32_t instr, Instruction in) { after_[instr].push_back(in); }
  void erase(uint32_t instr) { erased_[instr] = true; }
  /// Code that runs once on entry, before the first label or instruction.
  void insertAtEntry(Instruction in) { entry_.push_back(in); }
  /// Replaces every register declaration of the body (nested scopes'
  /// included) with `decls` at its top; their ids must cover
  /// 0..numRegisters-1.
  void replaceRegisters(std::vector<RegisterDecl> decls, uint32_t numRegisters);
  /// Rebuilds the instruction list, the body's statements and the CFG.
  /// Inserted instructions take the source location and .loc of the
  /// instruction they were inserted at.
  void apply();

private:
  Function &fn_;
  std::vector<std::vector<Instruction>> before_, after_;
  std::vector<bool> erased_;
  std::vector<Instruction> entry_;
  std::optional<std::vector<RegisterDecl>> decls_;
  uint32_t numRegisters_ = 0;
};

} // namespace ptx
