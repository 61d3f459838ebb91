#include "emulator/Texture.h"

namespace emu {

bool TextureTable::valid(const TextureObject &o) {
  const TexelFormat &f = o.resource.format;
  const TextureResource &r = o.resource;
  return (f.channels == 1 || f.channels == 2 || f.channels == 4) &&
         (f.bits == 8 || f.bits == 16 || f.bits == 32) && (f.kind != ChannelKind::Float || f.bits >= 16) &&
         r.dimensions >= 1 && r.dimensions <= 3 && r.levels >= 1 && r.levels <= TextureResource::kMaxLevels &&
         r.width >= 1 && r.height >= 1 && r.depth >= 1 &&
         (!r.cubemap || (r.layers >= 6 && r.layers % 6 == 0 && r.width == r.height));
}

uint64_t TextureTable::create(const TextureObject &object) {
  if (!valid(object)) return 0;
  std::unique_lock lock(mutex_);
  const uint64_t handle = next_++;
  objects_.emplace(handle, object);
  return handle;
}

bool TextureTable::destroy(uint64_t handle) {
  std::unique_lock lock(mutex_);
  return objects_.erase(handle) != 0;
}

std::optional<TextureObject> TextureTable::find(uint64_t handle) const {
  std::shared_lock lock(mutex_);
  auto it = objects_.find(handle);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

} // namespace emu
