// The fast front end: a recursive-descent parser over Lexer tokens. It only
// recognises syntax; meaning comes from the shared builders (Builder.h).
#include "ptx/Parser.h"

#include "ptx/Builder.h"
#include "ptx/Lexer.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ptx {
namespace {

/// Thrown inside a statement to abandon it; the parser then skips to a
/// recovery point. Never escapes the parser.
struct SyntaxError {};

constexpr size_t kMaxErrors = 50;
constexpr unsigned kMaxNesting = 64;

class Parser {
public:
  Parser(Module &m, ErrorReporter &errors, Lexer lexer) : m_(m), errors_(errors), lex_(lexer) { advance(); }

  void parseModule(bool lazy);
  /// Parses one function body starting at its `{`.
  void parseBody(Function &fn);

private:
  // ---- Tokens ----
  void advance() { lex_.next(tok_); }
  [[noreturn]] void fail(SourceLoc loc, std::string message) {
    errors_.error(loc, std::move(message));
    throw SyntaxError{};
  }
  [[noreturn]] void expected(std::string_view what) {
    if (tok_.kind == Tok::Invalid && tok_.text.starts_with("/*")) fail(tok_.loc, "unterminated comment: '/*' without '*/'");
    if (tok_.kind == Tok::Invalid && tok_.text.starts_with("\""))
      fail(tok_.loc, "unterminated string: '\"' without a closing quote on the same line");
    std::string found = tok_.kind == Tok::End ? "end of file" : "'" + std::string(tok_.text) + "'";
    fail(tok_.loc, "expected " + std::string(what) + ", found " + found);
  }
  void expectPunct(char c) {
    if (!tok_.is(c)) expected(std::string("'") + c + "'");
    advance();
  }
  bool acceptPunct(char c) {
    if (!tok_.is(c)) return false;
    advance();
    return true;
  }
  std::string_view expectIdent(std::string_view what) {
    if (tok_.kind != Tok::Ident) expected(what);
    std::string_view t = tok_.text;
    advance();
    return t;
  }
  uint64_t expectUnsigned(std::string_view what) {
    uint64_t v;
    if (tok_.kind != Tok::Number || !readUnsigned(tok_.text, v)) expected(what);
    advance();
    return v;
  }
  uint32_t expectU32(std::string_view what) {
    SourceLoc loc = tok_.loc;
    uint64_t v = expectUnsigned(what);
    if (v > UINT32_MAX) fail(loc, std::string(what) + " is too large");
    return static_cast<uint32_t>(v);
  }
  std::string expectString() {
    if (tok_.kind != Tok::String) expected("a string");
    std::string s(tok_.text.substr(1, tok_.text.size() - 2));
    advance();
    return s;
  }
  /// Skips to just after the next ';' (or before a '}' / end) at this level.
  void recover();
  bool tooManyErrors() const { return errors_.errorCount() >= kMaxErrors; }

  // ---- Module level ----
  void parseTopLevel(bool lazy);
  void parseVersion();
  void parseTarget();
  void parseFile();
  void parseSection();
  std::vector<std::string> parsePragmaArgs();
  void parseFunction(Linkage linkage, SourceLoc loc, bool lazy);
  void parseParamList(std::vector<Variable> &out, bool allowUnnamed);
  Variable parseVariable(Mod space, Linkage linkage, SourceLoc loc, bool allowUnnamed);
  void parseInitializer(std::vector<InitItem> &out, unsigned depth);
  void parseInitScalar(std::vector<InitItem> &out);
  void parseFieldInitializer(Variable &v);

  // ---- Bodies ----
  void parseStatements(FunctionBuilder &fb);
  void parseStatement(FunctionBuilder &fb);
  void parseRegDecl(FunctionBuilder &fb);
  void parseLoc(FunctionBuilder &fb);
  void parseLabelled(FunctionBuilder &fb, std::string_view name, SourceLoc loc);
  void parseInstruction(FunctionBuilder &fb);
  Operand parseOperand(FunctionBuilder &fb, unsigned depth);
  Operand parseSimpleOperand(FunctionBuilder &fb);
  Operand parseNameOperand(FunctionBuilder &fb, std::string_view name, SourceLoc loc);
  Operand parseAddress(FunctionBuilder &fb, unsigned depth);
  Operand parseGroup(FunctionBuilder &fb, OperandKind kind, char close, unsigned depth);
  void parseSelector(Operand &op);

  // ---- Constant expressions ----
  struct Term {
    Operand literal;       // the literal, when no operator was applied
    bool compound = false; // an operator or parentheses were involved
    ConstValue value;
  };
  /// A literal, or an integer constant expression reduced to its value.
  Operand parseConstant();
  Term parseConstExpr(int minPrecedence, unsigned depth);
  Term parseConstUnary(unsigned depth);
  /// The binary operator at the current token (two tokens for <<, <=, ...).
  std::string_view currentOperator(unsigned &tokens);
  bool startsConstant() {
    if (tok_.kind == Tok::Number || tok_.is('~') || tok_.is('+')) return true;
    if (tok_.is('-') || tok_.is('!') || tok_.is('(')) {
      const Token &next = lex_.peek();
      return next.kind == Tok::Number || next.is('(') || next.is('-') || next.is('~') || next.is('!') || next.is('+');
    }
    return false;
  }

  Module &m_;
  ErrorReporter &errors_;
  Lexer lex_;
  Token tok_;
  // Buffers that bodies are parsed into, reused from function to function.
  struct {
    std::vector<Instruction> instrs;
    std::vector<Operand> operands;
    std::vector<Stmt> body;
  } pool_;
  // Operand scratch per nesting depth, reused across instructions.
  std::vector<std::vector<Operand>> scratch_;
  std::vector<Operand> &scratch(unsigned depth) {
    if (scratch_.size() <= depth) scratch_.resize(depth + 1);
    return scratch_[depth];
  }
};

void Parser::recover() {
  int depth = 0;
  while (tok_.kind != Tok::End) {
    if (tok_.is('{')) ++depth;
    else if (tok_.is('}')) {
      if (depth == 0) {
        advance(); // a stray '}' at module level
        return;
      }
      if (--depth == 0) {
        advance();
        return;
      }
    } else if (tok_.is(';') && depth == 0) {
      advance();
      return;
    }
    advance();
  }
}

// ---- Module level ----------------------------------------------------------

void Parser::parseModule(bool lazy) {
  while (tok_.kind != Tok::End && !tooManyErrors()) {
    try {
      parseTopLevel(lazy);
    } catch (const SyntaxError &) {
      recover();
    }
  }
}

Linkage linkageOf(std::string_view d) {
  if (d == ".visible") return Linkage::Visible;
  if (d == ".extern") return Linkage::Extern;
  if (d == ".weak") return Linkage::Weak;
  if (d == ".common") return Linkage::Common;
  return Linkage::None;
}

Mod spaceOf(std::string_view d) {
  if (d.empty() || d[0] != '.') return Mod::None;
  auto m = modFromSpelling(d.substr(1));
  if (m && modKind(*m) == ModKind::Space) return *m;
  return Mod::None;
}

void Parser::parseTopLevel(bool lazy) {
  if (tok_.is(';')) {
    advance();
    return;
  }
  if (tok_.kind != Tok::Directive) expected("a directive such as .version, .entry, .func or a variable");
  SourceLoc loc = tok_.loc;
  std::string_view d = tok_.text;
  if (d == ".version") return parseVersion();
  if (d == ".target") return parseTarget();
  if (d == ".address_size") {
    advance();
    m_.addressSize = expectU32("an address size");
    if (m_.addressSize != 32 && m_.addressSize != 64) fail(loc, ".address_size must be 32 or 64");
    acceptPunct(';');
    return;
  }
  if (d == ".file") return parseFile();
  if (d == ".section") return parseSection();
  if (d == ".pragma") {
    advance();
    m_.order.push_back({TopLevelKind::Pragma, static_cast<uint32_t>(m_.pragmas.size())});
    m_.pragmas.push_back(parsePragmaArgs());
    return;
  }
  if (d == ".alias") {
    advance();
    Name a = m_.names.intern(expectIdent("an alias name"));
    expectPunct(',');
    Name b = m_.names.intern(expectIdent("the aliased function"));
    expectPunct(';');
    m_.order.push_back({TopLevelKind::Alias, static_cast<uint32_t>(m_.aliases.size())});
    m_.aliases.emplace_back(a, b);
    return;
  }
  Linkage linkage = linkageOf(d);
  if (linkage != Linkage::None) {
    advance();
    if (tok_.kind != Tok::Directive) expected(".entry, .func or a variable after the linkage");
    d = tok_.text;
  }
  if (d == ".entry" || d == ".func") return parseFunction(linkage, loc, lazy);
  Mod space = spaceOf(d);
  if (space == Mod::Global || space == Mod::Const || space == Mod::Shared || space == Mod::Local ||
      space == Mod::Tex) {
    advance();
    Variable v = parseVariable(space, linkage, loc, false);
    expectPunct(';');
    m_.order.push_back({TopLevelKind::Variable, static_cast<uint32_t>(m_.globals.size())});
    m_.globals.push_back(std::move(v));
    return;
  }
  fail(loc, "unexpected directive '" + std::string(d) + "' at module level");
}

void Parser::parseVersion() {
  m_.versionLoc = tok_.loc;
  advance();
  if (tok_.kind != Tok::Number) expected("a version number such as 9.0");
  std::string_view v = tok_.text;
  size_t dot = v.find('.');
  uint64_t major, minor;
  if (dot == std::string_view::npos || !readUnsigned(v.substr(0, dot), major) ||
      !readUnsigned(v.substr(dot + 1), minor) || major > 99 || minor > 9)
    fail(tok_.loc, "malformed .version '" + std::string(v) + "': expected major.minor such as 9.0");
  m_.versionMajor = static_cast<uint32_t>(major);
  m_.versionMinor = static_cast<uint32_t>(minor);
  advance();
  acceptPunct(';');
}

void Parser::parseTarget() {
  advance();
  do {
    m_.targets.emplace_back(expectIdent("a target such as sm_90"));
    if (tok_.kind == Tok::Directive && !tok_.spaceBefore)
      fail(tok_.loc, "expected ',' or a new line after the target, found '" + std::string(tok_.text) + "'");
  } while (acceptPunct(','));
  acceptPunct(';');
}

void Parser::parseFile() {
  advance();
  FileEntry f;
  f.index = expectU32("a file index");
  f.path = expectString();
  if (acceptPunct(',')) {
    f.hasTimestamp = true;
    f.timestamp = expectUnsigned("a timestamp");
    expectPunct(',');
    f.size = expectUnsigned("a file size");
  }
  acceptPunct(';');
  m_.order.push_back({TopLevelKind::File, static_cast<uint32_t>(m_.files.size())});
  m_.files.push_back(std::move(f));
}

void Parser::parseSection() {
  Section s;
  s.loc = tok_.loc;
  advance();
  if (tok_.kind != Tok::Directive) expected("a section name such as .debug_info");
  s.name = std::string(tok_.text);
  // The section body is kept verbatim: read it straight from the text.
  const Token &brace = lex_.peek();
  if (!brace.is('{')) {
    advance();
    expected("'{'");
  }
  lex_.next(); // consume the peeked '{'
  std::string_view inner;
  if (!lex_.skipBalanced(inner)) fail(s.loc, "unterminated .section: missing '}'");
  s.text = std::string(trimSectionText(inner));
  advance();
  m_.order.push_back({TopLevelKind::Section, static_cast<uint32_t>(m_.sections.size())});
  m_.sections.push_back(std::move(s));
}

std::vector<std::string> Parser::parsePragmaArgs() {
  std::vector<std::string> args;
  do {
    args.push_back(expectString());
  } while (acceptPunct(','));
  expectPunct(';');
  return args;
}

void Parser::parseParamList(std::vector<Variable> &out, bool allowUnnamed) {
  expectPunct('(');
  if (acceptPunct(')')) return;
  do {
    if (tok_.kind != Tok::Directive) expected("a parameter declaration (.param or .reg)");
    SourceLoc loc = tok_.loc;
    Mod space = spaceOf(tok_.text);
    if (space != Mod::Param && space != Mod::Reg) expected("a parameter declaration (.param or .reg)");
    advance();
    out.push_back(parseVariable(space, Linkage::None, loc, allowUnnamed));
  } while (acceptPunct(','));
  expectPunct(')');
}

void Parser::parseFunction(Linkage linkage, SourceLoc loc, bool lazy) {
  Function fn;
  fn.linkage = linkage;
  fn.isKernel = tok_.text == ".entry";
  fn.loc = loc;
  advance();
  if (!fn.isKernel && tok_.is('(')) parseParamList(fn.returns, false);
  fn.name = m_.names.intern(expectIdent("a function name"));
  if (tok_.is('(')) parseParamList(fn.params, false);
  // Performance directives and attributes.
  while (tok_.kind == Tok::Directive) {
    std::string_view d = tok_.text;
    SourceLoc dloc = tok_.loc;
    if (d == ".noreturn") {
      fn.noReturn = true;
      advance();
      continue;
    }
    FunctionDirective fd{};
    if (d == ".pragma") {
      advance();
      fd.kind = DirectiveKind::Pragma;
      do {
        fd.strings.push_back(expectString());
      } while (acceptPunct(','));
      acceptPunct(';');
      fn.directives.push_back(std::move(fd));
      continue;
    }
    static const std::pair<std::string_view, DirectiveKind> kDirectives[] = {
        {".maxntid", DirectiveKind::MaxNTid},
        {".reqntid", DirectiveKind::ReqNTid},
        {".minnctapersm", DirectiveKind::MinNCtaPerSm},
        {".maxnctapersm", DirectiveKind::MaxNCtaPerSm},
        {".maxnreg", DirectiveKind::MaxNReg},
        {".reqnctapercluster", DirectiveKind::ReqNCtaPerCluster},
        {".explicitcluster", DirectiveKind::ExplicitCluster},
        {".maxclusterrank", DirectiveKind::MaxClusterRank},
        {".blocksareclusters", DirectiveKind::BlocksAreClusters},
        {".abi_preserve", DirectiveKind::Abi},
    };
    bool known = false;
    for (auto &[spelling, kind] : kDirectives) {
      if (d != spelling) continue;
      known = true;
      fd.kind = kind;
      advance();
      if (kind != DirectiveKind::ExplicitCluster && kind != DirectiveKind::BlocksAreClusters) {
        do {
          fd.values.push_back(expectU32("a number"));
        } while (acceptPunct(','));
      }
    }
    if (!known) fail(dloc, "unknown function directive '" + std::string(d) + "'");
    fn.directives.push_back(std::move(fd));
  }
  if (acceptPunct(';')) {
    fn.hasBody = false;
    fn.bodyParsed = true;
  } else {
    if (!tok_.is('{')) expected("'{' or ';' after the function header");
    fn.hasBody = true;
    fn.bodyLoc = tok_.loc;
    fn.bodyOffset = lex_.offset() - 1;
    if (lazy) {
      // Index only: find the body's extent without looking inside.
      std::string_view inner;
      if (!lex_.skipBalanced(inner)) fail(fn.bodyLoc, "missing '}' at the end of the function body");
      fn.bodyLength = inner.size() + 2;
      advance();
    } else {
      m_.functions.push_back(std::move(fn));
      Function &placed = m_.functions.back();
      m_.order.push_back({TopLevelKind::Function, static_cast<uint32_t>(m_.functions.size() - 1)});
      parseBody(placed);
      return;
    }
  }
  m_.order.push_back({TopLevelKind::Function, static_cast<uint32_t>(m_.functions.size())});
  m_.functions.push_back(std::move(fn));
}

void Parser::parseBody(Function &fn) {
  // tok_ is the opening '{'. Size the tables before filling them: every
  // statement ends in ';' and operands are separated by ',', so counting
  // those (a vectorised scan) bounds the instruction and operand counts
  // closely. Growing by doubling instead would cost copies and up to twice
  // the memory at the peak.
  // Fill the parser's reusable buffers (grown once, to the largest body)
  // and give the function exact-size copies at the end: no growth copies,
  // no slack left in the IR.
  fn.instrs.swap(pool_.instrs);
  fn.operands.swap(pool_.operands);
  fn.body.swap(pool_.body);
  fn.instrs.clear();
  fn.operands.clear();
  fn.body.clear();
  FunctionBuilder fb(m_, fn, errors_);
  advance();
  parseStatements(fb);
  SourceLoc end = tok_.loc;
  if (!tok_.is('}')) {
    errors_.error(end, "missing '}' at the end of the body of '" + std::string(m_.str(fn.name)) + "'");
  } else {
    fn.bodyLength = lex_.offsetOf(tok_) + 1 - fn.bodyOffset;
    advance();
  }
  fb.finish(end);
  auto exact = [](auto &vec, auto &pool) {
    std::remove_reference_t<decltype(vec)> copy(vec.begin(), vec.end());
    pool.swap(vec);
    vec.swap(copy);
  };
  exact(fn.instrs, pool_.instrs);
  exact(fn.operands, pool_.operands);
  exact(fn.body, pool_.body);
}

Variable Parser::parseVariable(Mod space, Linkage linkage, SourceLoc loc, bool allowUnnamed) {
  Variable v;
  v.space = space;
  v.linkage = linkage;
  v.loc = loc;
  bool afterPtr = false;
  while (tok_.kind == Tok::Directive) {
    std::string_view d = tok_.text;
    SourceLoc dloc = tok_.loc;
    advance();
    if (d == ".align") {
      uint32_t a = expectU32("an alignment");
      if (a == 0 || (a & (a - 1))) fail(dloc, "alignment must be a power of two");
      (afterPtr ? v.ptrAlignment : v.alignment) = a;
    } else if (d == ".ptr") {
      v.attrs |= static_cast<uint8_t>(VarAttr::Ptr);
      afterPtr = true;
    } else if (d == ".v2" || d == ".v4" || d == ".v8") {
      v.vectorWidth = static_cast<uint8_t>(d[2] - '0');
    } else if (d == ".attribute") {
      // .attribute(.managed) / .attribute(.unified(...)): keep .managed-like
      // flags, which the runtime will need; nothing else uses them yet.
      expectPunct('(');
      int depth = 1;
      while (depth > 0 && tok_.kind != Tok::End) {
        if (tok_.is('(')) ++depth;
        if (tok_.is(')')) --depth;
        if (tok_.isDirective(".unified")) v.attrs |= static_cast<uint8_t>(VarAttr::Unified);
        advance();
      }
    } else if (auto t = typeFromSpelling(d.substr(1))) {
      if (v.type != Type::None) fail(dloc, "a variable has one type");
      v.type = *t;
    } else if (afterPtr && spaceOf(d) != Mod::None) {
      v.ptrSpace = spaceOf(d);
    } else {
      fail(dloc, "unexpected '" + std::string(d) + "' in a declaration");
    }
  }
  if (v.type == Type::None) expected("a type such as .b32");
  if (tok_.kind == Tok::Ident) {
    v.name = m_.names.intern(tok_.text);
    advance();
  } else if (!allowUnnamed) {
    expected("a name");
  }
  while (tok_.is('[')) {
    advance();
    if (acceptPunct(']')) {
      v.dims.push_back(0);
      continue;
    }
    SourceLoc dl = tok_.loc;
    uint64_t n = expectUnsigned("an array size");
    if (n == 0) fail(dl, "array size must be positive");
    v.dims.push_back(n);
    expectPunct(']');
  }
  if (acceptPunct('=')) {
    if (typeClass(v.type) == TypeClass::Opaque) parseFieldInitializer(v);
    else parseInitializer(v.init, 0);
  }
  return v;
}

void Parser::parseFieldInitializer(Variable &v) {
  expectPunct('{');
  if (!tok_.is('}')) {
    do {
      Name field = m_.names.intern(expectIdent("a field name"));
      expectPunct('=');
      if (tok_.kind != Tok::Ident && tok_.kind != Tok::Number) expected("a field value");
      Name value = m_.names.intern(tok_.text);
      advance();
      v.fieldInit.emplace_back(field, value);
    } while (acceptPunct(','));
  }
  expectPunct('}');
}

void Parser::parseInitializer(std::vector<InitItem> &out, unsigned depth) {
  if (depth > kMaxNesting) fail(tok_.loc, "initializer nested too deeply");
  if (!tok_.is('{')) return parseInitScalar(out);
  advance();
  size_t listIndex = out.size();
  out.push_back({InitItem::List});
  uint32_t count = 0;
  if (!tok_.is('}')) {
    do {
      parseInitializer(out, depth + 1);
      ++count;
    } while (acceptPunct(','));
  }
  expectPunct('}');
  out[listIndex].count = count;
}

void Parser::parseInitScalar(std::vector<InitItem> &out) {
  InitItem item;
  if (tok_.kind == Tok::Ident) {
    bool generic = tok_.text == "generic" && lex_.peek().is('(');
    item.kind = InitItem::Address;
    if (generic) {
      advance();
      advance();
      item.flags = 1;
      item.symbol = m_.names.intern(expectIdent("a symbol"));
      expectPunct(')');
    } else {
      item.symbol = m_.names.intern(tok_.text);
      advance();
    }
    if (tok_.is('+') || tok_.is('-')) {
      bool minus = tok_.is('-');
      advance();
      SourceLoc l = tok_.loc;
      uint64_t off = expectUnsigned("an offset");
      if (off > INT64_MAX) fail(l, "offset too large");
      item.value = minus ? -static_cast<int64_t>(off) : static_cast<int64_t>(off);
    }
    out.push_back(item);
    return;
  }
  if (!startsConstant()) expected("an initializer value");
  Operand op = parseConstant();
  item.kind = op.kind == OperandKind::Int ? InitItem::Int : op.kind == OperandKind::F32 ? InitItem::F32 : InitItem::F64;
  item.flags = op.flags;
  item.format = op.format();
  item.value = op.value;
  out.push_back(item);
}

// ---- Bodies ----------------------------------------------------------------

void Parser::parseStatements(FunctionBuilder &fb) {
  while (tok_.kind != Tok::End && !tooManyErrors()) {
    if (tok_.is('}')) {
      if (fb.scopeDepth() == 1) return; // the function's own closing brace
      fb.closeScope();
      advance();
      continue;
    }
    try {
      parseStatement(fb);
    } catch (const SyntaxError &) {
      // Skip the rest of the statement, but not a brace on a later line:
      // that one shapes the body (a brace on the same line is likely part of
      // a vector operand).
      uint32_t line = tok_.loc.line;
      while (tok_.kind != Tok::End && !tok_.is(';') &&
             !((tok_.is('}') || tok_.is('{')) && tok_.loc.line != line))
        advance();
      acceptPunct(';');
    }
  }
}

void Parser::parseStatement(FunctionBuilder &fb) {
  switch (tok_.kind) {
  case Tok::Punct:
    if (tok_.is('{')) {
      if (fb.scopeDepth() > kMaxNesting) fail(tok_.loc, "scopes nested too deeply");
      fb.openScope();
      advance();
      return;
    }
    if (tok_.is(';')) {
      advance();
      return;
    }
    if (tok_.is('@')) return parseInstruction(fb);
    expected("an instruction, label or declaration");
  case Tok::Directive: {
    std::string_view d = tok_.text;
    SourceLoc loc = tok_.loc;
    if (d == ".reg") return parseRegDecl(fb);
    if (d == ".loc") return parseLoc(fb);
    if (d == ".pragma") {
      advance();
      fb.addPragma(parsePragmaArgs());
      return;
    }
    Mod space = spaceOf(d);
    if (space == Mod::Local || space == Mod::Shared || space == Mod::Param || space == Mod::Const ||
        space == Mod::Global) {
      advance();
      Variable v = parseVariable(space, Linkage::None, loc, false);
      expectPunct(';');
      fb.addVariable(std::move(v));
      return;
    }
    fail(loc, "unexpected directive '" + std::string(d) + "' in a function body");
  }
  case Tok::Ident: {
    if (lex_.peekChar() == ':') {
      std::string_view name = tok_.text;
      SourceLoc loc = tok_.loc;
      advance();
      advance();
      return parseLabelled(fb, name, loc);
    }
    return parseInstruction(fb);
  }
  default: expected("an instruction, label or declaration");
  }
}

void Parser::parseRegDecl(FunctionBuilder &fb) {
  SourceLoc loc = tok_.loc;
  advance();
  Type type = Type::None;
  uint8_t vec = 0;
  uint32_t align = 0;
  while (tok_.kind == Tok::Directive) {
    std::string_view d = tok_.text;
    SourceLoc dloc = tok_.loc;
    advance();
    if (d == ".align") align = expectU32("an alignment");
    else if (d == ".v2" || d == ".v4" || d == ".v8") vec = static_cast<uint8_t>(d[2] - '0');
    else if (auto t = typeFromSpelling(d.substr(1))) type = *t;
    else fail(dloc, "unexpected '" + std::string(d) + "' in a register declaration");
  }
  if (type == Type::None) expected("a register type such as .b32");
  do {
    SourceLoc nameLoc = tok_.loc;
    std::string_view name = expectIdent("a register name");
    if (tok_.is('<') && !tok_.spaceBefore) {
      advance();
      uint32_t count = expectU32("a register count");
      expectPunct('>');
      fb.declareRegisters(name, type, vec, align, count, true, loc);
    } else {
      fb.declareRegisters(name, type, vec, align, 0, false, loc);
    }
    (void)nameLoc;
  } while (acceptPunct(','));
  expectPunct(';');
}

void Parser::parseLoc(FunctionBuilder &fb) {
  advance();
  DebugLoc d;
  d.file = expectU32("a file index");
  d.line = expectU32("a line");
  d.column = expectU32("a column");
  while (acceptPunct(',')) {
    std::string_view key = expectIdent("function_name or inlined_at");
    if (key == "function_name") {
      d.functionName = fb.intern(expectIdent("a label"));
      if (acceptPunct('+')) expectUnsigned("an offset"); // label+offset: offset not kept
    } else if (key == "inlined_at") {
      d.inlinedFile = expectU32("a file index");
      d.inlinedLine = expectU32("a line");
      d.inlinedColumn = expectU32("a column");
    } else {
      fail(tok_.loc, "unknown .loc attribute '" + std::string(key) + "'");
    }
  }
  acceptPunct(';');
  fb.setDebugLoc(d);
}

void Parser::parseLabelled(FunctionBuilder &fb, std::string_view name, SourceLoc loc) {
  if (tok_.isDirective(".callprototype")) {
    Prototype p;
    p.name = fb.intern(name);
    p.loc = loc;
    advance();
    if (tok_.is('(')) parseParamList(p.returns, true);
    std::string_view underscore = expectIdent("'_'");
    if (underscore != "_") fail(loc, ".callprototype expects '_' in place of the function name");
    if (tok_.is('(')) parseParamList(p.params, true);
    if (tok_.isDirective(".noreturn")) {
      p.noReturn = true;
      advance();
    }
    expectPunct(';');
    fb.addPrototype(std::move(p));
    return;
  }
  if (tok_.isDirective(".branchtargets") || tok_.isDirective(".calltargets")) {
    TargetList t;
    t.name = fb.intern(name);
    t.calls = tok_.text == ".calltargets";
    t.loc = loc;
    advance();
    do {
      t.targets.push_back(fb.intern(expectIdent("a label")));
    } while (acceptPunct(','));
    expectPunct(';');
    fb.addTargetList(std::move(t));
    return;
  }
  fb.addLabel(name, loc);
}

void Parser::parseInstruction(FunctionBuilder &fb) {
  std::optional<std::pair<uint32_t, bool>> guard;
  if (tok_.is('@')) {
    advance();
    bool negated = acceptPunct('!');
    SourceLoc gloc = tok_.loc;
    std::string_view name = expectIdent("a guard predicate");
    auto reg = fb.findRegister(name);
    if (!reg) fail(gloc, "unknown predicate register '" + std::string(name) + "' in guard");
    guard = std::make_pair(*reg, negated);
  }
  if (tok_.kind != Tok::Ident) expected("an instruction");
  SourceLoc loc = tok_.loc;
  std::string_view dotted = lex_.extendDotted(tok_);
  ResolvedInstruction r;
  std::string error;
  size_t errorOffset = 0;
  if (!fb.resolve(dotted, r, error, errorOffset))
    fail({loc.line, loc.column + static_cast<uint32_t>(errorOffset)}, error);
  advance();
  std::vector<Operand> &top = scratch(0);
  top.clear();
  if (!tok_.is(';')) {
    do {
      Operand op = parseOperand(fb, 1);
      scratch(0).push_back(op);
    } while (acceptPunct(','));
  }
  if (!tok_.is(';')) expected("',' or ';' after an operand");
  advance();
  std::vector<Operand> &ops = scratch(0);
  uint32_t first = fb.appendOperands(ops);
  fb.addInstruction(r, guard, first, static_cast<uint32_t>(ops.size()), loc);
}

void Parser::parseSelector(Operand &op) {
  if (tok_.kind != Tok::Directive || tok_.spaceBefore) return;
  static const std::pair<std::string_view, Selector> kSelectors[] = {
      {".x", Selector::X},   {".y", Selector::Y},   {".z", Selector::Z},   {".w", Selector::W},
      {".r", Selector::X},   {".g", Selector::Y},   {".b", Selector::Z},   {".a", Selector::W},
      {".b0", Selector::B0}, {".b1", Selector::B1}, {".b2", Selector::B2}, {".b3", Selector::B3},
      {".h0", Selector::H0}, {".h1", Selector::H1},
  };
  for (auto &[s, sel] : kSelectors) {
    if (tok_.text == s) {
      op.selector = sel;
      advance();
      return;
    }
  }
  // SIMD video masks: .b3210, .b10, .h10 ...
  std::string_view t = tok_.text;
  if (t.size() >= 4 && t.size() <= 6 && (t[1] == 'b' || t[1] == 'h') && op.kind == OperandKind::Register) {
    char maxDigit = t[1] == 'b' ? '7' : '1';
    int64_t packed = 0;
    bool ok = true;
    for (size_t i = 2; i < t.size(); ++i) {
      if (t[i] < '0' || t[i] > maxDigit) ok = false;
      packed = packed << 4 | (t[i] - '0');
    }
    if (ok) {
      op.selector = t[1] == 'b' ? Selector::ByteMask : Selector::HalfMask;
      op.value = packed | static_cast<int64_t>(t.size() - 2) << 32;
      advance();
      return;
    }
  }
  fail(tok_.loc, "unknown operand selector '" + std::string(tok_.text) + "'");
}

Operand Parser::parseNameOperand(FunctionBuilder &fb, std::string_view name, SourceLoc loc) {
  Operand op;
  if (name == "_") {
    op.kind = OperandKind::Sink;
    return op;
  }
  if (auto reg = fb.findRegister(name)) {
    op.kind = OperandKind::Register;
    op.id = *reg;
    parseSelector(op);
    return op;
  }
  if (name[0] == '%') {
    std::string_view bare = name.substr(1);
    if (auto sreg = specialRegFromName(bare)) {
      op.kind = OperandKind::SpecialReg;
      op.id = static_cast<uint32_t>(*sreg);
      parseSelector(op);
      if (hasComponents(*sreg) && op.selector == Selector::None)
        fail(loc, "special register '" + std::string(name) + "' needs a component (.x, .y or .z)");
      return op;
    }
    if (bare.starts_with("envreg") && bare.size() > 6 && bare.size() <= 8) {
      uint64_t idx;
      if (readUnsigned(bare.substr(6), idx) && idx < 32 && (bare[6] != '0' || bare.size() == 7)) {
        op.kind = OperandKind::SpecialReg;
        op.id = static_cast<uint32_t>(SpecialReg::EnvReg);
        op.value = static_cast<int64_t>(idx);
        return op;
      }
    }
    fail(loc, "unknown register '" + std::string(name) + "'");
  }
  op.kind = OperandKind::Symbol;
  op.id = fb.intern(name);
  return op;
}

std::string_view Parser::currentOperator(unsigned &tokens) {
  tokens = 1;
  if (tok_.kind == Tok::Ident && tok_.text == "%") return "%";
  if (tok_.kind != Tok::Punct) return {};
  char c = tok_.text[0];
  const Token &next = lex_.peek();
  bool adjacent = next.kind == Tok::Punct && !next.spaceBefore;
  char n = adjacent ? next.text[0] : 0;
  auto two = [&](std::string_view op) {
    tokens = 2;
    return op;
  };
  switch (c) {
  case '<': return n == '<' ? two("<<") : n == '=' ? two("<=") : "<";
  case '>': return n == '>' ? two(">>") : n == '=' ? two(">=") : ">";
  case '=': return n == '=' ? two("==") : std::string_view{};
  case '!': return n == '=' ? two("!=") : std::string_view{};
  case '&': return n == '&' ? two("&&") : "&";
  case '|': return n == '|' ? two("||") : "|";
  case '+': return "+";
  case '-': return "-";
  case '*': return "*";
  case '/': return "/";
  case '^': return "^";
  default: return {};
  }
}

Parser::Term Parser::parseConstUnary(unsigned depth) {
  if (depth > kMaxNesting) fail(tok_.loc, "constant expression nested too deeply");
  SourceLoc loc = tok_.loc;
  Term t;
  if (tok_.is('-') && lex_.peek().kind == Tok::Number) {
    // A negative literal stays a literal (written as it was).
    advance();
    std::string literal = "-" + std::string(tok_.text);
    advance();
    if (looksLikeFloat(literal) ? !readFloatLiteral(literal, t.literal) : !readIntLiteral(literal, t.literal))
      fail(loc, "malformed number '" + literal + "'");
  } else if (tok_.is('-') || tok_.is('~') || tok_.is('!') || tok_.is('+')) {
    char op = tok_.text[0];
    advance();
    Term inner = parseConstUnary(depth + 1);
    if (!inner.compound && inner.literal.kind != OperandKind::Int)
      fail(loc, "constant expressions take integers only");
    t.compound = true;
    evalConstUnary(op, inner.value, t.value);
    return t;
  } else if (tok_.is('(')) {
    advance();
    t = parseConstExpr(0, depth + 1);
    expectPunct(')');
    t.compound = true;
    return t;
  } else if (tok_.kind == Tok::Number) {
    std::string_view text = tok_.text;
    advance();
    if (looksLikeFloat(text) ? !readFloatLiteral(text, t.literal) : !readIntLiteral(text, t.literal))
      fail(loc, "malformed number '" + std::string(text) + "'");
  } else {
    expected("a constant");
  }
  t.value = {t.literal.value, (t.literal.flags & opflag::UnsignedSuffix) != 0};
  return t;
}

Parser::Term Parser::parseConstExpr(int minPrecedence, unsigned depth) {
  if (depth > kMaxNesting) fail(tok_.loc, "constant expression nested too deeply");
  Term lhs = parseConstUnary(depth + 1);
  for (;;) {
    if (tok_.is('?') && minPrecedence == 0) {
      // cond ? a : b, the loosest operator.
      SourceLoc loc = tok_.loc;
      advance();
      Term a = parseConstExpr(0, depth + 1);
      expectPunct(':');
      Term b = parseConstExpr(0, depth + 1);
      if ((!lhs.compound && lhs.literal.kind != OperandKind::Int) ||
          (!a.compound && a.literal.kind != OperandKind::Int) || (!b.compound && b.literal.kind != OperandKind::Int))
        fail(loc, "constant expressions take integers only");
      Term r;
      r.compound = true;
      r.value = lhs.value.value ? a.value : b.value;
      r.value.isUnsigned = a.value.isUnsigned || b.value.isUnsigned;
      lhs = r;
      continue;
    }
    unsigned tokens;
    std::string_view op = currentOperator(tokens);
    int prec = op.empty() ? 0 : constBinaryPrecedence(op);
    if (prec == 0 || prec < minPrecedence) return lhs;
    SourceLoc loc = tok_.loc;
    for (unsigned i = 0; i < tokens; ++i) advance();
    Term rhs = parseConstExpr(prec + 1, depth + 1);
    if ((!lhs.compound && lhs.literal.kind != OperandKind::Int) || (!rhs.compound && rhs.literal.kind != OperandKind::Int))
      fail(loc, "constant expressions take integers only");
    Term r;
    r.compound = true;
    std::string error;
    if (!evalConstBinary(op, lhs.value, rhs.value, r.value, error)) fail(loc, error);
    lhs = r;
  }
}

Operand Parser::parseConstant() {
  Term t = parseConstExpr(0, 0);
  return t.compound ? constOperand(t.value) : t.literal;
}

Operand Parser::parseSimpleOperand(FunctionBuilder &fb) {
  SourceLoc loc = tok_.loc;
  if (tok_.kind == Tok::Ident) {
    std::string_view name = tok_.text;
    advance();
    return parseNameOperand(fb, name, loc);
  }
  if (tok_.is('-') && lex_.peek().kind == Tok::Ident) {
    // A negated video source: -%r2.
    advance();
    SourceLoc rloc = tok_.loc;
    std::string_view name = tok_.text;
    advance();
    Operand reg = parseNameOperand(fb, name, rloc);
    if (reg.kind != OperandKind::Register) fail(rloc, "'-' applies to registers and numbers only");
    reg.flags |= opflag::Minus;
    return reg;
  }
  if (!startsConstant()) expected("an operand");
  Operand op = parseConstant();
  return op;
}

Operand Parser::parseOperand(FunctionBuilder &fb, unsigned depth) {
  if (depth > kMaxNesting) fail(tok_.loc, "operands nested too deeply");
  Operand op;
  if (startsConstant()) {
    op = parseConstant();
  } else if (tok_.is('!')) {
    advance();
    SourceLoc loc = tok_.loc;
    op = parseSimpleOperand(fb);
    if (op.kind != OperandKind::Register) fail(loc, "'!' applies to predicate registers only");
    op.flags |= opflag::Negated;
  } else if (tok_.is('[')) {
    op = parseAddress(fb, depth);
  } else if (tok_.is('{')) {
    advance();
    op = parseGroup(fb, OperandKind::Vector, '}', depth);
  } else if (tok_.is('(')) {
    advance();
    op = parseGroup(fb, OperandKind::List, ')', depth);
  } else {
    op = parseSimpleOperand(fb);
  }
  if (tok_.is('|')) {
    advance();
    Operand second = parseOperand(fb, depth + 1);
    Operand pair[2] = {op, second};
    Operand p;
    p.kind = OperandKind::Pair;
    p.setCount(2);
    p.id = fb.appendOperands(pair);
    return p;
  }
  return op;
}

Operand Parser::parseGroup(FunctionBuilder &fb, OperandKind kind, char close, unsigned depth) {
  std::vector<Operand> &items = scratch(depth);
  items.clear();
  if (!tok_.is(close)) {
    do {
      Operand o = parseOperand(fb, depth + 1);
      scratch(depth).push_back(o);
    } while (acceptPunct(','));
  }
  expectPunct(close);
  Operand g;
  g.kind = kind;
  g.setCount(static_cast<uint32_t>(scratch(depth).size()));
  g.id = fb.appendOperands(scratch(depth));
  return g;
}

Operand Parser::parseAddress(FunctionBuilder &fb, unsigned depth) {
  advance(); // '['
  Operand first;
  SourceLoc loc = tok_.loc;
  if (tok_.kind == Tok::Number || tok_.is('-')) {
    first = parseSimpleOperand(fb);
    if (first.kind != OperandKind::Int) fail(loc, "an address must be an integer");
    if (acceptPunct(']')) {
      Operand a;
      a.kind = OperandKind::Address;
      a.base = AddressBase::None;
      a.value = first.value;
      return a;
    }
  } else {
    first = parseOperand(fb, depth + 1);
  }
  if (tok_.is(',')) {
    // A bracketed operand list: [tex, {x, y}], [surf, {x}].
    std::vector<Operand> &items = scratch(depth);
    items.clear();
    items.push_back(first);
    while (acceptPunct(',')) {
      Operand o = parseOperand(fb, depth + 1);
      scratch(depth).push_back(o);
    }
    expectPunct(']');
    Operand l;
    l.kind = OperandKind::AddressList;
    l.setCount(static_cast<uint32_t>(scratch(depth).size()));
    l.id = fb.appendOperands(scratch(depth));
    return l;
  }
  Operand a;
  a.kind = OperandKind::Address;
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
  if (tok_.is('+') || tok_.is('-')) {
    bool minus = tok_.is('-');
    advance();
    if (tok_.is('-')) {
      minus = !minus;
      advance();
    }
    SourceLoc oloc = tok_.loc;
    if (tok_.kind != Tok::Number) expected("an offset");
    Operand off;
    if (!readIntLiteral(tok_.text, off)) fail(oloc, "malformed offset '" + std::string(tok_.text) + "'");
    advance();
    a.value = minus ? -off.value : off.value;
  }
  expectPunct(']');
  return a;
}

} // namespace

std::unique_ptr<Module> parseModule(std::string source, std::string fileName, DiagnosticList &diags,
                                    const ParseOptions &options) {
  if (options.frontEnd == FrontEnd::Antlr) return parseModuleAntlr(std::move(source), std::move(fileName), diags);
  auto m = std::make_unique<Module>();
  m->fileName = std::move(fileName);
  m->source = std::make_shared<const std::string>(std::move(source));
  ErrorReporter errors(diags, m->fileName, *m->source);
  Parser p(*m, errors, Lexer(*m->source));
  p.parseModule(options.lazyBodies);
  return m;
}

bool materializeBody(Module &m, Function &fn, DiagnosticList &diags) {
  if (fn.bodyParsed || !fn.hasBody) return true;
  size_t before = diags.errorCount();
  std::string_view text(*m.source);
  ErrorReporter errors(diags, m.fileName, text);
  Parser p(m, errors, Lexer(text.substr(fn.bodyOffset, fn.bodyLength), fn.bodyLoc, fn.bodyOffset));
  p.parseBody(fn);
  return diags.errorCount() == before;
}

bool materializeAll(Module &m, DiagnosticList &diags) {
  bool ok = true;
  for (Function &fn : m.functions) ok &= materializeBody(m, fn, diags);
  return ok;
}

bool readFile(const std::string &path, std::string &out, DiagnosticList &diags) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    Diagnostic d;
    d.kind = DiagKind::IoError;
    d.message = "cannot open '" + path + "'";
    d.loc.file = path;
    diags.add(std::move(d));
    return false;
  }
  // Read straight into the string: one copy of the file in memory.
  std::streamoff size = in.tellg();
  if (size < 0) size = 0;
  out.assign(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(out.data(), size);
  out.resize(static_cast<size_t>(in.gcount()));
  return true;
}

} // namespace ptx
