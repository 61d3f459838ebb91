// The uniformity facts the divergence algorithm asks of an instruction: how
// its results vary across threads apart from its operands (from the
// instruction table's iflags: Divergent, WarpUniform, MemberMask, ReadOnly,
// Load, Call), how the affine abstraction passes through it, and how uniform
// each special register is. The algorithm never switches on opcodes itself.
#pragma once

#include "analysis/Uniformity.h"
#include "ptx/IR.h"

namespace analysis {

enum class ResultRule : uint8_t {
  Data,           // as uniform as the operands (the default)
  Divergent,      // varies across threads whatever the operands
  WarpUniform,    // the same in every lane of a warp: vote, redux, match.all, activemask, bar.red
  ShuffleIndexed, // shfl.idx: warp-uniform when all lanes read one source lane
  Shuffle,        // other shfl modes: uniform only when the shuffled value is
  Load,           // by state space and address
  Call,           // from the callee's summary
  Elect,          // elect.sync: the leader's lane id is warp-uniform, the predicate is not
};

/// How an instruction maps affine operands to an affine result.
enum class AffineOp : uint8_t {
  None,
  Copy,
  Add,
  Sub,
  Mul,
  Mad,
  MulWide,
  MadWide,
  Shl,
  Neg,
  Convert,
  Or, // an addition when the operands share no bit, or with a mask of every bit from some j up
};
/// Operations whose result is not affine but may still be uniform when the
/// operand is affine in the thread id and the block shape is known.
enum class RefineOp : uint8_t { None, ShiftRight, And, Div, Rem, Compare };

struct InstrFacts {
  ResultRule rule = ResultRule::Data;
  AffineOp affine = AffineOp::None;
  RefineOp refine = RefineOp::None;
  bool readOnly = false; // a load from memory that cannot change during the kernel
  /// The last operand is a member mask (the .sync warp collectives): lanes
  /// with different masks take part in different collectives.
  bool memberMask = false;
};

/// The facts of an instruction form, from its opcode and modifiers.
InstrFacts instrFacts(const ptx::InstrDesc &desc);

/// How uniform a read of special register `r` is, before the launch shape
/// refines %tid and %ntid.
Uniformity specialRegUniformity(ptx::SpecialReg r);

} // namespace analysis
