// Texture instructions (tex, tld4, txq, suq; surfaces' loads and stores are
// Surface.cpp's) on the
// device's texture table (emulator/Texture.h): coordinates addressed as the
// sampler says, texels read from the resource's global memory (checked like
// loads: a destroyed or freed resource is reported), point or linear
// filtering, and the read mode's conversion. Rules from the CUDA
// programming guide's texture fetching appendix and the PTX ISA.
#include "emulator/Device.h"
#include "emulator/Semantics.h"
#include "emulator/semantics/Fp.h"
#include "emulator/semantics/TextureObjects.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

namespace emu {
namespace {

using namespace texture;
using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

// ---- Texels ----

/// A texel's channels: raw integer bits (sign- or zero-extended) and as
/// floats after the read mode's conversion. Channels the format lacks read
/// 0, the fourth too (as measured on an H200).
struct Texel {
  uint32_t raw[4] = {};
  float value[4] = {};
};

/// An 8-bit sRGB channel's linear value as the texture unit gives it: a
/// table of 256 bfloat16 values, measured on an H200 (tests/gpu/apps/
/// texture-fits/srgb_probe.h200.txt; every colour channel reads the same).
/// It is not the standard curve rounded to 8 significant bits: the linear
/// segment is n/3276.8 (n = 1..10) where the curve has n/3294.6, and 19
/// values above it are one unit in the 8th bit off the rounded curve.
constexpr uint16_t kSrgbToLinearBf16[256] = {
    0x0000, 0x39a0, 0x3a20, 0x3a70, 0x3aa0, 0x3ac8, 0x3af0, 0x3b0c, 0x3b20, 0x3b34, 0x3b48, 0x3b5c, 0x3b70,
    0x3b84, 0x3b90, 0x3b9c, 0x3baa, 0x3bb8, 0x3bc6, 0x3bd6, 0x3be6, 0x3bf6, 0x3c03, 0x3c0c, 0x3c16, 0x3c1f,
    0x3c29, 0x3c34, 0x3c3e, 0x3c49, 0x3c55, 0x3c60, 0x3c6c, 0x3c7a, 0x3c83, 0x3c8a, 0x3c91, 0x3c98, 0x3c9f,
    0x3ca6, 0x3cae, 0x3cb6, 0x3cbe, 0x3cc6, 0x3cce, 0x3cd7, 0x3ce0, 0x3ce9, 0x3cf2, 0x3cfc, 0x3d03, 0x3d08,
    0x3d0d, 0x3d12, 0x3d17, 0x3d1c, 0x3d22, 0x3d28, 0x3d2d, 0x3d33, 0x3d39, 0x3d3f, 0x3d45, 0x3d4c, 0x3d52,
    0x3d58, 0x3d60, 0x3d66, 0x3d6c, 0x3d74, 0x3d7a, 0x3d81, 0x3d85, 0x3d88, 0x3d8c, 0x3d90, 0x3d94, 0x3d98,
    0x3d9c, 0x3da0, 0x3da4, 0x3da9, 0x3dad, 0x3db1, 0x3db6, 0x3dba, 0x3dbf, 0x3dc3, 0x3dc8, 0x3dcd, 0x3dd1,
    0x3dd6, 0x3ddb, 0x3de0, 0x3de5, 0x3dea, 0x3df0, 0x3df4, 0x3dfa, 0x3e00, 0x3e02, 0x3e05, 0x3e08, 0x3e0b,
    0x3e0e, 0x3e11, 0x3e14, 0x3e17, 0x3e1a, 0x3e1d, 0x3e20, 0x3e23, 0x3e26, 0x3e29, 0x3e2c, 0x3e30, 0x3e33,
    0x3e36, 0x3e3a, 0x3e3d, 0x3e40, 0x3e44, 0x3e47, 0x3e4b, 0x3e4e, 0x3e52, 0x3e56, 0x3e59, 0x3e5d, 0x3e61,
    0x3e65, 0x3e68, 0x3e6c, 0x3e70, 0x3e74, 0x3e78, 0x3e7c, 0x3e80, 0x3e82, 0x3e84, 0x3e86, 0x3e88, 0x3e8a,
    0x3e8d, 0x3e8f, 0x3e91, 0x3e93, 0x3e95, 0x3e98, 0x3e9a, 0x3e9c, 0x3e9e, 0x3ea1, 0x3ea3, 0x3ea5, 0x3ea8,
    0x3eaa, 0x3ead, 0x3eaf, 0x3eb2, 0x3eb4, 0x3eb6, 0x3eb9, 0x3ebc, 0x3ebe, 0x3ec1, 0x3ec3, 0x3ec6, 0x3ec8,
    0x3ecb, 0x3ece, 0x3ed1, 0x3ed3, 0x3ed6, 0x3ed9, 0x3edb, 0x3ede, 0x3ee1, 0x3ee4, 0x3ee7, 0x3eea, 0x3eed,
    0x3ef0, 0x3ef2, 0x3ef6, 0x3ef8, 0x3efc, 0x3efe, 0x3f01, 0x3f02, 0x3f04, 0x3f05, 0x3f07, 0x3f09, 0x3f0a,
    0x3f0c, 0x3f0d, 0x3f0f, 0x3f11, 0x3f12, 0x3f14, 0x3f16, 0x3f17, 0x3f19, 0x3f1b, 0x3f1c, 0x3f1e, 0x3f20,
    0x3f21, 0x3f23, 0x3f25, 0x3f27, 0x3f29, 0x3f2a, 0x3f2c, 0x3f2e, 0x3f30, 0x3f32, 0x3f33, 0x3f35, 0x3f37,
    0x3f39, 0x3f3b, 0x3f3d, 0x3f3f, 0x3f41, 0x3f43, 0x3f45, 0x3f47, 0x3f49, 0x3f4b, 0x3f4d, 0x3f4f, 0x3f51,
    0x3f53, 0x3f55, 0x3f57, 0x3f59, 0x3f5b, 0x3f5d, 0x3f5f, 0x3f61, 0x3f63, 0x3f65, 0x3f68, 0x3f6a, 0x3f6c,
    0x3f6e, 0x3f70, 0x3f72, 0x3f74, 0x3f76, 0x3f7a, 0x3f7c, 0x3f7e, 0x3f80,
};

float srgbToLinear(uint32_t byte) {
  return std::bit_cast<float>(uint32_t{kSrgbToLinearBf16[byte & 0xFF]} << 16);
}

/// The channels of a texel stored as `bytes`, as the read mode gives them.
Texel decodeTexel(const TextureObject &o, const uint8_t *bytes) {
  const TexelFormat &f = o.resource.format;
  Texel t;
  for (unsigned c = 0; c < f.channels; ++c) {
    uint32_t bits = 0;
    std::memcpy(&bits, bytes + c * f.bits / 8, f.bits / 8);
    float v = 0;
    if (f.kind == ChannelKind::Float) {
      v = f.bits == 16 ? static_cast<float>(fp::toDouble(bits, fp::kF16)) : std::bit_cast<float>(bits);
      t.raw[c] = f.bits == 16 ? std::bit_cast<uint32_t>(v) : bits;
    } else if (f.kind == ChannelKind::Signed) {
      const int32_t s = f.bits == 32 ? static_cast<int32_t>(bits)
                                     : static_cast<int32_t>(bits << (32 - f.bits)) >> (32 - f.bits);
      t.raw[c] = static_cast<uint32_t>(s);
      if (o.sampler.normalizedFloat && f.bits < 32)
        v = std::max(static_cast<float>(s) / static_cast<float>((1u << (f.bits - 1)) - 1), -1.0f);
      else
        v = static_cast<float>(s);
    } else {
      t.raw[c] = bits;
      if (o.sampler.normalizedFloat && f.bits < 32) {
        v = static_cast<float>(bits) / static_cast<float>((1u << f.bits) - 1);
        if (o.sampler.srgb && f.bits == 8 && c < 3) v = srgbToLinear(bits);
      } else {
        v = static_cast<float>(bits);
      }
    }
    t.value[c] = v;
  }
  return t;
}

/// Reads and decodes the texel at byte offset `offset` of the resource.
bool readTexel(Exec &x, const TextureObject &o, uint64_t offset, unsigned lane, Texel &t) {
  uint8_t bytes[16] = {};
  if (!loadBytes(x, Space::Global, o.resource.address + offset, o.resource.format.bytes(), lane, bytes, 1))
    return false;
  t = decodeTexel(o, bytes);
  return true;
}

/// The border colour as a texel of the resource's format, read back as any
/// texel is (as measured on an H200): 32-bit channels hold the colour's
/// bits, halves its value, integer channels its value truncated - scaled to
/// the channel's range first when they read as normalized floats; channels
/// the format lacks read 0.
Texel borderTexel(const TextureObject &o) {
  const TexelFormat &f = o.resource.format;
  uint8_t bytes[16] = {};
  for (unsigned c = 0; c < f.channels; ++c) {
    const float v = o.sampler.border[c];
    uint32_t bits = 0;
    if (f.bits == 32) {
      bits = std::bit_cast<uint32_t>(v);
    } else if (f.kind == ChannelKind::Float) {
      bits = static_cast<uint32_t>(fp::fromDouble(v, fp::kF16, fp::Round::Nearest));
    } else {
      const bool sign = f.kind == ChannelKind::Signed;
      const double top = sign ? double((1u << (f.bits - 1)) - 1) : double((1u << f.bits) - 1);
      const double bottom = sign ? -double(1u << (f.bits - 1)) : 0.0;
      double scaled = std::isnan(v) ? 0.0 : double(v);
      if (o.sampler.normalizedFloat) scaled = std::clamp(scaled, sign ? -1.0 : 0.0, 1.0) * top;
      bits = static_cast<uint32_t>(static_cast<int64_t>(std::trunc(std::clamp(scaled, bottom, top))));
    }
    const unsigned width = std::min(f.bits / 8u, 4u);
    std::memcpy(bytes + (c % 4) * width, &bits, width);
  }
  return decodeTexel(o, bytes);
}

/// A texel index along one dimension of `n` texels under `mode`; false when
/// it falls outside under border addressing.
bool addressIndex(int64_t i, uint64_t n, AddressMode mode, int64_t &out) {
  const int64_t size = static_cast<int64_t>(n);
  switch (mode) {
  case AddressMode::Wrap: out = ((i % size) + size) % size; return true;
  case AddressMode::Mirror: {
    int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size);
    out = m < size ? m : 2 * size - 1 - m;
    return true;
  }
  case AddressMode::Border: out = i; return i >= 0 && i < size;
  case AddressMode::Clamp: out = std::clamp<int64_t>(i, 0, size - 1); return true;
  }
  return false;
}

/// What one lane's coordinates select: up to 3 coordinates and a layer.
struct Coordinates {
  float f[3] = {};
  int32_t i[3] = {};
  bool integer = false; // .s32 coordinates: texel indices
  int64_t layer = 0;
  int32_t offset[3] = {}; // texel offsets (tex and tld4's operand e), added before addressing
};

/// The texels and weights of a fetch along each dimension: point sampling
/// gives one texel (weight 1), linear two.
struct Footprint {
  int64_t index[3][2] = {};
  bool inside[3][2] = {};
  float weight[3] = {}; // of the second texel
  unsigned taps[3] = {1, 1, 1};
};

Footprint footprint(const TextureObject &o, const Coordinates &c, unsigned dims, bool gather) {
  const TextureResource &r = o.resource;
  const uint64_t extent[3] = {r.width, r.height, r.depth};
  Footprint fp;
  for (unsigned d = 0; d < dims; ++d) {
    const uint64_t n = std::max<uint64_t>(extent[d], 1);
    AddressMode mode = o.sampler.address[d];
    // Offsets move the texel indices before the address mode applies (as
    // measured on an H200: clamp, wrap and border alike).
    int64_t offset = c.offset[d];
    if (c.integer) {
      if (mode == AddressMode::Wrap || mode == AddressMode::Mirror) mode = AddressMode::Clamp;
      fp.inside[d][0] = addressIndex(int64_t{c.i[d]} + offset, n, mode, fp.index[d][0]);
      continue;
    }
    float u = c.f[d];
    if (o.sampler.normalizedCoords) {
      // Wrap and mirror act on normalized coordinates only; unnormalized,
      // they read as clamp (the programming guide's rule).
      if (mode == AddressMode::Wrap) {
        u = u - std::floor(u);
      } else if (mode == AddressMode::Mirror) {
        const float whole = std::floor(u);
        u = u - whole;
        // Mirrored, an offset moves the other way (mirroring is symmetric).
        if (static_cast<int64_t>(whole) & 1) u = 1.0f - u, offset = -offset;
      }
      u *= static_cast<float>(n);
    } else if (mode == AddressMode::Wrap || mode == AddressMode::Mirror) {
      mode = AddressMode::Clamp;
    }
    if (!(o.sampler.linear || gather)) {
      const float lower = std::floor(u);
      const int64_t i = std::isfinite(lower) ? static_cast<int64_t>(std::clamp(lower, -1e9f, 1e9f)) : 0;
      fp.inside[d][0] = addressIndex(i + offset, n, mode, fp.index[d][0]);
      continue;
    }
    // Linear: the two texels around u - 0.5, the second's weight in 9-bit
    // fixed point with 8 fraction bits.
    const float b = u - 0.5f;
    const float lower = std::floor(b);
    const int64_t i =
        (std::isfinite(lower) ? static_cast<int64_t>(std::clamp(lower, -1e9f, 1e9f)) : 0) + offset;
    fp.weight[d] = std::round((b - lower) * 256.0f) / 256.0f;
    fp.taps[d] = 2;
    fp.inside[d][0] = addressIndex(i, n, mode, fp.index[d][0]);
    fp.inside[d][1] = addressIndex(i + 1, n, mode, fp.index[d][1]);
    // Two taps on one texel (clamped at an edge) are one tap of weight 1:
    // the rounding of the tap weights below then differs (measured on an
    // H200, 3-D fetches clamped in x).
    if (fp.index[d][0] == fp.index[d][1] && fp.inside[d][0] == fp.inside[d][1]) fp.weight[d] = 0;
  }
  return fp;
}

/// Byte offset of texel (i, j, k) of layer `layer`.
uint64_t texelOffset(const TextureResource &r, int64_t i, int64_t j, int64_t k, int64_t layer) {
  uint64_t off = static_cast<uint64_t>(i) * r.format.bytes();
  if (r.dimensions >= 2) off += static_cast<uint64_t>(j) * r.rowPitch;
  if (r.dimensions == 3) off += static_cast<uint64_t>(k) * r.slicePitch;
  if (r.layers) off += static_cast<uint64_t>(layer) * (r.dimensions == 1 ? r.rowPitch : r.slicePitch);
  return off;
}

/// The texel at taps (a, b, c) of the footprint: the border colour, or the
/// texel (false after a reported fault).
bool tap(Exec &x, const TextureObject &o, const Footprint &fp, const Coordinates &c, unsigned dims,
         unsigned a, unsigned b, unsigned k, unsigned lane, Texel &t) {
  const bool inside = fp.inside[0][a] && (dims < 2 || fp.inside[1][b]) && (dims < 3 || fp.inside[2][k]);
  if (!inside) {
    t = borderTexel(o);
    return true;
  }
  t = Texel();
  return readTexel(x, o,
                   texelOffset(o.resource, fp.index[0][a], dims >= 2 ? fp.index[1][b] : 0,
                               dims >= 3 ? fp.index[2][k] : 0, c.layer),
                   lane, t);
}

/// The weighted sum of `n` texel values (weights in 1/256) as the texture
/// unit forms it (measured on an H200): the values aligned to the largest
/// exponent among them and truncated to 28 bits there, the sum exact, then
/// rounded once, ties away from zero, to `significant` bits and no finer
/// than 2^lowest: a float's 24 bits, or for the colour channels of sRGB
/// textures a half's grid (11 bits, 2^-24; srgb_probe.h200.txt: 1,799 of
/// 1,799 filtered fetches). Non-finite values take the plain float sum.
float filterSum(const uint32_t *weights, const float *values, unsigned n, int significant = 24,
                int lowest = INT_MIN) {
  int top = INT_MIN;
  bool finite = true;
  for (unsigned t = 0; t < n; ++t) {
    finite &= std::isfinite(values[t]);
    if (values[t] != 0.0f) {
      int e = 0;
      std::frexp(values[t], &e);
      top = std::max(top, e); // values[t] < 2^e
    }
  }
  if (!finite) {
    float sum = 0;
    for (unsigned t = 0; t < n; ++t) sum += static_cast<float>(weights[t]) / 256.0f * values[t];
    return sum;
  }
  // A zero sum is -0 when every tap is -0 (measured on an H200: a 1-D
  // fetch between two -0 texels), +0 otherwise, as IEEE sums give it.
  auto zero = [&] {
    bool negativeZeros = true;
    for (unsigned t = 0; t < n; ++t) negativeZeros &= values[t] == 0.0f && std::signbit(values[t]);
    return negativeZeros ? -0.0f : 0.0f;
  };
  if (top == INT_MIN) return zero();
  constexpr int kBits = 28;
  int64_t sum = 0;
  for (unsigned t = 0; t < n; ++t)
    sum += int64_t{weights[t]} * static_cast<int64_t>(std::trunc(std::ldexp(double(values[t]), kBits - top)));
  if (sum == 0) return zero();
  uint64_t magnitude = sum < 0 ? uint64_t(-sum) : uint64_t(sum);
  int exponent = top - kBits - 8; // the value is sum * 2^exponent
  const int bits = 64 - std::countl_zero(magnitude);
  int shift = bits - significant;
  if (lowest != INT_MIN) shift = std::max(shift, lowest - exponent);
  if (shift >= 64) return zero(); // below half of the finest step
  if (shift > 0) {
    magnitude = (magnitude + (uint64_t{1} << (shift - 1))) >> shift; // ties away from zero
    exponent += shift;
  }
  const float v = std::ldexp(static_cast<float>(magnitude), exponent);
  return sum < 0 ? -v : v;
}

/// tex: the filtered texel at `c`.
bool sample(Exec &x, const TextureObject &o, const Coordinates &c, unsigned dims, unsigned lane, Texel &out) {
  const TextureResource &r = o.resource;
  if (r.kind == TextureResource::Linear) {
    // tex1Dfetch: an index outside the buffer reads zeros.
    out = Texel();
    const int64_t i = c.integer ? c.i[0] : static_cast<int64_t>(std::floor(c.f[0]));
    if (i < 0 || static_cast<uint64_t>(i) >= r.width) return true;
    out = Texel();
    return readTexel(x, o, static_cast<uint64_t>(i) * r.format.bytes(), lane, out);
  }
  const Footprint fp = footprint(o, c, dims, false);
  if (fp.taps[0] == 1 && fp.taps[1] == 1 && fp.taps[2] == 1)
    return tap(x, o, fp, c, dims, 0, 0, 0, lane, out);
  // Each tap's weight (measured on an H200: every linear 1-D, 2-D and 3-D
  // fetch of tests/gpu/apps' probes): its x weight times its z weight, then
  // that times its y weight, each product rounded to 8 fraction bits, ties
  // to odd. A tap of weight 0 takes no part (an infinity there does not make
  // the result NaN).
  unsigned axis[3][2] = {{256, 0}, {256, 0}, {256, 0}};
  for (unsigned d = 0; d < dims; ++d) {
    const unsigned second = static_cast<unsigned>(fp.weight[d] * 256.0f);
    axis[d][0] = fp.taps[d] == 2 ? 256 - second : 256, axis[d][1] = second;
  }
  auto times = [](uint32_t a, uint32_t b) { // a * b in 1/256, rounded ties to odd
    const uint32_t product = a * b, whole = product >> 8, rest = product & 0xFF;
    return whole + (rest > 0x80 || (rest == 0x80 && !(whole & 1)));
  };
  uint32_t weights[8];
  Texel texels[8];
  unsigned n = 0;
  for (unsigned k = 0; k < fp.taps[2]; ++k)
    for (unsigned b = 0; b < fp.taps[1]; ++b)
      for (unsigned a = 0; a < fp.taps[0]; ++a) {
        const uint32_t w = times(times(axis[0][a], axis[2][k]), axis[1][b]);
        if (w == 0) continue;
        if (!tap(x, o, fp, c, dims, a, b, k, lane, texels[n])) return false;
        weights[n++] = w;
      }
  const bool half = r.format.kind == ChannelKind::Float && r.format.bits == 16;
  const bool unorm8 =
      r.format.kind == ChannelKind::Unsigned && r.format.bits == 8 && o.sampler.normalizedFloat;
  out = Texel();
  for (unsigned ch = 0; ch < 4; ++ch) {
    float values[8];
    for (unsigned t = 0; t < n; ++t) values[t] = texels[t].value[ch];
    float v = 0;
    const bool srgbColour = o.sampler.srgb && unorm8 && ch < 3;
    if (srgbColour) {
      // sRGB colours filter as their linear values, the sum on a half's grid.
      v = filterSum(weights, values, n, 11, -24);
    } else if (unorm8 && ch < r.format.channels) {
      // 8-bit unsigned normalized texels filter as 16-bit ones (v * 257),
      // the sum rounded (half up) to 16 bits, then scaled to [0, 1]; so does
      // an sRGB texture's alpha.
      uint64_t sum = 0;
      for (unsigned t = 0; t < n; ++t) sum += uint64_t{weights[t]} * (texels[t].raw[ch] & 0xFF) * 257;
      v = static_cast<float>((sum + 128) >> 8) / 65535.0f;
    } else {
      v = filterSum(weights, values, n);
    }
    if (half && ch < r.format.channels)
      v = static_cast<float>(fp::toDouble(fp::fromDouble(v, fp::kF16, fp::Round::Nearest), fp::kF16));
    out.value[ch] = v;
    out.raw[ch] = std::bit_cast<uint32_t>(v);
  }
  return true;
}

/// A layer index as the hardware takes it (measured on an H200): unsigned,
/// clamped to the last layer, so a negative index reads the last layer.
int64_t layerIndex(int64_t layer, uint64_t layers) {
  return static_cast<int64_t>(
      std::min<uint64_t>(static_cast<uint32_t>(layer), std::max<uint64_t>(layers, 1) - 1));
}

/// Reads lane `lane`'s coordinates from the address list's vector: the
/// layer first for a1d/a2d, then 1-3 coordinates.
Coordinates coordinates(Exec &x, const DInstr &in, const DOp &vec, unsigned dims, bool layered,
                        unsigned lane) {
  const Kernel &k = x.kernel();
  Coordinates c;
  c.integer = in.type == Type::S32;
  unsigned e = 0;
  auto element = [&](unsigned i) -> const DOp & {
    return vec.kind == DOp::Vec ? k.ops[vec.reg + std::min<unsigned>(i, vec.count - 1)] : vec;
  };
  if (layered) c.layer = static_cast<int32_t>(readOperand(x, element(e++), lane));
  for (unsigned d = 0; d < dims; ++d) {
    const uint64_t bits = readOperand(x, element(e++), lane);
    c.i[d] = static_cast<int32_t>(bits);
    c.f[d] = std::bit_cast<float>(static_cast<uint32_t>(bits));
  }
  return c;
}

/// Writes the four channels to the destination vector as its type says.
void writeResult(Exec &x, const DInstr &in, const DOp &dst, unsigned lane, const uint32_t (&bits)[4]) {
  const Kernel &k = x.kernel();
  const unsigned n = dst.kind == DOp::Vec ? dst.count : 1;
  for (unsigned e = 0; e < n && e < 4; ++e) {
    const DOp &d = dst.kind == DOp::Vec ? k.ops[dst.reg + e] : dst;
    writeOperand(x, d, lane, bits[e]);
  }
  (void)in;
}

/// The texel's channels in the destination type: f32 values, f16 values,
/// or raw integers.
void resultBits(const DInstr &in, const Texel &t, uint32_t (&bits)[4]) {
  for (unsigned c = 0; c < 4; ++c) {
    if (in.type0 == Type::F32)
      bits[c] = std::bit_cast<uint32_t>(t.value[c]);
    else if (in.type0 == Type::F16)
      bits[c] = static_cast<uint32_t>(fp::fromDouble(t.value[c], fp::kF16, fp::Round::Nearest));
    else
      bits[c] = t.raw[c];
  }
}

/// The destination, the optional residency predicate and the address list.
struct TexOperands {
  const DOp *dst = nullptr, *resident = nullptr, *handle = nullptr, *coords = nullptr;
  unsigned next = 0; // the first operand after the address list
};
bool texOperands(Exec &x, const DInstr &in, TexOperands &t) {
  const Kernel &k = x.kernel();
  t.dst = &k.op(in, 0);
  unsigned a = 1;
  if (in.numOps > 2 && k.op(in, 1).kind == DOp::Reg) t.resident = &k.op(in, a++);
  if (a >= in.numOps) return false;
  const DOp &list = k.op(in, a);
  if (list.kind != DOp::Vec || list.count < 2) return false;
  t.handle = &k.ops[list.reg];
  t.coords = &k.ops[list.reg + 1];
  t.next = a + 1;
  return true;
}

/// The operands after tex's and tld4's coordinates (and level or
/// gradients): an optional vector of texel offsets (e), then an optional
/// depth-compare value (f). A texture made through CUDA has no compare
/// function, and the H200 ignores f on it (kernels/apps/texture_ptx_probe),
/// as this does. False on anything else.
bool extraOperands(const Kernel &k, const DInstr &in, unsigned first, const DOp *&offsets) {
  offsets = nullptr;
  unsigned i = first;
  if (i < in.numOps && k.op(in, i).kind == DOp::Vec) offsets = &k.op(in, i++);
  if (i < in.numOps && k.op(in, i).kind != DOp::Vec) ++i;
  return i == in.numOps;
}
void readOffsets(Exec &x, const DOp *offsets, unsigned dims, unsigned lane, Coordinates &c) {
  if (!offsets) return;
  const Kernel &k = x.kernel();
  for (unsigned d = 0; d < dims && d < offsets->count; ++d)
    c.offset[d] = static_cast<int32_t>(readOperand(x, k.ops[offsets->reg + d], lane));
}

/// A cubemap fetch's direction (x, y, z) as a face and texel coordinates on
/// it (the programming guide's table): the major axis picks the face
/// (+x, -x, +y, -y, +z, -z: 0-5; ties go to z, then y), the other two
/// components divided by it give the position on the face.
void cubeFace(Coordinates &c, uint64_t size) {
  const float x = c.f[0], y = c.f[1], z = c.f[2];
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  unsigned face;
  float m, s, t;
  if (az >= ax && az >= ay) {
    face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
  } else if (ay >= ax) {
    face = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
  } else {
    face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
  }
  const float n = static_cast<float>(size);
  c.f[0] = m > 0 ? (s / m + 1.0f) * 0.5f * n : 0.5f * n;
  c.f[1] = m > 0 ? (t / m + 1.0f) * 0.5f * n : 0.5f * n;
  c.f[2] = 0;
  c.layer = c.layer * 6 + face;
}

/// A cubemap fetch's face as a 2-D fetch: `c` moved onto the face the
/// direction picks (cubeFace), and the object's sampler for it, unnormalized
/// and clamped to the face's edges (seamless filtering across faces is not
/// served; cubemap gathers at edges and corners match the H200 so).
TextureObject onCubeFace(const TextureObject &o, bool layered, Coordinates &c) {
  c.layer = layered ? layerIndex(c.layer, o.resource.layers / 6) : 0;
  cubeFace(c, o.resource.width);
  TextureObject face = o;
  face.sampler.normalizedCoords = false;
  for (AddressMode &m : face.sampler.address) m = AddressMode::Clamp;
  return face;
}

/// Level `l` of a mipmapped texture as a texture of its own.
TextureObject atLevel(const TextureObject &o, unsigned l) {
  TextureObject at = o;
  const TextureResource::Level &v = o.resource.level[l];
  at.resource.address = v.address;
  at.resource.width = v.width, at.resource.height = v.height, at.resource.depth = v.depth;
  at.resource.rowPitch = v.rowPitch, at.resource.slicePitch = v.slicePitch;
  at.resource.levels = 1;
  return at;
}

/// The texture unit's log2 of a footprint extent, in 1/256ths: the
/// exponent plus a table of the top 8 bits of the significand (measured on
/// an H200, tests/gpu/apps/texture-fits/log2_probe.h200.txt: every 32nd of
/// 8,192 significands from 1 to 2 reads the same; the table is close to
/// 256 log2 of each bucket's middle, rounded, off by one in 14 of 256).
constexpr uint8_t kLog2Significand[256] = {
    0,   2,   4,   5,   6,   8,   9,   11,  12,  13,  15,  16,  18,  19,  20,  22,  23,  24,  26,  27,
    28,  30,  31,  32,  34,  35,  36,  38,  39,  40,  42,  43,  44,  45,  47,  48,  49,  50,  52,  53,
    54,  55,  57,  58,  59,  60,  62,  63,  64,  65,  66,  68,  69,  70,  71,  72,  74,  75,  76,  77,
    78,  79,  81,  82,  83,  84,  85,  86,  88,  89,  90,  91,  92,  93,  94,  95,  97,  98,  99,  100,
    101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121,
    122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 135, 136, 137, 137, 138, 139, 140, 141,
    142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161,
    162, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 173, 174, 175, 176, 177, 178, 179,
    180, 181, 181, 182, 183, 184, 185, 186, 187, 188, 188, 189, 190, 191, 192, 193, 194, 195, 195, 196,
    197, 198, 199, 200, 200, 201, 202, 203, 204, 205, 205, 206, 207, 208, 209, 210, 210, 211, 212, 213,
    214, 214, 215, 216, 217, 218, 218, 219, 220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229,
    229, 230, 231, 232, 233, 233, 234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244,
    245, 245, 246, 247, 248, 248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255,
};

float unitLog2(float extent) {
  if (!(extent > 0.0f) || !std::isfinite(extent)) return std::log2(extent); // -inf, inf, NaN
  int exponent = 0;
  const float significand = std::frexp(extent, &exponent) * 2.0f; // [1, 2)
  const unsigned top = static_cast<unsigned>((significand - 1.0f) * 256.0f);
  return static_cast<float>(256 * (exponent - 1) + kLog2Significand[top]) / 256.0f;
}

/// The level of detail of lane `lane`'s fetch: tex.level's operand, or
/// tex.grad's from its gradients (log2 of the footprint's extent in
/// texels); 0 for a plain tex (compute code has no implicit derivatives).
float levelOfDetail(Exec &x, const DInstr &in, const TexOperands &ops, const TextureObject &o, unsigned dims,
                    unsigned lane) {
  const Kernel &k = x.kernel();
  auto value = [&](const DOp &op, unsigned e) {
    const DOp &el = op.kind == DOp::Vec ? k.ops[op.reg + std::min<unsigned>(e, op.count - 1)] : op;
    return std::bit_cast<float>(static_cast<uint32_t>(readOperand(x, el, lane)));
  };
  if (in.op == Mod::MemLevel) return value(k.op(in, ops.next), 0);
  if (in.op != Mod::MemGrad) return 0;
  const uint64_t size[3] = {o.resource.width, o.resource.height, o.resource.depth};
  float grad[2][3] = {};
  for (unsigned g = 0; g < 2; ++g)
    for (unsigned d = 0; d < dims; ++d) {
      float v = value(k.op(in, ops.next + g), d);
      if (o.sampler.normalizedCoords) v *= static_cast<float>(size[d]);
      grad[g][d] = v;
    }
  float longest = 0;
  if (dims <= 2) {
    // The footprint's extent as the texture unit estimates it (measured on
    // an H200, tests/gpu/apps/texture-fits/lod_probe: all 594 fetches, with
    // one gradient, two, or two components): the longest of the two
    // gradients and of their sum and difference times 11/16 (about
    // 1/sqrt(2): the footprint's diagonals), each vector's length taken as
    // its longer component plus 11/32 of the shorter one.
    auto length = [](float x, float y) {
      x = std::fabs(x), y = std::fabs(y);
      return std::max(x, y) + 0.34375f * std::min(x, y);
    };
    longest = std::max({length(grad[0][0], grad[0][1]), length(grad[1][0], grad[1][1]),
                        0.6875f * length(grad[0][0] + grad[1][0], grad[0][1] + grad[1][1]),
                        0.6875f * length(grad[0][0] - grad[1][0], grad[0][1] - grad[1][1])});
  } else {
    // 3-D: the longer gradient (not measured).
    for (unsigned g = 0; g < 2; ++g)
      longest = std::max(
          longest, std::sqrt(grad[g][0] * grad[g][0] + grad[g][1] * grad[g][1] + grad[g][2] * grad[g][2]));
  }
  return unitLog2(longest);
}

/// A fetch from a mipmapped texture: the level(s) its level of detail
/// picks, sampled at coordinates that scale with the level when they are
/// in texels.
bool sampleLevels(Exec &x, const TextureObject &o, Coordinates c, unsigned dims, float lod, unsigned lane,
                  Texel &out) {
  const Sampler &s = o.sampler;
  const float top = static_cast<float>(o.resource.levels - 1);
  float level = lod + s.levelBias;
  level = std::clamp(std::isnan(level) ? 0.0f : level, s.minLevel, std::max(s.minLevel, s.maxLevel));
  level = std::clamp(level, 0.0f, top);
  auto at = [&](unsigned l, Texel &t) {
    Coordinates scaled = c;
    if (!s.normalizedCoords && !c.integer) {
      const uint64_t size[3] = {o.resource.level[l].width, o.resource.level[l].height,
                                o.resource.level[l].depth};
      const uint64_t base[3] = {o.resource.width, o.resource.height, o.resource.depth};
      for (unsigned d = 0; d < dims; ++d)
        scaled.f[d] = c.f[d] * static_cast<float>(size[d]) / static_cast<float>(base[d]);
    }
    return sample(x, atLevel(o, l), scaled, dims, lane, t);
  };
  if (!s.mipmapLinear) return at(static_cast<unsigned>(std::floor(level + 0.5f)), out);
  const unsigned lower = static_cast<unsigned>(std::floor(level));
  // Between levels the weight keeps 8 fraction bits, truncated (as measured
  // on an H200; within a level they are rounded).
  const float weight = std::floor((level - static_cast<float>(lower)) * 256.0f) / 256.0f;
  if (weight == 0.0f || lower + 1 >= o.resource.levels) return at(lower, out);
  Texel a, b;
  if (!at(lower, a) || !at(lower + 1, b)) return false;
  out = Texel();
  for (unsigned ch = 0; ch < 4; ++ch) {
    out.value[ch] = (1.0f - weight) * a.value[ch] + weight * b.value[ch];
    out.raw[ch] = std::bit_cast<uint32_t>(out.value[ch]);
  }
  return true;
}

void tex(Exec &x, const DInstr &in) {
  TexOperands ops;
  unsigned dims = 0;
  bool layered = false;
  if (!texOperands(x, in, ops)) return unsupported(x, in, "unexpected operands");
  const bool cube = in.shape == Mod::MemCube || in.shape == Mod::MemAcube;
  if (cube)
    dims = 3, layered = in.shape == Mod::MemAcube;
  else if (!geometry(in.shape, dims, layered))
    return unsupported(x, in, "multisample textures");
  // .level and .grad choose a mipmap level (a texture without mipmaps has
  // only level 0); texel offsets and a depth-compare value may follow.
  const unsigned extra = in.op == Mod::MemLevel ? 1 : in.op == Mod::MemGrad ? 2 : 0;
  const DOp *offsets = nullptr;
  if (!extraOperands(x.kernel(), in, ops.next + extra, offsets))
    return unsupported(x, in, "unexpected operands");
  if (in.type0 == Type::F16x2 || in.vec == 2) return unsupported(x, in, "f16x2 results");
  Objects objects(x, *ops.handle, false);
  forLanes(x.mask, [&](unsigned lane) {
    if (x.cta.failed) return;
    const TextureObject *o = objects.of(lane);
    if (!o) return;
    Coordinates c = coordinates(x, in, *ops.coords, dims, layered, lane);
    if (!cube) readOffsets(x, offsets, dims, lane, c);
    unsigned sampled = dims;
    if (dims == 1 && !layered && o->resource.kind != TextureResource::Linear &&
        o->sampler.address[0] == AddressMode::Border) {
      // In border mode the texture unit fetches a 1-D array as a 2-D one of
      // one row at y = 0 (texel space): linear filtering blends the row
      // above, the border colour, in half, and a negative offset moves y by
      // -1 too (its sign bits reach the second offset), so such a fetch
      // reads the border. Measured on an H200 (kernels/apps/
      // texture_ptx_probe); in the other modes the row is clamped and 1-D
      // filtering's weights are the H200's, where a 2-D fetch's rounded
      // ones are not.
      sampled = 2;
      c.f[1] = 0.0f, c.i[1] = 0, c.offset[1] = c.offset[0] < 0 ? -1 : 0;
    }
    Texel t;
    if (cube) {
      if (!o->resource.cubemap)
        return objects.fail(lane, "a cubemap fetch from a texture that is not a cubemap");
      const TextureObject face = onCubeFace(*o, layered, c);
      if (!sample(x, face, c, 2, lane, t)) return;
    } else {
      if (layered) c.layer = layerIndex(c.layer, o->resource.layers);
      const bool ok =
          o->resource.levels > 1
              ? sampleLevels(x, *o, c, sampled, levelOfDetail(x, in, ops, *o, dims, lane), lane, t)
              : sample(x, *o, c, sampled, lane, t);
      if (!ok) return;
    }
    uint32_t bits[4];
    resultBits(in, t, bits);
    writeResult(x, in, *ops.dst, lane, bits);
    if (ops.resident) writeOperand(x, *ops.resident, lane, 1);
  });
}

/// tld4: one channel of the four texels bilinear filtering at `c` would
/// use, counter-clockwise from the lower left: (i, j+1), (i+1, j+1),
/// (i+1, j), (i, j). On a cubemap, those of the face the direction picks,
/// clamped to its edges.
void tld4(Exec &x, const DInstr &in) {
  TexOperands ops;
  if (!texOperands(x, in, ops)) return unsupported(x, in, "unexpected operands");
  const bool cube = in.shape == Mod::MemCube || in.shape == Mod::MemAcube;
  if (!cube && in.shape != Mod::Mem2d && in.shape != Mod::MemA2d)
    return unsupported(x, in, "unexpected geometry");
  const DOp *offsets = nullptr;
  if (!extraOperands(x.kernel(), in, ops.next, offsets)) return unsupported(x, in, "unexpected operands");
  const bool layered = in.shape == Mod::MemA2d || in.shape == Mod::MemAcube;
  const unsigned channel = in.op == Mod::MemCompG   ? 1
                           : in.op == Mod::MemCompB ? 2
                           : in.op == Mod::MemCompA ? 3
                                                    : 0;
  Objects objects(x, *ops.handle, false);
  forLanes(x.mask, [&](unsigned lane) {
    if (x.cta.failed) return;
    const TextureObject *o = objects.of(lane);
    if (!o) return;
    Coordinates c = coordinates(x, in, *ops.coords, cube ? 3 : 2, layered, lane);
    TextureObject face;
    if (cube) {
      if (!o->resource.cubemap)
        return objects.fail(lane, "a cubemap gather from a texture that is not a cubemap");
      face = onCubeFace(*o, layered, c);
      o = &face;
    } else {
      if (layered) c.layer = layerIndex(c.layer, o->resource.layers);
      readOffsets(x, offsets, 2, lane, c);
    }
    const Footprint fp = footprint(*o, c, 2, true);
    static constexpr unsigned kOrder[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    Texel four[4];
    for (unsigned q = 0; q < 4; ++q)
      if (!tap(x, *o, fp, c, 2, kOrder[q][0], kOrder[q][1], 0, lane, four[q])) return;
    uint32_t bits[4];
    for (unsigned q = 0; q < 4; ++q) {
      Texel one;
      for (unsigned ch = 0; ch < 4; ++ch)
        one.value[ch] = four[q].value[channel], one.raw[ch] = four[q].raw[channel];
      uint32_t b[4];
      resultBits(in, one, b);
      bits[q] = b[0];
    }
    writeResult(x, in, *ops.dst, lane, bits);
    if (ops.resident) writeOperand(x, *ops.resident, lane, 1);
  });
}

/// txq and suq: a property of the object.
void query(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &dst = k.op(in, 0), &addr = k.op(in, 1);
  const DOp &handle = addr.kind == DOp::Vec ? k.ops[addr.reg] : addr;
  const bool surface = in.opcode == Opcode::Suq;
  if (in.op == Mod::MemChannelDataType || in.op == Mod::MemChannelOrder)
    return unsupported(x, in, "channel data type and order queries");
  Objects objects(x, handle, surface);
  forLanes(x.mask, [&](unsigned lane) {
    if (x.cta.failed) return;
    const TextureObject *o = objects.of(lane);
    if (!o) return;
    const TextureResource &r = o->resource;
    const Sampler &s = o->sampler;
    uint64_t v = 0;
    switch (in.op) {
    case Mod::MemWidth: v = r.width; break;
    case Mod::MemHeight: v = r.height; break;
    case Mod::MemDepth: v = r.depth; break;
    case Mod::MemArraySize: v = r.layers; break;
    case Mod::MemNormalizedCoords: v = s.normalizedCoords; break;
    case Mod::MemForceUnnormalizedCoords: v = 0; break;
    case Mod::MemFilterMode: v = s.linear; break;
    case Mod::MemAddrMode0: v = static_cast<uint64_t>(s.address[0]); break;
    case Mod::MemAddrMode1: v = static_cast<uint64_t>(s.address[1]); break;
    case Mod::MemAddrMode2: v = static_cast<uint64_t>(s.address[2]); break;
    case Mod::MemNumMipmapLevels: v = r.levels; break;
    case Mod::MemNumSamples: v = 0; break;
    case Mod::MemMemoryLayout: v = r.kind == TextureResource::Array ? 1 : 0; break;
    default: break;
    }
    writeOperand(x, dst, lane, v & 0xFFFFFFFFu);
  });
}

constexpr HandlerRow kRows[] = {
    row(Opcode::Tex, tclass::All, tex),
    row(Opcode::Tld4, tclass::All, tld4),
    row(Opcode::Txq, tclass::All, query),
    row(Opcode::Suq, tclass::All, query),
};

} // namespace

std::span<const HandlerRow> textureHandlers() { return kRows; }

} // namespace emu
