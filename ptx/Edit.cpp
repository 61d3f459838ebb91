// Body edits for transform passes.
#include "ptx/Edit.h"

#include "ptx/Builder.h"
#include "ptx/CFG.h"

namespace ptx {

std::optional<Instruction> makeInstruction(Module &m, Function &fn, std::string_view spelling,
                                           std::span<const Operand> ops, std::string &error) {
  ResolvedInstruction r;
  size_t errorOffset = 0;
  if (!resolveInstruction(spelling, r, error, errorOffset)) return std::nullopt;
  for (const Operand &op : ops)
    if (op.isComposite()) {
      error = "makeInstruction takes no composite operands";
      return std::nullopt;
    }
  const InstrTable &table = InstrTable::get();
  std::span<const Mod> mods(r.mods.data(), r.numMods);
  bool vectorised = false;
  for (Mod mod : mods) vectorised |= mod == Mod::V2 || mod == Mod::V4 || mod == Mod::V8;
  // The form the operands fit, among those that accept the modifiers (as
  // FunctionBuilder::addInstruction chooses).
  std::optional<uint16_t> form;
  if (operandsFit(table.form(r.form), fn, ops, vectorised)) form = r.form;
  for (uint16_t id : table.info(r.opcode).forms)
    if (!form && table.matches(id, mods) && operandsFit(table.form(id), fn, ops, vectorised)) form = id;
  if (!form) {
    error = "no form of '" + std::string(spelling) + "' takes these operands";
    return std::nullopt;
  }
  InstrDesc desc;
  desc.opcode = r.opcode;
  desc.form = *form;
  desc.numMods = r.numMods;
  desc.mods = r.mods;
  Instruction in;
  in.opcode = desc.opcode;
  in.form = desc.form;
  in.desc = m.internDesc(desc);
  in.firstOperand = static_cast<uint32_t>(fn.operands.size());
  in.numOperands = static_cast<uint16_t>(ops.size());
  fn.operands.insert(fn.operands.end(), ops.begin(), ops.end());
  return in;
}

namespace {

Operand operand(OperandKind kind, uint32_t id, int64_t value = 0, AddressBase base = AddressBase::None) {
  Operand o;
  o.kind = kind;
  o.id = id;
  o.value = value;
  o.base = base;
  return o;
}

} // namespace

Operand registerOperand(uint32_t reg) { return operand(OperandKind::Register, reg); }

Operand specialOperand(SpecialReg r, Selector component) {
  Operand o = operand(OperandKind::SpecialReg, static_cast<uint32_t>(r));
  o.selector = component;
  return o;
}

Operand intOperand(int64_t value) {
  Operand o = operand(OperandKind::Int, 0, value);
  if (value < 0) o.flags |= opflag::NegativeLiteral;
  return o;
}

Operand symbolOperand(Name name) { return operand(OperandKind::Symbol, name); }

Operand registerAddress(uint32_t reg, int64_t offset) {
  return operand(OperandKind::Address, reg, offset, AddressBase::Register);
}

Operand symbolAddress(Name symbol, int64_t offset) {
  return operand(OperandKind::Address, symbol, offset, AddressBase::Symbol);
}

void BodyEdit::replaceRegisters(std::vector<RegisterDecl> decls, uint32_t numRegisters) {
  decls_ = std::move(decls);
  numRegisters_ = numRegisters;
}

void BodyEdit::apply() {
  std::vector<Instruction> instrs;
  std::vector<Stmt> body;
  instrs.reserve(fn_.instrs.size() + entry_.size());
  auto emit = [&](Instruction in, const Instruction *anchor) {
    if (anchor) {
      in.loc = anchor->loc;
      in.debugLoc = anchor->debugLoc;
    }
    const auto index = static_cast<uint32_t>(instrs.size());
    if (!body.empty() && body.back().kind == StmtKind::Instruction && body.back().count < UINT16_MAX &&
        body.back().index + body.back().count == index)
      ++body.back().count;
    else
      body.push_back({StmtKind::Instruction, 1, index});
    instrs.push_back(in);
  };
  bool entryDone = entry_.empty();
  const Instruction *first = fn_.instrs.empty() ? nullptr : &fn_.instrs.front();
  for (const Stmt s : fn_.statements()) {
    if (!entryDone && (s.kind == StmtKind::Instruction || s.kind == StmtKind::Label)) {
      for (const Instruction &in : entry_) emit(in, first);
      entryDone = true;
    }
    switch (s.kind) {
    case StmtKind::Instruction: {
      const Instruction &old = fn_.instrs[s.index];
      for (const Instruction &in : before_[s.index]) emit(in, &old);
      if (!erased_[s.index]) emit(old, nullptr);
      for (const Instruction &in : after_[s.index]) emit(in, &old);
      break;
    }
    case StmtKind::RegDecl:
      if (!decls_) body.push_back(s);
      break;
    default: body.push_back(s); break;
    }
  }
  if (!entryDone)
    for (const Instruction &in : entry_) emit(in, first);
  if (decls_) {
    // At the top of the body: old declarations may have been in nested scopes.
    std::vector<Stmt> front;
    for (uint32_t d = 0; d < decls_->size(); ++d) front.push_back({StmtKind::RegDecl, 1, d});
    body.insert(body.begin(), front.begin(), front.end());
    fn_.regDecls = std::move(*decls_);
    fn_.numRegisters = numRegisters_;
  }
  fn_.instrs = std::move(instrs);
  fn_.body = std::move(body);
  buildCFG(fn_);
  before_.assign(fn_.instrs.size(), {});
  after_.assign(fn_.instrs.size(), {});
  erased_.assign(fn_.instrs.size(), false);
  entry_.clear();
  decls_.reset();
}

} // namespace ptx
