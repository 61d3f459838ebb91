// The ANTLR front end, part 2: declarations (variables, parameters,
// initializers) and function bodies (statements, labels, registers, .loc).
#include "ptx/grammar/AntlrImpl.h"

namespace ptx::detail::antlr {

// ---- Variables and parameters ----

void Builder::parameters(P::ParameterListContext *list, std::vector<Variable> &out, bool allowUnnamed) {
  for (P::ParameterContext *p : list->parameter()) {
    Variable v;
    v.space = p->PARAM() ? Mod::Param : Mod::Reg;
    v.loc = locOf(p->getStart());
    std::vector<P::VariableAttributeContext *> attrs = p->variableAttribute();
    Token *next = p->NAME() ? p->NAME()->getSymbol()
                            : nextToken(attrs.empty() ? p->getStart() : attrs.back()->getStop());
    attributes(attrs, v, next);
    if (TerminalNode *name = p->NAME())
      v.name = m_.names.intern(plainName(name, "a name"));
    else if (!allowUnnamed)
      fail(p->getStop(), "expected a name");
    dimensions(p->arrayDimension(), v);
    out.push_back(std::move(v));
  }
}

/// Reads `.align N`, `.ptr`, `.v4`, `.attribute(...)`, the type and the
/// `.ptr` state space in order, as the fast front end does.
void Builder::attributes(const std::vector<P::VariableAttributeContext *> &attrs, Variable &v, Token *next) {
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

bool Builder::mentionsUnified(ParseTree *t) {
  if (auto *term = dynamic_cast<TerminalNode *>(t)) return term->getText() == ".unified";
  if (auto *rule = dynamic_cast<antlr4::ParserRuleContext *>(t))
    for (ParseTree *c : rule->children)
      if (mentionsUnified(c)) return true;
  return false;
}

void Builder::dimensions(const std::vector<P::ArrayDimensionContext *> &dims, Variable &v) {
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

Variable Builder::variable(P::VariableDeclarationContext *decl, Linkage linkage, SourceLoc loc) {
  Variable v;
  v.space = spaceOf(decl->stateSpace()->getText());
  v.linkage = linkage;
  v.loc = loc;
  attributes(decl->variableAttribute(), v, decl->NAME()->getSymbol());
  v.name = m_.names.intern(plainName(decl->NAME(), "a name"));
  dimensions(decl->arrayDimension(), v);
  if (P::InitializerContext *init = decl->initializer()) {
    if (typeClass(v.type) == TypeClass::Opaque)
      fieldInitializer(init, v);
    else
      initializer(init, v.init, 0);
  }
  return v;
}

void Builder::fieldInitializer(P::InitializerContext *init, Variable &v) {
  auto *fields = dynamic_cast<P::FieldInitContext *>(init);
  if (!fields) fail(init, "expected '{', found '" + init->getStart()->getText() + "'");
  for (P::FieldInitializerContext *f : fields->fieldInitializer()) {
    Name field = m_.names.intern(plainName(f->NAME(0), "a field name"));
    TerminalNode *value = f->NAME().size() > 1 ? f->NAME(1) : f->NUMBER();
    v.fieldInit.emplace_back(field, m_.names.intern(value->getText()));
  }
}

void Builder::initializer(P::InitializerContext *init, std::vector<InitItem> &out, unsigned depth) {
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
  out.push_back(initItemOf(op));
}

int64_t Builder::offset(Token *sign, TerminalNode *number) {
  uint64_t off = u64(number, "an offset");
  if (off > INT64_MAX) fail(number, "offset too large");
  return sign->getType() == P::MINUS ? -static_cast<int64_t>(off) : static_cast<int64_t>(off);
}

// ---- Bodies ----

void Builder::statements(const std::vector<P::StatementContext *> &list) {
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
void Builder::checkLabelColon(TerminalNode *name, TerminalNode *colon) {
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

void Builder::statement(P::StatementContext *s) {
  if (auto *l = s->label())
    checkLabelColon(l->NAME(), l->COLON());
  else if (auto *p = s->prototypeDeclaration())
    checkLabelColon(p->NAME(0), p->COLON());
  else if (auto *t = s->targetListDeclaration())
    checkLabelColon(t->NAME(0), t->COLON());
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
    for (size_t i = 1; i < names.size(); ++i)
      tl.targets.push_back(fb_->intern(plainName(names[i], "a label")));
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

void Builder::prototype(P::PrototypeDeclarationContext *ctx) {
  Prototype p;
  p.name = fb_->intern(plainName(ctx->NAME(0), "a name"));
  p.loc = locOf(ctx->getStart());
  if (ctx->results) parameters(ctx->results, p.returns, true);
  TerminalNode *underscore = ctx->NAME(1);
  if (underscore->getText() != "_") fail(p.loc, ".callprototype expects '_' in place of the function name");
  if (ctx->params) parameters(ctx->params, p.params, true);
  p.noReturn = ctx->NORETURN() != nullptr;
  fb_->addPrototype(std::move(p));
}

void Builder::registers(P::RegisterDeclarationContext *ctx) {
  SourceLoc loc = locOf(ctx->getStart());
  Type type = Type::None;
  uint8_t vec = 0;
  uint32_t align = 0;
  for (P::VariableAttributeContext *a : ctx->variableAttribute()) {
    std::string d = a->getStart()->getText();
    if (a->ALIGN())
      align = u32(a->NUMBER(), "an alignment");
    else if (d == ".v2" || d == ".v4" || d == ".v8")
      vec = static_cast<uint8_t>(d[2] - '0');
    else if (auto t = typeFromSpelling(std::string_view(d).substr(1)))
      type = *t;
    else
      fail(a, "unexpected '" + d + "' in a register declaration");
  }
  if (type == Type::None)
    fail(ctx->registerName(0), "expected a register type such as .b32, found '" +
                                   ctx->registerName(0)->getStart()->getText() + "'");
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

void Builder::debugLoc(P::LocDirectiveContext *ctx) {
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
} // namespace ptx::detail::antlr
