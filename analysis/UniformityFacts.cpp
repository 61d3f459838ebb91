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

// The first row matching the opcode (and modifier) wins: specific rows first.
constexpr Row kRows[] = {
    // Integer arithmetic the affine abstraction follows.
    {Opcode::Mov, Mod::None, {ResultRule::Data, AffineOp::Copy, RefineOp::None}},
    {Opcode::Add, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}},
    {Opcode::Add, Mod::None, {ResultRule::Data, AffineOp::Add, RefineOp::None}},
    {Opcode::Sub, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}},
    {Opcode::Sub, Mod::None, {ResultRule::Data, AffineOp::Sub, RefineOp::None}},
    {Opcode::Mul, Mod::Lo, {ResultRule::Data, AffineOp::Mul, RefineOp::None}},
    {Opcode::Mad, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}},
    {Opcode::Mad, Mod::Lo, {ResultRule::Data, AffineOp::Mad, RefineOp::None}},
    {Opcode::Shl, Mod::None, {ResultRule::Data, AffineOp::Shl, RefineOp::None}},
    {Opcode::Neg, Mod::None, {ResultRule::Data, AffineOp::Neg, RefineOp::None}},
    {Opcode::Cvt, Mod::Sat, {ResultRule::Data, AffineOp::None, RefineOp::None}}, // clamps, does not wrap
    {Opcode::Cvt, Mod::None, {ResultRule::Data, AffineOp::Convert, RefineOp::None}},
    // Operations that can still be uniform on an affine operand.
    {Opcode::Shr, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::ShiftRight}},
    {Opcode::And, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::And}},
    {Opcode::Div, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::Div}},
    {Opcode::Rem, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::Rem}},
    {Opcode::Setp, Mod::None, {ResultRule::Data, AffineOp::None, RefineOp::Compare}},
    // Warp collectives: one result for the whole warp.
    {Opcode::Vote, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::VoteSync, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::Match, Mod::All, {ResultRule::WarpUniform}},
    {Opcode::Match, Mod::None, {ResultRule::Divergent}}, // match.any: a mask per lane
    {Opcode::ReduxSync, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::Activemask, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::Shfl, Mod::Idx, {ResultRule::ShuffleIndexed}},
    {Opcode::Shfl, Mod::None, {ResultRule::Shuffle}},
    {Opcode::ShflSync, Mod::Idx, {ResultRule::ShuffleIndexed}},
    {Opcode::ShflSync, Mod::None, {ResultRule::Shuffle}},
    {Opcode::ElectSync, Mod::None, {ResultRule::Elect}},
    // Barrier reductions give every participating thread the same result.
    {Opcode::BarRed, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::BarCtaRed, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::BarrierRed, Mod::None, {ResultRule::WarpUniform}},
    {Opcode::BarrierCtaRed, Mod::None, {ResultRule::WarpUniform}},
    // Per-thread results the iflags alone would call loads or plain data.
    {Opcode::Ldmatrix, Mod::None, {ResultRule::Divergent}},
    {Opcode::Movmatrix, Mod::None, {ResultRule::Divergent}},
    {Opcode::MbarrierTestWait, Mod::None, {ResultRule::Divergent}},
    {Opcode::MbarrierTryWait, Mod::None, {ResultRule::Divergent}},
    {Opcode::Alloca, Mod::None, {ResultRule::Divergent}},
    {Opcode::Stacksave, Mod::None, {ResultRule::Divergent}},
    {Opcode::Call, Mod::None, {ResultRule::Call}},
    // ldu: a load the whole warp shares, from memory read-only in the kernel.
    {Opcode::Ldu, Mod::None, {ResultRule::Load, AffineOp::None, RefineOp::None, true}},
};

// Warp collectives whose last operand is a member mask: always, or when
// written with .sync.
constexpr Opcode kMemberMask[] = {Opcode::VoteSync, Opcode::ShflSync, Opcode::ReduxSync, Opcode::ElectSync,
                                  Opcode::Match};
constexpr Opcode kMemberMaskWithSync[] = {Opcode::Vote, Opcode::Shfl};

// Special registers that are not divergent; every other one is.
constexpr std::pair<ptx::SpecialReg, Uniformity> kUniformSpecialRegs[] = {
    {ptx::SpecialReg::Ntid, Uniformity::CtaUniform},
    {ptx::SpecialReg::WarpId, Uniformity::WarpUniform},
    {ptx::SpecialReg::NWarpId, Uniformity::CtaUniform},
    {ptx::SpecialReg::CtaId, Uniformity::CtaUniform},
    {ptx::SpecialReg::NCtaId, Uniformity::CtaUniform},
    {ptx::SpecialReg::SmId, Uniformity::WarpUniform},
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

} // namespace

InstrFacts instrFacts(const ptx::InstrDesc &desc) {
  for (const Row &r : kRows) {
    if (r.opcode != desc.opcode || (r.when != Mod::None && !desc.has(r.when))) continue;
    InstrFacts f = r.facts;
    for (Opcode op : kMemberMask) f.memberMask |= op == desc.opcode;
    for (Opcode op : kMemberMaskWithSync) f.memberMask |= op == desc.opcode && desc.has(Mod::Sync);
    return f;
  }
  const ptx::InstrTable &table = ptx::InstrTable::get();
  InstrFacts f;
  if (table.has(desc.opcode,
                ptx::iflag::Atomic | ptx::iflag::Tensor | ptx::iflag::Texture | ptx::iflag::Divergent))
    f.rule = ResultRule::Divergent;
  else if (table.has(desc.opcode, ptx::iflag::Load))
    f.rule = ResultRule::Load;
  return f;
}

Uniformity specialRegUniformity(ptx::SpecialReg r) {
  for (auto [reg, u] : kUniformSpecialRegs)
    if (reg == r) return u;
  return Uniformity::Divergent;
}

} // namespace analysis
