// Warp loads and stores whose lanes touch consecutive elements, two rows of
// 16 or one point per half-warp take block copies (semantics/Memory.cpp,
// `rowsOf`); every other pattern goes lane by lane. Both must give what each
// lane's own access gives: every element size and signedness, in every
// memory space a block copy can serve, against the patterns and near misses
// (reversed, a lane out of place, a stride of two elements, lanes sharing
// an address, rows that overlap, a lane off its row or point) and warps with
// inactive lanes; stores where lanes share bytes keep the highest lane's.
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace ptxvm::test;

namespace {

struct Element {
  const char *type; // the ld/st type
  unsigned bytes;
  bool isSigned;
};

constexpr Element kElements[] = {{"s8", 1, true},  {"u8", 1, false},  {"s16", 2, true}, {"u16", 2, false},
                                 {"s32", 4, true}, {"u32", 4, false}, {"b64", 8, false}};

/// Which element lane l of a warp touches.
enum class Pattern {
  Consecutive,
  Reversed,
  OneLaneSwapped,
  StrideTwo,
  PairsShareOne,
  Broadcast,
  SameRowTwice,
  TwoRows,
  OverlappingRows,
  SecondRowOneOff,
  TwoPoints,
  TwoPointsOneOff,
};

struct PatternInfo {
  Pattern pattern;
  const char *name;
  const char *ptx; // %r2 = element index from %r1 = tid.x
};

constexpr PatternInfo kPatterns[] = {
    {Pattern::Consecutive, "consecutive", "mov.u32 %r2, %r1;"},
    {Pattern::Reversed, "reversed", "sub.u32 %r2, 31, %r1;"},
    // Lanes 3 and 4 swapped: the span is the same as the consecutive one.
    {Pattern::OneLaneSwapped, "swapped",
     "setp.eq.u32 %p2, %r1, 3; setp.eq.u32 %p3, %r1, 4; mov.u32 %r2, %r1; @%p2 mov.u32 %r2, 4; @%p3 mov.u32 "
     "%r2, 3;"},
    {Pattern::StrideTwo, "stride2", "shl.b32 %r2, %r1, 1;"},
    {Pattern::PairsShareOne, "pairs", "shr.u32 %r2, %r1, 1;"},
    {Pattern::Broadcast, "broadcast", "mov.u32 %r2, 7;"},
    // Half-warp patterns (16-wide blocks): rows of 16 and one point per half.
    {Pattern::SameRowTwice, "same_row_twice", "and.b32 %r2, %r1, 15;"},
    {Pattern::TwoRows, "two_rows",
     "and.b32 %r2, %r1, 15; setp.ge.u32 %p2, %r1, 16; @%p2 add.u32 %r2, %r2, 40;"},
    {Pattern::OverlappingRows, "overlapping_rows",
     "and.b32 %r2, %r1, 15; setp.ge.u32 %p2, %r1, 16; @%p2 add.u32 %r2, %r2, 5;"},
    {Pattern::SecondRowOneOff, "second_row_one_off",
     "and.b32 %r2, %r1, 15; setp.ge.u32 %p2, %r1, 16; @%p2 add.u32 %r2, %r2, 40; setp.eq.u32 %p3, %r1, 20; "
     "@%p3 "
     "add.u32 %r2, %r2, 1;"},
    {Pattern::TwoPoints, "two_points", "shr.u32 %r2, %r1, 4; mul.lo.u32 %r2, %r2, 9; add.u32 %r2, %r2, 3;"},
    {Pattern::TwoPointsOneOff, "two_points_one_off",
     "shr.u32 %r2, %r1, 4; mul.lo.u32 %r2, %r2, 9; add.u32 %r2, %r2, 3; setp.eq.u32 %p3, %r1, 31; @%p3 "
     "add.u32 "
     "%r2, %r2, 1;"},
};

unsigned elementOf(Pattern p, unsigned lane) {
  switch (p) {
  case Pattern::Consecutive: return lane;
  case Pattern::Reversed: return 31 - lane;
  case Pattern::OneLaneSwapped: return lane == 3 ? 4 : lane == 4 ? 3 : lane;
  case Pattern::StrideTwo: return lane * 2;
  case Pattern::PairsShareOne: return lane / 2;
  case Pattern::Broadcast: return 7;
  case Pattern::SameRowTwice: return lane % 16;
  case Pattern::TwoRows: return lane % 16 + (lane >= 16 ? 40 : 0);
  case Pattern::OverlappingRows: return lane % 16 + (lane >= 16 ? 5 : 0);
  case Pattern::SecondRowOneOff: return lane % 16 + (lane >= 16 ? 40 : 0) + (lane == 20 ? 1 : 0);
  case Pattern::TwoPoints: return 3 + 9 * (lane / 16);
  case Pattern::TwoPointsOneOff: return 3 + 9 * (lane / 16) + (lane == 31 ? 1 : 0);
  }
  return 0;
}

struct WindowSpace {
  const char *name;
  const char *decl; // kernel-scope declaration of the window `win` when not global
  const char *base; // sets %rd3 to the window's base
  const char *space;
};

constexpr WindowSpace kSpaces[] = {
    {"global", "", "mov.u64 %rd3, %rd1;", ".global"},
    {"generic", "", "mov.u64 %rd3, %rd1;", ""},
    {"shared", ".shared .align 16 .b8 win[512];", "mov.u64 %rd3, win;", ".shared"},
    {"shared_generic", ".shared .align 16 .b8 win[512];", "cvta.shared.u64 %rd3, win;", ""},
};

/// PTX in which lane 0 copies `bytes` bytes from `from` (in space
/// `fromSpace`) to `to`, a byte at a time (the other lanes skip it).
std::string byteCopy(const std::string &label, const std::string &from, const std::string &fromSpace,
                     const std::string &to, const std::string &toSpace, unsigned bytes) {
  return "  setp.ne.u32 %p1, %r1, 0;\n  @%p1 bra " + label + "_DONE;\n  mov.u32 %r4, 0;\n" + label +
         ":\n  cvt.u64.u32 %rd12, %r4;\n  add.u64 %rd13, " + from + ", %rd12;\n  ld" + fromSpace +
         ".u8 %r5, [%rd13];\n  add.u64 %rd13, " + to + ", %rd12;\n  st" + toSpace +
         ".u8 [%rd13], %r5;\n  add.u32 %r4, %r4, 1;\n  setp.lt.u32 %p1, %r4, " + std::to_string(bytes) +
         ";\n  @%p1 bra " + label + ";\n" + label + "_DONE:\n";
}

/// Each active lane (lanes whose bit is set in `active`) reads element
/// elementOf(lane) of `in` into a register of the element's width and
/// writes it, widened to 64 bits, to out64[lane]; then (after a barrier)
/// stores (lane + 1) * 0x0101..., truncated, to element elementOf(lane) of
/// `store`. Non-global spaces copy `in` into the window first and `store`
/// out of it last.
std::string kernel(const Element &e, const PatternInfo &p, const WindowSpace &s) {
  const bool wide = e.bytes == 8;
  const std::string reg = wide ? "%rd10" : "%r10";
  const std::string cvt = wide ? "mov.b64 %rd11, %rd10;"
                               : std::string("cvt.") + (e.isSigned ? "s64.s32" : "u64.u32") + " %rd11, %r10;";
  const std::string sz = std::to_string(e.bytes);
  const bool window = std::string(s.decl).size() > 0;
  std::string body = std::string(R"(
.visible .entry k(.param .u64 in, .param .u64 out64, .param .u64 store, .param .u32 active)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  )") + s.decl + R"(
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out64];
  ld.param.u64 %rd9, [store];
  ld.param.u32 %r3, [active];
  mov.u32 %r1, %tid.x;
  )" + s.base + "\n";
  if (window) // the window gets in's 64 elements (512 bytes max)
    body += byteCopy("COPY", "%rd1", ".global", "%rd3", s.space, 64 * e.bytes) + "  bar.sync 0;\n";
  body += "  " + std::string(p.ptx) + R"(
  shr.u32 %r6, %r3, %r1;
  and.b32 %r6, %r6, 1;
  setp.eq.u32 %p1, %r6, 1;
  mul.wide.u32 %rd4, %r2, )" +
          sz + R"(;
  add.u64 %rd5, %rd3, %rd4;
  @%p1 ld)" +
          s.space + "." + e.type + " " + reg + R"(, [%rd5];
  @%p1 )" +
          cvt + R"(
  mul.wide.u32 %rd6, %r1, 8;
  add.u64 %rd7, %rd2, %rd6;
  @%p1 st.global.b64 [%rd7], %rd11;
  bar.sync 0;
  )" + (window ? "mov.u64 %rd8, %rd5;" : "add.u64 %rd8, %rd9, %rd4;") +
          R"(
  add.u32 %r7, %r1, 1;
  mul.lo.u32 %r8, %r7, 16843009;
  cvt.u64.u32 %rd14, %r8;
  shl.b64 %rd15, %rd14, 32;
  or.b64 %rd14, %rd14, %rd15;
  )" +
          (wide ? "@%p1 st" + std::string(s.space) + ".b64 [%rd8], %rd14;"
                : "@%p1 st" + std::string(s.space) + "." + e.type + " [%rd8], %r8;") +
          "\n";
  if (window) // and gives it back to `store`
    body += "  bar.sync 0;\n" + byteCopy("BACK", "%rd3", s.space, "%rd9", ".global", 64 * e.bytes);
  body += "  ret;\n}\n";
  return ptxModule(body);
}

/// What a lane's register holds, widened to 64 bits as the kernel does.
uint64_t widened(const Element &e, const std::vector<uint8_t> &bytes, unsigned element) {
  uint64_t v = 0;
  for (unsigned b = 0; b < e.bytes; ++b) v |= uint64_t{bytes[element * e.bytes + b]} << (8 * b);
  if (e.isSigned && (v >> (8 * e.bytes - 1)) & 1) v |= ~uint64_t{0} << (8 * e.bytes);
  return v;
}

TEST(Coalesced, LoadsAndStoresGiveWhatEachLaneGivesForEveryPatternSizeAndSpace) {
  std::vector<uint8_t> input(512);
  for (unsigned i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 37 + 0x85); // both signs
  const uint32_t masks[] = {0xFFFFFFFFu, 0xFFFFFFF7u, 0x7FFFFFFFu, 0x00010001u};
  for (const WindowSpace &s : kSpaces)
    for (const Element &e : kElements)
      for (const PatternInfo &p : kPatterns)
        for (uint32_t active : masks) {
          SCOPED_TRACE(std::string(s.name) + " " + e.type + " " + p.name + " active " +
                       std::to_string(active));
          std::vector<uint8_t> stored(512, 0xEE);
          if (std::string(s.decl).size() > 0) stored = input; // the window starts as a copy of `in`
          EmuRun run =
              runKernel(kernel(e, p, s), "k", {1, 1, 1}, {32, 1, 1},
                        {Arg::array(input), Arg::array(std::vector<uint64_t>(32, 0xAAAAAAAAAAAAAAAAull)),
                         Arg::array(stored), Arg::scalar(active)});
          ASSERT_TRUE(run.parsed) << (run.diags.all().empty() ? "" : run.diags.all()[0].renderText());
          ASSERT_TRUE(run.result.ok) << (run.diags.all().empty() ? "" : run.diags.all()[0].renderText());
          const std::vector<uint64_t> loaded = run.buffer<uint64_t>(1);
          std::vector<uint8_t> expected = stored;
          for (unsigned lane = 0; lane < 32; ++lane) {
            const bool on = (active >> lane) & 1;
            const uint64_t want = on ? widened(e, input, elementOf(p.pattern, lane)) : 0xAAAAAAAAAAAAAAAAull;
            EXPECT_EQ(loaded[lane], want) << "lane " << lane;
          }
          // Stores in lane order: where lanes share an element, the highest active lane's value stays.
          for (unsigned lane = 0; lane < 32; ++lane) {
            if (!((active >> lane) & 1)) continue;
            const uint64_t v = (lane + 1) * 0x0101010101010101ull;
            for (unsigned b = 0; b < e.bytes; ++b)
              expected[elementOf(p.pattern, lane) * e.bytes + b] = static_cast<uint8_t>(v >> (8 * b));
          }
          EXPECT_EQ(run.buffer<uint8_t>(2), expected);
        }
}

} // namespace
