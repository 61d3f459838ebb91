// The interpreter engine: runs a warp over the kernel's decoded code
// (Kernel.h), one handler call per instruction for the lanes that execute
// it. Control instructions go to the shared machinery: the SIMT stack and
// barriers of the Cta, device-function calls here (Calls.cpp).
#pragma once

#include "emulator/Engine.h"
#include "emulator/Kernel.h"

namespace emu {

class Interpreter final : public Engine {
public:
  /// The interpreter holds no state of its own: one serves every CTA.
  static Interpreter &instance();

  WarpStop run(Cta &cta, Warp &w, uint64_t budget) override;
  /// The same loop, offering each straight-line run and branch to
  /// `accelerator` first (a launch with instruction observers never uses it).
  static WarpStop run(Cta &cta, Warp &w, uint64_t budget, Accelerator &accelerator);

private:
  /// The loop, compiled three times: with instructionExecuted events, without
  /// (a launch without such observers pays nothing for them), and with an
  /// accelerator.
  template <bool Observed, bool Accelerated>
  static void step(Cta &cta, Warp &w, uint64_t budget, Accelerator *accelerator);
  static WarpStop stopOf(const Cta &cta, const Warp &w);
  static void barrier(Cta &cta, Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  static void branchIndexed(Cta &cta, Warp &w, const DInstr &in, uint32_t active, uint32_t mask, uint32_t pc);
  /// Starts a device-function call; false after reporting why it cannot.
  static bool call(Cta &cta, Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  /// Ends the innermost call once all its lanes returned.
  static void finishCall(Cta &cta, Warp &w);
};

} // namespace emu
