// Kernel times for the CUDA shim (`ptxvm exec --device gpu --time-kernels`, PTXVM_TIME_KERNELS=1):
// cuLaunchKernel and cuLaunchKernelEx (and their per-thread-stream forms) are bracketed by two
// events on the launch's stream, and each launch's kernel, shape and milliseconds go to the
// report. Timing waits for each kernel, so launches no longer overlap the host.
#pragma once

#include <boost/json/array.hpp>

#include <cstdint>

namespace ptxvm::shim {

/// Resolves the driver functions timing needs from `driver`; timing is on when
/// PTXVM_TIME_KERNELS is set to 1.
void initKernelTiming(void *driver);

/// For cuGetProcAddress: the shim's launch function for `symbol` when the driver answered
/// `driverPointer` for it (which is then what the shim calls), or nullptr for other symbols.
/// `flags` 2 (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) asks for the per-thread form.
void *timedLaunchFor(const char *symbol, void *driverPointer, uint64_t flags);

/// The launches timed so far: kernel, grid, block, milliseconds (the first 10,000).
boost::json::array timedLaunches();

} // namespace ptxvm::shim
