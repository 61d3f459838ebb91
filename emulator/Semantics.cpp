// Handler dispatch: asks each instruction group for a handler.
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

namespace emu {

namespace {

/// The groups in the order they are asked: the first handler found wins, so
/// a group that claims a special form (add.cc, setp.ftz, min.relu) comes
/// before the group that handles the plain one.
Handler selectFrom(const DInstr &in, const Modifiers &mods) {
  if (in.type == ptx::Type::B128) return selectWide(in);
  if (Handler h = selectExtended(in, mods)) return h;
  if (Handler h = selectFloatArith(in, mods)) return h;
  if (Handler h = selectCompare(in, mods)) return h;
  if (Handler h = selectIntegerArith(in)) return h;
  if (Handler h = selectMemory(in)) return h;
  if (Handler h = selectAtomic(in, mods)) return h;
  if (Handler h = selectConvert(in, mods)) return h;
  if (Handler h = selectVideo(in, mods)) return h;
  if (Handler h = selectWarp(in, mods)) return h;
  if (Handler h = selectMisc(in, mods)) return h;
  return selectAsync(in, mods);
}

/// Chooses the handler from the instruction's description at run time, for
/// instructions decoded without one.
void selectWhenRun(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  if (Handler h = selectHandler(in, k.desc(in))) return h(x, in);
  x.cta.report(ptx::DiagKind::Unsupported, ptx::Severity::Error, x.pc, x.warp, x.mask,
               "the emulator cannot execute '" + ptx::instructionName(*k.module, k.instr(in)) + "' yet");
}

} // namespace

Handler selectHandler(const DInstr &in, const ptx::InstrDesc &desc) {
  return selectFrom(in, Modifiers(&desc));
}

Handler selectHandler(const DInstr &in) {
  Modifiers unknown(nullptr);
  Handler h = selectFrom(in, unknown);
  return unknown.asked() ? selectWhenRun : h;
}

} // namespace emu
