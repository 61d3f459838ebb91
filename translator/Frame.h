// The contract between compiled kernel code and the engine that calls it:
// the frame one call reads and writes, and the host services compiled code
// calls (instruction handlers, special registers, the memory fast path).
// Plain C types only: compiled code addresses the frame's fields by offset.
#pragma once

#include <cstddef>
#include <cstdint>

namespace emu {
class Cta;
struct Warp;
struct Kernel;
} // namespace emu

namespace translator {

/// One call of a kernel's compiled code: run the warp's running group (lanes
/// `active`, reconverging at `reconverge`) from `pc`, spending at most
/// `budget` units as the interpreter's loop spends them (one per instruction,
/// one per pop of the reconvergence stack), and stop where the interpreter
/// must take over (a control instruction other than a branch, the end of the
/// budget, a fault, a pop that ends a call or the warp). Divergent branches
/// and reconvergence run in compiled code through the services, which move
/// the warp's SIMT stack exactly as the interpreter's loop would and set
/// `pc`, `active` and `reconverge` to the group that runs next. On return
/// `pc` is where the warp's top group goes on, `budget` what is left, `pops`
/// the units of it spent popping, and `threadInstructions` what the executed
/// instructions' lanes add up to.
struct JitFrame {
  uint64_t *regs; // the warp's registers: register r of lane l at regs[r * 32 + l]
  emu::Cta *cta;
  emu::Warp *warp;
  const emu::Kernel *kernel;
  uint64_t budget;
  uint64_t threadInstructions;
  uint32_t pc;
  uint32_t active;
  uint32_t reconverge;
  /// Set when the services filled a window (ptxvm_jit_direct): the engine
  /// then keeps the windows for the CTA's next slices.
  uint32_t windowsChanged = 0;
  uint64_t pops = 0;
  /// The warp's instruction count and the budget when the engine called,
  /// and the budget left counting the instruction being executed, which
  /// compiled code stores before it calls a service: the services set
  /// Warp::warpInstructions from them, so that what depends on it (memory
  /// events' instances, %clock) reads as on the interpreter.
  uint64_t instructionsAtStart = 0, budgetAtStart = 0, budgetNow = 0;
  /// The kernel's parameter buffer (paramBytes 0 when an observer wants
  /// memory events: every ld.param then takes the handler's checked path).
  const uint8_t *params = nullptr;
  uint64_t paramBytes = 0;
  /// The CTA's local memory (thread t's frame of localBytes at t *
  /// localBytes; null when an observer wants memory events).
  uint8_t *local = nullptr;
  uint64_t localBytes = 0;
  /// The running function's .param frame (lane l's at l * its frameBytes;
  /// null when an observer wants memory events). Compiled code never spans
  /// a call, so it stays the same during one call of compiled code.
  uint8_t *callFrame = nullptr;
  /// What special registers read that is the same in every lane: %ntid,
  /// %ctaid, %nctaid (x, y, z), %warpid, %nwarpid; whether the block is
  /// one-dimensional (then %tid.x is warp * 32 + lane, %tid.y = %tid.z = 0);
  /// and whether every warp's lanes are one row of the block (one-dimensional,
  /// or %ntid.x a multiple of 32: lane l's %tid.x is the first lane's plus l,
  /// and %tid.y and %tid.z are the same in every lane).
  uint32_t ntid[3] = {}, ctaid[3] = {}, nctaid[3] = {};
  uint32_t warpIndex = 0, warps = 0, linearBlock = 0, warpRows = 0;
  /// The memory fast path's last answers: device addresses [lo, end) are
  /// host addresses a + delta. Window 0 serves shared-memory offsets,
  /// 1-4 global addresses, 5-7 generic ones (a generic window may map the
  /// shared window, which a global access must never reach); memory
  /// instructions take turns over their space's windows, so that a loop
  /// over several arrays keeps each in its own.
  /// Empty (lo > end) until the first access.
  struct Window {
    uint64_t lo = 1, end = 0, delta = 0;
  } windows[8];
  /// The warp's CC.CF (emu::Warp::carry, one bit per lane): add.cc, addc,
  /// sub.cc, subc, mad.cc and madc in compiled code read and write it where
  /// their handlers do.
  uint32_t *carry = nullptr;
  /// The CTA's executed warp instructions when the engine called: the services set
  /// Cta::executed from it as they set the warp's count, so that observers stamping events with
  /// it (the timeline's steps) see the interpreter's numbers.
  uint64_t ctaExecutedAtStart = 0;
};

/// Byte offsets of the frame's fields, for the code generator.
namespace frame {
constexpr uint64_t kRegs = offsetof(JitFrame, regs);
constexpr uint64_t kBudget = offsetof(JitFrame, budget);
constexpr uint64_t kThreads = offsetof(JitFrame, threadInstructions);
constexpr uint64_t kPc = offsetof(JitFrame, pc);
constexpr uint64_t kActive = offsetof(JitFrame, active);
constexpr uint64_t kReconverge = offsetof(JitFrame, reconverge);
constexpr uint64_t kPops = offsetof(JitFrame, pops);
constexpr uint64_t kWindows = offsetof(JitFrame, windows);
constexpr uint64_t kBudgetNow = offsetof(JitFrame, budgetNow);
constexpr uint64_t kParams = offsetof(JitFrame, params);
constexpr uint64_t kParamBytes = offsetof(JitFrame, paramBytes);
constexpr uint64_t kLocal = offsetof(JitFrame, local);
constexpr uint64_t kLocalBytes = offsetof(JitFrame, localBytes);
constexpr uint64_t kCallFrame = offsetof(JitFrame, callFrame);
constexpr uint64_t kNtid = offsetof(JitFrame, ntid);
constexpr uint64_t kCtaid = offsetof(JitFrame, ctaid);
constexpr uint64_t kNctaid = offsetof(JitFrame, nctaid);
constexpr uint64_t kWarpIndex = offsetof(JitFrame, warpIndex);
constexpr uint64_t kWarps = offsetof(JitFrame, warps);
constexpr uint64_t kLinearBlock = offsetof(JitFrame, linearBlock);
constexpr uint64_t kWarpRows = offsetof(JitFrame, warpRows);
constexpr uint64_t kCarry = offsetof(JitFrame, carry);
constexpr uint64_t kWindowBytes = sizeof(JitFrame::Window);
constexpr unsigned kSharedWindow = 0;
constexpr unsigned kFirstGlobalWindow = 1, kGlobalWindows = 4;
constexpr unsigned kFirstGenericWindow = 5, kGenericWindows = 3;
} // namespace frame

/// Compiled kernel code: runs blocks as JitFrame says.
using CompiledFunction = void (*)(JitFrame *);

} // namespace translator

// Host services of compiled code (translator/Services.cpp), by these names.
extern "C" {
/// Runs instruction `pc` through the interpreter's handler for lanes `mask`;
/// nonzero when it faulted (the CTA failed).
int ptxvm_jit_handler(translator::JitFrame *f, uint32_t pc, uint32_t mask);
/// Operand `op` of instruction `pc` in all 32 lanes (special registers).
void ptxvm_jit_operand(translator::JitFrame *f, uint32_t pc, uint32_t op, uint64_t *out);
/// The memory fast path of a warp's access (emu::directAccess): nonzero with
/// `*delta` set so that the host address of device address a is a + delta,
/// and window `window` (JitFrame::windows) set to the whole allocation
/// or shared memory around it; 0 when the access needs the checked path
/// (the handler).
int ptxvm_jit_direct(translator::JitFrame *f, uint32_t space, uint32_t window, uint64_t lo, uint64_t hi,
                     uint64_t bits, uint32_t size, uint64_t *delta);
/// Branch `pc` (already counted) splits the running group: lanes `taken` go
/// to its target. Pushes the two sides as the interpreter's loop does
/// (Cta::diverge) and sets pc, active and reconverge to the side that runs
/// first.
void ptxvm_jit_diverge(translator::JitFrame *f, uint32_t pc, uint32_t taken);
/// The running group stands at `f->pc`, its reconvergence point: pops the
/// SIMT stack as the interpreter's loop does (one budget unit per pop) until
/// a group can run, and sets pc, active and reconverge to it. 0 when the
/// interpreter must go on instead (the budget is spent, a pop would end a
/// call or the warp, the next group waits at a barrier or fell off the end);
/// `f->pc` is then the top group's pc.
int ptxvm_jit_reconverge(translator::JitFrame *f);
}
