#include "translator/Facts.h"

#include "analysis/Divergence.h"
#include "emulator/Kernel.h"
#include "emulator/Semantics.h"

namespace translator {

AddressFacts addressFacts(const emu::Kernel &k) {
  AddressFacts facts;
  facts.kind.assign(k.code.size(), AddressFacts::None);
  if (!k.module || k.regions.empty() || !k.regions[0].function) return facts;
  // The launch shape is the kernel's own (.reqntid, a 1-D .maxntid) or any:
  // compiled code serves every launch.
  const analysis::DivergenceResult result = analysis::analyzeDivergence(*k.module, *k.regions[0].function);
  facts.uniformSlots.resize(k.regions.size());
  for (size_t r = 0; r < k.regions.size(); ++r) {
    const emu::CodeRegion &region = k.regions[r];
    const analysis::FunctionDivergence *fd = region.function ? result.find(*region.function) : nullptr;
    if (!fd) continue;
    const analysis::SSA &ssa = fd->gated().ssa();
    // .b128 high halves (slots past the function's registers) stay vectors.
    std::vector<uint8_t> &uniform = facts.uniformSlots[r];
    uniform.assign(region.numRegisters, 0);
    std::fill_n(uniform.begin(), std::min<size_t>(region.function->numRegisters, uniform.size()), 1);
    const auto values = ssa.values();
    for (analysis::ValueId v = 0; v < values.size(); ++v)
      if (values[v].var < uniform.size() && ssa.defUse().isRegister(values[v].var) &&
          fd->valueLevel(v) == analysis::Uniformity::Divergent)
        uniform[values[v].var] = 0;
    for (size_t slot = 0; slot < region.highSlot.size(); ++slot)
      if (region.highSlot[slot]) uniform[slot] = 0;
  }
  for (uint32_t pc = 0; pc < k.code.size(); ++pc) {
    const emu::DInstr &in = k.code[pc];
    using ptx::Opcode;
    if (in.opcode != Opcode::Ld && in.opcode != Opcode::Ldu && in.opcode != Opcode::St) continue;
    const emu::DOp &addr = k.op(in, in.opcode == Opcode::St ? 0 : 1);
    if (addr.kind != emu::DOp::Addr || !addr.hasBase) continue;
    const analysis::FunctionDivergence *fd = result.find(k.functionOf(in));
    if (!fd) continue;
    const analysis::SSA &ssa = fd->gated().ssa();
    const auto uses = ssa.defUse().uses(in.irIndex);
    const auto values = ssa.useValues(in.irIndex);
    for (size_t u = 0; u < uses.size(); ++u) {
      if (uses[u].role != analysis::UseRole::Address || values[u] == analysis::kNoValue) continue;
      if (fd->valueLevel(values[u]) != analysis::Uniformity::Divergent) {
        facts.kind[pc] = AddressFacts::Uniform;
        break;
      }
      const analysis::Affine &form = fd->valueForm(values[u]);
      const analysis::Coef &x = form.coef(1);
      const analysis::Coef &base = form.coef(0);
      const int64_t size = static_cast<int64_t>(emu::byteSize(in.type));
      if (form.known() && x.isConst() && x.value == size &&
          (base.isConst() || base.level != analysis::Uniformity::Divergent)) {
        facts.kind[pc] = AddressFacts::Consecutive;
      }
      break;
    }
  }
  return facts;
}

} // namespace translator
