// The fast front end's lexer: produces PTX tokens on demand from a string,
// tracking line and column, without allocating.
#pragma once

#include "ptx/IR.h"

#include <string_view>

namespace ptx {

enum class Tok : uint8_t {
  End,
  Ident,     // add, %r1, $L__BB0_1, _Z3fooPi, _
  Directive, // .version, .b32, .shared::cta (text includes the dot)
  Number,    // 42, 0x1F, 0f3F800000, 1.5e-3 (no sign)
  String,    // "text" (text includes the quotes)
  Punct,     // one of { } ( ) [ ] , ; : + - ! @ | < > =
  Invalid,   // a character PTX does not use, or an unterminated string/comment
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  SourceLoc loc;
  /// True when whitespace or a comment came right before this token.
  bool spaceBefore = false;

  bool is(char punct) const { return kind == Tok::Punct && text[0] == punct; }
  bool isDirective(std::string_view d) const { return kind == Tok::Directive && text == d; }
};

class Lexer {
public:
  /// Lexes `text`, whose first character sits at `start` in the file.
  explicit Lexer(std::string_view text, SourceLoc start = {1, 1}, size_t baseOffset = 0);

  Token next();
  /// The same, written into `t`.
  void next(Token &t);
  const Token &peek();
  /// Offset in the file of the next unread character.
  size_t offset() const { return base_ + pos_; }
  /// Offset in the file of a token this lexer produced.
  size_t offsetOf(const Token &t) const { return base_ + static_cast<size_t>(t.text.data() - text_.data()); }
  std::string_view text() const { return text_; }

  /// After an Ident token, extends it over an adjacent run of `.word`s
  /// (`setp` -> `setp.lt.and.s32`) and returns the whole run.
  std::string_view extendDotted(const Token &ident);

  /// The next non-blank character without consuming anything (0 at the
  /// end). Only valid when no token has been peeked.
  char peekChar() const;

  /// Skips a balanced `{...}` whose `{` was just read; returns the text
  /// between the braces, or false when the input ends first.
  bool skipBalanced(std::string_view &inner);

private:
  void skipSpaceAndComments(bool &sawSpace, bool &badComment, SourceLoc *badLoc);
  /// The end of the modifier word starting at `p` (letters, digits, `_`, `$`, `::`).
  size_t skipWord(size_t p) const;
  SourceLoc here() const { return {line_, static_cast<uint32_t>(pos_ - lineStart_ + col0_)}; }

  std::string_view text_;
  size_t pos_ = 0;
  size_t base_ = 0;
  uint32_t line_ = 1;
  size_t lineStart_ = 0;
  uint32_t col0_ = 1; // column of text_[lineStart_] on the first line
  bool hasPeek_ = false;
  Token peeked_;
};

/// Character classes, looked up in one table: the lexer's inner loops run
/// on every byte of the input.
namespace charclass {
enum : uint8_t { IdentStart = 1, IdentChar = 2, Space = 4, Balanced = 8 /* { } " / \n */ };
extern const uint8_t kTable[256];
} // namespace charclass

inline bool isIdentStart(char c) {
  return charclass::kTable[static_cast<uint8_t>(c)] & charclass::IdentStart;
}
inline bool isIdentChar(char c) { return charclass::kTable[static_cast<uint8_t>(c)] & charclass::IdentChar; }

} // namespace ptx
