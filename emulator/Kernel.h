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

/// Modifiers without a DInstr field of their own that a handler's choice
/// or behaviour depends on, decoded once into DInstr::mods.
namespace dmod {
enum : uint32_t {
  Relu = 1u << 0,
  NaN = 1u << 1,
  XorSign = 1u << 2,
  Abs = 1u << 3,
  Full = 1u << 4,      // div.full
  SatFinite = 1u << 5, // .satfinite
  Sync = 1u << 6,      // shfl.sync written as shfl.MODE.sync
  Clamp = 1u << 7,
  Shiftamt = 1u << 8,
  Left = 1u << 9,             // shf.l
  To = 1u << 10,              // cvta.to
  Global = 1u << 11,          // a .global state space anywhere in the modifiers
  ExpectTx = 1u << 12,        // mbarrier .expect_tx
  NoComplete = 1u << 13,      // mbarrier .noComplete
  Parity = 1u << 14,          // mbarrier .parity
  Noinc = 1u << 15,           // cp.async.mbarrier.arrive.noinc
  CpMask = 1u << 16,          // cp.async.bulk .cp_mask
  BulkGroup = 1u << 17,       // .bulk_group completion
  CompleteTxBytes = 1u << 18, // .mbarrier::complete_tx::bytes completion
  VmadPo = 1u << 19,
  VmadShr7 = 1u << 20,
  VmadShr15 = 1u << 21,
  PrmtF4e = 1u << 22, // prmt modes: six consecutive bits
  PrmtB4e = 1u << 23,
  PrmtRc8 = 1u << 24,
  PrmtEcl = 1u << 25,
  PrmtEcr = 1u << 26,
  PrmtRc16 = 1u << 27,
  Formatted = 1u << 28, // sust.p, sured.p: texels in the surface's format
};
} // namespace dmod
/// The dmod bit of a modifier (0 for modifiers no handler asks about).
uint32_t dmodOf(ptx::Mod m);

struct DInstr {
  Handler run = nullptr;
  Control control = Control::Next;
  uint8_t numOps = 0;
  bool guardNegated = false;
  ptx::Opcode opcode{};
  ptx::Type type = ptx::Type::None;  // the last type modifier
  ptx::Type type0 = ptx::Type::None; // the first (cvt's destination)
  ptx::Type type1 = ptx::Type::None; // the second, when there are three (video's atype)
  Space space = Space::Generic;      // state-space modifier of memory instructions
  uint8_t vec = 1;                   // .v2/.v4/.v8
  ptx::Mod op = ptx::Mod::None;      // comparison / operation selector
  ptx::Mod op2 = ptx::Mod::None;     // second selector (setp's boolean op)
  ptx::Mod rounding = ptx::Mod::None;
  /// Texture and surface instructions: the geometry (.1d, .2d, .a2d, ...);
  /// `op` holds what selects among their forms (tex .base/.level/.grad, the
  /// tld4 component, the txq/suq query, the suld/sust clamping; sured keeps
  /// its reduction in `op` and the clamping in `op2`).
  ptx::Mod shape = ptx::Mod::None;
  bool ftz = false, sat = false, hi = false, wide = false, cc = false;
  // CTA barriers: the table's BARRIER row, and whether this one is .aligned.
  ptx::BarrierKind barrier = ptx::BarrierKind::None;
  bool aligned = false;
  uint8_t barrierIdOperand = 0; // the thread count, when given, follows it
  uint32_t mods = 0;            // dmod:: bits
  int32_t guard = -1;           // predicate register, -1 when unguarded
  uint32_t firstOp = 0;         // into Kernel::ops
  uint32_t target = 0;          // branch target pc; brx.idx: first entry in Kernel::targetTables
  uint32_t numTargets = 0;      // brx.idx: entries in its table
  uint32_t reconverge = 0;      // immediate post-dominator pc of a branch
  uint32_t irIndex = 0;         // into its function's instrs, for diagnostics
  uint32_t desc = 0;            // into Module::descs
  uint16_t function = 0;        // into Kernel::regions: the function it belongs to
  // call: operand positions of the result list, the target, the argument
  // list (-1 when absent).
  int8_t callResults = -1, callTarget = -1, callArgs = -1;
  /// How many leading operands the instruction writes whole in every lane it
  /// executes in (destination registers and register vectors; 0 for tensor
  /// instructions, which accumulate into theirs). For liveness in translator/.
  uint8_t dests = 0;
};

/// A device function's place in a kernel's code, and its frame layout.
struct CodeRegion {
  const ptx::Function *function = nullptr;
  uint32_t entry = 0, end = 0;    // pcs [entry, end)
  uint32_t numRegisters = 0;      // 64-bit slots per lane, .b128 high halves included
  std::vector<uint32_t> highSlot; // per register id: the slot of a .b128 register's high half (0: none)
  /// Per slot: the bits its register is declared with (1 for .pred; 64 for
  /// .b128 halves, vector registers and registers without a declaration).
  /// The interpreter keeps every register zero-extended to 64 bits; the CPU
  /// backend keeps it at this width.
  std::vector<uint8_t> slotBits;
  uint32_t frameBytes = 0;                          // per-lane .param frame: formals, returns, call arguments
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
  /// Register slots of the kernel that may be read before they are written
  /// (live on entry, and sources of shuffles, which read other lanes): a
  /// CTA starts them at 0. The others start as whatever the CTA's recycled
  /// register file held: no lane can observe them.
  std::vector<uint32_t> entrySlots;
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
