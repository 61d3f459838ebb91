// Everything else nvcc emits: predicate logic, bit-field and byte operations, fences, sleeps, prefetches, traps.
#include "emulator/Semantics.h"

namespace emu {

Handler selectMisc(const DInstr &in) {
  (void)in;
  return nullptr; // this group's instructions are added in this file
}

} // namespace emu
