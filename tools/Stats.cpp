#include "tools/Stats.h"

#include "ptx/Diagnostic.h"

#include <cstdio>

namespace ptxvm {

const char *className(InstrClass c) {
  switch (c) {
  case InstrClass::Arithmetic: return "arithmetic";
  case InstrClass::Memory: return "memory";
  case InstrClass::Control: return "control";
  case InstrClass::Sync: return "sync";
  case InstrClass::Tensor: return "tensor";
  case InstrClass::Texture: return "texture";
  case InstrClass::Count: break;
  }
  return "?";
}

InstrClass classify(ptx::Opcode op) {
  using namespace ptx::iflag;
  uint32_t f = ptx::InstrTable::get().info(op).flags;
  if (f & Tensor) return InstrClass::Tensor;
  if (f & Texture) return InstrClass::Texture;
  if (f & (Barrier | WarpSync)) return InstrClass::Sync;
  if (f & (Branch | Call | Return | Exit | Terminator)) return InstrClass::Control;
  if (f & (Load | Store | Atomic)) return InstrClass::Memory;
  return InstrClass::Arithmetic;
}

uint64_t variableBytes(const ptx::Variable &v) {
  uint64_t bytes = (ptx::bitWidth(v.type) + 7) / 8 * (v.vectorWidth ? v.vectorWidth : 1);
  for (uint64_t d : v.dims) {
    if (d == 0) return 0;
    if (bytes > UINT64_MAX / d) return UINT64_MAX;
    bytes *= d;
  }
  return bytes;
}

ModuleStats computeStats(const ptx::Module &m) {
  ModuleStats s;
  for (const ptx::Variable &v : m.globals) {
    uint64_t b = variableBytes(v);
    if (v.space == ptx::Mod::Global)
      s.globalBytes += b;
    else if (v.space == ptx::Mod::Shared)
      s.sharedBytes += b;
    else if (v.space == ptx::Mod::Const)
      s.constBytes += b;
    else if (v.space == ptx::Mod::Local)
      s.localBytes += b;
  }
  for (const ptx::Function &f : m.functions) {
    if (!f.hasBody) continue;
    FunctionStats fs;
    fs.name = m.str(f.name);
    fs.kernel = f.isKernel;
    fs.instructions = f.instrs.size();
    fs.registers = f.numRegisters;
    fs.basicBlocks = f.blocks.size();
    for (const ptx::Instruction &in : f.instrs) {
      ++fs.byClass[static_cast<int>(classify(in.opcode))];
      ++fs.byOpcode[std::string(ptx::InstrTable::get().info(in.opcode).name)];
    }
    for (const ptx::Variable &v : f.locals) {
      if (v.space == ptx::Mod::Local) fs.localBytes += variableBytes(v);
      if (v.space == ptx::Mod::Shared) fs.sharedBytes += variableBytes(v);
    }
    s.totalInstructions += fs.instructions;
    s.functions.push_back(std::move(fs));
  }
  return s;
}

std::string renderStatsText(const ModuleStats &s, bool byOpcode) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-40s %6s %8s %6s %6s %6s %6s %6s %6s %6s %5s %8s %8s\n", "function",
                "kind", "instrs", "arith", "mem", "ctrl", "sync", "tensor", "tex", "regs", "bbs", "local",
                "shared");
  out += line;
  for (const FunctionStats &f : s.functions) {
    auto c = [&](InstrClass k) { return static_cast<unsigned long long>(f.byClass[static_cast<int>(k)]); };
    std::string name = f.name.size() > 40 ? f.name.substr(0, 37) + "..." : f.name;
    std::snprintf(line, sizeof line,
                  "%-40s %6s %8llu %6llu %6llu %6llu %6llu %6llu %6llu %6llu %5llu %8llu %8llu\n",
                  name.c_str(), f.kernel ? "entry" : "func", (unsigned long long)f.instructions,
                  c(InstrClass::Arithmetic), c(InstrClass::Memory), c(InstrClass::Control),
                  c(InstrClass::Sync), c(InstrClass::Tensor), c(InstrClass::Texture),
                  (unsigned long long)f.registers, (unsigned long long)f.basicBlocks,
                  (unsigned long long)f.localBytes, (unsigned long long)f.sharedBytes);
    out += line;
    if (byOpcode)
      for (auto &[op, n] : f.byOpcode) {
        std::snprintf(line, sizeof line, "    %-24s %8llu\n", op.c_str(), (unsigned long long)n);
        out += line;
      }
  }
  std::snprintf(line, sizeof line,
                "total: %zu functions, %llu instructions; module variables: global %llu B, shared %llu B, "
                "const %llu B, local %llu B\n",
                s.functions.size(), (unsigned long long)s.totalInstructions,
                (unsigned long long)s.globalBytes, (unsigned long long)s.sharedBytes,
                (unsigned long long)s.constBytes, (unsigned long long)s.localBytes);
  out += line;
  return out;
}

std::string renderStatsJson(const ModuleStats &s) {
  std::string out = "{\"functions\":[";
  for (size_t i = 0; i < s.functions.size(); ++i) {
    const FunctionStats &f = s.functions[i];
    out += i ? "," : "";
    out += "{\"name\":\"" + ptx::jsonEscape(f.name) + "\",\"kind\":\"" + (f.kernel ? "entry" : "func") +
           "\",\"instructions\":" + std::to_string(f.instructions) + ",\"classes\":{";
    for (int c = 0; c < static_cast<int>(InstrClass::Count); ++c)
      out += (c ? ",\"" : "\"") + std::string(className(static_cast<InstrClass>(c))) +
             "\":" + std::to_string(f.byClass[c]);
    out += "},\"opcodes\":{";
    bool first = true;
    for (auto &[op, n] : f.byOpcode) {
      out += (first ? "\"" : ",\"") + op + "\":" + std::to_string(n);
      first = false;
    }
    out += "},\"registers\":" + std::to_string(f.registers) +
           ",\"basic_blocks\":" + std::to_string(f.basicBlocks) +
           ",\"local_bytes\":" + std::to_string(f.localBytes) +
           ",\"shared_bytes\":" + std::to_string(f.sharedBytes) + "}";
  }
  out += "],\"global_bytes\":" + std::to_string(s.globalBytes) +
         ",\"shared_bytes\":" + std::to_string(s.sharedBytes) +
         ",\"const_bytes\":" + std::to_string(s.constBytes) +
         ",\"local_bytes\":" + std::to_string(s.localBytes) +
         ",\"instructions\":" + std::to_string(s.totalInstructions) + "}";
  return out;
}

} // namespace ptxvm
