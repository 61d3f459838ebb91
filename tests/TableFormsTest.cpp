// The sample instruction lines in tests/table/*_forms.txt were each accepted
// by ptxas when the table rows were written. Every one must parse with the
// fast front end (its opcode and modifiers matching a form of the table).
#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace fs = std::filesystem;
using namespace ptx;

namespace {

struct Sample {
  std::string file;
  int line;
  std::string text;
};

std::vector<Sample> samples() {
  std::vector<Sample> out;
  std::vector<fs::path> paths;
  for (const auto &e : fs::directory_iterator(fs::path(PTXVM_SOURCE_DIR) / "tests" / "table"))
    if (e.path().extension() == ".txt") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const fs::path &p : paths) {
    std::ifstream in(p);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      out.push_back({p.filename().string(), n, line});
    }
  }
  return out;
}

/// A kernel around one sample line, declaring every register it names.
std::string wrap(const std::string &line) {
  static const std::regex reg(R"(%([a-z]+)([0-9]+))");
  std::set<std::string> declared;
  std::string decls;
  for (std::sregex_iterator it(line.begin(), line.end(), reg), end; it != end; ++it) {
    std::string prefix = (*it)[1], name = (*it)[0];
    if (prefix == "envreg" || !declared.insert(name).second) continue;
    std::string type = prefix == "rd"                    ? "b64"
                       : prefix == "f"                   ? "f32"
                       : prefix == "fd"                  ? "f64"
                       : prefix == "h" || prefix == "rs" ? "b16"
                       : prefix == "p"                   ? "pred"
                       : prefix == "rq"                  ? "b128"
                                                         : "b32";
    decls += "  .reg ." + type + " " + name + ";\n";
  }
  return ".version 9.0\n.target sm_100a\n.address_size 64\n.entry k()\n{\n" + decls + "  " + line + ";\n}\n";
}

TEST(TableForms, EverySampleLineParses) {
  auto all = samples();
  ASSERT_GT(all.size(), 100u);
  size_t failures = 0;
  for (const Sample &s : all) {
    DiagnosticList diags;
    parseModule(wrap(s.text), s.file, diags);
    if (diags.hasErrors()) {
      ++failures;
      ADD_FAILURE() << s.file << ":" << s.line << ": " << s.text << "\n" << diags.renderText();
    }
  }
  std::printf("%zu sample lines, %zu failed\n", all.size(), failures);
}

} // namespace
