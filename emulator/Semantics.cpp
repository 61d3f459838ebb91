// Handler dispatch: asks each instruction group for a handler.
#include "emulator/Semantics.h"

namespace emu {

Handler selectHandler(const DInstr &in) {
  for (Handler (*select)(const DInstr &) : {selectExtended, selectIntegerArith, selectMemory,
                                            selectFloatArith, selectConvert, selectWarp, selectMisc, selectAsync})
    if (Handler h = select(in)) return h;
  return nullptr;
}

} // namespace emu
