// The fatbin reader on the committed fixtures (nvcc 13 output of tests/runtime/fatbin/*.cu):
// entries, decompression, the PTX they hold, choosePtx, and parseFatbinWrapper.
#include "runtime/FatbinTestUtil.h"

#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <cstring>

using runtime::Fatbin;
using runtime::FatbinCompression;
using runtime::FatbinEntry;
using namespace fatbin_test;

namespace {

using Kind = FatbinEntry::Kind;

Fatbin parseOk(const std::vector<uint8_t> &bytes) {
  Fatbin fb;
  ptx::DiagnosticList diags;
  EXPECT_TRUE(runtime::parseFatbin(bytes, fb, diags)) << diags.renderText();
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  return fb;
}

Fatbin parseSectionOk(const std::vector<uint8_t> &bytes) {
  Fatbin fb;
  ptx::DiagnosticList diags;
  EXPECT_TRUE(runtime::parseFatbinContainers(bytes, fb, diags)) << diags.renderText();
  return fb;
}

/// A copy of `bytes` in 8-byte aligned memory, as nvcc's `fatbinData` array is.
std::vector<uint64_t> aligned(const std::vector<uint8_t> &bytes) {
  std::vector<uint64_t> words((bytes.size() + 7) / 8);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

/// `__fatBinC_Wrapper_t` as nvcc lays it out.
struct Wrapper {
  int magic;
  int version;
  const unsigned long long *data;
  void *filenameOrFatbins;
};

std::string ptxOf(const Fatbin &fb, uint32_t arch) {
  const FatbinEntry *e = findEntry(fb, Kind::Ptx, arch);
  return e ? std::string(e->text()) : std::string();
}

} // namespace

TEST(Fatbin, ZstdFixtureHasCubinAndTwoPtxEntries) {
  Fatbin fb = parseOk(readFixture("zstd.fatbin"));
  ASSERT_EQ(fb.entries.size(), 3u);
  EXPECT_EQ(fb.containers, 1u);
  EXPECT_EQ(fb.size, readFixture("zstd.fatbin").size());

  const FatbinEntry &cubin = fb.entries[0];
  EXPECT_EQ(cubin.kind, Kind::Cubin);
  EXPECT_EQ(cubin.rawKind, 2);
  EXPECT_EQ(cubin.arch, 75u);
  EXPECT_EQ(cubin.compression, FatbinCompression::None); // nvcc 13 stores cubins, compresses PTX
  EXPECT_EQ(cubinElfType(cubin), 2) << "a whole-program cubin is an executable ELF";

  for (size_t i : {1, 2}) {
    const FatbinEntry &ptx = fb.entries[i];
    EXPECT_EQ(ptx.kind, Kind::Ptx);
    EXPECT_EQ(ptx.compression, FatbinCompression::Zstd);
    EXPECT_EQ(ptx.versionMajor, 9);
    EXPECT_EQ(ptx.versionMinor, 0);
    EXPECT_TRUE(ptxStart(ptx).starts_with(".version 9.0\n")) << ptxStart(ptx).substr(0, 80);
    EXPECT_NE(ptx.text().back(), '\0') << "trailing NULs are stripped";
    EXPECT_FALSE(ptx.debug);
    EXPECT_TRUE(ptx.identifier.empty());
    EXPECT_TRUE(ptx.options.empty());
  }
  EXPECT_EQ(fb.entries[1].arch, 75u);
  EXPECT_EQ(fb.entries[2].arch, 90u);
  EXPECT_NE(fb.entries[1].text().find(".target sm_75\n"), std::string_view::npos);
  EXPECT_NE(fb.entries[2].text().find(".target sm_90\n"), std::string_view::npos);
}

TEST(Fatbin, DecompressedPtxParsesCleanlyWithTheFrontEnd) {
  for (const std::string &name : singleContainerFixtures()) {
    Fatbin fb = parseOk(readFixture(name));
    size_t ptxEntries = 0;
    for (const FatbinEntry &e : fb.entries) {
      if (e.kind != Kind::Ptx) continue;
      ++ptxEntries;
      SCOPED_TRACE(name + " arch " + std::to_string(e.arch));
      std::string text(e.text());
      EXPECT_EQ(parsePtxDiagnostics(text), "");
      ptx::DiagnosticList diags;
      auto module = ptx::parseModule(text, name, diags);
      EXPECT_EQ(module->versionMajor, 9u);
      ASSERT_FALSE(module->targets.empty());
      std::string expectedTarget = "sm_" + std::to_string(e.arch) + (e.archSpecific ? "a" : "");
      EXPECT_EQ(module->targets[0], expectedTarget);
      const ptx::Function *saxpy = module->findFunction("_Z5saxpyifPKfPf");
      const ptx::Function *blockSum = module->findFunction("_Z8blockSumPKfPf");
      ASSERT_NE(saxpy, nullptr);
      ASSERT_NE(blockSum, nullptr);
      EXPECT_TRUE(saxpy->isKernel);
      EXPECT_EQ(saxpy->params.size(), 4u);
      EXPECT_TRUE(blockSum->isKernel);
    }
    EXPECT_GT(ptxEntries, 0u) << name;
  }
}

TEST(Fatbin, EveryCompressionModeGivesTheSamePtxAndCubin) {
  Fatbin zstd = parseOk(readFixture("zstd.fatbin"));
  Fatbin lz4 = parseOk(readFixture("lz4.fatbin"));
  Fatbin size = parseOk(readFixture("size.fatbin"));
  Fatbin none = parseOk(readFixture("none.fatbin"));
  EXPECT_EQ(findEntry(lz4, Kind::Ptx, 75)->compression, FatbinCompression::Lz4);
  EXPECT_EQ(findEntry(size, Kind::Ptx, 75)->compression, FatbinCompression::Zstd);
  EXPECT_EQ(findEntry(none, Kind::Ptx, 75)->compression, FatbinCompression::None);
  EXPECT_EQ(findEntry(size, Kind::Cubin, 75)->compression, FatbinCompression::Zstd)
      << "-compress-mode=size compresses cubins too";
  for (uint32_t arch : {75u, 90u}) {
    std::string reference = ptxOf(none, arch);
    ASSERT_FALSE(reference.empty());
    EXPECT_EQ(ptxOf(zstd, arch), reference) << "zstd, arch " << arch;
    EXPECT_EQ(ptxOf(lz4, arch), reference) << "LZ4, arch " << arch;
    EXPECT_EQ(ptxOf(size, arch), reference) << "size mode, arch " << arch;
  }
  const std::vector<uint8_t> &storedCubin = findEntry(none, Kind::Cubin, 75)->data;
  EXPECT_EQ(findEntry(size, Kind::Cubin, 75)->data, storedCubin);
  EXPECT_EQ(findEntry(zstd, Kind::Cubin, 75)->data, storedCubin);
}

TEST(Fatbin, DebugBuildRecordsIdentifierAndPtxasOptions) {
  Fatbin fb = parseOk(readFixture("debug.fatbin"));
  ASSERT_EQ(fb.entries.size(), 1u);
  const FatbinEntry &e = fb.entries[0];
  EXPECT_EQ(e.kind, Kind::Ptx);
  EXPECT_EQ(e.arch, 80u);
  EXPECT_TRUE(e.debug);
  EXPECT_EQ(e.identifier, "saxpy.cu");
  EXPECT_EQ(e.options, "-g --dont-merge-basicblocks --return-at-end");
  EXPECT_EQ(e.compression, FatbinCompression::Zstd);
  // -G PTX carries DWARF sections and .loc lines; the front end keeps or skips them.
  EXPECT_NE(e.text().find(".section\t.debug_"), std::string_view::npos);
  EXPECT_NE(e.text().find(".loc"), std::string_view::npos);
  EXPECT_EQ(parsePtxDiagnostics(std::string(e.text())), "");
}

TEST(Fatbin, ArchSpecificTargetsAreFlagged) {
  Fatbin fb = parseOk(readFixture("archspecific.fatbin"));
  ASSERT_EQ(fb.entries.size(), 3u);
  EXPECT_EQ(fb.entries[0].arch, 90u);
  EXPECT_TRUE(fb.entries[0].archSpecific);
  EXPECT_NE(fb.entries[0].text().find(".target sm_90a"), std::string_view::npos);
  EXPECT_FALSE(fb.entries[1].archSpecific);
  EXPECT_FALSE(fb.entries[2].archSpecific);
}

TEST(Fatbin, ParseFatbinReadsOneContainerAndReportsItsSize) {
  std::vector<uint8_t> section = readFixture("exe_nv_fatbin.bin");
  Fatbin first = parseOk(section);
  // The device-link container nvcc 13 adds to every program: one empty sm_80 cubin.
  ASSERT_EQ(first.entries.size(), 1u);
  EXPECT_EQ(first.entries[0].kind, Kind::Cubin);
  EXPECT_EQ(first.size, 0x5f8u);
  EXPECT_LT(first.size, section.size());
  EXPECT_EQ(runtime::choosePtx(first), nullptr);

  Fatbin second = parseOk(std::vector<uint8_t>(section.begin() + first.size, section.end()));
  EXPECT_EQ(first.size + second.size, section.size());
  ASSERT_EQ(second.entries.size(), 2u);
  EXPECT_EQ(second.entries[1].kind, Kind::Ptx);
}

TEST(Fatbin, ContainersBackToBackAreAllRead) {
  std::vector<uint8_t> section = readFixture("exe_nv_fatbin.bin");
  Fatbin fb = parseSectionOk(section);
  EXPECT_EQ(fb.containers, 2u);
  EXPECT_EQ(fb.size, section.size());
  ASSERT_EQ(fb.entries.size(), 3u);
  EXPECT_EQ(fb.entries[0].container, 0u);
  EXPECT_EQ(fb.entries[1].container, 1u);
  EXPECT_EQ(fb.entries[2].container, 1u);
  const FatbinEntry *ptx = runtime::choosePtx(fb);
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->arch, 80u);
  EXPECT_EQ(ptx->container, 1u);

  // Zero padding between containers (alignment of separately linked objects) is skipped.
  std::vector<uint8_t> padded(section.begin(), section.begin() + 0x5f8);
  padded.insert(padded.end(), 8, 0);
  padded.insert(padded.end(), section.begin() + 0x5f8, section.end());
  padded.insert(padded.end(), 16, 0);
  Fatbin again = parseSectionOk(padded);
  EXPECT_EQ(again.containers, 2u);
  EXPECT_EQ(again.entries.size(), 3u);
}

TEST(Fatbin, RelocatableDeviceCodeHasOneContainerPerTranslationUnit) {
  Fatbin fb = parseSectionOk(readFixture("rdc_relfatbin.bin"));
  ASSERT_EQ(fb.containers, 2u);
  ASSERT_EQ(fb.entries.size(), 4u);
  for (const FatbinEntry &e : fb.entries) {
    if (e.kind == Kind::Cubin) {
      EXPECT_EQ(cubinElfType(e), 1) << "-rdc=true cubins are relocatable ELF";
      EXPECT_EQ(e.compression, FatbinCompression::Zstd);
    } else {
      EXPECT_EQ(e.kind, Kind::Ptx);
      EXPECT_EQ(e.options, "--compile-only");
    }
  }
  std::vector<const FatbinEntry *> units = runtime::choosePtxPerContainer(fb);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0]->container, 0u);
  EXPECT_EQ(units[1]->container, 1u);
  // Translation unit 1 calls scale(), which unit 2 defines: one declares it, the other has it.
  ptx::DiagnosticList diags;
  auto caller = ptx::parseModule(std::string(units[0]->text()), "scale.ptx", diags);
  auto callee = ptx::parseModule(std::string(units[1]->text()), "main.ptx", diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  ASSERT_NE(caller->findFunction("_Z8scaleAllPf"), nullptr);
  ASSERT_NE(caller->findFunction("_Z5scalef"), nullptr);
  EXPECT_FALSE(caller->findFunction("_Z5scalef")->hasBody);
  ASSERT_NE(callee->findFunction("_Z5scalef"), nullptr);
  EXPECT_TRUE(callee->findFunction("_Z5scalef")->hasBody);
  EXPECT_NE(callee->findFunction("_Z6addOnePf"), nullptr);
}

TEST(Fatbin, ChoosePtxPicksTheNewestArchNotAboveTheLimit) {
  Fatbin fb = parseOk(readFixture("zstd.fatbin")); // PTX for 75 and 90
  ASSERT_NE(runtime::choosePtx(fb), nullptr);
  EXPECT_EQ(runtime::choosePtx(fb)->arch, 90u);
  EXPECT_EQ(runtime::choosePtx(fb, 120)->arch, 90u);
  EXPECT_EQ(runtime::choosePtx(fb, 89)->arch, 75u);
  EXPECT_EQ(runtime::choosePtx(fb, 75)->arch, 75u);
  EXPECT_EQ(runtime::choosePtx(fb, 70)->arch, 75u) << "only newer PTX: the oldest of it";
  EXPECT_EQ(runtime::choosePtx(fb)->kind, Kind::Ptx);
}

TEST(Fatbin, ChoosePtxAcceptsNewerPtxWhenThatIsAllThereIs) {
  Fatbin fb = parseOk(readFixture("newer.fatbin")); // PTX for 100 and 120
  ASSERT_EQ(fb.entries.size(), 2u);
  EXPECT_EQ(runtime::choosePtx(fb)->arch, 100u);
  EXPECT_EQ(runtime::choosePtx(fb, 120)->arch, 120u);
  EXPECT_EQ(runtime::choosePtx(fb, 110)->arch, 100u);
}

TEST(Fatbin, ChoosePtxPrefersGenericOverArchSpecificAtOneArch) {
  Fatbin fb = parseOk(readFixture("archspecific.fatbin")); // compute_90a, compute_90, compute_80
  const FatbinEntry *chosen = runtime::choosePtx(fb);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->arch, 90u);
  EXPECT_FALSE(chosen->archSpecific);
  EXPECT_EQ(chosen, &fb.entries[1]);
  EXPECT_EQ(runtime::choosePtx(fb, 89)->arch, 80u);
}

TEST(Fatbin, ChoosePtxWithoutPtxIsNull) {
  Fatbin empty;
  EXPECT_EQ(runtime::choosePtx(empty), nullptr);
  EXPECT_TRUE(runtime::choosePtxPerContainer(empty).empty());
}

TEST(FatbinWrapper, Version1PointsAtOneContainer) {
  std::vector<uint64_t> data = aligned(readFixture("zstd.fatbin"));
  Wrapper w{static_cast<int>(runtime::kFatbinWrapperMagic), 1,
            reinterpret_cast<const unsigned long long *>(data.data()), nullptr};
  Fatbin fb;
  ptx::DiagnosticList diags;
  ASSERT_TRUE(runtime::parseFatbinWrapper(&w, fb, diags)) << diags.renderText();
  EXPECT_EQ(fb.entries.size(), 3u);
  EXPECT_EQ(fb.size, readFixture("zstd.fatbin").size());
  EXPECT_EQ(runtime::choosePtx(fb)->arch, 90u);
}

TEST(FatbinWrapper, Version2FollowsThePrelinkedContainers) {
  // What link.stub registers for -rdc=true: the device-linked container, and a NULL-terminated
  // array of every translation unit's container.
  std::vector<uint8_t> exe = readFixture("exe_nv_fatbin.bin");
  std::vector<uint64_t> linked = aligned(std::vector<uint8_t>(exe.begin(), exe.begin() + 0x5f8));
  std::vector<uint8_t> rel = readFixture("rdc_relfatbin.bin");
  std::vector<uint64_t> unit0 = aligned(std::vector<uint8_t>(rel.begin(), rel.begin() + 0x5d0));
  std::vector<uint64_t> unit1 = aligned(std::vector<uint8_t>(rel.begin() + 0x5d0, rel.end()));
  const void *prelinked[] = {unit0.data(), unit1.data(), nullptr};
  Wrapper w{static_cast<int>(runtime::kFatbinWrapperMagic), 2,
            reinterpret_cast<const unsigned long long *>(linked.data()), prelinked};
  Fatbin fb;
  ptx::DiagnosticList diags;
  ASSERT_TRUE(runtime::parseFatbinWrapper(&w, fb, diags)) << diags.renderText();
  EXPECT_EQ(fb.containers, 3u);
  ASSERT_EQ(fb.entries.size(), 5u);
  EXPECT_EQ(fb.entries[0].container, 0u);
  EXPECT_EQ(fb.entries[0].kind, Kind::Cubin);
  std::vector<const FatbinEntry *> units = runtime::choosePtxPerContainer(fb);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0]->container, 1u);
  EXPECT_EQ(units[1]->container, 2u);

  // Without prelinked containers (a whole-program build), version 2 is just its own container.
  const void *none[] = {nullptr};
  w.filenameOrFatbins = none;
  ASSERT_TRUE(runtime::parseFatbinWrapper(&w, fb, diags)) << diags.renderText();
  EXPECT_EQ(fb.containers, 1u);
  EXPECT_EQ(fb.entries.size(), 1u);
}

TEST(FatbinWrapper, BadWrappersAreErrors) {
  std::vector<uint64_t> data = aligned(readFixture("zstd.fatbin"));
  auto failsWith = [](const void *wrapper, const std::string &needle) {
    Fatbin fb;
    ptx::DiagnosticList diags;
    EXPECT_FALSE(runtime::parseFatbinWrapper(wrapper, fb, diags));
    ASSERT_TRUE(diags.hasErrors());
    EXPECT_NE(diags.renderText().find(needle), std::string::npos) << diags.renderText();
    EXPECT_NE(diags.renderText().find("byte offset"), std::string::npos) << diags.renderText();
  };
  failsWith(nullptr, "null pointer");
  Wrapper w{static_cast<int>(runtime::kFatbinWrapperMagic), 3,
            reinterpret_cast<const unsigned long long *>(data.data()), nullptr};
  failsWith(&w, "unsupported fatbin wrapper version 3");
  w.version = 1;
  w.magic = 0x12345678;
  failsWith(&w, "magic 0x12345678");
  w.magic = static_cast<int>(runtime::kFatbinWrapperMagic);
  w.data = nullptr;
  failsWith(&w, "null pointer");
  std::vector<uint64_t> notAContainer(4, 0x1111111111111111ull);
  w.data = reinterpret_cast<const unsigned long long *>(notAContainer.data());
  failsWith(&w, "container magic");
  // A header size that would take the reader past the container (0xffff):
  // refused before anything is read behind the 16-byte header.
  std::vector<uint64_t> bigHeader(2);
  const uint8_t header[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0};
  std::memcpy(bigHeader.data(), header, sizeof header);
  w.data = reinterpret_cast<const unsigned long long *>(bigHeader.data());
  failsWith(&w, "header size of 65535 bytes");
  // A prelinked entry that is not a container.
  w.data = reinterpret_cast<const unsigned long long *>(data.data());
  w.version = 2;
  const void *prelinked[] = {notAContainer.data(), nullptr};
  w.filenameOrFatbins = prelinked;
  failsWith(&w, "prelinked container 0");
}
