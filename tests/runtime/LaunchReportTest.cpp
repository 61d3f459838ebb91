// The launch report (runtime/cudart/LaunchReport.h) that `ptxvm run --report`
// and PTXVM_REPORT write: parsed back, it holds every launch and diagnostic.
#include "runtime/cudart/LaunchReport.h"

#include "ptx/Version.h"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace {

runtime::LaunchResult failedLaunch() {
  runtime::LaunchResult r;
  r.ok = false;
  r.status = "failed";
  r.error = "cudaErrorIllegalAddress";
  r.stats.warpInstructions = 12;
  r.stats.threadInstructions = 300;
  r.wallSeconds = 0.00125;
  r.stats.divergentBranches = 2;
  return r;
}

} // namespace

TEST(LaunchReport, LaunchObject) {
  runtime::LaunchResult ok;
  ok.ok = true;
  ok.status = "completed";
  boost::json::object o = cudart::launchJson("k\"1", {2, 1, 1}, {64, 2, 1}, ok);
  EXPECT_EQ(o.at("kernel"), "k\"1");
  EXPECT_EQ(o.at("grid"), (boost::json::array{2, 1, 1}));
  EXPECT_EQ(o.at("block"), (boost::json::array{64, 2, 1}));
  EXPECT_EQ(o.at("status"), "completed");
  EXPECT_TRUE(o.at("error").is_null());

  boost::json::object f = cudart::launchJson("f", {1, 1, 1}, {32, 1, 1}, failedLaunch());
  EXPECT_EQ(f.at("error"), "cudaErrorIllegalAddress");
  EXPECT_EQ(f.at("thread_instructions"), 300);
  EXPECT_EQ(f.at("warp_instructions"), 12);
  EXPECT_DOUBLE_EQ(f.at("wall_seconds").as_double(), 0.00125);
  EXPECT_EQ(f.at("divergent_branches"), 2);
}

TEST(LaunchReport, WrittenFileParses) {
  std::vector<boost::json::object> launches{
      cudart::launchJson("a", {1, 1, 1}, {32, 1, 1}, failedLaunch()),
      cudart::launchJson("b", {4, 1, 1}, {128, 1, 1}, failedLaunch()),
  };
  ptx::DiagnosticList diags;
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::SharedRace;
  d.message = "race on \"x\"\n";
  d.fields = {{"thread", "7"}};
  diags.add(d);
  std::string path = ::testing::TempDir() + "launch_report_test.json";
  ASSERT_TRUE(cudart::writeReport(path, launches, diags));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  boost::json::object report = boost::json::parse(text.str()).as_object();
  ASSERT_EQ(report.size(), 3u);
  // The build that wrote it (ptx/Version.h).
  const boost::json::object &build = report.at("ptxvm").as_object();
  EXPECT_EQ(build.at("version").as_string(), ptx::buildInfo().version);
  EXPECT_EQ(build.at("commit").as_string(), ptx::buildInfo().commit);
  EXPECT_EQ(build.at("ptx_isa"), "9.0");
  EXPECT_GE(build.at("sm").at("max").as_int64(), 90);
  EXPECT_TRUE(build.contains("build_type") && build.contains("llvm"));
  const boost::json::array &l = report.at("launches").as_array();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].at("kernel"), "a");
  EXPECT_EQ(l[1].at("kernel"), "b");
  EXPECT_EQ(l[1].at("grid"), (boost::json::array{4, 1, 1}));
  const boost::json::array &diagnostics = report.at("diagnostics").as_array();
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].at("kind"), "shared-race");
  EXPECT_EQ(diagnostics[0].at("message"), "race on \"x\"\n");
  EXPECT_EQ(diagnostics[0].at("fields").at("thread"), "7");
}

TEST(LaunchReport, UnwritablePathFails) {
  EXPECT_FALSE(cudart::writeReport("/nonexistent-dir/report.json", {}, ptx::DiagnosticList()));
}
