// The writer: ptx::Module -> PTX text that ptxas accepts. Parsing what it
// writes gives back the identical IR.
#pragma once

#include "ptx/IR.h"

#include <string>

namespace ptx {

struct WriteOptions {
  /// Keep `.file`, `.loc`, `.section` and the `debug` target.
  bool debugInfo = true;
  /// Add comments: a header, and each block's predecessors.
  bool comments = false;
};

std::string writeModule(const Module &m, const WriteOptions &options = {});

/// One operand as PTX text.
std::string writeOperand(const Module &m, const Function &f, const Operand &op);
/// One instruction as PTX text, without indentation or newline.
std::string writeInstruction(const Module &m, const Function &f, const Instruction &in);
/// `add.s32` etc.: the opcode and its modifiers.
std::string instructionName(const Module &m, const Instruction &in);

} // namespace ptx
