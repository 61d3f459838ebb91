// The fast front end: a recursive-descent parser over Lexer tokens. It only
// recognises syntax; meaning comes from the shared builders (Builder.h).
// This file: module-level declarations and the public entry points.
#include "ptx/ParserImpl.h"

#include <algorithm>
#include <fstream>

namespace ptx {
namespace detail {

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

void Parser::recover() {
  int depth = 0;
  while (tok_.kind != Tok::End) {
    if (tok_.is('{'))
      ++depth;
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
    if (typeClass(v.type) == TypeClass::Opaque)
      parseFieldInitializer(v);
    else
      parseInitializer(v.init, 0);
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
  out.push_back(initItemOf(op));
}

} // namespace detail

using detail::Parser;

std::unique_ptr<Module> parseModule(std::string source, std::string fileName, DiagnosticList &diags,
                                    const ParseOptions &options) {
  if (options.frontEnd == FrontEnd::Antlr)
    return parseModuleAntlr(std::move(source), std::move(fileName), diags);
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
