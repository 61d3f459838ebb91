// The SIMT emulator as a device (runtime/Device.h): memory is the emulator's
// checked global heap, kernels are decoded for the interpreter, launches run
// on the emulator's CTA scheduler. With an engine factory the same device
// runs kernels on other engines (the CPU device: compiled code). The only
// place outside emulator/ and translator/ that knows emu:: types.
#pragma once

#include "emulator/Device.h"
#include "runtime/Device.h"

#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace runtime {

/// Makes the engine a loaded kernel runs on, saying how in `info`; null
/// (after adding a note to the diagnostics saying why) leaves it on the
/// interpreter.
using EngineFactory =
    std::function<std::unique_ptr<emu::Engine>(const emu::Kernel &, ptx::DiagnosticList &, EngineInfo &info)>;

/// Says how an engine the factory made has run its kernel so far (it may
/// change between launches: a kernel compiled once hot).
using EngineDescriber = std::function<void(const emu::Engine &, EngineInfo &info)>;

class EmulatorDevice final : public Device {
public:
  EmulatorDevice();
  /// A device named `name` whose kernels run on the engines `engines` makes.
  EmulatorDevice(std::string name, EngineFactory engines, EngineDescriber describe = nullptr);
  std::string_view name() const override { return name_; }

  uint64_t allocate(uint64_t bytes, uint64_t alignment = 256) override;
  bool free(uint64_t address) override;
  bool mapHost(void *host, uint64_t bytes) override;
  bool unmapHost(uint64_t address) override;
  std::optional<AllocationInfo> allocationAt(uint64_t address) const override;
  bool inDeviceHeap(uint64_t address) const override;
  uint64_t liveBytes() const override;
  bool write(uint64_t address, const void *data, uint64_t size) override;
  bool read(uint64_t address, void *data, uint64_t size) const override;
  bool copy(uint64_t to, uint64_t from, uint64_t size) override;
  bool fill(uint64_t address, uint8_t value, uint64_t size) override;

  uint64_t createTexture(const emu::TextureObject &object) override {
    return device_.textures.create(object);
  }
  bool destroyTexture(uint64_t handle) override { return device_.textures.destroy(handle); }

  std::optional<Symbol> symbol(const ptx::Module &m, ptx::Name name) override;
  std::string kernelAt(const ptx::Module &m, uint64_t address) override;
  std::unique_ptr<Kernel> loadKernel(const ptx::Module &m, std::string_view name,
                                     ptx::DiagnosticList &diags) override;
  void setHostFunction(std::string name, HostFunction function) override;

  // Launches share only what is locked (the heap, loaded modules, host
  // functions); each has its own CTAs and host threads.
  bool concurrentLaunches() const override { return true; }
  LaunchResult launch(const Kernel &k, const LaunchConfig &config, ptx::DiagnosticList &diags) override;

  /// The emulator behind this device, for tests and tools that look inside.
  emu::Device &emulator() { return device_; }

private:
  mutable emu::Device device_;
  std::string name_ = "emulator";
  EngineFactory engines_;
  EngineDescriber describe_;
  std::mutex kernelNamesMutex_;
  std::map<const ptx::Module *, std::vector<std::string>> kernelNames_; // by function index
};

/// The emulator's decoded kernel behind a device kernel.
const emu::Kernel &emulatorKernel(const Kernel &k);

} // namespace runtime
