// Diagnostics as JSON (ptx/DiagnosticJson.h): the documents parse, and every
// field comes back with the value it was given, whatever characters it holds.
#include "ptx/DiagnosticJson.h"
#include "ptx/IR.h"
#include "ptx/Parser.h"
#include "ptx/SourceLocation.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

using namespace ptx;

namespace {

Diagnostic sample() {
  Diagnostic d;
  d.kind = DiagKind::OutOfBounds;
  d.severity = Severity::Error;
  d.message = "write to \"buf\\0\"\n\ttab \x01 and caf\xc3\xa9";
  d.loc.file = "dir/k\".ptx";
  d.loc.line = 12;
  d.loc.column = 3;
  d.loc.function = "_Z1kPi";
  d.loc.cudaFile = "k.cu";
  d.loc.cudaLine = 40;
  d.fields = {{"thread", "100"}, {"address", "0x7f00"}};
  return d;
}

} // namespace

TEST(DiagnosticJson, EveryFieldRoundTrips) {
  Diagnostic d = sample();
  boost::json::value v = boost::json::parse(d.renderJson());
  const boost::json::object &o = v.as_object();
  EXPECT_EQ(o.at("kind"), "out-of-bounds");
  EXPECT_EQ(o.at("severity"), "error");
  EXPECT_EQ(o.at("message").as_string(), d.message);
  const boost::json::object &loc = o.at("location").as_object();
  EXPECT_EQ(loc.at("file").as_string(), d.loc.file);
  EXPECT_EQ(loc.at("line"), 12);
  EXPECT_EQ(loc.at("column"), 3);
  EXPECT_EQ(loc.at("function"), "_Z1kPi");
  EXPECT_EQ(loc.at("source"), (boost::json::object{{"file", "k.cu"}, {"line", 40}}));
  EXPECT_EQ(o.at("fields"), (boost::json::object{{"thread", "100"}, {"address", "0x7f00"}}));
  // The document layout is stable: keys in this order.
  std::vector<std::string> keys;
  for (const auto &kv : o) keys.emplace_back(kv.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "severity", "message", "location", "fields"}));
}

TEST(DiagnosticJson, OptionalPartsAreLeftOut) {
  Diagnostic d;
  d.kind = DiagKind::ParseError;
  d.message = "expected ';'";
  boost::json::object o = toJson(d);
  EXPECT_FALSE(o.contains("fields"));
  EXPECT_FALSE(o.at("location").as_object().contains("function"));
  EXPECT_FALSE(o.at("location").as_object().contains("source"));
  EXPECT_EQ(o.at("location"), (boost::json::object{{"file", ""}, {"line", 0}, {"column", 0}}));
}

TEST(DiagnosticJson, ListKeepsOrder) {
  DiagnosticList list;
  EXPECT_EQ(boost::json::parse(list.renderJson()), boost::json::array());
  list.add(sample());
  Diagnostic warning;
  warning.kind = DiagKind::DivergentBarrier;
  warning.severity = Severity::Warning;
  list.add(warning);
  boost::json::array a = boost::json::parse(list.renderJson()).as_array();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], toJson(sample()));
  EXPECT_EQ(a[1].at("kind"), "divergent-barrier");
  EXPECT_EQ(a[1].at("severity"), "warning");
}

// setCudaLocation: the CUDA line of an instruction's `.loc`, and the call its code was inlined
// into (the field inlined_at, after the fields already there), reach the text and the JSON.
TEST(DiagnosticLocation, InlinedCallSiteFromLoc) {
  const char *text = R"(.version 8.0
.target sm_80
.address_size 64
.file 1 "/src/k.cu"
.file 2 "/src/helpers.cuh"
.entry k()
{
.loc 2 52 3, function_name $L__info_string0, inlined_at 1 72 7
bar.sync 0;
.loc 1 80 1
ret;
}
)";
  DiagnosticList diags;
  std::unique_ptr<Module> m = parseModule(text, "k.ptx", diags);
  ASSERT_TRUE(m && !diags.hasErrors()) << diags.renderText();
  const Function &fn = *m->findFunction("k");
  Diagnostic inlined, plain;
  inlined.fields = {{"cta", "0,0,0"}};
  setCudaLocation(inlined, *m, fn, fn.instrs[0]);
  setCudaLocation(plain, *m, fn, fn.instrs[1]);
  EXPECT_EQ(inlined.loc.cudaFile, "/src/helpers.cuh");
  EXPECT_EQ(inlined.loc.cudaLine, 52u);
  using Fields = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(inlined.fields, (Fields{{"cta", "0,0,0"}, {"inlined_at", "/src/k.cu:72"}}));
  EXPECT_NE(inlined.renderText().find("at /src/helpers.cuh:52\n  cta: 0,0,0\n  inlined_at: /src/k.cu:72"),
            std::string::npos)
      << inlined.renderText();
  EXPECT_EQ(toJson(inlined).at("fields").at("inlined_at"), "/src/k.cu:72");
  EXPECT_EQ(plain.loc.cudaFile, "/src/k.cu");
  EXPECT_EQ(plain.loc.cudaLine, 80u);
  EXPECT_TRUE(plain.fields.empty());
}
