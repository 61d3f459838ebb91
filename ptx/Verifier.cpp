#include "ptx/Verifier.h"

#include "ptx/Builder.h"
#include "ptx/Layout.h"
#include "ptx/Version.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ptx {
namespace {

std::string versionText(unsigned v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); }

/// What a name refers to, for operands and address bases.
struct SymbolInfo {
  enum Kind { Variable, Function, Label, Prototype, BranchTargets, CallTargets } kind;
  Mod space = Mod::None;
};

class Verifier {
public:
  Verifier(const Module &m, DiagnosticList &diags, const VerifyOptions &o)
      : m_(m), o_(o),
        errors_(diags, m.fileName, m.source ? std::string_view(*m.source) : std::string_view()) {}

  bool run() {
    size_t before = errors_.errorCount();
    checkModuleHeader();
    collectModuleSymbols();
    checkLayouts();
    for (const Function &f : m_.functions) checkFunction(f);
    return errors_.errorCount() == before;
  }

private:
  void error(SourceLoc loc, std::string message) {
    errors_.error(loc, std::move(message), DiagKind::VerifyError);
  }

  void checkModuleHeader() {
    if (m_.versionMajor == 0 && m_.versionMinor == 0) error({1, 1}, "missing .version directive");
    if (m_.targets.empty()) error(m_.versionLoc, "missing .target directive");
    if (m_.ptxVersion() > kMaxPtxIsaVersion)
      error(m_.versionLoc,
            "PTX ISA " + versionText(m_.ptxVersion()) + " is newer than " + versionText(kMaxPtxIsaVersion));
  }

  /// Sizes that cannot be laid out: a variable whose bytes do not fit in
  /// 64 bits (a .b32 array of 2^62+1 elements would wrap to 4 bytes), and a
  /// module whose constant data passes the 64 KiB bank (ptxas: "File uses
  /// too much global constant data").
  void checkLayouts() {
    auto check = [&](const Variable &v) {
      if (variableBytes(v)) return true;
      std::string dims;
      for (uint64_t d : v.dims) dims += "[" + std::to_string(d) + "]";
      error(v.loc,
            "the size of '" + std::string(m_.str(v.name)) + "' (" + dims + ") does not fit in 64 bits");
      return false;
    };
    constexpr uint64_t kConstBank = 64 << 10;
    uint64_t constBytes = 0;
    bool constReported = false;
    for (const Variable &v : m_.globals) {
      if (!check(v) || v.space != Mod::Const || constReported) continue;
      const uint64_t align = std::max<uint64_t>(naturalAlignment(v), 1);
      const uint64_t at = (constBytes + align - 1) / align * align, bytes = *variableBytes(v);
      if (bytes > kConstBank || at + bytes > kConstBank) {
        error(v.loc, "the module's constant data passes " + std::to_string(kConstBank) + " bytes at '" +
                         std::string(m_.str(v.name)) + "' (" + std::to_string(bytes) + " bytes)");
        constReported = true;
        continue;
      }
      constBytes = at + bytes;
    }
    for (const Function &f : m_.functions) {
      for (const Variable &v : f.params) check(v);
      for (const Variable &v : f.returns) check(v);
      for (const Variable &v : f.locals) check(v);
    }
  }

  void collectModuleSymbols() {
    for (const Variable &v : m_.globals) {
      if (!globals_.emplace(v.name, SymbolInfo{SymbolInfo::Variable, v.space}).second)
        error(v.loc, "'" + std::string(m_.str(v.name)) + "' is already defined");
    }
    std::unordered_map<Name, const Function *> bodies;
    for (const Function &f : m_.functions) {
      functions_.emplace(f.name, &f);
      auto [it, inserted] = globals_.emplace(f.name, SymbolInfo{SymbolInfo::Function, Mod::None});
      if (!inserted && it->second.kind != SymbolInfo::Function)
        error(f.loc, "'" + std::string(m_.str(f.name)) + "' is already defined as a variable");
      if (f.hasBody && !bodies.emplace(f.name, &f).second)
        error(f.loc, "function '" + std::string(m_.str(f.name)) + "' has two bodies");
    }
    for (auto &[alias, target] : m_.aliases) {
      globals_.emplace(alias, SymbolInfo{SymbolInfo::Function, Mod::None});
      if (auto fn = functions_.find(target); fn != functions_.end()) functions_.emplace(alias, fn->second);
    }
  }

  void checkFunction(const Function &f) {
    if (f.isKernel && !f.returns.empty()) error(f.loc, "a kernel (.entry) cannot return values");
    for (const Variable &p : f.params)
      if (f.isKernel && p.space != Mod::Param) error(p.loc, "kernel parameters must be .param");
    if (!f.hasBody) return;
    if (!f.bodyParsed) {
      error(f.loc,
            "internal: body of '" + std::string(m_.str(f.name)) + "' was not parsed before verification");
      return;
    }
    locals_.clear();
    for (const Variable &p : f.params) locals_.emplace(p.name, SymbolInfo{SymbolInfo::Variable, p.space});
    for (const Variable &p : f.returns) locals_.emplace(p.name, SymbolInfo{SymbolInfo::Variable, p.space});
    for (const Variable &v : f.locals) locals_.emplace(v.name, SymbolInfo{SymbolInfo::Variable, v.space});
    for (const Label &l : f.labels) locals_.emplace(l.name, SymbolInfo{SymbolInfo::Label, Mod::None});
    currentFunction_ = &f;
    collectScopes(f);
    for (const Prototype &p : f.prototypes)
      locals_.emplace(p.name, SymbolInfo{SymbolInfo::Prototype, Mod::None});
    for (const TargetList &t : f.targetLists) {
      locals_.emplace(t.name,
                      SymbolInfo{t.calls ? SymbolInfo::CallTargets : SymbolInfo::BranchTargets, Mod::None});
    }
    for (const TargetList &t : f.targetLists)
      for (Name target : t.targets) {
        const SymbolInfo *s = find(target);
        if (!s || s->kind != (t.calls ? SymbolInfo::Function : SymbolInfo::Label))
          error(t.loc, std::string(t.calls ? "call target '" : "branch target '") +
                           std::string(m_.str(target)) + "' is not a " + (t.calls ? "function" : "label"));
      }
    for (size_t i = 0; i < f.instrs.size(); ++i) {
      currentScope_ = instrScope_[i];
      checkInstruction(f, f.instrs[i]);
    }
  }

  /// Labels are scoped by `{ }` blocks: visible in their block (before and
  /// after the definition) and in nested blocks, and may be shadowed there;
  /// one block cannot define a name twice. ptxas rejects a branch to a label
  /// of a nested block.
  void collectScopes(const Function &f) {
    scopes_.assign(1, Scope{});
    instrScope_.assign(f.instrs.size(), 0);
    uint32_t current = 0;
    for (const Stmt &st : f.statements()) {
      switch (st.kind) {
      case StmtKind::ScopeBegin:
        scopes_.push_back(Scope{current, {}, {}});
        current = uint32_t(scopes_.size() - 1);
        break;
      case StmtKind::ScopeEnd: current = scopes_[current].parent; break;
      case StmtKind::Label: {
        const Label &l = f.labels[st.index];
        if (!scopes_[current].labels.insert(l.name).second)
          error(l.loc, "label '" + std::string(m_.str(l.name)) + "' is defined twice");
        break;
      }
      case StmtKind::Instruction: instrScope_[st.index] = current; break;
      case StmtKind::Variable: {
        // ptxas: a name is defined once per scope, and the body's outermost
        // scope is the parameters' ("Duplicate definition of variable").
        const Variable &v = f.locals[st.index];
        bool clash = !scopes_[current].variables.emplace(v.name, &v).second;
        if (current == 0)
          for (const std::vector<Variable> *list : {&f.params, &f.returns})
            for (const Variable &p : *list) clash |= p.name == v.name;
        if (clash) error(v.loc, "'" + std::string(m_.str(v.name)) + "' is already defined in this scope");
        break;
      }
      default: break;
      }
    }
  }

  /// The variable `n` names at the instruction being checked: the innermost
  /// block's declaration (call sites declare their .param variables in a
  /// block each, often under the same names), a parameter, or a global.
  const Variable *variableInScope(Name n) const {
    for (uint32_t s = currentScope_;; s = scopes_[s].parent) {
      if (auto it = scopes_[s].variables.find(n); it != scopes_[s].variables.end()) return it->second;
      if (s == 0) break;
    }
    for (const auto *list : {&currentFunction_->params, &currentFunction_->returns})
      for (const Variable &v : *list)
        if (v.name == n) return &v;
    for (const Variable &v : m_.globals)
      if (v.name == n) return &v;
    return nullptr;
  }

  /// Each actual of a call list against its .param formal, as ptxas checks
  /// them: a .param variable of the same size and alignment, a register of
  /// the same width, or an immediate. (A smaller argument would have the
  /// callee read past it.)
  void checkCallList(const Function &f, const Instruction &in, const Operand *list,
                     const std::vector<Variable> &formals, const std::string &callee) {
    if (!list) return;
    auto actuals = f.children(*list);
    for (size_t i = 0; i < actuals.size() && i < formals.size(); ++i) {
      const Variable &formal = formals[i];
      if (formal.space != Mod::Param) continue;
      const std::optional<uint64_t> want = variableBytes(formal);
      const std::string formalName =
          formal.name == kNoName ? "#" + std::to_string(i + 1) : "'" + std::string(m_.str(formal.name)) + "'";
      const Operand &a = actuals[i];
      std::optional<uint64_t> have;
      uint32_t alignment = 0;
      std::string what;
      if (a.kind == OperandKind::Symbol) {
        const Variable *v = variableInScope(a.id);
        if (!v || v->space != Mod::Param) continue;
        have = variableBytes(*v);
        alignment = naturalAlignment(*v);
        what = "'" + std::string(m_.str(a.id)) + "'";
      } else if (a.kind == OperandKind::Register) {
        have = (bitWidth(f.registerType(a.id)) + 7) / 8;
        alignment = naturalAlignment(formal);
        what = "'" + registerName(m_, f, a.id) + "'";
      } else {
        continue;
      }
      if (!have || !want) continue; // a size that overflows is reported where it is declared
      if (*have != *want)
        error(in.loc, "type of " + what + " (" + std::to_string(*have) + " bytes) in " + describe(in) +
                          " does not match formal parameter " + formalName + " of " + callee + " (" +
                          std::to_string(*want) + " bytes)");
      else if (alignment != naturalAlignment(formal))
        error(in.loc, "alignment of " + what + " (" + std::to_string(alignment) + ") in " + describe(in) +
                          " does not match formal parameter " + formalName + " of " + callee + " (" +
                          std::to_string(naturalAlignment(formal)) + ")");
    }
  }

  /// Whether label `n` is visible from the instruction being checked.
  bool labelVisible(Name n) const {
    for (uint32_t s = currentScope_;; s = scopes_[s].parent) {
      if (scopes_[s].labels.count(n)) return true;
      if (s == 0) return false;
    }
  }

  const SymbolInfo *find(Name n) const {
    auto it = locals_.find(n);
    if (it != locals_.end()) return &it->second;
    auto g = globals_.find(n);
    return g == globals_.end() ? nullptr : &g->second;
  }

  std::string describe(const Instruction &in) const { return "'" + instructionName(m_, in) + "'"; }

  void checkInstruction(const Function &f, const Instruction &in) {
    const InstrTable &table = InstrTable::get();
    const Form &form = table.form(in.form);
    if (in.hasGuard && f.registerType(in.guard) != Type::Pred)
      error(in.loc, "guard '" + registerName(m_, f, in.guard) + "' is not a .pred register");
    if (o_.checkAvailability) {
      if (form.ptxVersion > m_.ptxVersion() && m_.ptxVersion() != 0)
        error(in.loc, describe(in) + " requires PTX ISA " + versionText(form.ptxVersion) +
                          " or later (module is " + versionText(m_.ptxVersion()) + ")");
      unsigned sm = m_.smVersion();
      if (sm != 0 && form.sm > sm)
        error(in.loc, describe(in) + " requires sm_" + std::to_string(form.sm) + " or later (target is sm_" +
                          std::to_string(sm) + ")");
    }
    checkModifierOrder(in);
    if (table.has(in.opcode, iflag::Barrier) && !checkBarrierOperands(f, in)) return;
    checkOperands(f, in, form);
    if (in.opcode == Opcode::Call) checkCall(f, in);
  }

  /// The forms match modifiers in any order, as ptxas mostly does; but
  /// ptxas reads the mode of an integer multiply (.hi/.lo/.wide) only right
  /// after the name: `mul.s32.lo` and `mad.sat.hi.s32` are errors.
  void checkModifierOrder(const Instruction &in) {
    if (in.opcode != Opcode::Mul && in.opcode != Opcode::Mad && in.opcode != Opcode::Mul24 &&
        in.opcode != Opcode::Mad24 && in.opcode != Opcode::Madc)
      return;
    auto mods = m_.desc(in).modifiers();
    for (size_t i = 1; i < mods.size(); ++i)
      if (mods[i] == Mod::Hi || mods[i] == Mod::Lo || mods[i] == Mod::Wide)
        error(in.loc, "modifier '." + std::string(spelling(mods[i])) + "' of " + describe(in) +
                          " must come right after '" + std::string(InstrTable::get().info(in.opcode).name) +
                          "'");
  }

  /// `call (rets), f, (args)` or `call (rets), %reg, (args), proto`: the
  /// callee exists and the lists match its signature (the table's form is
  /// `call *`).
  void checkCall(const Function &f, const Instruction &in) {
    auto ops = f.operandsOf(in);
    size_t i = 0;
    const Operand *rets = nullptr, *args = nullptr;
    if (i < ops.size() && ops[i].kind == OperandKind::List) rets = &ops[i++];
    if (i >= ops.size()) return error(in.loc, describe(in) + " names no function to call");
    const Operand &callee = ops[i++];
    if (i < ops.size() && ops[i].kind == OperandKind::List) args = &ops[i++];
    const std::vector<Variable> *wantRets = nullptr, *wantArgs = nullptr;
    std::string what;
    if (callee.kind == OperandKind::Symbol) {
      auto fn = functions_.find(callee.id);
      if (fn == functions_.end())
        return error(in.loc,
                     "call target '" + std::string(m_.str(callee.id)) + "' is not a declared function");
      if (fn->second->isKernel)
        return error(in.loc, "call target '" + std::string(m_.str(callee.id)) + "' is a kernel (.entry)");
      // ptxas needs a declaration (a prototype) before the call.
      if (fn->second > &f)
        error(in.loc, "function '" + std::string(m_.str(callee.id)) + "' is called before it is declared");
      wantRets = &fn->second->returns;
      wantArgs = &fn->second->params;
      what = "'" + std::string(m_.str(callee.id)) + "'";
    } else if (callee.kind == OperandKind::Register) {
      Type t = f.registerType(callee.id);
      if (typeClass(t) == TypeClass::Float || t == Type::Pred)
        error(in.loc,
              "indirect call through '" + registerName(m_, f, callee.id) + "' needs an integer register");
      if (i >= ops.size() || ops[i].kind != OperandKind::Symbol)
        return error(in.loc, "indirect " + describe(in) + " needs a .callprototype or .calltargets operand");
      const SymbolInfo *s = find(ops[i].id);
      if (!s || (s->kind != SymbolInfo::Prototype && s->kind != SymbolInfo::CallTargets))
        return error(in.loc, "'" + std::string(m_.str(ops[i].id)) + "' in " + describe(in) +
                                 " is not a .callprototype or .calltargets label");
      for (const Prototype &p : f.prototypes)
        if (p.name == ops[i].id) {
          wantRets = &p.returns;
          wantArgs = &p.params;
          what = "prototype '" + std::string(m_.str(p.name)) + "'";
        }
      ++i;
    } else {
      return error(in.loc, "call target of " + describe(in) + " must be a function or a register");
    }
    if (i < ops.size())
      error(in.loc, describe(in) + " has " + std::to_string(ops.size() - i) + " extra operand(s)");
    for (const Operand *list : {rets, args})
      if (list)
        for (const Operand &e : f.children(*list))
          if (e.kind == OperandKind::Symbol) checkSymbol(in, e, 0);
    if (!wantRets) return;
    auto count = [&](const Operand *list) { return list ? size_t(list->count()) : size_t(0); };
    auto plural = [](size_t n, const char *w) { return std::to_string(n) + " " + w + (n == 1 ? "" : "s"); };
    if (count(rets) != wantRets->size())
      error(in.loc, describe(in) + " receives " + plural(count(rets), "return value") + ", " + what +
                        " returns " + std::to_string(wantRets->size()));
    if (count(args) != wantArgs->size())
      error(in.loc, describe(in) + " passes " + plural(count(args), "argument") + ", " + what + " takes " +
                        std::to_string(wantArgs->size()));
    checkCallList(f, in, rets, *wantRets, what);
    checkCallList(f, in, args, *wantArgs, what);
  }

  void checkOperands(const Function &f, const Instruction &in, const Form &form) {
    auto ops = f.operandsOf(in);
    // Flatten the form's specs into positions: a pair spec `d|p` is one
    // operand position.
    std::vector<std::pair<const OperandSpec *, const OperandSpec *>> positions;
    bool rest = false;
    for (size_t i = 0; i < form.operands.size(); ++i) {
      const OperandSpec &s = form.operands[i];
      if (s.shape == OperandShape::Rest) {
        rest = true;
        break;
      }
      if (s.pairedWithPrevious) continue;
      const OperandSpec *second = i + 1 < form.operands.size() && form.operands[i + 1].pairedWithPrevious
                                      ? &form.operands[i + 1]
                                      : nullptr;
      positions.emplace_back(&s, second);
    }
    size_t required = 0;
    for (auto &p : positions)
      if (!p.first->optional) ++required;
    if (ops.size() < required || (!rest && ops.size() > positions.size())) {
      std::string expected = required == positions.size() || rest
                                 ? std::to_string(required) + (rest ? " or more" : "")
                                 : std::to_string(required) + " to " + std::to_string(positions.size());
      error(in.loc, describe(in) + " takes " + expected + " operand" + (expected == "1" ? "" : "s") +
                        ", found " + std::to_string(ops.size()) + " (form: " + std::string(form.notation) +
                        ")");
      return;
    }
    for (size_t i = 0; i < ops.size() && i < positions.size(); ++i) {
      const Operand &op = ops[i];
      auto [spec, second] = positions[i];
      if (op.kind == OperandKind::Pair) {
        if (!second) {
          error(in.loc,
                "operand " + std::to_string(i + 1) + " of " + describe(in) + " cannot be a pair 'a|b'");
          continue;
        }
        auto kids = f.children(op);
        checkOperand(f, in, form, kids[0], *spec, i);
        checkOperand(f, in, form, kids[1], *second, i);
      } else {
        if (second && !second->optional) {
          error(in.loc, "operand " + std::to_string(i + 1) + " of " + describe(in) + " must be a pair 'a|b'");
          continue;
        }
        checkOperand(f, in, form, op, *spec, i);
      }
    }
  }

  Type expectedType(const Instruction &in, const OperandSpec &spec) const {
    switch (spec.type.kind) {
    case OperandType::Instruction: return m_.desc(in).lastType();
    case OperandType::Group: return m_.desc(in).type(spec.type.group);
    case OperandType::Fixed: return spec.type.fixed;
    case OperandType::Any: return Type::None;
    }
    return Type::None;
  }

  /// PTX operand type compatibility: bit types match any type of their
  /// size, signed and unsigned integers of one size match, floats match
  /// only themselves or bits. Loads, stores and conversions may use wider
  /// registers than the instruction type.
  bool compatible(Type reg, Type want, bool widen) const {
    if (want == Type::None || reg == want) return true;
    TypeClass rc = typeClass(reg), wc = typeClass(want);
    if (rc == TypeClass::Pred || wc == TypeClass::Pred) return false;
    if (rc == TypeClass::Opaque || wc == TypeClass::Opaque)
      return rc == wc || reg == Type::B64 || reg == Type::U64;
    unsigned rb = bitWidth(reg), wb = bitWidth(want);
    bool sizeOk = widen ? rb >= wb : rb == wb;
    if (!sizeOk) return false;
    if (rc == TypeClass::Bits || wc == TypeClass::Bits) return true;
    if ((rc == TypeClass::Signed || rc == TypeClass::Unsigned) &&
        (wc == TypeClass::Signed || wc == TypeClass::Unsigned))
      return true;
    // Packed and narrow float formats live in bit or integer registers.
    if (wc == TypeClass::Float && want != Type::F32 && want != Type::F64)
      return rc != TypeClass::Float || rb == wb;
    return widen && rc != TypeClass::Float && wc != TypeClass::Float;
  }

  void checkRegisterType(const Function &f, const Instruction &in, uint32_t reg, const OperandSpec &spec,
                         size_t index) {
    Type want = expectedType(in, spec);
    Type have = f.registerType(reg);
    const InstrTable &table = InstrTable::get();
    bool widen = table.has(in.opcode, iflag::Load | iflag::Store | iflag::Atomic) ||
                 in.opcode == Opcode::Cvt || spec.type.kind != OperandType::Fixed;
    // Sub-word integer operations read and write wider registers too.
    if (!compatible(have, want, widen))
      error(in.loc, "operand " + std::to_string(index + 1) + " of " + describe(in) + ": register '" +
                        registerName(m_, f, reg) + "' has type ." + std::string(spelling(have)) +
                        ", expected ." + std::string(spelling(want)));
  }

  /// The shape through the matcher the builder chose the form with
  /// (operandFits), then what a shape alone cannot say: register types,
  /// symbols, labels and addresses.
  void checkOperand(const Function &f, const Instruction &in, const Form &form, const Operand &op,
                    const OperandSpec &spec, size_t index) {
    (void)form;
    auto bad = [&](std::string_view what) {
      error(in.loc,
            "operand " + std::to_string(index + 1) + " of " + describe(in) + " must be " + std::string(what));
    };
    if (op.negated() && !spec.negatable) return bad("a predicate without '!'");
    if (!operandFits(spec, op, vectorised(in))) return bad(shapeDescription(spec.shape));
    switch (spec.shape) {
    case OperandShape::Dest:
    case OperandShape::Source:
    case OperandShape::SourceReg:
      if (op.kind == OperandKind::Register)
        checkRegisterType(f, in, op.id, spec, index);
      else if (op.kind == OperandKind::Vector)
        checkVector(f, in, op, spec, index);
      else if (op.kind == OperandKind::Symbol)
        checkSymbol(in, op, index);
      return;
    case OperandShape::Pred:
      if (op.kind == OperandKind::Register && f.registerType(op.id) != Type::Pred) bad("a .pred register");
      return;
    case OperandShape::Address:
      if (op.kind == OperandKind::Address) checkAddress(f, in, op, index);
      return;
    case OperandShape::Label:
      if (const SymbolInfo *s = find(op.id);
          !s || (s->kind != SymbolInfo::Label && s->kind != SymbolInfo::BranchTargets))
        error(in.loc, "branch target '" + std::string(m_.str(op.id)) + "' is not a label of this function");
      else if (s->kind == SymbolInfo::Label && !labelVisible(op.id))
        error(in.loc,
              "label '" + std::string(m_.str(op.id)) + "' is defined in a nested block, not visible here");
      return;
    case OperandShape::Function:
      if (op.kind == OperandKind::Symbol) {
        const SymbolInfo *s = find(op.id);
        if (!s || s->kind != SymbolInfo::Function)
          error(in.loc, "call target '" + std::string(m_.str(op.id)) + "' is not a declared function");
      }
      return;
    case OperandShape::Symbol:
      if (op.kind == OperandKind::Symbol) checkSymbol(in, op, index);
      return;
    case OperandShape::Imm:
    case OperandShape::RegVector:
    case OperandShape::ParamList:
    case OperandShape::Rest: return;
    }
  }

  bool vectorised(const Instruction &in) const {
    for (Mod m : m_.desc(in).modifiers())
      if (m == Mod::V2 || m == Mod::V4 || m == Mod::V8) return true;
    return false;
  }

  void checkVector(const Function &f, const Instruction &in, const Operand &op, const OperandSpec &spec,
                   size_t index) {
    unsigned width = 0;
    for (Mod m : m_.desc(in).modifiers()) {
      if (m == Mod::V2) width = 2;
      if (m == Mod::V4) width = 4;
      if (m == Mod::V8) width = 8;
    }
    if (width && op.count() != width && in.opcode != Opcode::Mov)
      error(in.loc, "operand " + std::to_string(index + 1) + " of " + describe(in) + " has " +
                        std::to_string(op.count()) + " elements, expected " + std::to_string(width));
    if (!width) return;
    for (const Operand &e : f.children(op))
      if (e.kind == OperandKind::Register) checkRegisterType(f, in, e.id, spec, index);
  }

  void checkSymbol(const Instruction &in, const Operand &op, size_t index) {
    (void)index;
    if (!find(op.id))
      error(in.loc, "undefined symbol '" + std::string(m_.str(op.id)) + "' in " + describe(in));
  }

  static bool sameSpace(Mod instr, Mod var) {
    auto norm = [](Mod s) {
      if (s == Mod::SharedCta) return Mod::Shared;
      if (s == Mod::ParamEntry || s == Mod::ParamFunc) return Mod::Param;
      return s;
    };
    if (norm(instr) == Mod::SharedCluster) return norm(var) == Mod::Shared;
    return norm(instr) == norm(var);
  }

  void checkAddress(const Function &f, const Instruction &in, const Operand &op, size_t index) {
    if (op.base == AddressBase::Register) {
      Type t = f.registerType(op.id);
      if (typeClass(t) == TypeClass::Float || t == Type::Pred)
        error(in.loc, "address register '" + registerName(m_, f, op.id) + "' in " + describe(in) +
                          " must be an integer register");
      return;
    }
    if (op.base != AddressBase::Symbol) return;
    const SymbolInfo *s = find(op.id);
    if (!s) {
      error(in.loc, "undefined symbol '" + std::string(m_.str(op.id)) + "' in " + describe(in));
      return;
    }
    Mod space = m_.desc(in).firstOfKind(ModKind::Space);
    const InstrTable &table = InstrTable::get();
    if (space != Mod::None && s->kind == SymbolInfo::Variable &&
        table.has(in.opcode, iflag::Load | iflag::Store) && !sameSpace(space, s->space))
      error(in.loc, "operand " + std::to_string(index + 1) + " of " + describe(in) + ": '" +
                        std::string(m_.str(op.id)) + "' is in ." + std::string(spelling(s->space)) +
                        ", not ." + std::string(spelling(space)));
    if (table.has(in.opcode, iflag::Store) && !table.has(in.opcode, iflag::Load) &&
        s->kind == SymbolInfo::Variable && s->space == Mod::Const)
      error(in.loc, describe(in) + " cannot write to .const variable '" + std::string(m_.str(op.id)) + "'");
  }

  /// Immediate barrier operands: id 0-15, thread count a positive multiple
  /// of the warp size; arrive needs a count (false, and no other operand
  /// check, when it has none).
  bool checkBarrierOperands(const Function &f, const Instruction &in) {
    auto ops = f.operandsOf(in);
    const BarrierInfo &barrier = InstrTable::get().barrier(in.opcode);
    bool isArrive = barrier.kind == BarrierKind::Arrive;
    bool isRed = barrier.kind == BarrierKind::Reduce;
    // bar.red is (d, a{, b}, c): its id and count come one position later.
    size_t idIndex = barrier.idOperand, countIndex = idIndex + 1;
    if (ops.size() <= idIndex) return true;
    const Operand &id = ops[idIndex];
    if (id.kind == OperandKind::Int && (id.value < 0 || id.value > 15))
      error(in.loc, "barrier id " + std::to_string(id.value) + " is out of range 0..15 in " + describe(in));
    bool hasCount = isRed ? ops.size() == 4 : ops.size() > countIndex;
    if (isArrive && ops.size() < 2) {
      error(in.loc, describe(in) + " needs a thread count");
      return false;
    }
    if (!hasCount || ops[countIndex].kind != OperandKind::Int) return true;
    int64_t count = ops[countIndex].value;
    if (count < 0 || count % 32 != 0 || (isArrive && count == 0))
      error(in.loc, "barrier thread count " + std::to_string(count) + " in " + describe(in) + " must be a " +
                        (isArrive ? "non-zero " : "") + "multiple of 32");
    return true;
  }

  const Module &m_;
  VerifyOptions o_;
  ErrorReporter errors_;
  std::unordered_map<Name, SymbolInfo> globals_;
  std::unordered_map<Name, SymbolInfo> locals_;
  std::unordered_map<Name, const Function *> functions_;
  struct Scope {
    uint32_t parent = 0;
    std::unordered_set<Name> labels;
    std::unordered_map<Name, const Variable *> variables; // declared in this block
  };
  const Function *currentFunction_ = nullptr;
  std::vector<Scope> scopes_;
  std::vector<uint32_t> instrScope_; // per instruction of the current function
  uint32_t currentScope_ = 0;
};

} // namespace

bool verifyModule(const Module &m, DiagnosticList &diags, const VerifyOptions &options) {
  return Verifier(m, diags, options).run();
}

} // namespace ptx
