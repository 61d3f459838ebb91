// The divergence printer: the function listing with each write's uniformity
// and affine form, the gates, and each branch's uniformity.
#include "analysis/Divergence.h"

#include "ptx/Writer.h"

namespace analysis {

namespace {

/// The form worth showing: constants and thread-id forms (a bare uniform
/// unknown says no more than the uniformity).
bool informative(const Affine &a) { return a.known() && !(a.threadInvariant() && !a.constantTermRange()); }

std::string flat(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '\t') out += c;
  return out;
}

} // namespace

std::string FunctionDivergence::launch() const {
  std::string out = "block " + shape_.str();
  if (grid_[0] || grid_[1] || grid_[2]) {
    out += ", grid ";
    for (unsigned i = 0; i < 3; ++i)
      out += (i ? "x" : "") + (grid_[i] ? std::to_string(grid_[i]) : std::string("?"));
  }
  if (knownArguments_)
    out += ", " + std::to_string(knownArguments_) + (knownArguments_ == 1 ? " argument" : " arguments");
  return out;
}

std::string FunctionDivergence::print(const ptx::Module &m) const {
  const GatedSSA &g = *gated_;
  const Cfg &cfg = g.cfg();
  const SSA &ssa = g.ssa();
  const DefUse &du = ssa.defUse();
  const ptx::Function &fn = function();
  std::string out = std::string(fn.isKernel ? "kernel " : "function ") + std::string(m.str(fn.name)) + " (" +
                    launch() + ")\n";
  auto phiLine = [&](uint32_t p) {
    const Phi &phi = ssa.phis()[p];
    std::string line =
        "    " + std::string(gateKindName(g.kind(p))) + ' ' + ssa.valueName(phi.value) + " = [";
    auto in = ssa.incoming(p);
    auto preds = cfg.preds(phi.block);
    for (uint32_t j = 0; j < in.size(); ++j) {
      if (j) line += ", ";
      line +=
          (j < preds.size() ? cfg.blockName(preds[j]) : std::string("entry")) + ": " + ssa.valueName(in[j]);
    }
    line += "]  " + std::string(uniformityName(levels_[phi.value]));
    if (informative(forms_[phi.value])) line += "  " + forms_[phi.value].str();
    return line + '\n';
  };
  for (uint32_t b = 0; b < cfg.numBlocks(); ++b) {
    out += "  " + cfg.blockName(b, &m) + ':';
    if (!cfg.reachable(b))
      out += " (unreachable)";
    else if (partialWarp(b))
      out += " (part of a warp)";
    out += '\n';
    for (uint32_t p : ssa.phisOf(b)) out += phiLine(p);
    const ptx::BasicBlock &block = fn.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      std::string line = "    " + std::to_string(fn.instrs[i].loc.line) + ": " +
                         flat(ptx::writeInstruction(m, fn, fn.instrs[i]));
      std::string notes;
      auto defs = du.defs(i);
      for (uint32_t k = 0; k < defs.size(); ++k) {
        ValueId v = ssa.defValues(i)[k];
        notes += "  " + du.varName(defs[k].var) + ' ' + std::string(uniformityName(levels_[v]));
        if (informative(forms_[v])) notes += " [" + forms_[v].str() + ']';
      }
      uint32_t br = g.branchOfBlock(b);
      if (br != kNone && g.branches()[br].instr == i)
        notes += "  branch " + std::string(uniformityName(branchLevels_[br]));
      if (!notes.empty()) {
        if (line.size() < 44) line.resize(44, ' ');
        line += " ;" + notes;
      }
      out += line + '\n';
    }
  }
  if (!ssa.phisOf(cfg.exit()).empty() || !returns_.empty()) {
    out += "  exit:\n";
    for (uint32_t p : ssa.phisOf(cfg.exit())) out += phiLine(p);
    for (size_t k = 0; k < returns_.size(); ++k)
      out += "    returns " + du.varName(du.exitUses()[k]) + ' ' + std::string(uniformityName(returns_[k])) +
             '\n';
  }
  return out;
}

} // namespace analysis
