// The CPU backend: compiles a kernel's decoded code to native code through
// LLVM (Codegen.h) and runs it as an emulator engine, under the emulator's
// CTA scheduler, SIMT stack, named barriers and memory checks. Compiled code
// is kept per process (identical kernels share it) and on disk (ObjectCache.h);
// a kernel compiles when it is loaded (eager) or once it has run long enough
// on the interpreter (tiered, on a background thread).
#pragma once

#include "emulator/Engine.h"
#include "translator/Codegen.h"
#include "translator/Frame.h"

#include <atomic>
#include <memory>
#include <string>

namespace emu {
struct Kernel;
}

namespace translator {

/// When and how kernels compile.
struct JitOptions {
  /// Compile when the kernel is loaded; otherwise tiered: the kernel starts
  /// on the interpreter and compiles on a background thread once its
  /// launches have run `threshold` warp instructions per PTX instruction of
  /// its code (times one per 32 register slots: compile time grows with
  /// both), its warps switching to compiled code as soon as it is there.
  bool eager = false;
  uint64_t threshold = 2000;
  /// Tiered: the warp whose slice makes the kernel hot compiles it on its
  /// own host thread before it goes on (reproducible switch points, for
  /// tests); otherwise a background thread compiles while warps go on.
  bool synchronous = false;
  /// Use what the divergence and affine analyses prove (Facts.h) in place
  /// of run-time checks; off only to measure what they are worth.
  bool uniformity = true;
  /// Off (--unchecked): compiled code checks a warp's scattered accesses at
  /// its first executing lane only and clamps the other lanes into that
  /// lane's allocation (GenerateOptions::unchecked); faults past the first
  /// lane go unreported, host memory stays out of reach.
  bool checked = true;
  /// The caches of compiled code: in this process (identical kernels
  /// compile once), and on disk (ObjectCache.h).
  bool memoryCache = true;
  bool diskCache = true;
  std::string cacheDirectory; // empty: ObjectCache::defaultDirectory()

  /// PTXVM_JIT=eager|tiered, PTXVM_JIT_THRESHOLD=N, PTXVM_JIT_SYNC=1,
  /// PTXVM_JIT_FACTS=0, PTXVM_UNCHECKED=1, PTXVM_CACHE=off,
  /// PTXVM_CACHE_DIR=DIR (ptxvm's --jit, --no-cache and --cache-dir set them).
  static JitOptions fromEnvironment();
};

/// Waits for the background compilation under way, if any, and drops the
/// queued ones (their kernels go on on the interpreter). The cpu device
/// calls it when it goes away, so that no compilation runs on into the
/// process's exit, where LLVM's statics are destroyed under it.
void drainBackgroundCompiler();

/// Where a kernel's compiled code came from.
enum class CacheResult { Miss, Memory, Disk };
const char *cacheResultName(CacheResult r);

/// How a kernel was compiled, for --report and the closing numbers.
struct CompileReport {
  CodegenStats code;
  double seconds = 0; // IR generation, machine code (or the cache) and linking
  CacheResult cache = CacheResult::Miss;
  bool diskCache = false; // the on-disk cache was consulted
  bool unchecked = false; // compiled with JitOptions::checked off
  std::string key;        // the cache key: a hash of the IR and the target
  std::string error;      // why it runs on the interpreter instead (empty: compiled)
};

/// A kernel's compiled code: per pc, the function that runs from there.
struct CompiledCode {
  std::vector<CompiledFunction> functions;
};

/// What a tiered engine has done so far.
struct TierStatus {
  bool eager = false;       // compiled when loaded
  bool compiled = false;    // compiled code is running (or ready)
  bool requested = false;   // compilation was started
  uint64_t interpreted = 0; // warp instructions run on the interpreter before compiled code
  CompileReport report;     // once compiled (or failed: report.error)
};

struct TierState;

/// An engine for one kernel: its warps run compiled code for straight-line
/// blocks and uniform branches, and the interpreter's loop for the rest.
class CompiledEngine final : public emu::Engine, public emu::Accelerator {
public:
  /// Compiles `k` now (it must outlive the engine). Null, with report.error
  /// saying why, when it cannot be compiled.
  static std::unique_ptr<CompiledEngine> compile(const emu::Kernel &k, const JitOptions &options,
                                                 CompileReport &report);
  /// Runs `k` on the interpreter until it is hot (options.threshold), then
  /// on compiled code.
  static std::unique_ptr<CompiledEngine> tiered(const emu::Kernel &k, const JitOptions &options);
  ~CompiledEngine() override;

  emu::WarpStop run(emu::Cta &cta, emu::Warp &w, uint64_t budget) override;
  uint64_t run(emu::Cta &cta, emu::Warp &w, emu::SimtEntry &top, uint32_t active, uint64_t budget) override;

  TierStatus status() const;
  /// Blocks until a requested compilation has finished (tests, benchmarks).
  void waitForCompilation() const;

private:
  explicit CompiledEngine(std::shared_ptr<TierState> state) : state_(std::move(state)) {}
  std::shared_ptr<TierState> state_;
};

} // namespace translator
