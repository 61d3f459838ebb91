// Compiled kernel code on disk: one object file per cache key (a hash of the
// kernel's LLVM IR and of the target it was compiled for) under
// $XDG_CACHE_HOME/ptxvm, so that a program run again skips code generation.
// Files are written whole (a temporary file renamed into place) and carry a
// checksum, so a torn or damaged file reads as a miss; the directory is kept
// under a size limit by removing the least recently used files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace translator {

class ObjectCache {
public:
  /// A cache in `directory` (created on first store) holding at most
  /// `maxBytes` of objects.
  explicit ObjectCache(std::string directory, uint64_t maxBytes = uint64_t{512} << 20);

  /// The object stored under `key`, if it is there and intact.
  std::optional<std::string> load(const std::string &key) const;
  /// Stores `object` under `key`; false when the directory is not writable
  /// (the cache is then simply not used).
  bool store(const std::string &key, std::string_view object);
  /// Removes the entry for `key` (an object the JIT could not link).
  void drop(const std::string &key);

  /// $PTXVM_CACHE_DIR, else $XDG_CACHE_HOME/ptxvm, else $HOME/.cache/ptxvm;
  /// empty when none of them is set.
  static std::string defaultDirectory();

private:
  std::string pathOf(const std::string &key) const;
  void trim();

  std::string directory_;
  uint64_t maxBytes_;
};

} // namespace translator
