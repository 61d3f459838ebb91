// Phases between CTA-wide barriers: one forward walk from each phase start
// (the entry, the instruction after each cutting barrier) that stops at
// cutting barriers; a phase with a write of shared memory makes every load
// it reaches noisy.
#include "analysis/BarrierPhases.h"

#include "ptx/InstrTable.h"

namespace analysis {

namespace {

using ptx::Mod;
using ptx::Opcode;

/// Writes that land after the instruction issues, possibly in a later phase.
bool writesAsynchronously(Opcode op) {
  switch (op) {
  case Opcode::CpAsync:
  case Opcode::CpAsyncBulk:
  case Opcode::CpReduceAsyncBulk:
  case Opcode::CpAsyncBulkTensor:
  case Opcode::CpReduceAsyncBulkTensor:
  case Opcode::StAsync:
  case Opcode::RedAsync:
  case Opcode::Tcgen05St:
  case Opcode::Tcgen05Alloc: return true;
  default: return false;
  }
}

bool mayWriteShared(const ptx::InstrDesc &desc, uint32_t flags) {
  if (flags & ptx::iflag::Call) return true;
  if (!(flags & (ptx::iflag::Store | ptx::iflag::Atomic))) return false;
  const Mod space = desc.firstOfKind(ptx::ModKind::Space);
  return space == Mod::None || space == Mod::Shared || space == Mod::SharedCta || space == Mod::SharedCluster;
}

} // namespace

BarrierPhases::BarrierPhases(const ptx::Module &m, const Cfg &cfg) {
  const ptx::Function &fn = cfg.function();
  const ptx::InstrTable &table = ptx::InstrTable::get();
  const size_t n = fn.instrs.size();
  quiet_.assign(n, 0);
  cuts_.assign(n, 0);
  std::vector<char> writes(n, 0);
  std::vector<uint32_t> starts;
  usable_ = true;
  for (uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction &in = fn.instrs[i];
    const ptx::InstrDesc &desc = m.desc(in);
    const uint32_t flags = table.flags(in.opcode, desc.modifiers());
    if (writesAsynchronously(in.opcode)) usable_ = false;
    // Other CTAs of a cluster write this CTA's shared memory in phases of
    // their own: through shared::cluster addresses, or generic ones mapa
    // made.
    if (in.opcode == Opcode::Mapa || (desc.firstOfKind(ptx::ModKind::Space) == Mod::SharedCluster &&
                                      (flags & (ptx::iflag::Store | ptx::iflag::Atomic))))
      usable_ = false;
    writes[i] = mayWriteShared(desc, flags);
    const ptx::BarrierInfo &barrier = table.barrier(in.opcode);
    // Every thread of the CTA: no thread count (bar.sync a; bar.red d, a, c).
    const unsigned withoutCount = barrier.kind == ptx::BarrierKind::Reduce ? 3 : 1;
    const bool cta = (barrier.kind == ptx::BarrierKind::Sync || barrier.kind == ptx::BarrierKind::Reduce) &&
                     in.numOperands == withoutCount && !in.hasGuard;
    if (cta) {
      cuts_[i] = 1;
      starts.push_back(i + 1);
    }
    if (cta || (flags & ptx::iflag::Call)) synchronizing_.push_back(i);
  }
  if (!usable_ || cfg.numBlocks() == 0) return;

  // From each start, the instructions a thread can run before it meets a
  // cutting barrier; which of them write, and which each phase reaches.
  std::vector<uint32_t> noisy(n, 0); // per instruction: reached by a phase that writes
  std::vector<uint32_t> seenBlock(cfg.size(), UINT32_MAX);
  std::vector<uint32_t> reached;
  size_t steps = 0;
  // A phase from instruction `from` of block `b` (the end of the block: its
  // successors).
  auto walk = [&](uint32_t b, uint32_t from, uint32_t phase) {
    reached.clear();
    bool phaseWrites = false;
    std::vector<uint32_t> stack;
    auto enter = [&](uint32_t s) {
      if (s < cfg.numBlocks() && cfg.reachable(s) && seenBlock[s] != phase) {
        seenBlock[s] = phase;
        stack.push_back(s);
      }
    };
    auto run = [&](uint32_t block, uint32_t first) {
      const ptx::BasicBlock &bb = fn.blocks[block];
      for (uint32_t i = first; i < bb.firstInstr + bb.numInstrs; ++i) {
        ++steps;
        if (cuts_[i]) return;
        reached.push_back(i);
        phaseWrites |= writes[i] != 0;
      }
      for (uint32_t s : cfg.succs(block)) enter(s);
    };
    if (from == fn.blocks[b].firstInstr) seenBlock[b] = phase;
    run(b, from);
    while (!stack.empty()) {
      uint32_t next = stack.back();
      stack.pop_back();
      run(next, fn.blocks[next].firstInstr);
    }
    if (phaseWrites)
      for (uint32_t i : reached) noisy[i] = 1;
  };
  walk(cfg.entry(), fn.blocks[cfg.entry()].firstInstr, 0);
  for (uint32_t k = 0; k < starts.size() && steps <= kMaxSteps; ++k) {
    const uint32_t barrier = starts[k] - 1;
    const uint32_t b = cfg.blockOf(barrier);
    if (cfg.reachable(b)) walk(b, barrier + 1, k + 1);
  }
  if (steps > kMaxSteps) return;
  for (uint32_t i = 0; i < n; ++i) quiet_[i] = !noisy[i];
}

} // namespace analysis
