// A complete structural dump of a module: every field of the IR, names by
// their text. Two modules are structurally equal when their dumps are equal;
// tests compare the two front ends this way and show the first difference.
#pragma once

#include "ptx/IR.h"

#include <string>

namespace ptx {

/// `withLocations = false` leaves out source positions, which legitimately
/// differ between a file and its re-written text.
std::string dumpModule(const Module &m, bool withLocations = true);

} // namespace ptx
