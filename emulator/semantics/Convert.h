// Conversions into and out of the narrow floating-point formats (tf32,
// e4m3/e5m2, e2m3/e3m2/e2m1, ue8m0: ConvertNarrow.cpp), which Convert.cpp's cvt
// picker hands on to.
#pragma once

#include "emulator/Semantics.h"

namespace emu {

/// The handler for a cvt whose source or destination is a narrow format,
/// or nullptr.
Handler selectNarrowConvert(const DInstr &in);

} // namespace emu
