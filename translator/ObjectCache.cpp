#include "translator/ObjectCache.h"

#include <llvm/Support/xxhash.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

namespace translator {

namespace fs = std::filesystem;

namespace {

/// What follows the object in its file: it tells a whole, undamaged file
/// written by this format from anything else.
struct Trailer {
  char magic[8];
  uint64_t size;
  uint64_t hash;
};
constexpr char kMagic[8] = {'p', 't', 'x', 'v', 'm', 'o', 'b', '1'};

uint64_t hashOf(std::string_view bytes) {
  return llvm::xxh3_64bits(llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

} // namespace

ObjectCache::ObjectCache(std::string directory, uint64_t maxBytes)
    : directory_(std::move(directory)), maxBytes_(maxBytes) {}

std::string ObjectCache::defaultDirectory() {
  if (const char *dir = std::getenv("PTXVM_CACHE_DIR"); dir && *dir) return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/ptxvm";
  if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ptxvm";
  return {};
}

std::string ObjectCache::pathOf(const std::string &key) const { return directory_ + "/" + key + ".o"; }

std::optional<std::string> ObjectCache::load(const std::string &key) const {
  if (directory_.empty()) return std::nullopt;
  std::ifstream in(pathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(Trailer)) return std::nullopt;
  Trailer t;
  std::memcpy(&t, bytes.data() + bytes.size() - sizeof(Trailer), sizeof(Trailer));
  bytes.resize(bytes.size() - sizeof(Trailer));
  if (std::memcmp(t.magic, kMagic, sizeof(kMagic)) != 0 || t.size != bytes.size() || t.hash != hashOf(bytes))
    return std::nullopt;
  // Recently used: trim() removes the oldest files first.
  std::error_code ec;
  fs::last_write_time(pathOf(key), fs::file_time_type::clock::now(), ec);
  return bytes;
}

bool ObjectCache::store(const std::string &key, std::string_view object) {
  if (directory_.empty()) return false;
  std::error_code ec;
  fs::create_directories(directory_, ec);
  // A name no other writer uses; rename() then replaces any entry whole.
  std::random_device random;
  const std::string temporary =
      pathOf(key) + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(random());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    Trailer t;
    std::memcpy(t.magic, kMagic, sizeof(kMagic));
    t.size = object.size();
    t.hash = hashOf(object);
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    out.write(reinterpret_cast<const char *>(&t), sizeof(t));
    if (!out.flush()) {
      out.close();
      fs::remove(temporary, ec);
      return false;
    }
  }
  fs::rename(temporary, pathOf(key), ec);
  if (ec) {
    fs::remove(temporary, ec);
    return false;
  }
  trim();
  return true;
}

void ObjectCache::drop(const std::string &key) {
  std::error_code ec;
  fs::remove(pathOf(key), ec);
}

/// Keeps the directory's objects within maxBytes_, oldest (least recently
/// used) first out, down to three quarters of the limit so that trimming
/// is rare.
void ObjectCache::trim() {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t size;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e1, e2;
    if (it->path().filename().string().find(".o.tmp.") != std::string::npos) {
      // Left by a writer that died: gone after an hour.
      if (fs::file_time_type::clock::now() - it->last_write_time(e1) > std::chrono::hours(1) && !e1)
        fs::remove(it->path(), e2);
      continue;
    }
    if (it->path().extension() != ".o") continue;
    const uint64_t size = it->file_size(e1);
    const fs::file_time_type time = it->last_write_time(e2);
    if (e1 || e2) continue;
    entries.push_back({it->path(), time, size});
    total += size;
  }
  if (total <= maxBytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &e : entries) {
    if (total <= maxBytes_ / 4 * 3) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

} // namespace translator
