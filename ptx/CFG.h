// The control-flow graph of a function: basic blocks from its instructions
// and labels, with successor and predecessor edges.
#pragma once

#include "ptx/IR.h"

namespace ptx {

/// Builds basic blocks and their edges from a function's instructions and
/// labels. Called by FunctionBuilder::finish; exposed for passes that edit
/// the instruction list.
void buildCFG(Function &fn);

} // namespace ptx
