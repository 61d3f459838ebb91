// Which instruction forms of the table the emulator has a handler for: every
// sample line (tests/table/*_forms.txt, tests/emulator/probe_forms.txt) that
// decoded to a handler when handler_coverage.txt was written must still do.
// The list was written by the first-match chain of select functions that the
// handler registry replaced; a form may gain a handler, none may lose one.
// PTXVM_WRITE_HANDLER_COVERAGE=1 rewrites the list (after adding handlers).
#include "tests/emulator/TableSamples.h"

#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

using namespace ptxvm::test;
namespace fs = std::filesystem;

namespace {

fs::path coverageFile() { return fs::path(PTXVM_SOURCE_DIR) / "tests" / "emulator" / "handler_coverage.txt"; }

/// "file:line: text" of every sample whose instruction decodes to a handler.
std::set<std::string> samplesWithHandlers(size_t &total) {
  std::set<std::string> out;
  auto samples = loadTableSamples();
  for (const TableSample &s : loadProbeSamples()) samples.push_back(s);
  total = samples.size();
  for (const TableSample &s : samples) {
    ptx::DiagnosticList diags;
    auto module = ptx::parseModule(wrapSample(s.text), s.file, diags);
    if (diags.hasErrors()) continue;
    ptx::verifyModule(*module, diags);
    if (diags.hasErrors()) continue;
    emu::Device device;
    auto kernel = device.decode(*module, "k", diags);
    if (!kernel || kernel->code.empty() || !kernel->code[0].run) continue;
    out.insert(s.file + ":" + std::to_string(s.line) + ": " + s.text);
  }
  return out;
}

TEST(HandlerCoverage, EveryFormThatHadAHandlerStillHasOne) {
  size_t total = 0;
  std::set<std::string> now = samplesWithHandlers(total);
  if (std::getenv("PTXVM_WRITE_HANDLER_COVERAGE")) {
    std::ofstream f(coverageFile());
    f << "# Sample lines that decode to a handler (tests/emulator/HandlerCoverageTest.cpp).\n";
    for (const std::string &l : now) f << l << "\n";
  }
  std::ifstream in(coverageFile());
  ASSERT_TRUE(in) << coverageFile();
  std::string line;
  size_t expected = 0;
  std::vector<std::string> lost;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++expected;
    if (!now.count(line)) lost.push_back(line);
  }
  std::string msg;
  for (const std::string &l : lost) msg += "  " + l + "\n";
  EXPECT_TRUE(lost.empty()) << lost.size() << " forms lost their handler:\n" << msg;
  EXPECT_GT(expected, 500u) << "the coverage list is suspiciously short";
  std::printf("%zu of %zu sample lines decode to a handler (%zu listed)\n", now.size(), total, expected);
}

} // namespace
