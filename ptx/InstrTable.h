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
};
} // namespace iflag

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
  uint32_t flags = 0;
  std::vector<uint16_t> forms;
};

class InstrTable {
public:
  /// The table, built from the .def files on first use.
  static const InstrTable &get();

  const OpcodeInfo &info(Opcode op) const { return opcodes_[static_cast<size_t>(op)]; }
  const Form &form(uint16_t id) const { return forms_[id]; }
  std::span<const Form> forms() const { return forms_; }
  bool has(Opcode op, uint32_t flag) const { return (info(op).flags & flag) != 0; }

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
