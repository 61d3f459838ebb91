// libFuzzer target for `ptxvm run --arg SPEC` (tools/ArgumentSpec.h): each line of the input is
// one spec, built in order as `ptxvm run` builds a kernel's arguments. Nothing may crash, leak,
// hang or allocate without bound: every spec gives its bytes or a usage error. The device is
// the emulator behind a cap on live bytes (kDeviceBudget), so that buffers up to the parser's
// 16 GiB limit are refused the way a full device refuses them, and -rss_limit_mb holds.
// Files named by specs (file=, >OUT) are confined to a scratch folder: their names may not hold
// a '/', and the harness puts the folder in front of them.
#include "tools/ArgumentSpec.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace {

constexpr uint64_t kDeviceBudget = uint64_t{64} << 20;
constexpr size_t kMaxSpecs = 32;
const char kSeedFile[] = "contents.bin"; // what file=contents.bin reads

/// A device that forwards to the emulator but gives at most kDeviceBudget live bytes.
class CappedDevice final : public runtime::Device {
public:
  explicit CappedDevice(std::unique_ptr<runtime::Device> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  uint64_t allocate(uint64_t bytes, uint64_t alignment) override {
    if (bytes > kDeviceBudget - std::min(kDeviceBudget, inner_->liveBytes())) return 0;
    return inner_->allocate(bytes, alignment);
  }
  bool free(uint64_t address) override { return inner_->free(address); }
  bool mapHost(void *host, uint64_t bytes) override { return inner_->mapHost(host, bytes); }
  bool unmapHost(uint64_t address) override { return inner_->unmapHost(address); }
  std::optional<runtime::AllocationInfo> allocationAt(uint64_t address) const override {
    return inner_->allocationAt(address);
  }
  bool inDeviceHeap(uint64_t address) const override { return inner_->inDeviceHeap(address); }
  uint64_t liveBytes() const override { return inner_->liveBytes(); }
  bool write(uint64_t address, const void *data, uint64_t size) override {
    return inner_->write(address, data, size);
  }
  bool read(uint64_t address, void *data, uint64_t size) const override {
    return inner_->read(address, data, size);
  }
  bool copy(uint64_t to, uint64_t from, uint64_t size) override { return inner_->copy(to, from, size); }
  bool fill(uint64_t address, uint8_t value, uint64_t size) override {
    return inner_->fill(address, value, size);
  }
  std::optional<runtime::Symbol> symbol(const ptx::Module &m, ptx::Name name) override {
    return inner_->symbol(m, name);
  }
  std::unique_ptr<runtime::Kernel> loadKernel(const ptx::Module &m, std::string_view name,
                                              ptx::DiagnosticList &diags) override {
    return inner_->loadKernel(m, name, diags);
  }
  void setHostFunction(std::string name, runtime::HostFunction function) override {
    inner_->setHostFunction(std::move(name), std::move(function));
  }
  runtime::LaunchResult launch(const runtime::Kernel &k, const runtime::LaunchConfig &config,
                               ptx::DiagnosticList &diags) override {
    return inner_->launch(k, config, diags);
  }

private:
  std::unique_ptr<runtime::Device> inner_;
};

/// What a command line can pass (no NUL: argv strings end there), with paths
/// inside the scratch folder: no separators (so no absolute paths, no `..`
/// components, no /dev/stdin to block on).
bool possible(std::string_view spec) {
  return spec.find('/') == std::string_view::npos && spec.find('\0') == std::string_view::npos;
}

std::filesystem::path g_scratch;

/// The spec with the scratch folder in front of the paths it names.
std::string inScratch(std::string_view spec) {
  std::string out, folder = g_scratch.string() + "/";
  for (size_t i = 0; i < spec.size(); ++i) {
    out += spec[i];
    if (spec[i] == '>' || (spec.substr(0, i + 1).ends_with("file="))) out += folder;
  }
  return out;
}

void check(bool ok) {
  if (!ok) std::abort();
}

/// What a built argument must be: a scalar's bytes at its width, or a
/// buffer's address whose allocation holds the size the spec asked for.
void checkBuilt(const std::string &spec, const std::vector<uint8_t> &bytes,
                const std::vector<ptxvm::Buffer> &buffers, size_t buffersBefore, runtime::Device &dev) {
  std::string_view kind = std::string_view(spec).substr(0, spec.find(':'));
  if (kind == "buf") {
    check(bytes.size() == 8 && buffers.size() == buffersBefore + 1);
    const ptxvm::Buffer &b = buffers.back();
    uint64_t address = 0;
    std::memcpy(&address, bytes.data(), 8);
    check(address == b.address && b.size > 0 && b.size <= ptxvm::kMaxBufferBytes);
    auto info = dev.allocationAt(b.address);
    check(info && info->live && info->base == b.address && info->size >= b.size);
    // buf:SIZE:INIT>OUT, INIT running from the second colon to the '>'.
    std::string body = spec.substr(0, spec.find('>')), sizeAndInit = body.substr(4);
    size_t colon = sizeAndInit.find(':');
    if (colon != std::string::npos && sizeAndInit.substr(colon + 1) == "iota.u32" && b.size >= 8) {
      uint32_t second = 0;
      check(dev.read(b.address + 4, &second, 4) && second == 1);
    }
    return;
  }
  check(buffers.size() == buffersBefore);
  check(bytes.size() == (kind.ends_with("32") ? 4u : 8u));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // The scratch folder, with one file for file= to read. (Not the working
  // directory: libFuzzer's own paths may be relative to it.)
  std::string dir = (std::filesystem::temp_directory_path() / "fuzz_run_args.XXXXXX").string();
  if (!mkdtemp(dir.data())) std::abort();
  g_scratch = dir;
  std::ofstream(g_scratch / kSeedFile, std::ios::binary) << "0123456789abcdef";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> specs;
  for (size_t at = 0; at <= input.size() && specs.size() < kMaxSpecs;) {
    size_t nl = input.find('\n', at);
    std::string_view line = input.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    if (!possible(line)) return -1; // not added to the corpus
    specs.push_back(inScratch(line));
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  std::string error;
  auto emulator = runtime::createDevice("emulator", error);
  check(emulator != nullptr);
  CappedDevice dev(std::move(emulator));
  std::vector<ptxvm::Buffer> buffers;
  for (const std::string &spec : specs) {
    std::vector<uint8_t> bytes;
    size_t before = buffers.size();
    error.clear();
    if (ptxvm::buildArgument(spec, dev, bytes, buffers, error))
      checkBuilt(spec, bytes, buffers, before, dev);
    else
      check(!error.empty() && buffers.size() == before);
  }
  for (const ptxvm::Buffer &b : buffers) check(dev.free(b.address));
  // Outputs named by specs (created when found writable) go, the seed file stays.
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator(g_scratch, ec))
    if (entry.path().filename() != kSeedFile) std::filesystem::remove_all(entry.path(), ec);
  return 0;
}
