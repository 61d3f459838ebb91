// The layout read here was learnt from nvcc 13.0 output (every -gencode, -compress-mode, -G,
// -lineinfo, -Xptxas and -rdc=true combination) and fatbinary_section.h:
//
// container header (16 bytes):
//   0x00 u32 magic 0xBA55ED50   0x04 u16 version (1)   0x06 u16 header size (16)
//   0x08 u64 size of the entries that follow
// entry header (64 bytes, then optional extension up to its header size; the payload follows):
//   0x00 u16 kind (1 PTX, 2 ELF cubin, 8 LTO-IR)   0x02 u16 (0x0101)
//   0x04 u32 header size                            0x08 u64 payload size (padded to 8)
//   0x10 u32 compressed size (0 when stored)        0x14 u32 offset of the options descriptor
//   0x18 u16 minor, u16 major version               0x1c u32 arch (80 for sm_80)
//   0x20 u32 identifier offset, 0x24 u32 length     0x28 u64 flags
//   0x30 u64 (hash or 0)                            0x38 u64 decompressed size
// options descriptor, inside the header: u32 offset and u32 length of the options text.
#include "runtime/Fatbin.h"

#include "runtime/FatbinDecompress.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace runtime {

namespace {

constexpr uint64_t kContainerHeaderBytes = 16;
constexpr uint64_t kEntryHeaderBytes = 64;
constexpr uint16_t kContainerVersion = 1;

// Entry flag bits seen in nvcc output.
constexpr uint64_t kFlagDebug = 0x2;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kFlagArchSpecific = 0x100000;   // sm_90a, sm_100a
constexpr uint64_t kFlagFamilySpecific = 0x200000; // sm_100f

// A v2 wrapper's prelinked list is NULL-terminated; a list longer than this is not one.
constexpr size_t kMaxPrelinkedContainers = 1 << 16;
// A container in memory claiming more than this is corrupt (its size is all we have).
constexpr uint64_t kMaxContainerBytes = uint64_t(4) << 30;

uint16_t load16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
uint64_t load64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

void report(ptx::DiagnosticList &diags, uint64_t offset, const std::string &what) {
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::ParseError;
  d.severity = ptx::Severity::Error;
  d.message = "fatbin: " + what + " (at byte offset " + std::to_string(offset) + ")";
  d.fields.emplace_back("offset", std::to_string(offset));
  diags.add(std::move(d));
}

std::string trimmed(std::string_view s) {
  size_t begin = 0, end = s.size();
  auto blank = [](char c) { return c == '\0' || c == ' ' || c == '\t' || c == '\n'; };
  while (begin < end && blank(s[begin])) ++begin;
  while (end > begin && blank(s[end - 1])) --end;
  return std::string(s.substr(begin, end - begin));
}

FatbinEntry::Kind kindOf(uint16_t raw) {
  switch (raw) {
  case 1: return FatbinEntry::Kind::Ptx;
  case 2: return FatbinEntry::Kind::Cubin;
  default: return FatbinEntry::Kind::Other;
  }
}

/// Reads a string stored inside an entry header at (offset, length); both must lie in the
/// header's extension, after the 64 fixed bytes.
bool headerString(std::span<const uint8_t> header, uint32_t offset, uint32_t length, std::string &out) {
  if (length == 0) return true;
  if (offset < kEntryHeaderBytes || uint64_t(offset) + length > header.size()) return false;
  out.assign(reinterpret_cast<const char *>(header.data()) + offset, length);
  return true;
}

/// Parses one entry at `pos` of `container` (which ends at `end`); advances `pos`.
bool parseEntry(std::span<const uint8_t> container, uint64_t &pos, uint64_t end, uint64_t baseOffset,
                uint32_t index, FatbinEntry &entry, ptx::DiagnosticList &diags) {
  const uint64_t at = baseOffset + pos;
  const std::string name = "entry " + std::to_string(index);
  if (end - pos < kEntryHeaderBytes) {
    report(diags, at,
           name + " is truncated: " + std::to_string(end - pos) + " bytes left of a 64-byte entry header");
    return false;
  }
  const uint8_t *h = container.data() + pos;
  uint32_t headerSize = load32(h + 0x04);
  uint64_t payloadSize = load64(h + 0x08);
  uint32_t compressedSize = load32(h + 0x10);
  uint32_t optionsDescriptor = load32(h + 0x14);
  uint32_t identifierOffset = load32(h + 0x20), identifierLength = load32(h + 0x24);
  uint64_t decompressedSize = load64(h + 0x38);

  if (headerSize < kEntryHeaderBytes || headerSize > end - pos) {
    report(diags, at + 0x04,
           name + " has a header size of " + std::to_string(headerSize) +
               " bytes; it must be at least 64 and fit the " + std::to_string(end - pos) +
               " bytes left in the container");
    return false;
  }
  if (payloadSize > end - pos - headerSize) {
    report(diags, at + 0x08,
           name + " has a payload of " + std::to_string(payloadSize) + " bytes but only " +
               std::to_string(end - pos - headerSize) + " bytes are left in the container");
    return false;
  }
  std::span<const uint8_t> header = container.subspan(pos, headerSize);
  std::span<const uint8_t> payload = container.subspan(pos + headerSize, payloadSize);

  entry = FatbinEntry{};
  entry.rawKind = load16(h + 0x00);
  entry.kind = kindOf(entry.rawKind);
  entry.versionMinor = load16(h + 0x18);
  entry.versionMajor = load16(h + 0x1a);
  entry.arch = load32(h + 0x1c);
  entry.flags = load64(h + 0x28);
  entry.debug = (entry.flags & kFlagDebug) != 0;
  entry.archSpecific = (entry.flags & kFlagArchSpecific) != 0;
  entry.familySpecific = (entry.flags & kFlagFamilySpecific) != 0;
  entry.offset = pos;

  std::string identifier;
  if (!headerString(header, identifierOffset, identifierLength, identifier)) {
    report(diags, at + 0x20,
           name + " has its identifier at " + std::to_string(identifierOffset) + "+" +
               std::to_string(identifierLength) + ", outside its " + std::to_string(headerSize) +
               "-byte header");
    return false;
  }
  entry.identifier = trimmed(identifier);
  if (optionsDescriptor != 0) {
    if (optionsDescriptor < kEntryHeaderBytes || uint64_t(optionsDescriptor) + 8 > headerSize) {
      report(diags, at + 0x14,
             name + " has its options descriptor at " + std::to_string(optionsDescriptor) + ", outside its " +
                 std::to_string(headerSize) + "-byte header");
      return false;
    }
    uint32_t optionsOffset = load32(h + optionsDescriptor), optionsLength = load32(h + optionsDescriptor + 4);
    std::string options;
    if (!headerString(header, optionsOffset, optionsLength, options)) {
      report(diags, at + optionsDescriptor,
             name + " has its options at " + std::to_string(optionsOffset) + "+" +
                 std::to_string(optionsLength) + ", outside its " + std::to_string(headerSize) +
                 "-byte header");
      return false;
    }
    // PTX entries record ptxas options as text; other kinds keep whatever bytes they carry.
    entry.options = entry.kind == FatbinEntry::Kind::Ptx ? trimmed(options) : std::move(options);
  }

  const bool lz4 = (entry.flags & kFlagLz4) != 0, zstd = (entry.flags & kFlagZstd) != 0;
  if (lz4 && zstd) {
    report(diags, at + 0x28,
           name + " is flagged both LZ4- and zstd-compressed (flags " + hex(entry.flags) + ")");
    return false;
  }
  if (lz4 || zstd) {
    entry.compression = lz4 ? FatbinCompression::Lz4 : FatbinCompression::Zstd;
    const char *method = lz4 ? "LZ4" : "zstd";
    if (compressedSize == 0 || compressedSize > payloadSize) {
      report(diags, at + 0x10,
             name + " is " + method + "-compressed with a compressed size of " +
                 std::to_string(compressedSize) + " bytes; it must be non-zero and fit its " +
                 std::to_string(payloadSize) + "-byte payload");
      return false;
    }
    if (decompressedSize == 0 || decompressedSize > kFatbinMaxPayloadBytes) {
      report(diags, at + 0x38,
             name + " claims a decompressed size of " + std::to_string(decompressedSize) +
                 " bytes; it must be between 1 and " + std::to_string(kFatbinMaxPayloadBytes));
      return false;
    }
    std::string why;
    std::span<const uint8_t> compressed = payload.first(compressedSize);
    bool ok = lz4 ? detail::decompressLz4Block(compressed, decompressedSize, entry.data, why)
                  : detail::decompressZstd(compressed, decompressedSize, entry.data, why);
    if (!ok) {
      report(diags, at + headerSize,
             name + " (" + std::string(fatbinKindName(entry.kind)) + " for arch " +
                 std::to_string(entry.arch) + "): " + why);
      return false;
    }
  } else {
    if (payloadSize > kFatbinMaxPayloadBytes) {
      report(diags, at + 0x08,
             name + " has a payload of " + std::to_string(payloadSize) + " bytes, over the limit of " +
                 std::to_string(kFatbinMaxPayloadBytes));
      return false;
    }
    entry.data.assign(payload.begin(), payload.end());
  }
  // PTX is NUL-terminated and padded with NULs to a multiple of 8 bytes.
  if (entry.kind == FatbinEntry::Kind::Ptx)
    while (!entry.data.empty() && entry.data.back() == 0) entry.data.pop_back();
  pos += headerSize + payloadSize;
  return true;
}

/// Parses the container at the start of `bytes` (already known to fit) into `out`.
bool parseContainer(std::span<const uint8_t> bytes, uint64_t baseOffset, uint32_t containerIndex, Fatbin &out,
                    ptx::DiagnosticList &diags) {
  uint64_t size = 0;
  if (!fatbinContainerSize(bytes, size, diags, baseOffset)) return false;
  uint64_t pos = load16(bytes.data() + 6);
  uint32_t index = 0;
  while (pos < size) {
    FatbinEntry entry;
    if (!parseEntry(bytes, pos, size, baseOffset, index, entry, diags)) return false;
    entry.container = containerIndex;
    out.entries.push_back(std::move(entry));
    ++index;
  }
  out.size += size;
  ++out.containers;
  return true;
}

/// The container at `data` in this process's memory: its size comes from its own header.
bool parseContainerInMemory(const void *data, uint32_t containerIndex, const std::string &what, Fatbin &out,
                            ptx::DiagnosticList &diags) {
  if (!data) {
    report(diags, 0, what + " is a null pointer");
    return false;
  }
  const auto *p = static_cast<const uint8_t *>(data);
  if (load32(p) != kFatbinContainerMagic) {
    report(diags, 0,
           what + " does not start with the container magic 0xba55ed50 (found " + hex(load32(p)) + ")");
    return false;
  }
  // In memory the header's sizes are all there is to go by, so the header
  // size must be the one every fatbin has: a larger one would send the
  // reader past the end of the program's data.
  if (load16(p + 6) != kContainerHeaderBytes) {
    report(diags, 6,
           what + " has a header size of " + std::to_string(load16(p + 6)) +
               " bytes (a fatbin container's is 16)");
    return false;
  }
  uint64_t total = uint64_t(load16(p + 6)) + load64(p + 8);
  if (load64(p + 8) > kMaxContainerBytes || total > kMaxContainerBytes) {
    report(diags, 8,
           what + " claims " + std::to_string(load64(p + 8)) + " bytes of entries, over the limit of " +
               std::to_string(kMaxContainerBytes));
    return false;
  }
  return parseContainer(std::span<const uint8_t>(p, static_cast<size_t>(total)), 0, containerIndex, out,
                        diags);
}

bool betterPtx(const FatbinEntry &candidate, const FatbinEntry *best, uint32_t maxArch) {
  if (!best) return true;
  bool candidateFits = candidate.arch <= maxArch, bestFits = best->arch <= maxArch;
  if (candidateFits != bestFits) return candidateFits;
  if (candidate.arch != best->arch)
    return candidateFits ? candidate.arch > best->arch : candidate.arch < best->arch;
  bool candidateGeneric = !candidate.archSpecific && !candidate.familySpecific;
  bool bestGeneric = !best->archSpecific && !best->familySpecific;
  return candidateGeneric && !bestGeneric; // otherwise the first one stays
}

} // namespace

std::string_view fatbinKindName(FatbinEntry::Kind kind) {
  switch (kind) {
  case FatbinEntry::Kind::Ptx: return "PTX";
  case FatbinEntry::Kind::Cubin: return "cubin";
  case FatbinEntry::Kind::Other: return "other";
  }
  return "other";
}

bool fatbinContainerSize(std::span<const uint8_t> bytes, uint64_t &size, ptx::DiagnosticList &diags,
                         uint64_t baseOffset) {
  size = 0;
  if (bytes.size() < kContainerHeaderBytes) {
    report(diags, baseOffset,
           "container is truncated: " + std::to_string(bytes.size()) + " bytes, the header alone needs 16");
    return false;
  }
  const uint8_t *p = bytes.data();
  if (load32(p) != kFatbinContainerMagic) {
    report(diags, baseOffset, "not a fatbin container: magic " + hex(load32(p)) + ", expected 0xba55ed50");
    return false;
  }
  uint16_t version = load16(p + 4), headerSize = load16(p + 6);
  uint64_t entriesSize = load64(p + 8);
  if (version != kContainerVersion) {
    report(diags, baseOffset + 4,
           "unsupported container version " + std::to_string(version) + " (expected 1)");
    return false;
  }
  if (headerSize < kContainerHeaderBytes || headerSize > bytes.size()) {
    report(diags, baseOffset + 6,
           "container header size " + std::to_string(headerSize) + " is below 16 or past the end of the " +
               std::to_string(bytes.size()) + " bytes given");
    return false;
  }
  if (entriesSize > bytes.size() - headerSize) {
    report(diags, baseOffset + 8,
           "container is truncated: its header promises " + std::to_string(entriesSize) +
               " bytes of entries but only " + std::to_string(bytes.size() - headerSize) + " follow");
    return false;
  }
  size = headerSize + entriesSize;
  return true;
}

bool parseFatbin(std::span<const uint8_t> bytes, Fatbin &out, ptx::DiagnosticList &diags) {
  out = Fatbin{};
  return parseContainer(bytes, 0, 0, out, diags);
}

bool parseFatbinContainers(std::span<const uint8_t> bytes, Fatbin &out, ptx::DiagnosticList &diags) {
  uint64_t pos = 0;
  bool any = false;
  for (;;) {
    // The linker may pad between the containers of different objects.
    while (pos < bytes.size() && bytes[pos] == 0) ++pos;
    if (pos == bytes.size()) break;
    uint64_t size = 0;
    std::span<const uint8_t> rest = bytes.subspan(pos);
    if (!fatbinContainerSize(rest, size, diags, pos)) return false;
    if (!parseContainer(rest.first(size), pos, out.containers, out, diags)) return false;
    any = true;
    pos += size;
  }
  if (!any) {
    report(diags, 0, "no fatbin container in " + std::to_string(bytes.size()) + " bytes");
    return false;
  }
  return true;
}

bool parseFatbinWrapper(const void *wrapper, Fatbin &out, ptx::DiagnosticList &diags) {
  out = Fatbin{};
  if (!wrapper) {
    report(diags, 0, "the fatbin wrapper is a null pointer");
    return false;
  }
  // struct __fatBinC_Wrapper_t { int magic; int version; const unsigned long long *data;
  //                              void *filename_or_fatbins; };
  struct Wrapper {
    int32_t magic;
    int32_t version;
    const void *data;
    const void *filenameOrFatbins;
  } w;
  std::memcpy(&w, wrapper, sizeof w);
  if (static_cast<uint32_t>(w.magic) != kFatbinWrapperMagic) {
    report(diags, 0,
           "not a fatbin wrapper: magic " + hex(static_cast<uint32_t>(w.magic)) + ", expected 0x466243b1");
    return false;
  }
  if (w.version != int32_t(kFatbinWrapperVersion) && w.version != int32_t(kFatbinWrapperLinkVersion)) {
    report(diags, 4,
           "unsupported fatbin wrapper version " + std::to_string(w.version) + " (expected 1 or 2)");
    return false;
  }
  if (!parseContainerInMemory(w.data, 0, "the wrapper's container", out, diags)) return false;
  // Version 2 (device-linked): a NULL-terminated array of the prelinked containers, one per
  // translation unit compiled with -rdc=true. Version 1 has an (unused) file name here.
  if (w.version == int32_t(kFatbinWrapperLinkVersion) && w.filenameOrFatbins) {
    const auto *list = static_cast<const void *const *>(w.filenameOrFatbins);
    for (size_t i = 0;; ++i) {
      if (i == kMaxPrelinkedContainers) {
        report(diags, 16, "the prelinked container list has no end after " + std::to_string(i) + " pointers");
        return false;
      }
      const void *container;
      std::memcpy(&container, list + i, sizeof container);
      if (!container) break;
      if (!parseContainerInMemory(container, out.containers, "prelinked container " + std::to_string(i), out,
                                  diags))
        return false;
    }
  }
  return true;
}

const FatbinEntry *choosePtx(const Fatbin &fb, uint32_t maxArch) {
  const FatbinEntry *best = nullptr;
  for (const FatbinEntry &e : fb.entries)
    if (e.kind == FatbinEntry::Kind::Ptx && betterPtx(e, best, maxArch)) best = &e;
  return best;
}

std::vector<const FatbinEntry *> choosePtxPerContainer(const Fatbin &fb, uint32_t maxArch) {
  std::vector<const FatbinEntry *> chosen;
  std::vector<uint32_t> containers;
  for (const FatbinEntry &e : fb.entries)
    if (e.kind == FatbinEntry::Kind::Ptx &&
        std::find(containers.begin(), containers.end(), e.container) == containers.end())
      containers.push_back(e.container);
  std::sort(containers.begin(), containers.end());
  for (uint32_t c : containers) {
    const FatbinEntry *best = nullptr;
    for (const FatbinEntry &e : fb.entries)
      if (e.kind == FatbinEntry::Kind::Ptx && e.container == c && betterPtx(e, best, maxArch)) best = &e;
    chosen.push_back(best);
  }
  return chosen;
}

} // namespace runtime
