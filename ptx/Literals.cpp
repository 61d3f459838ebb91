// Literals and integer constant expressions, read the same way by both
// front ends.
#include "ptx/Literals.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace ptx {

// ---- Literals --------------------------------------------------------------

bool readUnsigned(std::string_view text, uint64_t &out) {
  unsigned base = 10;
  size_t i = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    i = 1;
  }
  if (i >= text.size()) return false;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return false;
    if (digit >= base) return false;
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / base) return false;
    v = v * base + digit;
  }
  out = v;
  return true;
}

bool readIntLiteral(std::string_view text, Operand &out) {
  Operand op;
  op.kind = OperandKind::Int;
  if (!text.empty() && text[0] == '-') {
    op.flags |= opflag::NegativeLiteral;
    text.remove_prefix(1);
  }
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) {
    op.flags |= opflag::UnsignedSuffix;
    text.remove_suffix(1);
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    op.setFormat(IntFormat::Hex);
  else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B'))
    op.setFormat(IntFormat::Binary);
  else if (text.size() > 1 && text[0] == '0')
    op.setFormat(IntFormat::Octal);
  uint64_t magnitude;
  if (!readUnsigned(text, magnitude)) return false;
  op.value = static_cast<int64_t>((op.flags & opflag::NegativeLiteral) ? 0 - magnitude : magnitude);
  out = op;
  return true;
}

bool looksLikeFloat(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  if (text.size() > 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D'))
    return true;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return false;
  return text.find_first_of(".eE") != std::string_view::npos;
}

bool readFloatLiteral(std::string_view text, Operand &out) {
  Operand op;
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (text.size() > 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
    bool isF32 = text[1] == 'f' || text[1] == 'F';
    std::string_view digits = text.substr(2);
    if (digits.size() != (isF32 ? 8u : 16u)) return false;
    uint64_t bits = 0;
    for (char c : digits) {
      unsigned d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return false;
      bits = bits << 4 | d;
    }
    op.kind = isF32 ? OperandKind::F32 : OperandKind::F64;
    if (negative) {
      op.flags |= opflag::NegativeLiteral;
      bits ^= isF32 ? 0x80000000ull : 0x8000000000000000ull;
    }
    op.value = static_cast<int64_t>(bits);
    out = op;
    return true;
  }
  // Decimal: digits with a '.' and/or an exponent.
  if (text.empty() || text.size() > 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
  std::string buf(text);
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return false;
  if (negative) v = -v;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  op.kind = OperandKind::F64;
  op.flags |= opflag::DecimalFloat;
  op.value = static_cast<int64_t>(bits);
  out = op;
  return true;
}

// ---- Constant expressions ---------------------------------------------------

int constBinaryPrecedence(std::string_view op) {
  static const std::pair<std::string_view, int> kOps[] = {
      {"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5}, {"==", 6}, {"!=", 6}, {"<", 7},  {">", 7},
      {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9}, {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10},
  };
  for (auto &[spelling, prec] : kOps)
    if (op == spelling) return prec;
  return 0;
}

bool evalConstBinary(std::string_view op, ConstValue a, ConstValue b, ConstValue &out, std::string &error) {
  bool u = a.isUnsigned || b.isUnsigned;
  uint64_t ua = static_cast<uint64_t>(a.value), ub = static_cast<uint64_t>(b.value);
  int64_t sa = a.value, sb = b.value;
  out.isUnsigned = u;
  auto boolean = [&](bool v) {
    out.value = v;
    out.isUnsigned = false;
    return true;
  };
  if (op == "+")
    out.value = static_cast<int64_t>(ua + ub);
  else if (op == "-")
    out.value = static_cast<int64_t>(ua - ub);
  else if (op == "*")
    out.value = static_cast<int64_t>(ua * ub);
  else if (op == "/" || op == "%") {
    if (ub == 0) {
      error = "division by zero in a constant expression";
      return false;
    }
    bool div = op == "/";
    if (u)
      out.value = static_cast<int64_t>(div ? ua / ub : ua % ub);
    else if (sa == INT64_MIN && sb == -1)
      out.value = div ? INT64_MIN : 0;
    else
      out.value = div ? sa / sb : sa % sb;
  } else if (op == "<<")
    out.value = ub >= 64 ? 0 : static_cast<int64_t>(ua << ub);
  else if (op == ">>") {
    if (u)
      out.value = ub >= 64 ? 0 : static_cast<int64_t>(ua >> ub);
    else
      out.value = ub >= 64 ? (sa < 0 ? -1 : 0) : sa >> ub;
  } else if (op == "&")
    out.value = sa & sb;
  else if (op == "|")
    out.value = sa | sb;
  else if (op == "^")
    out.value = sa ^ sb;
  else if (op == "<")
    return boolean(u ? ua < ub : sa < sb);
  else if (op == ">")
    return boolean(u ? ua > ub : sa > sb);
  else if (op == "<=")
    return boolean(u ? ua <= ub : sa <= sb);
  else if (op == ">=")
    return boolean(u ? ua >= ub : sa >= sb);
  else if (op == "==")
    return boolean(sa == sb);
  else if (op == "!=")
    return boolean(sa != sb);
  else if (op == "&&")
    return boolean(sa && sb);
  else if (op == "||")
    return boolean(sa || sb);
  else {
    error = "unknown operator '" + std::string(op) + "' in a constant expression";
    return false;
  }
  return true;
}

bool evalConstUnary(char op, ConstValue a, ConstValue &out) {
  out = a;
  switch (op) {
  case '-': out.value = static_cast<int64_t>(0 - static_cast<uint64_t>(a.value)); return true;
  case '+': return true;
  case '~': out.value = ~a.value; return true;
  case '!':
    out.value = !a.value;
    out.isUnsigned = false;
    return true;
  }
  return false;
}

Operand constOperand(ConstValue v) {
  Operand op;
  op.kind = OperandKind::Int;
  op.value = v.value;
  if (v.value < 0 && !v.isUnsigned) op.flags |= opflag::NegativeLiteral;
  if (v.isUnsigned) op.flags |= opflag::UnsignedSuffix;
  return op;
}

InitItem initItemOf(const Operand &op) {
  InitItem item;
  item.kind = op.kind == OperandKind::Int   ? InitItem::Int
              : op.kind == OperandKind::F32 ? InitItem::F32
                                            : InitItem::F64;
  item.flags = op.flags;
  item.format = op.format();
  item.value = op.value;
  return item;
}

} // namespace ptx
