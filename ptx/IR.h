// The PTX IR: one ptx::Module is the currency between every stage of ptxvm.
// Both front ends fill it, the writer prints it, and later stages read it
// without ever re-parsing text. Instructions carry typed opcodes and
// modifiers (see InstrTable.h); names are interned in the module.
#pragma once

#include "ptx/InstrTable.h"
#include "ptx/StableVector.h"
#include "ptx/Types.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptx {

/// A position in the PTX text, 1-based; line 0 means unknown.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
  bool operator==(const SourceLoc &) const = default;
};

/// Interned identifier. Id 0 is the empty name.
using Name = uint32_t;
constexpr Name kNoName = 0;

class NameTable {
public:
  NameTable() { intern(""); }
  Name intern(std::string_view s);
  std::string_view str(Name n) const { return strings_[n]; }
  /// Returns kNoName when `s` was never interned.
  Name find(std::string_view s) const;
  size_t size() const { return strings_.size(); }

private:
  // Stable addresses for the map's keys; readable while the module's lazily
  // parsed bodies add names (StableVector.h).
  StableVector<std::string> strings_;
  std::unordered_map<std::string_view, Name> index_;
};

/// A `.loc file line column[, function_name label[, inlined_at f l c]]`.
struct DebugLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  Name functionName = kNoName; // label of the inlined function's name string
  uint32_t inlinedFile = 0;    // 0: not inlined
  uint32_t inlinedLine = 0;
  uint32_t inlinedColumn = 0;
  bool operator==(const DebugLoc &) const = default;
};

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };

enum class IntFormat : uint8_t { Decimal, Hex, Octal, Binary };

enum class OperandKind : uint8_t {
  Register,    // id = register id; selector: component or byte/half selector
  SpecialReg,  // id = SpecialReg; selector: component; value: envreg index
  Int,         // value (two's complement bits), format, flags
  F32,         // value = IEEE bits, written 0fXXXXXXXX
  F64,         // value = IEEE bits, written 0dXXXXXXXXXXXXXXXX or as a decimal
  Symbol,      // id = Name (variable, function, label, prototype)
  Address,     // [base+offset]: base per `base`, id = register or Name, value = offset
  AddressList, // [a, b, ...]: children
  Vector,      // {a, b, ...}: children
  Pair,        // a|b: two children
  List,        // (a, b, ...): children (call arguments and results)
  Sink,        // _
};

enum class AddressBase : uint8_t { None, Register, Symbol };

/// Operand suffixes: `.x/.y/.z/.w` on special or vector registers, the video
/// byte/half selectors `.b0-.b3`, `.h0/.h1`, and the SIMD video masks
/// (`.b3210`, `.h10`), whose digits are packed in Operand::value (one nibble
/// each, first digit highest, count in bits 32 and up).
enum class Selector : uint8_t { None, X, Y, Z, W, B0, B1, B2, B3, H0, H1, ByteMask, HalfMask };
std::string_view spelling(Selector s);

namespace opflag {
enum : uint8_t {
  Negated = 1,         // !p
  UnsignedSuffix = 2,  // 10U
  NegativeLiteral = 4, // written with a leading minus
  DecimalFloat = 8,    // F64 written as a decimal literal
  Minus = 16,          // -%r: negated video source
  FormatShift = 5,     // bits 5-6: IntFormat of an Int literal
  FormatMask = 3 << FormatShift,
};
}

/// One operand in 16 bytes: a function holds millions of them.
struct Operand {
  int64_t value = 0; // immediate bits, address offset, video mask digits; children count of composites
  uint32_t id = 0;   // register id, special register, Name, or first child
  OperandKind kind = OperandKind::Sink;
  uint8_t flags = 0; // opflag bits
  Selector selector = Selector::None;
  AddressBase base = AddressBase::None;

  bool isImmediate() const {
    return kind == OperandKind::Int || kind == OperandKind::F32 || kind == OperandKind::F64;
  }
  bool isComposite() const {
    return kind == OperandKind::AddressList || kind == OperandKind::Vector || kind == OperandKind::Pair ||
           kind == OperandKind::List;
  }
  bool negated() const { return flags & opflag::Negated; }
  /// Number of children of a composite operand (vector, list, pair).
  uint32_t count() const { return isComposite() ? static_cast<uint32_t>(value) : 0; }
  void setCount(uint32_t n) { value = n; }
  IntFormat format() const {
    return static_cast<IntFormat>((flags & opflag::FormatMask) >> opflag::FormatShift);
  }
  void setFormat(IntFormat f) {
    flags = static_cast<uint8_t>((flags & ~opflag::FormatMask) |
                                 (static_cast<unsigned>(f) << opflag::FormatShift));
  }
};
static_assert(sizeof(Operand) == 16, "operands are many: keep them small");

/// Most modifiers any PTX 9.0 instruction carries.
constexpr size_t kMaxMods = 16;

/// What an instruction is, apart from its operands: the opcode, the table
/// form it matched, and its modifiers as written. A module keeps each
/// distinct one once (Module::descs), so instructions stay small and later
/// stages decode each kind of instruction once.
struct InstrDesc {
  Opcode opcode{};
  uint16_t form = 0; // InstrTable form id
  uint8_t numMods = 0;
  std::array<Mod, kMaxMods> mods{};

  std::span<const Mod> modifiers() const { return {mods.data(), numMods}; }
  bool has(Mod m) const;
  /// The n-th type modifier as written (cvt.f32.s32: type(0) = f32).
  Type type(unsigned n = 0) const;
  /// The last type modifier: the type most instructions operate on.
  Type lastType() const;
  /// The first modifier of the given kind, or Mod::None.
  Mod firstOfKind(ModKind k) const;
  bool operator==(const InstrDesc &o) const {
    return opcode == o.opcode && form == o.form && numMods == o.numMods &&
           std::equal(mods.begin(), mods.begin() + numMods, o.mods.begin());
  }
};

struct Instruction {
  Opcode opcode{};           // = desc's, kept here for the most common question
  uint16_t form = 0;         // = desc's
  uint32_t desc = 0;         // into Module::descs
  uint32_t guard = 0;        // predicate register id, when hasGuard
  uint32_t firstOperand = 0; // into Function::operands
  uint16_t numOperands = 0;
  bool hasGuard = false;
  bool guardNegated = false;
  uint32_t debugLoc = 0; // into Function::debugLocs; 0 = none
  SourceLoc loc;
};
static_assert(sizeof(Instruction) == 32, "instructions are many: keep them small");

struct RegisterDecl {
  Name name; // the prefix for ranges: `%r` of `%r<100>`
  Type type = Type::None;
  uint8_t vectorWidth = 0; // .v2/.v4 registers
  uint32_t alignment = 0;
  uint32_t count = 0;         // `<count>` of a range; 0 for a single register
  uint32_t firstRegister = 0; // register ids firstRegister .. +max(count,1)-1
  SourceLoc loc;
};

/// One element of a variable initializer, flattened in pre-order.
struct InitItem {
  enum Kind : uint8_t { List, Int, F32, F64, Address } kind = Int;
  uint8_t flags = 0; // opflag bits for literals; 1 = generic() for Address
  IntFormat format = IntFormat::Decimal;
  Name symbol = kNoName; // Address: the symbol
  uint32_t count = 0;    // List: number of direct children
  int64_t value = 0;     // literal bits, or Address offset
  bool operator==(const InitItem &) const = default;
};

enum class VarAttr : uint8_t { None = 0, Ptr = 1, Const = 2, Unified = 4 };

/// A variable, parameter or return value.
struct Variable {
  Name name = kNoName;
  Mod space = Mod::None; // Global, Shared, Const, Local, Param, Reg, Tex
  Linkage linkage = Linkage::None;
  Type type = Type::None;
  uint8_t vectorWidth = 0;
  uint8_t attrs = 0;          // VarAttr bits (.ptr)
  Mod ptrSpace = Mod::None;   // .ptr.global etc.
  uint32_t alignment = 0;     // .align N; 0 = absent
  uint32_t ptrAlignment = 0;  // .ptr .align N
  std::vector<uint64_t> dims; // array dimensions; 0 = unsized `[]`
  std::vector<InitItem> init; // empty: no initializer
  /// Opaque-typed globals (.samplerref) may have a `{ field = value, ... }`
  /// initializer; kept as written, name/value pairs.
  std::vector<std::pair<Name, Name>> fieldInit;
  SourceLoc loc;
};

/// Performance tuning and cluster directives on a function.
enum class DirectiveKind : uint8_t {
  MaxNTid,
  ReqNTid,
  MinNCtaPerSm,
  MaxNCtaPerSm,
  MaxNReg,
  ReqNCtaPerCluster,
  ExplicitCluster,
  MaxClusterRank,
  BlocksAreClusters,
  Pragma,
  Abi
};
std::string_view spelling(DirectiveKind k);

struct FunctionDirective {
  DirectiveKind kind;
  std::vector<uint32_t> values;
  std::vector<std::string> strings; // .pragma arguments
  bool operator==(const FunctionDirective &) const = default;
};

struct Label {
  Name name = kNoName;
  SourceLoc loc;
};

/// `name: .callprototype (.param ...) _ (.param ...);`
struct Prototype {
  Name name = kNoName;
  std::vector<Variable> returns;
  std::vector<Variable> params;
  bool noReturn = false;
  SourceLoc loc;
};

/// `name: .branchtargets L1, L2;` or `name: .calltargets f, g;`
struct TargetList {
  Name name = kNoName;
  bool calls = false;
  std::vector<Name> targets;
  SourceLoc loc;
};

enum class StmtKind : uint8_t {
  Instruction,
  Label,
  RegDecl,
  Variable,
  ScopeBegin,
  ScopeEnd,
  Pragma,
  Prototype,
  TargetList,
  DebugLoc
};

/// The body of a function in written order; `index` points into the
/// function's table for the statement's kind. Consecutive instructions are
/// stored as one run (`count` of them from `index`); Function::statements()
/// walks the body with runs expanded, one statement per instruction.
struct Stmt {
  StmtKind kind;
  uint16_t count = 1;
  uint32_t index = 0;
};

/// Iterates a body with instruction runs expanded.
class StmtRange {
public:
  class iterator {
  public:
    iterator(const Stmt *p, uint32_t offset) : p_(p), offset_(offset) {}
    Stmt operator*() const { return {p_->kind, 1, p_->index + offset_}; }
    iterator &operator++() {
      if (++offset_ >= p_->count) {
        ++p_;
        offset_ = 0;
      }
      return *this;
    }
    bool operator==(const iterator &o) const { return p_ == o.p_ && offset_ == o.offset_; }

  private:
    const Stmt *p_;
    uint32_t offset_;
  };
  StmtRange(const Stmt *begin, const Stmt *end) : begin_(begin), end_(end) {}
  iterator begin() const { return {begin_, 0}; }
  iterator end() const { return {end_, 0}; }

private:
  const Stmt *begin_, *end_;
};

struct BasicBlock {
  uint32_t label = UINT32_MAX; // into Function::labels; UINT32_MAX when unlabelled
  uint32_t firstInstr = 0;     // into Function::instrs
  uint32_t numInstrs = 0;
  // Edges live in Function::edges: [succBegin, succBegin+numSuccs) and
  // [predBegin, predBegin+numPreds). Read them with Function::succs/preds.
  uint32_t succBegin = 0, numSuccs = 0;
  uint32_t predBegin = 0, numPreds = 0;
};

struct Function {
  Name name = kNoName;
  bool isKernel = false;
  bool noReturn = false;
  bool hasBody = false; // false for declarations (`.extern .func f(...);`)
  Linkage linkage = Linkage::None;
  std::vector<Variable> returns;
  std::vector<Variable> params;
  std::vector<FunctionDirective> directives;
  SourceLoc loc;

  // Body, filled by the front end (on first use when the module is lazy).
  bool bodyParsed = false;
  size_t bodyOffset = 0, bodyLength = 0; // byte range of `{...}` in Module::source
  SourceLoc bodyLoc;
  std::vector<Stmt> body;
  std::vector<Instruction> instrs;
  std::vector<Operand> operands;
  std::vector<RegisterDecl> regDecls; // ordered by firstRegister
  uint32_t numRegisters = 0;          // ids are dense: 0 .. numRegisters-1
  std::vector<Variable> locals;
  std::vector<Label> labels;
  std::vector<DebugLoc> debugLocs{DebugLoc{}};
  std::vector<Prototype> prototypes;
  std::vector<TargetList> targetLists;
  std::vector<std::vector<std::string>> pragmas;
  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> edges;

  /// The body in written order, one statement per instruction.
  StmtRange statements() const { return {body.data(), body.data() + body.size()}; }
  std::span<const uint32_t> succs(const BasicBlock &b) const {
    return {edges.data() + b.succBegin, b.numSuccs};
  }
  std::span<const uint32_t> preds(const BasicBlock &b) const {
    return {edges.data() + b.predBegin, b.numPreds};
  }

  std::span<const Operand> operandsOf(const Instruction &i) const {
    return {operands.data() + i.firstOperand, i.numOperands};
  }
  std::span<const Operand> children(const Operand &o) const { return {operands.data() + o.id, o.count()}; }
  /// The declaration of register `reg` (ranges are not expanded: a range
  /// `%r<100000>` costs one RegisterDecl).
  const RegisterDecl &declOf(uint32_t reg) const;
  Type registerType(uint32_t reg) const { return declOf(reg).type; }
};

struct FileEntry {
  uint32_t index = 0;
  std::string path;
  bool hasTimestamp = false;
  uint64_t timestamp = 0, size = 0;
  bool operator==(const FileEntry &) const = default;
};

/// A `.section` block, kept as written (DWARF produced by nvcc -G/-lineinfo).
struct Section {
  std::string name;
  std::string text; // everything between the braces
  SourceLoc loc;
};

enum class TopLevelKind : uint8_t { Function, Variable, File, Section, Pragma, Alias };

struct TopLevel {
  TopLevelKind kind;
  uint32_t index;
};

struct Module {
  std::string fileName;
  uint32_t versionMajor = 0, versionMinor = 0;
  std::vector<std::string> targets; // sm_90a, texmode_independent, debug
  uint32_t addressSize = 0;         // 0: directive absent
  SourceLoc versionLoc;

  std::vector<TopLevel> order;
  std::vector<Function> functions;
  std::vector<Variable> globals;
  std::vector<FileEntry> files;
  std::vector<Section> sections;
  std::vector<std::vector<std::string>> pragmas;
  std::vector<std::pair<Name, Name>> aliases;
  NameTable names;
  /// Every distinct instruction description, shared by all functions;
  /// readable while lazily parsed bodies add more (StableVector.h).
  StableVector<InstrDesc> descs;
  const InstrDesc &desc(const Instruction &in) const { return descs[in.desc]; }
  /// The index of `d` in `descs`, adding it when new.
  uint32_t internDesc(const InstrDesc &d);
  /// The front ends' memory of which description a spelling (`add.s32`)
  /// resolved to; UINT32_MAX when not seen yet.
  uint32_t findDescBySpelling(std::string_view s) const;
  void rememberDescSpelling(std::string_view s, uint32_t desc);

  struct DescHash {
    size_t operator()(const InstrDesc &d) const;
  };
  std::unordered_map<InstrDesc, uint32_t, DescHash> descIndex_;
  struct SpellingHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, uint32_t, SpellingHash, std::equal_to<>> descBySpelling_;

  /// The text the module was parsed from, kept for lazily parsed bodies and
  /// for diagnostics that quote a line.
  std::shared_ptr<const std::string> source;

  unsigned ptxVersion() const { return versionMajor * 10 + versionMinor; }
  /// The sm number of the first `sm_XX` target, 0 when none.
  unsigned smVersion() const;
  std::string_view str(Name n) const { return names.str(n); }
  /// The function named `name`: its definition when the module has one (a
  /// prototype may come first), else its declaration; null when none.
  Function *findFunction(std::string_view name);
  const Function *findFunction(std::string_view name) const;
};

/// Name of a register as written: `%r12` for element 12 of `%r<100>`.
std::string registerName(const Module &m, const Function &f, uint32_t reg);

} // namespace ptx
