// The ANTLR4 front end: PTX.g4 recognises the syntax, and this visitor hands
// what it recognised to the semantic layer both front ends share (Builder.h).
// It fills the IR exactly as the fast front end (Parser.cpp) does: the same
// statements in the same order, the same operand pool layout (the children
// of a composite operand before the composite's own list, the instruction's
// top-level operands last), the same names interned in the same order, and
// the same source locations.
#include "ptx/Builder.h"
#include "ptx/Parser.h"

#include "PTXBaseVisitor.h"
#include "PTXLexer.h"
#include "PTXParser.h"

#include <algorithm>
#include <optional>

namespace ptx {
namespace {

using P = ptx_antlr::PTXParser;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;

constexpr size_t kMaxErrors = 50;
/// Same limits as the fast front end (Parser.cpp).
constexpr unsigned kMaxNesting = 64;
/// Deeper bracket nesting than this is refused before ANTLR parses it: its
/// recursive descent would otherwise overflow the stack.
constexpr unsigned kMaxTokenNesting = 200;

/// Thrown after a semantic error has been reported, to abandon the
/// statement; never escapes this file.
struct Abandon {};

// ---- Input -----------------------------------------------------------------

/// The source as a char stream of bytes, one symbol per byte, so that token
/// offsets are byte offsets and columns count bytes as the fast lexer does.
/// (ANTLRInputStream decodes UTF-8, and throws on invalid sequences.)
class ByteStream : public antlr4::ANTLRInputStream {
public:
  explicit ByteStream(std::string_view bytes) : bytes_(bytes) {
    _data.clear();
    _data.reserve(bytes.size());
    for (unsigned char c : bytes) _data.push_back(static_cast<char32_t>(c));
    p = 0;
    name = "ptx";
  }
  std::string getText(const antlr4::misc::Interval &interval) override {
    if (interval.a < 0 || interval.b < interval.a) return {};
    size_t a = static_cast<size_t>(interval.a);
    size_t b = std::min(static_cast<size_t>(interval.b), bytes_.size() - 1);
    if (a >= bytes_.size()) return {};
    return std::string(bytes_.substr(a, b - a + 1));
  }

private:
  std::string_view bytes_;
};

// ---- Errors ----------------------------------------------------------------

SourceLoc locOf(const Token *t) {
  if (!t) return {};
  return {static_cast<uint32_t>(t->getLine()), static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
}

/// How a token kind reads in "expected ..." messages.
std::string describeTokenType(const antlr4::dfa::Vocabulary &vocab, size_t type) {
  switch (type) {
  case Token::EOF: return "end of file";
  case P::NAME: return "a name";
  case P::NUMBER: return "a number";
  case P::STRING: return "a string";
  case P::DOTWORD: return "a .directive";
  default: break;
  }
  std::string literal = vocab.getLiteralName(type);
  if (!literal.empty()) return literal;
  return vocab.getDisplayName(type);
}

std::string describeToken(const Token *t) {
  if (!t || t->getType() == Token::EOF) return "end of file";
  if (t->getType() == P::UNTERMINATED_COMMENT) return "an unterminated comment";
  std::string text = t->getText();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return "'" + text + "'";
}

std::string describeSet(const antlr4::dfa::Vocabulary &vocab, const antlr4::misc::IntervalSet &set) {
  std::vector<std::string> names;
  for (ssize_t type : set.toList()) {
    if (static_cast<size_t>(type) == Token::EPSILON) continue;
    std::string n = describeTokenType(vocab, static_cast<size_t>(type));
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  if (names.empty()) return "something else";
  if (names.size() > 8) {
    names.resize(8);
    names.push_back("...");
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

/// What a rule is about, for "unexpected X in Y" messages.
std::string_view ruleDescription(size_t rule) {
  switch (rule) {
  case P::RuleModule:
  case P::RuleModuleItem: return "a directive such as .version, .entry, .func or a variable";
  case P::RuleFunctionBody:
  case P::RuleScope: return "an instruction, label, declaration or '}'";
  case P::RuleFunctionDefinition: return "a function header";
  case P::RuleParameter: return "a parameter declaration (.param or .reg)";
  case P::RuleFunctionAttribute:
  case P::RulePerformanceDirective: return "a function directive";
  case P::RuleStatement: return "an instruction, label or declaration";
  case P::RuleInstruction: return "an instruction";
  case P::RuleOperand:
  case P::RulePrimaryOperand:
  case P::RuleListHead:
  case P::RuleStructuredOperand: return "an operand";
  case P::RuleConstExpr:
  case P::RuleConstUnary:
  case P::RuleConstAtom:
  case P::RuleUnaryOperator:
  case P::RuleBinaryOperator: return "a constant";
  case P::RuleBracketContent: return "an address";
  case P::RuleVariableDeclaration:
  case P::RuleVariableAttribute: return "a declaration";
  case P::RuleInitializer: return "an initializer";
  case P::RuleLocDirective:
  case P::RuleLocAttribute: return "a .loc directive";
  default: return {};
  }
}

/// ANTLR's error reporting with messages in the style of the fast front end:
/// "expected X, found 'y'".
class ErrorStrategy : public antlr4::DefaultErrorStrategy {
protected:
  void reportNoViableAlternative(antlr4::Parser *recognizer, const antlr4::NoViableAltException &e) override {
    std::string_view what = ruleDescription(recognizer->getContext()->getRuleIndex());
    Token *t = e.getOffendingToken();
    std::string message = what.empty() ? "unexpected " + describeToken(t)
                                       : "expected " + std::string(what) + ", found " + describeToken(t);
    // A name after a constant that is not `%`: the constant has ended.
    size_t rule = recognizer->getContext()->getRuleIndex();
    if ((rule == P::RuleBinaryOperator || rule == P::RuleConstExpr) && t && t->getType() == P::NAME)
      message = "expected ',' or ';' after an operand, found " + describeToken(t);
    recognizer->notifyErrorListeners(t, message, std::make_exception_ptr(e));
  }
  void reportInputMismatch(antlr4::Parser *recognizer, const antlr4::InputMismatchException &e) override {
    Token *t = e.getOffendingToken();
    std::string message = "expected " + describeExpected(recognizer, e.getExpectedTokens()) + ", found " + describeToken(t);
    afterOperand(recognizer, message);
    recognizer->notifyErrorListeners(t, message, std::make_exception_ptr(e));
  }
  /// "expected ',' or ';' after an operand", as the fast front end says.
  static void afterOperand(antlr4::Parser *recognizer, std::string &message) {
    static const std::string kPrefix = "expected ',' or ';', ";
    if (recognizer->getContext()->getRuleIndex() == P::RuleInstruction && message.starts_with(kPrefix))
      message = "expected ',' or ';' after an operand, " + message.substr(kPrefix.size());
  }
  /// A short list of tokens as such; a long one by what the rule reads.
  static std::string describeExpected(antlr4::Parser *recognizer, const antlr4::misc::IntervalSet &set) {
    std::string_view what = ruleDescription(recognizer->getContext()->getRuleIndex());
    if (set.size() > 3 && !what.empty()) return std::string(what);
    return describeSet(recognizer->getVocabulary(), set);
  }
  void reportFailedPredicate(antlr4::Parser *recognizer, const antlr4::FailedPredicateException &e) override {
    recognizer->notifyErrorListeners(e.getOffendingToken(), "unexpected " + describeToken(e.getOffendingToken()),
                                     std::make_exception_ptr(e));
  }
  void reportUnwantedToken(antlr4::Parser *recognizer) override {
    if (inErrorRecoveryMode(recognizer)) return;
    beginErrorCondition(recognizer);
    Token *t = recognizer->getCurrentToken();
    std::string message = "expected " + describeExpected(recognizer, getExpectedTokens(recognizer)) + ", found " + describeToken(t);
    afterOperand(recognizer, message);
    recognizer->notifyErrorListeners(t, message, nullptr);
  }
  void reportMissingToken(antlr4::Parser *recognizer) override {
    if (inErrorRecoveryMode(recognizer)) return;
    beginErrorCondition(recognizer);
    Token *t = recognizer->getCurrentToken();
    std::string message = "expected " + describeExpected(recognizer, getExpectedTokens(recognizer)) + ", found " + describeToken(t);
    afterOperand(recognizer, message);
    recognizer->notifyErrorListeners(t, message, nullptr);
  }
};

/// Replaces ANTLR's console listener: syntax errors become parse-error
/// diagnostics at file:line:col.
class ErrorListener : public antlr4::BaseErrorListener {
public:
  explicit ErrorListener(ErrorReporter &errors) : errors_(errors) {}
  void syntaxError(antlr4::Recognizer *, Token *offending, size_t line, size_t charPositionInLine, const std::string &msg,
                   std::exception_ptr) override {
    SourceLoc loc{static_cast<uint32_t>(line), static_cast<uint32_t>(charPositionInLine + 1)};
    locs_.push_back(loc);
    // The fast front end's messages for what the lexer could not finish.
    size_t type = offending ? offending->getType() : 0;
    if (type == P::UNTERMINATED_COMMENT) errors_.error(loc, "unterminated comment: '/*' without '*/'");
    else if (type == P::UNTERMINATED_STRING)
      errors_.error(loc, "unterminated string: '\"' without a closing quote on the same line");
    else errors_.error(loc, msg);
  }
  /// Where the syntax errors are, in the order found (which is source order).
  const std::vector<SourceLoc> &locations() const { return locs_; }

private:
  ErrorReporter &errors_;
  std::vector<SourceLoc> locs_;
};

/// True when `tree` holds a syntax error (an error node or a rule that
/// failed): such a statement is skipped, as the fast front end skips it.
/// Function bodies and nested scopes are not looked into: their statements
/// are checked one by one.
bool hasSyntaxError(ParseTree *tree) {
  if (dynamic_cast<antlr4::tree::ErrorNode *>(tree)) return true;
  if (auto *rule = dynamic_cast<antlr4::ParserRuleContext *>(tree)) {
    if (rule->exception) return true;
    if (dynamic_cast<P::FunctionBodyContext *>(rule) || dynamic_cast<P::ScopeContext *>(rule)) return false;
    for (ParseTree *child : rule->children)
      if (hasSyntaxError(child)) return true;
  }
  return false;
}

// ---- The visitor -----------------------------------------------------------

Linkage linkageOf(P::LinkageContext *ctx) {
  if (!ctx) return Linkage::None;
  if (ctx->VISIBLE()) return Linkage::Visible;
  if (ctx->EXTERN()) return Linkage::Extern;
  if (ctx->WEAK()) return Linkage::Weak;
  if (ctx->COMMON()) return Linkage::Common;
  return Linkage::None;
}

/// The state space a `.word` names, or Mod::None.
Mod spaceOf(std::string_view d) {
  if (d.size() < 2 || d[0] != '.') return Mod::None;
  auto m = modFromSpelling(d.substr(1));
  if (m && modKind(*m) == ModKind::Space) return *m;
  return Mod::None;
}

class Builder : public ptx_antlr::PTXBaseVisitor {
public:
  Builder(Module &m, ErrorReporter &errors, antlr4::CommonTokenStream &tokens, const std::vector<SourceLoc> &syntaxErrors)
      : m_(m), errors_(errors), tokens_(tokens), syntaxErrors_(syntaxErrors), errorsBefore_(errors.errorCount()) {}

  antlrcpp::Any visitModule(P::ModuleContext *ctx) override {
    for (P::ModuleItemContext *item : ctx->moduleItem()) {
      if (tooManyErrors(item->getStart())) break;
      if (hasSyntaxError(item)) continue;
      try {
        visitChildren(item);
      } catch (const Abandon &) {
      }
    }
    return nullptr;
  }

  antlrcpp::Any visitVersionDirective(P::VersionDirectiveContext *ctx) override {
    m_.versionLoc = locOf(ctx->VERSION()->getSymbol());
    std::string v = ctx->NUMBER()->getText();
    size_t dot = v.find('.');
    uint64_t major, minor;
    if (dot == std::string::npos || !readUnsigned(std::string_view(v).substr(0, dot), major) ||
        !readUnsigned(std::string_view(v).substr(dot + 1), minor) || major > 99 || minor > 9)
      fail(ctx->NUMBER(), "malformed .version '" + v + "': expected major.minor such as 9.0");
    m_.versionMajor = static_cast<uint32_t>(major);
    m_.versionMinor = static_cast<uint32_t>(minor);
    return nullptr;
  }

  antlrcpp::Any visitTargetDirective(P::TargetDirectiveContext *ctx) override {
    for (TerminalNode *n : ctx->NAME()) m_.targets.emplace_back(plainName(n, "a target such as sm_90"));
    return nullptr;
  }

  antlrcpp::Any visitAddressSizeDirective(P::AddressSizeDirectiveContext *ctx) override {
    m_.addressSize = u32(ctx->NUMBER(), "an address size");
    if (m_.addressSize != 32 && m_.addressSize != 64)
      fail(ctx->ADDRESS_SIZE(), ".address_size must be 32 or 64");
    return nullptr;
  }

  antlrcpp::Any visitFileDirective(P::FileDirectiveContext *ctx) override {
    FileEntry f;
    f.index = u32(ctx->NUMBER(0), "a file index");
    f.path = unquote(ctx->STRING());
    if (ctx->NUMBER().size() == 3) {
      f.hasTimestamp = true;
      f.timestamp = u64(ctx->NUMBER(1), "a timestamp");
      f.size = u64(ctx->NUMBER(2), "a file size");
    }
    m_.order.push_back({TopLevelKind::File, static_cast<uint32_t>(m_.files.size())});
    m_.files.push_back(std::move(f));
    return nullptr;
  }

  antlrcpp::Any visitSectionDirective(P::SectionDirectiveContext *ctx) override {
    Section s;
    s.loc = locOf(ctx->SECTION()->getSymbol());
    s.name = ctx->anyDirective()->getText();
    // The body is kept verbatim: read it straight from the text.
    P::SectionBlockContext *block = ctx->sectionBlock();
    size_t begin = block->getStart()->getStopIndex() + 1;
    size_t end = block->getStop()->getStartIndex();
    std::string_view source(*m_.source);
    std::string_view inner = end >= begin && end <= source.size() ? source.substr(begin, end - begin) : "";
    s.text = std::string(trimSectionText(inner));
    m_.order.push_back({TopLevelKind::Section, static_cast<uint32_t>(m_.sections.size())});
    m_.sections.push_back(std::move(s));
    return nullptr;
  }

  antlrcpp::Any visitPragmaDirective(P::PragmaDirectiveContext *ctx) override {
    m_.order.push_back({TopLevelKind::Pragma, static_cast<uint32_t>(m_.pragmas.size())});
    m_.pragmas.push_back(strings(ctx->STRING()));
    return nullptr;
  }

  antlrcpp::Any visitAliasDirective(P::AliasDirectiveContext *ctx) override {
    Name a = m_.names.intern(plainName(ctx->NAME(0), "an alias name"));
    Name b = m_.names.intern(plainName(ctx->NAME(1), "the aliased function"));
    m_.order.push_back({TopLevelKind::Alias, static_cast<uint32_t>(m_.aliases.size())});
    m_.aliases.emplace_back(a, b);
    return nullptr;
  }

  antlrcpp::Any visitModuleVariable(P::ModuleVariableContext *ctx) override {
    P::VariableDeclarationContext *decl = ctx->variableDeclaration();
    Token *first = ctx->getStart();
    Mod space = spaceOf(decl->stateSpace()->getText());
    if (space == Mod::Param)
      fail(decl->stateSpace(), "unexpected directive '.param' at module level");
    Variable v = variable(decl, linkageOf(ctx->linkage()), locOf(first));
    m_.order.push_back({TopLevelKind::Variable, static_cast<uint32_t>(m_.globals.size())});
    m_.globals.push_back(std::move(v));
    return nullptr;
  }

  antlrcpp::Any visitFunctionDefinition(P::FunctionDefinitionContext *ctx) override {
    Function fn;
    fn.linkage = linkageOf(ctx->linkage());
    fn.isKernel = ctx->ENTRY() != nullptr;
    fn.loc = locOf(ctx->getStart());
    if (ctx->results) {
      if (fn.isKernel) fail(ctx->results, "expected a function name, found '('");
      parameters(ctx->results, fn.returns, false);
    }
    fn.name = m_.names.intern(plainName(ctx->NAME(), "a function name"));
    if (ctx->params) parameters(ctx->params, fn.params, false);
    for (P::FunctionAttributeContext *a : ctx->functionAttribute()) {
      if (a->NORETURN()) {
        fn.noReturn = true;
        continue;
      }
      FunctionDirective fd{};
      if (a->PRAGMA()) {
        fd.kind = DirectiveKind::Pragma;
        fd.strings = strings(a->STRING());
      } else {
        P::PerformanceDirectiveContext *pd = a->performanceDirective();
        fd.kind = directiveKind(pd->getStart()->getType());
        for (TerminalNode *n : pd->NUMBER()) fd.values.push_back(u32(n, "a number"));
      }
      fn.directives.push_back(std::move(fd));
    }
    P::FunctionBodyContext *body = ctx->functionBody();
    if (!body) {
      fn.hasBody = false;
      fn.bodyParsed = true;
      m_.order.push_back({TopLevelKind::Function, static_cast<uint32_t>(m_.functions.size())});
      m_.functions.push_back(std::move(fn));
      return nullptr;
    }
    fn.hasBody = true;
    fn.bodyLoc = locOf(body->getStart());
    fn.bodyOffset = body->getStart()->getStartIndex();
    fn.bodyLength = body->getStop()->getStopIndex() + 1 - fn.bodyOffset;
    m_.functions.push_back(std::move(fn));
    Function &placed = m_.functions.back();
    m_.order.push_back({TopLevelKind::Function, static_cast<uint32_t>(m_.functions.size() - 1)});
    FunctionBuilder fb(m_, placed, errors_);
    fb_ = &fb;
    statements(body->statement());
    fb_ = nullptr;
    fb.finish(locOf(body->getStop()));
    return nullptr;
  }

private:
  // ---- Helpers ----

  /// The fast front end stops after kMaxErrors errors; so does this one,
  /// counting the syntax errors before `at` and the semantic errors so far.
  bool tooManyErrors(Token *at) {
    SourceLoc here = locOf(at);
    auto before = [](SourceLoc a, SourceLoc b) { return std::pair(a.line, a.column) < std::pair(b.line, b.column); };
    size_t syntax = std::lower_bound(syntaxErrors_.begin(), syntaxErrors_.end(), here, before) - syntaxErrors_.begin();
    size_t semantic = errors_.errorCount() - errorsBefore_;
    return syntax + semantic >= kMaxErrors;
  }

  [[noreturn]] void fail(SourceLoc loc, std::string message) {
    errors_.error(loc, std::move(message));
    throw Abandon{};
  }
  [[noreturn]] void fail(TerminalNode *n, std::string message) { fail(locOf(n->getSymbol()), std::move(message)); }
  [[noreturn]] void fail(antlr4::ParserRuleContext *c, std::string message) {
    fail(locOf(c->getStart()), std::move(message));
  }

  /// A NAME used as a plain identifier: the fast lexer never reads dots into
  /// one, so `a.b` here means a stray `.b`.
  std::string plainName(TerminalNode *n, std::string_view what) {
    std::string text = n->getText();
    size_t dot = text.find('.');
    if (dot != std::string::npos) {
      Token *t = n->getSymbol();
      fail(SourceLoc{static_cast<uint32_t>(t->getLine()), static_cast<uint32_t>(t->getCharPositionInLine() + 1 + dot)},
           "expected " + std::string(what) + " without '" + text.substr(dot) + "'");
    }
    return text;
  }

  uint64_t u64(TerminalNode *n, std::string_view what) {
    uint64_t v;
    if (!readUnsigned(n->getText(), v)) fail(n, "expected " + std::string(what) + ", found '" + n->getText() + "'");
    return v;
  }
  uint32_t u32(TerminalNode *n, std::string_view what) {
    uint64_t v = u64(n, what);
    if (v > UINT32_MAX) fail(n, std::string(what) + " is too large");
    return static_cast<uint32_t>(v);
  }
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

  static DirectiveKind directiveKind(size_t token) {
    switch (token) {
    case P::MAXNTID: return DirectiveKind::MaxNTid;
    case P::REQNTID: return DirectiveKind::ReqNTid;
    case P::MINNCTAPERSM: return DirectiveKind::MinNCtaPerSm;
    case P::MAXNCTAPERSM: return DirectiveKind::MaxNCtaPerSm;
    case P::MAXNREG: return DirectiveKind::MaxNReg;
    case P::REQNCTAPERCLUSTER: return DirectiveKind::ReqNCtaPerCluster;
    case P::EXPLICITCLUSTER: return DirectiveKind::ExplicitCluster;
    case P::MAXCLUSTERRANK: return DirectiveKind::MaxClusterRank;
    case P::BLOCKSARECLUSTERS: return DirectiveKind::BlocksAreClusters;
    default: return DirectiveKind::Abi;
    }
  }

  // ---- Variables and parameters ----

  void parameters(P::ParameterListContext *list, std::vector<Variable> &out, bool allowUnnamed) {
    for (P::ParameterContext *p : list->parameter()) {
      Variable v;
      v.space = p->PARAM() ? Mod::Param : Mod::Reg;
      v.loc = locOf(p->getStart());
      std::vector<P::VariableAttributeContext *> attrs = p->variableAttribute();
      Token *next = p->NAME() ? p->NAME()->getSymbol() : nextToken(attrs.empty() ? p->getStart() : attrs.back()->getStop());
      attributes(attrs, v, next);
      if (TerminalNode *name = p->NAME()) v.name = m_.names.intern(plainName(name, "a name"));
      else if (!allowUnnamed) fail(p->getStop(), "expected a name");
      dimensions(p->arrayDimension(), v);
      out.push_back(std::move(v));
    }
  }

  [[noreturn]] void fail(Token *t, std::string message) { fail(locOf(t), std::move(message)); }
  /// The token after `t` in the stream.
  Token *nextToken(Token *t) {
    size_t i = t->getTokenIndex() + 1;
    return i < tokens_.size() ? tokens_.get(i) : t;
  }

  /// Reads `.align N`, `.ptr`, `.v4`, `.attribute(...)`, the type and the
  /// `.ptr` state space in order, as the fast front end does.
  void attributes(const std::vector<P::VariableAttributeContext *> &attrs, Variable &v, Token *next) {
    bool afterPtr = false;
    for (P::VariableAttributeContext *a : attrs) {
      std::string d = a->getStart()->getText();
      SourceLoc dloc = locOf(a->getStart());
      if (a->ALIGN()) {
        uint32_t n = u32(a->NUMBER(), "an alignment");
        if (n == 0 || (n & (n - 1))) fail(dloc, "alignment must be a power of two");
        (afterPtr ? v.ptrAlignment : v.alignment) = n;
      } else if (a->PTR()) {
        v.attrs |= static_cast<uint8_t>(VarAttr::Ptr);
        afterPtr = true;
      } else if (d == ".v2" || d == ".v4" || d == ".v8") {
        v.vectorWidth = static_cast<uint8_t>(d[2] - '0');
      } else if (a->ATTRIBUTE()) {
        if (mentionsUnified(a)) v.attrs |= static_cast<uint8_t>(VarAttr::Unified);
      } else if (auto t = typeFromSpelling(std::string_view(d).substr(1))) {
        if (v.type != Type::None) fail(dloc, "a variable has one type");
        v.type = *t;
      } else if (afterPtr && spaceOf(d) != Mod::None) {
        v.ptrSpace = spaceOf(d);
      } else {
        fail(dloc, "unexpected '" + d + "' in a declaration");
      }
    }
    if (v.type == Type::None) fail(next, "expected a type such as .b32, found " + describeToken(next));
  }

  static bool mentionsUnified(ParseTree *t) {
    if (auto *term = dynamic_cast<TerminalNode *>(t)) return term->getText() == ".unified";
    if (auto *rule = dynamic_cast<antlr4::ParserRuleContext *>(t))
      for (ParseTree *c : rule->children)
        if (mentionsUnified(c)) return true;
    return false;
  }

  void dimensions(const std::vector<P::ArrayDimensionContext *> &dims, Variable &v) {
    for (P::ArrayDimensionContext *d : dims) {
      if (!d->NUMBER()) {
        v.dims.push_back(0);
        continue;
      }
      uint64_t n = u64(d->NUMBER(), "an array size");
      if (n == 0) fail(d->NUMBER(), "array size must be positive");
      v.dims.push_back(n);
    }
  }

  Variable variable(P::VariableDeclarationContext *decl, Linkage linkage, SourceLoc loc) {
    Variable v;
    v.space = spaceOf(decl->stateSpace()->getText());
    v.linkage = linkage;
    v.loc = loc;
    attributes(decl->variableAttribute(), v, decl->NAME()->getSymbol());
    v.name = m_.names.intern(plainName(decl->NAME(), "a name"));
    dimensions(decl->arrayDimension(), v);
    if (P::InitializerContext *init = decl->initializer()) {
      if (typeClass(v.type) == TypeClass::Opaque) fieldInitializer(init, v);
      else initializer(init, v.init, 0);
    }
    return v;
  }

  void fieldInitializer(P::InitializerContext *init, Variable &v) {
    auto *fields = dynamic_cast<P::FieldInitContext *>(init);
    if (!fields) fail(init, "expected '{', found '" + init->getStart()->getText() + "'");
    for (P::FieldInitializerContext *f : fields->fieldInitializer()) {
      Name field = m_.names.intern(plainName(f->NAME(0), "a field name"));
      TerminalNode *value = f->NAME().size() > 1 ? f->NAME(1) : f->NUMBER();
      v.fieldInit.emplace_back(field, m_.names.intern(value->getText()));
    }
  }

  void initializer(P::InitializerContext *init, std::vector<InitItem> &out, unsigned depth) {
    if (depth > kMaxNesting) fail(init, "initializer nested too deeply");
    if (auto *list = dynamic_cast<P::ListInitContext *>(init)) {
      size_t listIndex = out.size();
      out.push_back({InitItem::List});
      uint32_t count = 0;
      for (P::InitializerContext *item : list->initializer()) {
        initializer(item, out, depth + 1);
        ++count;
      }
      out[listIndex].count = count;
      return;
    }
    if (auto *fields = dynamic_cast<P::FieldInitContext *>(init)) {
      // `{}`, or `{ name = ...}` on a type without fields.
      if (!fields->fieldInitializer().empty()) {
        // The fast front end reads `name` as a symbol, then stumbles on '='.
        P::FieldInitializerContext *f = fields->fieldInitializer(0);
        out.push_back({InitItem::List});
        m_.names.intern(f->NAME(0)->getText());
        Token *eq = f->EQUALS()->getSymbol();
        fail(eq, "expected ',' or '}', found '='");
      }
      out.push_back({InitItem::List});
      return;
    }
    InitItem item;
    if (auto *generic = dynamic_cast<P::GenericInitContext *>(init)) {
      item.kind = InitItem::Address;
      if (generic->NAME(0)->getText() != "generic") {
        m_.names.intern(generic->NAME(0)->getText());
        fail(generic->LPAREN(), "expected ',' or '}', found '('");
      }
      item.flags = 1;
      item.symbol = m_.names.intern(plainName(generic->NAME(1), "a symbol"));
      if (generic->sign) item.value = offset(generic->sign, generic->NUMBER());
      out.push_back(item);
      return;
    }
    if (auto *symbol = dynamic_cast<P::SymbolInitContext *>(init)) {
      item.kind = InitItem::Address;
      item.symbol = m_.names.intern(plainName(symbol->NAME(), "a symbol"));
      if (symbol->sign) item.value = offset(symbol->sign, symbol->NUMBER());
      out.push_back(item);
      return;
    }
    Operand op = constant(dynamic_cast<P::ConstInitContext *>(init)->constExpr());
    item.kind = op.kind == OperandKind::Int ? InitItem::Int : op.kind == OperandKind::F32 ? InitItem::F32 : InitItem::F64;
    item.flags = op.flags;
    item.format = op.format();
    item.value = op.value;
    out.push_back(item);
  }

  int64_t offset(Token *sign, TerminalNode *number) {
    uint64_t off = u64(number, "an offset");
    if (off > INT64_MAX) fail(number, "offset too large");
    return sign->getType() == P::MINUS ? -static_cast<int64_t>(off) : static_cast<int64_t>(off);
  }

  // ---- Bodies ----

  void statements(const std::vector<P::StatementContext *> &list) {
    for (P::StatementContext *s : list) {
      if (tooManyErrors(s->getStart())) return;
      if (s->exception) continue;
      if (skipThrough_ && s->getStop() && s->getStop()->getTokenIndex() <= skipThrough_) continue;
      if (P::ScopeContext *scope = s->scope(); scope && !scope->exception) {
        if (fb_->scopeDepth() > kMaxNesting) {
          errors_.error(locOf(scope->getStart()), "scopes nested too deeply");
          continue;
        }
        fb_->openScope();
        statements(scope->statement());
        fb_->closeScope();
        continue;
      }
      if (hasSyntaxError(s)) continue;
      try {
        statement(s);
      } catch (const Abandon &) {
      }
    }
  }

  /// The fast front end takes `name :` for a label only when nothing but
  /// blanks separates the name from its colon (a comment does not count).
  void checkLabelColon(TerminalNode *name, TerminalNode *colon) {
    size_t from = name->getSymbol()->getStopIndex() + 1, to = colon->getSymbol()->getStartIndex();
    std::string_view source(*m_.source);
    for (size_t i = from; i < to && i < source.size(); ++i) {
      char c = source[i];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
      // Read as an instruction, as the fast front end does; it then skips
      // to the next ';' (not past a brace on a later line).
      SourceLoc loc = locOf(name->getSymbol());
      for (size_t t = colon->getSymbol()->getTokenIndex() + 1; t < tokens_.size(); ++t) {
        Token *tok = tokens_.get(t);
        size_t type = tok->getType();
        if (type == Token::EOF) break;
        if (tok->getChannel() != Token::DEFAULT_CHANNEL) continue;
        if (type == P::SEMI) {
          skipThrough_ = t;
          break;
        }
        if ((type == P::LBRACE || type == P::RBRACE) && tok->getLine() != loc.line) break;
        skipThrough_ = t;
      }
      ResolvedInstruction r;
      std::string error;
      size_t errorOffset = 0;
      if (!resolveInstruction(name->getText(), r, error, errorOffset))
        fail(SourceLoc{loc.line, loc.column + static_cast<uint32_t>(errorOffset)}, error);
      fail(colon, "expected an operand, found ':'");
    }
  }

  void statement(P::StatementContext *s) {
    if (auto *l = s->label()) checkLabelColon(l->NAME(), l->COLON());
    else if (auto *p = s->prototypeDeclaration()) checkLabelColon(p->NAME(0), p->COLON());
    else if (auto *t = s->targetListDeclaration()) checkLabelColon(t->NAME(0), t->COLON());
    if (auto *l = s->label()) {
      fb_->addLabel(plainName(l->NAME(), "a label"), locOf(l->getStart()));
    } else if (auto *p = s->prototypeDeclaration()) {
      prototype(p);
    } else if (auto *t = s->targetListDeclaration()) {
      TargetList tl;
      tl.name = fb_->intern(plainName(t->NAME(0), "a label"));
      tl.calls = t->CALLTARGETS() != nullptr;
      tl.loc = locOf(t->getStart());
      std::vector<TerminalNode *> names = t->NAME();
      for (size_t i = 1; i < names.size(); ++i) tl.targets.push_back(fb_->intern(plainName(names[i], "a label")));
      fb_->addTargetList(std::move(tl));
    } else if (auto *r = s->registerDeclaration()) {
      registers(r);
    } else if (auto *v = s->localVariable()) {
      P::VariableDeclarationContext *decl = v->variableDeclaration();
      if (decl->stateSpace()->TEX()) fail(decl->stateSpace(), "unexpected directive '.tex' in a function body");
      fb_->addVariable(variable(decl, Linkage::None, locOf(decl->getStart())));
    } else if (auto *loc = s->locDirective()) {
      debugLoc(loc);
    } else if (auto *pragma = s->statementPragma()) {
      fb_->addPragma(strings(pragma->STRING()));
    } else if (auto *in = s->instruction()) {
      instruction(in);
    }
  }

  void prototype(P::PrototypeDeclarationContext *ctx) {
    Prototype p;
    p.name = fb_->intern(plainName(ctx->NAME(0), "a name"));
    p.loc = locOf(ctx->getStart());
    if (ctx->results) parameters(ctx->results, p.returns, true);
    TerminalNode *underscore = ctx->NAME(1);
    if (underscore->getText() != "_")
      fail(p.loc, ".callprototype expects '_' in place of the function name");
    if (ctx->params) parameters(ctx->params, p.params, true);
    p.noReturn = ctx->NORETURN() != nullptr;
    fb_->addPrototype(std::move(p));
  }

  void registers(P::RegisterDeclarationContext *ctx) {
    SourceLoc loc = locOf(ctx->getStart());
    Type type = Type::None;
    uint8_t vec = 0;
    uint32_t align = 0;
    for (P::VariableAttributeContext *a : ctx->variableAttribute()) {
      std::string d = a->getStart()->getText();
      if (a->ALIGN()) align = u32(a->NUMBER(), "an alignment");
      else if (d == ".v2" || d == ".v4" || d == ".v8") vec = static_cast<uint8_t>(d[2] - '0');
      else if (auto t = typeFromSpelling(std::string_view(d).substr(1))) type = *t;
      else fail(a, "unexpected '" + d + "' in a register declaration");
    }
    if (type == Type::None)
      fail(ctx->registerName(0), "expected a register type such as .b32, found '" + ctx->registerName(0)->getStart()->getText() + "'");
    for (P::RegisterNameContext *r : ctx->registerName()) {
      std::string name = plainName(r->NAME(), "a register name");
      if (r->LT()) {
        if (!adjacent(r->NAME()->getSymbol(), r->LT()->getSymbol())) {
          fb_->declareRegisters(name, type, vec, align, 0, false, loc);
          fail(r->LT(), "expected ',' or ';', found '<'");
        }
        fb_->declareRegisters(name, type, vec, align, u32(r->NUMBER(), "a register count"), true, loc);
      } else {
        fb_->declareRegisters(name, type, vec, align, 0, false, loc);
      }
    }
  }

  void debugLoc(P::LocDirectiveContext *ctx) {
    DebugLoc d;
    d.file = u32(ctx->NUMBER(0), "a file index");
    d.line = u32(ctx->NUMBER(1), "a line");
    d.column = u32(ctx->NUMBER(2), "a column");
    for (P::LocAttributeContext *a : ctx->locAttribute()) {
      std::string key = a->NAME(0)->getText();
      if (key == "function_name" && a->NAME().size() == 2) {
        d.functionName = fb_->intern(plainName(a->NAME(1), "a label"));
        if (a->PLUS()) u64(a->NUMBER(0), "an offset"); // label+offset: offset not kept
      } else if (key == "inlined_at" && a->NUMBER().size() == 3) {
        d.inlinedFile = u32(a->NUMBER(0), "a file index");
        d.inlinedLine = u32(a->NUMBER(1), "a line");
        d.inlinedColumn = u32(a->NUMBER(2), "a column");
      } else if (key == "function_name" || key == "inlined_at") {
        fail(a, "malformed .loc attribute '" + key + "'");
      } else {
        fail(a, "unknown .loc attribute '" + key + "'");
      }
    }
    fb_->setDebugLoc(d);
  }

  // ---- Instructions and operands ----

  void instruction(P::InstructionContext *ctx) {
    std::optional<std::pair<uint32_t, bool>> guard;
    if (P::GuardContext *g = ctx->guard()) {
      std::string name = plainName(g->NAME(), "a guard predicate");
      auto reg = fb_->findRegister(name);
      if (!reg) fail(g->NAME(), "unknown predicate register '" + name + "' in guard");
      guard = std::make_pair(*reg, g->BANG() != nullptr);
    }
    Token *opcode = ctx->NAME()->getSymbol();
    SourceLoc loc = locOf(opcode);
    std::string dotted = opcode->getText();
    ResolvedInstruction r;
    std::string error;
    size_t errorOffset = 0;
    if (!fb_->resolve(dotted, r, error, errorOffset))
      fail(SourceLoc{loc.line, loc.column + static_cast<uint32_t>(errorOffset)}, error);
    std::vector<Operand> ops;
    for (P::OperandContext *o : ctx->operand()) ops.push_back(operand(o, 1));
    uint32_t first = fb_->appendOperands(ops);
    fb_->addInstruction(r, guard, first, static_cast<uint32_t>(ops.size()), loc);
  }

  /// `a|b|c`: Pair(a, Pair(b, c)), the children appended before each pair
  /// as the fast front end does.
  Operand operand(P::OperandContext *ctx, unsigned depth) {
    return pairChain(ctx->primaryOperand(), nullptr, depth);
  }

  /// The operands of `first|rest[0]|rest[1]...` (`head` a call list's first
  /// operand, in place of rest[0]'s primary).
  Operand pairChain(const std::vector<P::PrimaryOperandContext *> &rest, P::StructuredOperandContext *head,
                    unsigned depth) {
    std::vector<Operand> items;
    size_t n = rest.size() + (head ? 1 : 0);
    for (size_t k = 0; k < n; ++k) {
      antlr4::ParserRuleContext *at = head ? (k == 0 ? static_cast<antlr4::ParserRuleContext *>(head) : rest[k - 1])
                                           : rest[k];
      if (depth + k > kMaxNesting) fail(at, "operands nested too deeply");
      Operand op = head && k == 0 ? structured(head, depth + k)
                                  : primary(head ? rest[k - 1] : rest[k], depth + k);
      items.push_back(op);
      // A constant followed by `|` took the `|` as an operator and wants
      // another constant.
      P::PrimaryOperandContext *cur = head ? (k == 0 ? nullptr : rest[k - 1]) : rest[k];
      if (k + 1 < n && isConstant(cur)) {
        P::PrimaryOperandContext *next = head ? rest[k] : rest[k + 1];
        fail(next, "expected a constant, found " + describeToken(next->getStart()));
      }
    }
    Operand op = items.back();
    for (size_t k = n - 1; k-- > 0;) {
      Operand pair[2] = {items[k], op};
      Operand p;
      p.kind = OperandKind::Pair;
      p.setCount(2);
      p.id = fb_->appendOperands(pair);
      op = p;
    }
    return op;
  }

  static bool isConstant(P::PrimaryOperandContext *ctx) {
    return ctx && dynamic_cast<P::ConstantOperandContext *>(ctx) != nullptr;
  }

  Operand primary(P::PrimaryOperandContext *ctx, unsigned depth) {
    if (auto *c = dynamic_cast<P::ConstantOperandContext *>(ctx)) return constant(c->constExpr());
    if (auto *neg = dynamic_cast<P::NegatedOperandContext *>(ctx)) {
      Operand op = name(neg->NAME());
      if (op.kind != OperandKind::Register) fail(neg->NAME(), "'!' applies to predicate registers only");
      op.flags |= opflag::Negated;
      return op;
    }
    if (auto *minus = dynamic_cast<P::MinusOperandContext *>(ctx)) return minusRegister(minus);
    if (auto *list = dynamic_cast<P::ListOperandContext *>(ctx)) {
      std::vector<Operand> children;
      if (P::ListHeadContext *head = list->listHead()) {
        children.push_back(pairChain(head->primaryOperand(), head->structuredOperand(), depth + 1));
        for (P::OperandContext *o : list->operand()) children.push_back(operand(o, depth + 1));
      }
      return groupOf(children, OperandKind::List);
    }
    return structured(dynamic_cast<P::OtherOperandContext *>(ctx)->structuredOperand(), depth);
  }

  Operand structured(P::StructuredOperandContext *ctx, unsigned depth) {
    if (auto *n = dynamic_cast<P::NameOperandContext *>(ctx)) return name(n->NAME());
    if (auto *vec = dynamic_cast<P::VectorOperandContext *>(ctx)) {
      std::vector<Operand> children;
      for (P::OperandContext *o : vec->operand()) children.push_back(operand(o, depth + 1));
      return groupOf(children, OperandKind::Vector);
    }
    return address(dynamic_cast<P::BracketOperandContext *>(ctx)->bracketContent(), depth);
  }

  /// `-%r2`: a negated video source.
  Operand minusRegister(P::MinusOperandContext *ctx) {
    Operand reg = name(ctx->NAME());
    if (reg.kind != OperandKind::Register) fail(ctx->NAME(), "'-' applies to registers and numbers only");
    reg.flags |= opflag::Minus;
    return reg;
  }

  Operand groupOf(const std::vector<Operand> &children, OperandKind kind) {
    Operand g;
    g.kind = kind;
    g.setCount(static_cast<uint32_t>(children.size()));
    g.id = fb_->appendOperands(children);
    return g;
  }

  // ---- Constant expressions, read in the fast front end's order ----

  struct Term {
    Operand literal;       // the literal, when no operator was applied
    bool compound = false; // an operator or parentheses were involved
    ConstValue value;
  };

  /// A lone literal stays a literal; an expression becomes its value.
  Operand constant(P::ConstExprContext *ctx) {
    Term t = constExpr(ctx, 0);
    return t.compound ? constOperand(t.value) : t.literal;
  }

  static bool isInt(const Term &t) { return t.compound || t.literal.kind == OperandKind::Int; }

  /// Parser::parseConstExpr(0, depth) over one constExpr.
  Term constExpr(P::ConstExprContext *ctx, unsigned depth) {
    if (depth > kMaxNesting) fail(ctx, "constant expression nested too deeply");
    std::vector<P::ConstUnaryContext *> units = ctx->constUnary();
    std::vector<P::BinaryOperatorContext *> ops = ctx->binaryOperator();
    size_t i = 0;
    Term lhs = climb(units, ops, i, 0, depth, true);
    if (TerminalNode *q = ctx->QUESTION()) {
      SourceLoc loc = locOf(q->getSymbol());
      Term a = constExpr(ctx->constExpr(0), depth + 1);
      Term b = constExpr(ctx->constExpr(1), depth + 1);
      if (!isInt(lhs) || !isInt(a) || !isInt(b)) fail(loc, "constant expressions take integers only");
      Term r;
      r.compound = true;
      r.value = lhs.value.value ? a.value : b.value;
      r.value.isUnsigned = a.value.isUnsigned || b.value.isUnsigned;
      lhs = r;
    }
    return lhs;
  }

  /// Precedence climbing over units[i], ops[i], units[i+1], ...
  Term climb(const std::vector<P::ConstUnaryContext *> &units, const std::vector<P::BinaryOperatorContext *> &ops,
             size_t &i, int minPrecedence, unsigned depth, bool checked) {
    if (!checked && depth > kMaxNesting) fail(units[i], "constant expression nested too deeply");
    Term lhs = unary(units[i], depth + 1);
    for (;;) {
      if (i >= ops.size()) return lhs;
      std::string op = ops[i]->getText();
      int prec = constBinaryPrecedence(op);
      if (prec == 0) fail(ops[i], "expected ',' or ';' after an operand, found '" + op + "'");
      if (prec < minPrecedence) return lhs;
      SourceLoc loc = locOf(ops[i]->getStart());
      ++i;
      Term rhs = climb(units, ops, i, prec + 1, depth + 1, false);
      if (!isInt(lhs) || !isInt(rhs)) fail(loc, "constant expressions take integers only");
      Term r;
      r.compound = true;
      std::string error;
      if (!evalConstBinary(op, lhs.value, rhs.value, r.value, error)) fail(loc, error);
      lhs = r;
    }
  }

  Term unary(P::ConstUnaryContext *ctx, unsigned depth) { return unaryFrom(ctx->unaryOperator(), 0, ctx->constAtom(), depth); }

  /// Parser::parseConstUnary at unary operator `k` (or the atom).
  Term unaryFrom(const std::vector<P::UnaryOperatorContext *> &ops, size_t k, P::ConstAtomContext *atom, unsigned depth) {
    Token *here = k < ops.size() ? ops[k]->getStart() : atom->getStart();
    if (depth > kMaxNesting) fail(here, "constant expression nested too deeply");
    Term t;
    if (k < ops.size()) {
      char op = ops[k]->getText()[0];
      if (op == '-' && k + 1 == ops.size() && atom->NUMBER()) {
        // A negative literal stays a literal (written as it was).
        t.literal = literal(here, atom->NUMBER());
      } else {
        Term inner = unaryFrom(ops, k + 1, atom, depth + 1);
        if (!isInt(inner)) fail(here, "constant expressions take integers only");
        t.compound = true;
        evalConstUnary(op, inner.value, t.value);
        return t;
      }
    } else if (P::ConstExprContext *inner = atom->constExpr()) {
      t = constExpr(inner, depth + 1);
      t.compound = true;
      return t;
    } else {
      t.literal = literal(nullptr, atom->NUMBER());
    }
    t.value = {t.literal.value, (t.literal.flags & opflag::UnsignedSuffix) != 0};
    return t;
  }

  Operand literal(Token *minus, TerminalNode *number) {
    std::string text = (minus ? "-" : "") + number->getText();
    Operand op;
    bool ok = looksLikeFloat(text) ? readFloatLiteral(text, op) : readIntLiteral(text, op);
    if (!ok) fail(minus ? locOf(minus) : locOf(number->getSymbol()), "malformed number '" + text + "'");
    return op;
  }
  static std::optional<Selector> selectorOf(std::string_view s) {
    static const std::pair<std::string_view, Selector> kSelectors[] = {
        {"x", Selector::X},   {"y", Selector::Y},   {"z", Selector::Z},   {"w", Selector::W},
        {"r", Selector::X},   {"g", Selector::Y},   {"b", Selector::Z},   {"a", Selector::W},
        {"b0", Selector::B0}, {"b1", Selector::B1}, {"b2", Selector::B2}, {"b3", Selector::B3},
        {"h0", Selector::H0}, {"h1", Selector::H1},
    };
    for (auto &[spelling, sel] : kSelectors)
      if (s == spelling) return sel;
    return std::nullopt;
  }

  /// SIMD video masks on registers: .b3210, .b10, .h10 (Parser::parseSelector).
  static bool applyMask(Operand &op, std::string_view word) {
    if (word.size() < 3 || word.size() > 5 || (word[0] != 'b' && word[0] != 'h') || op.kind != OperandKind::Register)
      return false;
    char maxDigit = word[0] == 'b' ? '7' : '1';
    int64_t packed = 0;
    for (size_t i = 1; i < word.size(); ++i) {
      if (word[i] < '0' || word[i] > maxDigit) return false;
      packed = packed << 4 | (word[i] - '0');
    }
    op.selector = word[0] == 'b' ? Selector::ByteMask : Selector::HalfMask;
    op.value = packed | static_cast<int64_t>(word.size() - 1) << 32;
    return true;
  }

  /// `%r1`, `%r1.b0`, `%r1.b3210`, `%tid.x`, `%envreg3`, `sym`, `_`.
  Operand name(TerminalNode *node) {
    std::string text = node->getText();
    SourceLoc loc = locOf(node->getSymbol());
    size_t dot = text.find('.');
    std::string_view base = std::string_view(text).substr(0, dot);
    std::string_view suffix = dot == std::string::npos ? std::string_view() : std::string_view(text).substr(dot);
    SourceLoc suffixLoc{loc.line, loc.column + static_cast<uint32_t>(dot == std::string::npos ? 0 : dot)};
    // The fast front end reads one selector; anything after it is a stray
    // `.word` in the operand list.
    auto applySelector = [&](Operand &op) {
      if (suffix.empty()) return;
      size_t next = suffix.find('.', 1);
      std::string_view word = suffix.substr(1, next == std::string_view::npos ? std::string_view::npos : next - 1);
      if (!word.empty() && word[0] >= '0' && word[0] <= '9') {
        // `.5` is a number to the fast lexer, not a selector.
        std::string_view rest = suffix.substr(0, suffix.find(':'));
        fail(suffixLoc, "expected ',' or ';' after an operand, found '" + std::string(rest) + "'");
      }
      if (auto sel = selectorOf(word)) {
        op.selector = *sel;
      } else if (!applyMask(op, word)) {
        fail(suffixLoc, "unknown operand selector '." + std::string(word) + "'");
      }
      if (next != std::string_view::npos)
        fail(SourceLoc{loc.line, suffixLoc.column + static_cast<uint32_t>(next)},
             "expected ',' or ';' after an operand, found '" + std::string(suffix.substr(next)) + "'");
    };
    auto stray = [&]() {
      if (!suffix.empty())
        fail(suffixLoc, "expected ',' or ';' after an operand, found '" + std::string(suffix) + "'");
    };
    Operand op;
    if (base == "_") {
      op.kind = OperandKind::Sink;
      stray();
      return op;
    }
    if (auto reg = fb_->findRegister(base)) {
      op.kind = OperandKind::Register;
      op.id = *reg;
      applySelector(op);
      return op;
    }
    if (base[0] == '%') {
      std::string_view bare = base.substr(1);
      if (auto sreg = specialRegFromName(bare)) {
        op.kind = OperandKind::SpecialReg;
        op.id = static_cast<uint32_t>(*sreg);
        applySelector(op);
        if (hasComponents(*sreg) && op.selector == Selector::None)
          fail(loc, "special register '" + std::string(base) + "' needs a component (.x, .y or .z)");
        return op;
      }
      if (bare.starts_with("envreg") && bare.size() > 6 && bare.size() <= 8) {
        uint64_t idx;
        if (readUnsigned(bare.substr(6), idx) && idx < 32 && (bare[6] != '0' || bare.size() == 7)) {
          op.kind = OperandKind::SpecialReg;
          op.id = static_cast<uint32_t>(SpecialReg::EnvReg);
          op.value = static_cast<int64_t>(idx);
          stray();
          return op;
        }
      }
      fail(loc, "unknown register '" + std::string(base) + "'");
    }
    op.kind = OperandKind::Symbol;
    op.id = fb_->intern(base);
    stray();
    return op;
  }

  Operand address(P::BracketContentContext *ctx, unsigned depth) {
    if (auto *list = dynamic_cast<P::AddressListContext *>(ctx)) {
      std::vector<P::OperandContext *> items = list->operand();
      std::vector<Operand> children;
      bool simple = false;
      children.push_back(leadingOperand(items[0], depth, simple));
      for (size_t i = 1; i < items.size(); ++i) children.push_back(operand(items[i], depth + 1));
      Operand l;
      l.kind = OperandKind::AddressList;
      l.setCount(static_cast<uint32_t>(children.size()));
      l.id = fb_->appendOperands(children);
      return l;
    }
    auto *base = dynamic_cast<P::BaseAddressContext *>(ctx);
    SourceLoc loc = locOf(base->getStart());
    bool simple = false;
    Operand first = leadingOperand(base->operand(), depth, simple);
    Operand a;
    a.kind = OperandKind::Address;
    if (simple && !base->sign) {
      // [0x100], [-8], [4*64]
      a.base = AddressBase::None;
      a.value = first.value;
      return a;
    }
    if (first.kind == OperandKind::Register) {
      a.base = AddressBase::Register;
      a.id = first.id;
      a.selector = first.selector;
    } else if (first.kind == OperandKind::Symbol) {
      a.base = AddressBase::Symbol;
      a.id = first.id;
    } else {
      fail(loc, "an address is [register], [symbol] or [number], optionally + offset");
    }
    if (base->sign) {
      bool minus = base->sign->getType() == P::MINUS;
      if (base->MINUS().size() == (minus ? 2u : 1u)) minus = !minus;
      TerminalNode *number = base->NUMBER();
      Operand off;
      if (!readIntLiteral(number->getText(), off)) fail(number, "malformed offset '" + number->getText() + "'");
      a.value = minus ? static_cast<int64_t>(0 - static_cast<uint64_t>(off.value)) : off.value;
    }
    return a;
  }

  /// The first operand inside `[...]`. Starting with a number or `-`, the
  /// fast front end reads one simple operand (a constant, or `-%r`) that
  /// must be an integer (`simple` is then set); anything else is a full
  /// operand.
  Operand leadingOperand(P::OperandContext *ctx, unsigned depth, bool &simple) {
    size_t type = ctx->getStart()->getType();
    if (type != P::NUMBER && type != P::MINUS) return operand(ctx, depth + 1);
    simple = true;
    SourceLoc loc = locOf(ctx->getStart());
    std::vector<P::PrimaryOperandContext *> prims = ctx->primaryOperand();
    Operand op;
    if (auto *minus = dynamic_cast<P::MinusOperandContext *>(prims[0])) {
      op = minusRegister(minus);
    } else if (auto *c = dynamic_cast<P::ConstantOperandContext *>(prims[0])) {
      op = constant(c->constExpr());
      if (prims.size() > 1) fail(prims[1], "expected a constant, found " + describeToken(prims[1]->getStart()));
    } else {
      fail(loc, "expected an operand, found " + describeToken(ctx->getStart()));
    }
    if (op.kind != OperandKind::Int) fail(loc, "an address must be an integer");
    return op;
  }


  Module &m_;
  ErrorReporter &errors_;
  antlr4::CommonTokenStream &tokens_;
  const std::vector<SourceLoc> &syntaxErrors_;
  size_t errorsBefore_; // syntax errors, reported before the visit
  FunctionBuilder *fb_ = nullptr;
  size_t skipThrough_ = 0; // statements up to this token were skipped by an error
};

/// The deepest nesting of brackets in the token stream; ANTLR's recursive
/// descent must not see more than kMaxTokenNesting. Returns the token that
/// goes too deep, or nullptr.
Token *tooDeep(antlr4::CommonTokenStream &tokens) {
  unsigned depth = 0;
  // `a ? b : c ? d : e` nests to the right: count the `?` of a statement.
  unsigned questions = 0;
  for (Token *t : tokens.getTokens()) {
    switch (t->getType()) {
    case P::QUESTION:
      if (depth + ++questions > kMaxTokenNesting) return t;
      break;
    case P::SEMI: questions = 0; break;
    case P::LBRACE:
    case P::LPAREN:
    case P::LBRACKET:
      if (++depth + questions > kMaxTokenNesting) return t;
      break;
    case P::RBRACE:
    case P::RPAREN:
    case P::RBRACKET:
      if (depth) --depth;
      break;
    default: break;
    }
  }
  return nullptr;
}

} // namespace

std::unique_ptr<Module> parseModuleAntlr(std::string source, std::string fileName, DiagnosticList &diags) {
  auto m = std::make_unique<Module>();
  m->fileName = std::move(fileName);
  m->source = std::make_shared<const std::string>(std::move(source));
  // Syntax errors come first from ANTLR and semantic ones later from the
  // visitor: collect both, then report them in source order.
  DiagnosticList local;
  ErrorReporter errors(local, m->fileName, *m->source);
  try {
    ByteStream input(*m->source);
    ptx_antlr::PTXLexer lexer(&input);
    lexer.removeErrorListeners();
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    if (Token *deep = tooDeep(tokens)) {
      errors.error(locOf(deep), "brackets nested too deeply");
    } else {
      ptx_antlr::PTXParser parser(&tokens);
      parser.removeErrorListeners();
      ErrorListener listener(errors);
      parser.addErrorListener(&listener);
      parser.setErrorHandler(std::make_shared<ErrorStrategy>());
      P::ModuleContext *tree = parser.module();
      Builder builder(*m, errors, tokens, listener.locations());
      builder.visitModule(tree);
    }
  } catch (const std::exception &e) {
    errors.error({}, std::string("internal error in the ANTLR front end: ") + e.what());
  }
  std::vector<Diagnostic> all = local.all();
  std::stable_sort(all.begin(), all.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return std::pair(a.loc.line, a.loc.column) < std::pair(b.loc.line, b.loc.column);
  });
  size_t n = 0;
  for (Diagnostic &d : all) {
    if (n++ == kMaxErrors) break;
    diags.add(std::move(d));
  }
  return m;
}

} // namespace ptx
