// The differential test: every sample line of the instruction table
// (tests/table/*_forms.txt) whose instruction the emulator can execute runs
// in a generated kernel over edge and random inputs, in full and partial
// warps, and every result, memory byte and carry flag is compared with the
// C++ references of tests/emulator/reference/. A form without a reference
// fails. DifferentialSummary prints how the table's forms divide up.
//
// Two environment variables help record hardware answers (see
// tests/emulator/gpu/README.md): PTXVM_DIFF_EXPORT=DIR writes each form
// that runs on sm_90 as a kernel and its inputs; PTXVM_DIFF_GPU=DIR checks
// the outputs a GPU wrote there against the references as well.
#include "tests/emulator/DiffKernel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using namespace ptxvm::test;
namespace fs = std::filesystem;

namespace {

struct Named {
  TableSample sample;
  std::string name;
};
void PrintTo(const Named &n, std::ostream *os) {
  *os << n.sample.file << ":" << n.sample.line << ": " << n.sample.text;
}

std::vector<Named> executableSamples() {
  std::vector<Named> out;
  auto samples = loadTableSamples();
  for (const TableSample &s : loadProbeSamples()) samples.push_back(s);
  for (const TableSample &s : samples) {
    DecodedSample d = decodeSample(s);
    if (d.kind != SampleKind::Executable) continue;
    std::string stem = s.file.substr(0, s.file.find('_'));
    out.push_back({s, stem + "_" + std::to_string(s.line)});
  }
  return out;
}

template <typename T> bool writeFile(const fs::path &p, const std::vector<T> &v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char *>(v.data()), std::streamsize(v.size() * sizeof(T)));
  return bool(f);
}
template <typename T> bool readFile(const fs::path &p, std::vector<T> &v, size_t count) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  v.resize(count);
  f.read(reinterpret_cast<char *>(v.data()), std::streamsize(count * sizeof(T)));
  return bool(f);
}

class Differential : public ::testing::TestWithParam<Named> {};

TEST_P(Differential, MatchesTheReference) {
  const Named &n = GetParam();
  DecodedSample d = decodeSample(n.sample);
  ASSERT_EQ(d.kind, SampleKind::Executable) << n.sample.text;
  FormCase c;
  std::string why;
  ASSERT_TRUE(buildCase(n.sample, d, c, why)) << n.sample.text << ": " << why;
  const char *exportDir = std::getenv("PTXVM_DIFF_EXPORT");
  const char *gpuDir = std::getenv("PTXVM_DIFF_GPU");
  const bool onSm90 = c.sm <= 90;
  if (exportDir && onSm90) {
    fs::create_directories(exportDir);
    std::ofstream(fs::path(exportDir) / (n.name + ".ptx")) << caseKernel(c, "sm_90a");
  }
  size_t checked = 0, gpuChecked = 0;
  auto launches = caseLaunches(c, 0x5eed);
  for (size_t i = 0; i < launches.size(); ++i) {
    const Launch &l = launches[i];
    Outputs out;
    ASSERT_TRUE(runOnEmulator(c, l, out, why)) << n.sample.text << "\n" << c.kernel << "\n" << why;
    bool noReference = false;
    auto bad = checkOutputs(c, l, out, 12, checked, noReference);
    ASSERT_FALSE(noReference) << "no reference semantics for the executable form '" << n.sample.text
                              << "': add one under tests/emulator/reference/";
    std::string msg;
    for (const std::string &b : bad) msg += "  " + b + "\n";
    EXPECT_TRUE(bad.empty()) << n.sample.text << " (launch " << i << ": " << l.grid << "x" << l.block
                             << ", n=" << l.n << ")\n"
                             << msg;
    const std::string stem = n.name + "." + std::to_string(i);
    const size_t T = size_t(l.grid) * l.block, R = c.regs.size();
    if (exportDir && onSm90) {
      fs::path dir(exportDir);
      std::ofstream(dir / (stem + ".shape")) << l.grid << " " << l.block << " " << l.n << " " << R << "\n";
      writeFile(dir / (stem + ".in"), l.in);
      writeFile(dir / (stem + ".mem"), l.memory);
    }
    if (gpuDir && onSm90) {
      fs::path dir(gpuDir);
      Outputs gpu;
      if (!readFile(dir / (stem + ".pre"), gpu.pre, T * R) ||
          !readFile(dir / (stem + ".post"), gpu.post, T * R) ||
          !readFile(dir / (stem + ".memout"), gpu.memory, T * kSlotBytes))
        continue;
      auto gbad = checkOutputs(c, l, gpu, 12, gpuChecked, noReference);
      std::string gmsg;
      for (const std::string &b : gbad) gmsg += "  " + b + "\n";
      EXPECT_TRUE(gbad.empty()) << "GPU vs reference: " << n.sample.text << " (launch " << i << ")\n" << gmsg;
    }
  }
  EXPECT_GT(checked, 0u) << n.sample.text << ": nothing was compared";
  RecordProperty("values_checked", static_cast<int>(checked));
}

INSTANTIATE_TEST_SUITE_P(TableForms, Differential, ::testing::ValuesIn(executableSamples()),
                         [](const ::testing::TestParamInfo<Named> &i) { return i.param.name; });

TEST(DifferentialSummary, FormsOfTheTable) {
  std::map<SampleKind, std::vector<std::string>> byKind;
  auto samples = loadTableSamples();
  size_t built = 0;
  for (const TableSample &s : samples) {
    DecodedSample d = decodeSample(s);
    if (d.kind == SampleKind::Executable) {
      FormCase c;
      std::string why;
      if (buildCase(s, d, c, why)) ++built;
    }
    byKind[d.kind].push_back(s.file + ":" + std::to_string(s.line) + ": " + s.text);
  }
  std::printf("%zu sample lines in tests/table/*_forms.txt\n", samples.size());
  std::printf("%zu decode with a handler and take part in the differential test (%zu kernels built)\n",
              byKind[SampleKind::Executable].size(), built);
  for (auto &[k, v] : byKind) {
    if (k == SampleKind::Executable) continue;
    std::printf("%4zu  %s\n", v.size(), sampleKindName(k));
    if (k == SampleKind::Unsupported || k == SampleKind::Unparsed)
      for (auto &l : v) std::printf("        %s\n", l.c_str());
  }
  EXPECT_EQ(built, byKind[SampleKind::Executable].size());
  EXPECT_TRUE(byKind[SampleKind::Unparsed].empty());
}

} // namespace
