// The fast front end, part 2: function bodies (statements, declarations,
// labels, instructions).
#include "ptx/ParserImpl.h"

namespace ptx::detail {

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
    if (d == ".align")
      align = expectU32("an alignment");
    else if (d == ".v2" || d == ".v4" || d == ".v8")
      vec = static_cast<uint8_t>(d[2] - '0');
    else if (auto t = typeFromSpelling(d.substr(1)))
      type = *t;
    else
      fail(dloc, "unexpected '" + std::string(d) + "' in a register declaration");
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
  // call's result and argument lists stay lists when they hold one
  // constant: `(5)` is an argument list there, not a constant expression.
  const bool isCall = r.opcode == Opcode::Call;
  if (!tok_.is(';')) {
    do {
      Operand op;
      if (isCall && tok_.is('(')) {
        advance();
        op = parseGroup(fb, OperandKind::List, ')', 1);
      } else {
        op = parseOperand(fb, 1);
      }
      scratch(0).push_back(op);
    } while (acceptPunct(','));
  }
  if (!tok_.is(';')) expected("',' or ';' after an operand");
  advance();
  std::vector<Operand> &ops = scratch(0);
  uint32_t first = fb.appendOperands(ops);
  fb.addInstruction(r, guard, first, static_cast<uint32_t>(ops.size()), loc);
}

} // namespace ptx::detail
