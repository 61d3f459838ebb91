// The uniformity facts, as tables.
#include "analysis/UniformityFacts.h"

namespace analysis {

namespace {

using ptx::Mod;
using ptx::Opcode;

struct Row {
  Opcode opcode;
  Mod when; // the row applies when the instruction has this modifier (None: always)
  InstrFacts facts;
};

// How the affine abstraction passes through arithmetic. The first row
// matching the opcode (and modifier) wins: specific rows first.
constexpr Row kAffineRows[] = {
    // Integer arithmetic the affine abstraction follows.
    {Opcode::Mov, Mod::None, {ResultRule::Data, AffineOp::Copy, RefineOp::None}},
    {Opcode::Add, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}},
    {Opcode::Add, Mod::None, {ResultRule::Data, AffineOp::Add, RefineOp::None}},
    {Opcode::Sub, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}},
    {Opcode::Sub, Mod::None, {ResultRule::Data, AffineOp::Sub, RefineOp::None}},
    {Opcode::Mul, Mod::Lo, {ResultRule::Data, AffineOp::Mul, RefineOp::None}},
    // .wide: the product of the sources extended to twice their width.
    {Opcode::Mul, Mod::Wide, {ResultRule::Data, AffineOp::MulWide, RefineOp::None}},
    {Opcode::Mad, Mod::Wide, {ResultRule::Data, AffineOp::MadWide, RefineOp::None}},
    {Opcode::Mad, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}},
    {Opcode::Mad, Mod::Lo, {ResultRule::Data, AffineOp::Mad, RefineOp::None}},
    {Opcode::Shl, Mod::None, {ResultRule::Data, AffineOp::Shl, RefineOp::None}},
    {Opcode::Neg, Mod::None, {ResultRule::Data, AffineOp::Neg, RefineOp::None}},
    {Opcode::Cvt, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}}, // clamps, does not wrap
    {Opcode::Cvt, Mod::None, {ResultRule::Data, AffineOp::Convert, RefineOp::None}},
    {Opcode::Or, Mod::None, {ResultRule::Data, AffineOp::Or, RefineOp::None}},
    // Operations that can still be uniform on an affine operand.
    {Opcode::Shr, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::ShiftRight}},
    {Opcode::And, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::And}},
    {Opcode::Div, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::Div}},
    {Opcode::Rem, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::Rem}},
    {Opcode::Setp, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::Compare}},
};

// Special registers that are not divergent; every other one is.
constexpr std::pair<ptx::SpecialReg, Uniformity> kUniformSpecialRegs[] = {
    {ptx::SpecialReg::Ntid, Uniformity::CtaUniform},
    {ptx::SpecialReg::WarpId, Uniformity::WarpUniform},
    {ptx::SpecialReg::NWarpId, Uniformity::CtaUniform},
    {ptx::SpecialReg::CtaId, Uniformity::CtaUniform},
    {ptx::SpecialReg::NCtaId, Uniformity::CtaUniform},
    {ptx::SpecialReg::SmId, Uniformity::WarpUniform},
    // Counters and timers are sampled once per issue: the lanes of a warp
    // that read one together read one value (and measure intervals with it,
    // as in a spin loop with a timeout).
    {ptx::SpecialReg::Clock, Uniformity::WarpUniform},
    {ptx::SpecialReg::ClockHi, Uniformity::WarpUniform},
    {ptx::SpecialReg::Clock64, Uniformity::WarpUniform},
    {ptx::SpecialReg::GlobalTimer, Uniformity::WarpUniform},
    {ptx::SpecialReg::GlobalTimerLo, Uniformity::WarpUniform},
    {ptx::SpecialReg::GlobalTimerHi, Uniformity::WarpUniform},
    {ptx::SpecialReg::NSmId, Uniformity::CtaUniform},
    {ptx::SpecialReg::GridId, Uniformity::CtaUniform},
    {ptx::SpecialReg::IsExplicitCluster, Uniformity::CtaUniform},
    {ptx::SpecialReg::ClusterId, Uniformity::CtaUniform},
    {ptx::SpecialReg::NClusterId, Uniformity::CtaUniform},
    {ptx::SpecialReg::ClusterCtaId, Uniformity::CtaUniform},
    {ptx::SpecialReg::ClusterNCtaId, Uniformity::CtaUniform},
    {ptx::SpecialReg::ClusterCtaRank, Uniformity::CtaUniform},
    {ptx::SpecialReg::ClusterNCtaRank, Uniformity::CtaUniform},
    {ptx::SpecialReg::TotalSmemSize, Uniformity::CtaUniform},
    {ptx::SpecialReg::AggrSmemSize, Uniformity::CtaUniform},
    {ptx::SpecialReg::DynamicSmemSize, Uniformity::CtaUniform},
    {ptx::SpecialReg::ReservedSmemOffsetBegin, Uniformity::CtaUniform},
    {ptx::SpecialReg::ReservedSmemOffsetEnd, Uniformity::CtaUniform},
    {ptx::SpecialReg::ReservedSmemOffsetCap, Uniformity::CtaUniform},
    {ptx::SpecialReg::ReservedSmemOffset0, Uniformity::CtaUniform},
    {ptx::SpecialReg::ReservedSmemOffset1, Uniformity::CtaUniform},
    {ptx::SpecialReg::CurrentGraphExec, Uniformity::CtaUniform},
    {ptx::SpecialReg::EnvReg, Uniformity::CtaUniform},
};

/// How the result varies across threads: the table's "source of
/// divergence" and "always uniform" facts, and the rules of the instructions
/// that move a value between lanes or take it from elsewhere.
ResultRule resultRule(const ptx::InstrDesc &desc, uint32_t flags) {
  switch (desc.opcode) {
  case Opcode::Shfl:
  case Opcode::ShflSync: return desc.has(Mod::Idx) ? ResultRule::ShuffleIndexed : ResultRule::Shuffle;
  case Opcode::ElectSync: return ResultRule::Elect;
  default: break;
  }
  if (flags & ptx::iflag::Call) return ResultRule::Call;
  if (flags & ptx::iflag::WarpUniform) return ResultRule::WarpUniform;
  if (flags & (ptx::iflag::Divergent | ptx::iflag::Atomic | ptx::iflag::Tensor | ptx::iflag::Texture))
    return ResultRule::Divergent;
  if (flags & ptx::iflag::Load) return ResultRule::Load;
  return ResultRule::Data;
}

} // namespace

InstrFacts instrFacts(const ptx::InstrDesc &desc) {
  InstrFacts f;
  for (const Row &r : kAffineRows) {
    if (r.opcode != desc.opcode || (r.when != Mod::None && !desc.has(r.when))) continue;
    f = r.facts;
    break;
  }
  const uint32_t flags = ptx::InstrTable::get().flags(desc.opcode, desc.modifiers());
  f.rule = resultRule(desc, flags);
  f.readOnly = flags & ptx::iflag::ReadOnly;
  f.memberMask = flags & ptx::iflag::MemberMask;
  return f;
}

Uniformity specialRegUniformity(ptx::SpecialReg r) {
  for (auto [reg, u] : kUniformSpecialRegs)
    if (reg == r) return u;
  return Uniformity::Divergent;
}

} // namespace analysis
