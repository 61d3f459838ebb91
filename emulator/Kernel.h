// The decoded form of a kernel for the interpreter: the IR turned once into
// a flat array of instructions with resolved registers, inline immediates,
// resolved symbol addresses, branch targets with their reconvergence points,
// and a handler chosen per (opcode, types, modifiers). Execution never looks
// at the IR. The ABI layout (KernelLayout.h) is shared with other engines.
#pragma once

#include "emulator/KernelLayout.h"
#include "emulator/Memory.h"
#include "ptx/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace emu {

struct Exec;
struct DInstr;
/// Executes one instruction for the lanes in Exec::mask.
using Handler = void (*)(Exec &x, const DInstr &in);

/// A decoded operand.
struct DOp {
  enum Kind : uint8_t { Reg, Imm, SReg, Addr, Vec, Sink } kind = Sink;
  ptx::Selector selector = ptx::Selector::None;
  Space space = Space::Generic; // Addr: where a symbol base lives
  bool negated = false;         // !p
  bool hasBase = false;         // Addr: a register base
  uint16_t count = 0;           // Vec: elements, at Kernel::ops[reg]
  uint32_t reg = 0;             // Reg/Addr base: register; SReg: ptx::SpecialReg; Vec: first element
  uint64_t imm = 0;             // Imm: bits; Addr: offset, or resolved symbol address + offset;
                                // Reg: the high half's slot of a .b128 register
};

/// How control leaves an instruction, for the interpreter loop.
enum class Control : uint8_t { Next, Branch, BranchIndexed, Exit, Return, Call, Barrier, Unsupported };

struct DInstr {
  Handler run = nullptr;
  Control control = Control::Next;
  uint8_t numOps = 0;
  bool guardNegated = false;
  ptx::Opcode opcode{};
  ptx::Type type = ptx::Type::None;  // the last type modifier
  ptx::Type type0 = ptx::Type::None; // the first (cvt's destination)
  Space space = Space::Generic;      // state-space modifier of memory instructions
  uint8_t vec = 1;                   // .v2/.v4/.v8
  ptx::Mod op = ptx::Mod::None;      // comparison / operation selector
  ptx::Mod op2 = ptx::Mod::None;     // second selector (setp's boolean op)
  ptx::Mod rounding = ptx::Mod::None;
  bool ftz = false, sat = false, hi = false, wide = false, cc = false;
  int32_t guard = -1;      // predicate register, -1 when unguarded
  uint32_t firstOp = 0;    // into Kernel::ops
  uint32_t target = 0;     // branch target pc; brx.idx: first entry in Kernel::targetTables
  uint32_t numTargets = 0; // brx.idx: entries in its table
  uint32_t reconverge = 0; // immediate post-dominator pc of a branch
  uint32_t irIndex = 0;    // into its function's instrs, for diagnostics
  uint32_t desc = 0;       // into Module::descs
  uint16_t function = 0;   // into Kernel::regions: the function it belongs to
  // call: operand positions of the result list, the target, the argument
  // list (-1 when absent).
  int8_t callResults = -1, callTarget = -1, callArgs = -1;
};

/// A device function's place in a kernel's code, and its frame layout.
struct CodeRegion {
  const ptx::Function *function = nullptr;
  uint32_t entry = 0, end = 0;    // pcs [entry, end)
  uint32_t numRegisters = 0;      // 64-bit slots per lane, .b128 high halves included
  std::vector<uint32_t> highSlot; // per register id: the slot of a .b128 register's high half (0: none)
  uint32_t frameBytes = 0;        // per-lane .param frame: formals, returns, call arguments
  std::vector<uint32_t> paramOffsets, paramSizes;   // formal parameters in the frame
  std::vector<uint32_t> returnOffsets, returnSizes; // return parameters in the frame
  bool recursiveWithLocals = false;                 // calls to it are reported unsupported
};

/// Bytes of alloca stack per thread (CUDA's default cudaLimitStackSize).
constexpr uint32_t kAllocaStackBytes = 1024;

/// A kernel ready to run on the interpreter: its ABI layout (the base) and
/// its decoded code.
struct Kernel : KernelLayout {
  const ptx::Module *module = nullptr;
  const ptx::Function *function = nullptr; // the kernel
  std::vector<CodeRegion> regions;         // [0] is the kernel, then device functions
  std::vector<uint32_t> regionOfFunction;  // module function index -> region (UINT32_MAX: none)
  std::vector<DInstr> code;
  std::vector<DOp> ops;
  std::vector<uint32_t> targetTables; // brx.idx targets, as pcs
  uint32_t numRegisters = 0;
  uint32_t exitPc = 0; // one past the last instruction: reconvergence at exit

  const KernelLayout &layout() const { return *this; }
  const DOp &op(const DInstr &in, unsigned i) const { return ops[in.firstOp + i]; }
  const ptx::InstrDesc &desc(const DInstr &in) const { return module->descs[in.desc]; }
  const ptx::Function &functionOf(const DInstr &in) const { return *regions[in.function].function; }
  const ptx::Instruction &instr(const DInstr &in) const { return functionOf(in).instrs[in.irIndex]; }
  /// PTX line of instruction `pc`.
  uint32_t line(uint32_t pc) const;
};

} // namespace emu
