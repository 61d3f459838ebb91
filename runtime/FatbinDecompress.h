// Decompression of fatbin entry payloads (zstd frames and raw LZ4 blocks), bounded
// by the size the entry header promises. Internal to the fatbin reader.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace runtime::detail {

/// Decompresses the zstd frame(s) of `input` into exactly `expectedSize` bytes. The output grows
/// with what the frames really produce, so a header that lies about the size costs no more memory
/// than the data behind it. False with a reason in `why` otherwise.
bool decompressZstd(std::span<const uint8_t> input, uint64_t expectedSize, std::vector<uint8_t> &out,
                    std::string &why);

/// Decompresses one raw LZ4 block (no frame header) into exactly `expectedSize` bytes.
bool decompressLz4Block(std::span<const uint8_t> input, uint64_t expectedSize, std::vector<uint8_t> &out,
                        std::string &why);

} // namespace runtime::detail
