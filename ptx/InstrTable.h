// The instruction table: every PTX instruction form, written in a notation
// close to the PTX ISA's own (see table/README.md). The parsers, the verifier,
// the writer and the emulator's decoder all read it.
#pragma once

#include "ptx/Types.h"

#include <bitset>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptx {

enum class Opcode : uint16_t {
#define INSTR(Id, Name, Flags) Id,
#include "ptx/table/All.def"
  NumOpcodes
};
constexpr unsigned kNumOpcodes = static_cast<unsigned>(Opcode::NumOpcodes);

/// Properties of an opcode that passes ask of the table instead of switching
/// on opcodes themselves.
namespace iflag {
enum : uint32_t {
  None = 0,
  Branch = 1u << 0,     // transfers control to a label operand
  Terminator = 1u << 1, // ends a basic block (branch, ret, exit, trap)
  Call = 1u << 2,
  Return = 1u << 3,
  Exit = 1u << 4,
  Barrier = 1u << 5,  // CTA-level barrier
  WarpSync = 1u << 6, // warp-level synchronising primitive
  Load = 1u << 7,
  Store = 1u << 8,
  Atomic = 1u << 9,
  Divergent = 1u << 10, // result always varies across threads
  Tensor = 1u << 11,    // tensor core (mma/wmma/wgmma/tcgen05)
  Texture = 1u << 12,   // texture and surface access
  NoFallthrough = 1u << 13,
  CarryIn = 1u << 14,     // reads the carry flag (addc, subc, madc)
  CarryOut = 1u << 15,    // writes the carry flag (given by WHEN rows for .cc)
  WarpUniform = 1u << 16, // result is the same in every lane of a warp (vote, redux, bar.red)
  MemberMask = 1u << 17,  // the last operand is a warp member mask (the .sync collectives)
  ReadOnly = 1u << 18,    // loads memory that does not change during the kernel (ldu)
};
} // namespace iflag

/// What a CTA barrier instruction does (BARRIER rows of the table).
enum class BarrierKind : uint8_t {
  None,          // not a barrier
  Sync,          // arrive and wait
  Arrive,        // arrive without waiting
  Reduce,        // arrive, wait, and reduce a predicate or count over the participants
  ClusterArrive, // barrier.cluster.arrive
  ClusterWait,   // barrier.cluster.wait
};
/// Whether a barrier is .aligned (every thread of a warp must reach it
/// together).
enum class BarrierAlignment : uint8_t {
  Aligned,    // always (bar.* is barrier.*.aligned)
  IfModifier, // when written with .aligned
};

struct BarrierInfo {
  BarrierKind kind = BarrierKind::None;
  BarrierAlignment alignment = BarrierAlignment::IfModifier;
  uint8_t idOperand = 0; // the barrier id's operand; the thread count, when given, follows it
};

/// One `.modifier` position of a form: the spellings it accepts.
struct ModGroup {
  std::bitset<kNumMods> accepts;
  bool optional = false;
  bool isType = false; // every accepted spelling is a type
};

enum class OperandShape : uint8_t {
  Dest,      // d: register, vector when the form carries .v2/.v4/.v8, or sink _
  Source,    // a: register, immediate, symbol, or vector when vectorised
  SourceReg, // r: register only
  Imm,       // i: immediate only
  Pred,      // p: predicate register (written !p in the notation when negatable)
  Address,   // [a]: memory address
  Label,     // L: label
  Function,  // f: function symbol or register holding its address
  Symbol,    // s: a named symbol (texture, surface, sampler, variable)
  RegVector, // v: brace vector of any length
  ParamList, // (): parenthesised argument list of call
  Rest,      // *: any further operands
};

/// Where the verifier takes an operand's type from.
struct OperandType {
  enum Kind : uint8_t { Instruction, Group, Fixed, Any } kind = Instruction;
  uint8_t group = 0; // Group: index among the form's type modifiers
  Type fixed = Type::None;
};

struct OperandSpec {
  OperandShape shape = OperandShape::Source;
  bool optional = false;
  bool negatable = false;
  bool pairedWithPrevious = false; // second half of `d|p`
  OperandType type;
};

struct Form {
  Opcode opcode{};
  uint16_t id = 0;         // index into InstrTable::forms()
  uint16_t ptxVersion = 0; // 10 * major + minor
  uint16_t sm = 0;         // minimum sm_XX
  std::string_view notation;
  std::vector<ModGroup> groups;
  std::vector<OperandSpec> operands;
  size_t minOperands = 0;
};

struct OpcodeInfo {
  std::string_view name; // dotted, as written: "bar.sync", "cp.async.bulk"
  uint32_t flags = 0;    // the flags every form has
  std::vector<uint16_t> forms;
  /// WHEN rows: flags the instruction has when written with the modifier.
  std::vector<std::pair<Mod, uint32_t>> when;
  BarrierInfo barrier;
};

class InstrTable {
public:
  /// The table, built from the .def files on first use.
  static const InstrTable &get();

  const OpcodeInfo &info(Opcode op) const { return opcodes_[static_cast<size_t>(op)]; }
  const Form &form(uint16_t id) const { return forms_[id]; }
  std::span<const Form> forms() const { return forms_; }
  bool has(Opcode op, uint32_t flag) const { return (info(op).flags & flag) != 0; }
  /// The flags of an instruction written with `mods`: its opcode's, and
  /// those its WHEN rows add for the modifiers present.
  uint32_t flags(Opcode op, std::span<const Mod> mods) const;
  bool has(Opcode op, std::span<const Mod> mods, uint32_t flag) const {
    return (flags(op, mods) & flag) != 0;
  }
  const BarrierInfo &barrier(Opcode op) const { return info(op).barrier; }
  /// Whether a barrier written with `mods` is .aligned (false for other
  /// instructions).
  bool alignedBarrier(Opcode op, std::span<const Mod> mods) const;

  /// Finds the opcode named exactly `dottedName`.
  bool lookup(std::string_view dottedName, Opcode &out) const;
  /// Finds the opcode whose name is the longest prefix, in dot-separated
  /// words, of `text` (e.g. "bar.sync.aligned" -> bar.sync). Returns the
  /// length of the matched prefix, 0 when none matches.
  size_t lookupPrefix(std::string_view text, Opcode &out) const;
  /// The first form of `op` whose groups accept `mods` in the ISA's order,
  /// else the first that accepts them in another order (as ptxas does, type
  /// modifiers keeping their relative order); -1 if none.
  int match(Opcode op, std::span<const Mod> mods) const;
  /// Whether form `form` accepts `mods` (in either way).
  bool matches(uint16_t form, std::span<const Mod> mods) const;
  /// The modifiers that some form of `op` accepts at all.
  const std::bitset<kNumMods> &acceptedMods(Opcode op) const { return accepted_[static_cast<size_t>(op)]; }
  /// Mistakes in the table's notation, found when it was built (tested empty).
  const std::vector<std::string> &errors() const { return errors_; }

private:
  InstrTable();
  std::vector<OpcodeInfo> opcodes_;
  std::vector<Form> forms_;
  std::vector<std::bitset<kNumMods>> accepted_;
  std::vector<std::string> errors_;
  std::vector<std::pair<std::string_view, Opcode>> byName_; // sorted
};

} // namespace ptx
