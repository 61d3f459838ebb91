// The CPU device (`--device cpu`): the emulator's device whose kernels run
// as native code compiled through LLVM (translator/), under the same CTA
// scheduler, barriers, memory checks and reports. A kernel the translator
// cannot compile runs on the interpreter, with a note saying so.
#pragma once

#include "runtime/Device.h"

#include <memory>

namespace runtime {

std::unique_ptr<Device> makeCpuDevice();

} // namespace runtime
