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
/// The warp's instruction count as the interpreter would have it now.
void publishCount(JitFrame *f) {
  f->warp->warpInstructions = f->instructionsAtStart + (f->budgetAtStart - f->budgetNow);
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
