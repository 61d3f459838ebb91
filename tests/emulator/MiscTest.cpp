// The emulator's predicate logic, bit-field and byte operations, 24-bit
// multiplies, sad, no-op instructions and traps (emulator/semantics/Misc.cpp),
// each against a host reference written from the PTX ISA pseudocode, over
// random inputs with a fixed seed plus edge values. The references were also
// checked against an H100 (sm_90, driver 580, CUDA 13.0 JIT): every form below
// gave the same bits there.
#include "tests/emulator/Harness.h"
#include "tests/emulator/TableSamples.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace ptxvm::test;
using ptx::DiagKind;

namespace {

constexpr unsigned kThreads = 256;

/// Per-thread inputs a, b, c: edge values first, then random ones.
struct Inputs {
  std::vector<uint32_t> a, b, c;
};

Inputs makeInputs(uint64_t seed) {
  static const uint32_t edges[] = {0,          1,          2,          7,          8,          15,
                                   16,         23,         24,         31,         32,         33,
                                   63,         64,         65,         127,        128,        255,
                                   256,        257,        0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE,
                                   0x00FFFFFF, 0x00800000, 0xFF800000, 0x01000000, 0x12345678, 0x9ABCDEF0};
  Inputs in;
  std::mt19937_64 rng(seed);
  const size_t ne = std::size(edges);
  for (unsigned t = 0; t < kThreads; ++t) {
    if (t < ne * ne && t / ne < ne) {
      // Pairs of edge values for a/b/c (c cycles through them too).
      in.a.push_back(edges[t % ne]);
      in.b.push_back(edges[(t / ne) % ne]);
      in.c.push_back(edges[(t * 7 + 3) % ne]);
    } else {
      in.a.push_back(static_cast<uint32_t>(rng()));
      in.b.push_back(static_cast<uint32_t>(rng()));
      in.c.push_back(static_cast<uint32_t>(rng()));
    }
  }
  return in;
}

/// Runs `snippet` in one CTA of kThreads threads. Registers: %a %b %c (the
/// inputs), %A = {b, a}, %B = {a, c} (64-bit), %t = tid; scratch %u %w %v
/// (.b32), %D %E (.b64), %p %q %r (.pred). The snippet leaves its result in
/// %D, or in %v when it never names %D.
std::vector<uint64_t> run(const std::string &snippet, const Inputs &in, const std::string &target = "sm_90",
                          const std::string &version = "8.3") {
  std::string body = R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout)
{
  .reg .b32 %a, %b, %c, %t, %u, %v, %w;
  .reg .b64 %A, %B, %D, %E, %rd<8>;
  .reg .pred %p, %q, %r;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pout];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %rd5, %t, 4;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.u32 %a, [%rd6];
  add.u64 %rd6, %rd2, %rd5;
  ld.global.u32 %b, [%rd6];
  add.u64 %rd6, %rd3, %rd5;
  ld.global.u32 %c, [%rd6];
  cvt.u64.u32 %A, %b;
  shl.b64 %A, %A, 32;
  cvt.u64.u32 %E, %a;
  or.b64 %A, %A, %E;
  cvt.u64.u32 %B, %a;
  shl.b64 %B, %B, 32;
  cvt.u64.u32 %E, %c;
  or.b64 %B, %B, %E;
  mov.b64 %D, 0;
  mov.b32 %v, 0;
)" + snippet + (snippet.find("%D") == std::string::npos ? "\n  cvt.u64.u32 %D, %v;\n" : "\n") +
                     R"(
  mul.wide.u32 %rd5, %t, 8;
  add.u64 %rd7, %rd4, %rd5;
  st.global.u64 [%rd7], %D;
  ret;
}
)";
  EmuRun r = runKernel(
      ptxModule(body, target, version), "k", {1}, {kThreads},
      {Arg::array(in.a), Arg::array(in.b), Arg::array(in.c), Arg::array(std::vector<uint64_t>(kThreads))});
  EXPECT_TRUE(r.result.ok) << snippet << "\n" << r.diags.renderText();
  return r.result.ok ? r.buffer<uint64_t>(3) : std::vector<uint64_t>(kThreads, ~0ull);
}

using Ref = std::function<uint64_t(uint32_t a, uint32_t b, uint32_t c)>;

/// Runs the snippet and compares every thread with `ref`; returns how many
/// threads matched.
unsigned check(const std::string &snippet, const Ref &ref, uint64_t seed = 1) {
  Inputs in = makeInputs(seed);
  std::vector<uint64_t> out = run(snippet, in);
  unsigned ok = 0, reported = 0;
  for (unsigned t = 0; t < kThreads; ++t) {
    uint64_t want = ref(in.a[t], in.b[t], in.c[t]);
    if (out[t] == want)
      ++ok;
    else if (reported++ < 3)
      ADD_FAILURE() << snippet << "\n  thread " << t << std::hex << " a=0x" << in.a[t] << " b=0x" << in.b[t]
                    << " c=0x" << in.c[t] << ": got 0x" << out[t] << ", want 0x" << want;
  }
  return ok;
}

uint64_t A64(uint32_t a, uint32_t b) { return uint64_t{b} << 32 | a; }
uint64_t B64(uint32_t a, uint32_t c) { return uint64_t{a} << 32 | c; }

// ---- References, written from the ISA pseudocode (bit loops, no tricks) ----

uint64_t refBfe(uint64_t a, uint64_t pos, uint64_t len, unsigned width, bool isSigned) {
  unsigned msb = width - 1;
  uint64_t sbit = (!isSigned || len == 0) ? 0 : (a >> std::min<uint64_t>(pos + len - 1, msb)) & 1;
  uint64_t d = 0;
  for (unsigned i = 0; i <= msb; ++i) {
    uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return d;
}

uint64_t refBfi(uint64_t a, uint64_t b, uint64_t pos, uint64_t len, unsigned width) {
  uint64_t f = b;
  for (uint64_t i = 0; i < len && pos + i <= width - 1; ++i)
    f = (f & ~(uint64_t{1} << (pos + i))) | (((a >> i) & 1) << (pos + i));
  return f;
}

uint32_t refPrmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
  // The ISA's table, rows d.b3 d.b2 d.b1 d.b0 per selector value.
  static const int table[6][4][4] = {
      {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}, // f4e
      {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}, // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
      {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}, // ecl
      {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}, // ecr
      {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}, // rc16
  };
  uint8_t bytes[8];
  for (int i = 0; i < 4; ++i)
    bytes[i] = static_cast<uint8_t>(a >> (8 * i)), bytes[4 + i] = static_cast<uint8_t>(b >> (8 * i));
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t byte;
    if (mode < 0) {
      unsigned sel = (c >> (4 * i)) & 0xF;
      byte = bytes[sel & 7];
      if (sel & 8) byte = (byte & 0x80) ? 0xFF : 0x00;
    } else {
      byte = bytes[table[mode][c & 3][3 - i]];
    }
    d |= byte << (8 * i);
  }
  return d;
}

uint32_t refLop3(uint32_t a, uint32_t b, uint32_t c, unsigned lut) {
  uint32_t d = 0;
  for (unsigned i = 0; i < 32; ++i) {
    unsigned idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1);
    d |= ((lut >> idx) & 1u) << i;
  }
  return d;
}

uint32_t refBfind(uint64_t a, unsigned width, bool isSigned, bool shiftamt) {
  unsigned msb = width - 1;
  if (width == 32) a &= 0xFFFFFFFFu;
  if (isSigned && (a >> msb & 1)) a = ~a & (width == 32 ? 0xFFFFFFFFull : ~0ull);
  uint32_t d = 0xFFFFFFFFu;
  for (int i = static_cast<int>(msb); i >= 0; --i)
    if (a >> i & 1) {
      d = static_cast<uint32_t>(i);
      break;
    }
  if (shiftamt && d != 0xFFFFFFFFu) d = msb - d;
  return d;
}

uint32_t refFns(uint32_t mask, uint32_t base, int32_t offset) {
  uint32_t d = 0xFFFFFFFFu;
  if (offset == 0) return (mask >> base & 1) ? base : d;
  int pos = static_cast<int>(base), inc = offset > 0 ? 1 : -1;
  int64_t count = std::abs(int64_t{offset}) - 1;
  while (pos >= 0 && pos < 32) {
    if (mask >> pos & 1) {
      if (count == 0) return static_cast<uint32_t>(pos);
      --count;
    }
    pos += inc;
  }
  return d;
}

int64_t low24(uint32_t v, bool isSigned) {
  return isSigned ? static_cast<int64_t>(static_cast<int32_t>(v << 8) >> 8)
                  : static_cast<int64_t>(v & 0xFFFFFF);
}

// ---- Predicate logic ----

TEST(EmuMisc, PredicateLogic) {
  const char *setup =
      "  and.b32 %u, %a, 1;\n  setp.ne.u32 %p, %u, 0;\n  and.b32 %u, %b, 1;\n  setp.ne.u32 %q, %u, 0;\n";
  auto bits = [](uint32_t a, uint32_t b) { return std::pair<bool, bool>{(a & 1) != 0, (b & 1) != 0}; };
  struct Case {
    const char *op;
    std::function<bool(bool, bool)> f;
  } cases[] = {
      {"and.pred %r, %p, %q;", [](bool p, bool q) { return p && q; }},
      {"or.pred %r, %p, %q;", [](bool p, bool q) { return p || q; }},
      {"xor.pred %r, %p, %q;", [](bool p, bool q) { return p != q; }},
      {"not.pred %r, %p;", [](bool p, bool) { return !p; }},
      {"and.pred %r, %p, %p;\n  xor.pred %r, %r, %q;", [](bool p, bool q) { return p != q; }},
  };
  for (const Case &k : cases) {
    std::string s = std::string(setup) + "  " + k.op + "\n  selp.u32 %v, 1, 0, %r;";
    EXPECT_EQ(check(s,
                    [&](uint32_t a, uint32_t b, uint32_t) {
                      auto [p, q] = bits(a, b);
                      return uint64_t{k.f(p, q)};
                    }),
              kThreads);
  }
  // Registers hold 0/1: the result used as a guard.
  EXPECT_EQ(check(std::string(setup) + "  xor.pred %r, %p, %q;\n  @%r mov.u32 %v, 7;",
                  [&](uint32_t a, uint32_t b, uint32_t) {
                    auto [p, q] = bits(a, b);
                    return uint64_t{p != q ? 7u : 0u};
                  }),
            kThreads);
}

// The test above runs Misc.cpp's predicate handlers: no other group
// registers and/or/xor/not on .pred.
TEST(EmuMisc, PredicateLogicRunsMiscHandlers) {
  for (const char *line :
       {"and.pred %p1, %p2, %p3", "or.pred %p1, %p2, %p3", "xor.pred %p1, %p2, %p3", "not.pred %p1, %p2"})
    EXPECT_EQ(handlerGroup(line), "Misc") << line;
}

// ---- Bit fields ----

TEST(EmuMisc, BfeAllTypes) {
  // pos and len straight from the inputs: the 32-bit forms use their low
  // 8 bits, the 64-bit forms all 32 (as measured on H100).
  EXPECT_EQ(check("bfe.u32 %v, %a, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(a, b & 255, c & 255, 32, false); }),
            kThreads);
  EXPECT_EQ(check("bfe.s32 %v, %a, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(a, b & 255, c & 255, 32, true); }),
            kThreads);
  EXPECT_EQ(check("bfe.u64 %D, %A, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(A64(a, b), b, c, 64, false); }),
            kThreads);
  EXPECT_EQ(check("bfe.s64 %D, %A, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(A64(a, b), b, c, 64, true); }),
            kThreads);
  // Small positions and lengths: every pos+len >= width case near the top.
  const char *small = "  and.b32 %u, %b, 127;\n  and.b32 %w, %c, 127;\n";
  EXPECT_EQ(check(std::string(small) + "  bfe.s32 %v, %a, %u, %w;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(a, b & 127, c & 127, 32, true); }),
            kThreads);
  EXPECT_EQ(check(std::string(small) + "  bfe.u32 %v, %a, %u, %w;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(a, b & 127, c & 127, 32, false); }),
            kThreads);
  EXPECT_EQ(
      check(std::string(small) + "  bfe.s64 %D, %A, %u, %w;",
            [](uint32_t a, uint32_t b, uint32_t c) { return refBfe(A64(a, b), b & 127, c & 127, 64, true); }),
      kThreads);
  EXPECT_EQ(check(std::string(small) + "  bfe.u64 %D, %A, %u, %w;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    return refBfe(A64(a, b), b & 127, c & 127, 64, false);
                  }),
            kThreads);
}

TEST(EmuMisc, BfeEdgeValues) {
  struct E {
    uint32_t a, pos, len, want;
    bool isSigned;
  } cases[] = {
      {0x80000000u, 31, 1, 0xFFFFFFFFu, true}, {0x80000000u, 31, 1, 1, false},
      {0xF0u, 4, 4, 0xFFFFFFFFu, true},        {0xF0u, 4, 0, 0, true},
      {0x80000000u, 40, 5, 0xFFFFFFFFu, true}, // pos beyond msb: sign of a[31]
      {0x7FFFFFFFu, 40, 5, 0, true},           {0xABCD1234u, 16, 200, 0xFFFFABCDu, true}, // pos+len >= 32
      {0xABCD1234u, 16, 200, 0xABCDu, false},  {0xABCD1234u, 0x110, 8, 0xCDu, false}, // pos uses 8 bits: 0x10
  };
  for (const E &e : cases) {
    std::string s = "  mov.u32 %u, " + std::to_string(e.a) + ";\n  bfe." + (e.isSigned ? "s32" : "u32") +
                    " %v, %u, " + std::to_string(e.pos) + ", " + std::to_string(e.len) + ";";
    EXPECT_EQ(check(s, [&](uint32_t, uint32_t, uint32_t) { return uint64_t{e.want}; }), kThreads) << s;
  }
}

TEST(EmuMisc, Bfi) {
  EXPECT_EQ(
      check("shr.u32 %u, %c, 8;\n  bfi.b32 %v, %a, %b, %c, %u;",
            [](uint32_t a, uint32_t b, uint32_t c) { return refBfi(a, b, c & 255, (c >> 8) & 255, 32); }),
      kThreads);
  EXPECT_EQ(
      check("and.b32 %u, %c, 63;\n  shr.u32 %w, %c, 8;\n  and.b32 %w, %w, 63;\n  bfi.b32 %v, %a, %b, %u, %w;",
            [](uint32_t a, uint32_t b, uint32_t c) { return refBfi(a, b, c & 63, (c >> 8) & 63, 32); }),
      kThreads);
  EXPECT_EQ(
      check(
          "and.b32 %u, %c, 127;\n  shr.u32 %w, %c, 8;\n  and.b32 %w, %w, 127;\n  bfi.b64 %D, %A, %B, %u, %w;",
          [](uint32_t a, uint32_t b, uint32_t c) {
            return refBfi(A64(a, b), B64(a, c), c & 127, (c >> 8) & 127, 64);
          }),
      kThreads);
  EXPECT_EQ(
      check("shr.u32 %u, %c, 8;\n  bfi.b64 %D, %A, %B, %c, %u;",
            [](uint32_t a, uint32_t b, uint32_t c) { return refBfi(A64(a, b), B64(a, c), c, c >> 8, 64); }),
      kThreads);
}

TEST(EmuMisc, PrmtEveryMode) {
  EXPECT_EQ(check("prmt.b32 %v, %a, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) { return refPrmt(a, b, c, -1); }),
            kThreads);
  const char *modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  for (int m = 0; m < 6; ++m)
    EXPECT_EQ(check(std::string("prmt.b32.") + modes[m] + " %v, %a, %b, %c;",
                    [&](uint32_t a, uint32_t b, uint32_t c) { return refPrmt(a, b, c, m); }),
              kThreads)
        << modes[m];
  // Known values: byte swap, sign replication.
  EXPECT_EQ(check("prmt.b32 %v, 0x11223344, 0, 0x3210;",
                  [](uint32_t, uint32_t, uint32_t) { return uint64_t{0x11223344}; }),
            kThreads);
  EXPECT_EQ(check("prmt.b32 %v, 0x11223344, 0, 0x0123;",
                  [](uint32_t, uint32_t, uint32_t) { return uint64_t{0x44332211}; }),
            kThreads);
  EXPECT_EQ(check("prmt.b32 %v, 0x80, 0, 0x8880;",
                  [](uint32_t, uint32_t, uint32_t) { return uint64_t{0xFFFFFF80}; }),
            kThreads);
}

TEST(EmuMisc, Lop3Luts) {
  for (unsigned lut :
       {0x00u, 0xFFu, 0x96u, 0xE8u, 0x1Au, 0x80u, 0xFEu, 0x40u, 0xCAu, 0x3Cu, 0xF0u, 0xCCu, 0xAAu, 0x01u})
    EXPECT_EQ(check("lop3.b32 %v, %a, %b, %c, " + std::to_string(lut) + ";",
                    [&](uint32_t a, uint32_t b, uint32_t c) { return uint64_t{refLop3(a, b, c, lut)}; }),
              kThreads)
        << lut;
  // lop3.or / lop3.and with a predicate result: p = (d != 0) op q.
  EXPECT_EQ(check("and.b32 %u, %c, 0x10000;\n  setp.ne.u32 %q, %u, 0;\n"
                  "  lop3.or.b32 %v|%p, %a, %b, %c, 0x3f, !%q;\n  selp.u32 %u, 1, 0, %p;\n  mad.lo.u32 %v, "
                  "%v, 2, %u;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    uint32_t d = refLop3(a, b, c, 0x3f);
                    bool p = d != 0 || !(c & 0x10000);
                    return uint64_t{static_cast<uint32_t>(d * 2 + p)};
                  }),
            kThreads);
  EXPECT_EQ(check("and.b32 %u, %c, 0x10000;\n  setp.ne.u32 %q, %u, 0;\n"
                  "  lop3.and.b32 _|%p, %a, %b, %u, 0x88, %q;\n  selp.u32 %v, 1, 0, %p;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    uint32_t d = refLop3(a, b, c & 0x10000, 0x88);
                    return uint64_t{d != 0 && (c & 0x10000)};
                  }),
            kThreads);
}

TEST(EmuMisc, ShfClampAndWrap) {
  for (bool left : {true, false})
    for (bool clamp : {true, false}) {
      std::string s = std::string("and.b32 %u, %c, 63;\n  shf.") + (left ? "l" : "r") +
                      (clamp ? ".clamp" : ".wrap") + ".b32 %v, %a, %b, %u;";
      EXPECT_EQ(check(s,
                      [&](uint32_t a, uint32_t b, uint32_t c) {
                        uint32_t n = clamp ? std::min<uint32_t>(c & 63, 32) : (c & 63) & 31;
                        uint64_t v = uint64_t{b} << 32 | a;
                        return uint64_t{left ? static_cast<uint32_t>((v << n) >> 32)
                                             : static_cast<uint32_t>(v >> n)};
                      }),
                kThreads)
          << s;
    }
  // Unmasked amounts (clamp saturates at 32, wrap takes the low 5 bits).
  EXPECT_EQ(check("shf.r.clamp.b32 %v, %a, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    return uint64_t{
                        static_cast<uint32_t>((uint64_t{b} << 32 | a) >> std::min<uint32_t>(c, 32))};
                  }),
            kThreads);
}

TEST(EmuMisc, BfindAndShiftamt) {
  for (bool shiftamt : {false, true}) {
    std::string s = shiftamt ? "bfind.shiftamt." : "bfind.";
    // Shift to get every magnitude, including 0 and -1.
    EXPECT_EQ(check("and.b32 %u, %c, 31;\n  shr.s32 %w, %a, %u;\n  " + s + "u32 %v, %w;",
                    [&](uint32_t a, uint32_t, uint32_t c) {
                      return uint64_t{refBfind(static_cast<uint32_t>(static_cast<int32_t>(a) >> (c & 31)), 32,
                                               false, shiftamt)};
                    }),
              kThreads);
    EXPECT_EQ(check("and.b32 %u, %c, 31;\n  shr.s32 %w, %a, %u;\n  " + s + "s32 %v, %w;",
                    [&](uint32_t a, uint32_t, uint32_t c) {
                      return uint64_t{refBfind(static_cast<uint32_t>(static_cast<int32_t>(a) >> (c & 31)), 32,
                                               true, shiftamt)};
                    }),
              kThreads);
    EXPECT_EQ(check("and.b32 %u, %c, 63;\n  shr.s64 %E, %A, %u;\n  " + s + "u64 %v, %E;",
                    [&](uint32_t a, uint32_t b, uint32_t c) {
                      return uint64_t{
                          refBfind(static_cast<uint64_t>(static_cast<int64_t>(A64(a, b)) >> (c & 63)), 64,
                                   false, shiftamt)};
                    }),
              kThreads);
    EXPECT_EQ(check("and.b32 %u, %c, 63;\n  shr.s64 %E, %A, %u;\n  " + s + "s64 %v, %E;",
                    [&](uint32_t a, uint32_t b, uint32_t c) {
                      return uint64_t{
                          refBfind(static_cast<uint64_t>(static_cast<int64_t>(A64(a, b)) >> (c & 63)), 64,
                                   true, shiftamt)};
                    }),
              kThreads);
  }
  EXPECT_EQ(check("bfind.u32 %v, 0;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{0xFFFFFFFFu}; }),
            kThreads);
  EXPECT_EQ(check("bfind.s32 %v, -1;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{0xFFFFFFFFu}; }),
            kThreads);
  EXPECT_EQ(
      check("bfind.shiftamt.s32 %v, -1;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{0xFFFFFFFFu}; }),
      kThreads);
  EXPECT_EQ(check("bfind.s32 %v, 0x80000000;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{30}; }),
            kThreads);
}

TEST(EmuMisc, Fns) {
  EXPECT_EQ(
      check("and.b32 %u, %c, 31;\n  and.b32 %w, %b, 63;\n  sub.s32 %w, %w, 32;\n  fns.b32 %v, %a, %u, %w;",
            [](uint32_t a, uint32_t b, uint32_t c) {
              return uint64_t{refFns(a, c & 31, static_cast<int32_t>(b & 63) - 32)};
            }),
      kThreads);
  // The ISA's examples.
  EXPECT_EQ(check("fns.b32 %v, 0xaaaaaaaa, 3, 1;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{3}; }),
            kThreads);
  EXPECT_EQ(check("fns.b32 %v, 0xaaaaaaaa, 3, -1;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{3}; }),
            kThreads);
  EXPECT_EQ(check("fns.b32 %v, 0xaaaaaaaa, 2, 1;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{3}; }),
            kThreads);
  EXPECT_EQ(check("fns.b32 %v, 0xaaaaaaaa, 2, -1;", [](uint32_t, uint32_t, uint32_t) { return uint64_t{1}; }),
            kThreads);
  EXPECT_EQ(check("fns.b32 %v, 0xaaaaaaaa, 2, 0;",
                  [](uint32_t, uint32_t, uint32_t) { return uint64_t{0xFFFFFFFFu}; }),
            kThreads);
}

TEST(EmuMisc, Mul24AndMad24) {
  for (bool isSigned : {false, true}) {
    std::string t = isSigned ? "s32" : "u32";
    auto prod = [=](uint32_t a, uint32_t b) { return low24(a, isSigned) * low24(b, isSigned); };
    EXPECT_EQ(
        check("mul24.lo." + t + " %v, %a, %b;",
              [&](uint32_t a, uint32_t b, uint32_t) { return uint64_t{static_cast<uint32_t>(prod(a, b))}; }),
        kThreads)
        << t;
    EXPECT_EQ(check("mul24.hi." + t + " %v, %a, %b;",
                    [&](uint32_t a, uint32_t b, uint32_t) {
                      return uint64_t{static_cast<uint32_t>(prod(a, b) >> 16)};
                    }),
              kThreads)
        << t;
    EXPECT_EQ(check("mad24.lo." + t + " %v, %a, %b, %c;",
                    [&](uint32_t a, uint32_t b, uint32_t c) {
                      return uint64_t{static_cast<uint32_t>(prod(a, b)) + c};
                    }),
              kThreads)
        << t;
    EXPECT_EQ(check("mad24.hi." + t + " %v, %a, %b, %c;",
                    [&](uint32_t a, uint32_t b, uint32_t c) {
                      return uint64_t{static_cast<uint32_t>(static_cast<uint32_t>(prod(a, b) >> 16) + c)};
                    }),
              kThreads)
        << t;
  }
  auto sat = [](uint32_t a, uint32_t b, uint32_t c) {
    int64_t hi = static_cast<int32_t>(static_cast<uint32_t>((low24(a, true) * low24(b, true)) >> 16));
    int64_t s = std::clamp<int64_t>(hi + static_cast<int32_t>(c), INT32_MIN, INT32_MAX);
    return uint64_t{static_cast<uint32_t>(s)};
  };
  EXPECT_EQ(check("mad24.hi.sat.s32 %v, %a, %b, %c;", sat), kThreads);
  EXPECT_EQ(check("mad24.hi.sat.s32 %v, 0x7fffff, 0x7fffff, 0x7fffffff;",
                  [&](uint32_t, uint32_t, uint32_t) { return sat(0x7fffff, 0x7fffff, 0x7fffffff); }),
            kThreads);
  EXPECT_EQ(sat(0x7fffff, 0x7fffff, 0x7fffffff), 0x7FFFFFFFu);
}

TEST(EmuMisc, Sad) {
  EXPECT_EQ(check("sad.u32 %v, %a, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    return uint64_t{static_cast<uint32_t>(c + (a < b ? b - a : a - b))};
                  }),
            kThreads);
  EXPECT_EQ(check("sad.s32 %v, %a, %b, %c;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    int32_t x = static_cast<int32_t>(a), y = static_cast<int32_t>(b);
                    return uint64_t{static_cast<uint32_t>(c + (x < y ? b - a : a - b))};
                  }),
            kThreads);
  EXPECT_EQ(check("sad.u64 %D, %A, %B, %A;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    uint64_t x = A64(a, b), y = B64(a, c);
                    return x + (x < y ? y - x : x - y);
                  }),
            kThreads);
  EXPECT_EQ(check("sad.s64 %D, %A, %B, %A;",
                  [](uint32_t a, uint32_t b, uint32_t c) {
                    uint64_t x = A64(a, b), y = B64(a, c);
                    return x + (static_cast<int64_t>(x) < static_cast<int64_t>(y) ? y - x : x - y);
                  }),
            kThreads);
}

// ---- No-ops, traps, unsupported forms ----

TEST(EmuMisc, NoOpInstructionsRun) {
  const char *s = R"(
  membar.cta;
  membar.gl;
  membar.sys;
  fence.sc.cta;
  fence.acq_rel.gpu;
  fence.sc.sys;
  fence.proxy.alias;
  fence.proxy.async;
  nanosleep.u32 100;
  prefetch.global.L2 [%rd1];
  prefetch.L1 [%rd1];
  prefetchu.L1 [%rd1];
  applypriority.global.L2::evict_normal [%rd1], 128;
  pmevent 1;
  griddepcontrol.launch_dependents;
  griddepcontrol.wait;
  add.u32 %v, %a, 5;)";
  EXPECT_EQ(check(s, [](uint32_t a, uint32_t, uint32_t) { return uint64_t{a + 5}; }), kThreads);
}

TEST(EmuMisc, TrapAndBrkptReportTrap) {
  for (const char *op : {"trap;", "brkpt;"}) {
    std::string body = std::string(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p, %r1, 5;
  @%p )") + op + R"(
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
    EmuRun r = runKernel(ptxModule(body), "k", {1}, {32}, {Arg::array(std::vector<uint32_t>(1))});
    EXPECT_FALSE(r.result.ok) << op;
    const ptx::Diagnostic *d = r.first(DiagKind::Trap);
    ASSERT_NE(d, nullptr) << op << r.diags.renderText();
    EXPECT_EQ(d->severity, ptx::Severity::Error);
    bool lane5 = false;
    for (auto &[k, v] : d->fields)
      if (k == "lanes") lane5 = v == "5";
    EXPECT_TRUE(lane5) << r.diags.renderText();
  }
  // A trap no lane executes does nothing.
  EmuRun ok = runKernel(ptxModule(R"(
.visible .entry k()
{
  .reg .pred %p;
  .reg .b32 %r1;
  mov.u32 %r1, %tid.x;
  setp.gt.u32 %p, %r1, 100;
  @%p trap;
  ret;
}
)"),
                        "k", {1}, {32}, {});
  EXPECT_TRUE(ok.result.ok) << ok.diags.renderText();
}

// Carry chains: a 96-bit addition and subtraction through add.cc/addc/
// sub.cc/subc, and mad.lo.cc/madc.hi accumulating a 64-bit product, against
// 128-bit host arithmetic.
TEST(EmuMisc, CarryChainsMatchWideHostArithmetic) {
  const char *body = R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 24;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.v2.u32 {%r2, %r3}, [%rd4];
  ld.global.v2.u32 {%r4, %r5}, [%rd4+8];
  ld.global.v2.u32 {%r6, %r7}, [%rd4+16];
  add.cc.u32 %r8, %r2, %r5;
  addc.cc.u32 %r9, %r3, %r6;
  addc.u32 %r10, %r4, %r7;
  sub.cc.u32 %r11, %r2, %r5;
  subc.cc.u32 %r12, %r3, %r6;
  subc.u32 %r13, %r4, %r7;
  mad.lo.cc.u32 %r14, %r2, %r3, %r4;
  madc.hi.u32 %r15, %r2, %r3, %r5;
  mul.wide.u32 %rd3, %r1, 32;
  add.u64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%rd5+16], {%r12, %r13, %r14, %r15};
  ret;
}
)";
  std::vector<uint32_t> in(32 * 6);
  uint64_t seed = 99;
  for (uint32_t &v : in) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<uint32_t>(seed >> 32);
  }
  for (int i = 0; i < 6; ++i) in[i] = 0xFFFFFFFFu; // carries all the way through
  EmuRun r =
      runKernel(ptxModule(body), "k", {1}, {32}, {Arg::array(in), Arg::array(std::vector<uint32_t>(32 * 8))});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  auto out = r.buffer<uint32_t>(1);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t *v = &in[t * 6];
    unsigned __int128 a = (unsigned __int128)v[2] << 64 | (uint64_t)v[1] << 32 | v[0];
    unsigned __int128 b = (unsigned __int128)v[5] << 64 | (uint64_t)v[4] << 32 | v[3];
    unsigned __int128 mask = ((unsigned __int128)1 << 96) - 1;
    unsigned __int128 sum = (a + b) & mask, diff = (a - b) & mask;
    uint64_t product = (uint64_t)v[0] * v[1];
    uint64_t lo = (uint32_t)product + (uint64_t)v[2];
    uint32_t madHi = (uint32_t)((product >> 32) + v[3] + (lo >> 32));
    const uint32_t *o = &out[t * 8];
    EXPECT_EQ(o[0], (uint32_t)sum);
    EXPECT_EQ(o[1], (uint32_t)(sum >> 32));
    EXPECT_EQ(o[2], (uint32_t)(sum >> 64));
    EXPECT_EQ(o[3], (uint32_t)diff);
    EXPECT_EQ(o[4], (uint32_t)(diff >> 32));
    EXPECT_EQ(o[5], (uint32_t)(diff >> 64));
    EXPECT_EQ(o[6], (uint32_t)lo);
    EXPECT_EQ(o[7], madHi) << t;
  }
}

} // namespace

namespace {

// alloca, stacksave and stackrestore: a device function allocates n words
// on its thread's stack (freed when it returns), the kernel allocates in a
// loop between stacksave and stackrestore, so the stack never grows; an
// allocation beyond the stack is reported.
std::string stackKernel() {
  return ptxModule(R"(
.func (.param .u32 r) sum(.param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u32 %r1, [n];
  mul.wide.u32 %rd1, %r1, 4;
  alloca.u64 %rd2, %rd1, 16;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
FILL:
  mul.wide.u32 %rd3, %r2, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.local.u32 [%rd4], %r2;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra FILL;
  mov.u32 %r2, 0;
SUM:
  mul.wide.u32 %rd3, %r2, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.local.u32 %r4, [%rd4];
  add.u32 %r3, %r3, %r4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra SUM;
  st.param.u32 [r], %r3;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  add.u32 %r1, %r1, %r2;
  stacksave.u64 %rd5;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
LOOP:
  alloca.u64 %rd6, 64;
  st.local.u32 [%rd6], %r5;
  ld.local.u32 %r7, [%rd6];
  add.u32 %r6, %r6, %r7;
  stackrestore.u64 %rd5;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, 100;
  @%p1 bra LOOP;
  {
    .param .u32 a;
    .param .u32 r;
    st.param.u32 [a], %r1;
    call.uni (r), sum, (a);
    ld.param.u32 %r3, [r];
  }
  {
    .param .u32 a;
    .param .u32 r;
    st.param.u32 [a], %r1;
    call.uni (r), sum, (a);
    ld.param.u32 %r4, [r];
  }
  add.u32 %r3, %r3, %r4;
  add.u32 %r3, %r3, %r6;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)",
                   "sm_80", "7.3");
}

TEST(Stack, AllocaStacksaveAndStackrestore) {
  EmuRun r = runKernel(stackKernel(), "k", {2}, {32},
                       {Arg::array(std::vector<uint32_t>(32)), Arg::scalar(uint32_t{100})});
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  auto out = r.buffer<uint32_t>(0);
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t n = 100 + t;
    EXPECT_EQ(out[t], 2 * (n * (n - 1) / 2) + 4950) << "thread " << t;
  }
}

TEST(Stack, AnAllocaBeyondTheStackIsReported) {
  // 300 words = 1200 bytes: more than a thread's 1024-byte stack.
  EmuRun r = runKernel(stackKernel(), "k", {1}, {32},
                       {Arg::array(std::vector<uint32_t>(32)), Arg::scalar(uint32_t{300})});
  EXPECT_FALSE(r.result.ok);
  const ptx::Diagnostic *d = r.first(ptx::DiagKind::Trap);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_NE(d->message.find("stack overflow"), std::string::npos) << d->message;
}

} // namespace
