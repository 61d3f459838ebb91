// The emulator's warp-level primitives (emulator/semantics/Warp.cpp): shfl
// (sync and legacy) over segment widths 32/16/8 and arbitrary c values, vote
// with negated predicates, match with duplicates, redux signed vs unsigned,
// activemask, elect and bar.warp.sync, with full and partial member masks,
// each against a host reference written from the PTX ISA pseudocode (random
// inputs with a fixed seed). The shfl/vote/match/redux/elect references were
// also checked against an H100 (sm_90, driver 580, CUDA 13.0 JIT).
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <random>

using namespace ptxvm::test;
using ptx::DiagKind;

namespace {

constexpr unsigned kThreads = 128; // four warps

struct Inputs {
  std::vector<uint32_t> a, b, c;
};

Inputs makeInputs(uint64_t seed) {
  Inputs in;
  std::mt19937_64 rng(seed);
  for (unsigned t = 0; t < kThreads; ++t) {
    in.a.push_back(static_cast<uint32_t>(rng()));
    in.b.push_back(static_cast<uint32_t>(rng()));
    in.c.push_back(static_cast<uint32_t>(rng()));
  }
  // Edge values in warp 3.
  for (unsigned l = 0; l < 8; ++l) in.a[96 + l] = l & 1 ? 0x80000000u : 0x7FFFFFFFu;
  in.a[104] = 0;
  in.a[105] = 0xFFFFFFFFu;
  return in;
}

/// Runs `snippet` in one CTA of `threads` threads. Registers: %a %b %c
/// inputs, %t = tid, %l = laneid; scratch %u %w %v %m (.b32), %D %E (.b64),
/// %p %q %r (.pred). Threads write %D, or %v when %D is never named; a
/// snippet may jump to DONE (the store) to skip work.
EmuRun runRaw(const std::string &snippet, const Inputs &in, unsigned threads = kThreads,
              const std::string &target = "sm_90", const std::string &version = "8.3") {
  std::string body = R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout)
{
  .reg .b32 %a, %b, %c, %t, %l, %u, %v, %w, %m;
  .reg .b64 %D, %E, %rd<8>;
  .reg .pred %p, %q, %r;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pout];
  mov.u32 %t, %tid.x;
  mov.u32 %l, %laneid;
  mul.wide.u32 %rd5, %t, 4;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.u32 %a, [%rd6];
  add.u64 %rd6, %rd2, %rd5;
  ld.global.u32 %b, [%rd6];
  add.u64 %rd6, %rd3, %rd5;
  ld.global.u32 %c, [%rd6];
  mov.b64 %D, 0;
  mov.b32 %v, 0xdeadbeef;
)" + snippet + "\nDONE:" +
                     (snippet.find("%D") == std::string::npos ? "\n  cvt.u64.u32 %D, %v;\n" : "\n") + R"(
  mul.wide.u32 %rd5, %t, 8;
  add.u64 %rd7, %rd4, %rd5;
  st.global.u64 [%rd7], %D;
  ret;
}
)";
  return runKernel(
      ptxModule(body, target, version), "k", {1}, {threads},
      {Arg::array(in.a), Arg::array(in.b), Arg::array(in.c), Arg::array(std::vector<uint64_t>(threads))});
}

using Ref = std::function<uint64_t(unsigned t, const Inputs &in)>;

unsigned check(const std::string &snippet, const Ref &ref, uint64_t seed = 7, unsigned threads = kThreads,
               const std::string &target = "sm_90", const std::string &version = "8.3") {
  Inputs in = makeInputs(seed);
  EmuRun r = runRaw(snippet, in, threads, target, version);
  EXPECT_TRUE(r.result.ok) << snippet << "\n" << r.diags.renderText();
  if (!r.result.ok) return 0;
  std::vector<uint64_t> out = r.buffer<uint64_t>(3);
  unsigned ok = 0, reported = 0;
  for (unsigned t = 0; t < threads; ++t) {
    uint64_t want = ref(t, in);
    if (out[t] == want)
      ++ok;
    else if (reported++ < 3)
      ADD_FAILURE() << snippet << "\n  thread " << t << std::hex << ": got 0x" << out[t] << ", want 0x"
                    << want;
  }
  return ok;
}

// ---- shfl reference: the ISA's pseudocode ----

enum class Mode { Up, Down, Bfly, Idx };

/// (value, p) for lane `t` of its warp; `a` holds every lane's source.
std::pair<uint32_t, bool> refShfl(Mode mode, unsigned t, const std::vector<uint32_t> &a, uint32_t b,
                                  uint32_t c) {
  unsigned lane = t % 32, warp = t / 32 * 32;
  int bval = static_cast<int>(b & 31), cval = static_cast<int>(c & 31), seg = static_cast<int>((c >> 8) & 31);
  int maxLane = (static_cast<int>(lane) & seg) | (cval & ~seg), minLane = static_cast<int>(lane) & seg;
  int j = 0;
  bool p = false;
  switch (mode) {
  case Mode::Up:
    j = static_cast<int>(lane) - bval;
    p = j >= maxLane;
    break;
  case Mode::Down:
    j = static_cast<int>(lane) + bval;
    p = j <= maxLane;
    break;
  case Mode::Bfly:
    j = static_cast<int>(lane) ^ bval;
    p = j <= maxLane;
    break;
  case Mode::Idx:
    j = minLane | (bval & ~seg);
    p = j <= maxLane;
    break;
  }
  if (!p) j = static_cast<int>(lane);
  return {a[warp + static_cast<unsigned>(j)], p};
}

const char *modeName(Mode m) {
  return m == Mode::Up ? "up" : m == Mode::Down ? "down" : m == Mode::Bfly ? "bfly" : "idx";
}

TEST(EmuWarp, ShflSyncWidths) {
  // CUDA's encodings: __shfl_up_sync c = (32-w)<<8; the others ((32-w)<<8)|31.
  for (Mode mode : {Mode::Up, Mode::Down, Mode::Bfly, Mode::Idx})
    for (unsigned width : {32u, 16u, 8u})
      for (uint32_t delta : {0u, 1u, 3u, 5u, 17u}) {
        uint32_t c = ((32 - width) << 8) | (mode == Mode::Up ? 0 : 31);
        std::string s = std::string("  shfl.sync.") + modeName(mode) + ".b32 %v|%p, %a, " +
                        std::to_string(delta) + ", " + std::to_string(c) +
                        ", 0xffffffff;\n  selp.u32 %u, 1, 0, %p;\n  cvt.u64.u32 %D, %v;\n"
                        "  cvt.u64.u32 %E, %u;\n  shl.b64 %E, %E, 32;\n  or.b64 %D, %D, %E;";
        EXPECT_EQ(check(s,
                        [&](unsigned t, const Inputs &in) {
                          auto [v, p] = refShfl(mode, t, in.a, delta, c);
                          return uint64_t{v} | uint64_t{p} << 32;
                        }),
                  kThreads)
            << s;
      }
}

TEST(EmuWarp, ShflSyncArbitraryOperands) {
  // b and c per lane, c with any clamp and segment mask; b above 31 uses b[4:0].
  for (Mode mode : {Mode::Up, Mode::Down, Mode::Bfly, Mode::Idx}) {
    std::string s = std::string("  and.b32 %u, %b, 63;\n  and.b32 %w, %c, 0x1f1f;\n  shfl.sync.") +
                    modeName(mode) +
                    ".b32 %v|%p, %a, %u, %w, -1;\n  selp.u32 %u, 1, 0, %p;\n  cvt.u64.u32 %D, %v;\n"
                    "  cvt.u64.u32 %E, %u;\n  shl.b64 %E, %E, 32;\n  or.b64 %D, %D, %E;";
    EXPECT_EQ(check(s,
                    [&](unsigned t, const Inputs &in) {
                      auto [v, p] = refShfl(mode, t, in.a, in.b[t] & 63, in.c[t] & 0x1f1f);
                      return uint64_t{v} | uint64_t{p} << 32;
                    }),
              kThreads)
        << s;
  }
  // Without the predicate, and with the destination the same register as the source.
  EXPECT_EQ(check("  mov.u32 %v, %a;\n  shfl.sync.bfly.b32 %v, %v, 1, 0x1f, -1;",
                  [](unsigned t, const Inputs &in) { return uint64_t{in.a[t ^ 1]}; }),
            kThreads);
}

TEST(EmuWarp, LegacyShflAndVote) {
  std::string s =
      "  shfl.down.b32 %v|%p, %a, 2, 0x101f;\n  selp.u32 %u, 1, 0, %p;\n  vote.ballot.b32 %w, %p;\n"
      "  vote.all.pred %q, !%p;\n  selp.u32 %m, 1, 0, %q;\n  cvt.u64.u32 %D, %v;\n  cvt.u64.u32 %E, %w;\n"
      "  shl.b64 %E, %E, 32;\n  or.b64 %D, %D, %E;\n  cvt.u64.u32 %E, %m;\n  shl.b64 %E, %E, 31;\n  xor.b64 "
      "%D, %D, %E;";
  EXPECT_EQ(check(
                s,
                [](unsigned t, const Inputs &in) {
                  uint32_t ballot = 0;
                  for (unsigned l = 0; l < 32; ++l)
                    ballot |= uint32_t{refShfl(Mode::Down, t / 32 * 32 + l, in.a, 2, 0x101f).second} << l;
                  uint64_t v = refShfl(Mode::Down, t, in.a, 2, 0x101f).first;
                  return (v | uint64_t{ballot} << 32) ^ (uint64_t{ballot == 0} << 31);
                },
                7, kThreads, "sm_60", "6.0"),
            kThreads);
}

TEST(EmuWarp, ShflPartialMemberMask) {
  // Only lanes 0-15 of each warp take part (the others branch away first).
  for (Mode mode : {Mode::Up, Mode::Down, Mode::Bfly, Mode::Idx}) {
    uint32_t c = (16u << 8) | (mode == Mode::Up ? 0 : 31);
    std::string s = std::string("  setp.ge.u32 %p, %l, 16;\n  @%p bra DONE;\n  shfl.sync.") + modeName(mode) +
                    ".b32 %v, %a, 3, " + std::to_string(c) + ", 0x0000ffff;";
    EXPECT_EQ(check(s,
                    [&](unsigned t, const Inputs &in) {
                      return t % 32 >= 16 ? uint64_t{0xdeadbeef}
                                          : uint64_t{refShfl(mode, t, in.a, 3, c).first};
                    }),
              kThreads)
        << s;
  }
  // Even lanes only, idx within them.
  EXPECT_EQ(check("  and.b32 %u, %l, 1;\n  setp.ne.u32 %p, %u, 0;\n  @%p bra DONE;\n"
                  "  shfl.sync.idx.b32 %v, %a, 6, 0x1f, 0x55555555;",
                  [](unsigned t, const Inputs &in) {
                    return t % 2 ? uint64_t{0xdeadbeef} : uint64_t{in.a[t / 32 * 32 + 6]};
                  }),
            kThreads);
}

TEST(EmuWarp, SyncWithAbsentLanesIsAMismatch) {
  // Lanes 16-31 branched away but the member mask names them: hardware would
  // wait for them; the emulator reports warp-sync-mismatch instead.
  for (const char *op : {"shfl.sync.idx.b32 %v, %a, 0, 0x1f, -1;", "vote.sync.ballot.b32 %v, %p, -1;",
                         "match.any.sync.b32 %v, %a, -1;", "redux.sync.add.u32 %v, %a, -1;",
                         "bar.warp.sync -1;", "elect.sync %v|%q, -1;"}) {
    Inputs in = makeInputs(3);
    EmuRun r = runRaw(std::string("  setp.ge.u32 %p, %l, 16;\n  @%p bra DONE;\n  ") + op, in);
    EXPECT_FALSE(r.result.ok) << op;
    const ptx::Diagnostic *d = r.first(DiagKind::WarpSyncMismatch);
    ASSERT_NE(d, nullptr) << op << r.diags.renderText();
    EXPECT_EQ(d->severity, ptx::Severity::Error);
  }
  // An executing lane outside its own member mask (undefined in the ISA).
  Inputs in = makeInputs(3);
  EmuRun r = runRaw("  bar.warp.sync 0x0000ffff;", in);
  EXPECT_TRUE(r.has(DiagKind::WarpSyncMismatch)) << r.diags.renderText();
}

TEST(EmuWarp, ExitedLanesDoNotBlockSync) {
  // Lanes 20-31 exit; a full member mask then names only exited lanes beyond
  // the live ones, which is fine.
  EXPECT_EQ(check("  setp.lt.u32 %p, %l, 20;\n  @!%p exit;\n"
                  "  bar.warp.sync -1;\n  vote.sync.ballot.b32 %v, %p, -1;",
                  [](unsigned t, const Inputs &) { return t % 32 < 20 ? uint64_t{0xFFFFF} : uint64_t{0}; }),
            kThreads);
  // Partial warp: a 48-thread CTA's second warp has 16 lanes.
  EXPECT_EQ(check(
                "  setp.ne.u32 %p, %a, 0;\n  vote.sync.ballot.b32 %v, %p, -1;\n  bar.warp.sync -1;",
                [](unsigned t, const Inputs &in) {
                  unsigned base = t / 32 * 32, n = t < 32 ? 32 : 16;
                  uint32_t bal = 0;
                  for (unsigned l = 0; l < n; ++l) bal |= uint32_t{in.a[base + l] != 0} << l;
                  return uint64_t{bal};
                },
                7, 48),
            48u);
}

// ---- vote ----

TEST(EmuWarp, VoteWithNegatedPredicates) {
  for (bool neg : {false, true}) {
    std::string q = neg ? "!%p" : "%p";
    auto pred = [&](const Inputs &in, unsigned t) { return ((in.a[t] & 1) != 0) != neg; };
    std::string setup = "  and.b32 %u, %a, 1;\n  setp.ne.u32 %p, %u, 0;\n";
    EXPECT_EQ(check(setup + "  vote.sync.ballot.b32 %v, " + q + ", -1;",
                    [&](unsigned t, const Inputs &in) {
                      uint32_t bal = 0;
                      for (unsigned l = 0; l < 32; ++l) bal |= uint32_t{pred(in, t / 32 * 32 + l)} << l;
                      return uint64_t{bal};
                    }),
              kThreads);
    // all/any/uni over a predicate that is uniform in warps 0-1 (true / false) and mixed in 2-3.
    std::string uni = "  shr.u32 %u, %t, 5;\n  setp.eq.u32 %p, %u, 0;\n  setp.ge.u32 %q, %u, 2;\n"
                      "  and.b32 %w, %a, 1;\n  setp.ne.and.u32 %q, %w, 0, %q;\n  or.pred %p, %p, %q;\n";
    auto upred = [&](const Inputs &in, unsigned t) {
      unsigned w = t / 32;
      return (w == 0 || (w >= 2 && (in.a[t] & 1))) != neg;
    };
    for (const char *mode : {"all", "any", "uni"}) {
      EXPECT_EQ(
          check(uni + "  vote.sync." + mode + ".pred %r, " + q + ", 0xffffffff;\n  selp.u32 %v, 1, 0, %r;",
                [&](unsigned t, const Inputs &in) {
                  unsigned yes = 0;
                  for (unsigned l = 0; l < 32; ++l) yes += upred(in, t / 32 * 32 + l);
                  bool r = mode[1] == 'l'                     ? yes == 32
                           : mode[1] == 'n' && mode[0] == 'a' ? yes > 0
                                                              : (yes == 0 || yes == 32);
                  return uint64_t{r};
                }),
          kThreads)
          << mode << neg;
    }
  }
}

TEST(EmuWarp, VotePartialMask) {
  // Lanes 8-23 only: the votes see just those lanes.
  std::string s =
      "  setp.lt.u32 %p, %l, 8;\n  setp.ge.u32 %q, %l, 24;\n  or.pred %p, %p, %q;\n  @%p bra DONE;\n"
      "  setp.ne.u32 %q, %l, 9;\n  vote.sync.all.pred %r, %q, 0x00ffff00;\n  selp.u32 %v, 2, 0, %r;\n"
      "  vote.sync.any.pred %r, !%q, 0x00ffff00;\n  selp.u32 %u, 1, 0, %r;\n  or.b32 %v, %v, %u;\n"
      "  vote.sync.ballot.b32 %u, %q, 0x00ffff00;\n  shl.b32 %u, %u, 2;\n  or.b32 %v, %v, %u;";
  EXPECT_EQ(check(s,
                  [](unsigned t, const Inputs &) {
                    unsigned l = t % 32;
                    if (l < 8 || l >= 24) return uint64_t{0xdeadbeef};
                    return uint64_t{0u | 1u | ((0x00ffff00u & ~(1u << 9)) << 2)};
                  }),
            kThreads);
}

// ---- match ----

TEST(EmuWarp, MatchWithDuplicates) {
  for (unsigned bits : {2u, 3u}) {
    std::string s =
        "  and.b32 %u, %a, " + std::to_string((1u << bits) - 1) + ";\n  match.any.sync.b32 %v, %u, -1;";
    EXPECT_EQ(check(s,
                    [&](unsigned t, const Inputs &in) {
                      uint32_t m = 0, mine = in.a[t] & ((1u << bits) - 1);
                      for (unsigned l = 0; l < 32; ++l)
                        m |= uint32_t{(in.a[t / 32 * 32 + l] & ((1u << bits) - 1)) == mine} << l;
                      return uint64_t{m};
                    }),
              kThreads);
  }
  // b64: values equal in the low 32 bits but not the high ones must differ.
  EXPECT_EQ(check("  and.b32 %u, %a, 1;\n  and.b32 %w, %b, 1;\n  cvt.u64.u32 %E, %w;\n  shl.b64 %E, %E, 32;\n"
                  "  cvt.u64.u32 %D, %u;\n  or.b64 %E, %E, %D;\n  match.any.sync.b64 %v, %E, -1;\n  "
                  "cvt.u64.u32 %D, %v;",
                  [](unsigned t, const Inputs &in) {
                    uint32_t m = 0;
                    for (unsigned l = 0; l < 32; ++l) {
                      unsigned o = t / 32 * 32 + l;
                      m |= uint32_t{(in.a[o] & 1) == (in.a[t] & 1) && (in.b[o] & 1) == (in.b[t] & 1)} << l;
                    }
                    return uint64_t{m};
                  }),
            kThreads);
  // match.all: warps 0-1 hold one value, warps 2-3 two values.
  std::string all =
      "  shr.u32 %u, %t, 5;\n  setp.lt.u32 %q, %u, 2;\n  and.b32 %w, %a, 1;\n  selp.u32 %w, 9, %w, %q;\n"
      "  match.all.sync.b32 %v|%p, %w, -1;\n  selp.u32 %u, 1, 0, %p;\n  shl.b32 %u, %u, 31;\n"
      "  cvt.u64.u32 %D, %v;\n  cvt.u64.u32 %E, %u;\n  shl.b64 %E, %E, 1;\n  or.b64 %D, %D, %E;";
  EXPECT_EQ(check(all,
                  [](unsigned t, const Inputs &in) {
                    bool same = t < 64;
                    if (!same) {
                      unsigned ones = 0;
                      for (unsigned l = 0; l < 32; ++l) ones += in.a[t / 32 * 32 + l] & 1;
                      same = ones == 0 || ones == 32;
                    }
                    return same ? (0xFFFFFFFFull | 1ull << 32) : 0ull;
                  }),
            kThreads);
  // A partial member mask: lanes 0-15 only.
  EXPECT_EQ(check("  setp.ge.u32 %p, %l, 16;\n  @%p bra DONE;\n  and.b32 %u, %a, 1;\n  match.any.sync.b32 "
                  "%v, %u, 0xffff;",
                  [](unsigned t, const Inputs &in) {
                    if (t % 32 >= 16) return uint64_t{0xdeadbeef};
                    uint32_t m = 0;
                    for (unsigned l = 0; l < 16; ++l)
                      m |= uint32_t{(in.a[t / 32 * 32 + l] & 1) == (in.a[t] & 1)} << l;
                    return uint64_t{m};
                  }),
            kThreads);
}

// ---- redux ----

TEST(EmuWarp, ReduxSignedVsUnsigned) {
  auto fold = [](unsigned t, const Inputs &in, uint32_t mask, auto f) {
    unsigned base = t / 32 * 32;
    int first = std::countr_zero(mask);
    uint32_t acc = in.a[base + static_cast<unsigned>(first)];
    for (unsigned l = static_cast<unsigned>(first) + 1; l < 32; ++l)
      if (mask >> l & 1) acc = f(acc, in.a[base + l]);
    return uint64_t{acc};
  };
  struct R {
    const char *op;
    std::function<uint32_t(uint32_t, uint32_t)> f;
  } ops[] = {
      {"add.u32", [](uint32_t x, uint32_t y) { return x + y; }},
      {"add.s32", [](uint32_t x, uint32_t y) { return x + y; }},
      {"min.u32", [](uint32_t x, uint32_t y) { return std::min(x, y); }},
      {"max.u32", [](uint32_t x, uint32_t y) { return std::max(x, y); }},
      {"min.s32",
       [](uint32_t x, uint32_t y) {
         return static_cast<uint32_t>(std::min(static_cast<int32_t>(x), static_cast<int32_t>(y)));
       }},
      {"max.s32",
       [](uint32_t x, uint32_t y) {
         return static_cast<uint32_t>(std::max(static_cast<int32_t>(x), static_cast<int32_t>(y)));
       }},
      {"and.b32", [](uint32_t x, uint32_t y) { return x & y; }},
      {"or.b32", [](uint32_t x, uint32_t y) { return x | y; }},
      {"xor.b32", [](uint32_t x, uint32_t y) { return x ^ y; }},
  };
  for (const R &r : ops) {
    EXPECT_EQ(check(std::string("  redux.sync.") + r.op + " %v, %a, -1;",
                    [&](unsigned t, const Inputs &in) { return fold(t, in, 0xFFFFFFFFu, r.f); }),
              kThreads)
        << r.op;
    // Odd lanes only.
    EXPECT_EQ(
        check(std::string("  and.b32 %u, %l, 1;\n  setp.eq.u32 %p, %u, 0;\n  @%p bra DONE;\n  redux.sync.") +
                  r.op + " %v, %a, 0xaaaaaaaa;",
              [&](unsigned t, const Inputs &in) {
                return t % 2 ? fold(t, in, 0xAAAAAAAAu, r.f) : uint64_t{0xdeadbeef};
              }),
        kThreads)
        << r.op;
  }
  // Warp 3 holds 0x7FFFFFFF and 0x80000000: signed and unsigned min/max differ.
  Inputs in = makeInputs(7);
  EmuRun r =
      runRaw("  redux.sync.min.s32 %v, %a, -1;\n  redux.sync.min.u32 %u, %a, -1;\n  cvt.u64.u32 %D, %v;\n"
             "  cvt.u64.u32 %E, %u;\n  shl.b64 %E, %E, 32;\n  or.b64 %D, %D, %E;",
             in);
  ASSERT_TRUE(r.result.ok) << r.diags.renderText();
  uint64_t w3 = r.buffer<uint64_t>(3)[96];
  EXPECT_EQ(static_cast<uint32_t>(w3), 0x80000000u); // signed min
  EXPECT_EQ(static_cast<uint32_t>(w3 >> 32), 0u);    // unsigned min (lane 8 holds 0)
}

// ---- activemask, elect, bar.warp.sync ----

TEST(EmuWarp, ActivemaskInDivergentCode) {
  EXPECT_EQ(
      check("  and.b32 %u, %l, 3;\n  setp.eq.u32 %p, %u, 0;\n  @%p bra ZERO;\n  activemask.b32 %v;\n  "
            "bra.uni DONE;\n"
            "ZERO:\n  activemask.b32 %v;\n  or.b32 %v, %v, 1;",
            [](unsigned t, const Inputs &) { return uint64_t{t % 4 == 0 ? 0x11111111u | 1u : 0xEEEEEEEEu}; }),
      kThreads);
  // Predicated-off lanes give 0.
  EXPECT_EQ(check("  setp.lt.u32 %p, %l, 5;\n  @%p activemask.b32 %v;",
                  [](unsigned t, const Inputs &) { return uint64_t{t % 32 < 5 ? 0x1Fu : 0xdeadbeefu}; }),
            kThreads);
}

TEST(EmuWarp, ElectLowestMemberLane) {
  EXPECT_EQ(check("  elect.sync %v|%p, -1;\n  selp.u32 %u, 256, 0, %p;\n  or.b32 %v, %v, %u;",
                  [](unsigned t, const Inputs &) { return uint64_t{t % 32 == 0 ? 256u : 0u}; }),
            kThreads);
  // Lanes named by a per-warp mask (bit 0 and 28 always set, as on the H100 check).
  EXPECT_EQ(check("  shr.u32 %m, %t, 5;\n  mul.lo.u32 %m, %m, 0x9E3779B1;\n  or.b32 %m, %m, 0x10000001;\n"
                  "  shr.u32 %u, %m, %l;\n  and.b32 %u, %u, 1;\n  setp.eq.u32 %p, %u, 0;\n  @%p bra DONE;\n"
                  "  and.b32 %m, %m, 0xfffffffe;\n  setp.eq.u32 %p, %l, 0;\n  @%p bra DONE;\n"
                  "  elect.sync %v|%q, %m;\n  selp.u32 %u, 256, 0, %q;\n  or.b32 %v, %v, %u;",
                  [](unsigned t, const Inputs &) {
                    uint32_t m = ((t / 32) * 0x9E3779B1u | 0x10000001u) & ~1u;
                    unsigned l = t % 32;
                    if (!(m >> l & 1)) return uint64_t{0xdeadbeef};
                    unsigned leader = static_cast<unsigned>(std::countr_zero(m));
                    return uint64_t{leader | (l == leader ? 256u : 0u)};
                  }),
            kThreads);
  // The sink destination.
  EXPECT_EQ(check("  elect.sync _|%p, 0xffffffff;\n  selp.u32 %v, 1, 0, %p;",
                  [](unsigned t, const Inputs &) { return uint64_t{t % 32 == 0}; }),
            kThreads);
}

TEST(EmuWarp, BarWarpSyncConvergedAndPartial) {
  EXPECT_EQ(check("  bar.warp.sync -1;\n  add.u32 %v, %a, 1;",
                  [](unsigned t, const Inputs &in) { return uint64_t{in.a[t] + 1}; }),
            kThreads);
  EXPECT_EQ(check("  setp.ge.u32 %p, %l, 8;\n  @%p bra DONE;\n  bar.warp.sync 0xff;\n  add.u32 %v, %a, 1;",
                  [](unsigned t, const Inputs &in) {
                    return t % 32 < 8 ? uint64_t{in.a[t] + 1} : uint64_t{0xdeadbeef};
                  }),
            kThreads);
}

} // namespace
