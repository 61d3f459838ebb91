// The ANTLR front end, part 3: instructions, operands and integer constant
// expressions.
#include "ptx/grammar/AntlrImpl.h"

namespace ptx::detail::antlr {

// ---- Instructions and operands ----

void Builder::instruction(P::InstructionContext *ctx) {
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
Operand Builder::operand(P::OperandContext *ctx, unsigned depth) {
  return pairChain(ctx->primaryOperand(), nullptr, depth);
}

/// The operands of `first|rest[0]|rest[1]...` (`head` a call list's first
/// operand, in place of rest[0]'s primary).
Operand Builder::pairChain(const std::vector<P::PrimaryOperandContext *> &rest,
                           P::StructuredOperandContext *head, unsigned depth) {
  std::vector<Operand> items;
  size_t n = rest.size() + (head ? 1 : 0);
  for (size_t k = 0; k < n; ++k) {
    antlr4::ParserRuleContext *at =
        head ? (k == 0 ? static_cast<antlr4::ParserRuleContext *>(head) : rest[k - 1]) : rest[k];
    if (depth + k > kMaxNesting) fail(at, "operands nested too deeply");
    Operand op =
        head && k == 0 ? structured(head, depth + k) : primary(head ? rest[k - 1] : rest[k], depth + k);
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

bool Builder::isConstant(P::PrimaryOperandContext *ctx) {
  return ctx && dynamic_cast<P::ConstantOperandContext *>(ctx) != nullptr;
}

Operand Builder::primary(P::PrimaryOperandContext *ctx, unsigned depth) {
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

Operand Builder::structured(P::StructuredOperandContext *ctx, unsigned depth) {
  if (auto *n = dynamic_cast<P::NameOperandContext *>(ctx)) return name(n->NAME());
  if (auto *vec = dynamic_cast<P::VectorOperandContext *>(ctx)) {
    std::vector<Operand> children;
    for (P::OperandContext *o : vec->operand()) children.push_back(operand(o, depth + 1));
    return groupOf(children, OperandKind::Vector);
  }
  return address(dynamic_cast<P::BracketOperandContext *>(ctx)->bracketContent(), depth);
}

/// `-%r2`: a negated video source.
Operand Builder::minusRegister(P::MinusOperandContext *ctx) {
  Operand reg = name(ctx->NAME());
  if (reg.kind != OperandKind::Register) fail(ctx->NAME(), "'-' applies to registers and numbers only");
  reg.flags |= opflag::Minus;
  return reg;
}

Operand Builder::groupOf(const std::vector<Operand> &children, OperandKind kind) {
  Operand g;
  g.kind = kind;
  g.setCount(static_cast<uint32_t>(children.size()));
  g.id = fb_->appendOperands(children);
  return g;
}
Operand Builder::literal(Token *minus, TerminalNode *number) {
  std::string text = (minus ? "-" : "") + number->getText();
  Operand op;
  bool ok = looksLikeFloat(text) ? readFloatLiteral(text, op) : readIntLiteral(text, op);
  if (!ok) fail(minus ? locOf(minus) : locOf(number->getSymbol()), "malformed number '" + text + "'");
  return op;
}

std::optional<Selector> Builder::selectorOf(std::string_view s) {
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
bool Builder::applyMask(Operand &op, std::string_view word) {
  if (word.size() < 3 || word.size() > 5 || (word[0] != 'b' && word[0] != 'h') ||
      op.kind != OperandKind::Register)
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
Operand Builder::name(TerminalNode *node) {
  std::string text = node->getText();
  SourceLoc loc = locOf(node->getSymbol());
  size_t dot = text.find('.');
  std::string_view base = std::string_view(text).substr(0, dot);
  std::string_view suffix =
      dot == std::string::npos ? std::string_view() : std::string_view(text).substr(dot);
  SourceLoc suffixLoc{loc.line, loc.column + static_cast<uint32_t>(dot == std::string::npos ? 0 : dot)};
  // The fast front end reads one selector; anything after it is a stray
  // `.word` in the operand list.
  auto applySelector = [&](Operand &op) {
    if (suffix.empty()) return;
    size_t next = suffix.find('.', 1);
    std::string_view word =
        suffix.substr(1, next == std::string_view::npos ? std::string_view::npos : next - 1);
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
  std::string error;
  if (!fb_->resolveName(base, op, error)) fail(loc, error);
  if (takesSelector(op))
    applySelector(op);
  else
    stray();
  if (std::string e = missingComponentError(op, base); !e.empty()) fail(loc, e);
  return op;
}

Operand Builder::address(P::BracketContentContext *ctx, unsigned depth) {
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
  if (!addressOf(first, a)) fail(loc, "an address is [register], [symbol] or [number], optionally + offset");
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
Operand Builder::leadingOperand(P::OperandContext *ctx, unsigned depth, bool &simple) {
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

// ---- Constant expressions, read in the fast front end's order ----

/// A lone literal stays a literal; an expression becomes its value.
Operand Builder::constant(P::ConstExprContext *ctx) {
  Term t = constExpr(ctx, 0);
  return t.compound ? constOperand(t.value) : t.literal;
}

bool Builder::isInt(const Term &t) { return t.compound || t.literal.kind == OperandKind::Int; }

/// Parser::parseConstExpr(0, depth) over one constExpr.
Builder::Term Builder::constExpr(P::ConstExprContext *ctx, unsigned depth) {
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
Builder::Term Builder::climb(const std::vector<P::ConstUnaryContext *> &units,
                             const std::vector<P::BinaryOperatorContext *> &ops, size_t &i, int minPrecedence,
                             unsigned depth, bool checked) {
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

Builder::Term Builder::unary(P::ConstUnaryContext *ctx, unsigned depth) {
  return unaryFrom(ctx->unaryOperator(), 0, ctx->constAtom(), depth);
}

/// Parser::parseConstUnary at unary operator `k` (or the atom).
Builder::Term Builder::unaryFrom(const std::vector<P::UnaryOperatorContext *> &ops, size_t k,
                                 P::ConstAtomContext *atom, unsigned depth) {
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
} // namespace ptx::detail::antlr
