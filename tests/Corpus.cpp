#include "tests/Corpus.h"

#include "ptx/Parser.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ptxvm::test {
namespace {

std::string archOf(const fs::path &p, const std::string &text) {
  // Generated files are named <stem>.sm_XX[.variant].ptx.
  std::string name = p.filename().string();
  size_t sm = name.find(".sm_");
  if (sm != std::string::npos) {
    size_t end = name.find('.', sm + 1);
    return name.substr(sm + 1, end - sm - 1);
  }
  size_t tag = text.find("ptxas-arch:");
  if (tag != std::string::npos) {
    size_t b = text.find_first_not_of(" \t", tag + 11);
    size_t e = text.find_first_of(" \t\r\n", b);
    return text.substr(b, e - b);
  }
  return "sm_80";
}

std::string safeName(std::string s) {
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

} // namespace

std::string readText(const std::string &path) {
  std::string text;
  ptx::DiagnosticList diags;
  ptx::readFile(path, text, diags);
  return text;
}

const std::vector<CorpusFile> &corpusFiles() {
  static const std::vector<CorpusFile> files = [] {
    std::vector<CorpusFile> out;
    auto scan = [&](const fs::path &dir, const char *prefix) {
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) return;
      std::vector<fs::path> paths;
      for (const auto &e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".ptx") paths.push_back(e.path());
      std::sort(paths.begin(), paths.end());
      for (const fs::path &p : paths)
        out.push_back({p.string(), safeName(prefix + p.stem().string()), archOf(p, readText(p.string()))});
    };
    scan(fs::path(PTXVM_SOURCE_DIR) / "kernels" / "ptx", "hand_");
    scan(fs::path(PTXVM_CORPUS_DIR), "nvcc_");
    return out;
  }();
  return files;
}

std::string ptxasPath() {
  std::string p = PTXVM_PTXAS;
  if (!p.empty() && fs::exists(p)) return p;
  if (fs::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  return {};
}

bool ptxasAccepts(const std::string &text, const std::string &arch, std::string &log) {
  std::string ptxas = ptxasPath();
  char tmpl[] = "/tmp/ptxvm-ptxas-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) {
    log = "cannot create a temporary file";
    return false;
  }
  close(fd);
  std::string in = std::string(tmpl) + ".ptx";
  fs::rename(tmpl, in);
  {
    std::ofstream out(in, std::ios::binary);
    out << text;
  }
  std::string cmd = ptxas + " -arch=" + arch + " " + in + " -o /dev/null 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  int status = p ? pclose(p) : -1;
  fs::remove(in);
  return status == 0;
}

} // namespace ptxvm::test
