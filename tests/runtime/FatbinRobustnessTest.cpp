// Truncated, bit-flipped and lying fatbins: every one is an error with a byte offset (or a
// harmless parse), never a crash, an overread or an unbounded allocation. Run under ASan too.
#include "runtime/FatbinTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using runtime::Fatbin;
using runtime::FatbinEntry;
using namespace fatbin_test;

namespace {

std::vector<std::string> allFixtures() {
  std::vector<std::string> names = singleContainerFixtures();
  for (const std::string &n : sectionFixtures()) names.push_back(n);
  return names;
}

/// Parses, and checks what any outcome must satisfy: an error names a byte offset; a success
/// has entries whose sizes are within the reader's limits.
bool parseChecked(std::span<const uint8_t> bytes, Fatbin &fb, std::string *message = nullptr) {
  ptx::DiagnosticList diags;
  bool ok = runtime::parseFatbin(bytes, fb, diags);
  EXPECT_EQ(ok, !diags.hasErrors());
  if (!ok) {
    std::string text = diags.renderText();
    EXPECT_NE(text.find("byte offset"), std::string::npos) << text;
    if (message) *message = text;
  } else {
    EXPECT_LE(fb.size, bytes.size());
    for (const FatbinEntry &e : fb.entries) EXPECT_LE(e.data.size(), runtime::kFatbinMaxPayloadBytes);
  }
  return ok;
}

Fatbin parseFixture(const std::vector<uint8_t> &bytes) {
  Fatbin fb;
  ptx::DiagnosticList diags;
  EXPECT_TRUE(runtime::parseFatbin(bytes, fb, diags)) << diags.renderText();
  return fb;
}

/// The entry header sizes of a parsed container, read back from the bytes.
uint32_t entryHeaderSize(const std::vector<uint8_t> &bytes, uint64_t offset) {
  uint32_t size;
  std::memcpy(&size, bytes.data() + offset + 4, sizeof size);
  return size;
}

} // namespace

TEST(FatbinRobustness, EveryPrefixOfEveryFixtureIsAnError) {
  for (const std::string &name : allFixtures()) {
    std::vector<uint8_t> bytes = readFixture(name);
    Fatbin whole = parseFixture(bytes);
    for (size_t len = 0; len < bytes.size(); ++len) {
      Fatbin fb;
      std::string message;
      bool ok = parseChecked(std::span(bytes).first(len), fb, &message);
      // A prefix still holding the whole first container (sections hold several) parses.
      EXPECT_EQ(ok, len >= whole.size) << name << " cut to " << len << " bytes: " << message;
      if (!ok && len >= 16) {
        EXPECT_NE(message.find("truncated"), std::string::npos) << message;
      }
    }
  }
}

TEST(FatbinRobustness, EveryPrefixOfASectionIsAnErrorUnlessItEndsBetweenContainers) {
  for (const std::string &name : sectionFixtures()) {
    std::vector<uint8_t> bytes = readFixture(name);
    Fatbin first = parseFixture(bytes);
    for (size_t len = 1; len < bytes.size(); ++len) {
      Fatbin fb;
      ptx::DiagnosticList diags;
      bool ok = runtime::parseFatbinContainers(std::span(bytes).first(len), fb, diags);
      EXPECT_EQ(ok, len == first.size) << name << " cut to " << len << " bytes";
    }
  }
}

TEST(FatbinRobustness, TruncationWithAConsistentHeaderFailsInsideEntries) {
  // The container header is patched to the cut length, so the entry parser meets the cut.
  for (const std::string &name : singleContainerFixtures()) {
    std::vector<uint8_t> bytes = readFixture(name);
    Fatbin whole = parseFixture(bytes);
    std::vector<uint64_t> boundaries;
    for (const FatbinEntry &e : whole.entries) boundaries.push_back(e.offset);
    for (size_t len = 16; len < bytes.size(); ++len) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
      store64(cut, 8, len - 16);
      Fatbin fb;
      std::string message;
      bool ok = parseChecked(cut, fb, &message);
      bool atBoundary = std::find(boundaries.begin(), boundaries.end(), len) != boundaries.end();
      EXPECT_EQ(ok, atBoundary) << name << " cut to " << len << ": " << message;
      if (ok) {
        size_t expected =
            std::count_if(boundaries.begin(), boundaries.end(), [&](uint64_t b) { return b < len; });
        EXPECT_EQ(fb.entries.size(), expected);
      } else {
        EXPECT_NE(message.find("entry"), std::string::npos) << message;
      }
    }
  }
}

TEST(FatbinRobustness, ShortenedCompressedPayloadsAreErrors) {
  size_t compressedEntries = 0;
  for (const std::string &name : singleContainerFixtures()) {
    std::vector<uint8_t> bytes = readFixture(name);
    Fatbin whole = parseFixture(bytes);
    for (const FatbinEntry &e : whole.entries) {
      if (e.compression == runtime::FatbinCompression::None) continue;
      ++compressedEntries;
      uint32_t compressedSize;
      std::memcpy(&compressedSize, bytes.data() + e.offset + 0x10, sizeof compressedSize);
      // Every shorter length for small payloads, a dense sample for large ones.
      uint32_t step = compressedSize > 1500 ? 7 : 1;
      for (uint32_t len = 1; len < compressedSize; len += step) {
        std::vector<uint8_t> patched = bytes;
        store32(patched, e.offset + 0x10, len);
        Fatbin fb;
        std::string message;
        EXPECT_FALSE(parseChecked(patched, fb, &message))
            << name << " entry at " << e.offset << " cut to " << len;
      }
    }
  }
  EXPECT_GE(compressedEntries, 8u);
}

TEST(FatbinRobustness, WrongDecompressedSizesAreErrors) {
  std::vector<uint8_t> bytes = readFixture("zstd.fatbin");
  std::vector<uint8_t> lz4 = readFixture("lz4.fatbin");
  for (std::vector<uint8_t> *fixture : {&bytes, &lz4}) {
    Fatbin whole = parseFixture(*fixture);
    const FatbinEntry &ptx = whole.entries[1];
    uint64_t real = ptx.data.size() + 1; // the stored text ends with one NUL
    for (uint64_t claimed : {uint64_t(0), real - 1, real + 1, real * 2, uint64_t(1) << 29,
                             runtime::kFatbinMaxPayloadBytes + 1, uint64_t(1) << 40, ~uint64_t(0)}) {
      std::vector<uint8_t> patched = *fixture;
      store64(patched, ptx.offset + 0x38, claimed);
      Fatbin fb;
      std::string message;
      EXPECT_FALSE(parseChecked(patched, fb, &message)) << "claimed " << claimed;
      EXPECT_NE(message.find("entry 1"), std::string::npos) << message;
    }
  }
}

TEST(FatbinRobustness, BitFlipsInEveryHeaderFieldNeverCrash) {
  size_t flips = 0, rejected = 0;
  for (const std::string &name : singleContainerFixtures()) {
    std::vector<uint8_t> bytes = readFixture(name);
    Fatbin whole = parseFixture(bytes);
    struct Header {
      uint64_t start, length;
      bool compressed;
    };
    std::vector<Header> headers{{0, 16, false}};
    for (const FatbinEntry &e : whole.entries)
      headers.push_back(
          {e.offset, entryHeaderSize(bytes, e.offset), e.compression != runtime::FatbinCompression::None});
    for (const Header &h : headers) {
      for (uint64_t byte = h.start; byte < h.start + h.length; ++byte) {
        for (int bit = 0; bit < 8; ++bit) {
          std::vector<uint8_t> flipped = bytes;
          flipped[byte] ^= uint8_t(1u << bit);
          Fatbin fb;
          std::string message;
          bool ok = parseChecked(flipped, fb, &message);
          ++flips;
          rejected += !ok;
          SCOPED_TRACE(name + " byte " + std::to_string(byte) + " bit " + std::to_string(bit));
          if (h.start == 0 && byte < 6) { // container magic and version
            EXPECT_FALSE(ok);
            EXPECT_NE(message.find(byte < 4 ? "magic" : "version"), std::string::npos) << message;
          }
          uint64_t field = byte - h.start;
          if (h.start != 0 && field >= 0x04 && field < 0x10) {
            EXPECT_FALSE(ok) << "header or payload size";
          }
          if (h.start != 0 && h.compressed &&
              ((field >= 0x10 && field < 0x14) || (field >= 0x38 && field < 0x40))) {
            EXPECT_FALSE(ok) << "compressed or decompressed size";
          }
        }
      }
    }
  }
  // Most header bits matter; flags, kind, arch and versions may legitimately change meaning only.
  EXPECT_GT(rejected, flips / 3) << rejected << " of " << flips;
}

TEST(FatbinRobustness, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(20240611);
  for (const std::string &name : allFixtures()) {
    std::vector<uint8_t> bytes = readFixture(name);
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> mutated = bytes;
      int changes = 1 + int(rng() % 8);
      for (int c = 0; c < changes; ++c) {
        // Half of the changes land in the first 256 bytes, where the headers are.
        size_t at = (rng() % 2) ? rng() % std::min<size_t>(256, mutated.size()) : rng() % mutated.size();
        mutated[at] = uint8_t(rng());
      }
      Fatbin fb;
      parseChecked(mutated, fb);
      ptx::DiagnosticList diags;
      runtime::parseFatbinContainers(mutated, fb, diags);
      runtime::choosePtx(fb);
    }
  }
}

TEST(FatbinRobustness, HandMadeEntriesWithLyingFieldsAreErrors) {
  std::string text = ".version 9.0\n.target sm_80\n.address_size 64\n";
  for (int i = 0; i < 200; ++i) text += "// padding line that compresses well\n";
  std::vector<uint8_t> zstd = zstdCompress(text), lz4 = lz4Compress(text);
  auto expectError = [](const EntrySpec &spec, const std::string &needle) {
    Fatbin fb;
    std::string message;
    EXPECT_FALSE(parseChecked(makeContainer({spec}), fb, &message)) << needle;
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };

  EntrySpec good;
  good.payload = zstd;
  good.compressedSize = uint32_t(zstd.size());
  good.decompressedSize = text.size();
  good.flags |= kFlagZstd;
  {
    Fatbin fb;
    ASSERT_TRUE(parseChecked(makeContainer({good}), fb));
    EXPECT_EQ(fb.entries[0].text(), text);
  }
  EntrySpec both = good;
  both.flags |= kFlagLz4;
  expectError(both, "both LZ4- and zstd-compressed");
  EntrySpec noCompressedSize = good;
  noCompressedSize.compressedSize = 0;
  expectError(noCompressedSize, "compressed size of 0");
  EntrySpec pastPayload = good;
  pastPayload.compressedSize = uint32_t(zstd.size() + 64);
  expectError(pastPayload, "must be non-zero and fit");
  EntrySpec notZstd = good;
  notZstd.payload = lz4;
  notZstd.compressedSize = uint32_t(lz4.size());
  expectError(notZstd, "not a zstd frame");
  EntrySpec frameTooBig = good;
  frameTooBig.decompressedSize = text.size() - 10;
  expectError(frameTooBig, "zstd frame holds");

  EntrySpec goodLz4 = good;
  goodLz4.flags = 0x11 | kFlagLz4;
  goodLz4.payload = lz4;
  goodLz4.compressedSize = uint32_t(lz4.size());
  {
    Fatbin fb;
    ASSERT_TRUE(parseChecked(makeContainer({goodLz4}), fb));
    EXPECT_EQ(fb.entries[0].text(), text);
  }
  EntrySpec lz4Bomb = goodLz4;
  lz4Bomb.decompressedSize = uint64_t(lz4.size()) * 1000;
  expectError(lz4Bomb, "cannot decompress to");
  EntrySpec lz4Short = goodLz4;
  lz4Short.decompressedSize = text.size() + 1;
  expectError(lz4Short, "LZ4");

  EntrySpec badIdentifier = good;
  badIdentifier.identifier = "x.cu";
  std::vector<uint8_t> container = makeContainer({badIdentifier});
  store32(container, 16 + 0x24, 4000); // identifier length past the header
  {
    Fatbin fb;
    std::string message;
    EXPECT_FALSE(parseChecked(container, fb, &message));
    EXPECT_NE(message.find("identifier"), std::string::npos) << message;
  }
  EntrySpec badOptions = good;
  badOptions.options = "-O3";
  container = makeContainer({badOptions});
  store32(container, 16 + 0x14, 4000); // options descriptor past the header
  {
    Fatbin fb;
    std::string message;
    EXPECT_FALSE(parseChecked(container, fb, &message));
    EXPECT_NE(message.find("options descriptor"), std::string::npos) << message;
  }
}

TEST(FatbinRobustness, ZstdWithoutContentSizeAndConcatenatedFramesAreBounded) {
  // Frames written by a streaming compressor carry no content size: the output must still be
  // bounded by the header, and several frames back to back are read as one payload.
  std::string part(5000, 'a');
  std::vector<uint8_t> frame = zstdCompress(part, /*withContentSize=*/false);
  std::vector<uint8_t> twoFrames = frame;
  twoFrames.insert(twoFrames.end(), frame.begin(), frame.end());
  EntrySpec spec;
  spec.kind = 2; // cubin-kind payloads keep their bytes
  spec.flags |= kFlagZstd;
  spec.payload = twoFrames;
  spec.compressedSize = uint32_t(twoFrames.size());
  spec.decompressedSize = 2 * part.size();
  Fatbin fb;
  ASSERT_TRUE(parseChecked(makeContainer({spec}), fb));
  EXPECT_EQ(fb.entries[0].data.size(), 2 * part.size());

  spec.decompressedSize = part.size() + 10; // the second frame overflows the promised size
  std::string message;
  EXPECT_FALSE(parseChecked(makeContainer({spec}), fb, &message));
  EXPECT_NE(message.find("more than the 5010 bytes"), std::string::npos) << message;

  spec.decompressedSize = 3 * part.size(); // the frames end before the promised size
  EXPECT_FALSE(parseChecked(makeContainer({spec}), fb, &message));
  EXPECT_NE(message.find("decompresses to 10000 bytes"), std::string::npos) << message;
}
