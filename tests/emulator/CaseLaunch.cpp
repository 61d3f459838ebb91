#include "tests/emulator/CaseLaunch.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace ptxvm::test {

namespace {

/// The emulator's format of a one-channel texel of type `t`.
emu::TexelFormat formatOf(gpucase::Type t) {
  const unsigned bits = static_cast<unsigned>(gpucase::typeSize(t)) * 8;
  const emu::ChannelKind kind = gpucase::isFloat(t) ? emu::ChannelKind::Float
                                : (t == gpucase::Type::S8 || t == gpucase::Type::S16 ||
                                   t == gpucase::Type::S32 || t == gpucase::Type::S64)
                                    ? emu::ChannelKind::Signed
                                    : emu::ChannelKind::Unsigned;
  return {1, static_cast<uint8_t>(bits), kind};
}

/// A texture or surface object over the `a.count` elements at `address`, as
/// tools/gpu-record makes it: a 1-D texture over linear memory, or a
/// row-major 2-D array read with point sampling, clamped, at unnormalized
/// coordinates, elements as stored.
uint64_t makeObject(emu::Device &device, const gpucase::Arg &a, uint64_t address) {
  emu::TextureObject o;
  o.surface = a.object == gpucase::Object::Surface2D;
  o.resource.address = address;
  o.resource.format = formatOf(a.type);
  if (a.object == gpucase::Object::Texture1D) {
    o.resource.kind = emu::TextureResource::Linear;
    o.resource.width = a.count;
  } else {
    o.resource.kind = emu::TextureResource::Array;
    o.resource.dimensions = 2;
    o.resource.width = a.width;
    o.resource.height = a.height;
    o.resource.rowPitch = a.width * o.resource.format.bytes();
    o.resource.slicePitch = o.resource.rowPitch * a.height;
  }
  for (emu::AddressMode &m : o.sampler.address) m = emu::AddressMode::Clamp;
  return device.textures.create(o);
}

} // namespace

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
    if (a.isBuffer || a.object != gpucase::Object::None) {
      b.inputs.push_back(gpucase::makeBuffer(a));
      const std::vector<uint8_t> &init = b.inputs.back();
      uint64_t address = device.global.allocate(std::max<size_t>(init.size(), 1));
      device.global.write(address, init.data(), init.size());
      b.addresses.emplace_back(address, init.size());
      // A texture or surface object over the data, as the recorder makes it
      // (tools/gpu-record): the kernel gets its handle.
      const uint64_t handle = a.object == gpucase::Object::None ? address : makeObject(device, a, address);
      bytes.resize(8);
      std::memcpy(bytes.data(), &handle, 8);
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
