#include "translator/RegisterLiveness.h"

#include "emulator/Kernel.h"

#include <algorithm>

namespace translator {

using emu::Control;
using emu::DInstr;
using emu::DOp;

namespace {

/// Calls fn(slot) for each register slot operand `op` names.
template <typename Fn> void forEachSlot(const emu::Kernel &k, const DOp &op, Fn &&fn) {
  switch (op.kind) {
  case DOp::Reg:
    fn(op.reg);
    if (op.imm) fn(static_cast<uint32_t>(op.imm)); // a .b128 register's high half
    break;
  case DOp::Addr:
    if (op.hasBase) fn(op.reg);
    break;
  case DOp::Vec:
    for (uint32_t e = 0; e < op.count; ++e) forEachSlot(k, k.ops[op.reg + e], fn);
    break;
  default: break;
  }
}

/// Calls fn(slot) for each register instruction `in` replaces in every
/// lane that executes it.
template <typename Fn> void forEachKill(const emu::Kernel &k, const DInstr &in, Fn &&fn) {
  if (in.guard >= 0 || in.control != Control::Next) return;
  for (unsigned i = 0; i < in.dests && i < in.numOps; ++i) {
    const DOp &op = k.op(in, i);
    if (op.kind == DOp::Reg && op.selector == ptx::Selector::None) fn(op.reg);
    if (op.kind == DOp::Vec)
      for (uint32_t e = 0; e < op.count; ++e) {
        const DOp &element = k.ops[op.reg + e];
        if (element.kind == DOp::Reg && element.selector == ptx::Selector::None) fn(element.reg);
      }
  }
}

} // namespace

std::vector<uint8_t> blockLeaders(const emu::Kernel &k) {
  const uint32_t size = static_cast<uint32_t>(k.code.size());
  std::vector<uint8_t> leader(size + 1, 0);
  auto mark = [&](uint32_t pc) {
    if (pc <= size) leader[pc] = 1;
  };
  for (const emu::CodeRegion &r : k.regions) mark(r.entry);
  for (uint32_t t : k.targetTables) mark(t);
  for (uint32_t pc = 0; pc < size; ++pc) {
    const DInstr &in = k.code[pc];
    if (in.control == Control::Next) continue;
    mark(pc + 1);
    if (in.control == Control::Branch) mark(in.target);
    if (in.control == Control::Branch || in.control == Control::BranchIndexed) mark(in.reconverge);
  }
  return leader;
}

RegisterLiveness::RegisterLiveness(const emu::Kernel &k, const emu::CodeRegion &region) : k_(k) {
  first_ = region.entry;
  end_ = std::min<uint32_t>(region.end, static_cast<uint32_t>(k.code.size()));
  words_ = (region.numRegisters + 63) / 64;
  const uint32_t n = end_ > first_ ? end_ - first_ : 0;

  const std::vector<uint8_t> leaders = blockLeaders(k);
  auto leader = [&](uint32_t i) { return i == 0 || leaders[first_ + i]; };
  blockOf_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (leader(i)) blockStart_.push_back(first_ + i);
    blockOf_[i] = static_cast<uint32_t>(blockStart_.size() - 1);
  }
  const uint32_t blocks = static_cast<uint32_t>(blockStart_.size());
  blockStart_.push_back(end_);

  auto successors = [&](uint32_t b, auto &&fn) {
    const uint32_t last = blockStart_[b + 1] - 1;
    const DInstr &in = k.code[last];
    auto go = [&](uint32_t pc) {
      if (pc >= first_ && pc < end_) fn(blockOf_[pc - first_]);
    };
    // Lanes whose guard is false go on to the next instruction.
    switch (in.control) {
    case Control::Exit:
    case Control::Return: break;
    case Control::Branch: go(in.target); break;
    case Control::BranchIndexed:
      for (uint32_t t = 0; t < in.numTargets; ++t) go(k.targetTables[in.target + t]);
      break;
    default: go(last + 1); return;
    }
    if (in.guard >= 0) go(last + 1);
  };

  // Backward dataflow to a fixed point, blocks visited last to first.
  std::vector<Bits> liveIn(blocks, Bits(words_, 0));
  liveOut_.assign(blocks, Bits(words_, 0));
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = blocks; b-- > 0;) {
      Bits out(words_, 0);
      successors(b, [&](uint32_t s) {
        for (uint32_t w = 0; w < words_; ++w) out[w] |= liveIn[s][w];
      });
      liveOut_[b] = out;
      for (uint32_t pc = blockStart_[b + 1]; pc-- > blockStart_[b];) transfer(pc, out);
      if (out != liveIn[b]) {
        liveIn[b] = std::move(out);
        changed = true;
      }
    }
  }

  Bits mentioned(words_, 0), cross(words_, 0);
  auto set = [](Bits &bits, uint32_t slot) { bits[slot / 64] |= uint64_t{1} << (slot % 64); };
  for (uint32_t pc = first_; pc < end_; ++pc) {
    const DInstr &in = k.code[pc];
    for (uint32_t s : slotsOf(pc)) set(mentioned, s);
    if (in.opcode == ptx::Opcode::Shfl || in.opcode == ptx::Opcode::ShflSync)
      for (unsigned i = in.dests; i < in.numOps; ++i)
        forEachSlot(k, k.op(in, i), [&](uint32_t s) { set(cross, s); });
  }
  Bits resumable = cross;
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t w = 0; w < words_; ++w) resumable[w] |= liveIn[b][w];
    const uint32_t last = blockStart_[b + 1] - 1;
    if (k.code[last].control == Control::Next) continue;
    Bits atControl = liveOut_[b];
    transfer(last, atControl);
    for (uint32_t w = 0; w < words_; ++w) resumable[w] |= atControl[w];
  }
  resumable_ = members(resumable);
  crossLane_ = members(cross);
  mentioned_ = members(mentioned);
}

void RegisterLiveness::transfer(uint32_t pc, Bits &live) const {
  const DInstr &in = k_.code[pc];
  auto clear = [&](uint32_t s) {
    if (s / 64 < words_) live[s / 64] &= ~(uint64_t{1} << (s % 64));
  };
  auto set = [&](uint32_t s) {
    if (s / 64 < words_) live[s / 64] |= uint64_t{1} << (s % 64);
  };
  forEachKill(k_, in, clear);
  // Destinations are not read (a guarded one keeps the old value in the
  // lanes it skips: it is not killed either, so stays live through it).
  for (unsigned i = in.dests; i < in.numOps; ++i) forEachSlot(k_, k_.op(in, i), set);
  // A destination's .b128 high half, and any destination the kill above did
  // not replace whole (a vector register's component), count as read.
  for (unsigned i = 0; i < in.dests && i < in.numOps; ++i) {
    const DOp &op = k_.op(in, i);
    if (op.kind == DOp::Reg && (op.imm || op.selector != ptx::Selector::None)) forEachSlot(k_, op, set);
  }
  if (in.guard >= 0) set(static_cast<uint32_t>(in.guard));
}

std::vector<uint32_t> RegisterLiveness::liveIn(uint32_t pc) const {
  if (pc < first_ || pc >= end_) return {};
  const uint32_t b = blockOf_[pc - first_];
  Bits live = liveOut_[b];
  for (uint32_t p = blockStart_[b + 1]; p-- > pc;) transfer(p, live);
  return members(live);
}

std::vector<uint32_t> RegisterLiveness::slotsOf(uint32_t pc) const {
  const DInstr &in = k_.code[pc];
  std::vector<uint32_t> slots;
  for (unsigned i = 0; i < in.numOps; ++i)
    forEachSlot(k_, k_.op(in, i), [&](uint32_t s) { slots.push_back(s); });
  if (in.guard >= 0) slots.push_back(static_cast<uint32_t>(in.guard));
  return slots;
}

std::vector<uint32_t> RegisterLiveness::members(const Bits &bits) {
  std::vector<uint32_t> out;
  for (uint32_t w = 0; w < bits.size(); ++w)
    for (uint64_t m = bits[w]; m; m &= m - 1)
      out.push_back(w * 64 + static_cast<uint32_t>(__builtin_ctzll(m)));
  return out;
}

} // namespace translator
