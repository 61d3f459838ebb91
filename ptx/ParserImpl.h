// The fast front end's parser class, shared by the files that implement it
// (Parser.cpp: module level, ParserBody.cpp: function bodies,
// ParserOperands.cpp: operands and constant expressions). Internal to ptx/.
#pragma once

#include "ptx/Builder.h"
#include "ptx/Lexer.h"
#include "ptx/Parser.h"

#include <string>
#include <vector>

namespace ptx::detail {

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
    if (tok_.kind == Tok::Invalid && tok_.text.starts_with("/*"))
      fail(tok_.loc, "unterminated comment: '/*' without '*/'");
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
      return next.kind == Tok::Number || next.is('(') || next.is('-') || next.is('~') || next.is('!') ||
             next.is('+');
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

/// `.visible` etc. as a Linkage; Linkage::None for other text.
Linkage linkageOf(std::string_view directive);
/// A state-space directive (`.shared`) as its modifier; Mod::None otherwise.
Mod spaceOf(std::string_view directive);

} // namespace ptx::detail
