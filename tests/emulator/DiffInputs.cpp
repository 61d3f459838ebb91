#include "tests/emulator/DiffInputs.h"

#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

namespace ptxvm::test {

using ptx::Type;

namespace {

uint64_t f32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
uint64_t f64(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

std::vector<uint64_t> floatEdges32() {
  std::vector<uint64_t> v = {0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                             0x7FC00000, 0xFFC00001, 0x7F800001, 0x00800000, 0x80800000, 0x00000001,
                             0x80000001, 0x007FFFFF, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000,
                             0x3FC00000, 0x40200000, 0xC0200000, 0x3F800001, 0x3EAAAAAB, 0x34000000};
  for (double d : {3.0,
                   1e10,
                   2147483648.0,
                   -2147483648.0,
                   2147483520.0,
                   4294967296.0,
                   9.2233720368547758e18,
                   1.8446744073709552e19,
                   65504.0,
                   65520.0,
                   448.0,
                   464.0,
                   57344.0,
                   61440.0,
                   -0.75,
                   0.99999994,
                   1.5e-5,
                   6.1035156e-05,
                   2.5e-38,
                   255.5,
                   -128.5,
                   32767.5})
    v.push_back(f32(float(d)));
  return v;
}

std::vector<uint64_t> floatEdges64() {
  std::vector<uint64_t> v = {0x0ull,
                             0x8000000000000000ull,
                             0x3FF0000000000000ull,
                             0xBFF0000000000000ull,
                             0x7FF0000000000000ull,
                             0xFFF0000000000000ull,
                             0x7FF8000000000000ull,
                             0xFFF8000000000001ull,
                             0x0010000000000000ull,
                             0x8010000000000000ull,
                             0x1ull,
                             0x8000000000000001ull,
                             0x000FFFFFFFFFFFFFull,
                             0x7FEFFFFFFFFFFFFFull,
                             0xFFEFFFFFFFFFFFFFull,
                             0x3FE0000000000000ull,
                             0x3FF8000000000000ull,
                             0x4004000000000000ull,
                             0xC004000000000000ull,
                             0x3FF0000000000001ull,
                             0x3FD5555555555555ull};
  for (double d :
       {3.0, 1e300, 2147483648.0, -2147483649.0, 4294967296.0, 9.2233720368547758e18, -9.2233720368547758e18,
        1.8446744073709552e19, 3.4028235677973366e38, 3.4028236692093846e38, 1.1754942106924411e-38,
        1.401298464324817e-45, 0.7e-45, 65520.0, -0.5, 2.5e-308})
    v.push_back(f64(d));
  return v;
}

std::vector<uint64_t> halfEdges(bool bf16) {
  if (!bf16)
    return {0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7C01, 0x0400, 0x8400,
            0x0001, 0x8001, 0x03FF, 0x7BFF, 0xFBFF, 0x3800, 0x3E00, 0x4100, 0xC100, 0x3C01, 0x3555,
            0x5BFF, 0x5C00, 0x5F00, 0x7800, 0x2000, 0x1400, 0xB800, 0x4B00, 0x7FFF, 0x3BFF};
  return {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x0080, 0x8080,
          0x0001, 0x8001, 0x007F, 0x7F7F, 0xFF7F, 0x3F00, 0x3FC0, 0x4020, 0xC020, 0x3F81, 0x3EAB,
          0x4F00, 0x4F80, 0xCF00, 0x5F00, 0x5F80, 0x4380, 0x43E0, 0x7FFF, 0x3F7F, 0x0040};
}

std::vector<uint64_t> intEdges(unsigned bits) {
  std::vector<uint64_t> v = {0,  1,  2,  3,  7,  8,   15,  16,  17,  24, 31,
                             32, 33, 63, 64, 65, 100, 127, 128, 255, 256};
  for (uint64_t x :
       {0x7FFFull, 0x8000ull, 0xFFFFull, 0x10000ull, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull,
        0x100000000ull, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, ~0ull, ~0ull - 1, 0x80808080ull,
        0x7F7F7F7Full, 0x00FF00FFull, 0xFF00FF01ull, 0x12345678ull, 0x80007FFFull})
    v.push_back(x);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  for (uint64_t &x : v) x &= mask;
  return v;
}

uint64_t pairOf(const std::vector<uint64_t> &e, unsigned i, unsigned shift) {
  return e[i % e.size()] | e[(i * 7 + 3) % e.size()] << shift;
}

} // namespace

const std::vector<uint64_t> &edgeValues(Type t) {
  static std::mutex m;
  static std::map<Type, std::vector<uint64_t>> cache;
  std::lock_guard lock(m);
  auto it = cache.find(t);
  if (it != cache.end()) return it->second;
  std::vector<uint64_t> v;
  switch (t) {
  case Type::Pred: v = {0, 1}; break;
  case Type::F32:
  case Type::TF32: v = floatEdges32(); break;
  case Type::F64: v = floatEdges64(); break;
  case Type::F16: v = halfEdges(false); break;
  case Type::BF16: v = halfEdges(true); break;
  case Type::F16x2:
  case Type::BF16x2: {
    auto e = halfEdges(t == Type::BF16x2);
    for (unsigned i = 0; i < 32; ++i) v.push_back(pairOf(e, i, 16));
    break;
  }
  case Type::F32x2: {
    auto e = floatEdges32();
    for (unsigned i = 0; i < 32; ++i) v.push_back(pairOf(e, i, 32));
    break;
  }
  case Type::E4M3x2:
  case Type::E5M2x2:
  case Type::UE8M0x2:
    for (uint64_t x : {0x0000ull, 0x7F7Full, 0xFFFFull, 0x7E7Eull, 0x7C7Bull, 0x8080ull, 0x0180ull, 0x3C38ull,
                       0x7FFEull, 0xFE00ull, 0x0001ull, 0x7B7Cull})
      v.push_back(x);
    break;
  case Type::E2M3x2:
  case Type::E3M2x2:
    for (uint64_t x : {0x0000ull, 0x3F3Full, 0x2020ull, 0x1F1Full, 0x0120ull, 0x3E01ull, 0x0F30ull})
      v.push_back(x);
    break;
  case Type::E2M1x2:
    for (uint64_t x = 0; x < 256; x += 17) v.push_back(x);
    break;
  default: v = intEdges(ptx::bitWidth(t) ? ptx::bitWidth(t) : 64); break;
  }
  return cache.emplace(t, std::move(v)).first->second;
}

uint64_t randomValue(Type t, Rng &rng) {
  const std::vector<uint64_t> &e = edgeValues(t);
  uint64_t r = rng.next();
  switch (r % 4) {
  case 0: return e[rng.next() % e.size()];
  case 1: {
    unsigned bits = ptx::bitWidth(t);
    return bits >= 64 ? rng.next() : rng.next() & ((1ull << bits) - 1);
  }
  default: break;
  }
  switch (t) {
  case Type::F32:
  case Type::TF32: {
    double v = std::ldexp(double(int64_t(rng.next() % 2000001) - 1000000), int(rng.next() % 48) - 24);
    if (rng.next() & 1) v = std::nearbyint(v) + 0.5 * double(rng.next() & 1);
    return f32(float(v));
  }
  case Type::F64:
    return f64(std::ldexp(double(int64_t(rng.next() % 2000000001) - 1000000000), int(rng.next() % 80) - 40));
  case Type::F16: return halfEdges(false)[rng.next() % 32] ^ (rng.next() & 0x3);
  case Type::BF16: return halfEdges(true)[rng.next() % 32] ^ (rng.next() & 0x3);
  case Type::F16x2:
  case Type::BF16x2: {
    auto h = halfEdges(t == Type::BF16x2);
    return (h[rng.next() % 32] ^ (rng.next() & 3)) | (h[rng.next() % 32] ^ (rng.next() & 3)) << 16;
  }
  case Type::Pred: return rng.next() & 1;
  default: {
    // Small numbers, and words of interesting bytes (for byte/half-word ops).
    static const uint8_t bytes[] = {0x00, 0x01, 0x7F, 0x80, 0xFF, 0x40, 0xC0, 0x10};
    uint64_t w = 0;
    for (unsigned i = 0; i < 8; ++i) w |= uint64_t(bytes[rng.next() % 8]) << (8 * i);
    uint64_t v = (r >> 2) & 1 ? rng.next() % 70 : w;
    if ((r >> 3) & 1) v = ~v + 1; // negative
    unsigned bits = ptx::bitWidth(t);
    return bits >= 64 || bits == 0 ? v : v & ((1ull << bits) - 1);
  }
  }
}

} // namespace ptxvm::test
