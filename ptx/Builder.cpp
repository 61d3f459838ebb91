#include "ptx/Builder.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace ptx {

// ---- Errors ----------------------------------------------------------------

std::string_view ErrorReporter::lineText(uint32_t line) const {
  if (lineStarts_.empty()) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < source_.size(); ++i)
      if (source_[i] == '\n') lineStarts_.push_back(i + 1);
  }
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t begin = lineStarts_[line - 1];
  size_t end = source_.find('\n', begin);
  if (end == std::string_view::npos) end = source_.size();
  if (end > begin && source_[end - 1] == '\r') --end;
  return source_.substr(begin, std::min<size_t>(end - begin, 400));
}

void ErrorReporter::error(SourceLoc loc, std::string message, DiagKind kind) {
  Diagnostic d;
  d.kind = kind;
  d.severity = Severity::Error;
  d.message = std::move(message);
  d.loc.file = fileName_;
  d.loc.line = loc.line;
  d.loc.column = loc.column;
  d.sourceLine = std::string(lineText(loc.line));
  diags_.add(std::move(d));
}

// ---- Instructions ----------------------------------------------------------

namespace {

bool resolveWithOpcode(std::string_view dotted, size_t prefix, Opcode op, ResolvedInstruction &out,
                       std::string &error, size_t &errorOffset) {
  const InstrTable &table = InstrTable::get();
  out = {};
  out.opcode = op;
  size_t pos = prefix;
  while (pos < dotted.size()) {
    // dotted[pos] is '.'
    size_t next = dotted.find('.', pos + 1);
    if (next == std::string_view::npos) next = dotted.size();
    std::string_view word = dotted.substr(pos + 1, next - pos - 1);
    auto mod = modFromSpelling(word);
    if (!mod) {
      error = "unknown modifier '." + std::string(word) + "' on '" + std::string(table.info(op).name) + "'";
      errorOffset = pos;
      return false;
    }
    if (!table.acceptedMods(op).test(static_cast<size_t>(*mod))) {
      error =
          "modifier '." + std::string(word) + "' is not valid for '" + std::string(table.info(op).name) + "'";
      errorOffset = pos;
      return false;
    }
    if (out.numMods == kMaxMods) {
      error = "too many modifiers";
      errorOffset = pos;
      return false;
    }
    out.mods[out.numMods++] = *mod;
    pos = next;
  }
  int form = table.match(op, {out.mods.data(), out.numMods});
  if (form < 0) {
    error = "'" + std::string(dotted) + "' matches no form of '" + std::string(table.info(op).name) +
            "'; forms are:";
    size_t shown = 0;
    for (uint16_t id : table.info(op).forms) {
      if (shown++ == 8) {
        error += "\n    ...";
        break;
      }
      error += "\n    " + std::string(table.form(id).notation);
    }
    errorOffset = 0;
    return false;
  }
  out.form = static_cast<uint16_t>(form);
  return true;
}

} // namespace

namespace {

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

/// Resolutions already made on this thread: a module spells the same few
/// hundred instructions over and over.
struct ResolveCache {
  static constexpr size_t kMaxEntries = 1 << 14;
  std::unordered_map<std::string, ResolvedInstruction, TransparentHash, std::equal_to<>> entries;
};

} // namespace

static bool resolveUncached(std::string_view dotted, ResolvedInstruction &out, std::string &error,
                            size_t &errorOffset);

bool resolveInstruction(std::string_view dotted, ResolvedInstruction &out, std::string &error,
                        size_t &errorOffset) {
  thread_local ResolveCache cache;
  auto it = cache.entries.find(dotted);
  if (it != cache.entries.end()) {
    out = it->second;
    return true;
  }
  if (!resolveUncached(dotted, out, error, errorOffset)) return false;
  if (cache.entries.size() >= ResolveCache::kMaxEntries) cache.entries.clear();
  cache.entries.emplace(std::string(dotted), out);
  return true;
}

static bool resolveUncached(std::string_view dotted, ResolvedInstruction &out, std::string &error,
                            size_t &errorOffset) {
  const InstrTable &table = InstrTable::get();
  // Longest opcode name first; fall back to shorter names so that a modifier
  // which happens to continue an opcode name is still read as a modifier.
  size_t len = dotted.size();
  std::string firstError;
  size_t firstOffset = 0;
  bool found = false;
  while (len > 0) {
    Opcode op;
    if (table.lookup(dotted.substr(0, len), op)) {
      std::string e;
      size_t off = 0;
      if (resolveWithOpcode(dotted, len, op, out, e, off)) return true;
      if (!found) {
        firstError = std::move(e);
        firstOffset = off;
        found = true;
      }
    }
    size_t dot = dotted.rfind('.', len - 1);
    if (dot == std::string_view::npos || dot == 0) break;
    len = dot;
  }
  if (!found) {
    size_t dot = dotted.find('.');
    error = "unknown instruction '" + std::string(dotted.substr(0, dot)) + "'";
    errorOffset = 0;
    return false;
  }
  error = std::move(firstError);
  errorOffset = firstOffset;
  return false;
}

// ---- Functions -------------------------------------------------------------

namespace {
// Far beyond what nvcc emits (tens of thousands), and small enough that the
// analyses' per-register sets and the emulator's register files of a function
// stay allocatable: a declaration past it is an error, not an abort.
constexpr uint64_t kMaxRegistersPerFunction = 1u << 20;
} // namespace

FunctionBuilder::FunctionBuilder(Module &module, Function &fn, ErrorReporter &errors)
    : module_(module), fn_(fn), errors_(errors) {
  scopes_.emplace_back();
  // Old-style `.reg` parameters are registers of the body.
  auto declareParams = [&](const std::vector<Variable> &vars) {
    for (const Variable &v : vars) {
      if (v.space != Mod::Reg) continue;
      RegisterDecl d;
      d.name = v.name;
      d.type = v.type;
      d.vectorWidth = v.vectorWidth;
      d.firstRegister = fn_.numRegisters++;
      d.loc = v.loc;
      scopes_.back().singles.emplace(module_.str(v.name), d.firstRegister);
      ++singleCount_;
      fn_.regDecls.push_back(d);
    }
  };
  declareParams(fn.returns);
  declareParams(fn.params);
}

void FunctionBuilder::forgetPrefixes() { prefixCache_.fill({}); }

void FunctionBuilder::openScope() {
  forgetPrefixes();
  scopes_.emplace_back();
  fn_.body.push_back({StmtKind::ScopeBegin, 1, 0});
}

bool FunctionBuilder::closeScope() {
  if (scopes_.size() <= 1) return false;
  forgetPrefixes();
  for (auto &entry : scopes_.back().singles) (void)entry, --singleCount_;
  scopes_.pop_back();
  fn_.body.push_back({StmtKind::ScopeEnd, 1, 0});
  return true;
}

void FunctionBuilder::declareRegisters(std::string_view name, Type type, uint8_t vectorWidth,
                                       uint32_t alignment, uint32_t count, bool isRange, SourceLoc loc) {
  Scope &scope = scopes_.back();
  Name interned = intern(name);
  std::string_view key = module_.str(interned);
  if (isRange ? scope.ranges.count(key) : scope.singles.count(key)) {
    errors_.error(loc, "register '" + std::string(name) + (isRange ? "<>" : "") +
                           "' is already declared in this scope");
    return;
  }
  uint64_t n = isRange ? count : 1;
  if (fn_.numRegisters + n > kMaxRegistersPerFunction) {
    errors_.error(loc, "too many registers in one function (" + std::to_string(fn_.numRegisters + n) +
                           "; ptxvm takes up to " + std::to_string(kMaxRegistersPerFunction) + ")");
    return;
  }
  forgetPrefixes();
  if (!isRange) ++singleCount_;
  RegisterDecl d;
  d.name = interned;
  d.type = type;
  d.vectorWidth = vectorWidth;
  d.alignment = alignment;
  d.count = isRange ? count : 0;
  d.firstRegister = fn_.numRegisters;
  d.loc = loc;
  fn_.numRegisters += static_cast<uint32_t>(n);
  if (isRange)
    scope.ranges.emplace(key, static_cast<uint32_t>(fn_.regDecls.size()));
  else
    scope.singles.emplace(key, d.firstRegister);
  fn_.body.push_back({StmtKind::RegDecl, 1, static_cast<uint32_t>(fn_.regDecls.size())});
  fn_.regDecls.push_back(d);
}

std::optional<uint32_t> FunctionBuilder::findRegister(std::string_view name) const {
  // A range member is written prefix + decimal index without leading zeros.
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  bool canBeRange = digits < name.size() && digits > 0 &&
                    (name[digits] != '0' || digits + 1 == name.size()) && name.size() - digits <= 9;
  // Fast path: nvcc names nearly every register %r12, %rd3, %f7 from ranges
  // declared at the top, and no single register shadows them. Remember the
  // last few prefixes looked up (forgotten whenever declarations change).
  if (canBeRange && singleCount_ == 0) {
    std::string_view prefix = name.substr(0, digits);
    for (const PrefixHit &hit : prefixCache_) {
      if (hit.prefix != prefix) continue;
      uint32_t index = 0;
      for (size_t i = digits; i < name.size(); ++i) index = index * 10 + (name[i] - '0');
      const RegisterDecl &d = fn_.regDecls[hit.decl];
      if (index < d.count) return d.firstRegister + index;
      break;
    }
  }
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (!it->singles.empty()) {
      auto single = it->singles.find(name);
      if (single != it->singles.end()) return single->second;
    }
    if (canBeRange) {
      auto range = it->ranges.find(name.substr(0, digits));
      if (range != it->ranges.end()) {
        uint32_t index = 0;
        for (size_t i = digits; i < name.size(); ++i) index = index * 10 + (name[i] - '0');
        const RegisterDecl &d = fn_.regDecls[range->second];
        if (singleCount_ == 0 && it == scopes_.rbegin() + 0 && scopes_.size() == 1) {
          prefixCache_[prefixNext_] = {module_.str(d.name), range->second};
          prefixNext_ = (prefixNext_ + 1) % prefixCache_.size();
        }
        if (index < d.count) return d.firstRegister + index;
      }
    }
  }
  return std::nullopt;
}

bool FunctionBuilder::resolveName(std::string_view name, Operand &out, std::string &error) const {
  out = Operand{};
  if (name == "_") {
    out.kind = OperandKind::Sink;
    return true;
  }
  if (auto reg = findRegister(name)) {
    out.kind = OperandKind::Register;
    out.id = *reg;
    return true;
  }
  if (name == "WARP_SZ") {
    // PTX's predefined constant for the threads of a warp (CUDA's warpSize):
    // an immediate, so that every stage reads 32 without a symbol to resolve.
    out.kind = OperandKind::Int;
    out.value = 32;
    return true;
  }
  if (name[0] != '%') {
    out.kind = OperandKind::Symbol;
    out.id = module_.names.intern(name);
    return true;
  }
  std::string_view bare = name.substr(1);
  if (auto sreg = specialRegFromName(bare)) {
    out.kind = OperandKind::SpecialReg;
    out.id = static_cast<uint32_t>(*sreg);
    return true;
  }
  // %envreg0 .. %envreg31, written without leading zeros.
  uint64_t index;
  if (bare.starts_with("envreg") && bare.size() > 6 && bare.size() <= 8 &&
      readUnsigned(bare.substr(6), index) && index < 32 && (bare[6] != '0' || bare.size() == 7)) {
    out.kind = OperandKind::SpecialReg;
    out.id = static_cast<uint32_t>(SpecialReg::EnvReg);
    out.value = static_cast<int64_t>(index);
    return true;
  }
  error = "unknown register '" + std::string(name) + "'";
  return false;
}

bool addressOf(const Operand &base, Operand &out) {
  out = Operand{};
  out.kind = OperandKind::Address;
  out.id = base.id;
  if (base.kind == OperandKind::Register) {
    out.base = AddressBase::Register;
    out.selector = base.selector;
    return true;
  }
  if (base.kind == OperandKind::Symbol) {
    out.base = AddressBase::Symbol;
    return true;
  }
  return false;
}

std::string missingComponentError(const Operand &op, std::string_view name) {
  if (op.kind == OperandKind::SpecialReg && op.selector == Selector::None &&
      hasComponents(static_cast<SpecialReg>(op.id)))
    return "special register '" + std::string(name) + "' needs a component (.x, .y or .z)";
  return {};
}

void FunctionBuilder::addLabel(std::string_view name, SourceLoc loc) {
  fn_.body.push_back({StmtKind::Label, 1, static_cast<uint32_t>(fn_.labels.size())});
  fn_.labels.push_back({intern(name), loc});
}

void FunctionBuilder::addVariable(Variable v) {
  fn_.body.push_back({StmtKind::Variable, 1, static_cast<uint32_t>(fn_.locals.size())});
  fn_.locals.push_back(std::move(v));
}

void FunctionBuilder::addPragma(std::vector<std::string> args) {
  fn_.body.push_back({StmtKind::Pragma, 1, static_cast<uint32_t>(fn_.pragmas.size())});
  fn_.pragmas.push_back(std::move(args));
}

void FunctionBuilder::addPrototype(Prototype p) {
  fn_.body.push_back({StmtKind::Prototype, 1, static_cast<uint32_t>(fn_.prototypes.size())});
  fn_.prototypes.push_back(std::move(p));
}

void FunctionBuilder::addTargetList(TargetList t) {
  fn_.body.push_back({StmtKind::TargetList, 1, static_cast<uint32_t>(fn_.targetLists.size())});
  fn_.targetLists.push_back(std::move(t));
}

void FunctionBuilder::setDebugLoc(const DebugLoc &loc) {
  // Every `.loc` stays a statement: ptxas requires the location an
  // `inlined_at` names to appear in an earlier `.loc`, even one no
  // instruction follows.
  currentDebugLoc_ = static_cast<uint32_t>(fn_.debugLocs.size());
  fn_.body.push_back({StmtKind::DebugLoc, 1, currentDebugLoc_});
  fn_.debugLocs.push_back(loc);
}

bool FunctionBuilder::resolve(std::string_view dotted, ResolvedInstruction &out, std::string &error,
                              size_t &errorOffset) {
  if (uint32_t id = module_.findDescBySpelling(dotted); id != UINT32_MAX) {
    const InstrDesc &d = module_.descs[id];
    out.opcode = d.opcode;
    out.form = d.form;
    out.numMods = d.numMods;
    out.mods = d.mods;
    out.desc = id;
    out.text = dotted;
    return true;
  }
  if (!resolveInstruction(dotted, out, error, errorOffset)) return false;
  out.desc = UINT32_MAX;
  out.text = dotted;
  return true;
}

uint32_t FunctionBuilder::appendOperands(std::span<const Operand> ops) {
  uint32_t first = static_cast<uint32_t>(fn_.operands.size());
  fn_.operands.insert(fn_.operands.end(), ops.begin(), ops.end());
  return first;
}

bool operandFits(const OperandSpec &spec, const Operand &op, bool vectorised) {
  if (op.negated() && !spec.negatable) return false;
  // A brace vector stands for a register only in a .v2/.v4/.v8 instruction,
  // or as a one-element list (`suld.b.2d.b32 {%r1}, ...`, as nvcc writes).
  const bool vectorFits = op.kind == OperandKind::Vector && (vectorised || op.count() == 1);
  switch (spec.shape) {
  case OperandShape::Dest:
    return op.kind == OperandKind::Register || op.kind == OperandKind::Sink || vectorFits;
  case OperandShape::Source:
    return op.kind != OperandKind::Address && op.kind != OperandKind::AddressList &&
           op.kind != OperandKind::List && op.kind != OperandKind::Pair &&
           (op.kind != OperandKind::Vector || vectorFits);
  case OperandShape::SourceReg: return op.kind == OperandKind::Register || op.kind == OperandKind::SpecialReg;
  case OperandShape::Imm: return op.isImmediate();
  // No special register is a predicate.
  case OperandShape::Pred:
    return op.kind == OperandKind::Register || op.kind == OperandKind::Sink || op.isImmediate();
  case OperandShape::Address: return op.kind == OperandKind::Address || op.kind == OperandKind::AddressList;
  case OperandShape::Label: return op.kind == OperandKind::Symbol; // a label never lives in a register
  case OperandShape::Symbol:
  case OperandShape::Function: return op.kind == OperandKind::Symbol || op.kind == OperandKind::Register;
  case OperandShape::RegVector: return op.kind == OperandKind::Vector || op.kind == OperandKind::Register;
  case OperandShape::ParamList: return op.kind == OperandKind::List;
  case OperandShape::Rest: return true;
  }
  return false;
}

std::string_view shapeDescription(OperandShape shape) {
  switch (shape) {
  case OperandShape::Dest:
  case OperandShape::SourceReg: return "a register";
  case OperandShape::Source: return "a register or an immediate";
  case OperandShape::Imm: return "an immediate";
  case OperandShape::Pred: return "a predicate";
  case OperandShape::Address: return "an address [..]";
  case OperandShape::Label: return "a label";
  case OperandShape::Function: return "a function or a register holding its address";
  case OperandShape::Symbol: return "a symbol";
  case OperandShape::RegVector: return "a vector {..}";
  case OperandShape::ParamList: return "a parenthesised list (..)";
  case OperandShape::Rest: return "an operand";
  }
  return "an operand";
}

bool operandsFit(const Form &form, const Function &fn, std::span<const Operand> ops, bool vectorised) {
  size_t i = 0;
  for (size_t s = 0; s < form.operands.size(); ++s) {
    const OperandSpec &spec = form.operands[s];
    if (spec.shape == OperandShape::Rest) return true;
    if (spec.pairedWithPrevious) continue;
    bool pairSpec = s + 1 < form.operands.size() && form.operands[s + 1].pairedWithPrevious;
    if (i == ops.size()) return spec.optional;
    const Operand &op = ops[i++];
    if (op.kind == OperandKind::Pair) {
      if (!pairSpec) return false;
      auto kids = fn.children(op);
      if (!operandFits(spec, kids[0], vectorised) || !operandFits(form.operands[s + 1], kids[1], vectorised))
        return false;
    } else {
      if (pairSpec && !form.operands[s + 1].optional) return false;
      if (!operandFits(spec, op, vectorised)) return false;
    }
  }
  return i == ops.size();
}

void FunctionBuilder::addInstruction(const ResolvedInstruction &r,
                                     std::optional<std::pair<uint32_t, bool>> guard, uint32_t firstOperand,
                                     uint32_t numOperands, SourceLoc loc) {
  InstrDesc desc;
  desc.opcode = r.opcode;
  desc.form = r.form;
  desc.numMods = r.numMods;
  desc.mods = r.mods;
  bool refined = false;
  // Several forms may accept the same modifiers (mov's pack/unpack forms):
  // the operands decide. Without a fitting form keep the first, for the
  // verifier to explain.
  const InstrTable &table = InstrTable::get();
  std::span<const Mod> mods(r.mods.data(), r.numMods);
  std::span<const Operand> ops(fn_.operands.data() + firstOperand, numOperands);
  bool vectorised = false;
  for (Mod m : mods) vectorised |= m == Mod::V2 || m == Mod::V4 || m == Mod::V8;
  if (!operandsFit(table.form(r.form), fn_, ops, vectorised)) {
    for (uint16_t id : table.info(r.opcode).forms) {
      if (id != r.form && table.matches(id, mods) && operandsFit(table.form(id), fn_, ops, vectorised)) {
        desc.form = id;
        refined = true;
        break;
      }
    }
  }
  if (numOperands > UINT16_MAX) {
    errors_.error(loc, "too many operands");
    return;
  }
  Instruction in;
  in.opcode = desc.opcode;
  in.form = desc.form;
  if (!refined && r.desc != UINT32_MAX) {
    in.desc = r.desc;
  } else {
    in.desc = module_.internDesc(desc);
    if (!refined && !r.text.empty()) module_.rememberDescSpelling(r.text, in.desc);
  }
  if (guard) {
    in.hasGuard = true;
    in.guard = guard->first;
    in.guardNegated = guard->second;
  }
  in.firstOperand = firstOperand;
  in.numOperands = static_cast<uint16_t>(numOperands);
  in.debugLoc = currentDebugLoc_;
  in.loc = loc;
  uint32_t index = static_cast<uint32_t>(fn_.instrs.size());
  if (!fn_.body.empty() && fn_.body.back().kind == StmtKind::Instruction &&
      fn_.body.back().count < UINT16_MAX)
    ++fn_.body.back().count;
  else
    fn_.body.push_back({StmtKind::Instruction, 1, index});
  fn_.instrs.push_back(in);
}

void FunctionBuilder::finish(SourceLoc endLoc) {
  if (scopes_.size() > 1) errors_.error(endLoc, "missing '}': a nested scope is still open");
  fn_.bodyParsed = true;
  buildCFG(fn_);
}

std::string_view trimSectionText(std::string_view inner) {
  size_t begin = 0, end = inner.size();
  while (begin < end &&
         (inner[begin] == ' ' || inner[begin] == '\t' || inner[begin] == '\n' || inner[begin] == '\r'))
    ++begin;
  while (end > begin && (inner[end - 1] == ' ' || inner[end - 1] == '\t' || inner[end - 1] == '\n' ||
                         inner[end - 1] == '\r'))
    --end;
  return inner.substr(begin, end - begin);
}

} // namespace ptx
