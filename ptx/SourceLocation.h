// Where an instruction comes from in the CUDA source, for diagnostics: the file and line of its
// `.loc`, and the call its code was inlined into (`inlined_at`), which is where the user's own
// code asked for it when the `.loc` names a helper.
#pragma once

#include "ptx/Diagnostic.h"
#include "ptx/IR.h"

namespace ptx {

/// Sets `d.loc`'s CUDA file and line from the instruction's `.loc` and, when that code was
/// inlined, adds the field `inlined_at` = "FILE:LINE" (last, after the fields already there).
/// Nothing when the instruction has no `.loc`.
void setCudaLocation(Diagnostic &d, const Module &m, const Function &fn, const Instruction &in);

} // namespace ptx
