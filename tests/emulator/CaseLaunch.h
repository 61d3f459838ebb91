// Launching a tests/gpu `.case` on the emulator: its buffers allocated and
// filled as the GPU recorder fills them, its scalars and shape in the launch
// configuration. Shared by the GPU-truth comparison and the analysis
// soundness check.
#pragma once

#include "emulator/Device.h"
#include "tools/gpu-record/gpu_case.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptxvm::test {

struct CaseBuffers {
  std::vector<std::vector<uint8_t>> inputs;           // initial contents, per buffer argument
  std::vector<std::pair<uint64_t, size_t>> addresses; // device address and size, per buffer argument
};

/// Fills `config` (shape, shared memory, cooperative, parameters) for case
/// `c` and allocates its buffers on `device`.
CaseBuffers prepareCase(const gpucase::Case &c, emu::Device &device, const emu::Kernel &kernel,
                        emu::LaunchConfig &config);

/// The -G build of a case's corpus file (PTXVM_CORPUS_DIR/X.sm_80.G.ptx for
/// tests/gpu/ptx/X.sm_80.ptx), or empty when the case's PTX is not one or
/// the corpus was not built.
std::string debugBuildPath(const gpucase::Case &c);

/// The final contents of the buffers.
std::vector<std::vector<uint8_t>> readBuffers(emu::Device &device, const CaseBuffers &buffers);

} // namespace ptxvm::test
