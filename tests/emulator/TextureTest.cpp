// Texture and surface instructions on objects of the device's texture table
// (emulator/Texture.h): point and linear filtering, every address mode,
// normalized coordinates, read modes, tex1Dfetch on linear memory, 3-D and
// layered geometries, tld4's gather order, txq, suld/sust with each
// clamping mode, and handles that name nothing. Expected values are worked
// out by hand from the programming guide's fetching rules.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

// Thread t reads coordinates coords[4t .. 4t+3] (floats or ints, as the
// kernel's instruction takes them) and stores the four results at out[4t].
std::string kernels() {
  auto fetch = [](const char *name, const char *instr) {
    return std::string(".visible .entry ") + name + R"((.param .u64 tex, .param .u64 coords, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %d<8>;
  ld.param.u64 %d0, [tex];
  ld.param.u64 %d1, [coords];
  ld.param.u64 %d2, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %d3, %r0, 16;
  add.u64 %d4, %d1, %d3;
  add.u64 %d5, %d2, %d3;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%d4];
  )" + instr +
           R"(;
  st.global.v4.b32 [%d5], {%r5, %r6, %r7, %r8};
  ret;
}
)";
  };
  return fetch("tex2d", "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}]") +
         fetch("tex2du", "tex.2d.v4.u32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}]") +
         fetch("tex1dfetch", "tex.1d.v4.f32.s32 {%r5, %r6, %r7, %r8}, [%d0, {%r1}]") +
         fetch("tex3d", "tex.3d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2, %r3, %r3}]") +
         fetch("texa2d", "tex.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2, %r3, %r3}]") +
         fetch("texlevel", "tex.level.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}], %r3") +
         fetch("texgrad",
               "mov.b32 %r9, 0;\n  tex.grad.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}], "
               "{%r3, %r9}, {%r4, %r9}") +
         // Both gradients whole (r1, r2) and (r3, r4), at (0.5, 0.5).
         fetch("texgrad2", "mov.b32 %r10, 0f3F000000;\n  tex.grad.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, "
                           "[%d0, {%r10, %r10}], {%r1, %r2}, {%r3, %r4}") +
         fetch("texcube", "tex.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2, %r3, %r3}]") +
         fetch("tld4g", "tld4.g.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}]") +
         // Texel offsets (r3, r4), a depth-compare value (r3), gathers on cubemaps.
         fetch("tex2doff", "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}], {%r3, %r4}") +
         fetch("tex1doff", "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1}], {%r3}") +
         fetch("tex2dcmp", "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}], %r3") +
         fetch("tld4roff", "tld4.r.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2}], {%r3, %r4}") +
         fetch("tld4cube", "tld4.r.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%d0, {%r1, %r2, %r3, %r3}]") +
         fetch("txq", "txq.width.b32 %r5, [%d0];\n  txq.height.b32 %r6, [%d0];\n  txq.filter_mode.b32 %r7, "
                      "[%d0];\n  txq.addr_mode_0.b32 %r8, [%d0]") +
         // Surfaces: read the int at (x bytes = r1, y = r2), write it plus r3 back.
         fetch("surf_trap", "suld.b.2d.b32.trap {%r5}, [%d0, {%r1, %r2}];\n  add.s32 %r9, %r5, %r3;\n  "
                            "sust.b.2d.b32.trap [%d0, {%r1, %r2}], {%r9};\n  mov.b32 %r6, 0;\n  mov.b32 %r7, "
                            "0;\n  mov.b32 %r8, 0") +
         fetch("surf_clamp", "suld.b.2d.b32.clamp {%r5}, [%d0, {%r1, %r2}];\n  mov.b32 %r6, 0;\n  mov.b32 "
                             "%r7, 0;\n  mov.b32 %r8, 0") +
         fetch("surf_add",
               "sured.b.add.2d.u32.trap [%d0, {%r1, %r2}], %r3;\n  mov.b32 %r5, 0;\n  mov.b32 %r6, "
               "0;\n  mov.b32 %r7, 0;\n  mov.b32 %r8, 0") +
         fetch("surf_min",
               "sured.b.min.2d.s32.clamp [%d0, {%r1, %r2}], %r3;\n  mov.b32 %r5, 0;\n  mov.b32 %r6, "
               "0;\n  mov.b32 %r7, 0;\n  mov.b32 %r8, 0") +
         // Formatted: store (r3, r4, r3, r4) at sample (r1, r2); reduce the minimum with r3.
         fetch("surf_p",
               "sust.p.2d.v4.b32.clamp [%d0, {%r1, %r2}], {%r3, %r4, %r3, %r4};\n  mov.b32 %r5, 0;\n  "
               "mov.b32 %r6, 0;\n  mov.b32 %r7, 0;\n  mov.b32 %r8, 0") +
         fetch("surf_p_min", "sured.p.min.2d.b32.zero [%d0, {%r1, %r2}], %r3;\n  mov.b32 %r5, 0;\n  mov.b32 "
                             "%r6, 0;\n  mov.b32 %r7, 0;\n  mov.b32 %r8, 0") +
         fetch("surf_zero", "suld.b.2d.b32.zero {%r5}, [%d0, {%r1, %r2}];\n  sust.b.2d.b32.zero [%d0, {%r1, "
                            "%r2}], {%r3};\n  mov.b32 %r6, 0;\n  mov.b32 %r7, 0;\n  mov.b32 %r8, 0");
}

float f(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t b(float v) { return std::bit_cast<uint32_t>(v); }

/// A device with a `w` x `h` (x `d`) float array T[z][y][x] = 100z + 10y + x.
struct Fixture {
  emu::Device device;
  std::unique_ptr<ptx::Module> module;
  uint64_t texels = 0;
  uint64_t w = 8, h = 4, d = 3;

  Fixture() {
    ptx::DiagnosticList diags;
    module = ptx::parseModule(ptxvm::test::ptxModule(kernels()), "texture.ptx", diags);
    EXPECT_TRUE(module && !diags.hasErrors()) << diags.renderText();
    std::vector<float> t(w * h * d);
    for (uint64_t z = 0; z < d; ++z)
      for (uint64_t y = 0; y < h; ++y)
        for (uint64_t x = 0; x < w; ++x) t[(z * h + y) * w + x] = static_cast<float>(100 * z + 10 * y + x);
    texels = device.global.allocate(t.size() * 4);
    device.global.write(texels, t.data(), t.size() * 4);
  }

  /// A `width` x `height` surface of ints over `cells`.
  uint64_t surface(const std::vector<int32_t> &cells, uint64_t width, uint64_t height, uint64_t &at) {
    at = device.global.allocate(cells.size() * 4);
    device.global.write(at, cells.data(), cells.size() * 4);
    emu::TextureObject s;
    s.surface = true;
    s.resource.address = at;
    s.resource.format = {1, 32, emu::ChannelKind::Signed};
    s.resource.dimensions = 2;
    s.resource.width = width, s.resource.height = height, s.resource.rowPitch = width * 4;
    return device.textures.create(s);
  }

  /// A `width` x `height` surface of `format` over `bytes`.
  uint64_t surfaceOf(const std::vector<uint8_t> &bytes, emu::TexelFormat format, uint64_t width,
                     uint64_t height, uint64_t &at) {
    at = device.global.allocate(bytes.size());
    device.global.write(at, bytes.data(), bytes.size());
    emu::TextureObject s;
    s.surface = true;
    s.resource.address = at;
    s.resource.format = format;
    s.resource.dimensions = 2;
    s.resource.width = width, s.resource.height = height, s.resource.rowPitch = width * format.bytes();
    return device.textures.create(s);
  }

  emu::TextureObject array2d(emu::AddressMode mode, bool linear = false, bool normalized = false) const {
    emu::TextureObject o;
    o.resource.kind = emu::TextureResource::Array;
    o.resource.address = texels;
    o.resource.dimensions = 2;
    o.resource.width = w, o.resource.height = h;
    o.resource.rowPitch = w * 4, o.resource.slicePitch = w * h * 4;
    for (auto &m : o.sampler.address) m = mode;
    o.sampler.linear = linear;
    o.sampler.normalizedCoords = normalized;
    return o;
  }

  struct Result {
    bool ok = false;
    std::string diagnostics;
    std::vector<uint32_t> out;
  };
  /// Runs `kernel` with one thread per coordinate quadruple.
  Result run(const char *kernel, uint64_t handle, const std::vector<uint32_t> &coords) {
    Result r;
    ptx::DiagnosticList diags;
    auto k = device.decode(*module, kernel, diags);
    if (!k) {
      r.diagnostics = diags.renderText();
      return r;
    }
    std::unique_ptr<emu::Engine> engine = ptxvm::test::testEngine(*k);
    const uint64_t in = device.global.allocate(coords.size() * 4),
                   out = device.global.allocate(coords.size() * 4);
    device.global.write(in, coords.data(), coords.size() * 4);
    emu::LaunchConfig config;
    config.engine = engine.get();
    config.grid = {1, 1, 1};
    config.block = {static_cast<uint32_t>(coords.size() / 4), 1, 1};
    config.threads = 1;
    config.params.assign(k->paramBytes, 0);
    std::memcpy(&config.params[k->paramOffsets[0]], &handle, 8);
    std::memcpy(&config.params[k->paramOffsets[1]], &in, 8);
    std::memcpy(&config.params[k->paramOffsets[2]], &out, 8);
    r.ok = device.launch(*k, config, diags).ok;
    r.diagnostics = diags.renderText();
    r.out.resize(coords.size());
    device.global.read(out, r.out.data(), r.out.size() * 4);
    return r;
  }
  /// Float coordinates, two per thread.
  static std::vector<uint32_t> at(std::initializer_list<std::pair<float, float>> xy) {
    std::vector<uint32_t> c;
    for (auto [x, y] : xy) c.insert(c.end(), {b(x), b(y), 0, 0});
    return c;
  }
};

TEST(Texture, PointSamplingClampAndBorder) {
  Fixture t;
  const uint64_t clamp = t.device.textures.create(t.array2d(emu::AddressMode::Clamp));
  auto r =
      t.run("tex2d", clamp, Fixture::at({{2.5f, 1.5f}, {-3.0f, 0.2f}, {100.0f, 100.0f}, {7.99f, 0.99f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 12.0f);
  EXPECT_EQ(f(r.out[4]), 0.0f);
  EXPECT_EQ(f(r.out[8]), 37.0f);
  EXPECT_EQ(f(r.out[12]), 7.0f);
  // A one-channel format reads (v, 0, 0, 0).
  EXPECT_EQ(f(r.out[1]), 0.0f);
  EXPECT_EQ(f(r.out[2]), 0.0f);
  EXPECT_EQ(f(r.out[3]), 0.0f);

  emu::TextureObject border = t.array2d(emu::AddressMode::Border);
  border.sampler.border[0] = -1, border.sampler.border[1] = -2, border.sampler.border[2] = -3,
  border.sampler.border[3] = -4;
  r = t.run("tex2d", t.device.textures.create(border),
            Fixture::at({{-0.5f, 1.5f}, {3.5f, 2.5f}, {8.0f, 0.0f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  // The border colour in the texture's format: one channel (as on an H200).
  EXPECT_EQ(std::vector<uint32_t>(r.out.begin(), r.out.begin() + 4), (std::vector<uint32_t>{b(-1), 0, 0, 0}));
  EXPECT_EQ(f(r.out[4]), 23.0f);
  EXPECT_EQ(f(r.out[8]), -1.0f) << "x = 8 is one past the last texel";
}

TEST(Texture, NormalizedCoordinatesWrapAndMirror) {
  Fixture t;
  // Unnormalized wrap and mirror read as clamp.
  auto r = t.run("tex2d", t.device.textures.create(t.array2d(emu::AddressMode::Wrap)),
                 Fixture::at({{9.5f, 1.5f}, {-1.5f, 1.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 17.0f);
  EXPECT_EQ(f(r.out[4]), 10.0f);

  // Wrap: 1.25 -> 0.25 -> texel 2; -0.25 -> 0.75 -> row 3.
  r = t.run("tex2d", t.device.textures.create(t.array2d(emu::AddressMode::Wrap, false, true)),
            Fixture::at({{1.25f, -0.25f}, {0.5f, 0.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 32.0f);
  EXPECT_EQ(f(r.out[4]), 24.0f);

  // Mirror: 1.25 lies in an odd period -> 0.75 -> texel 6; 0.3 -> row 1;
  // -0.1 -> 0.1 -> texel 0.
  r = t.run("tex2d", t.device.textures.create(t.array2d(emu::AddressMode::Mirror, false, true)),
            Fixture::at({{1.25f, 0.3f}, {-0.1f, 0.3f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 16.0f);
  EXPECT_EQ(f(r.out[4]), 10.0f);
}

TEST(Texture, LinearFilteringWeighsWithEightFractionBits) {
  Fixture t;
  const uint64_t h = t.device.textures.create(t.array2d(emu::AddressMode::Clamp, true));
  // (2.0, 1.5): halfway between texels 1 and 2 of row 1. (2.1, 1.5): the
  // weight 0.6 becomes 154/256. (2.0, 2.0): bilinear over rows 1 and 2.
  // (0.0, 0.5): clamped at the left edge.
  auto r = t.run("tex2d", h, Fixture::at({{2.0f, 1.5f}, {2.1f, 1.5f}, {2.0f, 2.0f}, {0.0f, 0.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 11.5f);
  EXPECT_EQ(f(r.out[4]), 11.6015625f);
  EXPECT_EQ(f(r.out[8]), 16.5f);
  EXPECT_EQ(f(r.out[12]), 0.0f);
}

TEST(Texture, TapWeightsRoundTiesToOddAndClampedTapsMerge) {
  Fixture t;
  // (2.0, 1.7): x weights 128/128, y weights 205/51; the tap weights
  // 102.5 and 25.5 (in 1/256) round to odd, 103 and 25 (ties to even would
  // give 13.53125, exact weights 13.4921875).
  auto r = t.run("tex2d", t.device.textures.create(t.array2d(emu::AddressMode::Clamp, true)),
                 Fixture::at({{2.0f, 1.7f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), (103 * (11 + 12) + 25 * (21 + 22)) / 256.0f);
  // 3-D at (7.9, 1.7, 0.6): both x taps clamp onto texel 7, which then takes
  // weight 1, the y/z taps 184, 46, 21 and 5 (x weights 154 and 102 kept
  // apart would round to 29.109375). Measured on an H200: the weight of
  // x and z rounded, then times y, rounded again.
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp, true);
  o.resource.dimensions = 3;
  o.resource.depth = t.d;
  r = t.run("tex3d", t.device.textures.create(o), {b(7.9f), b(1.7f), b(0.6f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), (184 * 17 + 46 * 27 + 21 * 117 + 5 * 127) / 256.0f);
}

TEST(Texture, LinearFilteringArithmeticAsMeasuredOnAnH200) {
  Fixture t;
  // A row of texel pairs; each fetch lies between the two of a pair.
  const std::vector<float> pairs = {0.001f, 333.3f, 1.0f, 1.00000012f, 1.0f, -1.0f};
  const uint64_t at = t.device.global.allocate(pairs.size() * 4);
  t.device.global.write(at, pairs.data(), pairs.size() * 4);
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp, true);
  o.resource.address = at;
  o.resource.width = pairs.size(), o.resource.height = 1, o.resource.rowPitch = pairs.size() * 4;
  // Values the H200 returned: the small texel aligned to the large one's
  // exponent and truncated (1.30294859 where the exact sum rounds to
  // 1.30294919); a tie rounded away from zero (1 + 2^-24 -> 1 + 2^-23).
  auto r = t.run(
      "tex2d", t.device.textures.create(o),
      Fixture::at({{0.5f + 1 / 256.0f, 0.5f}, {2.5f + 128 / 256.0f, 0.5f}, {4.5f + 64 / 256.0f, 0.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out[0], 0x3fa6c705u);
  EXPECT_EQ(r.out[4], 0x3f800001u);
  EXPECT_EQ(f(r.out[8]), 0.5f);
  // 8-bit normalized texels filter as 16-bit ones: the mean of 0, 127, 128
  // and 255 is 32767.5 of 65535, rounded up.
  const std::vector<uint8_t> bytes = {0, 127, 128, 255};
  const uint64_t u8 = t.device.global.allocate(4);
  t.device.global.write(u8, bytes.data(), 4);
  emu::TextureObject n = t.array2d(emu::AddressMode::Clamp, true);
  n.resource.address = u8;
  n.resource.format = {1, 8, emu::ChannelKind::Unsigned};
  n.resource.width = 2, n.resource.height = 2, n.resource.rowPitch = 2;
  n.sampler.normalizedFloat = true;
  r = t.run("tex2d", t.device.textures.create(n), Fixture::at({{1.0f, 1.0f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out[0], 0x3f000080u) << f(r.out[0]);
}

// Every fetch of tests/gpu/apps/texture-fits/srgb_probe.h200.txt: a 256x1
// sRGB uchar4 texture whose texel i is (i, 255 - i, 37 i mod 256, i), read
// with point sampling and with linear filtering between neighbours.
TEST(Texture, SrgbAsMeasuredOnAnH200) {
  std::ifstream in(std::string(PTXVM_SOURCE_DIR) + "/tests/gpu/apps/texture-fits/srgb_probe.h200.txt");
  ASSERT_TRUE(in) << "the recording is missing";
  struct Fetch {
    float x;
    uint32_t r, g, b, a;
    bool all; // point lines give four channels, linear ones red and alpha
  };
  std::vector<Fetch> fetches;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind, colon;
    words >> kind;
    Fetch f{};
    if (kind == "point") {
      int i;
      words >> i >> colon >> std::hex >> f.r >> f.g >> f.b >> f.a;
      f.x = i + 0.5f, f.all = true;
    } else if (kind == "linear") {
      int a, b, j;
      words >> a >> b >> j >> colon >> std::hex >> f.r >> f.a;
      f.x = a + 0.5f + j / 256.0f;
    } else {
      continue;
    }
    ASSERT_TRUE(words) << line;
    fetches.push_back(f);
  }
  ASSERT_EQ(fetches.size(), 256u + 7 * 257);
  Fixture t;
  std::vector<uint8_t> texels;
  for (int i = 0; i < 256; ++i)
    texels.insert(texels.end(), {uint8_t(i), uint8_t(255 - i), uint8_t(37 * i), uint8_t(i)});
  const uint64_t at = t.device.global.allocate(texels.size());
  t.device.global.write(at, texels.data(), texels.size());
  for (bool linear : {false, true}) {
    emu::TextureObject o = t.array2d(emu::AddressMode::Clamp, linear);
    o.resource.address = at;
    o.resource.format = {4, 8, emu::ChannelKind::Unsigned};
    o.resource.width = 256, o.resource.height = 1, o.resource.rowPitch = 256 * 4;
    o.sampler.normalizedFloat = true;
    o.sampler.srgb = true;
    const uint64_t handle = t.device.textures.create(o);
    // One launch per 256 fetches (a CTA's worth).
    std::vector<const Fetch *> batch;
    size_t checked = 0;
    auto flush = [&] {
      std::vector<uint32_t> coords;
      for (const Fetch *f : batch) coords.insert(coords.end(), {b(f->x), b(0.5f), 0, 0});
      auto r = t.run("tex2d", handle, coords);
      ASSERT_TRUE(r.ok) << r.diagnostics;
      for (size_t k = 0; k < batch.size(); ++k, ++checked) {
        const Fetch &f = *batch[k];
        EXPECT_EQ(r.out[4 * k], f.r) << "x = " << f.x;
        EXPECT_EQ(r.out[4 * k + 3], f.a) << "x = " << f.x;
        if (f.all) {
          EXPECT_EQ(std::tie(r.out[4 * k + 1], r.out[4 * k + 2]), std::tie(f.g, f.b)) << "x = " << f.x;
        }
      }
      batch.clear();
    };
    for (const Fetch &f : fetches)
      if (f.all != linear) {
        batch.push_back(&f);
        if (batch.size() == 256) flush();
      }
    if (!batch.empty()) flush();
    EXPECT_EQ(checked, linear ? 7u * 257 : 256u);
  }
}

// The levels of detail of tests/gpu/apps/texture-fits/lod_probe.h200.txt: a
// 256x256 mipmapped texture whose level l reads 256 l, point-sampled and
// linearly filtered between levels, so each fetch returns its level of
// detail times 256: all 594 are reproduced.
TEST(Texture, LevelsOfDetailAsMeasuredOnAnH200) {
  std::ifstream in(std::string(PTXVM_SOURCE_DIR) + "/tests/gpu/apps/texture-fits/lod_probe.h200.txt");
  ASSERT_TRUE(in) << "the recording is missing";
  std::vector<std::array<uint32_t, 5>> fetches; // the gradients' bits, the result's
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::array<uint32_t, 5> f{};
    std::string colon;
    words >> std::hex >> f[0] >> f[1] >> f[2] >> f[3] >> colon >> f[4];
    ASSERT_TRUE(words && colon == ":") << line;
    fetches.push_back(f);
  }
  ASSERT_EQ(fetches.size(), 594u);
  Fixture t;
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp, false, true);
  o.resource.levels = 9;
  for (unsigned l = 0; l < 9; ++l) {
    const uint64_t n = 256u >> l;
    const std::vector<float> texels(n * n, 256.0f * l);
    const uint64_t at = t.device.global.allocate(texels.size() * 4);
    t.device.global.write(at, texels.data(), texels.size() * 4);
    o.resource.level[l] = {at, n, n, 1, n * 4, n * n * 4};
  }
  o.resource.address = o.resource.level[0].address;
  o.resource.width = o.resource.height = 256, o.resource.rowPitch = 1024;
  o.sampler.mipmapLinear = true;
  o.sampler.maxLevel = 8;
  const uint64_t handle = t.device.textures.create(o);
  size_t oneGradient = 0, twoGradients = 0; // rows 0-449 vary one component, 450-593 several
  for (size_t first = 0; first < fetches.size(); first += 256) {
    const size_t count = std::min<size_t>(256, fetches.size() - first);
    std::vector<uint32_t> coords;
    for (size_t k = 0; k < count; ++k)
      coords.insert(coords.end(), fetches[first + k].begin(), fetches[first + k].begin() + 4);
    auto r = t.run("texgrad2", handle, coords);
    ASSERT_TRUE(r.ok) << r.diagnostics;
    for (size_t k = 0; k < count; ++k)
      if (r.out[4 * k] == fetches[first + k][4]) ++(first + k < 450 ? oneGradient : twoGradients);
  }
  EXPECT_EQ(oneGradient, 450u);
  EXPECT_EQ(twoGradients, 144u);
  std::printf("levels of detail as the H200's: %zu of 450 (one gradient), %zu of 144 (two)\n", oneGradient,
              twoGradients);
}

TEST(Texture, Tld4GathersCounterClockwiseFromLowerLeft) {
  Fixture t;
  // Two channels (x, y) = (T, -T): tld4.g gathers the second.
  std::vector<float> two(t.w * t.h * 2);
  for (uint64_t y = 0; y < t.h; ++y)
    for (uint64_t x = 0; x < t.w; ++x) {
      two[(y * t.w + x) * 2] = static_cast<float>(10 * y + x);
      two[(y * t.w + x) * 2 + 1] = -static_cast<float>(10 * y + x);
    }
  const uint64_t at = t.device.global.allocate(two.size() * 4);
  t.device.global.write(at, two.data(), two.size() * 4);
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp);
  o.resource.address = at;
  o.resource.format.channels = 2;
  o.resource.rowPitch = t.w * 8;
  auto r = t.run("tld4g", t.device.textures.create(o), Fixture::at({{2.0f, 2.0f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{b(-21), b(-22), b(-12), b(-11)}));
}

TEST(Texture, ReadModesOfIntegerFormats) {
  Fixture t;
  const std::vector<uint8_t> bytes = {0, 51, 255, 128, 10, 20, 30, 40};
  const uint64_t at = t.device.global.allocate(bytes.size());
  t.device.global.write(at, bytes.data(), bytes.size());
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp);
  o.resource.address = at;
  o.resource.format = {4, 8, emu::ChannelKind::Unsigned};
  o.resource.width = 2, o.resource.height = 1, o.resource.rowPitch = 8;
  auto r = t.run("tex2du", t.device.textures.create(o), Fixture::at({{1.5f, 0.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{10, 20, 30, 40}));
  o.sampler.normalizedFloat = true;
  r = t.run("tex2d", t.device.textures.create(o), Fixture::at({{0.5f, 0.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{b(0.0f), b(51.0f / 255.0f), b(1.0f), b(128.0f / 255.0f)}));
  // Signed 8-bit: -128 reads as -1 like -127.
  o.resource.format.kind = emu::ChannelKind::Signed;
  r = t.run("tex2d", t.device.textures.create(o), Fixture::at({{0.5f, 0.5f}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{b(0.0f), b(51.0f / 127.0f), b(-1.0f / 127.0f), b(-1.0f)}));
}

TEST(Texture, FetchFromLinearMemoryReadsZerosOutside) {
  Fixture t;
  emu::TextureObject o;
  o.resource.kind = emu::TextureResource::Linear;
  o.resource.address = t.texels;
  o.resource.width = 10;
  const uint64_t h = t.device.textures.create(o);
  auto r = t.run("tex1dfetch", h, {3, 0, 0, 0, 9, 0, 0, 0, 10, 0, 0, 0, static_cast<uint32_t>(-1), 0, 0, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 3.0f);
  EXPECT_EQ(f(r.out[4]), 11.0f) << "index 9 is row 1's second texel";
  for (unsigned i = 8; i < 16; ++i) EXPECT_EQ(r.out[i], 0u) << i;
}

TEST(Texture, ThreeDimensionalAndLayered) {
  Fixture t;
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp);
  o.resource.dimensions = 3;
  o.resource.depth = t.d;
  auto r = t.run("tex3d", t.device.textures.create(o),
                 {b(3.5f), b(2.5f), b(1.5f), 0, b(0.5f), b(0.5f), b(9.0f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 123.0f);
  EXPECT_EQ(f(r.out[4]), 200.0f) << "z clamped to the last slice";
  // The same memory as a 2-D array of 3 layers: {layer, x, y}.
  emu::TextureObject layered = t.array2d(emu::AddressMode::Clamp);
  layered.resource.layers = t.d;
  r = t.run("texa2d", t.device.textures.create(layered),
            {2, b(4.5f), b(1.5f), 0, 7, b(0.5f), b(0.5f), 0, static_cast<uint32_t>(-1), b(0.5f), b(0.5f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 214.0f);
  EXPECT_EQ(f(r.out[4]), 200.0f) << "the layer index is clamped";
  EXPECT_EQ(f(r.out[8]), 200.0f) << "as an unsigned number (as on an H200)";
}

/// Three levels of 4x4, 2x2 and 1x1 texels holding 1, 2 and 4.
emu::TextureObject mipmapped(Fixture &t) {
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp, false, true);
  o.resource.levels = 3;
  for (unsigned l = 0; l < 3; ++l) {
    const uint64_t n = 4u >> l;
    const std::vector<float> texels(n * n, static_cast<float>(1u << l));
    const uint64_t at = t.device.global.allocate(texels.size() * 4);
    t.device.global.write(at, texels.data(), texels.size() * 4);
    o.resource.level[l] = {at, n, n, 1, n * 4, n * n * 4};
  }
  o.resource.address = o.resource.level[0].address;
  o.resource.width = o.resource.height = 4, o.resource.rowPitch = 16;
  o.sampler.maxLevel = 100;
  return o;
}

TEST(Texture, MipmapLevelsFromTheLevelOfDetail) {
  Fixture t;
  emu::TextureObject o = mipmapped(t);
  auto lod = [](std::initializer_list<float> levels) {
    std::vector<uint32_t> c;
    for (float l : levels) c.insert(c.end(), {b(0.3f), b(0.6f), b(l), 0});
    return c;
  };
  // Nearest level: 0.4 -> 0, 0.6 -> 1, 1.5 -> 2, past the last -> the last, negative -> 0.
  auto r = t.run("texlevel", t.device.textures.create(o), lod({0.0f, 0.4f, 0.6f, 1.5f, 7.0f, -3.0f}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const float nearest[] = {1, 1, 2, 4, 4, 1};
  for (unsigned i = 0; i < 6; ++i) EXPECT_EQ(f(r.out[4 * i]), nearest[i]) << i;
  // Linear between levels; the bias moves the level, the clamps bound it.
  o.sampler.mipmapLinear = true;
  r = t.run("texlevel", t.device.textures.create(o), lod({0.5f, 0.25f, 1.75f}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 1.5f);
  EXPECT_EQ(f(r.out[4]), 1.25f);
  EXPECT_EQ(f(r.out[8]), 3.5f);
  o.sampler.mipmapLinear = false;
  o.sampler.levelBias = 1;
  o.sampler.maxLevel = 1;
  r = t.run("texlevel", t.device.textures.create(o), lod({0.0f, 2.0f}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 2.0f);
  EXPECT_EQ(f(r.out[4]), 2.0f) << "clamped to maxLevel 1";
  // Gradients: 0.5 of a normalized coordinate is 2 texels of level 0 -> level 1.
  o.sampler.levelBias = 0, o.sampler.maxLevel = 100;
  r = t.run("texgrad", t.device.textures.create(o),
            {b(0.3f), b(0.6f), b(0.5f), b(0.1f), b(0.3f), b(0.6f), b(0.0f), b(0.25f), b(0.3f), b(0.6f),
             b(1.0f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 2.0f);
  EXPECT_EQ(f(r.out[4]), 1.0f) << "1 texel: level 0";
  EXPECT_EQ(f(r.out[8]), 4.0f) << "4 texels: level 2";
}

TEST(Texture, CubemapFacesByMajorAxis) {
  Fixture t;
  // Six 2x2 faces: texel (x, y) of face f holds 10f + 2y + x.
  std::vector<float> faces(6 * 4);
  for (unsigned i = 0; i < faces.size(); ++i) faces[i] = static_cast<float>(i / 4 * 10 + i % 4);
  const uint64_t at = t.device.global.allocate(faces.size() * 4);
  t.device.global.write(at, faces.data(), faces.size() * 4);
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp, false, true);
  o.resource.address = at;
  o.resource.width = o.resource.height = 2, o.resource.rowPitch = 8, o.resource.slicePitch = 16;
  o.resource.layers = 6, o.resource.cubemap = true;
  // +x: s = -z, t = -y: (1, -0.5, 0.5) -> s -0.5, t 0.5 -> texel (0, 1) of face 0.
  // -y: s = x, t = -z: (0.5, -1, 0.5) -> s 0.5, t -0.5 -> texel (1, 0) of face 3.
  // -z: s = -x, t = -y: (0.5, 0.5, -1) -> s -0.5, t -0.5 -> texel (0, 0) of face 5.
  auto r =
      t.run("texcube", t.device.textures.create(o),
            {b(1.0f), b(-0.5f), b(0.5f), 0, b(0.5f), b(-1.0f), b(0.5f), 0, b(0.5f), b(0.5f), b(-1.0f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 2.0f);
  EXPECT_EQ(f(r.out[4]), 31.0f);
  EXPECT_EQ(f(r.out[8]), 50.0f);
  // A cubemap fetch of a plain texture is an error.
  r = t.run("texcube", t.device.textures.create(t.array2d(emu::AddressMode::Clamp)), {b(1.0f), 0, 0, 0});
  EXPECT_FALSE(r.ok);
}

/// Texel offsets, the depth-compare operand and cubemap gathers, as an H200
/// gives them (kernels/apps/texture_ptx_probe records many more).
TEST(Texture, TexelOffsetsMoveTheIndicesBeforeAddressing) {
  Fixture t;
  auto withOffsets = [](std::initializer_list<std::tuple<float, float, int32_t, int32_t>> points) {
    std::vector<uint32_t> c;
    for (auto [x, y, ox, oy] : points)
      c.insert(c.end(), {b(x), b(y), static_cast<uint32_t>(ox), static_cast<uint32_t>(oy)});
    return c;
  };
  const uint64_t clamp = t.device.textures.create(t.array2d(emu::AddressMode::Clamp));
  auto r =
      t.run("tex2doff", clamp, withOffsets({{2.5f, 1.5f, 1, 2}, {2.5f, 1.5f, -8, 0}, {6.2f, 0.5f, 7, -3}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 33.0f);
  EXPECT_EQ(f(r.out[4]), 10.0f) << "x = 2 - 8 clamps to 0";
  EXPECT_EQ(f(r.out[8]), 7.0f) << "x = 13 and y = -3 clamp to (7, 0)";

  emu::TextureObject border = t.array2d(emu::AddressMode::Border);
  border.sampler.border[0] = -1;
  r = t.run("tex2doff", t.device.textures.create(border),
            withOffsets({{7.5f, 0.5f, 1, 0}, {7.5f, 0.5f, -1, 3}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), -1.0f) << "x = 8 is past the last texel";
  EXPECT_EQ(f(r.out[4]), 36.0f);

  emu::TextureObject wrap = t.array2d(emu::AddressMode::Wrap, false, true);
  r = t.run("tex2doff", t.device.textures.create(wrap), withOffsets({{0.9f, 0.1f, 2, -1}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 31.0f) << "(7 + 2, 0 - 1) wraps to (1, 3)";

  // tld4 moves its footprint: around (1.5, 1.5) + (1, -1).
  r = t.run("tld4roff", clamp, withOffsets({{2.0f, 2.0f, 1, -1}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{b(12), b(13), b(3), b(2)}));

  // The depth-compare value is ignored: CUDA's textures have no compare
  // function, and the H200 returns the texel.
  r = t.run("tex2dcmp", clamp, {b(2.5f), b(1.5f), b(1e9f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), 12.0f);

  // A 1-D array in border mode reads the border for any negative offset
  // (its sign reaches the row offset of the 2-D fetch the unit makes).
  emu::TextureObject line = border;
  line.resource.dimensions = 1, line.resource.height = 1;
  r = t.run("tex1doff", t.device.textures.create(line), withOffsets({{3.5f, 0, -1, 0}, {3.5f, 0, 1, 0}}));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(f(r.out[0]), -1.0f);
  EXPECT_EQ(f(r.out[4]), 4.0f);
}

TEST(Texture, Tld4GathersFromTheCubemapFaceTheDirectionPicks) {
  Fixture t;
  // Six 2x2 faces: texel (x, y) of face f holds 10f + 2y + x.
  std::vector<float> faces(6 * 4);
  for (unsigned i = 0; i < faces.size(); ++i) faces[i] = static_cast<float>(i / 4 * 10 + i % 4);
  const uint64_t at = t.device.global.allocate(faces.size() * 4);
  t.device.global.write(at, faces.data(), faces.size() * 4);
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp);
  o.resource.address = at;
  o.resource.width = o.resource.height = 2, o.resource.rowPitch = 8, o.resource.slicePitch = 16;
  o.resource.layers = 6, o.resource.cubemap = true;
  // Face centres: the whole 2x2 face, counter-clockwise from the lower left.
  auto r = t.run("tld4cube", t.device.textures.create(o), {b(1.0f), 0, 0, 0, 0, 0, b(-1.0f), 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{b(2), b(3), b(1), b(0), b(52), b(53), b(51), b(50)}));
}

TEST(Texture, TxqReadsTheObject) {
  Fixture t;
  auto r =
      t.run("txq", t.device.textures.create(t.array2d(emu::AddressMode::Mirror, true, true)), {0, 0, 0, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out, (std::vector<uint32_t>{8, 4, 1, 2}));
}

TEST(Texture, SurfacesLoadStoreAndClamp) {
  Fixture t;
  std::vector<int32_t> cells(4 * 3);
  for (unsigned i = 0; i < cells.size(); ++i) cells[i] = static_cast<int32_t>(i);
  uint64_t at = 0;
  const uint64_t h = t.surface(cells, 4, 3, at);
  // Cell (x = 2, y = 1) is 6 and becomes 106; (3, 2) is 11 and becomes 1011.
  auto r = t.run("surf_trap", h, {8, 1, 100, 0, 12, 2, 1000, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out[0], 6u);
  EXPECT_EQ(r.out[4], 11u);
  std::vector<int32_t> now(cells.size());
  t.device.global.read(at, now.data(), now.size() * 4);
  EXPECT_EQ(now[6], 106);
  EXPECT_EQ(now[11], 1011);
  // .clamp reads the nearest cell; .zero reads 0 outside and stores nothing.
  r = t.run("surf_clamp", h, {400, 1, 0, 0, static_cast<uint32_t>(-8), 9, 0, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out[0], 7u);
  EXPECT_EQ(r.out[4], 8u);
  r = t.run("surf_zero", h, {16, 0, 55, 0, 0, 0, 55, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.out[0], 0u);
  EXPECT_EQ(r.out[4], 0u) << "the second lane read before it stored";
  t.device.global.read(at, now.data(), now.size() * 4);
  EXPECT_EQ(now[0], 55);
  EXPECT_EQ(now[1], 1) << "x = 16 bytes is outside: nothing stored";
  // .trap outside, a misaligned x, and a texture handle on suld fail.
  r = t.run("surf_trap", h, {16, 0, 0, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("surface access outside the surface"), std::string::npos) << r.diagnostics;
  r = t.run("surf_trap", h, {2, 0, 0, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("misaligned"), std::string::npos) << r.diagnostics;
  r = t.run("surf_trap", t.device.textures.create(t.array2d(emu::AddressMode::Clamp)), {0, 0, 0, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("surface object"), std::string::npos) << r.diagnostics;
}

TEST(Texture, SurfaceReductionsAreAtomic) {
  Fixture t;
  uint64_t at = 0;
  const uint64_t h = t.surface({5, -5, 7, 0}, 2, 2, at);
  // 64 threads each add their index modulo 3 to cell (1, 0).
  std::vector<uint32_t> coords;
  uint32_t added = 0;
  for (uint32_t i = 0; i < 64; ++i) coords.insert(coords.end(), {4, 0, i % 3, 0}), added += i % 3;
  auto r = t.run("surf_add", h, coords);
  ASSERT_TRUE(r.ok) << r.diagnostics;
  std::vector<int32_t> now(4);
  t.device.global.read(at, now.data(), 16);
  EXPECT_EQ(now[1], -5 + static_cast<int32_t>(added));
  // Signed minimum; x = 100 bytes clamps to the last cell of its row.
  r = t.run("surf_min", h,
            {0, 1, static_cast<uint32_t>(-3), 0, 100, 1, static_cast<uint32_t>(-9), 0, 0, 0, 9, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  t.device.global.read(at, now.data(), 16);
  EXPECT_EQ(now, (std::vector<int32_t>{5, -5 + static_cast<int32_t>(added), -3, -9}));
}

TEST(Texture, FormattedStoresConvertToTheFormatAndReductionsTakeWords) {
  Fixture t;
  auto bytesAt = [&](uint64_t at, size_t n) {
    std::vector<uint8_t> v(n);
    t.device.global.read(at, v.data(), n);
    return v;
  };
  // sust.p: x counts samples. 8-bit unsigned channels saturate the word as
  // a u32; x = 100 clamps to the last sample.
  uint64_t at = 0;
  uint64_t h = t.surfaceOf(std::vector<uint8_t>(16), {4, 8, emu::ChannelKind::Unsigned}, 4, 1, at);
  auto r = t.run("surf_p", h, {1, 0, 300, 7, 100, 0, 0xffffffffu, 0x80});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(bytesAt(at, 16),
            (std::vector<uint8_t>{0, 0, 0, 0, 0xff, 7, 0xff, 7, 0, 0, 0, 0, 0xff, 0x80, 0xff, 0x80}));
  // Signed 8-bit channels saturate the word as an s32 (-129 -> -128, 200 ->
  // 127); halves round the f32 toward zero (0.99804676 -> 0x3bfb, 65520 ->
  // the largest half, not infinity).
  h = t.surfaceOf(std::vector<uint8_t>(2), {1, 8, emu::ChannelKind::Signed}, 2, 1, at);
  r = t.run("surf_p", h, {0, 0, 0xffffff7fu, 0, 1, 0, 200, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(bytesAt(at, 2), (std::vector<uint8_t>{0x80, 0x7f}));
  h = t.surfaceOf(std::vector<uint8_t>(4), {2, 16, emu::ChannelKind::Float}, 1, 1, at);
  r = t.run("surf_p", h, {0, 0, 0x3f7f7f7fu, 0x477ff000u});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(bytesAt(at, 4), (std::vector<uint8_t>{0xfb, 0x3b, 0xff, 0x7b}));
  // sured.p: the 32-bit word at x * 4 bytes whatever the format, compared
  // signed on a signed format and unsigned otherwise. Halves 5, -2 make the
  // word 0xfffe0005: negative, below 3; unsigned, above it.
  const std::vector<uint8_t> halves = {5, 0, 0xfe, 0xff, 0, 0, 0, 0};
  h = t.surfaceOf(halves, {1, 16, emu::ChannelKind::Signed}, 4, 1, at);
  r = t.run("surf_p_min", h, {0, 0, 3, 0, 1, 0, 7, 0, 2, 0, 1, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(bytesAt(at, 8), (std::vector<uint8_t>{5, 0, 0xfe, 0xff, 0, 0, 0, 0})) << "x = 2 words is outside";
  h = t.surfaceOf(halves, {1, 16, emu::ChannelKind::Unsigned}, 4, 1, at);
  r = t.run("surf_p_min", h, {0, 0, 3, 0});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(bytesAt(at, 4), (std::vector<uint8_t>{3, 0, 0, 0}));
}

TEST(Texture, HandlesThatNameNothingFailTheLaunch) {
  Fixture t;
  const uint64_t h = t.device.textures.create(t.array2d(emu::AddressMode::Clamp));
  // Objects no fetch could read are refused.
  emu::TextureObject wide = t.array2d(emu::AddressMode::Clamp);
  wide.resource.format.bits = 64;
  EXPECT_EQ(t.device.textures.create(wide), 0u);
  emu::TextureObject three = t.array2d(emu::AddressMode::Clamp);
  three.resource.format.channels = 3;
  EXPECT_EQ(t.device.textures.create(three), 0u);
  emu::TextureObject deep = t.array2d(emu::AddressMode::Clamp);
  deep.resource.levels = 17;
  EXPECT_EQ(t.device.textures.create(deep), 0u);
  ASSERT_TRUE(t.device.textures.destroy(h));
  EXPECT_FALSE(t.device.textures.destroy(h));
  for (uint64_t bad : {h, uint64_t{0}, uint64_t{12345}}) {
    auto r = t.run("tex2d", bad, Fixture::at({{0.5f, 0.5f}}));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.diagnostics.find("texture object " + std::to_string(bad) + " does not exist"),
              std::string::npos)
        << r.diagnostics;
  }
  // A texture whose memory was freed: the fetch is a use after free.
  emu::TextureObject o = t.array2d(emu::AddressMode::Clamp);
  const uint64_t live = t.device.textures.create(o);
  ASSERT_TRUE(t.device.global.free(t.texels));
  auto r = t.run("tex2d", live, Fixture::at({{0.5f, 0.5f}}));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("out-of-bounds"), std::string::npos) << r.diagnostics;
}

} // namespace
