// A kernel's ABI layout: where its parameters lie in the parameter buffer,
// how much shared and local memory a CTA and a thread need, where alloca's
// stack begins, and which constant bank it reads. Everything a device or an
// execution engine needs to launch the kernel besides the code itself, so
// that an engine that does not run the interpreter's decoded code shares it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace emu {

struct KernelLayout {
  std::string name;
  uint32_t paramBytes = 0;
  std::vector<uint32_t> paramOffsets; // per kernel parameter, into the parameter buffer
  std::vector<uint32_t> paramSizes;
  uint32_t staticShared = 0; // bytes of .shared declared by the kernel and module
  uint32_t localBytes = 0;   // per thread, including the alloca stack
  // alloca's stack (kernels that use it): local offsets [stackBase, localBytes),
  // growing down from localBytes.
  uint32_t stackBase = 0;
  // The module's constant bank: its generic address, size and bytes.
  uint64_t constAddress = 0;
  uint32_t constSize = 0;
  uint8_t *constBytes = nullptr;
};

} // namespace emu
