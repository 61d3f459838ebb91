// The PTXVM_* settings of the CUDA runtime replacement (runtime/cudart/Config).
#include "runtime/cudart/Config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

cudart::Config readFrom(const std::map<std::string, std::string> &env, std::vector<std::string> &warnings) {
  return cudart::Config::read(
      [&](const char *name) -> const char * {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      warnings);
}

TEST(CudartConfig, DefaultsWithoutEnvironment) {
  std::vector<std::string> warnings;
  cudart::Config c = readFrom({}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.device, "emulator");
  EXPECT_EQ(c.threads, 0u);
  EXPECT_FALSE(c.racecheck);
  EXPECT_FALSE(c.randomSchedule);
  EXPECT_EQ(c.maxInstructions, 20'000'000'000ull);
  EXPECT_TRUE(c.reportPath.empty());
}

TEST(CudartConfig, ReadsEverySetting) {
  std::vector<std::string> warnings;
  cudart::Config c = readFrom({{"PTXVM_DEVICE", "emulator"},
                               {"PTXVM_THREADS", "3"},
                               {"PTXVM_RACECHECK", "1"},
                               {"PTXVM_MAX_INSTRUCTIONS", "0x1000"},
                               {"PTXVM_SCHEDULE", "random"},
                               {"PTXVM_SEED", "42"},
                               {"PTXVM_REPORT", "/tmp/r.json"},
                               {"PTXVM_SAVE_PTX", "/tmp/ptx"}},
                              warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.threads, 3u);
  EXPECT_TRUE(c.racecheck);
  EXPECT_EQ(c.maxInstructions, 4096u);
  EXPECT_TRUE(c.randomSchedule);
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(c.reportPath, "/tmp/r.json");
  EXPECT_EQ(c.ptxDirectory, "/tmp/ptx");
}

TEST(CudartConfig, MalformedValuesKeepDefaultsAndWarn) {
  std::vector<std::string> warnings;
  cudart::Config c = readFrom({{"PTXVM_THREADS", "many"},
                               {"PTXVM_RACECHECK", "maybe"},
                               {"PTXVM_MAX_INSTRUCTIONS", "0"},
                               {"PTXVM_SCHEDULE", "fair"},
                               {"PTXVM_DEVICE", "tpu"},
                               {"PTXVM_SEED", "-1"}},
                              warnings);
  ASSERT_EQ(warnings.size(), 6u);
  EXPECT_EQ(warnings[0].rfind("unknown device 'tpu' (built in: emulator, ", 0), 0u) << warnings[0];
  EXPECT_EQ(warnings[1], "ignoring PTXVM_THREADS='many' (expected a number of host threads, 1 to 4096)");
  EXPECT_EQ(c.threads, 0u);
  EXPECT_FALSE(c.racecheck);
  EXPECT_EQ(c.maxInstructions, 20'000'000'000ull);
  EXPECT_FALSE(c.randomSchedule);
  EXPECT_EQ(c.seed, 1u);
  // A device that is not built in is kept, not replaced by the emulator: the
  // runtime then serves no device (cudaErrorNoDevice) instead of another one.
  EXPECT_EQ(c.device, "tpu");
}

TEST(CudartConfig, RacecheckAcceptsWordsAndZero) {
  cudart::Config c;
  std::string warning;
  EXPECT_TRUE(cudart::applySetting(c, "PTXVM_RACECHECK", "on", warning));
  EXPECT_TRUE(c.racecheck);
  EXPECT_TRUE(cudart::applySetting(c, "PTXVM_RACECHECK", "0", warning));
  EXPECT_FALSE(c.racecheck);
  EXPECT_FALSE(cudart::applySetting(c, "PTXVM_THREADS", "5000", warning));
  EXPECT_FALSE(cudart::applySetting(c, "PTXVM_THREADS", "4x", warning));
}

} // namespace
