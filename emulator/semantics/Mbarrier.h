// The mbarrier operations other groups need: the asynchronous stores and
// reductions (st.async, red.async) complete transaction bytes on one.
#pragma once

#include "emulator/Semantics.h"

namespace emu {

/// Completes `bytes` transaction bytes on the mbarrier at `address` in
/// `space` for `lane` (ending its phase when nothing is pending any more);
/// false after reporting a bad address.
bool completeTransaction(Exec &x, Space space, uint64_t address, uint32_t bytes, unsigned lane);

} // namespace emu
