#include "runtime/FatbinTestUtil.h"

#include "ptx/Parser.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>

namespace fatbin_test {

std::vector<uint8_t> readFixture(const std::string &name) {
  std::string path = std::string(PTXVM_FATBIN_FIXTURES) + "/" + name;
  std::string text;
  ptx::DiagnosticList diags;
  if (!ptx::readFile(path, text, diags)) {
    ADD_FAILURE() << "missing fixture " << path << ": " << diags.renderText();
    return {};
  }
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::vector<std::string> singleContainerFixtures() {
  return {"zstd.fatbin",  "lz4.fatbin",   "size.fatbin",        "none.fatbin",
          "debug.fatbin", "newer.fatbin", "archspecific.fatbin"};
}

std::vector<std::string> sectionFixtures() { return {"exe_nv_fatbin.bin", "rdc_relfatbin.bin"}; }

std::string programPath(const std::string &name) {
  std::string dir = PTXVM_FATBIN_PROGRAMS;
  if (dir.empty()) return "";
  std::string path = dir + "/" + name;
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "nvcc was found but " << path << " was not built";
    return "";
  }
  return path;
}

const runtime::FatbinEntry *findEntry(const runtime::Fatbin &fb, runtime::FatbinEntry::Kind kind,
                                      uint32_t arch, int container) {
  for (const runtime::FatbinEntry &e : fb.entries)
    if (e.kind == kind && e.arch == arch && (container < 0 || e.container == uint32_t(container))) return &e;
  return nullptr;
}

std::string_view ptxStart(const runtime::FatbinEntry &e) {
  std::string_view text = e.text();
  size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string_view() : text.substr(first);
}

std::string parsePtxDiagnostics(const std::string &ptx) {
  ptx::DiagnosticList diags;
  auto module = ptx::parseModule(ptx, "fatbin.ptx", diags);
  return diags.hasErrors() ? diags.renderText() : std::string();
}

uint16_t cubinElfType(const runtime::FatbinEntry &e) {
  if (e.data.size() < 64 || std::memcmp(e.data.data(),
                                        "\x7f"
                                        "ELF",
                                        4) != 0)
    return 0;
  uint16_t type;
  std::memcpy(&type, e.data.data() + 16, sizeof type);
  return type;
}

void store32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}
void store64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

namespace {
void pad8(std::vector<uint8_t> &bytes) {
  while (bytes.size() % 8) bytes.push_back(0);
}
void append(std::vector<uint8_t> &bytes, std::string_view s) {
  bytes.insert(bytes.end(), s.begin(), s.end());
}
} // namespace

std::vector<uint8_t> makeContainer(const std::vector<EntrySpec> &entries) {
  std::vector<uint8_t> out(16, 0);
  store32(out, 0, runtime::kFatbinContainerMagic);
  out[4] = 1;  // version
  out[6] = 16; // header size
  for (const EntrySpec &spec : entries) {
    std::vector<uint8_t> header(64, 0);
    header[0] = uint8_t(spec.kind);
    header[1] = uint8_t(spec.kind >> 8);
    header[2] = header[3] = 1;
    store32(header, 0x10, spec.compressedSize);
    header[0x18] = uint8_t(spec.versionMinor);
    header[0x1a] = uint8_t(spec.versionMajor);
    store32(header, 0x1c, spec.arch);
    store64(header, 0x28, spec.flags);
    store64(header, 0x38, spec.decompressedSize);
    if (!spec.identifier.empty()) {
      store32(header, 0x20, uint32_t(header.size()));
      store32(header, 0x24, uint32_t(spec.identifier.size()));
      append(header, spec.identifier);
      pad8(header);
    }
    if (!spec.options.empty()) {
      uint32_t descriptor = uint32_t(header.size());
      store32(header, 0x14, descriptor);
      header.resize(header.size() + 8, 0);
      store32(header, descriptor, uint32_t(header.size()));
      store32(header, descriptor + 4, uint32_t(spec.options.size()));
      append(header, spec.options);
      pad8(header);
    }
    store32(header, 0x04, uint32_t(header.size()));
    std::vector<uint8_t> payload = spec.payload;
    pad8(payload);
    store64(header, 0x08, payload.size());
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), payload.begin(), payload.end());
  }
  store64(out, 8, out.size() - 16);
  return out;
}

std::vector<uint8_t> zstdCompress(std::string_view text, bool withContentSize) {
  std::vector<uint8_t> out(ZSTD_compressBound(text.size()));
  ZSTD_CCtx *ctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, withContentSize ? 1 : 0);
  size_t n = ZSTD_compress2(ctx, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(ctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

std::vector<uint8_t> lz4Compress(std::string_view text) {
  std::vector<uint8_t> out(LZ4_compressBound(int(text.size())));
  int n = LZ4_compress_default(text.data(), reinterpret_cast<char *>(out.data()), int(text.size()),
                               int(out.size()));
  EXPECT_GT(n, 0);
  out.resize(n > 0 ? size_t(n) : 0);
  return out;
}

} // namespace fatbin_test
