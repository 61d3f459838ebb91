#include "emulator/Texture.h"

namespace emu {

uint64_t TextureTable::create(const TextureObject &object) {
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
