// Launching a tests/gpu `.case` on the emulator: its buffers allocated and
// filled as the GPU recorder fills them, its scalars and shape in the launch
// configuration. Shared by the GPU-truth comparison and the analysis
// soundness check.
#pragma once

#include "emulator/Device.h"
#include "tools/gpu-record/gpu_case.h"

#include <cstdint>
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

/// The final contents of the buffers.
std::vector<std::vector<uint8_t>> readBuffers(emu::Device &device, const CaseBuffers &buffers);

} // namespace ptxvm::test
