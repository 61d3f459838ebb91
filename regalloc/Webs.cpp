// Web renaming (out of SSA without copies).
#include "regalloc/Webs.h"

#include "analysis/Analyses.h"
#include "ptx/Edit.h"

#include <map>
#include <numeric>
#include <tuple>

namespace regalloc {

using namespace analysis;

namespace {

class UnionFind {
public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  uint32_t find(uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

private:
  std::vector<uint32_t> parent_;
};

/// `b32`, `f16x2` and `.v4 .f32` as a register-name prefix: `%b32_`, `%v4f32_`.
std::string prefixFor(const ptx::RegisterDecl &d) {
  std::string p = "%";
  if (d.vectorWidth) p += "v" + std::to_string(d.vectorWidth);
  p += ptx::spelling(d.type);
  if (d.alignment) p += "a" + std::to_string(d.alignment);
  return p + "_";
}

} // namespace

std::string cannotRename(const ptx::Module &, const ptx::Function &fn, AnalysisManager &am) {
  if (!fn.hasBody || !fn.bodyParsed) return "no body";
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  for (uint32_t v : du.entryParams())
    if (du.isRegister(v)) return "registers passed as .reg parameters";
  for (uint32_t v : du.exitUses())
    if (du.isRegister(v)) return "registers returned as .reg results";
  return "";
}

WebCounts splitWebs(ptx::Module &m, ptx::Function &fn, AnalysisManager &am) {
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  const SSA &ssa = am.get<SSAAnalysis>(fn);
  const auto numValues = static_cast<uint32_t>(ssa.values().size());
  UnionFind webs(numValues);
  for (uint32_t p = 0; p < ssa.phis().size(); ++p)
    for (ValueId in : ssa.incoming(p))
      if (in != kNoValue) webs.unite(ssa.phis()[p].value, in);
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    auto defs = du.defs(i);
    auto defValues = ssa.defValues(i), oldValues = ssa.oldValues(i);
    for (size_t d = 0; d < defs.size(); ++d)
      if (defs[d].partial && defValues[d] != kNoValue && oldValues[d] != kNoValue)
        webs.unite(defValues[d], oldValues[d]);
  }

  // A new register per web that a reachable instruction names, and one per
  // old register for the instructions of unreachable blocks.
  const uint32_t oldCount = fn.numRegisters;
  std::vector<uint32_t> webReg(numValues, UINT32_MAX), unreachableReg(oldCount, UINT32_MAX);
  std::vector<uint32_t> origin; // new register -> old register
  auto regOfValue = [&](ValueId v, uint32_t var) {
    if (v == kNoValue) {
      if (unreachableReg[var] == UINT32_MAX) {
        unreachableReg[var] = static_cast<uint32_t>(origin.size());
        origin.push_back(var);
      }
      return unreachableReg[var];
    }
    uint32_t root = webs.find(v);
    if (webReg[root] == UINT32_MAX) {
      webReg[root] = static_cast<uint32_t>(origin.size());
      origin.push_back(var);
    }
    return webReg[root];
  };

  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    ptx::Instruction &in = fn.instrs[i];
    auto uses = du.uses(i);
    auto useValues = ssa.useValues(i);
    auto defs = du.defs(i);
    auto defValues = ssa.defValues(i);
    auto mapUse = [&](uint32_t var) {
      for (size_t u = 0; u < uses.size(); ++u)
        if (uses[u].var == var) return regOfValue(useValues.empty() ? kNoValue : useValues[u], var);
      return regOfValue(kNoValue, var);
    };
    auto mapDef = [&](uint32_t var) {
      for (size_t d = 0; d < defs.size(); ++d)
        if (defs[d].var == var) return regOfValue(defValues.empty() ? kNoValue : defValues[d], var);
      return regOfValue(kNoValue, var);
    };
    if (in.hasGuard) in.guard = mapUse(in.guard);
    for (uint16_t j = 0; j < in.numOperands; ++j) {
      // Destination operands hold only written registers (addresses are never written).
      bool dest = false;
      for (const Def &d : defs) dest |= d.operand == j && d.registerIndex != Def::kNotRegister;
      ptx::Operand &op = fn.operands[in.firstOperand + j];
      ptx::forEachRegister(fn, op, [&](uint32_t &r) { r = dest ? mapDef(r) : mapUse(r); });
    }
  }

  // One declaration per register type, the webs numbered in order of
  // appearance within it.
  using Key = std::tuple<ptx::Type, uint8_t, uint32_t>;
  std::map<Key, std::vector<uint32_t>> groups;
  for (uint32_t r = 0; r < origin.size(); ++r) {
    const ptx::RegisterDecl &d = fn.declOf(origin[r]);
    groups[{d.type, d.vectorWidth, d.alignment}].push_back(r);
  }
  std::vector<uint32_t> finalId(origin.size());
  std::vector<ptx::RegisterDecl> decls;
  uint32_t next = 0;
  for (const auto &[key, members] : groups) {
    ptx::RegisterDecl d = fn.declOf(origin[members.front()]);
    d.name = m.names.intern(prefixFor(d));
    d.count = static_cast<uint32_t>(members.size());
    d.firstRegister = next;
    for (uint32_t r : members) finalId[r] = next++;
    decls.push_back(d);
  }
  for (ptx::Instruction &in : fn.instrs) ptx::forEachRegister(fn, in, [&](uint32_t &r) { r = finalId[r]; });

  ptx::BodyEdit edit(fn);
  edit.replaceRegisters(std::move(decls), next);
  edit.apply();
  return {oldCount, next};
}

PreservedAnalyses SplitWebsPass::run(ptx::Module &m, AnalysisManager &am) {
  functions_ = 0;
  counts_ = {};
  for (ptx::Function &fn : m.functions) {
    if (!cannotRename(m, fn, am).empty()) continue;
    WebCounts c = splitWebs(m, fn, am);
    am.invalidate(fn, PreservedAnalyses::none());
    ++functions_;
    counts_.registersBefore += c.registersBefore;
    counts_.registersAfter += c.registersAfter;
  }
  return PreservedAnalyses::none();
}

} // namespace regalloc
