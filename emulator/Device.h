// The emulated device: global memory, the modules loaded on it (their
// globals and constant banks), and kernel launches that run CTAs on a pool
// of host threads.
#pragma once

#include "emulator/Cta.h"
#include "emulator/Kernel.h"
#include "emulator/Memory.h"
#include "ptx/Diagnostic.h"
#include "ptx/IR.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace emu {

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamicShared = 0;
  std::vector<uint8_t> params;                  // laid out per Kernel::paramOffsets
  unsigned threads = 0;                         // host threads; 0 = all cores
  uint64_t maxInstructions = 20'000'000'000ull; // per CTA, warp instructions
  bool racecheck = false;                       // --racecheck: shared-memory races between warps
  bool randomSchedule = false;                  // --schedule=random
  uint64_t seed = 0;
};

struct LaunchResult {
  bool ok = false;
  std::string status; // "completed" or "failed"
  std::string error;  // the CUDA error a GPU would return, e.g. cudaErrorIllegalAddress
  uint64_t warpInstructions = 0, threadInstructions = 0;
  double wallSeconds = 0;
  CtaStats stats; // summed over CTAs
  /// Per warp index within a CTA, summed over CTAs: warp and thread
  /// instructions (their ratio / 32 is that warp's SIMD efficiency).
  std::vector<std::pair<uint64_t, uint64_t>> perWarp;
};

/// Where a module-level symbol lives on the device.
struct SymbolLocation {
  Space space = Space::Global;
  uint64_t address = 0; // device address (global), or offset (const, shared, local)
  uint64_t size = 0;
};

class Device {
public:
  GlobalMemory global;

  /// Decodes a kernel of `m`; errors (unknown kernel, bad PTX) go to `diags`.
  std::unique_ptr<Kernel> decode(const ptx::Module &m, std::string_view kernel, ptx::DiagnosticList &diags);

  LaunchResult launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags);

  /// The location of a module-level variable, allocating and initialising
  /// the module's globals on first use.
  const SymbolLocation *symbol(const ptx::Module &m, ptx::Name name);
  /// The constant bank of a module (its .const variables, initialised).
  const std::vector<uint8_t> &constBank(const ptx::Module &m);

private:
  struct LoadedModule {
    std::unordered_map<ptx::Name, SymbolLocation> symbols;
    std::vector<uint8_t> constBank;
    uint32_t sharedBytes = 0; // module-level .shared variables
  };
  LoadedModule &load(const ptx::Module &m);
  std::mutex mutex_;
  std::map<const ptx::Module *, LoadedModule> modules_;
  friend class Decoder;
};

} // namespace emu
