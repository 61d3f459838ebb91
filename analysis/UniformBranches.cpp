// `.uni` on branches proven warp-uniform.
#include "analysis/UniformBranches.h"

#include "analysis/Divergence.h"

namespace analysis {

namespace {

/// The instruction's description with `.uni` added where its form accepts
/// it; nullopt when none does.
std::optional<ptx::InstrDesc> withUni(const ptx::InstrDesc &desc) {
  const ptx::InstrTable &table = ptx::InstrTable::get();
  if (desc.has(ptx::Mod::Uni) || !table.acceptedMods(desc.opcode).test(static_cast<size_t>(ptx::Mod::Uni)) ||
      desc.numMods >= ptx::kMaxMods)
    return std::nullopt;
  for (uint8_t at = 0; at <= desc.numMods; ++at) {
    ptx::InstrDesc d = desc;
    std::copy_backward(d.mods.begin() + at, d.mods.begin() + d.numMods, d.mods.begin() + d.numMods + 1);
    d.mods[at] = ptx::Mod::Uni;
    ++d.numMods;
    if (table.matches(d.form, d.modifiers())) return d;
  }
  return std::nullopt;
}

} // namespace

PreservedAnalyses UniformBranchesPass::run(ptx::Module &m, AnalysisManager &am) {
  marked_ = branches_ = already_ = 0;
  const DivergenceResult &divergence = am.getModule<DivergenceAnalysis>();
  const ptx::InstrTable &table = ptx::InstrTable::get();
  for (ptx::Function &fn : m.functions) {
    const FunctionDivergence *fd = divergence.find(fn);
    if (!fd) continue;
    for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
      ptx::Instruction &in = fn.instrs[i];
      if (!table.has(in.opcode, ptx::iflag::Branch)) continue;
      ++branches_;
      if (m.desc(in).has(ptx::Mod::Uni)) ++already_;
      if (fd->branch(i) == Uniformity::Divergent) continue;
      auto d = withUni(m.desc(in));
      if (!d) continue;
      in.desc = m.internDesc(*d);
      in.form = d->form;
      ++marked_;
    }
  }
  return PreservedAnalyses::all();
}

} // namespace analysis
