// The device the runtime describes: a plausible sm_80-class GPU (A100-like limits), which
// launches are checked against and which cudaGetDeviceProperties and cudaDeviceGetAttribute
// report.
#pragma once

#include <cstdint>

namespace cudart::limits {

inline constexpr const char *kDeviceName = "ptxvm emulator (sm_80)";
inline constexpr int kMajor = 8, kMinor = 0;
inline constexpr int kMultiprocessors = 108;
inline constexpr uint32_t kMaxThreadsPerBlock = 1024;
inline constexpr uint32_t kMaxBlockDim[3] = {1024, 1024, 64};
inline constexpr uint32_t kMaxGridDim[3] = {2147483647u, 65535, 65535};
inline constexpr int kWarpSize = 32;
inline constexpr uint64_t kSharedPerBlock = 48 * 1024;   // without opting in
inline constexpr uint64_t kSharedPerBlockOptin = 166912; // 163 KiB, with cudaFuncSetAttribute
inline constexpr uint64_t kSharedPerMultiprocessor = 167936;
inline constexpr uint64_t kReservedSharedPerBlock = 1024;
inline constexpr int kRegistersPerBlock = 65536, kRegistersPerMultiprocessor = 65536;
inline constexpr int kRegisterAllocationUnit = 256; // registers per warp are allocated in these
inline constexpr int kThreadsPerMultiprocessor = 2048, kBlocksPerMultiprocessor = 32;
inline constexpr int kWarpsPerMultiprocessor = kThreadsPerMultiprocessor / 32;
inline constexpr uint64_t kConstantMemory = 65536;
inline constexpr int kL2CacheBytes = 40 * 1024 * 1024, kPersistingL2Bytes = 30 * 1024 * 1024;
inline constexpr int kClockKHz = 1410000, kMemoryClockKHz = 1215000, kMemoryBusWidth = 5120;
inline constexpr uint64_t kMaxPitch = 2147483647;
inline constexpr uint64_t kTextureAlignment = 512, kTexturePitchAlignment = 32;
inline constexpr uint64_t kPitchAlignment = 512; // cudaMallocPitch rows
inline constexpr uint64_t kMaxGlobalMemory = 40ull << 30;
/// Registers per thread assumed for occupancy (the PTX does not fix it:
/// ptxas would) unless the kernel says .maxnreg.
inline constexpr int kAssumedRegistersPerThread = 32;

} // namespace cudart::limits
