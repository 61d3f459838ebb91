// The verifier through the C++ API: each test parses a small module, verifies
// it and checks the diagnostics' kind, line and message. The same cases (and
// more) run from the command line in tests/lit/verify/.
#include "ptx/Verifier.h"
#include "ptx/Builder.h"
#include "ptx/Parser.h"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

using namespace ptx;

namespace {

/// A module for sm_80 / PTX 8.0 whose kernel body holds `statements`, one
/// per line starting at line 7.
std::string kernel(const std::string &statements,
                   const std::string &header = ".version 8.0\n.target sm_80\n") {
  return header + ".address_size 64\n.global .u32 g;\n.visible .entry k()\n{\n" + statements + "\n}\n";
}

/// Parses (expecting no parse error) and verifies; the verifier's result.
bool verify(const std::string &text, DiagnosticList &diags) {
  auto m = parseModule(text, "test.ptx", diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  return verifyModule(*m, diags);
}

const Diagnostic &only(const DiagnosticList &diags) {
  EXPECT_EQ(diags.all().size(), 1u) << diags.renderText();
  return diags.all().front();
}

TEST(Verifier, AcceptsValidModule) {
  DiagnosticList diags;
  EXPECT_TRUE(verify(kernel(".reg .b32 %r<3>;\n"
                            "ld.global.u8 %r1, [g];\n"
                            "add.f32 %r2, %r1, %r1;\n"
                            "bar.sync 15, 1024;\n"
                            "bar.arrive 1, 32;\n"
                            "ret;"),
                     diags));
  EXPECT_TRUE(diags.all().empty()) << diags.renderText();
}

TEST(Verifier, BarrierIdOutOfRange) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel("bar.sync 16;\nret;"), diags));
  const Diagnostic &d = only(diags);
  EXPECT_EQ(d.kind, DiagKind::VerifyError);
  EXPECT_EQ(d.severity, Severity::Error);
  EXPECT_EQ(d.loc.line, 7u);
  EXPECT_EQ(d.loc.column, 1u);
  EXPECT_EQ(d.message, "barrier id 16 is out of range 0..15 in 'bar.sync'");
  EXPECT_EQ(d.sourceLine, "bar.sync 16;");
}

TEST(Verifier, BarrierCounts) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel("bar.sync 1, 48;\nbar.arrive 2;\nbar.arrive 3, 0;\nret;"), diags));
  ASSERT_EQ(diags.all().size(), 3u) << diags.renderText();
  EXPECT_EQ(diags.all()[0].loc.line, 7u);
  EXPECT_EQ(diags.all()[0].message, "barrier thread count 48 in 'bar.sync' must be a multiple of 32");
  EXPECT_EQ(diags.all()[1].loc.line, 8u);
  EXPECT_EQ(diags.all()[1].message, "'bar.arrive' needs a thread count");
  EXPECT_EQ(diags.all()[2].loc.line, 9u);
  EXPECT_EQ(diags.all()[2].message,
            "barrier thread count 0 in 'bar.arrive' must be a non-zero multiple of 32");
}

TEST(Verifier, RegisterTypeAndShape) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel(".reg .b16 %h<3>;\n.reg .b32 %r<3>;\n"
                             "add.f32 %r0, %h1, %r2;\n"
                             "setp.eq.u32 %r0, %r1, 2;\n"
                             "mov.u32 5, %r1;\n"
                             "ret;"),
                      diags));
  ASSERT_EQ(diags.all().size(), 3u) << diags.renderText();
  EXPECT_EQ(diags.all()[0].loc.line, 9u);
  EXPECT_EQ(diags.all()[0].message, "operand 2 of 'add.f32': register '%h1' has type .b16, expected .f32");
  EXPECT_EQ(diags.all()[1].loc.line, 10u);
  EXPECT_EQ(diags.all()[1].message, "operand 1 of 'setp.eq.u32' must be a .pred register");
  EXPECT_EQ(diags.all()[2].loc.line, 11u);
  EXPECT_EQ(diags.all()[2].message, "operand 1 of 'mov.u32' must be a register");
}

TEST(Verifier, NamesAndSpaces) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel(".reg .b32 %r<2>;\n"
                             "ld.shared.u32 %r1, [g];\n"
                             "ld.global.u32 %r1, [nosuch];\n"
                             "bra.uni NOWHERE;\n"
                             "call.uni helper, ();\n"
                             "ret;"),
                      diags));
  ASSERT_EQ(diags.all().size(), 4u) << diags.renderText();
  EXPECT_EQ(diags.all()[0].message, "operand 2 of 'ld.shared.u32': 'g' is in .global, not .shared");
  EXPECT_EQ(diags.all()[1].message, "undefined symbol 'nosuch' in 'ld.global.u32'");
  EXPECT_EQ(diags.all()[2].message, "branch target 'NOWHERE' is not a label of this function");
  EXPECT_EQ(diags.all()[3].message, "call target 'helper' is not a declared function");
  EXPECT_EQ(diags.all()[3].loc.line, 11u);
}

TEST(Verifier, LabelsAreScopedByBlocks) {
  DiagnosticList diags;
  // Shadowing in a nested block is fine; a second L in one block is not, and
  // the outer block cannot see the nested block's M.
  EXPECT_FALSE(verify(kernel("L:\n{\nL:\nbra.uni L;\nM:\n}\nL:\nbra.uni M;\nret;"), diags));
  ASSERT_EQ(diags.all().size(), 2u) << diags.renderText();
  EXPECT_EQ(diags.all()[0].loc.line, 13u);
  EXPECT_EQ(diags.all()[0].message, "label 'L' is defined twice");
  EXPECT_EQ(diags.all()[1].loc.line, 14u);
  EXPECT_EQ(diags.all()[1].message, "label 'M' is defined in a nested block, not visible here");
}

TEST(Verifier, Availability) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel(".reg .b32 %r<2>;\nredux.sync.add.u32 %r1, %r0, 0xffffffff;\nret;",
                             ".version 7.0\n.target sm_75\n"),
                      diags));
  EXPECT_EQ(only(diags).message, "'redux.sync.add.u32' requires sm_80 or later (target is sm_75)");
  // Switched off, the same module verifies.
  DiagnosticList quiet;
  auto m = parseModule(kernel(".reg .b32 %r<2>;\nredux.sync.add.u32 %r1, %r0, 0xffffffff;\nret;",
                              ".version 7.0\n.target sm_75\n"),
                       "test.ptx", quiet);
  VerifyOptions options;
  options.checkAvailability = false;
  EXPECT_TRUE(verifyModule(*m, quiet, options)) << quiet.renderText();
}

TEST(Verifier, MissingHeader) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel("ret;", ""), diags));
  ASSERT_EQ(diags.all().size(), 2u) << diags.renderText();
  EXPECT_EQ(diags.all()[0].message, "missing .version directive");
  EXPECT_EQ(diags.all()[0].loc.line, 1u);
  EXPECT_EQ(diags.all()[1].message, "missing .target directive");
}

TEST(Verifier, RendersKindInTextAndJson) {
  DiagnosticList diags;
  EXPECT_FALSE(verify(kernel("bar.arrive 1, 0;\nret;"), diags));
  const Diagnostic &d = only(diags);
  std::string json = d.renderJson();
  boost::json::object parsed = boost::json::parse(json).as_object();
  EXPECT_EQ(parsed.at("kind"), "verify-error") << json;
  EXPECT_EQ(parsed.at("severity"), "error") << json;
  EXPECT_NE(std::string_view(parsed.at("message").as_string()).find("non-zero multiple of 32"),
            std::string::npos)
      << json;
  EXPECT_EQ(parsed.at("location").at("file"), "test.ptx") << json;
  EXPECT_EQ(parsed.at("location").at("line"), 7) << json;
  EXPECT_EQ(parsed.at("location").at("column"), 1) << json;
  boost::json::array list = boost::json::parse(diags.renderJson()).as_array();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0], parsed);
  std::string text = d.renderText();
  EXPECT_EQ(text.rfind("test.ptx:7:1: error: ", 0), 0u) << text;
  EXPECT_NE(text.find("[verify-error]"), std::string::npos) << text;
}

} // namespace

namespace {

/// Parses `statement` in a kernel; whether the builder's matcher finds the
/// instruction's operands fit its form, and whether the verifier accepts it.
struct Verdicts {
  bool builderFits = false, verifies = false;
  std::string diagnostics;
};
Verdicts verdicts(const std::string &statement) {
  DiagnosticList diags;
  auto m = parseModule(kernel(".reg .b32 %r<5>;\n.reg .pred %p<2>;\n" + statement + "\nDONE:\nret;"),
                       "test.ptx", diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  Verdicts v;
  const Function &f = *m->findFunction("k");
  const Instruction &in = f.instrs.front();
  bool vectorised = false;
  for (Mod mod : m->desc(in).modifiers()) vectorised |= mod == Mod::V2 || mod == Mod::V4 || mod == Mod::V8;
  v.builderFits = operandsFit(InstrTable::get().form(in.form), f, f.operandsOf(in), vectorised);
  v.verifies = verifyModule(*m, diags);
  v.diagnostics = diags.renderText();
  return v;
}

// The builder (choosing among an instruction's forms) and the verifier
// (explaining a mismatch) match operand shapes with one function. They used
// to have one each and disagreed: the builder took a register for a label
// and ignored '!', the verifier took a special register for a predicate and
// a vector of several registers for a plain source or destination.
TEST(Verifier, BuilderAndVerifierAgreeOnOperandShapes) {
  struct Case {
    const char *statement;
    const char *message; // the verifier's, when it rejects
  } cases[] = {
      {"bra %r1;", "operand 1 of 'bra' must be a label"},
      {"selp.b32 %r1, %r2, %r3, %laneid;", "operand 4 of 'selp.b32' must be a predicate"},
      {"add.u32 %r1, {%r2, %r3}, %r4;", "operand 2 of 'add.u32' must be a register or an immediate"},
      {"add.u32 {%r1, %r2}, %r3, %r4;", "operand 1 of 'add.u32' must be a register"},
      {"add.s32 %r1, !%r2, %r3;", "operand 2 of 'add.s32' must be a predicate without '!'"},
  };
  for (const Case &c : cases) {
    Verdicts v = verdicts(c.statement);
    EXPECT_FALSE(v.builderFits) << c.statement;
    EXPECT_FALSE(v.verifies) << c.statement;
    EXPECT_NE(v.diagnostics.find(c.message), std::string::npos) << c.statement << "\n" << v.diagnostics;
  }
  for (const char *ok : {"bra DONE;", "selp.b32 %r1, %r2, %r3, %p1;", "selp.b32 %r1, %r2, %r3, 1;",
                         "add.u32 %r1, %r2, 7;", "setp.lt.and.u32 %p1, %r1, %r2, !%p0;"}) {
    Verdicts v = verdicts(ok);
    EXPECT_TRUE(v.builderFits) << ok;
    EXPECT_TRUE(v.verifies) << ok << "\n" << v.diagnostics;
  }
}

} // namespace

namespace {

/// A module with `f(.param .align 4 .b8 p[16], .param .b32 q) -> .param .b32 r`
/// and a kernel whose body holds `call_site`.
std::string callModule(const std::string &callSite) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".func (.param .b32 r) f(.param .align 4 .b8 p[16], .param .b32 q)\n{\n"
         "  .reg .b32 %r<2>;\n  ld.param.b32 %r1, [p];\n  st.param.b32 [r], %r1;\n  ret;\n}\n"
         ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n  .reg .b16 %h<2>;\n" +
         callSite + "\n  ret;\n}\n";
}

} // namespace

// Issue 10, class 2: an argument or return variable smaller than the formal
// would have the callee read or write past it. ptxas 13 rejects exactly
// these (type = size, and alignment); the accepted forms are what it takes.
TEST(Verifier, CallArgumentsMatchTheirFormalsInSizeAndAlignment) {
  struct Case {
    const char *callSite;
    const char *error; // nullptr: ptxas accepts it
  };
  const Case cases[] = {
      {"{ .param .align 4 .b8 a[16]; .param .b32 b; .param .b32 v; call (v), f, (a, b); }", nullptr},
      {"{ .param .align 4 .b8 a[16]; .param .f32 b; .param .u32 v; call (v), f, (a, b); }", nullptr},
      {"{ .param .align 4 .b32 a[4]; .param .s32 b; .param .f32 v; call (v), f, (a, b); }", nullptr},
      {"{ .param .align 4 .b8 a[16]; .param .b32 v; call (v), f, (a, %r1); }", nullptr},
      {"{ .param .align 4 .b8 a[16]; .param .b32 v; call (v), f, (a, 5); }", nullptr},
      {"{ .param .align 4 .b8 a[8]; .param .b32 b; .param .b32 v; call (v), f, (a, b); }",
       "type of 'a' (8 bytes) in 'call' does not match formal parameter 'p' of 'f' (16 bytes)"},
      {"{ .param .align 4 .b8 a[16]; .param .b32 b; .param .b8 v; call (v), f, (a, b); }",
       "type of 'v' (1 bytes) in 'call' does not match formal parameter 'r' of 'f' (4 bytes)"},
      {"{ .param .align 4 .b8 a[16]; .param .b32 v; call (v), f, (a, %rd1); }",
       "type of '%rd1' (8 bytes) in 'call' does not match formal parameter 'q' of 'f' (4 bytes)"},
      {"{ .param .align 4 .b8 a[16]; .param .b32 v; call (v), f, (a, %h1); }",
       "type of '%h1' (2 bytes) in 'call' does not match formal parameter 'q' of 'f' (4 bytes)"},
      {"{ .param .align 8 .b8 a[16]; .param .b32 b; .param .b32 v; call (v), f, (a, b); }",
       "alignment of 'a' (8) in 'call' does not match formal parameter 'p' of 'f' (4)"},
      // Sibling blocks reuse names: each call is checked against its own block's declarations.
      {"{ .param .align 4 .b8 a[16]; .param .b32 b; .param .b32 v; call (v), f, (a, b); }\n"
       "{ .param .b64 a; .param .b32 b; .param .b32 v; call (v), f, (a, b); }",
       "type of 'a' (8 bytes) in 'call' does not match formal parameter 'p' of 'f' (16 bytes)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.callSite);
    DiagnosticList diags;
    bool ok = verify(callModule(c.callSite), diags);
    if (!c.error) {
      EXPECT_TRUE(ok) << diags.renderText();
      continue;
    }
    EXPECT_FALSE(ok);
    EXPECT_NE(diags.renderText().find(c.error), std::string::npos) << diags.renderText();
  }
}
