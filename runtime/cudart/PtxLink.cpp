#include "runtime/cudart/PtxLink.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace cudart {

namespace {

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

enum class Linkage { None, Visible, Extern, Weak, Common };
enum class StmtKind { Version, Target, AddressSize, File, Function, Variable, Section, Other };

/// One top-level statement of a unit.
struct Statement {
  StmtKind kind = StmtKind::Other;
  std::string text;
  std::string name;
  Linkage linkage = Linkage::None;
  bool entry = false;
  bool definition = false;         // a function with a body, a variable that is not .extern
  size_t body = std::string::npos; // offset of a function's '{'
};

/// Skips a comment or string starting at s[i]; returns the index after it,
/// or i when there is none.
size_t skipOpaque(std::string_view s, size_t i) {
  if (s.compare(i, 2, "//") == 0) {
    size_t e = s.find('\n', i);
    return e == std::string_view::npos ? s.size() : e;
  }
  if (s.compare(i, 2, "/*") == 0) {
    size_t e = s.find("*/", i + 2);
    return e == std::string_view::npos ? s.size() : e + 2;
  }
  if (s[i] == '"') {
    size_t j = i + 1;
    while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
    return std::min(j + 1, s.size());
  }
  return i;
}

/// The name and linkage of a declaration, from its head (before a body or
/// initialiser).
void describe(Statement &st) {
  std::string_view text = st.text;
  size_t headEnd = std::min({text.find('{'), text.find('='), text.find(';'), text.size()});
  std::string_view head = text.substr(0, headEnd);
  std::vector<std::string_view> words;
  for (size_t i = 0; i < head.size();) {
    size_t o = skipOpaque(head, i);
    if (o != i) {
      i = o;
      continue;
    }
    if (head[i] == '.' || identStart(head[i])) {
      size_t j = i + 1;
      while (j < head.size() && identChar(head[j])) ++j;
      words.push_back(head.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  for (std::string_view w : words) {
    if (w == ".visible") st.linkage = Linkage::Visible;
    if (w == ".extern") st.linkage = Linkage::Extern;
    if (w == ".weak") st.linkage = Linkage::Weak;
    if (w == ".common") st.linkage = Linkage::Common;
    if (w == ".entry") st.entry = true;
    if (w == ".func" || w == ".entry") st.kind = StmtKind::Function;
  }
  if (st.kind == StmtKind::Function) {
    // The name follows .func/.entry and an optional return list.
    size_t at = head.find(st.entry ? ".entry" : ".func");
    size_t i = at + (st.entry ? 6 : 5);
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    if (i < head.size() && head[i] == '(') {
      int depth = 0;
      for (; i < head.size(); ++i) {
        if (head[i] == '(') ++depth;
        if (head[i] == ')' && --depth == 0) {
          ++i;
          break;
        }
      }
    }
    while (i < head.size() && !identStart(head[i])) ++i;
    size_t j = i;
    while (j < head.size() && identChar(head[j])) ++j;
    st.name = std::string(head.substr(i, j - i));
    st.body = text.find('{');
    st.definition = st.body != std::string::npos;
    return;
  }
  // A variable: its name is the last identifier of the head outside
  // parentheses (`.global .attribute(.managed) .align 4 .u32 mv[4]`).
  bool space = false;
  for (std::string_view w : words)
    space |= w == ".global" || w == ".const" || w == ".shared" || w == ".local" || w == ".tex";
  if (!space) return;
  st.kind = StmtKind::Variable;
  int depth = 0;
  for (size_t i = 0; i < head.size();) {
    size_t o = skipOpaque(head, i);
    if (o != i) {
      i = o;
      continue;
    }
    char c = head[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == '[' || c == '<') break;
    if (c == '.') { // a directive: not a name
      ++i;
      while (i < head.size() && identChar(head[i])) ++i;
      continue;
    }
    if (identStart(c) && depth == 0) {
      size_t j = i + 1;
      while (j < head.size() && identChar(head[j])) ++j;
      if (!std::isdigit(static_cast<unsigned char>(c))) st.name = std::string(head.substr(i, j - i));
      i = j;
      continue;
    }
    ++i;
  }
  st.definition = st.linkage != Linkage::Extern;
}

std::vector<Statement> split(std::string_view s) {
  std::vector<Statement> out;
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    if (s.compare(i, 2, "//") == 0 || s.compare(i, 2, "/*") == 0) {
      i = skipOpaque(s, i);
      continue;
    }
    Statement st;
    size_t start = i;
    // Directives that end at the end of their line.
    for (auto [word, kind] :
         {std::pair{".version", StmtKind::Version}, std::pair{".target", StmtKind::Target},
          std::pair{".address_size", StmtKind::AddressSize}, std::pair{".file", StmtKind::File}})
      if (s.compare(i, std::string_view(word).size(), word) == 0 &&
          !identChar(s[std::min(i + std::string_view(word).size(), s.size() - 1)]))
        st.kind = kind;
    if (st.kind != StmtKind::Other) {
      size_t e = s.find('\n', i);
      if (e == std::string_view::npos) e = s.size();
      st.text = std::string(s.substr(start, e - start));
      out.push_back(std::move(st));
      i = e;
      continue;
    }
    int depth = 0;
    bool initializer = false;
    while (i < s.size()) {
      size_t o = skipOpaque(s, i);
      if (o != i) {
        i = o;
        continue;
      }
      char c = s[i++];
      if (c == '=' && depth == 0) initializer = true;
      if (c == '{') ++depth;
      if (c == '}' && --depth == 0 && !initializer) break; // a body (function, .section)
      if (c == ';' && depth == 0) break;
    }
    st.text = std::string(s.substr(start, i - start));
    if (st.text.starts_with(".section"))
      st.kind = StmtKind::Section;
    else
      describe(st);
    out.push_back(std::move(st));
  }
  return out;
}

/// Renames identifiers (outside comments, strings and directives) and
/// shifts the file numbers of `.loc` and `.file` by `fileOffset`.
std::string rewrite(std::string_view s, const std::map<std::string, std::string, std::less<>> &renames,
                    unsigned fileOffset) {
  std::string out;
  out.reserve(s.size());
  bool shiftNext = false;
  for (size_t i = 0; i < s.size();) {
    size_t o = skipOpaque(s, i);
    if (o != i) {
      out.append(s.substr(i, o - i));
      i = o;
      continue;
    }
    char c = s[i];
    if (c == '.' || identStart(c)) {
      size_t j = i + 1;
      while (j < s.size() && identChar(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      if (c == '.') {
        shiftNext = fileOffset && (word == ".loc" || word == ".file");
        out.append(word);
      } else if (auto it = renames.find(word); it != renames.end()) {
        out.append(it->second);
      } else {
        out.append(word);
      }
      i = j;
      continue;
    }
    if (shiftNext && std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      unsigned long n = 0;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) n = n * 10 + (s[j++] - '0');
      out.append(std::to_string(n + fileOffset));
      shiftNext = false;
      i = j;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) shiftNext = false;
    out.push_back(c);
    ++i;
  }
  return out;
}

ptx::Diagnostic linkError(std::string message) {
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::VerifyError;
  d.message = std::move(message);
  d.loc.file = "<linked PTX>";
  return d;
}

} // namespace

std::string linkPtx(const std::vector<std::string_view> &units, ptx::DiagnosticList &diags) {
  std::vector<std::vector<Statement>> parsed;
  for (std::string_view u : units) parsed.push_back(split(u));

  // Which units declare or define each name, to find file-local names that
  // collide across units.
  std::unordered_map<std::string, std::set<size_t>> unitsOf;
  for (size_t u = 0; u < parsed.size(); ++u)
    for (const Statement &st : parsed[u])
      if (!st.name.empty()) unitsOf[st.name].insert(u);
  for (size_t u = 0; u < parsed.size(); ++u) {
    std::map<std::string, std::string, std::less<>> renames;
    for (const Statement &st : parsed[u])
      if (st.definition && st.linkage == Linkage::None && unitsOf[st.name].size() > 1)
        renames[st.name] = st.name + "$u" + std::to_string(u);
    unsigned fileOffset = static_cast<unsigned>(u) * 1000;
    if (renames.empty() && fileOffset == 0) continue;
    for (Statement &st : parsed[u]) {
      st.text = rewrite(st.text, renames, fileOffset);
      if (auto it = renames.find(st.name); it != renames.end()) st.name = it->second;
      if (st.kind == StmtKind::Function && st.definition) st.body = st.text.find('{');
    }
  }

  // The header: the newest .version, the first unit's target.
  std::string version, target, addressSize = ".address_size 64";
  auto versionKey = [](const std::string &v) {
    unsigned major = 0, minor = 0;
    std::sscanf(v.c_str(), ".version %u.%u", &major, &minor);
    return major * 100 + minor;
  };
  for (const auto &unit : parsed)
    for (const Statement &st : unit) {
      if (st.kind == StmtKind::Version && (version.empty() || versionKey(st.text) > versionKey(version)))
        version = st.text;
      if (st.kind == StmtKind::Target && target.empty()) target = st.text;
      if (st.kind == StmtKind::AddressSize) addressSize = st.text;
    }
  std::string out = version + "\n" + target + "\n" + addressSize + "\n\n";
  for (const auto &unit : parsed)
    for (const Statement &st : unit)
      if (st.kind == StmtKind::File) out += st.text + "\n";

  // Which definition of each function and variable the program gets.
  std::map<std::string, const Statement *> chosen;
  for (const auto &unit : parsed)
    for (const Statement &st : unit) {
      if ((st.kind != StmtKind::Function && st.kind != StmtKind::Variable) || !st.definition) continue;
      auto [it, fresh] = chosen.emplace(st.name, &st);
      if (fresh) continue;
      bool strongBoth = st.linkage != Linkage::Weak && st.linkage != Linkage::Common &&
                        it->second->linkage != Linkage::Weak && it->second->linkage != Linkage::Common;
      if (strongBoth)
        diags.add(linkError("'" + st.name + "' is defined in more than one translation unit"));
      else if (it->second->linkage == Linkage::Weak && st.linkage != Linkage::Weak)
        it->second = &st;
    }

  // Every function declared before any body or initialiser uses it.
  std::set<std::string> declared;
  for (const auto &unit : parsed)
    for (const Statement &st : unit) {
      if (st.kind != StmtKind::Function || st.entry || !declared.insert(st.name).second) continue;
      auto it = chosen.find(st.name);
      const Statement &decl = it != chosen.end() ? *it->second : st;
      std::string head = decl.definition ? decl.text.substr(0, decl.body) : decl.text;
      while (!head.empty() && (std::isspace(static_cast<unsigned char>(head.back())) || head.back() == ';'))
        head.pop_back();
      out += head + ";\n";
    }
  out += "\n";
  std::set<std::string> emitted;
  for (const auto &unit : parsed)
    for (const Statement &st : unit) {
      if (st.kind != StmtKind::Variable) continue;
      auto it = chosen.find(st.name);
      if (it != chosen.end() ? it->second != &st : !emitted.insert(st.name).second) continue;
      out += st.text + "\n";
    }
  out += "\n";
  for (const auto &unit : parsed)
    for (const Statement &st : unit) {
      if (st.kind == StmtKind::Function && st.definition && chosen[st.name] == &st) out += st.text + "\n\n";
      if (st.kind == StmtKind::Other) out += st.text + "\n";
    }
  return out;
}

} // namespace cudart
