// What each instruction reads and writes, as the dataflow analyses see it:
// registers by operand role (from the instruction table's forms), and the
// implicit variables PTX leaves unnamed: the carry flag of add.cc/addc, the
// .param variables that ld.param/st.param and call pass values through, and
// the places of local memory that LocalSlots finds (what -G builds keep
// every variable in).
#pragma once

#include "analysis/LocalSlots.h"
#include "ptx/IR.h"

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace analysis {

/// How an instruction reads a variable.
enum class UseRole : uint8_t {
  Source,  // a data operand
  Address, // the base register of a memory address
  Guard,   // the @p guard predicate
  Index,   // the index of brx.idx
  Target,  // the register holding an indirect call's callee
  Carry,   // the carry flag read by addc/subc/madc
  Param,   // a .param variable read by ld.param or passed to a call
  Memory,  // a place of local memory read by a load
};

struct Use {
  uint32_t var;
  UseRole role;
  uint16_t operand; // top-level operand position; kNoOperand for implicit uses
  static constexpr uint16_t kNoOperand = UINT16_MAX;
};

struct Def {
  uint32_t var;
  /// A partial write keeps part of the old value: a guarded instruction, one
  /// component of a vector register, a store to part of a .param variable or
  /// of a local place, or a write that may miss the place (a call, a store
  /// through a pointer of unknown origin, an atomic).
  bool partial;
  /// For register operands: the position among the registers the
  /// instruction writes (the k of the divergence query API); kNotRegister
  /// for implicit variables.
  uint16_t registerIndex;
  uint16_t operand; // top-level operand position, or Use::kNoOperand
  static constexpr uint16_t kNotRegister = UINT16_MAX;
};

/// Variables: the function's registers keep their ids (0..numRegisters-1);
/// the carry flag, the local places and the .param variables follow.
/// How many leading operand positions of `form` are destinations.
size_t destinationOperands(const ptx::Form &form);

class DefUse {
public:
  DefUse(const ptx::Module &m, const ptx::Function &fn);

  const ptx::Function &function() const { return *fn_; }
  uint32_t numVars() const { return static_cast<uint32_t>(paramNames_.size()) + firstParamVar_; }
  uint32_t numRegisters() const { return fn_->numRegisters; }
  uint32_t carryVar() const { return fn_->numRegisters; }
  bool isRegister(uint32_t var) const { return var < fn_->numRegisters; }
  /// The variable of local place `p` (an index into localSlots().places()).
  uint32_t placeVar(uint32_t p) const { return firstPlaceVar_ + p; }
  bool isPlaceVar(uint32_t var) const { return var >= firstPlaceVar_ && var < firstParamVar_; }
  const LocalSlots &localSlots() const { return slots_; }
  /// The variable of .param symbol `name`, or kNone-like UINT32_MAX.
  uint32_t paramVar(ptx::Name name) const;
  ptx::Name paramName(uint32_t var) const { return paramNames_[var - firstParamVar_]; }
  bool isParamVar(uint32_t var) const { return var >= firstParamVar_; }
  /// A .param variable a call passes that is none of the function's own
  /// parameters and results: the call writes it (it is dead afterwards).
  bool isConsumedArgument(uint32_t var) const;
  /// `%r3`, `%cc`, `[param0]`, `[__local_depot0+8..16]`.
  std::string varName(uint32_t var) const;

  std::span<const Use> uses(uint32_t instr) const {
    return {uses_.data() + useBegin_[instr], useBegin_[instr + 1] - useBegin_[instr]};
  }
  std::span<const Def> defs(uint32_t instr) const {
    return {defs_.data() + defBegin_[instr], defBegin_[instr + 1] - defBegin_[instr]};
  }
  /// Offsets of an instruction's first use and def in the flat arrays, so
  /// that per-use and per-def results can live in parallel arrays.
  uint32_t useBegin(uint32_t instr) const { return useBegin_[instr]; }
  uint32_t defBegin(uint32_t instr) const { return defBegin_[instr]; }
  uint32_t totalUses() const { return static_cast<uint32_t>(uses_.size()); }
  uint32_t totalDefs() const { return static_cast<uint32_t>(defs_.size()); }
  /// Number of register operands instruction `instr` writes.
  uint32_t registerDefCount(uint32_t instr) const;

  /// Variables with a value on entry: the parameters (.param and old-style
  /// .reg), parallel to Function::params.
  std::span<const uint32_t> entryParams() const { return entryParams_; }
  /// Variables read when the function returns: its return values, parallel
  /// to Function::returns.
  std::span<const uint32_t> exitUses() const { return exitUses_; }

  /// Operand positions of a call: results list, callee, arguments list
  /// (kNoOperand when absent).
  struct CallOperands {
    uint16_t results = Use::kNoOperand, callee = Use::kNoOperand, args = Use::kNoOperand;
  };
  static CallOperands callOperands(const ptx::Function &fn, const ptx::Instruction &in);
  /// The argument operands of a call, in order. A list of one immediate,
  /// `(5)`, reaches the IR as the bare immediate: it counts as the list.
  static std::span<const ptx::Operand> callArguments(const ptx::Function &fn, const ptx::Instruction &in);

private:
  void collect(uint32_t instr);
  /// Reads and writes of local places (LocalSlots): loads, stores, and the
  /// partial writes of a call or of a store through an unknown pointer.
  void addLocalEffects(uint32_t instr, bool guarded);
  void addUse(uint32_t var, UseRole role, uint16_t operand) { uses_.push_back({var, role, operand}); }
  void addRegisterUses(const ptx::Operand &op, UseRole role, uint16_t operand);
  void addRegisterDefs(const ptx::Operand &op, bool partial, uint16_t operand, uint16_t &k);
  uint32_t internParam(ptx::Name name);
  /// Whether st.param `store` at `address` writes every byte of the .param
  /// variable named there (a full write; otherwise it keeps the rest).
  bool coversParam(const ptx::Operand &address, const ptx::InstrDesc &store) const;

  const ptx::Module *m_;
  const ptx::Function *fn_;
  LocalSlots slots_;
  uint32_t firstPlaceVar_, firstParamVar_;
  std::vector<ptx::Name> paramNames_;
  std::unordered_map<ptx::Name, uint32_t> paramIndex_;
  std::vector<uint32_t> useBegin_, defBegin_;
  std::vector<Use> uses_;
  std::vector<Def> defs_;
  std::vector<uint32_t> entryParams_, exitUses_;
};

} // namespace analysis
