// libFuzzer target for everything after the front end: any PTX that parses
// and verifies is analysed (divergence, affine, barrier checks; also for the
// launch below, with its grid and arguments) and each of
// its kernels runs on the emulator (two CTAs, buffers for pointer
// parameters, a small instruction limit). Nothing may crash, hang or leak:
// a faulting, deadlocking or unsupported kernel ends with diagnostics.
#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(std::string(reinterpret_cast<const char *>(data), size), "fuzz.ptx", diags);
  if (diags.hasErrors()) return 0;
  ptx::verifyModule(*m, diags);
  if (diags.hasErrors()) return 0;
  emu::Device device;
  // Below libFuzzer's 2 GB malloc limit: a module-scope array of gigabytes
  // is then refused (cudaErrorMemoryAllocation), as on a device without that
  // much memory, instead of allocated.
  device.global.setCapacity(uint64_t{1} << 30);
  for (const ptx::Function &f : m->functions) {
    if (!f.isKernel || !f.hasBody) continue;
    analysis::DivergenceResult divergence = analysis::analyzeDivergence(*m, f, analysis::DivergenceOptions{});
    (void)analysis::checkBarriers(*m, divergence);
    ptx::DiagnosticList run;
    auto kernel = device.decode(*m, m->str(f.name), run);
    if (!kernel) continue;
    emu::LaunchConfig config;
    config.grid = {2, 1, 1};
    config.block = {64, 1, 1};
    for (const ptx::FunctionDirective &d : f.directives)
      if (d.kind == ptx::DirectiveKind::ReqNTid && !d.values.empty())
        config.block = {std::min(d.values[0], 1024u), d.values.size() > 1 ? std::min(d.values[1], 8u) : 1,
                        d.values.size() > 2 ? std::min(d.values[2], 8u) : 1};
    config.dynamicShared = 256;
    config.threads = 1;
    config.maxInstructions = 20'000;
    config.params.assign(kernel->paramBytes, 0);
    for (size_t i = 0; i < kernel->paramOffsets.size(); ++i) {
      // Pointers get a buffer; other parameters a small count.
      uint64_t value = kernel->paramSizes[i] == 8 ? device.global.allocate(4096) : 7;
      std::memcpy(config.params.data() + kernel->paramOffsets[i], &value,
                  std::min<size_t>(8, kernel->paramSizes[i]));
    }
    // The analysis again for this launch: its block, grid and arguments
    // (bounded %ctaid, constant parameters).
    analysis::DivergenceOptions launch;
    launch.block = analysis::LaunchShape::exact(config.block.x, config.block.y, config.block.z);
    launch.grid = {config.grid.x, config.grid.y, config.grid.z};
    for (size_t i = 0; i < kernel->paramOffsets.size(); ++i) {
      const auto begin = config.params.begin() + kernel->paramOffsets[i];
      launch.arguments.emplace_back(begin, begin + kernel->paramSizes[i]);
    }
    (void)analysis::checkBarriers(*m, analysis::analyzeDivergence(*m, f, launch));
    device.launch(*kernel, config, run);
    for (const ptx::Diagnostic &d : run.all()) (void)d.renderText();
  }
  return 0;
}
