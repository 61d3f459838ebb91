// The execution-engine seam: the CTA scheduler drives each warp through an
// Engine, which runs the warp's current group from its pc until something
// needs the scheduler. The interpreter (Interpreter.h) is the first engine;
// a JIT-compiled engine implements the same interface and reuses the
// scheduler, the SIMT stack (Cta::diverge, exitLanes, park), the named-barrier
// unit, the cluster barrier, deadlock reports, memory checks and observers.
#pragma once

#include <cstdint>

namespace emu {

class Cta;
struct Warp;
struct SimtEntry;

/// Why an engine gave a warp back to the scheduler.
enum class WarpStop : uint8_t {
  Exited,  // every lane of the warp exited
  Blocked, // its running group waits at a barrier (named, cluster) and no other group can run
  Budget,  // it used up its instruction budget; it can go on later
  Failed,  // it reported an error that ends the CTA (fault, trap, unsupported, bad barrier)
};

class Engine {
public:
  virtual ~Engine() = default;
  /// Runs warp `w` of `cta` for at most `budget` warp instructions. Calls to
  /// host services (HostFunctions.h) are served on the way, synchronously:
  /// they never leave a warp waiting for the scheduler. An engine counts
  /// what it executes with Cta::countInstruction.
  virtual WarpStop run(Cta &cta, Warp &w, uint64_t budget) = 0;
};

/// Compiled code the interpreter's loop hands straight-line runs and branches
/// to (the LLVM translator): it runs the warp's groups from the running
/// group's pc through straight-line code, branches, divergence and
/// reconvergence, moving the warp's SIMT stack as the loop would, and leaves
/// everything else (barriers, calls, exits, pops that end a call) to the
/// loop, so that every engine shares one SIMT and barrier machinery.
class Accelerator {
public:
  virtual ~Accelerator() = default;
  /// Runs warp `w` from group `top` (lanes `active` of it, the stack's top)
  /// for at most `budget` units of the loop's budget (one per instruction,
  /// one per pop of the stack), leaving the stack's top group's pc where it
  /// stopped and counting what it ran (Cta::executed,
  /// Warp::warpInstructions, threadInstructions) as the interpreter would.
  /// Returns the units it spent: 0 when it cannot start at top.pc, and the
  /// interpreter runs that instruction instead. `top` may not be the
  /// stack's top on return.
  virtual uint64_t run(Cta &cta, Warp &w, SimtEntry &top, uint32_t active, uint64_t budget) = 0;
};

} // namespace emu
