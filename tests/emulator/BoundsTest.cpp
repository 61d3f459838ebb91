// No kernel reaches host memory (issue 10, class 1): every space's bounds
// check at the edges of its window — the last element, one past the end, a
// straddling access, and addresses just below the window (2^64 - size) that
// a check of the form `address + size <= limit` lets through when the sum
// wraps. Each edge runs with every lane at the edge (the fast paths that
// check a warp's address span) and with lane 0 at a valid address beside
// lanes at the edge (one span from 0 to near 2^64). Under AddressSanitizer a
// check that lets an access through is a heap overflow; here it is also an
// access that succeeds where it must fault.
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ptxvm::test;
using ptx::DiagKind;

namespace {

/// One memory space as a kernel addresses it: declarations, how %rd4 gets
/// the window's base, the space modifier of the access, and the window's
/// size in bytes.
struct Space {
  const char *name;
  std::string decl;  // at kernel scope
  std::string base;  // sets %rd4
  std::string space; // ".shared", "" for generic, ...
  uint64_t window;
  bool writable;
};

constexpr uint64_t kWindow = 260; // not a multiple of 8: an aligned u64 at 256 straddles the end

std::vector<Space> spaces() {
  return {
      // Shared and local memory come in 16-byte granules: their windows
      // are 256 bytes, and a u64 at 252 is misaligned rather than straddling.
      {"shared", ".shared .align 16 .b8 win[256];", "mov.u64 %rd4, win;", ".shared", 256, true},
      {"shared_generic", ".shared .align 16 .b8 win[256];", "cvta.shared.u64 %rd4, win;", "", 256, true},
      {"local", ".local .align 16 .b8 win[256];", "mov.u64 %rd4, win;", ".local", 256, true},
      {"local_generic", ".local .align 16 .b8 win[256];", "cvta.local.u64 %rd4, win;", "", 256, true},
      {"global", "", "ld.param.u64 %rd4, [buf];", ".global", kWindow, true},
      {"global_generic", "", "ld.param.u64 %rd4, [buf];", "", kWindow, true},
      // The kernel's parameters: off0, off1, buf, res.
      {"param", "", "mov.u64 %rd4, off0;", ".param", 32, false},
      {"const", "", "mov.u64 %rd4, cwin;", ".const", kWindow, false},
  };
}

/// A kernel in which lane 0 accesses base + off0 and the other lanes base +
/// off1: a load (its value goes to res[tid]) or a store, of `bits` bits.
std::string kernel(const Space &s, bool store, unsigned bits) {
  const std::string access = store ? "st" + s.space + ".u" + std::to_string(bits) + " [%rd5], %rd6;"
                                   : "ld" + s.space + ".u" + std::to_string(bits) + " %rd6, [%rd5];";
  const std::string reg = bits == 64 ? "%rd6" : "%r6";
  std::string body = R"(
.const .align 16 .b8 cwin[260] = {1, 2, 3, 4};
.visible .entry k(.param .u64 off0, .param .u64 off1, .param .u64 buf, .param .u64 res)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  DECL
  ld.param.u64 %rd1, [off0];
  ld.param.u64 %rd2, [off1];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  selp.b64 %rd3, %rd1, %rd2, %p1;
  BASE
  add.u64 %rd5, %rd4, %rd3;
  mov.u64 %rd6, 7;
  mov.u32 %r6, 7;
  ACCESS
  ld.param.u64 %rd7, [res];
  mul.wide.u32 %rd8, %r1, 8;
  add.u64 %rd9, %rd7, %rd8;
  st.global.u64 [%rd9], %rd6;
  ret;
}
)";
  auto replace = [&](const std::string &key, const std::string &with) {
    body.replace(body.find(key), key.size(), with);
  };
  replace("DECL", s.decl);
  replace("BASE", s.base);
  std::string a = access;
  if (bits == 32) a.replace(a.find("%rd6"), 4, reg);
  replace("ACCESS", a);
  return ptxModule(body);
}

struct Edge {
  const char *name;
  uint64_t offset; // from the window's base (wraps for "below")
  unsigned bits;
  bool inside;
  const char *where; // expected in the report's "nearest", or ""
};

std::vector<Edge> edges(uint64_t window) {
  return {
      {"last_u32", window - 4, 32, true, ""},
      {"last_u64", window - 8 - (window % 8), 64, true, ""},
      {"one_past_end", window, 32, false, "0 bytes past its end"},
      {"straddling_end", window - (window % 8 ? window % 8 : 8) + (window % 8 ? 0 : 4), 64, false, ""},
      {"window_minus_1", window - 1, 32, false, ""},
      {"below_by_4", uint64_t{0} - 4, 32, false, "4 bytes before"},
      {"below_by_8", uint64_t{0} - 8, 64, false, "8 bytes before"},
      {"minus_2_pow_32", uint64_t{0} - (uint64_t{1} << 32), 32, false, ""},
      {"two_pow_63", uint64_t{1} << 63, 64, false, ""},
      {"two_pow_64_minus_1", ~uint64_t{0}, 32, false, ""},
  };
}

struct BoundsCase {
  Space space;
  Edge edge;
  bool store;
  bool mixedLanes;
};

void PrintTo(const BoundsCase &c, std::ostream *os) {
  *os << c.space.name << " " << c.edge.name << (c.store ? " store" : " load")
      << (c.mixedLanes ? " mixed" : "");
}

std::string caseName(const testing::TestParamInfo<BoundsCase> &info) {
  const BoundsCase &c = info.param;
  return std::string(c.space.name) + "_" + c.edge.name + (c.store ? "_store" : "_load") +
         (c.mixedLanes ? "_mixed" : "_uniform");
}

std::vector<BoundsCase> allCases() {
  std::vector<BoundsCase> out;
  for (const Space &s : spaces())
    for (const Edge &e : edges(s.window))
      for (bool store : {false, true}) {
        if (store && !s.writable) continue;
        for (bool mixed : {false, true}) out.push_back({s, e, store, mixed});
      }
  return out;
}

class Bounds : public testing::TestWithParam<BoundsCase> {};

TEST_P(Bounds, EdgeOfTheWindow) {
  const BoundsCase &c = GetParam();
  const uint64_t valid = 0;
  const uint64_t off0 = c.mixedLanes ? valid : c.edge.offset;
  // The global window is a 260-byte buffer; the results go elsewhere.
  EmuRun r =
      runKernel(kernel(c.space, c.store, c.edge.bits), "k", {1}, {32},
                {Arg::scalar<uint64_t>(off0), Arg::scalar<uint64_t>(c.edge.offset),
                 Arg::array(std::vector<uint8_t>(kWindow, 0xAB)), Arg::array(std::vector<uint64_t>(32))});
  ASSERT_TRUE(r.parsed) << r.diags.renderText();
  if (c.edge.inside) {
    EXPECT_TRUE(r.result.ok) << r.diags.renderText();
    return;
  }
  EXPECT_FALSE(r.result.ok) << "an access at offset " << c.edge.offset << " of a " << c.space.window
                            << "-byte window went through";
  const ptx::Diagnostic *d = r.first(DiagKind::OutOfBounds);
  if (!d) d = r.first(DiagKind::MisalignedAccess);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_TRUE(r.result.error == "cudaErrorIllegalAddress" || r.result.error == "cudaErrorMisalignedAddress")
      << r.result.error;
  if (*c.edge.where && d->kind == DiagKind::OutOfBounds) {
    std::string nearest;
    for (auto &[k, v] : d->fields)
      if (k == "nearest") nearest = v;
    // The generic window's edges below the window are plain global addresses.
    if (c.space.space.empty() && c.edge.offset >> 63) return;
    EXPECT_NE(nearest.find(c.edge.where), std::string::npos) << d->renderText();
  }
}

INSTANTIATE_TEST_SUITE_P(EverySpace, Bounds, testing::ValuesIn(allCases()), caseName);

/// The report of an access that straddles the end says by how much, never a
/// number wrapped around 2^64.
TEST(BoundsReport, StraddlingAccessSaysHowFarPastTheEnd) {
  for (const Space &s : spaces()) {
    if (s.window != kWindow) continue;
    SCOPED_TRACE(s.name);
    EmuRun r = runKernel(kernel(s, false, 64), "k", {1}, {32},
                         {Arg::scalar<uint64_t>(256), Arg::scalar<uint64_t>(256),
                          Arg::array(std::vector<uint8_t>(kWindow)), Arg::array(std::vector<uint64_t>(32))});
    const ptx::Diagnostic *d = r.first(DiagKind::OutOfBounds);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    std::string nearest;
    for (auto &[k, v] : d->fields)
      if (k == "nearest") nearest = v;
    EXPECT_NE(nearest.find("straddles its end by 4 bytes"), std::string::npos) << d->renderText();
  }
}

/// A write one element past a buffer whose size is a multiple of 256 bytes
/// lands in the guard gap after it, not in the next allocation.
TEST(BoundsReport, OnePastAnAllocationOf256BytesIsReported) {
  const char *body = R"(
.visible .entry k(.param .u64 a, .param .u64 b)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, 99;
  st.global.u32 [%rd1+256], %r1;
  ret;
}
)";
  EmuRun r = runKernel(ptxModule(body), "k", {1}, {1},
                       {Arg::array(std::vector<uint32_t>(64)), Arg::array(std::vector<uint32_t>(64))});
  EXPECT_FALSE(r.result.ok);
  EXPECT_NE(r.first(DiagKind::OutOfBounds), nullptr) << r.diags.renderText();
  for (uint32_t v : r.buffer<uint32_t>(1)) EXPECT_EQ(v, 0u);
}

/// Vector accesses are aligned to their whole size (PTX ISA): a float4 at a
/// 4-byte offset is misaligned in every space, on the fast and checked paths.
TEST(BoundsReport, VectorAccessesAreAlignedToTheirWholeSize) {
  for (const char *space : {".global", ".shared", ".local", ""}) {
    for (const char *op : {"ld", "st"}) {
      SCOPED_TRACE(std::string(op) + space);
      std::string decl = std::string(space) == ".shared"  ? ".shared .align 16 .b8 win[64];"
                         : std::string(space) == ".local" ? ".local .align 16 .b8 win[64];"
                                                          : "";
      std::string base = decl.empty() ? "ld.param.u64 %rd1, [a];" : "mov.u64 %rd1, win;";
      std::string access = std::string(op) == "ld"
                               ? std::string("ld") + space + ".v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+4];"
                               : std::string("st") + space + ".v4.f32 [%rd1+4], {%f1, %f2, %f3, %f4};";
      std::string body = ".visible .entry k(.param .u64 a)\n{\n  .reg .f32 %f<5>;\n  .reg .b64 %rd<2>;\n  " +
                         decl + "\n  " + base +
                         "\n  mov.f32 %f1, 0f3F800000;\n  mov.f32 %f2, %f1;\n  mov.f32 %f3, %f1;\n" +
                         "  mov.f32 %f4, %f1;\n  " + access + "\n  ret;\n}\n";
      EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {Arg::array(std::vector<float>(64))});
      EXPECT_FALSE(r.result.ok) << body;
      EXPECT_NE(r.first(DiagKind::MisalignedAccess), nullptr) << r.diags.renderText();
      EXPECT_EQ(r.result.error, "cudaErrorMisalignedAddress");
    }
  }
}

/// A call through a pointer that is no function's address is a fault with
/// the error the H100 gives (tests/gpu/cases/fault_call_*), never
/// "unsupported".
TEST(BoundsReport, CallsThroughNullOrGarbagePointersFault) {
  const char *body = R"(
.func (.param .b32 r) f(.param .b32 x)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [x];
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 fp)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [fp];
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  {
    .param .b32 a;
    .param .b32 b;
    st.param.b32 [a], 1;
    call (b), %rd1, (a), proto;
    ld.param.b32 %r1, [b];
  }
  ret;
}
)";
  for (uint64_t fp : {uint64_t{0}, uint64_t{0x1234560}, ~uint64_t{0}}) {
    SCOPED_TRACE(fp);
    EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {Arg::scalar<uint64_t>(fp)});
    EXPECT_FALSE(r.result.ok);
    const ptx::Diagnostic *d = r.first(DiagKind::IllegalInstruction);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    EXPECT_EQ(r.result.error, fp == 0 ? "cudaErrorIllegalInstruction" : "cudaErrorIllegalAddress");
  }
}

} // namespace
