// Cooperative launches: every CTA of the grid resident at once, so that
// cooperative groups' grid.sync() (a spin on a workspace counter found in
// %envreg1:%envreg2) completes; without a cooperative launch the workspace is
// null and the kernel traps, as on a GPU.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "runtime/Device.h"
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

struct GridSyncRun {
  emu::LaunchResult result;
  ptx::DiagnosticList diags;
  std::vector<int32_t> out;
};

GridSyncRun runGridSync(bool cooperative, unsigned hostThreads, emu::Dim3 grid, emu::Dim3 block, int rounds) {
  GridSyncRun run;
  std::string path = std::string(PTXVM_CORPUS_DIR) + "/coop_groups.sm_80.ptx", text;
  if (!ptx::readFile(path, text, run.diags)) return run;
  auto module = ptx::parseModule(std::move(text), path, run.diags);
  emu::Device device;
  auto kernel = device.decode(*module, "cg_grid_sync", run.diags);
  if (!kernel) return run;
  uint64_t total = grid.count() * block.count();
  uint64_t buf = device.global.allocate(total * 4), out = device.global.allocate(total * 4);
  emu::LaunchConfig config;
  config.grid = grid;
  config.block = block;
  config.threads = hostThreads;
  config.cooperative = cooperative;
  config.maxInstructions = 50'000'000;
  config.params.assign(kernel->paramBytes, 0);
  std::memcpy(&config.params[kernel->paramOffsets[0]], &buf, 8);
  std::memcpy(&config.params[kernel->paramOffsets[1]], &out, 8);
  std::memcpy(&config.params[kernel->paramOffsets[2]], &rounds, 4);
  std::unique_ptr<emu::Engine> engine = ptxvm::test::testEngine(*kernel);
  config.engine = engine.get();
  run.result = device.launch(*kernel, config, run.diags);
  run.out.resize(total);
  device.global.read(out, run.out.data(), total * 4);
  return run;
}

/// The kernel's result computed on the host.
std::vector<int32_t> expected(uint64_t blocks, uint64_t perBlock, int rounds) {
  uint64_t total = blocks * perBlock;
  std::vector<int32_t> v(total), buf(total);
  for (uint64_t r = 0; r < total; ++r) v[r] = static_cast<int32_t>(r);
  for (int k = 0; k < rounds; ++k) {
    buf = v;
    for (uint64_t r = 0; r < total; ++r) v[r] += buf[(r + 1 + k) % total];
  }
  for (uint64_t r = 0; r < total; ++r) v[r] += static_cast<int32_t>(blocks + r / perBlock);
  return v;
}

TEST(Cooperative, GridSyncCompletesWithEveryCtaResident) {
  for (unsigned threads : {1u, 2u, 3u}) {
    GridSyncRun run = runGridSync(true, threads, {6, 1, 1}, {64, 1, 1}, 3);
    ASSERT_TRUE(run.result.ok) << "host threads " << threads << ": " << run.diags.renderText();
    EXPECT_EQ(run.out, expected(6, 64, 3)) << "host threads " << threads;
  }
}

TEST(Cooperative, TwoDimensionalGridAndBlock) {
  GridSyncRun run = runGridSync(true, 2, {2, 2, 1}, {16, 4, 1}, 2);
  ASSERT_TRUE(run.result.ok) << run.diags.renderText();
  EXPECT_EQ(run.out, expected(4, 64, 2));
}

TEST(Cooperative, GridSyncWithoutACooperativeLaunchTraps) {
  GridSyncRun run = runGridSync(false, 1, {2, 1, 1}, {32, 1, 1}, 1);
  EXPECT_FALSE(run.result.ok);
  EXPECT_EQ(runtime::launchError(run.diags), "cudaErrorLaunchFailure");
  bool trapped = false;
  for (const ptx::Diagnostic &d : run.diags.all()) trapped |= d.kind == ptx::DiagKind::Trap;
  EXPECT_TRUE(trapped) << run.diags.renderText();
}

} // namespace
