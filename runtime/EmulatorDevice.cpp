// The emulator as a device: an adapter from runtime/Device.h to emu::Device.
#include "runtime/EmulatorDevice.h"

#include "emulator/HostFunctions.h"
#include "emulator/Timeline.h"

#include <cstring>
#include <new>
#include <stdexcept>

namespace runtime {

namespace {

Dim3 fromEmu(emu::Dim3 d) { return {d.x, d.y, d.z}; }
emu::Dim3 toEmu(Dim3 d) { return {d.x, d.y, d.z}; }

class EmulatorKernel final : public Kernel {
public:
  EmulatorKernel(std::unique_ptr<emu::Kernel> code, KernelAttributes a)
      : Kernel(*code->module, *code->function, code->name, std::move(a)), code_(std::move(code)) {}
  const emu::Kernel &code() const { return *code_; }
  /// The engine its launches run on (null: the interpreter). Declared after
  /// the code it was made for, so that it goes first.
  std::unique_ptr<emu::Engine> engine;
  EngineInfo info;

private:
  std::unique_ptr<emu::Kernel> code_;
};

/// A lane's host call, as the emulator runs it.
class EmulatorHostCall final : public HostCall {
public:
  explicit EmulatorHostCall(emu::HostCall &call) : call_(call) {}
  uint64_t argument(unsigned i) const override { return call_.argument(i); }
  unsigned numArguments() const override { return call_.numArguments(); }
  bool argumentBytes(unsigned i, void *out, unsigned size) const override {
    return call_.argumentBytes(i, out, size);
  }
  bool write(uint64_t address, const void *in, unsigned size) override {
    return call_.write(address, in, size);
  }
  void setResult(uint64_t bits, unsigned i) override { call_.setResult(bits, i); }
  bool read(uint64_t address, void *out, unsigned size) override { return call_.read(address, out, size); }
  bool readString(uint64_t address, std::string &out, size_t limit) override {
    return call_.readString(address, out, limit);
  }
  void fail(ptx::DiagKind kind, std::string message,
            std::vector<std::pair<std::string, std::string>> fields) override {
    call_.fail(kind, std::move(message), std::move(fields));
  }
  void report(ptx::DiagKind kind, ptx::Severity severity, std::string message,
              std::vector<std::pair<std::string, std::string>> fields) override {
    call_.report(kind, severity, std::move(message), std::move(fields));
  }
  void heapChanged(uint64_t address) override { call_.forgetCachedRange(address); }
  unsigned lane() const override { return call_.lane(); }
  Dim3 threadIndex() const override { return fromEmu(call_.threadIndex()); }
  Dim3 blockIndex() const override { return fromEmu(call_.blockIndex()); }
  Dim3 blockDim() const override { return fromEmu(call_.blockDim()); }
  Dim3 gridDim() const override { return fromEmu(call_.gridDim()); }
  uint64_t launchTag() const override { return call_.launchTag(); }
  std::string_view kernelName() const override { return call_.kernel().name; }
  uint32_t line() const override { return call_.line(); }

private:
  emu::HostCall &call_;
};

} // namespace

const emu::Kernel &emulatorKernel(const Kernel &k) { return static_cast<const EmulatorKernel &>(k).code(); }

EmulatorDevice::EmulatorDevice(std::string name, EngineFactory engines, EngineDescriber describe)
    : EmulatorDevice() {
  name_ = std::move(name);
  engines_ = std::move(engines);
  describe_ = std::move(describe);
}

EmulatorDevice::EmulatorDevice() {
  device_.placeGlobal = [this](const ptx::Module &m, const ptx::Variable &v, uint64_t bytes) -> uint64_t {
    return placeGlobal ? placeGlobal(m, v, bytes) : 0;
  };
}

uint64_t EmulatorDevice::allocate(uint64_t bytes, uint64_t alignment) {
  try {
    return device_.global.allocate(bytes, alignment);
  } catch (const std::bad_alloc &) {
    return 0;
  } catch (const std::length_error &) {
    return 0;
  }
}

bool EmulatorDevice::free(uint64_t address) { return device_.global.free(address); }

bool EmulatorDevice::mapHost(void *host, uint64_t bytes) { return device_.global.adopt(host, bytes); }
bool EmulatorDevice::unmapHost(uint64_t address) { return device_.global.release(address); }

std::optional<AllocationInfo> EmulatorDevice::allocationAt(uint64_t address) const {
  auto info = device_.global.allocationAt(address);
  if (!info) return std::nullopt;
  return AllocationInfo{info->base, info->size, info->live, info->adopted};
}

bool EmulatorDevice::inDeviceHeap(uint64_t address) const {
  return address >= emu::kGlobalBase && address - emu::kGlobalBase < (uint64_t{1} << 40);
}

uint64_t EmulatorDevice::liveBytes() const { return device_.global.liveBytes(); }

bool EmulatorDevice::write(uint64_t address, const void *data, uint64_t size) {
  return device_.global.write(address, data, size);
}
bool EmulatorDevice::read(uint64_t address, void *data, uint64_t size) const {
  return device_.global.read(address, data, size);
}

bool EmulatorDevice::copy(uint64_t to, uint64_t from, uint64_t size) {
  if (!size) return true;
  emu::GlobalMemory::Range d = device_.global.rangeOf(to), s = device_.global.rangeOf(from);
  if (!d.bytes || !s.bytes || size > d.end - to || size > s.end - from) return false;
  std::memmove(d.bytes + (to - d.base), s.bytes + (from - s.base), size);
  return true;
}

bool EmulatorDevice::fill(uint64_t address, uint8_t value, uint64_t size) {
  if (!size) return true;
  emu::GlobalMemory::Range r = device_.global.rangeOf(address);
  if (!r.bytes || size > r.end - address) return false;
  std::memset(r.bytes + (address - r.base), value, size);
  return true;
}

std::optional<Symbol> EmulatorDevice::symbol(const ptx::Module &m, ptx::Name name) {
  const emu::SymbolLocation *at = device_.symbol(m, name);
  if (!at) return std::nullopt;
  switch (at->space) {
  case emu::Space::Global: return Symbol{Symbol::Space::Global, at->address, at->size};
  // The constant bank lives in the global heap: a __constant__ variable's
  // device address is the bank's plus its offset (what cvta.const gives).
  case emu::Space::Const:
    return Symbol{Symbol::Space::Const, device_.constBankAddress(m) + at->address, at->size};
  case emu::Space::Shared: return Symbol{Symbol::Space::Shared, at->address, at->size};
  default: return Symbol{Symbol::Space::Other, at->address, at->size};
  }
}

std::string EmulatorDevice::kernelAt(const ptx::Module &m, uint64_t address) {
  if ((address & ~uint64_t{0xFFFF'FFFF}) != emu::kFunctionTag) return {};
  std::lock_guard lock(kernelNamesMutex_);
  std::vector<std::string> &names = kernelNames_[&m];
  if (names.empty()) {
    names.resize(m.functions.size());
    for (const auto &[name, index] : emu::functionIndices(m))
      if (index < names.size())
        if (const ptx::Function *f = m.findFunction(m.str(name)); f && f->isKernel)
          names[index] = m.str(name);
  }
  uint64_t index = address & 0xFFFF'FFFF;
  return index < names.size() ? names[index] : std::string();
}

std::unique_ptr<Kernel> EmulatorDevice::loadKernel(const ptx::Module &m, std::string_view name,
                                                   ptx::DiagnosticList &diags) {
  std::unique_ptr<emu::Kernel> code = device_.decode(m, name, diags);
  if (!code) return nullptr;
  KernelAttributes a;
  a.paramBytes = code->paramBytes;
  a.paramOffsets = code->paramOffsets;
  a.paramSizes = code->paramSizes;
  a.staticShared = code->staticShared;
  a.localBytes = code->localBytes;
  a.constBytes = code->constSize;
  auto kernel = std::make_unique<EmulatorKernel>(std::move(code), std::move(a));
  if (engines_) kernel->engine = engines_(kernel->code(), diags, kernel->info);
  return kernel;
}

void EmulatorDevice::setHostFunction(std::string name, HostFunction function) {
  device_.setHostFunction(std::move(name), [function = std::move(function)](emu::HostCall &call) {
    EmulatorHostCall c(call);
    function(c);
  });
}

LaunchResult EmulatorDevice::launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) {
  emu::LaunchConfig c;
  c.grid = toEmu(config.grid);
  c.block = toEmu(config.block);
  c.cluster = toEmu(config.cluster);
  c.dynamicShared = config.dynamicShared;
  c.params = config.params;
  c.threads = config.threads;
  c.maxInstructions = config.maxInstructions;
  c.timeoutSeconds = config.timeoutSeconds;
  c.racecheck = config.racecheck;
  c.statistics = config.statistics;
  c.memoryStatistics = config.memoryStatistics;
  c.randomSchedule = config.randomSchedule;
  c.seed = config.seed;
  c.cooperative = config.cooperative;
  c.tag = config.tag;
  const auto &loaded = static_cast<const EmulatorKernel &>(k);
  c.engine = loaded.engine.get();
  std::unique_ptr<emu::LaunchObserver> timeline;
  if (config.timeline) {
    timeline = config.timeline->observeLaunch(k.name());
    c.observers.push_back(timeline.get());
  }
  ptx::DiagnosticList launchDiags;
  emu::LaunchResult r = device_.launch(emulatorKernel(k), c, launchDiags);

  LaunchResult result;
  result.device = name_;
  result.engine = loaded.info;
  if (describe_ && loaded.engine) describe_(*loaded.engine, result.engine);
  result.ok = r.ok;
  result.status = r.ok ? "completed" : "failed";
  if (!r.ok) result.error = launchError(launchDiags);
  for (const ptx::Diagnostic &d : launchDiags.all()) diags.add(d);
  result.wallSeconds = r.wallSeconds;
  LaunchStats &s = result.stats;
  s.warpInstructions = r.warpInstructions;
  s.threadInstructions = r.threadInstructions;
  s.divergentBranches = r.stats.divergentBranches;
  s.barrierWaits = r.stats.barrierWaits;
  for (size_t space = 0; space < r.stats.memoryOps.size(); ++space)
    s.memoryOps.emplace_back(emu::spaceName(static_cast<emu::Space>(space)), r.stats.memoryOps[space]);
  s.perWarp = std::move(r.perWarp);
  return result;
}

} // namespace runtime
