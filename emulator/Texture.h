// Texture and surface objects of the emulated device: what a handle names
// (the memory, its texel format and shape, and for a texture its sampler),
// the table the runtime fills (cudaCreateTextureObject,
// cudaCreateSurfaceObject) and the instructions read (tex, tld4, txq, suld,
// sust, suq), and the fetch and filtering rules they follow.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

namespace emu {

/// cudaChannelFormatKind's three plain kinds (16-bit floats are halves).
enum class ChannelKind : uint8_t { Signed, Unsigned, Float };

/// A texel's layout: 1, 2 or 4 channels of one width (8, 16 or 32 bits).
struct TexelFormat {
  uint8_t channels = 1;
  uint8_t bits = 32;
  ChannelKind kind = ChannelKind::Float;
  unsigned bytes() const { return channels * bits / 8u; }
};

/// cudaTextureAddressMode, by value (wrap 0, clamp 1, mirror 2, border 3).
enum class AddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };

/// The memory behind a texture or surface object.
struct TextureResource {
  /// Array: a CUDA array (1-D, 2-D or 3-D, maybe layered). Linear: a
  /// buffer of `width` texels (tex1Dfetch). Pitch2D: rows of `width`
  /// texels `rowPitch` bytes apart.
  enum Kind : uint8_t { Array, Linear, Pitch2D } kind = Array;
  uint64_t address = 0; // device address of texel (0, 0, 0) of layer 0
  TexelFormat format;
  /// 1, 2 or 3: the geometry of a texel's coordinates, layers apart.
  unsigned dimensions = 1;
  /// Extent in texels; 1 along a dimension the geometry lacks.
  uint64_t width = 1, height = 1, depth = 1;
  /// A layered array's layer count (0: not layered): a 1-D layered array's
  /// layers are its rows, a 2-D one's its slices.
  uint64_t layers = 0;
  /// A cubemap: square 2-D layers, six per cube (faces +x, -x, +y, -y, +z,
  /// -z), `layers` 6 or, layered, 6 per cube.
  bool cubemap = false;
  uint64_t rowPitch = 0;   // bytes from one row to the next
  uint64_t slicePitch = 0; // bytes from one 2-D slice (depth or layer) to the next
  /// A mipmapped array's levels (`levels` > 1): level 0 is the fields above,
  /// level[l] each level's memory and extent (level[0] repeats level 0).
  static constexpr unsigned kMaxLevels = 16;
  struct Level {
    uint64_t address = 0, width = 1, height = 1, depth = 1, rowPitch = 0, slicePitch = 0;
  };
  unsigned levels = 1;
  Level level[kMaxLevels] = {};
};

/// How a texture reads (cudaTextureDesc's fields that matter here).
struct Sampler {
  AddressMode address[3] = {AddressMode::Wrap, AddressMode::Wrap, AddressMode::Wrap};
  bool linear = false;           // cudaFilterModeLinear (point otherwise)
  bool normalizedFloat = false;  // cudaReadModeNormalizedFloat: 8/16-bit integers read as [0,1] / [-1,1]
  bool normalizedCoords = false; // coordinates in [0, 1) rather than texels
  bool srgb = false;             // 8-bit unsigned channels read through the sRGB curve
  float border[4] = {};          // what AddressMode::Border reads outside
  /// Mipmapped textures: the level a fetch reads is its level of detail
  /// plus `levelBias`, clamped to [minLevel, maxLevel] and to the levels
  /// there are; the nearest level, or (`mipmapLinear`) the two around it
  /// blended.
  bool mipmapLinear = false;
  float levelBias = 0, minLevel = 0, maxLevel = 0;
};

struct TextureObject {
  bool surface = false; // a surface object (suld, sust, suq); a texture otherwise (tex, tld4, txq)
  TextureResource resource;
  Sampler sampler; // textures only
};

/// The device's texture and surface objects by handle. Objects are made and
/// destroyed by the host while launches may run; each instruction reads a
/// copy of the one its handle names.
class TextureTable {
public:
  /// A new handle for `object`: never 0, never one handed out before; 0
  /// when the object is not one the instructions can read (valid()).
  uint64_t create(const TextureObject &object);
  /// A format of 1, 2 or 4 channels of 8, 16 or 32 bits (floats of 16 or
  /// 32), 1 to 3 dimensions, 1 to kMaxLevels levels, a nonempty extent, a
  /// cubemap's square faces six per cube: what every fetch relies on.
  static bool valid(const TextureObject &object);
  /// False when `handle` names no live object.
  bool destroy(uint64_t handle);
  /// The object `handle` names, if it is live.
  std::optional<TextureObject> find(uint64_t handle) const;

private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<uint64_t, TextureObject> objects_;
  uint64_t next_ = 1;
};

} // namespace emu
