// `ptxvm stats`: what a module contains, per function and in total.
#pragma once

#include "ptx/IR.h"

#include <map>
#include <string>

namespace ptxvm {

enum class InstrClass { Arithmetic, Memory, Control, Sync, Tensor, Texture, Count };
const char *className(InstrClass c);
InstrClass classify(ptx::Opcode op);

/// Bytes a variable occupies (0 for unsized arrays).
uint64_t variableBytes(const ptx::Variable &v);

struct FunctionStats {
  std::string name;
  bool kernel = false;
  uint64_t instructions = 0;
  uint64_t byClass[static_cast<int>(InstrClass::Count)] = {};
  std::map<std::string, uint64_t> byOpcode;
  uint64_t registers = 0;
  uint64_t localBytes = 0, sharedBytes = 0, basicBlocks = 0;
};

struct ModuleStats {
  std::vector<FunctionStats> functions;
  uint64_t globalBytes = 0, sharedBytes = 0, constBytes = 0, localBytes = 0;
  uint64_t totalInstructions = 0;
};

ModuleStats computeStats(const ptx::Module &m);
std::string renderStatsText(const ModuleStats &s, bool byOpcode);
std::string renderStatsJson(const ModuleStats &s);

} // namespace ptxvm
