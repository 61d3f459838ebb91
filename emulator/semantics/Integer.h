// The vectorised setp of Integer.cpp (integers, f32, f64; .ftz flushes f32
// inputs), which Compare.cpp's picker for setp.ftz hands f32 forms on to.
#pragma once

#include "emulator/Semantics.h"

namespace emu {

/// The handler for setp on an integer, f32 or f64 type, or nullptr.
Handler selectVectorSetp(const DInstr &in);

} // namespace emu
