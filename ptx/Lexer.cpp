#include "ptx/Lexer.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace ptx {

namespace charclass {
constexpr std::array<uint8_t, 256> makeTable() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool digit = c >= '0' && c <= '9';
    if (alpha || c == '_' || c == '$' || c == '%') t[c] |= IdentStart;
    if (alpha || digit || c == '_' || c == '$') t[c] |= IdentChar;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') t[c] |= Space;
    if (c == '{' || c == '}' || c == '"' || c == '/' || c == '\n') t[c] |= Balanced;
  }
  return t;
}
constexpr std::array<uint8_t, 256> kTableArray = makeTable();
const uint8_t kTable[256] = {
#define ROW(i)                                                                                               \
  kTableArray[i], kTableArray[i + 1], kTableArray[i + 2], kTableArray[i + 3], kTableArray[i + 4],            \
      kTableArray[i + 5], kTableArray[i + 6], kTableArray[i + 7]
    ROW(0),   ROW(8),   ROW(16),  ROW(24),  ROW(32),  ROW(40),  ROW(48),  ROW(56),
    ROW(64),  ROW(72),  ROW(80),  ROW(88),  ROW(96),  ROW(104), ROW(112), ROW(120),
    ROW(128), ROW(136), ROW(144), ROW(152), ROW(160), ROW(168), ROW(176), ROW(184),
    ROW(192), ROW(200), ROW(208), ROW(216), ROW(224), ROW(232), ROW(240), ROW(248),
#undef ROW
};
} // namespace charclass

Lexer::Lexer(std::string_view text, SourceLoc start, size_t baseOffset)
    : text_(text), base_(baseOffset), line_(start.line), col0_(start.column) {}

void Lexer::skipSpaceAndComments(bool &sawSpace, bool &badComment, SourceLoc *badLoc) {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      lineStart_ = pos_;
      col0_ = 1;
      sawSpace = true;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      sawSpace = true;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      size_t nl = text_.find('\n', pos_);
      pos_ = nl == std::string_view::npos ? text_.size() : nl;
      sawSpace = true;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      if (badLoc) *badLoc = here();
      size_t end = text_.find("*/", pos_ + 2);
      size_t stop = end == std::string_view::npos ? text_.size() : end + 2;
      for (size_t i = pos_; i < stop; ++i)
        if (text_[i] == '\n') {
          ++line_;
          lineStart_ = i + 1;
          col0_ = 1;
        }
      if (end == std::string_view::npos) badComment = true;
      pos_ = stop;
      sawSpace = true;
    } else {
      return;
    }
  }
}

const Token &Lexer::peek() {
  if (!hasPeek_) {
    next(peeked_);
    hasPeek_ = true;
  }
  return peeked_;
}

size_t Lexer::skipWord(size_t p) const {
  // Directive and modifier words may contain `::` (.shared::cta).
  while (p < text_.size()) {
    char d = text_[p];
    if (isIdentChar(d))
      ++p;
    else if (d == ':' && p + 2 < text_.size() && text_[p + 1] == ':' && isIdentChar(text_[p + 2]))
      p += 2;
    else
      break;
  }
  return p;
}

Token Lexer::next() {
  Token t;
  next(t);
  return t;
}

void Lexer::next(Token &t) {
  // Fills `t` in place: building a Token on the stack and copying it out
  // stalls on store forwarding, and this runs once per token.
  if (hasPeek_) {
    hasPeek_ = false;
    t = peeked_;
    return;
  }
  t.spaceBefore = false;
  bool badComment = false;
  SourceLoc commentLoc;
  skipSpaceAndComments(t.spaceBefore, badComment, &commentLoc);
  t.loc = here();
  if (badComment) {
    t.loc = commentLoc;
    t.kind = Tok::Invalid;
    t.text = "/*";
    return;
  }
  if (pos_ >= text_.size()) {
    t.kind = Tok::End;
    t.text = {};
    return;
  }
  size_t start = pos_;
  char c = text_[pos_];
  if (isIdentStart(c)) {
    ++pos_;
    while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
    t.kind = Tok::Ident;
  } else if (c == '.' && pos_ + 1 < text_.size() && isIdentChar(text_[pos_ + 1]) &&
             !(text_[pos_ + 1] >= '0' && text_[pos_ + 1] <= '9')) {
    pos_ = skipWord(pos_ + 1);
    t.kind = Tok::Directive;
  } else if ((c >= '0' && c <= '9') ||
             (c == '.' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' && text_[pos_ + 1] <= '9')) {
    // Numbers: 42, 0x1F, 0f3F800000, 1.5, 1e-3, 10U.
    bool hexLike = c == '0' && pos_ + 1 < text_.size() &&
                   (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X' || text_[pos_ + 1] == 'f' ||
                    text_[pos_ + 1] == 'F' || text_[pos_ + 1] == 'd' || text_[pos_ + 1] == 'D');
    ++pos_;
    while (pos_ < text_.size()) {
      char d = text_[pos_];
      if (isIdentChar(d) || d == '.') {
        ++pos_;
      } else if (!hexLike && (d == '-' || d == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')) {
        ++pos_;
      } else {
        break;
      }
    }
    t.kind = Tok::Number;
  } else if (c == '"') {
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') ++pos_;
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '"') {
      ++pos_;
      t.kind = Tok::String;
    } else {
      t.kind = Tok::Invalid;
    }
  } else {
    switch (c) {
    case '{':
    case '}':
    case '(':
    case ')':
    case '[':
    case ']':
    case ',':
    case ';':
    case ':':
    case '+':
    case '-':
    case '!':
    case '@':
    case '|':
    case '<':
    case '>':
    case '=':
    case '*':
    case '/':
    case '&':
    case '~':
    case '^':
    case '?':
    case '%': t.kind = Tok::Punct; break;
    default: t.kind = Tok::Invalid;
    }
    ++pos_;
  }
  t.text = text_.substr(start, pos_ - start);
  return;
}

std::string_view Lexer::extendDotted(const Token &ident) {
  size_t start = ident.text.data() - text_.data();
  while (pos_ + 1 < text_.size() && text_[pos_] == '.' && isIdentChar(text_[pos_ + 1]))
    pos_ = skipWord(pos_ + 1);
  return text_.substr(start, pos_ - start);
}

char Lexer::peekChar() const {
  for (size_t i = pos_; i < text_.size(); ++i) {
    char c = text_[i];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
  }
  return 0;
}

bool Lexer::skipBalanced(std::string_view &inner) {
  size_t start = pos_;
  int depth = 1;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (!(charclass::kTable[static_cast<uint8_t>(c)] & charclass::Balanced)) {
      ++pos_;
      continue;
    }
    if (c == '\n') {
      ++pos_;
      ++line_;
      lineStart_ = pos_;
      col0_ = 1;
    } else if (c == '/' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*')) {
      bool sawSpace = false, bad = false;
      skipSpaceAndComments(sawSpace, bad, nullptr);
      if (bad) return false;
    } else if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') ++pos_;
        ++pos_;
      }
      if (pos_ < text_.size() && text_[pos_] == '"') ++pos_;
    } else {
      if (c == '{')
        ++depth;
      else if (c == '}' && --depth == 0) {
        inner = text_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      ++pos_;
    }
  }
  return false;
}

} // namespace ptx
