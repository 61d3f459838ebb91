// Fatbin reader: the device code nvcc embeds in a CUDA program (the
// `.nvFatBinSegment` wrapper and the 0xBA55ED50 containers it points at).
#pragma once

#include "ptx/Diagnostic.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace runtime {

/// Magic numbers and versions, as nvcc writes them (fatbinary_section.h).
inline constexpr uint32_t kFatbinWrapperMagic = 0x466243b1;
inline constexpr uint32_t kFatbinWrapperVersion = 1;     // one translation unit
inline constexpr uint32_t kFatbinWrapperLinkVersion = 2; // device-linked, with prelinked containers
inline constexpr uint32_t kFatbinContainerMagic = 0xBA55ED50;

/// Largest payload the reader will decompress or copy; anything claiming more is corrupt.
inline constexpr uint64_t kFatbinMaxPayloadBytes = uint64_t(1) << 30;

enum class FatbinCompression : uint8_t { None, Zstd, Lz4 };

struct FatbinEntry {
  enum class Kind : uint8_t { Ptx, Cubin, Other } kind = Kind::Other;
  uint32_t arch = 0; // e.g. 80 for sm_80 / compute_80
  std::string
      identifier;      // the entry's name/identifier (file it was built from, e.g. -G builds), may be empty
  std::string options; // ptxas options recorded in the entry, if any (raw bytes for non-PTX entries)
  std::vector<uint8_t> data; // decompressed payload (PTX text without trailing NULs, or the cubin ELF)

  uint16_t rawKind = 0;      // the kind field as stored: 1 PTX, 2 ELF, 8 LTO-IR, ...
  uint16_t versionMajor = 0; // PTX: the ISA version of the text (9.0 for nvcc 13); cubin: ELF ABI version
  uint16_t versionMinor = 0;
  uint64_t flags = 0; // the entry's flag word (see Fatbin.cpp for the bits known)
  FatbinCompression compression = FatbinCompression::None;
  bool debug = false;          // built with -G
  bool archSpecific = false;   // sm_90a-style target (only runs on exactly that arch)
  bool familySpecific = false; // sm_100f-style target
  uint32_t container = 0;      // which container of the parse it came from (0 = the first)
  uint64_t offset = 0;         // byte offset of the entry header within that container

  std::string_view text() const { return {reinterpret_cast<const char *>(data.data()), data.size()}; }
};

struct Fatbin {
  std::vector<FatbinEntry> entries;
  uint64_t size = 0;       // bytes the parsed container(s) occupy: header plus payload, summed
  uint32_t containers = 0; // how many containers were parsed
};

/// Parses a fatbin container (magic 0xBA55ED50) at the start of `bytes`; bytes after the
/// container are ignored and `out.size` says where it ends. Errors (kind parse-error, with the
/// byte offset) are returned, never thrown or crashed on. On error `out` keeps the entries read
/// before the problem. `out` is replaced.
bool parseFatbin(std::span<const uint8_t> bytes, Fatbin &out, ptx::DiagnosticList &diags);

/// Parses every container of `bytes`, back to back (what a `.nv_fatbin` or `__nv_relfatbin`
/// section holds; zero padding between containers is skipped). Entries are appended to `out`,
/// each tagged with its container index.
bool parseFatbinContainers(std::span<const uint8_t> bytes, Fatbin &out, ptx::DiagnosticList &diags);

/// The total size (header plus payload) of the container at the start of `bytes`, checked
/// against `bytes.size()`; false with a diagnostic when it is not a complete container.
bool fatbinContainerSize(std::span<const uint8_t> bytes, uint64_t &size, ptx::DiagnosticList &diags,
                         uint64_t baseOffset = 0);

/// Parses what `__cudaRegisterFatBinary` receives: the wrapper struct (magic 0x466243b1, version 1
/// or 2) pointing at a container whose size comes from its header. For version 2 (device-linked,
/// `-rdc=true`) the NULL-terminated array of prelinked containers is parsed too, as containers
/// 1, 2, ... after the linked one. `out` is replaced. The pointers are trusted (they come from
/// the program's own image); everything read through them is checked like parseFatbin's input.
bool parseFatbinWrapper(const void *wrapper, Fatbin &out, ptx::DiagnosticList &diags);

/// The PTX entry to run: the newest arch <= maxArch (default: the newest the project supports,
/// 90); when every PTX is newer than maxArch, the oldest of them. At one arch a generic target
/// wins over an arch- or family-specific one, then the first container. nullptr if no PTX.
const FatbinEntry *choosePtx(const Fatbin &fb, uint32_t maxArch = 90);

/// For `-rdc=true` programs, whose PTX is split over one container per translation unit: the
/// choice of choosePtx made within each container that holds PTX, in container order.
std::vector<const FatbinEntry *> choosePtxPerContainer(const Fatbin &fb, uint32_t maxArch = 90);

std::string_view fatbinKindName(FatbinEntry::Kind kind);

} // namespace runtime
