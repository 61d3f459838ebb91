#include "tools/Stats.h"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <iterator>

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
  auto line = std::back_inserter(out);
  fmt::format_to(line, "{:<40} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>8} {:>8}\n",
                 "function", "kind", "instrs", "arith", "mem", "ctrl", "sync", "tensor", "tex", "regs", "bbs",
                 "local", "shared");
  for (const FunctionStats &f : s.functions) {
    auto c = [&](InstrClass k) { return f.byClass[static_cast<int>(k)]; };
    std::string name = f.name.size() > 40 ? f.name.substr(0, 37) + "..." : f.name;
    fmt::format_to(line, "{:<40} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>8} {:>8}\n",
                   name, f.kernel ? "entry" : "func", f.instructions, c(InstrClass::Arithmetic),
                   c(InstrClass::Memory), c(InstrClass::Control), c(InstrClass::Sync), c(InstrClass::Tensor),
                   c(InstrClass::Texture), f.registers, f.basicBlocks, f.localBytes, f.sharedBytes);
    if (byOpcode)
      for (const auto &[op, n] : f.byOpcode) fmt::format_to(line, "    {:<24} {:>8}\n", op, n);
  }
  fmt::format_to(
      line,
      "total: {} functions, {} instructions; module variables: global {} B, shared {} B, const {} B, "
      "local {} B\n",
      s.functions.size(), s.totalInstructions, s.globalBytes, s.sharedBytes, s.constBytes, s.localBytes);
  return out;
}

std::string renderStatsJson(const ModuleStats &s) {
  boost::json::array functions;
  for (const FunctionStats &f : s.functions) {
    boost::json::object classes, opcodes;
    for (int c = 0; c < static_cast<int>(InstrClass::Count); ++c)
      classes[className(static_cast<InstrClass>(c))] = f.byClass[c];
    for (const auto &[op, n] : f.byOpcode) opcodes[op] = n;
    functions.push_back(boost::json::object{{"name", f.name},
                                            {"kind", f.kernel ? "entry" : "func"},
                                            {"instructions", f.instructions},
                                            {"classes", std::move(classes)},
                                            {"opcodes", std::move(opcodes)},
                                            {"registers", f.registers},
                                            {"basic_blocks", f.basicBlocks},
                                            {"local_bytes", f.localBytes},
                                            {"shared_bytes", f.sharedBytes}});
  }
  return boost::json::serialize(boost::json::object{{"functions", std::move(functions)},
                                                    {"global_bytes", s.globalBytes},
                                                    {"shared_bytes", s.sharedBytes},
                                                    {"const_bytes", s.constBytes},
                                                    {"local_bytes", s.localBytes},
                                                    {"instructions", s.totalInstructions}});
}

} // namespace ptxvm
