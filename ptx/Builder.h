// The semantic layer both front ends share: they recognise syntax, and hand
// everything they recognise to these builders, which resolve opcodes and
// modifiers against the instruction table, intern names, scope registers,
// read literals and lay out the IR. So the two front ends cannot disagree on
// what a piece of PTX means.
#pragma once

#include "ptx/CFG.h"
#include "ptx/Diagnostic.h"
#include "ptx/IR.h"
#include "ptx/Literals.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptx {

/// Reports front-end errors as `parse-error` diagnostics that quote the line.
class ErrorReporter {
public:
  ErrorReporter(DiagnosticList &diags, std::string_view fileName, std::string_view source)
      : diags_(diags), fileName_(fileName), source_(source) {}
  void error(SourceLoc loc, std::string message, DiagKind kind = DiagKind::ParseError);
  size_t errorCount() const { return diags_.errorCount(); }
  /// The text of 1-based line `line`, without its newline.
  std::string_view lineText(uint32_t line) const;

private:
  DiagnosticList &diags_;
  std::string fileName_;
  std::string_view source_;
  // Line starts, computed on the first error.
  mutable std::vector<size_t> lineStarts_;
};

// ---- Instructions ----------------------------------------------------------

struct ResolvedInstruction {
  Opcode opcode{};
  uint16_t form = 0;
  uint8_t numMods = 0;
  std::array<Mod, kMaxMods> mods{};
  /// Set by FunctionBuilder::resolve: the module's description for this
  /// spelling (UINT32_MAX when new) and the spelling itself.
  uint32_t desc = UINT32_MAX;
  std::string_view text;
};

/// Resolves `setp.lt.and.s32` into an opcode, its modifiers and the form
/// that accepts them. On failure returns false with `error` set and
/// `errorOffset` at the offending part of `dotted`.
bool resolveInstruction(std::string_view dotted, ResolvedInstruction &out, std::string &error,
                        size_t &errorOffset);

// ---- Functions -------------------------------------------------------------

/// Builds one function body: statements in order, registers in nested
/// scopes, operands in the pool, debug locations, and finally the CFG.
class FunctionBuilder {
public:
  FunctionBuilder(Module &module, Function &fn, ErrorReporter &errors);

  void openScope();
  /// False when there is no scope to close.
  bool closeScope();
  size_t scopeDepth() const { return scopes_.size(); }

  /// Declares `name` (a single register) or `name<count>` (a range).
  void declareRegisters(std::string_view name, Type type, uint8_t vectorWidth, uint32_t alignment,
                        uint32_t count, bool isRange, SourceLoc loc);
  /// The register currently visible under `name`, if any.
  std::optional<uint32_t> findRegister(std::string_view name) const;

  /// Resolves a name written as an operand: the sink `_`, a register in
  /// scope, a special register (`%tid`, `%envreg3`), or else a symbol.
  /// False with `error` set for a `%name` that is none of these.
  bool resolveName(std::string_view name, Operand &out, std::string &error) const;

  void addLabel(std::string_view name, SourceLoc loc);
  void addVariable(Variable v);
  void addPragma(std::vector<std::string> args);
  void addPrototype(Prototype p);
  void addTargetList(TargetList t);
  /// Sets the `.loc` attached to the instructions that follow.
  void setDebugLoc(const DebugLoc &loc);

  /// resolveInstruction, remembering per module which description each
  /// spelling gave: a module repeats a few hundred spellings millions of
  /// times. `dotted` must stay valid until addInstruction.
  bool resolve(std::string_view dotted, ResolvedInstruction &out, std::string &error, size_t &errorOffset);

  /// Appends operands contiguously to the pool; returns the first index.
  uint32_t appendOperands(std::span<const Operand> ops);
  /// Adds an instruction whose operands were appended last by appendOperands.
  void addInstruction(const ResolvedInstruction &r, std::optional<std::pair<uint32_t, bool>> guard,
                      uint32_t firstOperand, uint32_t numOperands, SourceLoc loc);

  Name intern(std::string_view s) { return module_.names.intern(s); }

  /// Checks that scopes are closed and builds the CFG.
  void finish(SourceLoc endLoc);

private:
  struct Scope {
    std::unordered_map<std::string_view, uint32_t> singles; // name -> register
    std::unordered_map<std::string_view, uint32_t> ranges;  // prefix -> decl
  };
  Module &module_;
  Function &fn_;
  ErrorReporter &errors_;
  std::vector<Scope> scopes_;
  uint32_t currentDebugLoc_ = 0;
  // findRegister's cache of range prefixes; valid only while no single
  // register is visible and nothing was declared since.
  struct PrefixHit {
    std::string_view prefix;
    uint32_t decl = 0;
  };
  void forgetPrefixes();
  mutable std::array<PrefixHit, 4> prefixCache_{};
  mutable size_t prefixNext_ = 0;
  size_t singleCount_ = 0;
};

/// The address `[base]` for a register or symbol operand; false for any
/// other operand (the caller reports it).
bool addressOf(const Operand &base, Operand &out);

/// Whether a `.x`/`.b0`-style selector may follow this resolved name.
inline bool takesSelector(const Operand &op) {
  return op.kind == OperandKind::Register ||
         (op.kind == OperandKind::SpecialReg && static_cast<SpecialReg>(op.id) != SpecialReg::EnvReg);
}
/// After its selector was read: the error for a vector special register
/// written without a component (`%tid`), or an empty string.
std::string missingComponentError(const Operand &op, std::string_view name);

/// The operand-shape matcher the builder (choosing among forms) and the
/// verifier (explaining a mismatch) share: whether `op` has the shape
/// `spec` asks for, negation included. `vectorised`: the instruction carries
/// .v2/.v4/.v8.
bool operandFits(const OperandSpec &spec, const Operand &op, bool vectorised);
/// What a shape accepts, for messages: "a register", "a label", ...
std::string_view shapeDescription(OperandShape shape);

/// Whether `ops` have the count and shapes `form` asks for (types are the
/// verifier's business). `vectorised`: the instruction carries .v2/.v4/.v8.
bool operandsFit(const Form &form, const Function &fn, std::span<const Operand> ops, bool vectorised);

/// The statement text both front ends keep verbatim for `.section` blocks.
std::string_view trimSectionText(std::string_view inner);

} // namespace ptx
