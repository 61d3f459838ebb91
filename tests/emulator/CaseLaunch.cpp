#include "tests/emulator/CaseLaunch.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace ptxvm::test {

CaseBuffers prepareCase(const gpucase::Case &c, emu::Device &device, const emu::Kernel &kernel,
                        emu::LaunchConfig &config) {
  CaseBuffers b;
  config.grid = {c.grid[0], c.grid[1], c.grid[2]};
  config.block = {c.block[0], c.block[1], c.block[2]};
  config.dynamicShared = c.shared;
  config.cooperative = c.cooperative;
  if (c.hasCluster()) config.cluster = {c.cluster[0], c.cluster[1], c.cluster[2]};
  config.params.assign(kernel.paramBytes, 0);
  for (size_t i = 0; i < c.args.size() && i < kernel.paramOffsets.size(); ++i) {
    const gpucase::Arg &a = c.args[i];
    std::vector<uint8_t> bytes;
    if (a.isBuffer) {
      b.inputs.push_back(gpucase::makeBuffer(a));
      const std::vector<uint8_t> &init = b.inputs.back();
      uint64_t address = device.global.allocate(std::max<size_t>(init.size(), 1));
      device.global.write(address, init.data(), init.size());
      b.addresses.emplace_back(address, init.size());
      bytes.resize(8);
      std::memcpy(bytes.data(), &address, 8);
    } else {
      bytes.resize(gpucase::typeSize(a.type));
      if (gpucase::isFloat(a.type)) {
        double v = 0;
        gpucase::parseReal(a.value, v);
        gpucase::storeReal(bytes.data(), a.type, v);
      } else {
        int64_t v = 0;
        gpucase::parseInt(a.value, v);
        gpucase::storeInt(bytes.data(), a.type, static_cast<uint64_t>(v));
      }
    }
    std::memcpy(config.params.data() + kernel.paramOffsets[i], bytes.data(),
                std::min<size_t>(bytes.size(), kernel.paramSizes[i]));
  }
  return b;
}

std::string debugBuildPath(const gpucase::Case &c) {
  const std::string suffix = ".sm_80.ptx", file = std::filesystem::path(c.ptx).filename().string();
  if (!file.ends_with(suffix)) return "";
  std::filesystem::path debug = std::filesystem::path(PTXVM_CORPUS_DIR) /
                                (file.substr(0, file.size() - suffix.size()) + ".sm_80.G.ptx");
  return std::filesystem::exists(debug) ? debug.string() : "";
}

std::vector<std::vector<uint8_t>> readBuffers(emu::Device &device, const CaseBuffers &buffers) {
  std::vector<std::vector<uint8_t>> out;
  for (auto [address, size] : buffers.addresses) {
    std::vector<uint8_t> data(size);
    device.global.read(address, data.data(), size);
    out.push_back(std::move(data));
  }
  return out;
}

} // namespace ptxvm::test
