// The emulated device: global memory, the modules loaded on it (their
// globals and constant banks), and kernel launches that run CTAs on a pool
// of host threads.
#pragma once

#include "emulator/Cta.h"
#include "emulator/Engine.h"
#include "emulator/HostFunctions.h"
#include "emulator/Kernel.h"
#include "emulator/Memory.h"
#include "emulator/Statistics.h"
#include "emulator/Texture.h"
#include "ptx/Diagnostic.h"
#include "ptx/IR.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace emu {

struct LaunchConfig {
  Dim3 grid, block;
  /// Thread-block cluster shape of a launch (cudaLaunchAttributeClusterDimension);
  /// 1x1x1 takes the kernel's .reqnctapercluster, if any.
  Dim3 cluster;
  uint32_t dynamicShared = 0;
  std::vector<uint8_t> params;                  // laid out per Kernel::paramOffsets
  unsigned threads = 0;                         // host threads; 0 = all cores
  uint64_t maxInstructions = 20'000'000'000ull; // per launch, warp instructions over all CTAs
  double timeoutSeconds = 0;                    // wall clock per launch; 0 = none (--timeout)
  bool racecheck = false;                       // --racecheck: shared-memory races between warps
  bool statistics = false;                      // fill LaunchResult::stats (--stats)
  /// With statistics: count memory accesses per space too. Every access then
  /// reaches the observers one lane at a time (compiled code's through the
  /// checked path): off where only branches and barrier waits are wanted.
  bool memoryStatistics = true;
  bool randomSchedule = false; // --schedule=random
  uint64_t seed = 0;
  /// cudaLaunchCooperativeKernel: every CTA resident at once (interleaved
  /// on the host threads), and a zeroed grid-barrier workspace in
  /// %envreg1:%envreg2 for cooperative groups' grid.sync().
  bool cooperative = false;
  /// What the caller names this launch by: host functions see it
  /// (HostCall::launchTag), so that a runtime running launches of several
  /// streams at once keeps their printf output apart.
  uint64_t tag = 0;
  /// The engine the CTAs' warps run on (compiled code for this kernel);
  /// null: the interpreter.
  Engine *engine = nullptr;
  /// See every CTA's execution (recorders, checkers, traces), each in turn;
  /// racecheck and statistics add their own.
  std::vector<LaunchObserver *> observers;
};

/// How a launch ended. Which CUDA error a failed launch gives is the
/// runtime's business (runtime::launchError reads it from the diagnostics).
struct LaunchResult {
  bool ok = false; // completed without an error diagnostic (race findings aside)
  uint64_t warpInstructions = 0, threadInstructions = 0;
  double wallSeconds = 0;
  CtaStats stats; // summed over CTAs when LaunchConfig::statistics
  /// Per warp index within a CTA, summed over CTAs: warp and thread
  /// instructions (their ratio / 32 is that warp's SIMD efficiency).
  std::vector<std::pair<uint64_t, uint64_t>> perWarp;
};

/// Where a module-level symbol lives on the device.
/// Device function "addresses" (mov of a function's name, function pointer
/// tables and vtables in .global initializers): this tag | the function's
/// index in its module.
constexpr uint64_t kFunctionTag = 0xF00D'0000'0000'0000ull;
/// The index of each function of a module by name: a device function's
/// "address" is kFunctionTag | this index (ModuleLoad.cpp).
std::unordered_map<ptx::Name, uint32_t> functionIndices(const ptx::Module &m);

struct SymbolLocation {
  Space space = Space::Global;
  uint64_t address = 0; // device address (global), or offset (const, shared, local)
  uint64_t size = 0;
};

class Device {
public:
  GlobalMemory global;
  /// Texture and surface objects by handle (the runtime's
  /// cudaCreateTextureObject and cudaCreateSurfaceObject fill it).
  TextureTable textures;

  /// Decodes a kernel of `m`; errors (unknown kernel, bad PTX) go to `diags`.
  std::unique_ptr<Kernel> decode(const ptx::Module &m, std::string_view kernel, ptx::DiagnosticList &diags);

  LaunchResult launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags);

  /// The location of a module-level variable, allocating and initialising
  /// the module's globals on first use.
  const SymbolLocation *symbol(const ptx::Module &m, ptx::Name name);
  /// The constant bank of a module (its .const variables, initialised). It
  /// lives in the global heap, as on hardware: a generic pointer to a
  /// __constant__ variable is a global address (see constBankAddress).
  std::span<const uint8_t> constBank(const ptx::Module &m);
  /// The generic (global) address of the first byte of a module's constant
  /// bank: `cvta.const` adds it, `cvta.to.const` subtracts it.
  uint64_t constBankAddress(const ptx::Module &m);
  /// Writes into a module's constant bank between launches (what
  /// cudaMemcpyToSymbol does to a __constant__ variable); false when the
  /// range is outside the bank.
  bool writeConstBank(const ptx::Module &m, uint64_t offset, const void *data, uint64_t size);

  /// Serves calls to `.extern .func NAME` (declared without a body) with a
  /// host callback (HostFunctions.h). Set before decoding the kernels that
  /// call it; calls to extern functions without one stay `unsupported`.
  void setHostFunction(std::string name, HostFunction function);
  /// The address device code uses for host function `name` as module `m`
  /// declares it, or 0 when no host function serves that name (decoder).
  uint64_t hostFunctionAddress(const ptx::Module &m, ptx::Name name);
  /// The callee behind such an address, or nullptr.
  const HostCallee *hostCallee(uint64_t address);

  /// Where module-level .global variables live: when set and it returns
  /// nonzero, that device address is used instead of a fresh allocation (a
  /// runtime places __managed__ variables in memory the host shares).
  std::function<uint64_t(const ptx::Module &m, const ptx::Variable &v, uint64_t bytes)> placeGlobal;

private:
  struct LoadedModule {
    std::unordered_map<ptx::Name, SymbolLocation> symbols;
    uint64_t constAddress = 0; // of the bank's global allocation
    uint32_t constSize = 0;
    uint8_t *constBytes = nullptr; // the allocation's bytes
    uint32_t sharedBytes = 0;      // module-level .shared variables
    // Why the module cannot be loaded (a layout past the device's limits),
    // its PTX line and the CUDA error a driver gives; empty when it loaded.
    std::string error;
    uint32_t errorLine = 0;
    const char *errorCuda = "";
  };
  LoadedModule &load(const ptx::Module &m);
  std::mutex mutex_;
  std::map<const ptx::Module *, LoadedModule> modules_;
  std::mutex hostMutex_;
  std::map<std::string, HostFunction, std::less<>> hostFunctions_;
  std::deque<HostCallee> hostCallees_; // index = address - kHostFunctionTag
  std::map<std::pair<const ptx::Module *, ptx::Name>, uint64_t> hostAddresses_;
  friend class Decoder;
};

} // namespace emu
