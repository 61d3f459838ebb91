// The ANTLR4 front end's visitor and error handling, shared by the files that
// implement it (AntlrErrors.cpp: input, syntax errors and their messages;
// AntlrFrontEnd.cpp: module level and the entry point; AntlrBody.cpp:
// function bodies and declarations; AntlrOperands.cpp: instructions, operands
// and constant expressions). Internal to ptx/grammar.
#pragma once

#include "ptx/Builder.h"
#include "ptx/Parser.h"

#include "PTXBaseVisitor.h"
#include "PTXLexer.h"
#include "PTXParser.h"

#include <optional>
#include <string>
#include <vector>

// A namespace of its own inside ptx::detail: the fast front end's internals
// (ParserImpl.h) use some of the same names there, e.g. spaceOf, which reads
// a directive slightly differently.
namespace ptx::detail::antlr {

using P = ptx_antlr::PTXParser;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;

constexpr size_t kMaxErrors = 50;
/// Same limits as the fast front end (Parser.cpp).
constexpr unsigned kMaxNesting = 64;

/// Thrown after a semantic error has been reported, to abandon the
/// statement; never escapes the ANTLR front end.
struct Abandon {};

// ---- Input and syntax errors (AntlrErrors.cpp) ------------------------------

/// The source as a char stream of bytes, one symbol per byte, so that token
/// offsets are byte offsets and columns count bytes as the fast lexer does.
/// (ANTLRInputStream decodes UTF-8, and throws on invalid sequences.)
class ByteStream : public antlr4::ANTLRInputStream {
public:
  explicit ByteStream(std::string_view bytes);
  std::string getText(const antlr4::misc::Interval &interval) override;

private:
  std::string_view bytes_;
};

inline SourceLoc locOf(const Token *t) {
  if (!t) return {};
  return {static_cast<uint32_t>(t->getLine()), static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
}

/// A token as it reads in messages: 'text', "end of file", ...
std::string describeToken(const Token *t);

/// ANTLR's error reporting with messages in the style of the fast front end:
/// "expected X, found 'y'".
class ErrorStrategy : public antlr4::DefaultErrorStrategy {
protected:
  void reportNoViableAlternative(antlr4::Parser *recognizer, const antlr4::NoViableAltException &e) override;
  void reportInputMismatch(antlr4::Parser *recognizer, const antlr4::InputMismatchException &e) override;
  static void afterOperand(antlr4::Parser *recognizer, std::string &message);
  static std::string describeExpected(antlr4::Parser *recognizer, const antlr4::misc::IntervalSet &set);
  void reportFailedPredicate(antlr4::Parser *recognizer, const antlr4::FailedPredicateException &e) override;
  void reportUnwantedToken(antlr4::Parser *recognizer) override;
  void reportMissingToken(antlr4::Parser *recognizer) override;
};

/// Replaces ANTLR's console listener: syntax errors become parse-error
/// diagnostics at file:line:col.
class ErrorListener : public antlr4::BaseErrorListener {
public:
  explicit ErrorListener(ErrorReporter &errors) : errors_(errors) {}
  void syntaxError(antlr4::Recognizer *, Token *offending, size_t line, size_t charPositionInLine,
                   const std::string &msg, std::exception_ptr) override;
  /// Where the syntax errors are, in the order found (which is source order).
  const std::vector<SourceLoc> &locations() const { return locs_; }

private:
  ErrorReporter &errors_;
  std::vector<SourceLoc> locs_;
};

/// True when `tree` holds a syntax error (an error node or a rule that
/// failed): such a statement is skipped, as the fast front end skips it.
bool hasSyntaxError(ParseTree *tree);

// ---- The visitor -----------------------------------------------------------

inline Linkage linkageOf(P::LinkageContext *ctx) {
  if (!ctx) return Linkage::None;
  if (ctx->VISIBLE()) return Linkage::Visible;
  if (ctx->EXTERN()) return Linkage::Extern;
  if (ctx->WEAK()) return Linkage::Weak;
  if (ctx->COMMON()) return Linkage::Common;
  return Linkage::None;
}

/// The state space a `.word` names, or Mod::None.
inline Mod spaceOf(std::string_view d) {
  if (d.size() < 2 || d[0] != '.') return Mod::None;
  auto m = modFromSpelling(d.substr(1));
  if (m && modKind(*m) == ModKind::Space) return *m;
  return Mod::None;
}

/// Walks the parse tree and fills the IR through the shared builders, exactly
/// as the fast front end does (see AntlrFrontEnd.cpp).
class Builder : public ptx_antlr::PTXBaseVisitor {
public:
  Builder(Module &m, ErrorReporter &errors, antlr4::CommonTokenStream &tokens,
          const std::vector<SourceLoc> &syntaxErrors)
      : m_(m), errors_(errors), tokens_(tokens), syntaxErrors_(syntaxErrors),
        errorsBefore_(errors.errorCount()) {}

  // ---- Module level (AntlrFrontEnd.cpp) ----
  antlrcpp::Any visitModule(P::ModuleContext *ctx) override;
  antlrcpp::Any visitVersionDirective(P::VersionDirectiveContext *ctx) override;
  antlrcpp::Any visitTargetDirective(P::TargetDirectiveContext *ctx) override;
  antlrcpp::Any visitAddressSizeDirective(P::AddressSizeDirectiveContext *ctx) override;
  antlrcpp::Any visitFileDirective(P::FileDirectiveContext *ctx) override;
  antlrcpp::Any visitSectionDirective(P::SectionDirectiveContext *ctx) override;
  antlrcpp::Any visitPragmaDirective(P::PragmaDirectiveContext *ctx) override;
  antlrcpp::Any visitAliasDirective(P::AliasDirectiveContext *ctx) override;
  antlrcpp::Any visitModuleVariable(P::ModuleVariableContext *ctx) override;
  antlrcpp::Any visitFunctionDefinition(P::FunctionDefinitionContext *ctx) override;

private:
  // ---- Helpers (AntlrFrontEnd.cpp, the small ones here) ----
  bool tooManyErrors(Token *at);

  [[noreturn]] void fail(SourceLoc loc, std::string message) {
    errors_.error(loc, std::move(message));
    throw Abandon{};
  }
  [[noreturn]] void fail(TerminalNode *n, std::string message) {
    fail(locOf(n->getSymbol()), std::move(message));
  }
  [[noreturn]] void fail(antlr4::ParserRuleContext *c, std::string message) {
    fail(locOf(c->getStart()), std::move(message));
  }
  [[noreturn]] void fail(Token *t, std::string message) { fail(locOf(t), std::move(message)); }

  std::string plainName(TerminalNode *n, std::string_view what);
  uint64_t u64(TerminalNode *n, std::string_view what);
  uint32_t u32(TerminalNode *n, std::string_view what);
  static std::string unquote(TerminalNode *n) {
    std::string s = n->getText();
    return s.size() >= 2 ? s.substr(1, s.size() - 2) : s;
  }
  static std::vector<std::string> strings(const std::vector<TerminalNode *> &nodes) {
    std::vector<std::string> out;
    for (TerminalNode *n : nodes) out.push_back(unquote(n));
    return out;
  }
  static bool adjacent(const Token *a, const Token *b) { return a->getStopIndex() + 1 == b->getStartIndex(); }
  /// The token after `t` in the stream.
  Token *nextToken(Token *t) {
    size_t i = t->getTokenIndex() + 1;
    return i < tokens_.size() ? tokens_.get(i) : t;
  }
  static DirectiveKind directiveKind(size_t token);

  // ---- Variables and parameters (AntlrBody.cpp) ----
  void parameters(P::ParameterListContext *list, std::vector<Variable> &out, bool allowUnnamed);
  void attributes(const std::vector<P::VariableAttributeContext *> &attrs, Variable &v, Token *next);
  static bool mentionsUnified(ParseTree *t);
  void dimensions(const std::vector<P::ArrayDimensionContext *> &dims, Variable &v);
  Variable variable(P::VariableDeclarationContext *decl, Linkage linkage, SourceLoc loc);
  void fieldInitializer(P::InitializerContext *init, Variable &v);
  void initializer(P::InitializerContext *init, std::vector<InitItem> &out, unsigned depth);
  int64_t offset(Token *sign, TerminalNode *number);

  // ---- Bodies (AntlrBody.cpp) ----
  void statements(const std::vector<P::StatementContext *> &list);
  void checkLabelColon(TerminalNode *name, TerminalNode *colon);
  void statement(P::StatementContext *s);
  void prototype(P::PrototypeDeclarationContext *ctx);
  void registers(P::RegisterDeclarationContext *ctx);
  void debugLoc(P::LocDirectiveContext *ctx);

  // ---- Instructions and operands (AntlrOperands.cpp) ----
  void instruction(P::InstructionContext *ctx);
  Operand operand(P::OperandContext *ctx, unsigned depth);
  Operand pairChain(const std::vector<P::PrimaryOperandContext *> &rest, P::StructuredOperandContext *head,
                    unsigned depth);
  static bool isConstant(P::PrimaryOperandContext *ctx);
  Operand primary(P::PrimaryOperandContext *ctx, unsigned depth);
  Operand structured(P::StructuredOperandContext *ctx, unsigned depth);
  Operand minusRegister(P::MinusOperandContext *ctx);
  Operand groupOf(const std::vector<Operand> &children, OperandKind kind);
  Operand literal(Token *minus, TerminalNode *number);
  static std::optional<Selector> selectorOf(std::string_view s);
  static bool applyMask(Operand &op, std::string_view word);
  Operand name(TerminalNode *node);
  Operand address(P::BracketContentContext *ctx, unsigned depth);
  Operand leadingOperand(P::OperandContext *ctx, unsigned depth, bool &simple);

  // ---- Constant expressions, read in the fast front end's order (AntlrOperands.cpp) ----
  struct Term {
    Operand literal;       // the literal, when no operator was applied
    bool compound = false; // an operator or parentheses were involved
    ConstValue value;
  };
  Operand constant(P::ConstExprContext *ctx);
  static bool isInt(const Term &t);
  Term constExpr(P::ConstExprContext *ctx, unsigned depth);
  Term climb(const std::vector<P::ConstUnaryContext *> &units,
             const std::vector<P::BinaryOperatorContext *> &ops, size_t &i, int minPrecedence, unsigned depth,
             bool checked);
  Term unary(P::ConstUnaryContext *ctx, unsigned depth);
  Term unaryFrom(const std::vector<P::UnaryOperatorContext *> &ops, size_t k, P::ConstAtomContext *atom,
                 unsigned depth);

  Module &m_;
  ErrorReporter &errors_;
  antlr4::CommonTokenStream &tokens_;
  const std::vector<SourceLoc> &syntaxErrors_;
  size_t errorsBefore_; // syntax errors, reported before the visit
  FunctionBuilder *fb_ = nullptr;
  size_t skipThrough_ = 0; // statements up to this token were skipped by an error
};

} // namespace ptx::detail::antlr
