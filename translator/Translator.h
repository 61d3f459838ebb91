// The CPU backend: compiles a kernel's decoded code to native code through
// LLVM (Codegen.h) and runs it as an emulator engine, under the emulator's
// CTA scheduler, SIMT stack, named barriers and memory checks.
#pragma once

#include "emulator/Engine.h"
#include "translator/Codegen.h"
#include "translator/Frame.h"

#include <memory>
#include <string>

namespace emu {
struct Kernel;
}

namespace translator {

/// How a kernel was compiled, for --report and the closing numbers.
struct CompileReport {
  CodegenStats code;
  double seconds = 0; // IR generation, optimization and machine code
  std::string error;  // why it runs on the interpreter instead (empty: compiled)
};

/// An engine for one kernel: its warps run compiled code for straight-line
/// blocks and uniform branches, and the interpreter's loop for the rest.
class CompiledEngine final : public emu::Engine, public emu::Accelerator {
public:
  /// `functions[pc]`: the compiled code that starts at pc (null: none).
  CompiledEngine(const emu::Kernel &k, std::vector<CompiledFunction> functions)
      : kernel_(k), functions_(std::move(functions)) {}
  emu::WarpStop run(emu::Cta &cta, emu::Warp &w, uint64_t budget) override;
  uint64_t run(emu::Cta &cta, emu::Warp &w, emu::SimtEntry &top, uint32_t active, uint64_t budget) override;

private:
  const emu::Kernel &kernel_;
  std::vector<CompiledFunction> functions_;
};

/// Compiles kernel `k` (which must outlive the engine). Null, with
/// report.error saying why, when it cannot be compiled.
std::unique_ptr<CompiledEngine> compileKernel(const emu::Kernel &k, CompileReport &report);

} // namespace translator
