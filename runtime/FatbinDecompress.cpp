#include "runtime/FatbinDecompress.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <memory>

namespace runtime::detail {

namespace {

struct ZstdContextDeleter {
  void operator()(ZSTD_DCtx *ctx) const { ZSTD_freeDCtx(ctx); }
};

// First output buffer: enough for most PTX in one step, without trusting a huge header value.
constexpr uint64_t kInitialOutputBytes = 64 * 1024;

} // namespace

bool decompressZstd(std::span<const uint8_t> input, uint64_t expectedSize, std::vector<uint8_t> &out,
                    std::string &why) {
  out.clear();
  unsigned long long frameSize = ZSTD_getFrameContentSize(input.data(), input.size());
  if (frameSize == ZSTD_CONTENTSIZE_ERROR) {
    why = "the payload is not a zstd frame";
    return false;
  }
  if (frameSize != ZSTD_CONTENTSIZE_UNKNOWN && frameSize > expectedSize) {
    why = "the zstd frame holds " + std::to_string(frameSize) + " bytes but the entry header says " +
          std::to_string(expectedSize);
    return false;
  }
  std::unique_ptr<ZSTD_DCtx, ZstdContextDeleter> ctx(ZSTD_createDCtx());
  if (!ctx) {
    why = "cannot allocate a zstd decompression context";
    return false;
  }
  out.resize(
      static_cast<size_t>(std::min(expectedSize, std::max<uint64_t>(kInitialOutputBytes, input.size() * 4))));
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  ZSTD_outBuffer outBuf{out.data(), out.size(), 0};
  for (;;) {
    size_t inBefore = in.pos, outBefore = outBuf.pos;
    size_t hint = ZSTD_decompressStream(ctx.get(), &outBuf, &in);
    if (ZSTD_isError(hint)) {
      why = std::string("corrupt zstd data (") + ZSTD_getErrorName(hint) + ")";
      return false;
    }
    if (hint == 0 && in.pos == in.size) break; // the last frame is complete
    if (outBuf.pos == outBuf.size && out.size() < expectedSize) {
      out.resize(static_cast<size_t>(std::min<uint64_t>(expectedSize, uint64_t(out.size()) * 2)));
      outBuf.dst = out.data();
      outBuf.size = out.size();
      continue;
    }
    if (in.pos == inBefore && outBuf.pos == outBefore) {
      why = outBuf.pos == outBuf.size ? "the zstd data decompresses to more than the " +
                                            std::to_string(expectedSize) + " bytes the entry header says"
                                      : "the zstd frame is truncated";
      return false;
    }
  }
  if (outBuf.pos != expectedSize) {
    why = "the zstd data decompresses to " + std::to_string(outBuf.pos) +
          " bytes but the entry header says " + std::to_string(expectedSize);
    return false;
  }
  return true;
}

bool decompressLz4Block(std::span<const uint8_t> input, uint64_t expectedSize, std::vector<uint8_t> &out,
                        std::string &why) {
  out.clear();
  if (input.size() > LZ4_MAX_INPUT_SIZE || expectedSize > LZ4_MAX_INPUT_SIZE) {
    why = "the LZ4 block is larger than LZ4 supports";
    return false;
  }
  // An LZ4 sequence expands at most 255-fold (a match length grows by 255 per byte), so a larger
  // claim is corrupt; checking first keeps a lying header from costing a large allocation.
  if (expectedSize > uint64_t(input.size()) * 255 + 64) {
    why = std::to_string(input.size()) + " bytes of LZ4 cannot decompress to the " +
          std::to_string(expectedSize) + " bytes the entry header says";
    return false;
  }
  out.resize(static_cast<size_t>(expectedSize));
  int produced =
      LZ4_decompress_safe(reinterpret_cast<const char *>(input.data()), reinterpret_cast<char *>(out.data()),
                          static_cast<int>(input.size()), static_cast<int>(expectedSize));
  if (produced < 0) {
    why = "corrupt LZ4 block";
    out.clear();
    return false;
  }
  if (static_cast<uint64_t>(produced) != expectedSize) {
    why = "the LZ4 block decompresses to " + std::to_string(produced) + " bytes but the entry header says " +
          std::to_string(expectedSize);
    out.clear();
    return false;
  }
  return true;
}

} // namespace runtime::detail
