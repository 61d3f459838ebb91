// The ELF side: finding `.nv_fatbin`, `__nv_relfatbin` and `.nvFatBinSegment` in a hand-made
// ELF (runs everywhere) and in programs nvcc builds at build time (skipped without nvcc):
// executables, a shared object, an object file, every compression mode, -rdc=true.
#include "runtime/Elf.h"
#include "runtime/FatbinTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

using runtime::ElfImage;
using runtime::Fatbin;
using runtime::FatbinEntry;
using namespace fatbin_test;

namespace {

using Kind = FatbinEntry::Kind;

struct SectionSpec {
  std::string name;
  uint32_t type = 1;    // PROGBITS
  uint64_t flags = 0x2; // SHF_ALLOC
  uint64_t address = 0;
  std::vector<uint8_t> contents;
};

/// A minimal 64-bit little-endian ELF with the given sections (plus the null section and
/// .shstrtab), contents 8-byte aligned, section table last.
std::vector<uint8_t> makeElf(const std::vector<SectionSpec> &specs) {
  std::vector<SectionSpec> sections = specs;
  SectionSpec names{".shstrtab", 3, 0, 0, {0}};
  std::vector<uint32_t> nameOffsets;
  for (const SectionSpec &s : sections) {
    nameOffsets.push_back(uint32_t(names.contents.size()));
    names.contents.insert(names.contents.end(), s.name.begin(), s.name.end());
    names.contents.push_back(0);
  }
  nameOffsets.push_back(uint32_t(names.contents.size()));
  names.contents.insert(names.contents.end(), names.name.begin(), names.name.end());
  names.contents.push_back(0);
  sections.push_back(names);

  std::vector<uint8_t> out(64, 0);
  std::memcpy(out.data(),
              "\x7f"
              "ELF",
              4);
  out[4] = 2; // 64-bit
  out[5] = 1; // little-endian
  out[6] = 1;
  out[16] = 2;    // ET_EXEC
  out[18] = 0x3e; // x86-64
  std::vector<uint64_t> offsets;
  for (const SectionSpec &s : sections) {
    while (out.size() % 8) out.push_back(0);
    offsets.push_back(out.size());
    out.insert(out.end(), s.contents.begin(), s.contents.end());
  }
  while (out.size() % 8) out.push_back(0);
  uint64_t table = out.size();
  out.resize(out.size() + 64 * (sections.size() + 1), 0); // section 0 is the null section
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t h = table + 64 * (i + 1);
    store32(out, h, nameOffsets[i]);
    store32(out, h + 4, sections[i].type);
    store64(out, h + 8, sections[i].flags);
    store64(out, h + 16, sections[i].address);
    store64(out, h + 24, offsets[i]);
    store64(out, h + 32, sections[i].contents.size());
  }
  store64(out, 40, table);
  out[52] = 64;
  out[58] = 64;
  out[60] = uint8_t(sections.size() + 1);
  out[62] = uint8_t(sections.size()); // .shstrtab is last
  return out;
}

std::vector<uint8_t> wrapperBytes(uint32_t version, uint64_t data, uint64_t fatbins) {
  std::vector<uint8_t> w(24, 0);
  store32(w, 0, runtime::kFatbinWrapperMagic);
  store32(w, 4, version);
  store64(w, 8, data);
  store64(w, 16, fatbins);
  return w;
}

/// The hand-made program: the executable fixture's `.nv_fatbin` at 0x2000 and two wrappers.
std::vector<uint8_t> handMadeProgram() {
  std::vector<uint8_t> fatbins = readFixture("exe_nv_fatbin.bin");
  std::vector<uint8_t> segment = wrapperBytes(2, 0x2000, 0x6000);
  std::vector<uint8_t> second = wrapperBytes(1, 0x2000 + 0x5f8, 0);
  segment.insert(segment.end(), second.begin(), second.end());
  return makeElf({{".text", 1, 0x6, 0x1000, std::vector<uint8_t>(32, 0x90)},
                  {".nv_fatbin", 1, 0x2, 0x2000, fatbins},
                  {".nvFatBinSegment", 1, 0x3, 0x5000, segment},
                  {".bss", 8, 0x3, 0x6000, {}}});
}

ElfImage loadOk(const std::string &path) {
  ElfImage image;
  ptx::DiagnosticList diags;
  EXPECT_TRUE(image.load(path, diags)) << diags.renderText();
  return image;
}

Fatbin sectionsOk(const ElfImage &image) {
  Fatbin fb;
  ptx::DiagnosticList diags;
  EXPECT_TRUE(runtime::readFatbinSections(image, fb, diags)) << diags.renderText();
  return fb;
}

std::vector<runtime::FatbinWrapperRecord> wrappersOk(const ElfImage &image) {
  std::vector<runtime::FatbinWrapperRecord> wrappers;
  ptx::DiagnosticList diags;
  EXPECT_TRUE(runtime::readFatbinWrappers(image, wrappers, diags)) << diags.renderText();
  return wrappers;
}

#define REQUIRE_PROGRAM(var, name)                                                                           \
  std::string var = programPath(name);                                                                       \
  if (var.empty()) GTEST_SKIP() << "nvcc not found at configure time: " name " was not built"

} // namespace

TEST(FatbinElf, HandMadeProgramSectionsAndWrappers) {
  ElfImage image;
  ptx::DiagnosticList diags;
  ASSERT_TRUE(image.parse(handMadeProgram(), "hand-made", diags)) << diags.renderText();
  ASSERT_NE(image.section(".nv_fatbin"), nullptr);
  EXPECT_EQ(image.section(".nv_fatbin")->address, 0x2000u);
  EXPECT_EQ(image.section("__nv_relfatbin"), nullptr);
  EXPECT_TRUE(image.contents(*image.section(".bss")).empty());
  EXPECT_EQ(image.bytesAtAddress(0x2000 + 0x5f8).size(), readFixture("exe_nv_fatbin.bin").size() - 0x5f8);
  EXPECT_TRUE(image.bytesAtAddress(0x6000).empty()) << ".bss has no contents on disk";
  EXPECT_TRUE(image.bytesAtAddress(0x9000).empty());

  std::vector<runtime::FatbinContainerRef> containers;
  ASSERT_TRUE(runtime::findFatbinContainers(image, containers, diags)) << diags.renderText();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0].offset, 0u);
  EXPECT_EQ(containers[1].offset, 0x5f8u);

  std::vector<runtime::FatbinWrapperRecord> wrappers = wrappersOk(image);
  ASSERT_EQ(wrappers.size(), 2u);
  EXPECT_EQ(wrappers[0].version, 2u);
  EXPECT_EQ(wrappers[1].version, 1u);
  Fatbin fb;
  ASSERT_TRUE(runtime::parseWrapperContainer(image, wrappers[1], fb, diags)) << diags.renderText();
  ASSERT_NE(runtime::choosePtx(fb), nullptr);
  EXPECT_EQ(runtime::choosePtx(fb)->arch, 80u);
  ASSERT_TRUE(runtime::parseWrapperContainer(image, wrappers[0], fb, diags)) << diags.renderText();
  EXPECT_EQ(runtime::choosePtx(fb), nullptr) << "the device-link container holds a cubin only";

  runtime::FatbinWrapperRecord dangling = wrappers[1];
  dangling.dataAddress = 0x9000;
  EXPECT_FALSE(runtime::parseWrapperContainer(image, dangling, fb, diags));
  EXPECT_NE(diags.renderText().find("not inside any loaded section"), std::string::npos);
}

TEST(FatbinElf, TruncatedAndForeignFilesAreErrors) {
  std::vector<uint8_t> bytes = handMadeProgram();
  // Every cut through the section table, and a sample of cuts before it.
  uint64_t table;
  std::memcpy(&table, bytes.data() + 40, sizeof table);
  for (size_t len = 0; len < bytes.size(); len += (len < table ? 13 : 1)) {
    ElfImage image;
    ptx::DiagnosticList diags;
    bool ok = image.parse(std::vector<uint8_t>(bytes.begin(), bytes.begin() + len), "cut", diags);
    EXPECT_FALSE(ok) << "cut to " << len;
    EXPECT_NE(diags.renderText().find("byte offset"), std::string::npos);
  }
  std::vector<uint8_t> elf32 = bytes;
  elf32[4] = 1;
  ElfImage image;
  ptx::DiagnosticList diags;
  EXPECT_FALSE(image.parse(elf32, "elf32", diags));
  EXPECT_NE(diags.renderText().find("only 64-bit"), std::string::npos);
  diags.clear();
  EXPECT_FALSE(image.parse({'h', 'e', 'l', 'l', 'o'}, "text", diags));
  EXPECT_NE(diags.renderText().find("not an ELF file"), std::string::npos);
  diags.clear();
  EXPECT_FALSE(image.load("/nonexistent/program", diags));
  EXPECT_TRUE(diags.hasErrors());

  // A corrupt container inside a good ELF names the file and section.
  std::vector<uint8_t> corrupt = bytes;
  const size_t fatbinOffset = 64 + 32; // after the header and .text
  corrupt[fatbinOffset + 0x600] ^= 0xff;
  diags.clear();
  ASSERT_TRUE(image.parse(corrupt, "corrupt", diags)) << diags.renderText();
  Fatbin fb;
  EXPECT_FALSE(runtime::readFatbinSections(image, fb, diags));
  EXPECT_NE(diags.renderText().find("section .nv_fatbin"), std::string::npos) << diags.renderText();
}

TEST(FatbinElf, NvccExecutableHasTheLinkContainerAndTheUnitContainer) {
  REQUIRE_PROGRAM(path, "saxpy_zstd");
  ElfImage image = loadOk(path);
  EXPECT_EQ(image.fileType(), 3) << "nvcc links position-independent executables";
  Fatbin fb = sectionsOk(image);
  EXPECT_EQ(fb.containers, 2u);
  const FatbinEntry *ptx = runtime::choosePtx(fb);
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->arch, 80u);
  EXPECT_EQ(ptx->compression, runtime::FatbinCompression::Zstd);
  EXPECT_EQ(parsePtxDiagnostics(std::string(ptx->text())), "");

  // What __cudaRegisterFatBinary receives, one wrapper at a time.
  std::vector<runtime::FatbinWrapperRecord> wrappers = wrappersOk(image);
  ASSERT_EQ(wrappers.size(), 2u);
  size_t withPtx = 0;
  for (const runtime::FatbinWrapperRecord &w : wrappers) {
    Fatbin one;
    ptx::DiagnosticList diags;
    ASSERT_TRUE(runtime::parseWrapperContainer(image, w, one, diags)) << diags.renderText();
    withPtx += runtime::choosePtx(one) != nullptr;
  }
  EXPECT_EQ(withPtx, 1u);
}

TEST(FatbinElf, NvccCompressionModesGiveIdenticalPtx) {
  REQUIRE_PROGRAM(zstdPath, "saxpy_zstd");
  REQUIRE_PROGRAM(lz4Path, "saxpy_lz4");
  REQUIRE_PROGRAM(nonePath, "saxpy_none");
  Fatbin zstd = sectionsOk(loadOk(zstdPath)), lz4 = sectionsOk(loadOk(lz4Path)),
         none = sectionsOk(loadOk(nonePath));
  ASSERT_TRUE(runtime::choosePtx(zstd) && runtime::choosePtx(lz4) && runtime::choosePtx(none));
  EXPECT_EQ(runtime::choosePtx(lz4)->compression, runtime::FatbinCompression::Lz4);
  EXPECT_EQ(runtime::choosePtx(none)->compression, runtime::FatbinCompression::None);
  EXPECT_EQ(runtime::choosePtx(zstd)->text(), runtime::choosePtx(none)->text());
  EXPECT_EQ(runtime::choosePtx(lz4)->text(), runtime::choosePtx(none)->text());
  EXPECT_EQ(findEntry(zstd, Kind::Cubin, 80, 1)->data, findEntry(none, Kind::Cubin, 80, 1)->data);
}

TEST(FatbinElf, NvccMultiArchProgram) {
  REQUIRE_PROGRAM(path, "saxpy_multi");
  Fatbin fb = sectionsOk(loadOk(path));
  for (uint32_t arch : {75u, 80u, 90u}) EXPECT_NE(findEntry(fb, Kind::Cubin, arch, 1), nullptr) << arch;
  EXPECT_NE(findEntry(fb, Kind::Ptx, 90, 1), nullptr);
  EXPECT_NE(findEntry(fb, Kind::Ptx, 120, 1), nullptr);
  EXPECT_EQ(findEntry(fb, Kind::Ptx, 80, 1), nullptr);
  EXPECT_EQ(runtime::choosePtx(fb)->arch, 90u);
  EXPECT_EQ(runtime::choosePtx(fb, 120)->arch, 120u);
  for (const FatbinEntry &e : fb.entries) {
    if (e.kind == Kind::Ptx) {
      EXPECT_EQ(parsePtxDiagnostics(std::string(e.text())), "") << e.arch;
    }
  }
}

TEST(FatbinElf, NvccSharedObjectAndObjectFile) {
  REQUIRE_PROGRAM(library, "libsaxpy.so");
  REQUIRE_PROGRAM(object, "saxpy.o");
  ElfImage so = loadOk(library);
  EXPECT_EQ(so.fileType(), 3);
  EXPECT_EQ(runtime::choosePtx(sectionsOk(so))->arch, 80u);
  EXPECT_EQ(wrappersOk(so).size(), 2u);

  ElfImage obj = loadOk(object);
  EXPECT_EQ(obj.fileType(), 1);
  Fatbin fb = sectionsOk(obj);
  ASSERT_NE(runtime::choosePtx(fb), nullptr);
  EXPECT_EQ(runtime::choosePtx(fb)->arch, 80u);
  // In an object file the wrapper's pointers are relocations still to be applied.
  for (const runtime::FatbinWrapperRecord &w : wrappersOk(obj)) EXPECT_EQ(w.dataAddress, 0u);
}

TEST(FatbinElf, NvccRelocatableDeviceCode) {
  REQUIRE_PROGRAM(path, "rdc");
  ElfImage image = loadOk(path);
  ASSERT_NE(image.section("__nv_relfatbin"), nullptr);
  std::vector<runtime::FatbinContainerRef> containers;
  ptx::DiagnosticList diags;
  ASSERT_TRUE(runtime::findFatbinContainers(image, containers, diags)) << diags.renderText();
  ASSERT_EQ(containers.size(), 3u);
  EXPECT_EQ(containers[0].section, ".nv_fatbin");
  EXPECT_EQ(containers[1].section, "__nv_relfatbin");
  EXPECT_EQ(containers[2].section, "__nv_relfatbin");

  Fatbin fb = sectionsOk(image);
  const FatbinEntry *linked = findEntry(fb, Kind::Cubin, 80, 0);
  ASSERT_NE(linked, nullptr);
  EXPECT_EQ(cubinElfType(*linked), 2) << "the device-linked cubin is executable";
  std::vector<const FatbinEntry *> units = runtime::choosePtxPerContainer(fb);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0]->options, "--compile-only");

  // Registration as link.stub does it: the version-2 wrapper's own container, and a NULL-ended
  // list of every unit's container (taken from the version-1 wrappers), in process memory.
  std::vector<runtime::FatbinWrapperRecord> wrappers = wrappersOk(image);
  ASSERT_EQ(wrappers.size(), 3u);
  std::vector<std::vector<uint64_t>> copies;
  auto copyOf = [&](uint64_t address) {
    std::span<const uint8_t> bytes = image.bytesAtAddress(address);
    copies.emplace_back((bytes.size() + 7) / 8);
    std::memcpy(copies.back().data(), bytes.data(), bytes.size());
    return static_cast<const void *>(copies.back().data());
  };
  copies.reserve(3);
  const void *linkedData = nullptr;
  std::vector<const void *> prelinked;
  for (const runtime::FatbinWrapperRecord &w : wrappers) {
    if (w.version == 2)
      linkedData = copyOf(w.dataAddress);
    else
      prelinked.push_back(copyOf(w.dataAddress));
  }
  prelinked.push_back(nullptr);
  struct {
    int magic, version;
    const void *data;
    const void *fatbins;
  } wrapper{int(runtime::kFatbinWrapperMagic), 2, linkedData, prelinked.data()};
  Fatbin registered;
  ASSERT_TRUE(runtime::parseFatbinWrapper(&wrapper, registered, diags)) << diags.renderText();
  EXPECT_EQ(registered.containers, 3u);
  std::vector<const FatbinEntry *> registeredUnits = runtime::choosePtxPerContainer(registered);
  ASSERT_EQ(registeredUnits.size(), 2u);
  EXPECT_EQ(registeredUnits[0]->text(), units[0]->text());
  EXPECT_EQ(registeredUnits[1]->text(), units[1]->text());
}
