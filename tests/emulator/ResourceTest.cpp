// Sizes that overflow or exceed what the device has, and launches whose cost
// grows with the grid (issue 10, classes 3 and 6): each is a clear error - a
// verify error for layouts that wrap, resource-limit with the CUDA error a
// driver gives for the rest - never an abort of the host process, and a
// launch's memory and time do not grow without bound.
#include "tests/emulator/Harness.h"

#include "ptx/Parser.h"
#include "ptx/Verifier.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

using namespace ptxvm::test;
using ptx::DiagKind;

namespace {

bool verifies(const std::string &text, ptx::DiagnosticList &diags) {
  auto m = ptx::parseModule(text, "test.ptx", diags);
  return m && !diags.hasErrors() && ptx::verifyModule(*m, diags);
}

const char kTouch[] = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, DECLARED;
  st.global.u64 [%rd1], %rd2;
  ret;
}
)";

std::string touching(const std::string &decl, const std::string &name) {
  std::string body = decl + "\n" + kTouch;
  body.replace(body.find("DECLARED"), 8, name);
  return ptxModule(body);
}

TEST(Resources, LayoutsThatWrapAreVerifyErrors) {
  struct Case {
    const char *decl, *name, *message;
  };
  const Case cases[] = {
      {".global .b32 g[4611686018427387905];", "g", "does not fit in 64 bits"},
      {".global .b64 g[65536][281474976710656];", "g", "does not fit in 64 bits"},
      {".const .b8 c[70000];", "c", "the module's constant data passes 65536 bytes"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.decl);
    ptx::DiagnosticList diags;
    EXPECT_FALSE(verifies(touching(c.decl, c.name), diags));
    EXPECT_NE(diags.renderText().find(c.message), std::string::npos) << diags.renderText();
  }
}

TEST(Resources, SizesBeyondTheDeviceAreLaunchErrors) {
  struct Case {
    const char *decl, *name, *error;
  };
  const Case cases[] = {
      // 1 TiB of .global: ptxas takes it, no device holds it.
      {".global .b8 big[1099511627776];", "big", "cudaErrorMemoryAllocation"},
      // 2^32 - 1 bytes of .shared used to become 0.
      {".shared .b8 s[4294967295];", "s", "cudaErrorInvalidPtx"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.decl);
    EmuRun r = runKernel(touching(c.decl, c.name), "k", {1}, {1}, {Arg::array(std::vector<uint64_t>(1))});
    EXPECT_FALSE(r.result.ok);
    const ptx::Diagnostic *d = r.first(DiagKind::ResourceLimit);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    // The module or kernel is refused before any launch: the CUDA error is
    // what the runtime returns for the load (runtime tests check that).
    EXPECT_EQ(diagnosticField(*d, "cuda_error"), c.error) << d->renderText();
  }
}

TEST(Resources, KernelScopeLayoutsPastTheLimitsAreRefused) {
  const char *decls[] = {
      ".shared .align 8 .b8 s[300000];",
      ".local .align 8 .b8 l[1048576];",
  };
  for (const char *decl : decls) {
    SCOPED_TRACE(decl);
    std::string body =
        std::string(".visible .entry k(.param .u64 out)\n{\n  ") + decl +
        "\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [out];\n  st.global.u64 [%rd1], 1;\n  ret;\n}\n";
    EmuRun r = runKernel(ptxModule(body), "k", {1}, {1}, {Arg::array(std::vector<uint64_t>(1))});
    EXPECT_FALSE(r.result.ok);
    const ptx::Diagnostic *d = r.first(DiagKind::ResourceLimit);
    ASSERT_NE(d, nullptr) << r.diags.renderText();
    EXPECT_EQ(diagnosticField(*d, "cuda_error"), "cudaErrorLaunchOutOfResources");
  }
}

TEST(Resources, ACtaThatNeedsTooMuchHostMemoryIsRefusedBeforeRunning) {
  // 200,000 registers per thread (8 bytes each) in 1024 threads: 1.6 GB of
  // registers is fine; 600,000 is 4.9 GB for one CTA.
  for (unsigned registers : {200000u, 600000u}) {
    SCOPED_TRACE(registers);
    std::string body = ".visible .entry k()\n{\n  .reg .b32 %r<" + std::to_string(registers) +
                       ">;\n  mov.u32 %r1, 1;\n  ret;\n}\n";
    EmuRun r = runKernel(ptxModule(body), "k", {1}, {registers > 300000 ? 1024u : 32u}, {});
    if (registers < 300000) {
      EXPECT_TRUE(r.result.ok) << r.diags.renderText();
      continue;
    }
    EXPECT_FALSE(r.result.ok);
    ASSERT_NE(r.first(DiagKind::ResourceLimit), nullptr) << r.diags.renderText();
    EXPECT_EQ(r.result.error, "cudaErrorLaunchOutOfResources");
  }
}

const char kSpin[] = R"(
.visible .entry k()
{
LOOP:
  bra.uni LOOP;
}
)";

TEST(Resources, TheInstructionLimitCountsTheWholeLaunch) {
  // 4096 CTAs of one warp, each spinning: 10^6 warp instructions in all end
  // the launch, where a per-CTA limit of 10^6 would let it run 4 * 10^9.
  auto start = std::chrono::steady_clock::now();
  EmuRun r = runKernel(ptxModule(kSpin), "k", {4096}, {32}, {}, 2, 0, 1'000'000);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.result.ok);
  const ptx::Diagnostic *d = r.first(DiagKind::InstructionLimit);
  ASSERT_NE(d, nullptr) << r.diags.renderText();
  EXPECT_EQ(r.result.error, "cudaErrorLaunchTimeout");
  // One report for the launch, not one per CTA.
  size_t reports = 0;
  for (const ptx::Diagnostic &x : r.diags.all()) reports += x.kind == DiagKind::InstructionLimit;
  EXPECT_EQ(reports, 1u);
  EXPECT_LT(r.result.stats.warpInstructions, 2000000u);
  EXPECT_LT(seconds, 60.0);
}

TEST(Resources, DiagnosticsOfAHugeGridAreTheFirstInCtaOrder) {
  // Every CTA of 2^16 warns (a __syncthreads reached by the halves of a
  // split warp) and completes: the launch keeps the first 100 warnings, those
  // of the lowest CTAs, in CTA order, whatever the number of host threads,
  // and holds no per-CTA state for the others.
  const char *body = R"(
.visible .entry k()
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p, %r1, 16;
  @%p bra LOW;
  bar.sync 0;
  bra.uni DONE;
LOW:
  bar.sync 0;
DONE:
  ret;
}
)";
  for (unsigned threads : {1u, 4u}) {
    SCOPED_TRACE(threads);
    EmuRun r = runKernel(ptxModule(body), "k", {65536}, {32}, {}, threads);
    EXPECT_TRUE(r.result.ok) << (r.diags.all().empty() ? "" : r.diags.all().front().renderText());
    ASSERT_EQ(r.diags.all().size(), 100u);
    uint64_t previous = 0;
    for (const ptx::Diagnostic &d : r.diags.all()) {
      const uint64_t cta = std::stoull(diagnosticField(d, "cta"));
      EXPECT_LE(previous, cta) << d.renderText();
      EXPECT_LT(cta, 100u) << d.renderText(); // the lowest CTAs
      previous = cta;
    }
    EXPECT_EQ(diagnosticField(r.diags.all().front(), "cta"), "0,0,0");
  }
}

} // namespace
