// Warp-level primitives (shfl, vote, match, redux, activemask, bar.warp.sync).
#include "emulator/Semantics.h"

namespace emu {

Handler selectWarp(const DInstr &in) {
  (void)in;
  return nullptr; // this group's instructions are added in this file
}

} // namespace emu
