// Floating-point arithmetic (f32, f64, f16, bf16 and packed x2 forms).
#include "emulator/Semantics.h"

namespace emu {

Handler selectFloatArith(const DInstr &in) {
  (void)in;
  return nullptr; // this group's instructions are added in this file
}

} // namespace emu
