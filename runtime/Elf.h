// ELF section reader for the host side of CUDA programs: finds the device code nvcc embeds
// (.nv_fatbin, __nv_relfatbin, .nvFatBinSegment) in an executable, shared object or object file.
#pragma once

#include "ptx/Diagnostic.h"
#include "runtime/Fatbin.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace runtime {

struct ElfSection {
  std::string name;
  uint32_t type = 0; // SHT_PROGBITS = 1, SHT_NOBITS = 8, ...
  uint64_t flags = 0;
  uint64_t address = 0; // virtual address when loaded (0 in object files)
  uint64_t offset = 0;  // file offset
  uint64_t size = 0;
};

/// A 64-bit little-endian ELF image held in memory, with its section table checked against
/// the file size (so every section's contents can be read without further checks).
class ElfImage {
public:
  bool load(const std::string &path, ptx::DiagnosticList &diags);
  bool parse(std::vector<uint8_t> bytes, std::string name, ptx::DiagnosticList &diags);

  const std::string &name() const { return name_; }
  uint16_t fileType() const { return fileType_; } // ET_REL 1, ET_EXEC 2, ET_DYN 3
  const std::vector<ElfSection> &sections() const { return sections_; }
  const ElfSection *section(std::string_view name) const;
  /// A section's bytes; empty for SHT_NOBITS.
  std::span<const uint8_t> contents(const ElfSection &s) const;
  /// The bytes from virtual address `address` to the end of the allocated section holding it;
  /// empty when no section with contents holds it.
  std::span<const uint8_t> bytesAtAddress(uint64_t address) const;

private:
  std::vector<uint8_t> bytes_;
  std::string name_;
  uint16_t fileType_ = 0;
  std::vector<ElfSection> sections_;
};

/// One container found in a section.
struct FatbinContainerRef {
  std::string section;
  uint64_t offset = 0; // within the section
  std::span<const uint8_t> bytes;
};

/// Every fatbin container of `.nv_fatbin` (device-linked or whole-program code) and
/// `__nv_relfatbin` (the per-translation-unit containers of -rdc=true), in that order.
/// An image without those sections gives none and no error.
bool findFatbinContainers(const ElfImage &image, std::vector<FatbinContainerRef> &out,
                          ptx::DiagnosticList &diags);

/// Parses every container findFatbinContainers finds into one Fatbin (container index = order).
bool readFatbinSections(const ElfImage &image, Fatbin &out, ptx::DiagnosticList &diags);

/// One `__fatBinC_Wrapper_t` of `.nvFatBinSegment`, as stored on disk (object files hold zeros
/// where relocations will put the addresses).
struct FatbinWrapperRecord {
  uint32_t magic = 0;
  uint32_t version = 0;
  uint64_t dataAddress = 0;
  uint64_t filenameOrFatbinsAddress = 0;
  uint64_t offset = 0; // within the section
};

bool readFatbinWrappers(const ElfImage &image, std::vector<FatbinWrapperRecord> &out,
                        ptx::DiagnosticList &diags);

/// Parses the container a wrapper's data address points at, as `__cudaRegisterFatBinary`
/// would see it (the prelinked list of version 2 lives in .bss and is filled at run time, so it
/// is not followed here).
bool parseWrapperContainer(const ElfImage &image, const FatbinWrapperRecord &wrapper, Fatbin &out,
                           ptx::DiagnosticList &diags);

} // namespace runtime
