#include "tools/ArgumentSpec.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace ptxvm {

namespace {

uint64_t splitmix(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A decimal or 0x number without sign; false on anything else or overflow.
bool parseUnsigned(const std::string &text, uint64_t &out) {
  if (text.empty() || text[0] == '-' || text[0] == '+' || std::isspace(static_cast<unsigned char>(text[0])))
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 0);
  return errno != ERANGE && end && !*end;
}

bool parseSigned(const std::string &text, int64_t &out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoll(text.c_str(), &end, 0);
  return errno != ERANGE && end && !*end;
}

/// A buffer size: a positive number of bytes with an optional K, M or G, up to kMaxBufferBytes.
bool parseBufferSize(std::string text, uint64_t &out) {
  unsigned shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
    case 'K':
    case 'k': shift = 10; break;
    case 'M':
    case 'm': shift = 20; break;
    case 'G':
    case 'g': shift = 30; break;
    default: break;
    }
    if (shift) text.pop_back();
  }
  uint64_t n = 0;
  if (!parseUnsigned(text, n) || n == 0 || n > (kMaxBufferBytes >> shift)) return false;
  out = n << shift;
  return true;
}

/// KIND:REST.
std::pair<std::string, std::string> splitSpec(const std::string &spec) {
  const size_t colon = spec.find(':');
  return {spec.substr(0, colon), colon == std::string::npos ? "" : spec.substr(colon + 1)};
}

void putBytes(std::vector<uint8_t> &bytes, const void *p, size_t n) {
  bytes.assign(static_cast<const uint8_t *>(p), static_cast<const uint8_t *>(p) + n);
}

} // namespace

bool writable(const std::string &path) {
  std::FILE *f = path.empty() ? nullptr : std::fopen(path.c_str(), "ab");
  if (!f) return false;
  std::fclose(f);
  return true;
}

ScalarSpec scalarArgument(const std::string &spec, std::vector<uint8_t> &bytes, std::string &error) {
  auto [kind, rest] = splitSpec(spec);
  auto put = [&](const void *p, size_t n) { putBytes(bytes, p, n); };
  // Every value must fit its type: a number that does not is a usage error,
  // not a silently truncated argument.
  if (kind == "u32" || kind == "u64") {
    uint64_t v = 0;
    if (!parseUnsigned(rest, v) || (kind == "u32" && v > UINT32_MAX)) {
      error = "'" + spec + "': not a " + kind + " value (0 to " + (kind == "u32" ? "2^32-1" : "2^64-1") + ")";
      return ScalarSpec::Malformed;
    }
    put(&v, kind == "u32" ? 4 : 8); // little-endian: the low bytes first
    return ScalarSpec::Scalar;
  }
  if (kind == "s32" || kind == "s64") {
    int64_t v = 0;
    if (!parseSigned(rest, v) || (kind == "s32" && (v < INT32_MIN || v > INT32_MAX))) {
      error = "'" + spec + "': not an " + kind + " value";
      return ScalarSpec::Malformed;
    }
    put(&v, kind == "s32" ? 4 : 8);
    return ScalarSpec::Scalar;
  }
  if (kind == "f32" || kind == "f64") {
    char *end = nullptr;
    errno = 0;
    double v = std::strtod(rest.c_str(), &end);
    float f = static_cast<float>(v);
    bool finiteInput = std::isfinite(v) || rest.find_first_of("iInN") != std::string::npos;
    if (rest.empty() || !end || *end || errno == ERANGE || !finiteInput ||
        (kind == "f32" && std::isfinite(v) && !std::isfinite(f))) {
      error = "'" + spec + "': not an " + kind + " value (or out of its range)";
      return ScalarSpec::Malformed;
    }
    if (kind == "f32")
      put(&f, 4);
    else
      put(&v, 8);
    return ScalarSpec::Scalar;
  }
  return ScalarSpec::NotScalar;
}

/// Builds one argument's bytes (and its buffer); false with `error`.
bool buildArgument(const std::string &spec, runtime::Device &dev, std::vector<uint8_t> &bytes,
                   std::vector<Buffer> &buffers, std::string &error) {
  switch (scalarArgument(spec, bytes, error)) {
  case ScalarSpec::Scalar: return true;
  case ScalarSpec::Malformed: return false;
  case ScalarSpec::NotScalar: break;
  }
  auto [kind, rest] = splitSpec(spec);
  auto put = [&](const void *p, size_t n) { putBytes(bytes, p, n); };
  if (kind != "buf") {
    error = "unknown argument kind '" + kind + "' in '" + spec + "' (see ptxvm run --help)";
    return false;
  }
  Buffer b;
  size_t gt = rest.find('>');
  if (gt != std::string::npos) {
    b.out = rest.substr(gt + 1);
    rest = rest.substr(0, gt);
    if (!writable(b.out)) {
      error = "cannot write '" + b.out + "' (in '" + spec + "')";
      return false;
    }
  }
  size_t c2 = rest.find(':');
  std::string sizeText = rest.substr(0, c2), init = c2 == std::string::npos ? "zeros" : rest.substr(c2 + 1);
  if (!parseBufferSize(sizeText, b.size)) {
    error = "bad buffer size in '" + spec + "' (1 byte to " + std::to_string(kMaxBufferBytes >> 30) +
            " GiB, with an optional K, M or G)";
    return false;
  }
  // The device's memory first (a device that cannot give it says so before
  // the host spends any), then the contents in chunks: the host never holds
  // a second copy of a large buffer.
  enum class Init { Zeros, IotaU32, IotaF32, FillU32, FillF32, Random, File } how = Init::Zeros;
  uint32_t fillU32 = 0;
  float fillF32 = 0;
  uint64_t seed = 0;
  std::ifstream file;
  if (init == "iota.u32") {
    how = Init::IotaU32;
  } else if (init == "iota.f32") {
    how = Init::IotaF32;
  } else if (init.starts_with("fill.u32=")) {
    how = Init::FillU32;
    fillU32 = static_cast<uint32_t>(std::strtoull(init.c_str() + 9, nullptr, 0));
  } else if (init.starts_with("fill.f32=")) {
    how = Init::FillF32;
    fillF32 = std::strtof(init.c_str() + 9, nullptr);
  } else if (init.starts_with("random=")) {
    how = Init::Random;
    seed = std::strtoull(init.c_str() + 7, nullptr, 0);
  } else if (init.starts_with("file=")) {
    how = Init::File;
    file.open(init.substr(5), std::ios::binary);
    if (!file) {
      error = "cannot read '" + init.substr(5) + "'";
      return false;
    }
  } else if (init != "zeros") {
    error = "unknown buffer contents '" + init + "'";
    return false;
  }
  b.address = dev.allocate(b.size);
  if (!b.address) {
    error = "cannot allocate " + std::to_string(b.size) + " bytes on the device for '" + spec + "'";
    return false;
  }
  constexpr uint64_t kChunk = uint64_t{1} << 20; // a multiple of 4: elements never straddle chunks
  std::vector<uint8_t> data(how == Init::Zeros ? 0 : std::min(b.size, kChunk));
  for (uint64_t at = 0; how != Init::Zeros && at < b.size; at += kChunk) {
    uint64_t n = std::min(kChunk, b.size - at);
    std::fill(data.begin(), data.end(), 0);
    for (uint64_t i = 0; i + 4 <= n; i += 4) {
      uint32_t element = static_cast<uint32_t>((at + i) / 4);
      float f = static_cast<float>((at + i) / 4);
      switch (how) {
      case Init::IotaU32: std::memcpy(&data[i], &element, 4); break;
      case Init::IotaF32: std::memcpy(&data[i], &f, 4); break;
      case Init::FillU32: std::memcpy(&data[i], &fillU32, 4); break;
      case Init::FillF32: std::memcpy(&data[i], &fillF32, 4); break;
      default: break;
      }
    }
    if (how == Init::Random)
      for (uint64_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>(splitmix(seed));
    if (how == Init::File) file.read(reinterpret_cast<char *>(data.data()), static_cast<std::streamsize>(n));
    if (!dev.write(b.address + at, data.data(), n)) {
      dev.free(b.address);
      error = "cannot write " + std::to_string(b.size) + " bytes on the device for '" + spec + "'";
      return false;
    }
  }
  put(&b.address, 8);
  buffers.push_back(b);
  return true;
}

} // namespace ptxvm
