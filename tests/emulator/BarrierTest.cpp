// The named-barrier suite: one test per row of DESIGN.md §4 "Named barriers:
// the rules to reproduce" (hardware outcomes measured on an H100), plus
// warp-specialized kernels (CudaDMA single, double and manually double
// buffered; a Singe-style DAG). The kernels are hand-written PTX in
// tests/emulator/barriers/ (each accepted by ptxas -arch=sm_80).
//
// Every kernel that completes on hardware must complete here with correct
// data on one CTA, on a grid of 3 CTAs with 1 and 2 host threads, and under
// randomised schedules, with identical output in every multi-CTA run.
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

using namespace ptxvm::test;
using ptx::DiagKind;

namespace {

constexpr uint32_t kUntouched = 0xDEADBEEFu;

std::string readKernel(const std::string &file) {
  return readTextFile(std::string(PTXVM_SOURCE_DIR) + "/tests/emulator/barriers/" + file);
}

/// The 1-based line of the first line of `text` containing `needle` after
/// the first line containing `after` (0 when absent).
uint32_t lineOf(const std::string &text, const std::string &needle, const std::string &after = "") {
  std::istringstream in(text);
  std::string line;
  bool started = after.empty();
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (!started) {
      started = line.find(after) != std::string::npos;
      continue;
    }
    if (line.find(needle) != std::string::npos) return n;
  }
  return 0;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

/// Deterministic pseudo-random words.
std::vector<uint32_t> randomWords(size_t n, uint64_t seed) {
  std::vector<uint32_t> v(n);
  for (uint32_t &x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<uint32_t>(seed >> 33);
  }
  return v;
}

/// Which diagnostics a completing run may produce.
enum class Quiet {
  Clean,            // none at all
  NotesOnly,        // notes (e.g. a pending bar.arrive at exit), nothing worse
  DivergentWarning, // at least one divergent-barrier warning and nothing else
};

struct Launch {
  std::string file, kernel;
  uint32_t block = 32;
  std::function<std::vector<Arg>(uint32_t ctas)> args;
  size_t out = 0; // index of the output among the buffer arguments
  std::function<std::vector<uint32_t>(uint32_t ctas)> expected;
  Quiet quiet = Quiet::Clean;
};

struct Schedule {
  uint32_t ctas;
  unsigned hostThreads;
  bool random;
  uint64_t seed;
};

std::string describe(const Schedule &s) {
  return std::to_string(s.ctas) + " CTA(s), " + std::to_string(s.hostThreads) + " host thread(s), " +
         (s.random ? "random schedule seed " + std::to_string(s.seed)
                   : std::string("deterministic schedule"));
}

void expectQuiet(const EmuRun &r, Quiet quiet) {
  size_t divergent = 0;
  for (const ptx::Diagnostic &d : r.diags.all()) {
    bool allowed = (quiet == Quiet::NotesOnly && d.severity == ptx::Severity::Note) ||
                   (quiet == Quiet::DivergentWarning && d.kind == DiagKind::DivergentBarrier &&
                    d.severity == ptx::Severity::Warning);
    divergent += d.kind == DiagKind::DivergentBarrier;
    EXPECT_TRUE(allowed) << "unexpected diagnostic: " << d.renderText();
  }
  if (quiet == Quiet::DivergentWarning) {
    EXPECT_GT(divergent, 0u) << "no divergent-barrier warning";
  }
}

/// Runs a kernel that completes on hardware under several schedules; each run
/// must complete with the expected output and only the allowed diagnostics,
/// and every 3-CTA run must give the same bytes.
void expectCompletes(const Launch &l) {
  const std::string ptx = readKernel(l.file);
  ASSERT_FALSE(ptx.empty()) << "cannot read " << l.file;
  const Schedule schedules[] = {
      {1, 1, false, 0}, {3, 1, false, 0}, {3, 2, false, 0}, {3, 2, true, 1}, {3, 1, true, 2}, {3, 2, true, 3},
  };
  std::vector<uint8_t> reference;
  for (const Schedule &s : schedules) {
    SCOPED_TRACE(l.kernel + ": " + describe(s));
    EmuRun r = runKernel(ptx, l.kernel, {s.ctas}, {l.block}, l.args(s.ctas), s.hostThreads, 0, 100'000'000,
                         s.random, s.seed);
    ASSERT_TRUE(r.parsed) << r.diags.renderText();
    ASSERT_TRUE(r.result.ok) << r.result.error << "\n" << r.diags.renderText();
    EXPECT_EQ(r.result.status, "completed");
    EXPECT_EQ(r.result.error, "");
    expectQuiet(r, l.quiet);
    std::vector<uint32_t> got = r.buffer<uint32_t>(l.out), want = l.expected(s.ctas);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "output word " << i;
    if (s.ctas == 3) {
      if (reference.empty())
        reference = r.buffers.at(l.out);
      else
        EXPECT_EQ(r.buffers.at(l.out), reference) << "output differs between schedules";
    }
  }
}

/// One CTA of a misuse kernel, under the deterministic schedule (seed 0) or a
/// random one.
EmuRun runMisuse(const std::string &ptx, const std::string &kernel, uint32_t block,
                 const std::vector<Arg> &args, uint64_t seed) {
  return runKernel(ptx, kernel, {1}, {block}, args, 1, 0, 100'000'000, seed != 0, seed);
}

constexpr uint64_t kMisuseSeeds[] = {0, 1, 2, 3, 4};

// ---- Rows of the table -------------------------------------------------------

// `__syncthreads()` after one warp of the CTA has exited: completes.
TEST(NamedBarriers, SyncthreadsAfterAWarpExitedCompletes) {
  Launch l;
  l.file = "syncthreads_after_exit.ptx";
  l.kernel = "syncthreads_after_exit";
  l.block = 128;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(std::vector<uint32_t>(ctas * 128, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> out(ctas * 128, kUntouched);
    for (uint32_t c = 0; c < ctas; ++c)
      for (uint32_t t = 0; t < 128; ++t) {
        if (t / 32 == 1) continue; // warp 1 exited
        uint32_t p = t ^ 64;
        if (p / 32 == 1) p = t;
        out[c * 128 + t] = 3 * p + c;
      }
    return out;
  };
  expectCompletes(l);
}

// `bar.sync 1, 64` after the partner warp exited: hangs on hardware; the
// emulator reports barrier-deadlock (barrier 1, 32 of 64 arrived, warp 1
// exited) and the launch fails.
TEST(NamedBarriers, SyncWithAnExitedPartnerDeadlocks) {
  const std::string ptx = readKernel("partner_exited.ptx");
  const uint32_t line = lineOf(ptx, "bar.sync 1, 64;", "partner_exited_64");
  ASSERT_NE(line, 0u);
  for (uint64_t seed : kMisuseSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EmuRun r =
        runMisuse(ptx, "partner_exited_64", 64, {Arg::array(std::vector<uint32_t>(64, kUntouched))}, seed);
    ASSERT_TRUE(r.parsed) << r.diags.renderText();
    EXPECT_FALSE(r.result.ok);
    EXPECT_EQ(r.result.status, "failed");
    EXPECT_FALSE(r.result.error.empty());
    const ptx::Diagnostic *d = r.first(DiagKind::BarrierDeadlock);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    EXPECT_EQ(d->severity, ptx::Severity::Error);
    EXPECT_EQ(d->loc.line, line);
    EXPECT_EQ(d->loc.function, "partner_exited_64");
    EXPECT_TRUE(contains(d->message, "barrier 1")) << d->message;
    EXPECT_TRUE(contains(d->message, "32 of 64")) << d->message;
    EXPECT_EQ(diagnosticField(*d, "warp"), "0");
    EXPECT_EQ(diagnosticField(*d, "lanes"), "0-31");
    EXPECT_TRUE(contains(diagnosticField(*d, "warp0"), "waits at barrier 1")) << diagnosticField(*d, "warp0");
    EXPECT_TRUE(contains(diagnosticField(*d, "warp0"), "32 of 64")) << diagnosticField(*d, "warp0");
    EXPECT_TRUE(contains(diagnosticField(*d, "warp1"), "exited")) << diagnosticField(*d, "warp1");
    // The waiting warp never got past the barrier.
    for (uint32_t v : r.buffer<uint32_t>(0)) EXPECT_EQ(v, kUntouched);
  }
}

// `bar.sync 1, 32` with only the surviving warp: completes.
TEST(NamedBarriers, SyncCountingOnlyTheSurvivingWarpCompletes) {
  Launch l;
  l.file = "partner_exited.ptx";
  l.kernel = "partner_exited_32";
  l.block = 64;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(std::vector<uint32_t>(ctas * 64, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> out(ctas * 64, kUntouched);
    for (uint32_t c = 0; c < ctas; ++c)
      for (uint32_t t = 0; t < 32; ++t) out[c * 64 + t] = 7 * (31 - t) + c;
    return out;
  };
  expectCompletes(l);
}

// 48-thread CTA (warp 1 has 16 threads), both warps `bar.sync 1, 64`:
// completes, a warp's arrival counts 32 whatever its size.
TEST(NamedBarriers, PartialWarpCountsAsAWholeWarp) {
  Launch l;
  l.file = "partial_warp.ptx";
  l.kernel = "partial_warp";
  l.block = 48;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(std::vector<uint32_t>(ctas * 48, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> out(ctas * 48);
    for (uint32_t c = 0; c < ctas; ++c)
      for (uint32_t t = 0; t < 48; ++t) out[c * 48 + t] = (t + 16) % 48 + 1 + 100 * c;
    return out;
  };
  expectCompletes(l);
}

// The DMA warp does sync, sync, arrive, arrive per iteration while the
// compute warp does arrive, sync: hangs on hardware; the emulator reports
// barrier-deadlock with the wait-for table.
TEST(NamedBarriers, DmaWarpInTheWrongOrderDeadlocks) {
  const std::string ptx = readKernel("dma_wrong_order.ptx");
  for (uint64_t seed : kMisuseSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EmuRun r = runMisuse(ptx, "dma_wrong_order", 64,
                         {Arg::array(randomWords(4 * 32, 5)),
                          Arg::array(std::vector<uint32_t>(4 * 32, kUntouched)), Arg::scalar(uint32_t{4})},
                         seed);
    ASSERT_TRUE(r.parsed) << r.diags.renderText();
    EXPECT_FALSE(r.result.ok);
    EXPECT_FALSE(r.has(DiagKind::BarrierDoubleArrive)) << r.diags.renderText();
    const ptx::Diagnostic *d = r.first(DiagKind::BarrierDeadlock);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    // The wait-for table: a row per warp. The DMA warp's sync after its own
    // arrive counts twice in one generation (as on hardware), so it runs
    // through its iterations and exits; the compute warp is left waiting.
    std::string w0 = diagnosticField(*d, "warp0"), w1 = diagnosticField(*d, "warp1");
    EXPECT_TRUE((contains(w0, "waits at barrier") && contains(w1, "exited")) ||
                (contains(w1, "waits at barrier") && contains(w0, "exited")))
        << d->renderText();
    EXPECT_TRUE(contains(diagnosticField(*d, "warp" + diagnosticField(*d, "warp")), "waits at barrier"))
        << d->renderText();
    EXPECT_TRUE(contains(d->message, "warp 0")) << d->message;
    EXPECT_TRUE(contains(d->message, "warp 1")) << d->message;
  }
}

// The compute warp does `bar.arrive 2, 64` twice before the DMA warp syncs:
// on hardware it hangs when the DMA warp is late and completes when it is
// early; the emulator reports barrier-double-arrive deterministically.
void expectDoubleArrive(const std::string &kernel, const std::string &computeWarp) {
  const std::string ptx = readKernel("double_arrive.ptx");
  const uint32_t line = lineOf(ptx, "bar.arrive 2, 64;", "entry " + kernel);
  for (uint64_t seed : kMisuseSeeds) {
    SCOPED_TRACE(kernel + ", seed " + std::to_string(seed));
    EmuRun r =
        runMisuse(ptx, kernel, 64,
                  {Arg::array(std::vector<uint32_t>(64, kUntouched)), Arg::scalar(uint32_t{2000})}, seed);
    ASSERT_TRUE(r.parsed) << r.diags.renderText();
    EXPECT_FALSE(r.result.ok);
    const ptx::Diagnostic *d = r.first(DiagKind::BarrierDoubleArrive);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    EXPECT_EQ(d->severity, ptx::Severity::Error);
    EXPECT_EQ(diagnosticField(*d, "barrier"), "2");
    EXPECT_EQ(diagnosticField(*d, "warp"), computeWarp);
    EXPECT_TRUE(contains(d->message, "barrier 2")) << d->message;
    // Reported at the second of the two arrivals.
    EXPECT_EQ(d->loc.line, line + 1);
  }
}

TEST(NamedBarriers, DoubleArriveIsReportedWhenTheDmaWarpIsLate) {
  expectDoubleArrive("double_arrive_late_dma", "0");
}

TEST(NamedBarriers, DoubleArriveIsReportedWhenTheDmaWarpIsEarly) {
  expectDoubleArrive("double_arrive_early_dma", "1");
}

// Warps of one barrier give different counts (64 and 96). Recorded on an
// H100 (tests/gpu/results bt08, bt08c, bt08d): the launch fails with
// cudaErrorIllegalInstruction when a warp arrives with a different count
// while a generation is open (the count-96 warp first), and hangs when the
// two count-64 warps complete a generation by themselves first. The
// emulator does the same for the same arrival order: barrier-count-mismatch
// with the same error code, or barrier-deadlock. (DESIGN.md's table lists
// only the first outcome.)
TEST(NamedBarriers, CountMismatchWhileAGenerationIsOpenIsAnIllegalInstruction) {
  const std::string ptx = readKernel("count_mismatch.ptx");
  EmuRun r =
      runMisuse(ptx, "count_mismatch_first96", 96, {Arg::array(std::vector<uint32_t>(96, kUntouched))}, 0);
  ASSERT_TRUE(r.parsed) << r.diags.renderText();
  EXPECT_FALSE(r.result.ok);
  EXPECT_EQ(r.result.error, "cudaErrorIllegalInstruction") << r.diags.renderText();
  const ptx::Diagnostic *d = r.first(DiagKind::BarrierCountMismatch);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_EQ(diagnosticField(*d, "barrier"), "1");
  EXPECT_TRUE(contains(d->message, "64")) << d->message;
  EXPECT_TRUE(contains(d->message, "96")) << d->message;
}

TEST(NamedBarriers, CountMismatchAfterACompletedGenerationDeadlocks) {
  const std::string ptx = readKernel("count_mismatch.ptx");
  EmuRun r = runMisuse(ptx, "count_mismatch", 96, {Arg::array(std::vector<uint32_t>(96, kUntouched))}, 0);
  ASSERT_TRUE(r.parsed) << r.diags.renderText();
  EXPECT_FALSE(r.result.ok);
  EXPECT_TRUE(r.has(DiagKind::BarrierDeadlock) || r.has(DiagKind::BarrierCountMismatch))
      << r.diags.renderText();
}

TEST(NamedBarriers, CountMismatchUnderRandomSchedulesIsOneOfTheHardwareOutcomes) {
  const std::string ptx = readKernel("count_mismatch.ptx");
  for (const char *kernel : {"count_mismatch", "count_mismatch_first96"})
    for (uint64_t seed : kMisuseSeeds) {
      SCOPED_TRACE(std::string(kernel) + ", seed " + std::to_string(seed));
      EmuRun r = runMisuse(ptx, kernel, 96, {Arg::array(std::vector<uint32_t>(96, kUntouched))}, seed);
      EXPECT_FALSE(r.result.ok);
      bool mismatch = r.has(DiagKind::BarrierCountMismatch), deadlock = r.has(DiagKind::BarrierDeadlock);
      EXPECT_TRUE(mismatch != deadlock) << r.diags.renderText();
      if (mismatch) {
        EXPECT_EQ(r.result.error, "cudaErrorIllegalInstruction");
      }
    }
}

// Barrier id 16 passed in a register: no fault on hardware; the emulator
// reports barrier-invalid-operand naming the value.
TEST(NamedBarriers, BarrierIdSixteenInARegisterIsReported) {
  const std::string ptx = readKernel("invalid_id.ptx");
  EmuRun r = runMisuse(ptx, "invalid_id", 64,
                       {Arg::array(std::vector<uint32_t>(64, kUntouched)), Arg::scalar(uint32_t{16})}, 0);
  ASSERT_TRUE(r.parsed) << r.diags.renderText();
  const ptx::Diagnostic *d = r.first(DiagKind::BarrierInvalidOperand);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_EQ(diagnosticField(*d, "barrier"), "16");
  EXPECT_TRUE(contains(d->message, "16")) << d->message;
  EXPECT_EQ(d->loc.line, lineOf(ptx, "bar.sync %r2, 64;"));
  // The same kernel with a valid id completes.
  EmuRun ok = runMisuse(ptx, "invalid_id", 64,
                        {Arg::array(std::vector<uint32_t>(64, kUntouched)), Arg::scalar(uint32_t{15})}, 0);
  ASSERT_TRUE(ok.result.ok) << ok.diags.renderText();
  for (uint32_t v : ok.buffer<uint32_t>(0)) EXPECT_EQ(v, 15u);
}

// `__syncthreads()` inside a branch that splits each warp 16/16: completes on
// hardware; the emulator completes and warns divergent-barrier.
TEST(NamedBarriers, DivergentSyncthreadsCompletesWithAWarning) {
  Launch l;
  l.file = "divergent_syncthreads.ptx";
  l.kernel = "divergent_syncthreads";
  l.block = 64;
  l.quiet = Quiet::DivergentWarning;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(std::vector<uint32_t>(ctas * 64, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> out(ctas * 64);
    for (uint32_t c = 0; c < ctas; ++c)
      for (uint32_t t = 0; t < 64; ++t) {
        uint32_t s = (63 - t) + 1000 * c;
        out[c * 64 + t] = t % 32 < 16 ? s : 2 * s + 1;
      }
    return out;
  };
  expectCompletes(l);
  // The warning names the barrier and the lanes that reached it.
  EmuRun r = runKernel(readKernel(l.file), l.kernel, {1}, {64}, l.args(1));
  const ptx::Diagnostic *d = r.first(DiagKind::DivergentBarrier);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_EQ(diagnosticField(*d, "barrier"), "0");
  std::string lanes = diagnosticField(*d, "lanes");
  EXPECT_TRUE(lanes == "0-15" || lanes == "16-31") << lanes;
}

// Non-aligned `barrier.sync 1, 64` reached from two PCs by one warp's halves:
// completes, no diagnostic.
TEST(NamedBarriers, NonAlignedBarrierFromTwoPcsCompletesSilently) {
  Launch l;
  l.file = "nonaligned.ptx";
  l.kernel = "nonaligned";
  l.block = 64;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(std::vector<uint32_t>(ctas * 64, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> out(ctas * 64);
    for (uint32_t c = 0; c < ctas; ++c) {
      uint32_t r[64];
      for (uint32_t t = 0; t < 64; ++t) {
        uint32_t x = (63 - t) + 100 * c;
        r[t] = t % 32 < 16 ? x : 2 * x;
      }
      for (uint32_t t = 0; t < 32; ++t) r[t] += r[t + 32] + 1;
      for (uint32_t t = 0; t < 64; ++t) out[c * 64 + t] = r[t];
    }
    return out;
  };
  expectCompletes(l);
}

// `bar.red.popc.u32` over 96 threads: every thread gets the popcount.
TEST(NamedBarriers, RedPopcGivesEveryThreadTheCount) {
  Launch l;
  l.file = "red_popc.ptx";
  l.kernel = "red_popc";
  l.block = 96;
  l.out = 1;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(randomWords(ctas * 96, 11)),
                            Arg::array(std::vector<uint32_t>(ctas * 192, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> in = randomWords(ctas * 96, 11), out(ctas * 192);
    for (uint32_t c = 0; c < ctas; ++c) {
      uint32_t odd = 0, bit1Clear = 0;
      for (uint32_t t = 0; t < 96; ++t) {
        odd += in[c * 96 + t] & 1;
        bit1Clear += (in[c * 96 + t] & 2) == 0;
      }
      for (uint32_t t = 0; t < 96; ++t) {
        out[(c * 96 + t) * 2] = odd;
        out[(c * 96 + t) * 2 + 1] = bit1Clear;
      }
    }
    return out;
  };
  expectCompletes(l);
  // Not a constant: all-odd and all-even inputs give 96 and 0.
  for (uint32_t fill : {1u, 2u}) {
    EmuRun r =
        runKernel(readKernel(l.file), l.kernel, {1}, {96},
                  {Arg::array(std::vector<uint32_t>(96, fill)), Arg::array(std::vector<uint32_t>(192))});
    ASSERT_TRUE(r.result.ok) << r.diags.renderText();
    auto out = r.buffer<uint32_t>(1);
    for (uint32_t t = 0; t < 96; ++t) {
      EXPECT_EQ(out[2 * t], fill == 1 ? 96u : 0u);
      EXPECT_EQ(out[2 * t + 1], fill == 1 ? 96u : 0u);
    }
  }
}

// A `bar.arrive` still pending when the kernel exits: completes (may note it).
TEST(NamedBarriers, PendingArriveAtExitCompletes) {
  Launch l;
  l.file = "pending_arrive.ptx";
  l.kernel = "pending_arrive";
  l.block = 64;
  l.quiet = Quiet::NotesOnly;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(std::vector<uint32_t>(ctas * 64, kUntouched))};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> out(ctas * 64);
    for (uint32_t g = 0; g < ctas * 64; ++g) out[g] = 2 * g + 1;
    return out;
  };
  expectCompletes(l);
}

// ---- Warp-specialized kernels ---------------------------------------------------

constexpr uint32_t kTile = 128;

// Tiles-per-CTA kernels: in and out hold ctas * n tiles of 128 words;
// `f(tileOfCta, word, tileWords)` gives out[word] of one tile.
Launch tiled(const std::string &file, const std::string &kernel, uint32_t block, uint32_t n,
             std::function<std::vector<Arg>(std::vector<uint32_t> in, uint32_t ctas)> args,
             std::function<uint32_t(uint32_t t, uint32_t k, const uint32_t *tile)> f) {
  Launch l;
  l.file = file;
  l.kernel = kernel;
  l.block = block;
  l.out = 1;
  l.args = [=](uint32_t ctas) { return args(randomWords(ctas * n * kTile, 17), ctas); };
  l.expected = [=](uint32_t ctas) {
    std::vector<uint32_t> in = randomWords(ctas * n * kTile, 17), out(in.size());
    for (uint32_t c = 0; c < ctas; ++c)
      for (uint32_t t = 0; t < n; ++t) {
        const uint32_t *tile = &in[(c * n + t) * kTile];
        for (uint32_t k = 0; k < kTile; ++k) out[(c * n + t) * kTile + k] = f(t, k, tile);
      }
    return out;
  };
  return l;
}

std::vector<Arg> tileArgs(const std::vector<uint32_t> &in, uint32_t n) {
  return {Arg::array(in), Arg::array(std::vector<uint32_t>(in.size(), kUntouched)), Arg::scalar(n)};
}

// Single buffer, ids and counts as immediates: 2 compute warps + 1 DMA warp.
TEST(WarpSpecialized, CudaDmaSingleBufferImmediates) {
  for (uint32_t n : {1u, 5u}) {
    SCOPED_TRACE("tiles " + std::to_string(n));
    expectCompletes(tiled(
        "dma_single_imm.ptx", "dma_single_imm", 96, n,
        [n](std::vector<uint32_t> in, uint32_t) { return tileArgs(in, n); },
        [](uint32_t, uint32_t k, const uint32_t *tile) { return 2 * tile[k] + 1; }));
  }
}

// Single buffer, ids (from a parameter) and counts (%ntid.x) in registers;
// the last warp is the DMA warp, 1 to 4 compute warps.
TEST(WarpSpecialized, CudaDmaSingleBufferRegisters) {
  for (uint32_t block : {64u, 96u, 160u})
    for (uint32_t firstId : {1u, 3u, 14u}) {
      SCOPED_TRACE("block " + std::to_string(block) + ", ids " + std::to_string(firstId) + "/" +
                   std::to_string(firstId + 1));
      const uint32_t n = 4;
      expectCompletes(tiled(
          "dma_single_reg.ptx", "dma_single_reg", block, n,
          [firstId](std::vector<uint32_t> in, uint32_t) {
            std::vector<Arg> a = tileArgs(in, n);
            a.push_back(Arg::scalar(firstId));
            return a;
          },
          [](uint32_t t, uint32_t k, const uint32_t *tile) { return 3 * tile[k] + t; }));
    }
}

// Double buffer: two DMA warps, one per buffer; barrier ids computed per tile
// and counts in registers.
TEST(WarpSpecialized, CudaDmaDoubleBuffer) {
  for (uint32_t block : {96u, 128u, 192u})
    for (uint32_t n : {1u, 2u, 5u}) {
      SCOPED_TRACE("block " + std::to_string(block) + ", tiles " + std::to_string(n));
      expectCompletes(tiled(
          "dma_double.ptx", "dma_double", block, n,
          [n](std::vector<uint32_t> in, uint32_t) { return tileArgs(in, n); },
          [](uint32_t, uint32_t k, const uint32_t *tile) {
            return tile[(k + kTile - 1) % kTile] + 2 * tile[k] + tile[(k + 1) % kTile];
          }));
    }
}

// Manual double buffer: one DMA warp alternates two buffers, loops unrolled
// by two by hand, ids and counts as immediates.
TEST(WarpSpecialized, CudaDmaManualDoubleBuffer) {
  for (uint32_t n : {1u, 2u, 5u, 6u}) {
    SCOPED_TRACE("tiles " + std::to_string(n));
    expectCompletes(tiled(
        "dma_manual_double.ptx", "dma_manual_double", 96, n,
        [n](std::vector<uint32_t> in, uint32_t) { return tileArgs(in, n); },
        [](uint32_t t, uint32_t k, const uint32_t *tile) { return (5 * tile[k]) ^ t; }));
  }
}

// Singe-style DAG of producer/consumer barriers across 5 warps, barrier ids
// reused across phases.
TEST(WarpSpecialized, SingeDagReusesBarrierIdsAcrossPhases) {
  const uint32_t iters = 3;
  Launch l;
  l.file = "singe_dag.ptx";
  l.kernel = "singe_dag";
  l.block = 160;
  l.out = 1;
  l.args = [](uint32_t ctas) {
    return std::vector<Arg>{Arg::array(randomWords(ctas * iters * 32, 23)),
                            Arg::array(std::vector<uint32_t>(ctas * iters * 64, kUntouched)),
                            Arg::scalar(iters)};
  };
  l.expected = [](uint32_t ctas) {
    std::vector<uint32_t> in = randomWords(ctas * iters * 32, 23), out(ctas * iters * 64);
    for (uint32_t k = 0; k < ctas * iters; ++k)
      for (uint32_t lane = 0; lane < 32; ++lane) {
        uint32_t a = in[k * 32 + lane], b = a ^ 0x55, c = a + b, d = 3 * a, p = c ^ d;
        uint32_t x = p + 1, y = 2 * x + p, z = y ^ lane, q = y + z;
        out[k * 64 + lane] = p;
        out[k * 64 + 32 + lane] = q + 5;
      }
    return out;
  };
  expectCompletes(l);
}

} // namespace
