// Every corpus file parses and verifies without diagnostics; writing it and
// parsing the result gives the identical IR; writing is idempotent; and
// ptxas accepts what ptxvm writes.
#include "tests/Corpus.h"
#include "ptx/IRDump.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Writer.h"

#include <gtest/gtest.h>

using namespace ptx;
using ptxvm::test::CorpusFile;

namespace {

class CorpusTest : public ::testing::TestWithParam<CorpusFile> {};

std::unique_ptr<Module> parseOk(const std::string &text, const std::string &name,
                                FrontEnd fe = FrontEnd::Fast) {
  DiagnosticList diags;
  ParseOptions o;
  o.frontEnd = fe;
  auto m = parseModule(text, name, diags, o);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  return m;
}

/// The first line where two texts differ, for readable failures.
std::string firstDifference(const std::string &a, const std::string &b) {
  size_t line = 1, i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '\n') ++line;
    ++i;
  }
  auto lineAt = [](const std::string &s, size_t pos) {
    size_t b = s.rfind('\n', pos == 0 ? 0 : pos - 1);
    b = b == std::string::npos ? 0 : b + 1;
    size_t e = s.find('\n', pos);
    return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  return "line " + std::to_string(line) + ":\n  - " + lineAt(a, i) + "\n  + " + lineAt(b, i);
}

TEST_P(CorpusTest, ParsesAndVerifies) {
  std::string text = ptxvm::test::readText(GetParam().path);
  DiagnosticList diags;
  auto m = parseModule(text, GetParam().path, diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  verifyModule(*m, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
}

TEST_P(CorpusTest, RoundTripGivesIdenticalIR) {
  std::string text = ptxvm::test::readText(GetParam().path);
  auto first = parseOk(text, GetParam().path);
  std::string written = writeModule(*first);
  auto second = parseOk(written, "written.ptx");
  std::string a = dumpModule(*first, false), b = dumpModule(*second, false);
  EXPECT_TRUE(a == b) << "IR differs after write + parse at " << firstDifference(a, b);
  std::string rewritten = writeModule(*second);
  EXPECT_TRUE(written == rewritten) << "writing is not idempotent at " << firstDifference(written, rewritten);
}

TEST_P(CorpusTest, LazyBodiesGiveTheSameIR) {
  std::string text = ptxvm::test::readText(GetParam().path);
  auto full = parseOk(text, GetParam().path);
  DiagnosticList diags;
  ParseOptions o;
  o.lazyBodies = true;
  auto lazy = parseModule(text, GetParam().path, diags, o);
  for (const Function &f : lazy->functions) EXPECT_TRUE(!f.hasBody || !f.bodyParsed);
  materializeAll(*lazy, diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  std::string a = dumpModule(*full), b = dumpModule(*lazy);
  EXPECT_TRUE(a == b) << "lazy parse differs at " << firstDifference(a, b);
}

TEST_P(CorpusTest, PtxasAcceptsWrittenPtx) {
  if (ptxvm::test::ptxasPath().empty()) GTEST_SKIP() << "ptxas not found: written PTX not checked";
  std::string text = ptxvm::test::readText(GetParam().path);
  auto m = parseOk(text, GetParam().path);
  std::string log;
  EXPECT_TRUE(ptxvm::test::ptxasAccepts(writeModule(*m), GetParam().arch, log)) << log;
}

TEST_P(CorpusTest, PtxasAcceptsWrittenPtxWithoutDebugInfo) {
  if (ptxvm::test::ptxasPath().empty()) GTEST_SKIP() << "ptxas not found: written PTX not checked";
  std::string text = ptxvm::test::readText(GetParam().path);
  auto m = parseOk(text, GetParam().path);
  WriteOptions wo;
  wo.debugInfo = false;
  std::string log;
  EXPECT_TRUE(ptxvm::test::ptxasAccepts(writeModule(*m, wo), GetParam().arch, log)) << log;
}

TEST_P(CorpusTest, FrontEndsAgree) {
  ptx::DiagnosticList probe;
  ptx::parseModuleAntlr(".version 8.0\n.target sm_80\n.address_size 64\n", "probe.ptx", probe);
  for (const ptx::Diagnostic &d : probe.all())
    if (d.kind == ptx::DiagKind::Unsupported) GTEST_SKIP() << "built without the ANTLR front end (PTXVM_ANTLR=OFF)";
  std::string text = ptxvm::test::readText(GetParam().path);
  auto fast = parseOk(text, GetParam().path, FrontEnd::Fast);
  auto antlr = parseOk(text, GetParam().path, FrontEnd::Antlr);
  std::string a = dumpModule(*fast), b = dumpModule(*antlr);
  EXPECT_TRUE(a == b) << "fast and ANTLR IR differ at " << firstDifference(a, b);
  EXPECT_EQ(writeModule(*fast), writeModule(*antlr));
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(ptxvm::test::corpusFiles()),
                         [](const ::testing::TestParamInfo<CorpusFile> &info) { return info.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusTest);

TEST(Corpus, IsNotEmpty) {
  EXPECT_FALSE(ptxvm::test::corpusFiles().empty()) << "no PTX found in kernels/ptx or " << PTXVM_CORPUS_DIR;
}

} // namespace
