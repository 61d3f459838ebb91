// The ANTLR front end, part 1: the input stream, and the syntax errors: an
// error strategy and listener that word them as the fast front end does.
#include "ptx/grammar/AntlrImpl.h"

#include <algorithm>

namespace ptx::detail::antlr {

// ---- Input -----------------------------------------------------------------

ByteStream::ByteStream(std::string_view bytes) : bytes_(bytes) {
  _data.clear();
  _data.reserve(bytes.size());
  for (unsigned char c : bytes) _data.push_back(static_cast<char32_t>(c));
  p = 0;
  name = "ptx";
}

std::string ByteStream::getText(const antlr4::misc::Interval &interval) {
  if (interval.a < 0 || interval.b < interval.a) return {};
  size_t a = static_cast<size_t>(interval.a);
  size_t b = std::min(static_cast<size_t>(interval.b), bytes_.size() - 1);
  if (a >= bytes_.size()) return {};
  return std::string(bytes_.substr(a, b - a + 1));
}

// ---- Messages --------------------------------------------------------------

namespace {

/// How a token kind reads in "expected ..." messages.
std::string describeTokenType(const antlr4::dfa::Vocabulary &vocab, size_t type) {
  switch (type) {
  case Token::EOF: return "end of file";
  case P::NAME: return "a name";
  case P::NUMBER: return "a number";
  case P::STRING: return "a string";
  case P::DOTWORD: return "a .directive";
  default: break;
  }
  std::string literal = vocab.getLiteralName(type);
  if (!literal.empty()) return literal;
  return vocab.getDisplayName(type);
}

std::string describeSet(const antlr4::dfa::Vocabulary &vocab, const antlr4::misc::IntervalSet &set) {
  std::vector<std::string> names;
  for (ssize_t type : set.toList()) {
    if (static_cast<size_t>(type) == Token::EPSILON) continue;
    std::string n = describeTokenType(vocab, static_cast<size_t>(type));
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  if (names.empty()) return "something else";
  if (names.size() > 8) {
    names.resize(8);
    names.push_back("...");
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

/// What a rule is about, for "unexpected X in Y" messages.
std::string_view ruleDescription(size_t rule) {
  switch (rule) {
  case P::RuleModule:
  case P::RuleModuleItem: return "a directive such as .version, .entry, .func or a variable";
  case P::RuleFunctionBody:
  case P::RuleScope: return "an instruction, label, declaration or '}'";
  case P::RuleFunctionDefinition: return "a function header";
  case P::RuleParameter: return "a parameter declaration (.param or .reg)";
  case P::RuleFunctionAttribute:
  case P::RulePerformanceDirective: return "a function directive";
  case P::RuleStatement: return "an instruction, label or declaration";
  case P::RuleInstruction: return "an instruction";
  case P::RuleOperand:
  case P::RulePrimaryOperand:
  case P::RuleListHead:
  case P::RuleStructuredOperand: return "an operand";
  case P::RuleConstExpr:
  case P::RuleConstUnary:
  case P::RuleConstAtom:
  case P::RuleUnaryOperator:
  case P::RuleBinaryOperator: return "a constant";
  case P::RuleBracketContent: return "an address";
  case P::RuleVariableDeclaration:
  case P::RuleVariableAttribute: return "a declaration";
  case P::RuleInitializer: return "an initializer";
  case P::RuleLocDirective:
  case P::RuleLocAttribute: return "a .loc directive";
  default: return {};
  }
}

} // namespace

std::string describeToken(const Token *t) {
  if (!t || t->getType() == Token::EOF) return "end of file";
  if (t->getType() == P::UNTERMINATED_COMMENT) return "an unterminated comment";
  std::string text = t->getText();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return "'" + text + "'";
}

// ---- Error strategy and listener -------------------------------------------

void ErrorStrategy::reportNoViableAlternative(antlr4::Parser *recognizer,
                                              const antlr4::NoViableAltException &e) {
  std::string_view what = ruleDescription(recognizer->getContext()->getRuleIndex());
  Token *t = e.getOffendingToken();
  std::string message = what.empty() ? "unexpected " + describeToken(t)
                                     : "expected " + std::string(what) + ", found " + describeToken(t);
  // A name after a constant that is not `%`: the constant has ended.
  size_t rule = recognizer->getContext()->getRuleIndex();
  if ((rule == P::RuleBinaryOperator || rule == P::RuleConstExpr) && t && t->getType() == P::NAME)
    message = "expected ',' or ';' after an operand, found " + describeToken(t);
  recognizer->notifyErrorListeners(t, message, std::make_exception_ptr(e));
}

void ErrorStrategy::reportInputMismatch(antlr4::Parser *recognizer, const antlr4::InputMismatchException &e) {
  Token *t = e.getOffendingToken();
  std::string message =
      "expected " + describeExpected(recognizer, e.getExpectedTokens()) + ", found " + describeToken(t);
  afterOperand(recognizer, message);
  recognizer->notifyErrorListeners(t, message, std::make_exception_ptr(e));
}

/// "expected ',' or ';' after an operand", as the fast front end says.
void ErrorStrategy::afterOperand(antlr4::Parser *recognizer, std::string &message) {
  static const std::string kPrefix = "expected ',' or ';', ";
  if (recognizer->getContext()->getRuleIndex() == P::RuleInstruction && message.starts_with(kPrefix))
    message = "expected ',' or ';' after an operand, " + message.substr(kPrefix.size());
}

/// A short list of tokens as such; a long one by what the rule reads.
std::string ErrorStrategy::describeExpected(antlr4::Parser *recognizer,
                                            const antlr4::misc::IntervalSet &set) {
  std::string_view what = ruleDescription(recognizer->getContext()->getRuleIndex());
  if (set.size() > 3 && !what.empty()) return std::string(what);
  return describeSet(recognizer->getVocabulary(), set);
}

void ErrorStrategy::reportFailedPredicate(antlr4::Parser *recognizer,
                                          const antlr4::FailedPredicateException &e) {
  recognizer->notifyErrorListeners(e.getOffendingToken(),
                                   "unexpected " + describeToken(e.getOffendingToken()),
                                   std::make_exception_ptr(e));
}

void ErrorStrategy::reportUnwantedToken(antlr4::Parser *recognizer) {
  if (inErrorRecoveryMode(recognizer)) return;
  beginErrorCondition(recognizer);
  Token *t = recognizer->getCurrentToken();
  std::string message = "expected " + describeExpected(recognizer, getExpectedTokens(recognizer)) +
                        ", found " + describeToken(t);
  afterOperand(recognizer, message);
  recognizer->notifyErrorListeners(t, message, nullptr);
}

void ErrorStrategy::reportMissingToken(antlr4::Parser *recognizer) {
  if (inErrorRecoveryMode(recognizer)) return;
  beginErrorCondition(recognizer);
  Token *t = recognizer->getCurrentToken();
  std::string message = "expected " + describeExpected(recognizer, getExpectedTokens(recognizer)) +
                        ", found " + describeToken(t);
  afterOperand(recognizer, message);
  recognizer->notifyErrorListeners(t, message, nullptr);
}

void ErrorListener::syntaxError(antlr4::Recognizer *, Token *offending, size_t line,
                                size_t charPositionInLine, const std::string &msg, std::exception_ptr) {
  SourceLoc loc{static_cast<uint32_t>(line), static_cast<uint32_t>(charPositionInLine + 1)};
  locs_.push_back(loc);
  // The fast front end's messages for what the lexer could not finish.
  size_t type = offending ? offending->getType() : 0;
  if (type == P::UNTERMINATED_COMMENT)
    errors_.error(loc, "unterminated comment: '/*' without '*/'");
  else if (type == P::UNTERMINATED_STRING)
    errors_.error(loc, "unterminated string: '\"' without a closing quote on the same line");
  else
    errors_.error(loc, msg);
}

/// True when `tree` holds a syntax error (an error node or a rule that
/// failed): such a statement is skipped, as the fast front end skips it.
/// Function bodies and nested scopes are not looked into: their statements
/// are checked one by one.
bool hasSyntaxError(ParseTree *tree) {
  if (dynamic_cast<antlr4::tree::ErrorNode *>(tree)) return true;
  if (auto *rule = dynamic_cast<antlr4::ParserRuleContext *>(tree)) {
    if (rule->exception) return true;
    if (dynamic_cast<P::FunctionBodyContext *>(rule) || dynamic_cast<P::ScopeContext *>(rule)) return false;
    for (ParseTree *child : rule->children)
      if (hasSyntaxError(child)) return true;
  }
  return false;
}

} // namespace ptx::detail::antlr
