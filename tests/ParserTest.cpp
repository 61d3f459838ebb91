// The fast front end on every construct of the PTX grammar; each test parses
// a small module and checks the IR it produced.
#include "ptx/Parser.h"
#include "ptx/IRDump.h"
#include "ptx/Lexer.h"
#include "ptx/Writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace ptx;

namespace {

const char kHeader[] = ".version 8.5\n.target sm_90\n.address_size 64\n";

std::unique_ptr<Module> parse(const std::string &text, DiagnosticList &diags, bool withHeader = true) {
  return parseModule(withHeader ? kHeader + text : text, "test.ptx", diags);
}

std::unique_ptr<Module> parseOk(const std::string &text) {
  DiagnosticList diags;
  auto m = parse(text, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.renderText();
  return m;
}

std::string firstError(const std::string &text) {
  DiagnosticList diags;
  parse(text, diags);
  return diags.all().empty() ? "" : diags.all()[0].renderText();
}

/// The body of a kernel with the given statements, and its IR.
const Function &kernel(const Module &m) { return m.functions.back(); }

std::string body(const std::string &statements) { return ".entry k()\n{\n" + statements + "\n}\n"; }

TEST(Lexer, TokensCarryLinesAndColumns) {
  Lexer lex("  add.s32 %r1, 0x1F;\n// comment\n/* a\nb */ .reg");
  Token t = lex.next();
  EXPECT_EQ(t.kind, Tok::Ident);
  EXPECT_EQ(t.text, "add");
  EXPECT_EQ(t.loc.line, 1u);
  EXPECT_EQ(t.loc.column, 3u);
  EXPECT_EQ(lex.extendDotted(t), "add.s32");
  t = lex.next();
  EXPECT_EQ(t.text, "%r1");
  lex.next();
  t = lex.next();
  EXPECT_EQ(t.kind, Tok::Number);
  EXPECT_EQ(t.text, "0x1F");
  lex.next();
  t = lex.next();
  EXPECT_EQ(t.kind, Tok::Directive);
  EXPECT_EQ(t.text, ".reg");
  EXPECT_EQ(t.loc.line, 4u);
  EXPECT_EQ(t.loc.column, 6u);
  EXPECT_EQ(lex.next().kind, Tok::End);
}

TEST(Lexer, ModifiersWithDoubleColonsAreOneWord) {
  Lexer lex("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [");
  Token t = lex.next();
  EXPECT_EQ(lex.extendDotted(t), "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  EXPECT_TRUE(lex.next().is('['));
}

TEST(Lexer, FloatsAndExponents) {
  Lexer lex("0f3F800000 0d3FF0000000000000 1.5e-3 10U");
  EXPECT_EQ(lex.next().text, "0f3F800000");
  EXPECT_EQ(lex.next().text, "0d3FF0000000000000");
  EXPECT_EQ(lex.next().text, "1.5e-3");
  EXPECT_EQ(lex.next().text, "10U");
}

TEST(Lexer, UnterminatedCommentIsInvalid) {
  Lexer lex("add /* never closed");
  lex.next();
  EXPECT_EQ(lex.next().kind, Tok::Invalid);
}

TEST(Parser, ModuleHeader) {
  auto m = parseOk("");
  EXPECT_EQ(m->versionMajor, 8u);
  EXPECT_EQ(m->versionMinor, 5u);
  ASSERT_EQ(m->targets.size(), 1u);
  EXPECT_EQ(m->targets[0], "sm_90");
  EXPECT_EQ(m->addressSize, 64u);
  EXPECT_EQ(m->smVersion(), 90u);
  DiagnosticList d;
  auto m2 = parse(".version 7.0\n.target sm_80, texmode_independent, debug\n", d, false);
  EXPECT_EQ(m2->targets.size(), 3u);
}

TEST(Parser, EntryWithParametersAndPerformanceDirectives) {
  auto m = parseOk(R"(
.visible .entry k(
  .param .u64 .ptr .global .align 16 k_p0,
  .param .align 8 .b8 k_p1[16],
  .param .u32 k_p2
)
.maxntid 256, 1, 1
.minnctapersm 2
{
  ret;
}
)");
  const Function &f = kernel(*m);
  EXPECT_TRUE(f.isKernel);
  EXPECT_EQ(f.linkage, Linkage::Visible);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_EQ(f.params[0].attrs, static_cast<uint8_t>(VarAttr::Ptr));
  EXPECT_EQ(f.params[0].ptrSpace, Mod::Global);
  EXPECT_EQ(f.params[0].ptrAlignment, 16u);
  EXPECT_EQ(f.params[1].alignment, 8u);
  ASSERT_EQ(f.params[1].dims.size(), 1u);
  EXPECT_EQ(f.params[1].dims[0], 16u);
  ASSERT_EQ(f.directives.size(), 2u);
  EXPECT_EQ(f.directives[0].kind, DirectiveKind::MaxNTid);
  EXPECT_EQ(f.directives[0].values, (std::vector<uint32_t>{256, 1, 1}));
  EXPECT_EQ(f.loc.line, 5u);
}

TEST(Parser, FunctionsWithReturnsDeclarationsAndLinkage) {
  auto m = parseOk(R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
.weak .func (.param .b32 r) f(.param .b32 x) .noreturn;
.func g(.reg .b32 x)
{
  add.s32 x, x, 1;
  ret;
}
)");
  ASSERT_EQ(m->functions.size(), 3u);
  EXPECT_FALSE(m->functions[0].hasBody);
  EXPECT_EQ(m->functions[0].linkage, Linkage::Extern);
  EXPECT_EQ(m->functions[0].returns.size(), 1u);
  EXPECT_TRUE(m->functions[1].noReturn);
  EXPECT_EQ(m->functions[2].instrs.size(), 2u);
  // The .reg parameter is a register of the body.
  EXPECT_EQ(m->functions[2].operandsOf(m->functions[2].instrs[0])[0].kind, OperandKind::Register);
}

TEST(Parser, RegisterRangesAndScopes) {
  auto m = parseOk(body(R"(
  .reg .b32 %r<100>;
  .reg .pred %p, %q;
  mov.u32 %r99, 1;
  {
    .reg .b32 %r<2>;
    mov.u32 %r1, 2;
  }
  mov.u32 %r1, 3;
)"));
  const Function &f = kernel(*m);
  EXPECT_EQ(f.numRegisters, 100u + 2u + 2u);
  auto op = [&](int i) { return f.operandsOf(f.instrs[i])[0]; };
  EXPECT_EQ(registerName(*m, f, op(0).id), "%r99");
  // Inner %r1 is the nested range's, outer %r1 the function's.
  EXPECT_NE(op(1).id, op(2).id);
  EXPECT_EQ(registerName(*m, f, op(1).id), "%r1");
  EXPECT_EQ(registerName(*m, f, op(2).id), "%r1");
  EXPECT_EQ(op(2).id, 1u);
}

TEST(Parser, UndeclaredAndOutOfRangeRegistersAreErrors) {
  EXPECT_NE(firstError(body(".reg .b32 %r<3>;\nmov.u32 %r3, 1;")).find("unknown register '%r3'"),
            std::string::npos);
  EXPECT_NE(firstError(body(".reg .b32 %r;\n.reg .b32 %r;")).find("already declared"), std::string::npos);
}

TEST(Parser, GlobalsWithInitializers) {
  auto m = parseOk(R"(
.global .align 4 .b8 bytes[4] = {1, 0x2, 03, 0b100};
.const .f32 pi = 0f40490FDB;
.global .u32 grid[2][2] = {{1, 2}, {3, 4}};
.global .u64 ptr = generic(bytes)+2;
.global .u64 ptrs[2] = {bytes, grid+4};
.extern .shared .align 16 .b8 dyn[];
.visible .global .f64 d = 1.5;
)");
  ASSERT_EQ(m->globals.size(), 7u);
  const Variable &b = m->globals[0];
  ASSERT_EQ(b.init.size(), 5u);
  EXPECT_EQ(b.init[0].kind, InitItem::List);
  EXPECT_EQ(b.init[0].count, 4u);
  EXPECT_EQ(b.init[3].format, IntFormat::Octal);
  EXPECT_EQ(b.init[4].format, IntFormat::Binary);
  EXPECT_EQ(b.init[4].value, 4);
  EXPECT_EQ(m->globals[1].init[0].kind, InitItem::F32);
  EXPECT_EQ(m->globals[1].init[0].value, 0x40490FDB);
  EXPECT_EQ(m->globals[2].dims, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(m->globals[3].init[0].kind, InitItem::Address);
  EXPECT_EQ(m->globals[3].init[0].flags, 1);
  EXPECT_EQ(m->globals[3].init[0].value, 2);
  EXPECT_EQ(m->globals[5].dims, (std::vector<uint64_t>{0}));
  EXPECT_EQ(m->globals[5].linkage, Linkage::Extern);
}

TEST(Parser, ImmediateForms) {
  auto m = parseOk(body(R"(
  .reg .b32 %r;
  .reg .f32 %f;
  .reg .f64 %fd;
  mov.b32 %r, -1;
  mov.b32 %r, 0xFFFFFFFF;
  mov.b32 %r, 017;
  mov.b32 %r, 10U;
  mov.f32 %f, 0f3F800000;
  mov.f64 %fd, 0d3FF0000000000000;
  mov.f64 %fd, 1.5;
)"));
  const Function &f = kernel(*m);
  auto imm = [&](int i) { return f.operandsOf(f.instrs[i])[1]; };
  EXPECT_EQ(imm(0).value, -1);
  EXPECT_TRUE(imm(0).flags & opflag::NegativeLiteral);
  EXPECT_EQ(imm(1).value, 0xFFFFFFFF);
  EXPECT_EQ(imm(1).format(), IntFormat::Hex);
  EXPECT_EQ(imm(2).value, 15);
  EXPECT_EQ(imm(2).format(), IntFormat::Octal);
  EXPECT_TRUE(imm(3).flags & opflag::UnsignedSuffix);
  EXPECT_EQ(imm(4).kind, OperandKind::F32);
  EXPECT_EQ(imm(4).value, 0x3F800000);
  EXPECT_EQ(imm(5).kind, OperandKind::F64);
  EXPECT_EQ(static_cast<uint64_t>(imm(5).value), 0x3FF0000000000000ull);
  double d;
  uint64_t bits = static_cast<uint64_t>(imm(6).value);
  std::memcpy(&d, &bits, 8);
  EXPECT_EQ(d, 1.5);
}

TEST(Parser, OperandShapes) {
  auto m = parseOk(R"(
.shared .align 4 .b8 smem[64];
)" + body(R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  ld.shared.u32 %r1, [smem+8];
  ld.global.u32 %r2, [%rd1+-8];
  ld.global.v2.u32 {%r1, %r2}, [%rd1];
  mov.u32 %r3, %tid.x;
  setp.lt.s32 %p1|%p2, %r1, %r2;
  @!%p1 bra $L1;
  shfl.sync.bfly.b32 %r4|%p1, %r2, 1, 31, -1;
$L1:
  mov.b64 %rd2, {%r1, %r2};
  ret;
)"));
  const Function &f = kernel(*m);
  auto ops = [&](int i) { return f.operandsOf(f.instrs[i]); };
  EXPECT_EQ(ops(0)[1].kind, OperandKind::Address);
  EXPECT_EQ(ops(0)[1].base, AddressBase::Symbol);
  EXPECT_EQ(ops(0)[1].value, 8);
  EXPECT_EQ(ops(1)[1].value, -8);
  EXPECT_EQ(ops(2)[0].kind, OperandKind::Vector);
  EXPECT_EQ(ops(2)[0].count(), 2u);
  EXPECT_EQ(ops(3)[1].kind, OperandKind::SpecialReg);
  EXPECT_EQ(ops(3)[1].selector, Selector::X);
  EXPECT_EQ(ops(4)[0].kind, OperandKind::Pair);
  EXPECT_TRUE(f.instrs[5].hasGuard);
  EXPECT_TRUE(f.instrs[5].guardNegated);
  EXPECT_EQ(ops(6)[0].kind, OperandKind::Pair);
  EXPECT_EQ(ops(6)[4].value, -1);
  EXPECT_EQ(ops(7)[1].kind, OperandKind::Vector);
}

TEST(Parser, CallsPrototypesAndBranchTargets) {
  auto m = parseOk(R"(
.func (.param .b32 r) callee(.param .b32 x)
{
  ret;
}
)" + body(R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  {
    .param .b32 param0;
    .param .b32 retval0;
    st.param.b32 [param0], %r1;
    call.uni (retval0), callee, (param0);
    ld.param.b32 %r2, [retval0];
  }
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  {
    .param .b32 param0;
    .param .b32 retval0;
    call (retval0), %rd1, (param0), proto;
  }
  ts: .branchtargets L0, L1;
  brx.idx %r1, ts;
L0:
  ret;
L1:
  ret;
)"));
  const Function &f = kernel(*m);
  ASSERT_EQ(f.prototypes.size(), 1u);
  EXPECT_EQ(f.prototypes[0].params.size(), 1u);
  ASSERT_EQ(f.targetLists.size(), 1u);
  EXPECT_EQ(f.targetLists[0].targets.size(), 2u);
  auto call = f.operandsOf(f.instrs[1]);
  ASSERT_EQ(call.size(), 3u);
  EXPECT_EQ(call[0].kind, OperandKind::List);
  EXPECT_EQ(call[1].kind, OperandKind::Symbol);
  EXPECT_EQ(call[2].kind, OperandKind::List);
  // brx.idx's block has edges to both targets.
  const BasicBlock *brx = nullptr;
  for (const BasicBlock &b : f.blocks)
    if (b.numInstrs && f.instrs[b.firstInstr + b.numInstrs - 1].opcode == Opcode::BrxIdx) brx = &b;
  ASSERT_NE(brx, nullptr);
  EXPECT_EQ(f.succs(*brx).size(), 2u);
}

TEST(Parser, ACallArgumentListOfOneConstantStaysAList) {
  auto m = parseOk(R"(
.func (.param .b32 r) twice(.param .b32 x)
{
  ret;
}
)" + body(R"(
  .reg .b32 %r<2>;
  .param .b32 retval0;
  call.uni (retval0), twice, (5);
  add.s32 %r1, %r1, (5);
)"));
  const Function &f = kernel(*m);
  auto call = f.operandsOf(f.instrs[0]);
  ASSERT_EQ(call.size(), 3u);
  EXPECT_EQ(call[2].kind, OperandKind::List);
  ASSERT_EQ(f.children(call[2]).size(), 1u);
  EXPECT_EQ(f.children(call[2])[0].value, 5);
  // Elsewhere a parenthesised constant is an immediate.
  EXPECT_EQ(f.operandsOf(f.instrs[1])[2].kind, OperandKind::Int);
}

TEST(Parser, ControlFlowGraph) {
  auto m = parseOk(body(R"(
  .reg .pred %p;
  .reg .b32 %r;
  setp.eq.s32 %p, %r, 0;
  @%p bra ELSE;
  add.s32 %r, %r, 1;
  bra.uni END;
ELSE:
  add.s32 %r, %r, 2;
END:
  ret;
)"));
  const Function &f = kernel(*m);
  ASSERT_EQ(f.blocks.size(), 4u);
  auto vec = [](std::span<const uint32_t> s) { return std::vector<uint32_t>(s.begin(), s.end()); };
  EXPECT_EQ(vec(f.succs(f.blocks[0])), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(vec(f.succs(f.blocks[1])), (std::vector<uint32_t>{3}));
  EXPECT_EQ(vec(f.succs(f.blocks[2])), (std::vector<uint32_t>{3}));
  EXPECT_TRUE(f.succs(f.blocks[3]).empty());
  EXPECT_EQ(vec(f.preds(f.blocks[3])), (std::vector<uint32_t>{1, 2}));
}

// nvcc -G puts several labels in a row ($L__BB0_2: $L__tmp3:); the empty
// blocks they make must start at the next instruction, not at the end of
// the function, or a branch to them jumps out of the function.
TEST(Parser, EmptyBlocksStartAtTheNextInstruction) {
  auto m = parseOk(body(R"(
  .reg .b32 %r;
  bra.uni A;
A:
B:
  add.s32 %r, %r, 1;
C:
D:
  add.s32 %r, %r, 2;
E:
)"));
  const Function &f = kernel(*m);
  ASSERT_EQ(f.blocks.size(), 6u);
  const uint32_t first[] = {0, 1, 1, 2, 2, 3};
  for (size_t b = 0; b < f.blocks.size(); ++b) EXPECT_EQ(f.blocks[b].firstInstr, first[b]) << "block " << b;
}

TEST(Parser, DebugInformation) {
  auto m = parseOk(R"(
.file 1 "/src/a.cu", 1700000000, 1234
.file 2 "b.cu"
)" + body(R"(
  .reg .b32 %r;
  .loc 1 10 3
  mov.u32 %r, 1;
  .loc 1 10 3
  .loc 1 11 5, function_name $L__info_string0, inlined_at 2 20 1
  mov.u32 %r, 2;
  mov.u32 %r, 3;
)") + R"(
.section .debug_str
{
$L__info_string0:
.b8 95,0
}
)");
  ASSERT_EQ(m->files.size(), 2u);
  EXPECT_TRUE(m->files[0].hasTimestamp);
  const Function &f = kernel(*m);
  // Every .loc is kept, in place: ptxas needs the ones inlined_at names.
  ASSERT_EQ(f.debugLocs.size(), 4u);
  EXPECT_EQ(f.instrs[0].debugLoc, 1u);
  EXPECT_EQ(f.instrs[1].debugLoc, 3u);
  EXPECT_EQ(f.instrs[2].debugLoc, 3u);
  EXPECT_EQ(f.debugLocs[3].inlinedLine, 20u);
  ASSERT_EQ(m->sections.size(), 1u);
  EXPECT_EQ(m->sections[0].name, ".debug_str");
  EXPECT_EQ(m->sections[0].text, "$L__info_string0:\n.b8 95,0");
}

TEST(Parser, PragmasAndAliases) {
  auto m = parseOk(R"(
.pragma "nounroll";
.func f()
{
  .pragma "nounroll";
  ret;
}
.alias g, f;
)");
  EXPECT_EQ(m->pragmas.size(), 1u);
  EXPECT_EQ(m->functions[0].pragmas.size(), 1u);
  EXPECT_EQ(m->aliases.size(), 1u);
}

TEST(Parser, BothBarrierSpellings) {
  auto m = parseOk(body(R"(
  .reg .b32 %r;
  bar.sync 0;
  barrier.sync 1, 64;
  bar.arrive 1, 64;
  barrier.sync.aligned %r, 64;
)"));
  EXPECT_EQ(kernel(*m).instrs.size(), 4u);
}

TEST(ParserErrors, NameFileLineColumnAndShowTheLine) {
  std::string e = firstError(body("  frobnicate.s32 %r1;"));
  EXPECT_NE(e.find("test.ptx:6:3: error: unknown instruction 'frobnicate'"), std::string::npos) << e;
  EXPECT_NE(e.find("  frobnicate.s32 %r1;\n"), std::string::npos) << e;
  EXPECT_NE(e.find("^"), std::string::npos) << e;
}

TEST(ParserErrors, UnknownModifier) {
  std::string e = firstError(body("  .reg .b32 %r;\n  add.bogus.s32 %r, %r, %r;"));
  EXPECT_NE(e.find("unknown modifier '.bogus'"), std::string::npos) << e;
  EXPECT_NE(e.find(":7:6:"), std::string::npos) << e;
}

TEST(ParserErrors, ModifiersThatMatchNoForm) {
  std::string e = firstError(body("  .reg .b32 %r;\n  add.sat.u32 %r, %r, %r;"));
  EXPECT_NE(e.find("matches no form of 'add'"), std::string::npos) << e;
}

TEST(ParserErrors, SaysWhatWasExpected) {
  EXPECT_NE(firstError(body("  .reg .b32 %r;\n  mov.u32 %r 1;")).find("expected ',' or ';'"),
            std::string::npos);
  EXPECT_NE(firstError(".entry k( {").find("expected a parameter declaration"), std::string::npos);
  EXPECT_NE(firstError(".entry k()\n{\n  ret;\n").find("missing '}'"), std::string::npos);
}

TEST(ParserErrors, RecoversAndReportsSeveralErrors) {
  DiagnosticList diags;
  parse(body("  bogus1;\n  bogus2;\n  ret;"), diags);
  EXPECT_EQ(diags.errorCount(), 2u);
}

TEST(ParserErrors, HostileInputsTerminate) {
  for (const char *text : {"{{{{{{{{", "}}}}", ".entry", ".entry k(", "\"unterminated", "/* open", "@",
                           "[[[[", ".version 99999999999999999999", ".global .b8 x[99999999999999999999999];",
                           ".entry k() { .reg .b32 %r<4000000000>; }", "\x01\x02\xff"}) {
    DiagnosticList diags;
    parseModule(text, "x.ptx", diags);
    EXPECT_TRUE(diags.hasErrors()) << text;
  }
}

TEST(Parser, LazyBodiesAreIndexedThenParsedOnDemand) {
  std::string text = std::string(kHeader) + body("  ret;") + ".func f()\n{\n  bogus;\n}\n";
  DiagnosticList diags;
  ParseOptions o;
  o.lazyBodies = true;
  auto m = parseModule(text, "lazy.ptx", diags, o);
  EXPECT_FALSE(diags.hasErrors()) << "an index does not look inside bodies";
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_FALSE(m->functions[0].bodyParsed);
  EXPECT_TRUE(materializeBody(*m, m->functions[0], diags));
  EXPECT_EQ(m->functions[0].instrs.size(), 1u);
  EXPECT_FALSE(materializeBody(*m, m->functions[1], diags));
  ASSERT_TRUE(diags.hasErrors());
  EXPECT_EQ(diags.all()[0].loc.line, 10u) << "errors in a lazy body point into the file";
}

TEST(Writer, PrintsWhatWasParsed) {
  auto m = parseOk(body(R"(
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.global.nc.v2.u32 {%r1, %r2}, [%rd1+-8];
  add.s32 %r1, %r1, 0x10;
)"));
  std::string text = writeModule(*m);
  EXPECT_NE(text.find("ld.global.nc.v2.u32 \t{%r1, %r2}, [%rd1+-8];"), std::string::npos) << text;
  EXPECT_NE(text.find("add.s32 \t%r1, %r1, 0x10;"), std::string::npos) << text;
  EXPECT_NE(text.find(".reg .b32 \t%r<3>;"), std::string::npos) << text;
}

TEST(Writer, StripsDebugInformationOnRequest) {
  auto m = parseOk(".file 1 \"a.cu\"\n" + body("  .loc 1 2 3\n  ret;"));
  WriteOptions o;
  o.debugInfo = false;
  std::string text = writeModule(*m, o);
  EXPECT_EQ(text.find(".loc"), std::string::npos);
  EXPECT_EQ(text.find(".file"), std::string::npos);
  EXPECT_NE(writeModule(*m).find(".loc\t1 2 3"), std::string::npos);
}

} // namespace

namespace {

// Inputs the fuzzer once broke the front end with (tests/fuzz/regressions):
// each must still parse, fully and lazily, without crashing or hanging.
TEST(FuzzRegressions, ParseWithoutCrashing) {
  std::filesystem::path dir = std::filesystem::path(PTXVM_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  size_t files = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    DiagnosticList diags;
    auto m = parseModule(text, e.path().string(), diags);
    ParseOptions lazy;
    lazy.lazyBodies = true;
    auto indexed = parseModule(text, e.path().string(), diags, lazy);
    materializeAll(*indexed, diags);
    ++files;
  }
  EXPECT_GT(files, 0u);
}

} // namespace
