// libFuzzer target for the fatbin reader. Any input, read as a fatbin container, a section of
// containers, the container behind a `__cudaRegisterFatBinary` wrapper, or an ELF file holding
// them, must give entries or an error with a byte offset: never a crash, hang, leak, overread
// or unbounded allocation. What parses must keep the reader's promises (checked with abort).
#include "runtime/Elf.h"
#include "runtime/Fatbin.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void check(bool ok, const runtime::Fatbin &fb, const ptx::DiagnosticList &diags, size_t inputSize) {
  if (ok == diags.hasErrors()) std::abort(); // success and errors must agree
  for (const ptx::Diagnostic &d : diags.all()) {
    if (d.message.find("byte offset") == std::string::npos) std::abort();
    (void)d.renderText();
    (void)d.renderJson();
  }
  if (!ok) return;
  if (fb.size > inputSize) std::abort();
  for (const runtime::FatbinEntry &e : fb.entries) {
    if (e.data.size() > runtime::kFatbinMaxPayloadBytes) std::abort();
    if (e.kind == runtime::FatbinEntry::Kind::Ptx && !e.data.empty() && e.data.back() == 0) std::abort();
    if (e.container >= fb.containers) std::abort();
  }
  const runtime::FatbinEntry *chosen = runtime::choosePtx(fb);
  if (chosen && chosen->kind != runtime::FatbinEntry::Kind::Ptx) std::abort();
  for (const runtime::FatbinEntry *unit : runtime::choosePtxPerContainer(fb))
    if (!unit || unit->kind != runtime::FatbinEntry::Kind::Ptx) std::abort();
}

void fuzzFatbin(std::span<const uint8_t> bytes) {
  runtime::Fatbin fb;
  ptx::DiagnosticList diags;
  check(runtime::parseFatbin(bytes, fb, diags), fb, diags, bytes.size());

  runtime::Fatbin section; // parseFatbinContainers appends
  diags.clear();
  check(runtime::parseFatbinContainers(bytes, section, diags), section, diags, bytes.size());

  // The wrapper reads the container's size from its header, so it only gets containers that
  // really are that long (in 8-byte aligned memory, as nvcc's fatbinData is).
  uint64_t size = 0;
  ptx::DiagnosticList sizeDiags;
  if (!runtime::fatbinContainerSize(bytes, size, sizeDiags)) return;
  std::vector<uint64_t> aligned((size + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), size);
  const void *prelinked[] = {aligned.data(), aligned.data(), nullptr};
  struct {
    int32_t magic, version;
    const void *data;
    const void *filenameOrFatbins;
  } wrapper{int32_t(runtime::kFatbinWrapperMagic), 2, aligned.data(), prelinked};
  diags.clear();
  check(runtime::parseFatbinWrapper(&wrapper, fb, diags), fb, diags, 3 * size);
}

void fuzzElf(const uint8_t *data, size_t size) {
  runtime::ElfImage image;
  ptx::DiagnosticList diags;
  if (!image.parse(std::vector<uint8_t>(data, data + size), "fuzz.elf", diags)) return;
  std::vector<runtime::FatbinContainerRef> containers;
  runtime::findFatbinContainers(image, containers, diags);
  runtime::Fatbin fb;
  diags.clear();
  check(runtime::readFatbinSections(image, fb, diags), fb, diags, size);
  std::vector<runtime::FatbinWrapperRecord> wrappers;
  diags.clear();
  runtime::readFatbinWrappers(image, wrappers, diags);
  for (const runtime::FatbinWrapperRecord &w : wrappers) {
    diags.clear();
    check(runtime::parseWrapperContainer(image, w, fb, diags), fb, diags, size);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzzFatbin(std::span<const uint8_t>(data, size));
  fuzzElf(data, size);
  return 0;
}
