// Surface instructions (suld.b, sust.b, sured.b, sust.p, sured.p) on the
// device's texture table (emulator/Texture.h): y and z in rows and slices, x
// in bytes (.b), samples (sust.p) or 32-bit words (sured.p), each access
// checked like a load or store of global memory, `.trap`/`.clamp`/`.zero`
// for coordinates outside the surface.
#include "emulator/semantics/Fp.h"
#include "emulator/semantics/TextureObjects.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

namespace emu {
namespace {

using namespace texture;
using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

/// The byte offset of lane `lane`'s surface access of `size` bytes, its
/// clamping applied; nullopt when it reads zeros or stores nothing
/// (.zero outside) or after a reported fault (.trap outside, misaligned).
/// x counts units of `unit` bytes (1 for the .b forms).
std::optional<uint64_t> surfaceOffset(Exec &x, const DInstr &in, const TextureObject &o, const DOp &coords,
                                      unsigned size, unsigned lane, unsigned unit = 1) {
  unsigned dims = 0;
  bool layered = false;
  geometry(in.shape, dims, layered);
  const Kernel &k = x.kernel();
  auto element = [&](unsigned i) -> const DOp & {
    return coords.kind == DOp::Vec ? k.ops[coords.reg + std::min<unsigned>(i, coords.count - 1)] : coords;
  };
  const TextureResource &r = o.resource;
  unsigned e = 0;
  int64_t layer = layered ? static_cast<int32_t>(readOperand(x, element(e++), lane)) : 0;
  int64_t c[3] = {};
  for (unsigned d = 0; d < dims; ++d) c[d] = static_cast<int32_t>(readOperand(x, element(e++), lane));
  c[0] *= unit;
  const int64_t limit[3] = {static_cast<int64_t>(r.width * r.format.bytes()) - size,
                            static_cast<int64_t>(r.height) - 1, static_cast<int64_t>(r.depth) - 1};
  const Mod mode = in.opcode == Opcode::Sured ? in.op2 : in.op;
  if (c[0] % size) {
    x.cta.report(ptx::DiagKind::MisalignedAccess, ptx::Severity::Error, x.pc, x.warp, 1u << lane,
                 "surface access of " + std::to_string(size) + " bytes at x = " + std::to_string(c[0]) +
                     " bytes: not a multiple of its size",
                 {{"thread", std::to_string(x.warp.index * 32 + lane)}});
    return std::nullopt;
  }
  bool outside = layered && (layer < 0 || layer >= static_cast<int64_t>(std::max<uint64_t>(r.layers, 1)));
  for (unsigned d = 0; d < dims; ++d) outside |= c[d] < 0 || c[d] > limit[d];
  if (outside) {
    if (mode == Mod::MemZero) return std::nullopt;
    if (mode == Mod::MemTrap) {
      x.cta.report(ptx::DiagKind::OutOfBounds, ptx::Severity::Error, x.pc, x.warp, 1u << lane,
                   "surface access outside the surface (.trap): x = " + std::to_string(c[0]) + " bytes" +
                       (dims > 1 ? ", y = " + std::to_string(c[1]) : std::string()) +
                       (dims > 2 ? ", z = " + std::to_string(c[2]) : std::string()) +
                       (layered ? ", layer " + std::to_string(layer) : std::string()) + "; the surface is " +
                       std::to_string(r.width) + (dims > 1 ? "x" + std::to_string(r.height) : std::string()) +
                       (dims > 2 ? "x" + std::to_string(r.depth) : std::string()) + " texels of " +
                       std::to_string(r.format.bytes()) + " bytes",
                   {{"thread", std::to_string(x.warp.index * 32 + lane)}});
      return std::nullopt;
    }
    for (unsigned d = 0; d < dims; ++d) c[d] = std::clamp<int64_t>(c[d], 0, std::max<int64_t>(limit[d], 0));
    c[0] -= c[0] % size;
    layer = std::clamp<int64_t>(layer, 0, std::max<int64_t>(r.layers, 1) - 1);
  }
  uint64_t off = static_cast<uint64_t>(c[0]);
  if (dims >= 2) off += static_cast<uint64_t>(c[1]) * r.rowPitch;
  if (dims == 3) off += static_cast<uint64_t>(c[2]) * r.slicePitch;
  if (layered) off += static_cast<uint64_t>(layer) * (dims == 1 ? r.rowPitch : r.slicePitch);
  return off;
}

/// Whether `addr` is a surface instruction's [handle, coordinates] operand
/// and its geometry one the surfaces have; reports it unsupported if not.
bool surfaceOperands(Exec &x, const DInstr &in, const DOp &addr) {
  unsigned dims = 0;
  bool layered = false;
  if (addr.kind != DOp::Vec || addr.count < 2) return unsupported(x, in, "unexpected operands"), false;
  if (!geometry(in.shape, dims, layered)) return unsupported(x, in, "this surface geometry"), false;
  return true;
}

void surfaceAccess(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const bool load = in.opcode == Opcode::Suld;
  const DOp &data = k.op(in, load ? 0 : 1), &addr = k.op(in, load ? 1 : 0);
  if (!surfaceOperands(x, in, addr)) return;
  const unsigned elementBytes = byteSize(in.type);
  const unsigned count = data.kind == DOp::Vec ? data.count : 1;
  const unsigned size = elementBytes * count;
  Objects objects(x, k.ops[addr.reg], true);
  forLanes(x.mask, [&](unsigned lane) {
    if (x.cta.failed) return;
    const TextureObject *o = objects.of(lane);
    if (!o) return;
    const bool faultsBefore = x.cta.failed;
    std::optional<uint64_t> off = surfaceOffset(x, in, *o, k.ops[addr.reg + 1], size, lane);
    if (x.cta.failed && !faultsBefore) return;
    uint8_t bytes[32] = {};
    if (load) {
      if (off && !loadBytes(x, Space::Global, o->resource.address + *off, size, lane, bytes, 1)) return;
      for (unsigned e = 0; e < count; ++e) {
        uint64_t v = 0;
        std::memcpy(&v, bytes + e * elementBytes, elementBytes);
        writeOperand(x, data.kind == DOp::Vec ? k.ops[data.reg + e] : data, lane, v);
      }
      return;
    }
    if (!off) return;
    for (unsigned e = 0; e < count; ++e) {
      const uint64_t v = readOperand(x, data.kind == DOp::Vec ? k.ops[data.reg + e] : data, lane);
      std::memcpy(bytes + e * elementBytes, &v, elementBytes);
    }
    storeBytes(x, Space::Global, o->resource.address + *off, size, lane, bytes, 1);
  });
}

/// One channel of a formatted store (measured on an H200,
/// kernels/apps/surface_ptx_probe): 32-bit channels take the word as it is;
/// 16-bit floats the word as an f32 rounded toward zero (so finite values
/// past the range give the largest half, infinities stay, subnormal halves
/// are kept), a NaN keeping the top of its payload; 8- and 16-bit integers
/// the word as a u32 or s32, saturated to the channel's range.
uint32_t formattedChannel(uint32_t word, const TexelFormat &f) {
  if (f.bits == 32) return word;
  if (f.kind == ChannelKind::Float) {
    const uint32_t sign = (word >> 16) & 0x8000u, magnitude = word & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) {
      // Unmeasured: a payload with none of its top ten bits set stays a NaN.
      const uint32_t payload = (magnitude & 0x7FFFFFu) >> 13;
      return sign | 0x7C00u | (payload ? payload : 0x200u);
    }
    return static_cast<uint32_t>(fp::fromDouble(std::bit_cast<float>(word), fp::kF16, fp::Round::Zero));
  }
  const uint32_t mask = (1u << f.bits) - 1;
  if (f.kind == ChannelKind::Unsigned) return std::min(word, mask);
  const int32_t high = static_cast<int32_t>(mask >> 1);
  return static_cast<uint32_t>(std::clamp(static_cast<int32_t>(word), -high - 1, high)) & mask;
}

/// sust.p: a vector of 32-bit words stored as one sample of the surface's
/// format at (x in samples, y, z); words past the format's channels are
/// ignored, channels past the vector get 0 (the ISA leaves them
/// unpredictable).
void formattedStore(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0), &data = k.op(in, 1);
  if (!surfaceOperands(x, in, addr)) return;
  const unsigned count = data.kind == DOp::Vec ? data.count : 1;
  Objects objects(x, k.ops[addr.reg], true);
  forLanes(x.mask, [&](unsigned lane) {
    if (x.cta.failed) return;
    const TextureObject *o = objects.of(lane);
    if (!o) return;
    const TexelFormat &f = o->resource.format;
    const unsigned sample = f.bytes();
    const std::optional<uint64_t> off = surfaceOffset(x, in, *o, k.ops[addr.reg + 1], sample, lane, sample);
    if (!off) return;
    uint8_t bytes[16] = {};
    for (unsigned c = 0; c < f.channels; ++c) {
      const uint32_t word = c < count ? static_cast<uint32_t>(readOperand(
                                            x, data.kind == DOp::Vec ? k.ops[data.reg + c] : data, lane))
                                      : 0;
      const uint32_t v = formattedChannel(word, f);
      std::memcpy(bytes + c * f.bits / 8, &v, f.bits / 8);
    }
    storeBytes(x, Space::Global, o->resource.address + *off, sample, lane, bytes, 1);
  });
}

/// sured.b: an atomic reduction of the source into the surface's bytes at
/// (x in bytes, y, z), clamped as suld and sust are. sured.p (measured on
/// an H200, kernels/apps/surface_ptx_probe): a reduction on the 32-bit word
/// at x * 4 bytes whatever the format, min and max signed on surfaces of
/// signed integers and unsigned on the others (floats included: their bits
/// compare and add as integers).
void surfaceReduce(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0), &src = k.op(in, 1);
  if (!surfaceOperands(x, in, addr)) return;
  const unsigned size = byteSize(in.type);
  const bool formatted = in.mods & dmod::Formatted;
  Objects objects(x, k.ops[addr.reg], true);
  forLanes(x.mask, [&](unsigned lane) {
    if (x.cta.failed) return;
    const TextureObject *o = objects.of(lane);
    if (!o) return;
    const bool sign = formatted ? o->resource.format.kind == ChannelKind::Signed
                                : in.type == Type::S32 || in.type == Type::S64;
    const std::optional<uint64_t> off =
        surfaceOffset(x, in, *o, k.ops[addr.reg + 1], size, lane, formatted ? size : 1);
    if (!off) return;
    uint8_t *p = accessBytes(x, Space::Global, o->resource.address + *off, size, lane, true, true);
    if (!p) return;
    const uint64_t v = readOperand(x, src, lane);
    std::lock_guard lock(atomicMutex);
    uint64_t old = 0;
    std::memcpy(&old, p, size);
    const uint64_t mask = size == 8 ? ~0ull : 0xFFFFFFFFull;
    auto wide = [&](uint64_t bits) {
      return size == 8 ? static_cast<int64_t>(bits) : static_cast<int64_t>(static_cast<int32_t>(bits));
    };
    uint64_t r = old;
    switch (in.op) {
    case Mod::Add: r = old + v; break;
    case Mod::Min: r = sign ? (wide(v) < wide(old) ? v : old) : ((v & mask) < (old & mask) ? v : old); break;
    case Mod::Max: r = sign ? (wide(v) > wide(old) ? v : old) : ((v & mask) > (old & mask) ? v : old); break;
    case Mod::And: r = old & v; break;
    case Mod::Or: r = old | v; break;
    default: break;
    }
    std::memcpy(p, &r, size);
  });
}

Handler pickSurface(const DInstr &in) {
  if (!(in.mods & dmod::Formatted)) return surfaceAccess;
  return in.opcode == Opcode::Sust ? formattedStore : nullptr;
}

constexpr HandlerRow kRows[] = {
    row(Opcode::Suld, tclass::All, pickSurface),
    row(Opcode::Sust, tclass::All, pickSurface),
    row(Opcode::Sured, tclass::All, surfaceReduce),
};

} // namespace

std::span<const HandlerRow> surfaceHandlers() { return kRows; }

} // namespace emu
