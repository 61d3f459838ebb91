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

private:
  /// The loop, compiled twice: with instructionExecuted events and without
  /// (a launch without such observers pays nothing for them).
  template <bool Observed> static void step(Cta &cta, Warp &w, uint64_t budget);
  static void barrier(Cta &cta, Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  static void branchIndexed(Cta &cta, Warp &w, const DInstr &in, uint32_t active, uint32_t mask, uint32_t pc);
  /// Starts a device-function call; false after reporting why it cannot.
  static bool call(Cta &cta, Warp &w, const DInstr &in, uint32_t mask, uint32_t pc);
  /// Ends the innermost call once all its lanes returned.
  static void finishCall(Cta &cta, Warp &w);
};

} // namespace emu
