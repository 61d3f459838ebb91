#include "runtime/Elf.h"

#include "ptx/Parser.h"

#include <cstdio>
#include <cstring>

namespace runtime {

namespace {

constexpr uint64_t kElfHeaderBytes = 64;
constexpr uint64_t kSectionHeaderBytes = 64;
constexpr uint32_t kSectionNoBits = 8;
constexpr uint64_t kSectionAlloc = 0x2;
constexpr uint16_t kSectionIndexEscape = 0xffff; // SHN_XINDEX: the real index is elsewhere
constexpr uint64_t kWrapperBytes = 24;

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

void report(ptx::DiagnosticList &diags, const std::string &file, uint64_t offset, const std::string &what) {
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::ParseError;
  d.severity = ptx::Severity::Error;
  d.loc.file = file;
  d.message = "ELF: " + what + " (at byte offset " + std::to_string(offset) + ")";
  d.fields.emplace_back("offset", std::to_string(offset));
  diags.add(std::move(d));
}

/// Fatbin diagnostics give offsets within what they parsed; say which file and section that was.
void nameFatbinDiagnostics(ptx::DiagnosticList &diags, size_t from, const std::string &file,
                           const std::string &where) {
  ptx::DiagnosticList renamed;
  for (size_t i = 0; i < diags.all().size(); ++i) {
    ptx::Diagnostic d = diags.all()[i];
    if (i >= from) {
      d.loc.file = file;
      d.message += " in " + where;
    }
    renamed.add(std::move(d));
  }
  diags = std::move(renamed);
}

} // namespace

bool ElfImage::load(const std::string &path, ptx::DiagnosticList &diags) {
  std::string text;
  if (!ptx::readFile(path, text, diags)) return false;
  return parse(std::vector<uint8_t>(text.begin(), text.end()), path, diags);
}

bool ElfImage::parse(std::vector<uint8_t> bytes, std::string name, ptx::DiagnosticList &diags) {
  bytes_ = std::move(bytes);
  name_ = std::move(name);
  sections_.clear();
  fileType_ = 0;
  const uint64_t size = bytes_.size();
  const uint8_t *p = bytes_.data();
  if (size < kElfHeaderBytes || std::memcmp(p,
                                            "\x7f"
                                            "ELF",
                                            4) != 0) {
    report(diags, name_, 0, "not an ELF file");
    return false;
  }
  if (p[4] != 2) {
    report(diags, name_, 4, "only 64-bit ELF files are supported (class " + std::to_string(p[4]) + ")");
    return false;
  }
  if (p[5] != 1) {
    report(diags, name_, 5,
           "only little-endian ELF files are supported (data encoding " + std::to_string(p[5]) + ")");
    return false;
  }
  fileType_ = load16(p + 16);
  uint64_t tableOffset = load64(p + 40);
  uint16_t entrySize = load16(p + 58);
  uint64_t count = load16(p + 60);
  uint32_t namesIndex = load16(p + 62);
  if (tableOffset == 0) return true; // no section table: nothing to find
  if (entrySize < kSectionHeaderBytes) {
    report(diags, name_, 58, "section header size " + std::to_string(entrySize) + " is below 64");
    return false;
  }
  if (tableOffset > size || size - tableOffset < kSectionHeaderBytes) {
    report(diags, name_, 40, "the section table at " + hex(tableOffset) + " lies past the end of the file");
    return false;
  }
  const uint8_t *first = p + tableOffset;
  if (count == 0) count = load64(first + 32);                             // more than 0xff00 sections
  if (namesIndex == kSectionIndexEscape) namesIndex = load32(first + 40); // index held by section 0
  if (count > (size - tableOffset) / entrySize) {
    report(diags, name_, 60,
           std::to_string(count) + " section headers at " + hex(tableOffset) +
               " run past the end of the file");
    return false;
  }
  if (namesIndex >= count) {
    report(diags, name_, 62, "section name table index " + std::to_string(namesIndex) + " is out of range");
    return false;
  }
  sections_.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t *h = first + i * entrySize;
    ElfSection &s = sections_[i];
    s.type = load32(h + 4);
    s.flags = load64(h + 8);
    s.address = load64(h + 16);
    s.offset = load64(h + 24);
    s.size = load64(h + 32);
    if (s.type != kSectionNoBits && (s.offset > size || s.size > size - s.offset)) {
      report(diags, name_, tableOffset + i * entrySize + 24,
             "section " + std::to_string(i) + " (" + hex(s.offset) + "+" + hex(s.size) +
                 ") lies past the end of the file");
      sections_.clear();
      return false;
    }
  }
  const ElfSection &names = sections_[namesIndex];
  std::span<const uint8_t> nameBytes = contents(names);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t nameOffset = load32(first + i * entrySize);
    if (nameOffset == 0 && nameBytes.empty()) continue;
    if (nameOffset >= nameBytes.size()) {
      report(diags, name_, tableOffset + i * entrySize,
             "section " + std::to_string(i) + " has its name outside the section name table");
      sections_.clear();
      return false;
    }
    const auto *start = reinterpret_cast<const char *>(nameBytes.data() + nameOffset);
    sections_[i].name.assign(start, strnlen(start, nameBytes.size() - nameOffset));
  }
  return true;
}

const ElfSection *ElfImage::section(std::string_view name) const {
  for (const ElfSection &s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const uint8_t> ElfImage::contents(const ElfSection &s) const {
  if (s.type == kSectionNoBits) return {};
  return std::span<const uint8_t>(bytes_).subspan(s.offset, s.size);
}

std::span<const uint8_t> ElfImage::bytesAtAddress(uint64_t address) const {
  for (const ElfSection &s : sections_) {
    if (s.type == kSectionNoBits || !(s.flags & kSectionAlloc)) continue;
    if (address >= s.address && address - s.address < s.size) return contents(s).subspan(address - s.address);
  }
  return {};
}

bool findFatbinContainers(const ElfImage &image, std::vector<FatbinContainerRef> &out,
                          ptx::DiagnosticList &diags) {
  for (const char *sectionName : {".nv_fatbin", "__nv_relfatbin"}) {
    const ElfSection *s = image.section(sectionName);
    if (!s) continue;
    std::span<const uint8_t> bytes = image.contents(*s);
    uint64_t pos = 0;
    while (true) {
      while (pos < bytes.size() && bytes[pos] == 0) ++pos; // padding between objects' containers
      if (pos == bytes.size()) break;
      uint64_t size = 0;
      size_t before = diags.all().size();
      if (!fatbinContainerSize(bytes.subspan(pos), size, diags, pos)) {
        nameFatbinDiagnostics(diags, before, image.name(), std::string("section ") + sectionName);
        return false;
      }
      out.push_back({sectionName, pos, bytes.subspan(pos, size)});
      pos += size;
    }
  }
  return true;
}

bool readFatbinSections(const ElfImage &image, Fatbin &out, ptx::DiagnosticList &diags) {
  out = Fatbin{};
  std::vector<FatbinContainerRef> containers;
  if (!findFatbinContainers(image, containers, diags)) return false;
  for (const FatbinContainerRef &c : containers) {
    size_t before = diags.all().size();
    if (!parseFatbinContainers(c.bytes, out, diags)) {
      nameFatbinDiagnostics(diags, before, image.name(),
                            "the container at offset " + std::to_string(c.offset) + " of section " +
                                c.section);
      return false;
    }
  }
  return true;
}

bool readFatbinWrappers(const ElfImage &image, std::vector<FatbinWrapperRecord> &out,
                        ptx::DiagnosticList &diags) {
  const ElfSection *s = image.section(".nvFatBinSegment");
  if (!s) return true;
  std::span<const uint8_t> bytes = image.contents(*s);
  for (uint64_t pos = 0; pos < bytes.size(); pos += kWrapperBytes) {
    if (bytes.size() - pos < kWrapperBytes) {
      for (uint64_t i = pos; i < bytes.size(); ++i)
        if (bytes[i] != 0) {
          report(diags, image.name(), s->offset + pos,
                 ".nvFatBinSegment ends with a partial wrapper of " + std::to_string(bytes.size() - pos) +
                     " bytes");
          return false;
        }
      break;
    }
    FatbinWrapperRecord w;
    w.magic = load32(bytes.data() + pos);
    w.version = load32(bytes.data() + pos + 4);
    w.dataAddress = load64(bytes.data() + pos + 8);
    w.filenameOrFatbinsAddress = load64(bytes.data() + pos + 16);
    w.offset = pos;
    if (w.magic == 0 && w.version == 0 && w.dataAddress == 0 && w.filenameOrFatbinsAddress == 0) continue;
    if (w.magic != kFatbinWrapperMagic) {
      report(diags, image.name(), s->offset + pos,
             ".nvFatBinSegment holds " + hex(w.magic) + " where a wrapper's magic 0x466243b1 belongs");
      return false;
    }
    out.push_back(w);
  }
  return true;
}

bool parseWrapperContainer(const ElfImage &image, const FatbinWrapperRecord &wrapper, Fatbin &out,
                           ptx::DiagnosticList &diags) {
  out = Fatbin{};
  std::span<const uint8_t> bytes = image.bytesAtAddress(wrapper.dataAddress);
  if (bytes.empty()) {
    report(diags, image.name(), wrapper.offset,
           "the wrapper's container address " + hex(wrapper.dataAddress) +
               " is not inside any loaded section");
    return false;
  }
  size_t before = diags.all().size();
  if (!parseFatbin(bytes, out, diags)) {
    nameFatbinDiagnostics(diags, before, image.name(),
                          "the container at address " + hex(wrapper.dataAddress));
    return false;
  }
  return true;
}

} // namespace runtime
