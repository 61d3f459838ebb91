// Pruned SSA form as a side table over the IR: every read of a variable is
// linked to the one definition that reaches it, with φ-nodes where
// definitions meet. The IR itself is not renamed; OutOfSSA.h turns φ-nodes
// into copies for transforms that rewrite the function.
//
// Beyond textbook SSA: φ-nodes are also placed at the exit blocks of loops
// that define the variable (loop-closed form), so that every value leaving a
// loop passes through a node the gated form can call η; the virtual exit is
// a block that reads the function's return values; partial writes
// (guarded instructions, vector components, .param stores) are definitions
// that also read the value they partly overwrite.
#pragma once

#include "analysis/Cfg.h"
#include "analysis/DefUse.h"
#include "analysis/Dominators.h"
#include "analysis/Liveness.h"
#include "analysis/Loops.h"

#include <span>
#include <string>
#include <vector>

namespace analysis {

using ValueId = uint32_t;
constexpr ValueId kNoValue = UINT32_MAX;

enum class ValueKind : uint8_t {
  Entry, // the variable's value on entry: a parameter, or never written
  Def,   // written by an instruction
  Phi,   // a φ-node
};

struct Value {
  ValueKind kind;
  uint32_t var;
  uint32_t block; // defining node (the entry block for Entry values)
  uint32_t index; // Def: instruction; Phi: φ index; Entry: 0
  uint32_t slot;  // Def: position among the instruction's DefUse::defs
};

struct Phi {
  uint32_t block;
  uint32_t var;
  ValueId value;
  uint32_t firstIncoming; // one incoming value per predecessor of `block`
};

class SSA {
public:
  SSA(const Cfg &cfg, const DominatorTree &dom, const DominanceFrontier &df, const LoopForest &loops,
      const DefUse &du, const Liveness &live);

  const Cfg &cfg() const { return *cfg_; }
  const DefUse &defUse() const { return *du_; }
  std::span<const Value> values() const { return values_; }
  const Value &value(ValueId v) const { return values_[v]; }

  /// The value each use of DefUse::uses(instr) reads, in the same order.
  /// kNoValue for instructions of unreachable blocks.
  std::span<const ValueId> useValues(uint32_t instr) const {
    return {useValue_.data() + du_->useBegin(instr), du_->uses(instr).size()};
  }
  /// The value each def of DefUse::defs(instr) creates, in the same order.
  std::span<const ValueId> defValues(uint32_t instr) const {
    return {defValue_.data() + du_->defBegin(instr), du_->defs(instr).size()};
  }
  /// For partial defs: the value that is partly overwritten (kNoValue for
  /// full defs and unreachable instructions).
  std::span<const ValueId> oldValues(uint32_t instr) const {
    return {oldValue_.data() + du_->defBegin(instr), du_->defs(instr).size()};
  }
  /// The values the virtual exit reads, parallel to DefUse::exitUses().
  std::span<const ValueId> exitValues() const { return exitValue_; }
  /// The Entry value of `var`, or kNoValue when nothing reads it.
  ValueId entryValue(uint32_t var) const { return entryValue_[var]; }

  std::span<const Phi> phis() const { return phis_; }
  /// Indices into phis() of the φ-nodes of node `v`.
  std::span<const uint32_t> phisOf(uint32_t v) const {
    return {phiOrder_.data() + phiBegin_[v], phiBegin_[v + 1] - phiBegin_[v]};
  }
  /// Incoming values of φ `p`, parallel to cfg().preds(block); kNoValue
  /// for an unreachable predecessor. A φ of the entry block has one more,
  /// last: the variable's value on entry to the function.
  std::span<const ValueId> incoming(uint32_t p) const {
    uint32_t b = phis_[p].block;
    return {incoming_.data() + phis_[p].firstIncoming, cfg_->preds(b).size() + (b == cfg_->entry() ? 1 : 0)};
  }

  /// `%r3.2`: the variable and a per-variable version number.
  std::string valueName(ValueId v) const;
  /// The function with φ-nodes at block starts and every read and write
  /// annotated with its value, for tests.
  std::string print(const ptx::Module &m) const;

private:
  const Cfg *cfg_;
  const DefUse *du_;
  std::vector<Value> values_;
  std::vector<uint32_t> version_; // per value: version of its variable
  std::vector<ValueId> useValue_, defValue_, oldValue_, exitValue_, entryValue_;
  std::vector<Phi> phis_;
  std::vector<uint32_t> phiBegin_, phiOrder_;
  std::vector<ValueId> incoming_;
};

} // namespace analysis
