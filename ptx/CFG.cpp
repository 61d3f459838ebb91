// Basic blocks and their edges from a function's instructions and labels.
#include "ptx/CFG.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace ptx {

void buildCFG(Function &fn) {
  const InstrTable &table = InstrTable::get();
  fn.blocks.clear();
  std::unordered_map<Name, uint32_t> blockOfLabel;
  bool open = false;      // the last block may still take instructions
  uint32_t nextInstr = 0; // index of the next instruction in statement order
  for (const Stmt &s : fn.statements()) {
    if (s.kind == StmtKind::Label) {
      BasicBlock b;
      b.label = s.index;
      // An empty block (a label right before another label, or at the end)
      // starts where the next instruction does, so a branch to it lands
      // there.
      b.firstInstr = nextInstr;
      fn.blocks.push_back(b);
      blockOfLabel.emplace(fn.labels[s.index].name, static_cast<uint32_t>(fn.blocks.size() - 1));
      open = true;
    } else if (s.kind == StmtKind::Instruction) {
      if (!open) {
        fn.blocks.emplace_back();
        open = true;
      }
      BasicBlock &b = fn.blocks.back();
      if (b.numInstrs == 0) b.firstInstr = s.index;
      ++b.numInstrs;
      nextInstr = s.index + 1;
      if (table.has(fn.instrs[s.index].opcode, iflag::Terminator)) open = false;
    }
  }
  auto targetOf = [&](const Operand &o) -> std::optional<uint32_t> {
    if (o.kind != OperandKind::Symbol) return std::nullopt;
    auto it = blockOfLabel.find(o.id);
    if (it == blockOfLabel.end()) return std::nullopt;
    return it->second;
  };
  // Successors first, block by block; then predecessors, counted and
  // placed in one pass over the successor lists.
  fn.edges.clear();
  std::vector<uint32_t> succs;
  for (uint32_t b = 0; b < fn.blocks.size(); ++b) {
    BasicBlock &block = fn.blocks[b];
    succs.clear();
    bool fallsThrough = true;
    if (block.numInstrs) {
      const Instruction &last = fn.instrs[block.firstInstr + block.numInstrs - 1];
      uint32_t flags = table.info(last.opcode).flags;
      if (flags & iflag::Branch) {
        for (const Operand &o : fn.operandsOf(last)) {
          if (auto t = targetOf(o)) succs.push_back(*t);
          // brx.idx names a .branchtargets list.
          if (o.kind == OperandKind::Symbol)
            for (const TargetList &tl : fn.targetLists)
              if (tl.name == o.id && !tl.calls)
                for (Name l : tl.targets) {
                  auto it = blockOfLabel.find(l);
                  if (it != blockOfLabel.end()) succs.push_back(it->second);
                }
        }
      }
      // A guarded branch, return or exit may be skipped; an unguarded one
      // never falls through.
      if (flags & (iflag::Branch | iflag::NoFallthrough)) fallsThrough = last.hasGuard;
    }
    if (fallsThrough && b + 1 < fn.blocks.size()) succs.push_back(b + 1);
    std::sort(succs.begin(), succs.end());
    succs.erase(std::unique(succs.begin(), succs.end()), succs.end());
    block.succBegin = static_cast<uint32_t>(fn.edges.size());
    block.numSuccs = static_cast<uint32_t>(succs.size());
    fn.edges.insert(fn.edges.end(), succs.begin(), succs.end());
  }
  size_t numEdges = fn.edges.size();
  for (const BasicBlock &block : fn.blocks)
    for (uint32_t i = 0; i < block.numSuccs; ++i) ++fn.blocks[fn.edges[block.succBegin + i]].numPreds;
  uint32_t next = static_cast<uint32_t>(numEdges);
  for (BasicBlock &block : fn.blocks) {
    block.predBegin = next;
    next += block.numPreds;
    block.numPreds = 0;
  }
  fn.edges.resize(next);
  for (uint32_t b = 0; b < fn.blocks.size(); ++b) {
    const BasicBlock &block = fn.blocks[b];
    for (uint32_t i = 0; i < block.numSuccs; ++i) {
      BasicBlock &s = fn.blocks[fn.edges[block.succBegin + i]];
      fn.edges[s.predBegin + s.numPreds++] = b;
    }
  }
}

} // namespace ptx
