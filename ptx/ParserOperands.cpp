// The fast front end, part 3: operands and integer constant expressions.
#include "ptx/ParserImpl.h"

namespace ptx::detail {

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
  std::string error;
  if (!fb.resolveName(name, op, error)) fail(loc, error);
  if (takesSelector(op)) parseSelector(op);
  if (std::string e = missingComponentError(op, name); !e.empty()) fail(loc, e);
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
          (!a.compound && a.literal.kind != OperandKind::Int) ||
          (!b.compound && b.literal.kind != OperandKind::Int))
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
    if ((!lhs.compound && lhs.literal.kind != OperandKind::Int) ||
        (!rhs.compound && rhs.literal.kind != OperandKind::Int))
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
  if (!addressOf(first, a)) fail(loc, "an address is [register], [symbol] or [number], optionally + offset");
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
    // Offsets wrap as 64-bit addresses do: -INT64_MIN stays itself.
    a.value = minus ? static_cast<int64_t>(0 - static_cast<uint64_t>(off.value)) : off.value;
  }
  expectPunct(']');
  return a;
}

} // namespace ptx::detail
