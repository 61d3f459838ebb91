// bench_parse: front-end throughput and memory.
//
// Builds an input of at least --mb megabytes (default 50) by repeating the
// corpus with every module-level name renamed per copy, then measures, each in
// a child process of its own so peak RSS is that mode's alone:
//   fast full parse, fast index-only (lazy bodies), and the ANTLR front end
//   (on a slice, since it is much slower and hungrier).
// Prints MB/s, peak RSS as a multiple of the input, and ratios between modes.
#include "ptx/Parser.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;
using namespace ptx;

namespace {

/// Gives every function and global of `m` a name with `suffix`, updating
/// the operands and initializers that refer to them.
void renameGlobals(Module &m, const std::string &suffix) {
  std::unordered_map<Name, Name> renamed;
  auto rename = [&](Name &n) {
    auto it = renamed.find(n);
    if (it != renamed.end()) {
      n = it->second;
      return;
    }
    Name fresh = m.names.intern(std::string(m.str(n)) + suffix);
    renamed.emplace(n, fresh);
    n = fresh;
  };
  for (Function &f : m.functions) rename(f.name);
  for (Variable &v : m.globals) rename(v.name);
  auto fix = [&](Name &n) {
    auto it = renamed.find(n);
    if (it != renamed.end()) n = it->second;
  };
  for (Variable &v : m.globals)
    for (InitItem &i : v.init)
      if (i.kind == InitItem::Address) fix(i.symbol);
  for (Function &f : m.functions)
    for (Operand &o : f.operands)
      if (o.kind == OperandKind::Symbol || (o.kind == OperandKind::Address && o.base == AddressBase::Symbol)) fix(o.id);
}

std::string readText(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string buildInput(size_t targetBytes, size_t &files) {
  std::vector<fs::path> paths;
  for (const char *dir : {PTXVM_CORPUS_DIR, PTXVM_SOURCE_DIR "/kernels/ptx"}) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".ptx" && e.path().string().find(".G.") == std::string::npos)
        paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::unique_ptr<Module>> modules;
  for (const fs::path &p : paths) {
    DiagnosticList diags;
    auto m = parseModule(readText(p), p.string(), diags);
    if (!diags.hasErrors()) modules.push_back(std::move(m));
  }
  files = modules.size();
  std::string out = ".version 9.0\n.target sm_90\n.address_size 64\n";
  WriteOptions wo;
  wo.debugInfo = false;
  for (size_t copy = 0; out.size() < targetBytes && !modules.empty(); ++copy) {
    for (auto &m : modules) {
      renameGlobals(*m, "_c" + std::to_string(copy));
      Module &mod = *m;
      // Drop the header lines of each module: one header for the whole input.
      std::string text = writeModule(mod, wo);
      size_t body = text.find("\n\n");
      out.append(text, body == std::string::npos ? 0 : body + 1);
    }
  }
  return out;
}

struct Result {
  double seconds = 0;
  size_t instructions = 0;
  bool ok = false;
};

/// Runs `fn` in a child process; returns its result and peak RSS in bytes.
template <typename Fn> Result measure(Fn fn, long &peakRssBytes) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(pipefd[0]);
    Result r = fn();
    if (write(pipefd[1], &r, sizeof r) != sizeof r) _exit(1);
    _exit(0);
  }
  close(pipefd[1]);
  Result r;
  if (read(pipefd[0], &r, sizeof r) != sizeof r) r.ok = false;
  close(pipefd[0]);
  int status;
  struct rusage usage;
  wait4(pid, &status, 0, &usage);
  peakRssBytes = usage.ru_maxrss * 1024L;
  return r;
}

Result parseWith(const std::string &text, ParseOptions o) {
  auto start = std::chrono::steady_clock::now();
  DiagnosticList diags;
  auto m = parseModule(text, "bench.ptx", diags, o);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const Function &f : m->functions) r.instructions += f.instrs.size();
  r.ok = !diags.hasErrors();
  return r;
}

} // namespace

int main(int argc, char **argv) {
  size_t mb = 50, antlrMb = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--mb=", 5)) mb = std::stoul(argv[i] + 5);
    else if (!std::strncmp(argv[i], "--antlr-mb=", 11)) antlrMb = std::stoul(argv[i] + 11);
    else {
      std::fprintf(stderr, "usage: bench_parse [--mb=N] [--antlr-mb=N]\n");
      return 2;
    }
  }
  size_t files = 0;
  std::string input = buildInput(mb << 20, files);
  if (files == 0) {
    std::fprintf(stderr, "bench_parse: no corpus found (build the ptx_corpus target)\n");
    return 1;
  }
  // The ANTLR slice ends at a function boundary.
  size_t cut = input.find("\n.", std::min(input.size(), antlrMb << 20));
  std::string slice = ".version 9.0\n.target sm_90\n.address_size 64\n";
  if (cut != std::string::npos) {
    size_t next = input.rfind("\n.visible", cut);
    size_t alt = input.rfind("\n.entry", cut), alt2 = input.rfind("\n.func", cut);
    next = std::max({next == std::string::npos ? 0 : next, alt == std::string::npos ? 0 : alt,
                     alt2 == std::string::npos ? 0 : alt2});
    slice = input.substr(0, next + 1);
  } else {
    slice = input;
  }
  double inMB = input.size() / 1048576.0, sliceMB = slice.size() / 1048576.0;
  std::printf("input: %.1f MB built from %zu corpus files; ANTLR slice: %.1f MB\n", inMB, files, sliceMB);

  struct Mode {
    const char *name;
    const std::string *text;
    ParseOptions options;
  };
  ParseOptions full, lazy, antlr;
  lazy.lazyBodies = true;
  antlr.frontEnd = FrontEnd::Antlr;
  Mode modes[] = {{"fast, full parse", &input, full}, {"fast, index only", &input, lazy}, {"antlr, full parse", &slice, antlr}};
  double mbps[3] = {};
  std::printf("%-20s %10s %10s %12s %14s %12s\n", "front end", "MB", "seconds", "MB/s", "instructions", "RSS/input");
  for (int i = 0; i < 3; ++i) {
    long rss = 0;
    // Subtract the baseline the child inherits (the input text itself) by
    // reporting RSS relative to the parsed text's size.
    Result r = measure([&] { return parseWith(*modes[i].text, modes[i].options); }, rss);
    double size = modes[i].text->size() / 1048576.0;
    mbps[i] = r.seconds > 0 ? size / r.seconds : 0;
    std::printf("%-20s %10.1f %10.3f %12.1f %14zu %11.2fx%s\n", modes[i].name, size, r.seconds, mbps[i], r.instructions,
                rss / 1048576.0 / size, r.ok ? "" : "  (errors!)");
  }
  std::printf("ratios: fast/antlr %.1fx, index/full %.1fx\n", mbps[2] > 0 ? mbps[0] / mbps[2] : 0,
              mbps[0] > 0 ? mbps[1] / mbps[0] : 0);
  std::printf("targets: fast full parse >= 100 MB/s per core: %s; peak RSS <= 4x input: see RSS/input\n",
              mbps[0] >= 100 ? "met" : "NOT met");
  return 0;
}
