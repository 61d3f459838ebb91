// When kernels compile and where compiled code is kept: tiered engines run
// on the interpreter until hot and then on compiled code with the same
// results and counts; identical kernels share compiled code in a process;
// the on-disk cache reads back exactly what it stored and nothing damaged.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "tests/emulator/Harness.h"
#include "translator/ObjectCache.h"
#include "translator/Translator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Each thread sums i * tid for i < n, with a divergent exit for odd lanes
// halfway, and stores the sum: a loop long enough to make the kernel hot.
const char *kLoop = R"(
.visible .entry loop(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %d<4>;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mad.lo.u32 %r3, %r1, %r2, %r0;
  ld.param.u32 %r4, [n];
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
  and.b32 %r7, %r0, 1;
LOOP:
  mad.lo.u32 %r5, %r6, %r3, %r5;
  add.u32 %r6, %r6, 1;
  setp.eq.u32 %p1, %r7, 1;
  shr.u32 %r2, %r4, 1;
  setp.eq.and.u32 %p2, %r6, %r2, %p1;
  @%p2 bra DONE;
  setp.lt.u32 %p0, %r6, %r4;
  @%p0 bra LOOP;
DONE:
  ld.param.u64 %d0, [out];
  mul.wide.u32 %d1, %r3, 4;
  add.u64 %d2, %d0, %d1;
  st.global.u32 [%d2], %r5;
  ret;
}
)";

struct Result {
  emu::LaunchResult launch;
  std::vector<uint32_t> out;
};

class Tiering : public ::testing::Test {
protected:
  void SetUp() override {
    ptx::DiagnosticList diags;
    module_ = ptx::parseModule(ptxvm::test::ptxModule(kLoop), "loop.ptx", diags);
    ASSERT_TRUE(module_ && !diags.hasErrors()) << diags.renderText();
    kernel_ = device_.decode(*module_, "loop", diags);
    ASSERT_TRUE(kernel_) << diags.renderText();
  }

  Result launch(emu::Engine *engine, uint32_t n) {
    const uint32_t threads = 4 * 64;
    uint64_t out = device_.global.allocate(threads * 4);
    emu::LaunchConfig config;
    config.grid = {4, 1, 1};
    config.block = {64, 1, 1};
    config.threads = 1;
    config.engine = engine;
    config.params.assign(kernel_->paramBytes, 0);
    std::memcpy(&config.params[kernel_->paramOffsets[0]], &out, 8);
    std::memcpy(&config.params[kernel_->paramOffsets[1]], &n, 4);
    ptx::DiagnosticList diags;
    Result r;
    r.launch = device_.launch(*kernel_, config, diags);
    EXPECT_TRUE(r.launch.ok) << diags.renderText();
    r.out.resize(threads);
    device_.global.read(out, r.out.data(), threads * 4);
    device_.global.free(out);
    return r;
  }

  static translator::JitOptions tieredOptions(uint64_t threshold) {
    translator::JitOptions o;
    o.threshold = threshold;
    o.synchronous = true;
    o.diskCache = false;
    return o;
  }

  emu::Device device_;
  std::unique_ptr<ptx::Module> module_;
  std::unique_ptr<emu::Kernel> kernel_;
};

TEST_F(Tiering, AHotKernelSwitchesToCompiledCodeWithTheSameResultsAndCounts) {
  const Result interpreted = launch(nullptr, 3000);
  auto engine = translator::CompiledEngine::tiered(*kernel_, tieredOptions(50));
  const Result tiered = launch(engine.get(), 3000);
  const translator::TierStatus s = engine->status();
  EXPECT_FALSE(s.eager);
  EXPECT_TRUE(s.requested);
  ASSERT_TRUE(s.compiled) << s.report.error;
  // It switched during the launch: some warps ran the interpreter first.
  EXPECT_GE(s.interpreted, 50 * kernel_->code.size());
  EXPECT_LT(s.interpreted, tiered.launch.warpInstructions);
  EXPECT_GT(s.report.code.native, 0u);
  EXPECT_EQ(interpreted.out, tiered.out);
  EXPECT_EQ(interpreted.launch.warpInstructions, tiered.launch.warpInstructions);
  EXPECT_EQ(interpreted.launch.threadInstructions, tiered.launch.threadInstructions);
  EXPECT_EQ(interpreted.launch.perWarp, tiered.launch.perWarp);
  // The next launch runs compiled code from its first instruction.
  const Result again = launch(engine.get(), 3000);
  EXPECT_EQ(engine->status().interpreted, s.interpreted);
  EXPECT_EQ(interpreted.out, again.out);
}

TEST_F(Tiering, AColdKernelStaysOnTheInterpreter) {
  const Result interpreted = launch(nullptr, 10);
  auto engine = translator::CompiledEngine::tiered(*kernel_, tieredOptions(1'000'000));
  const Result tiered = launch(engine.get(), 10);
  const translator::TierStatus s = engine->status();
  EXPECT_FALSE(s.requested);
  EXPECT_FALSE(s.compiled);
  EXPECT_EQ(s.interpreted, tiered.launch.warpInstructions);
  EXPECT_EQ(interpreted.out, tiered.out);
}

TEST_F(Tiering, TheBackgroundCompilerOutlivesItsEngine) {
  // Compiled on the background thread while the launch goes on; the engine
  // (and then the kernel) may go away before the compilation ends.
  translator::JitOptions o = tieredOptions(1);
  o.synchronous = false;
  const Result interpreted = launch(nullptr, 2000);
  {
    auto engine = translator::CompiledEngine::tiered(*kernel_, o);
    const Result tiered = launch(engine.get(), 2000);
    EXPECT_EQ(interpreted.out, tiered.out);
    EXPECT_TRUE(engine->status().requested);
  }
  auto engine = translator::CompiledEngine::tiered(*kernel_, o);
  launch(engine.get(), 2000);
  engine->waitForCompilation();
  const translator::TierStatus s = engine->status();
  EXPECT_TRUE(s.compiled) << s.report.error;
  EXPECT_EQ(interpreted.out, launch(engine.get(), 2000).out);
}

TEST_F(Tiering, IdenticalKernelsShareCompiledCodeInAProcess) {
  translator::JitOptions o;
  o.eager = true;
  o.diskCache = false;
  translator::CompileReport first, second;
  auto a = translator::CompiledEngine::compile(*kernel_, o, first);
  ASSERT_TRUE(a) << first.error;
  // The same PTX in another module: another kernel object, the same code.
  ptx::DiagnosticList diags;
  auto other = ptx::parseModule(ptxvm::test::ptxModule(kLoop), "other.ptx", diags);
  emu::Device device;
  auto k = device.decode(*other, "loop", diags);
  ASSERT_TRUE(k) << diags.renderText();
  auto b = translator::CompiledEngine::compile(*k, o, second);
  ASSERT_TRUE(b) << second.error;
  EXPECT_EQ(first.key, second.key);
  EXPECT_EQ(second.cache, translator::CacheResult::Memory);
  EXPECT_FALSE(second.diskCache);
}

class ObjectCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ptxvm-objcache-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ObjectCacheTest, ReadsBackWhatItStored) {
  translator::ObjectCache cache(dir_.string());
  EXPECT_FALSE(cache.load("AB12"));
  std::string object(1000, '\0');
  for (size_t i = 0; i < object.size(); ++i) object[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(cache.store("AB12", object));
  EXPECT_EQ(cache.load("AB12"), object);
  ASSERT_TRUE(cache.store("AB12", "replaced"));
  EXPECT_EQ(cache.load("AB12"), "replaced");
  ASSERT_TRUE(cache.store("EMPTY", ""));
  EXPECT_EQ(cache.load("EMPTY"), "");
  cache.drop("AB12");
  EXPECT_FALSE(cache.load("AB12"));
}

TEST_F(ObjectCacheTest, DamagedOrForeignFilesAreMisses) {
  translator::ObjectCache cache(dir_.string());
  const std::string object(4096, 'x');
  ASSERT_TRUE(cache.store("K", object));
  const fs::path file = dir_ / "K.o";
  // One flipped byte in the object.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('y');
  }
  EXPECT_FALSE(cache.load("K"));
  // Cut short (a writer that died without the rename would leave no file at
  // all; a file truncated later is still refused).
  ASSERT_TRUE(cache.store("K", object));
  fs::resize_file(file, 2000);
  EXPECT_FALSE(cache.load("K"));
  fs::resize_file(file, 3);
  EXPECT_FALSE(cache.load("K"));
  // Not ours.
  std::ofstream(file, std::ios::binary | std::ios::trunc) << std::string(64, 'z');
  EXPECT_FALSE(cache.load("K"));
}

TEST_F(ObjectCacheTest, StaysUnderItsSizeLimitDroppingTheLeastRecentlyUsed) {
  translator::ObjectCache cache(dir_.string(), 10'000);
  const std::string object(3000, 'o');
  ASSERT_TRUE(cache.store("A", object));
  ASSERT_TRUE(cache.store("B", object));
  ASSERT_TRUE(cache.store("C", object));
  // A used most recently: B is the oldest now.
  const auto past = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(dir_ / "B.o", past);
  fs::last_write_time(dir_ / "C.o", past + std::chrono::minutes(1));
  fs::last_write_time(dir_ / "A.o", past + std::chrono::minutes(2));
  EXPECT_TRUE(cache.load("A"));
  ASSERT_TRUE(cache.store("D", object)); // 12,000 bytes: trimmed to 7,500
  EXPECT_FALSE(fs::exists(dir_ / "B.o"));
  EXPECT_FALSE(fs::exists(dir_ / "C.o"));
  EXPECT_TRUE(cache.load("A"));
  EXPECT_TRUE(cache.load("D"));
}

TEST_F(ObjectCacheTest, AnUnwritableDirectoryIsNoCache) {
  std::ofstream(dir_.string()) << "a file where the directory should be";
  translator::ObjectCache cache((dir_ / "sub").string());
  EXPECT_FALSE(cache.store("K", "object"));
  EXPECT_FALSE(cache.load("K"));
  fs::remove(dir_);
}

} // namespace
