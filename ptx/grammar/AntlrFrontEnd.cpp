// The ANTLR4 front end: PTX.g4 recognises the syntax, and this visitor hands
// what it recognised to the semantic layer both front ends share (Builder.h).
// It fills the IR exactly as the fast front end (Parser.cpp) does: the same
// statements in the same order, the same operand pool layout (the children
// of a composite operand before the composite's own list, the instruction's
// top-level operands last), the same names interned in the same order, and
// the same source locations.
// This file: module-level directives and the entry point, parseModuleAntlr.
#include "ptx/grammar/AntlrImpl.h"

#include <algorithm>

namespace ptx {
namespace detail::antlr {

antlrcpp::Any Builder::visitModule(P::ModuleContext *ctx) {
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

antlrcpp::Any Builder::visitVersionDirective(P::VersionDirectiveContext *ctx) {
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

antlrcpp::Any Builder::visitTargetDirective(P::TargetDirectiveContext *ctx) {
  for (TerminalNode *n : ctx->NAME()) m_.targets.emplace_back(plainName(n, "a target such as sm_90"));
  return nullptr;
}

antlrcpp::Any Builder::visitAddressSizeDirective(P::AddressSizeDirectiveContext *ctx) {
  m_.addressSize = u32(ctx->NUMBER(), "an address size");
  if (m_.addressSize != 32 && m_.addressSize != 64)
    fail(ctx->ADDRESS_SIZE(), ".address_size must be 32 or 64");
  return nullptr;
}

antlrcpp::Any Builder::visitFileDirective(P::FileDirectiveContext *ctx) {
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

antlrcpp::Any Builder::visitSectionDirective(P::SectionDirectiveContext *ctx) {
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

antlrcpp::Any Builder::visitPragmaDirective(P::PragmaDirectiveContext *ctx) {
  m_.order.push_back({TopLevelKind::Pragma, static_cast<uint32_t>(m_.pragmas.size())});
  m_.pragmas.push_back(strings(ctx->STRING()));
  return nullptr;
}

antlrcpp::Any Builder::visitAliasDirective(P::AliasDirectiveContext *ctx) {
  Name a = m_.names.intern(plainName(ctx->NAME(0), "an alias name"));
  Name b = m_.names.intern(plainName(ctx->NAME(1), "the aliased function"));
  m_.order.push_back({TopLevelKind::Alias, static_cast<uint32_t>(m_.aliases.size())});
  m_.aliases.emplace_back(a, b);
  return nullptr;
}

antlrcpp::Any Builder::visitModuleVariable(P::ModuleVariableContext *ctx) {
  P::VariableDeclarationContext *decl = ctx->variableDeclaration();
  Token *first = ctx->getStart();
  Mod space = spaceOf(decl->stateSpace()->getText());
  if (space == Mod::Param) fail(decl->stateSpace(), "unexpected directive '.param' at module level");
  Variable v = variable(decl, linkageOf(ctx->linkage()), locOf(first));
  m_.order.push_back({TopLevelKind::Variable, static_cast<uint32_t>(m_.globals.size())});
  m_.globals.push_back(std::move(v));
  return nullptr;
}

antlrcpp::Any Builder::visitFunctionDefinition(P::FunctionDefinitionContext *ctx) {
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

// ---- Helpers ----

/// The fast front end stops after kMaxErrors errors; so does this one,
/// counting the syntax errors before `at` and the semantic errors so far.
bool Builder::tooManyErrors(Token *at) {
  SourceLoc here = locOf(at);
  auto before = [](SourceLoc a, SourceLoc b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  };
  size_t syntax =
      std::lower_bound(syntaxErrors_.begin(), syntaxErrors_.end(), here, before) - syntaxErrors_.begin();
  size_t semantic = errors_.errorCount() - errorsBefore_;
  return syntax + semantic >= kMaxErrors;
}

/// A NAME used as a plain identifier: the fast lexer never reads dots into
/// one, so `a.b` here means a stray `.b`.
std::string Builder::plainName(TerminalNode *n, std::string_view what) {
  std::string text = n->getText();
  size_t dot = text.find('.');
  if (dot != std::string::npos) {
    Token *t = n->getSymbol();
    fail(SourceLoc{static_cast<uint32_t>(t->getLine()),
                   static_cast<uint32_t>(t->getCharPositionInLine() + 1 + dot)},
         "expected " + std::string(what) + " without '" + text.substr(dot) + "'");
  }
  return text;
}

uint64_t Builder::u64(TerminalNode *n, std::string_view what) {
  uint64_t v;
  if (!readUnsigned(n->getText(), v))
    fail(n, "expected " + std::string(what) + ", found '" + n->getText() + "'");
  return v;
}

uint32_t Builder::u32(TerminalNode *n, std::string_view what) {
  uint64_t v = u64(n, what);
  if (v > UINT32_MAX) fail(n, std::string(what) + " is too large");
  return static_cast<uint32_t>(v);
}

DirectiveKind Builder::directiveKind(size_t token) {
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

namespace {

/// Deeper bracket nesting than this is refused before ANTLR parses it: its
/// recursive descent would otherwise overflow the stack.
constexpr unsigned kMaxTokenNesting = 200;

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
} // namespace detail::antlr

std::unique_ptr<Module> parseModuleAntlr(std::string source, std::string fileName, DiagnosticList &diags) {
  using namespace detail::antlr;
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
