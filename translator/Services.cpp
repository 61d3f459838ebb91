// The host services compiled code calls (Frame.h): the interpreter's
// handlers, special registers, and the memory fast path, each a thin door
// into the emulator's own code so that compiled and interpreted execution
// share one set of semantics, checks and reports.
#include "translator/Frame.h"

#include <iterator>

#include "emulator/Cta.h"
#include "emulator/Semantics.h"

using translator::JitFrame;

namespace {
/// The warp's and the CTA's instruction counts as the interpreter would have them now.
void publishCount(JitFrame *f) {
  const uint64_t executed = (f->budgetAtStart - f->budgetNow) - f->pops;
  f->warp->warpInstructions = f->instructionsAtStart + executed;
  f->cta->executed = f->ctaExecutedAtStart + executed;
}

/// Lanes of the top group that still run, as the interpreter's loop has them.
uint32_t activeLanes(const emu::Warp &w) {
  return w.stack.back().mask & ~w.exited & ~(w.calls.empty() ? 0u : w.calls.back().returned);
}

void runTop(JitFrame *f) {
  const emu::SimtEntry &top = f->warp->stack.back();
  f->pc = top.pc;
  f->active = activeLanes(*f->warp);
  f->reconverge = top.reconverge;
}
} // namespace

extern "C" int ptxvm_jit_handler(JitFrame *f, uint32_t pc, uint32_t mask) {
  const emu::DInstr &in = f->kernel->code[pc];
  publishCount(f);
  emu::Exec x{*f->cta, *f->warp, mask, pc};
  in.run(x, in);
  return f->cta->failed ? 1 : 0;
}

extern "C" void ptxvm_jit_operand(JitFrame *f, uint32_t pc, uint32_t op, uint64_t *out) {
  const emu::DInstr &in = f->kernel->code[pc];
  publishCount(f);
  emu::Exec x{*f->cta, *f->warp, f->active, pc};
  // `out` is the compiled code's 32-lane scratch array.
  emu::readOperandLanes(x, f->kernel->op(in, op), *reinterpret_cast<uint64_t(*)[32]>(out));
}

extern "C" int ptxvm_jit_direct(JitFrame *f, uint32_t space, uint32_t window, uint64_t lo, uint64_t hi,
                                uint64_t bits, uint32_t size, uint64_t *delta) {
  uint64_t bias = 0;
  uint8_t *base =
      emu::directAccess(*f->cta, static_cast<emu::Space>(space), emu::AddressSpan{lo, hi, bits}, size, bias);
  if (!base) return 0;
  *delta = reinterpret_cast<uint64_t>(base) - bias;
  // What directAccess accepted: one global allocation, or the CTA's shared
  // memory (at offset 0, or at the generic window).
  JitFrame::Window &w = f->windows[window % std::size(f->windows)];
  f->windowsChanged = 1;
  w.delta = *delta;
  if (base == f->cta->shared.data()) {
    w.lo = bias;
    w.end = bias + f->cta->shared.size();
  } else {
    const emu::GlobalMemory::Range &r = f->cta->globalRange(lo);
    w.lo = r.base;
    w.end = r.end;
  }
  return 1;
}

extern "C" void ptxvm_jit_diverge(JitFrame *f, uint32_t pc, uint32_t taken) {
  const emu::DInstr &in = f->kernel->code[pc];
  f->budgetNow = f->budget;
  publishCount(f);
  f->cta->diverge(*f->warp, pc, in.target, taken, f->active & ~taken, in.reconverge);
  runTop(f);
}

extern "C" int ptxvm_jit_reconverge(JitFrame *f) {
  emu::Warp &w = *f->warp;
  emu::Cta &cta = *f->cta;
  const size_t size = f->kernel->code.size();
  w.stack.back().pc = f->pc;
  // The interpreter's loop, one budget unit per pop, for the pops that
  // change nothing but the stack; anything else is the loop's.
  for (;;) {
    const emu::SimtEntry &top = w.stack.back();
    if (top.waitBarrier >= 0) break;
    const uint32_t active = activeLanes(w);
    if (active != 0 && top.pc != top.reconverge && top.pc < size) {
      runTop(f);
      return 1;
    }
    const bool endsCall = !w.calls.empty() && w.stack.size() - 1 == w.calls.back().stackDepth;
    if (f->budget == 0 || cta.failed || w.stack.size() == 1 || endsCall || top.pc >= size) break;
    w.stack.pop_back();
    --f->budget;
    ++f->pops;
  }
  f->pc = w.stack.back().pc;
  return 0;
}
