// The writer: ptx::Module -> PTX text that ptxas accepts. Parsing what it
// writes gives back the identical IR.
#pragma once

#include "ptx/IR.h"

#include <string>
#include <utility>
#include <vector>

namespace ptx {

struct WriteOptions {
  /// Keep `.file`, `.loc`, `.section` and the `debug` target.
  bool debugInfo = true;
  /// Add comments: a header, and each block's predecessors.
  bool comments = false;
  /// Filled when set: for each instruction written, its byte offset in the text and its source
  /// line (writeModuleWithLines turns them into a line table).
  std::vector<std::pair<size_t, uint32_t>> *instructionOffsets = nullptr;
};

std::string writeModule(const Module &m, const WriteOptions &options = {});
/// writeModule, and for each line of the text the source line of the instruction written on
/// it (0 for other lines): sourceLines[n - 1] is line n's. Messages about the written PTX (a
/// JIT's log) are mapped back to the file the module was read from with it.
std::string writeModuleWithLines(const Module &m, std::vector<uint32_t> &sourceLines,
                                 const WriteOptions &options = {});

/// One operand as PTX text.
std::string writeOperand(const Module &m, const Function &f, const Operand &op);
/// One instruction as PTX text, without indentation or newline.
std::string writeInstruction(const Module &m, const Function &f, const Instruction &in);
/// `add.s32` etc.: the opcode and its modifiers.
std::string instructionName(const Module &m, const Instruction &in);

} // namespace ptx
