// Shared helpers of the fatbin reader tests: the committed fixtures, the nvcc-built programs,
// and checks on the entries a parse returns.
#pragma once

#include "runtime/Fatbin.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fatbin_test {

/// The bytes of tests/runtime/fatbin/<name>; the calling test fails when it is missing.
std::vector<uint8_t> readFixture(const std::string &name);

/// Every committed fixture that holds exactly one container (`nvcc -fatbin` output).
std::vector<std::string> singleContainerFixtures();
/// The committed fixtures that hold several containers back to back (whole sections).
std::vector<std::string> sectionFixtures();

/// The path of a program built by fatbin.cmake with nvcc, or "" without nvcc.
std::string programPath(const std::string &name);

/// The first entry of `kind` for `arch` (in container `container` when given), or nullptr.
const runtime::FatbinEntry *findEntry(const runtime::Fatbin &fb, runtime::FatbinEntry::Kind kind,
                                      uint32_t arch, int container = -1);

/// The PTX text with its leading blank lines (where the fatbin stripped comments) removed.
std::string_view ptxStart(const runtime::FatbinEntry &e);

/// Parses `ptx` with the fast front end; returns the rendered diagnostics ("" when clean).
std::string parsePtxDiagnostics(const std::string &ptx);

/// The ELF header's e_type of a cubin payload (1 relocatable, 2 executable), 0 when not ELF.
uint16_t cubinElfType(const runtime::FatbinEntry &e);

/// One entry of a hand-made container (for what nvcc never writes: lying sizes, odd frames).
struct EntrySpec {
  uint16_t kind = 1; // PTX
  uint32_t arch = 80;
  uint64_t flags = 0x11; // 64-bit, Linux
  uint16_t versionMajor = 9, versionMinor = 0;
  std::vector<uint8_t> payload;  // stored as is, padded to 8 bytes
  uint32_t compressedSize = 0;   // written as given
  uint64_t decompressedSize = 0; // written as given
  std::string identifier;
  std::string options; // with an options descriptor when non-empty
};
inline constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;

/// A container laid out as nvcc lays them out.
std::vector<uint8_t> makeContainer(const std::vector<EntrySpec> &entries);
/// `text` compressed into one zstd frame (level 3; the frame header records the size unless
/// told not to, as a streaming compressor would) or one raw LZ4 block.
std::vector<uint8_t> zstdCompress(std::string_view text, bool withContentSize = true);
std::vector<uint8_t> lz4Compress(std::string_view text);

void store32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value);
void store64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value);

} // namespace fatbin_test
