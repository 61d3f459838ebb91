// ptxvm: the command-line program. Each subcommand is a small function over
// the libraries; `ptxvm SUBCOMMAND --help` describes it.
#include "ptx/IRDump.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Writer.h"
#include "tools/Analyze.h"
#include "tools/CommandLine.h"
#include "tools/Exec.h"
#include "tools/Run.h"
#include "tools/Stats.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace ptxvm;

namespace {

const char kUsageText[] = R"(usage: ptxvm <command> [options] FILE

commands:
  fmt FILE [-o OUT]     parse, verify and re-emit PTX
  verify FILE           check PTX against the instruction table and PTX rules
  stats FILE            functions, instruction counts by class, registers, memory
  dump FILE             print the IR structure (for debugging ptxvm)
  analyze FILE [--kernel K] [--block X[,Y,Z]] [--format text|json|dot]
                        divergence and affine analysis, static barrier checks
  run FILE --kernel K --grid G --block B [--arg SPEC]...
                        run a kernel on the SIMT emulator
  exec [options] -- PROGRAM [ARGS]...
                        run a CUDA program (nvcc -cudart shared) on the emulator

common options:
  --parser=fast|antlr   front end (default: fast)
  --diagnostics=json    diagnostics as JSON on stdout
  --help                help for a command

exit status: 0 success, 1 diagnostics reported, 2 usage error
)";

struct CommandHelp {
  const char *name;
  const char *text;
};

const CommandHelp kHelp[] = {
    {"fmt", R"(usage: ptxvm fmt FILE [-o OUT] [--strip-debug] [--comments] [--no-verify] [--parser=fast|antlr]

Parses FILE, verifies it, and writes it back as PTX (to OUT, or stdout).
The output parses to the identical IR and is accepted by ptxas.
  -o OUT          write to OUT instead of stdout
  --strip-debug   drop .file, .loc, .section and the debug target
  --comments      annotate basic blocks with their predecessors
  --no-verify     write even when the verifier reports errors
)"},
    {"verify", R"(usage: ptxvm verify FILE [--parser=fast|antlr] [--diagnostics=json]

Parses and verifies FILE: operand shapes and types per the instruction
table, defined registers, labels and symbols, state spaces, availability
against .version and .target, immediate barrier operands.
)"},
    {"stats", R"(usage: ptxvm stats FILE [--by-opcode] [--json] [--parser=fast|antlr]

Prints per function: instructions by class, registers, basic blocks, local
and shared bytes; and module totals.
  --by-opcode   also count instructions per opcode
  --json        machine-readable output
)"},
    {"dump", R"(usage: ptxvm dump FILE [--no-locations] [--parser=fast|antlr]

Prints every field of the IR, for debugging ptxvm itself.
)"},
};

int usageError(const std::string &message) {
  std::fprintf(stderr, "ptxvm: %s\n(run 'ptxvm --help' for usage)\n", message.c_str());
  return kUsage;
}

bool wantsHelp(const std::vector<std::string> &args) {
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

/// Splits the common options and the input file off `args`; the rest is
/// returned in `extra` for the subcommand.
bool parseArgs(const std::vector<std::string> &args, InputOptions &in, std::vector<std::string> &extra,
               std::string &error) {
  for (size_t i = 0; i < args.size(); ++i) {
    bool consumed = false;
    if (!parseCommonOption(args[i], in, error, consumed)) return false;
    if (consumed) continue;
    if (args[i] == "-o" && i + 1 < args.size()) {
      extra.push_back(args[i]);
      extra.push_back(args[++i]);
    } else if (args[i].starts_with("-") && args[i] != "-") {
      extra.push_back(args[i]);
    } else if (in.file.empty()) {
      in.file = args[i];
    } else {
      error = "more than one input file";
      return false;
    }
  }
  if (in.file.empty()) {
    error = "no input file";
    return false;
  }
  return true;
}

int finish(const ptx::DiagnosticList &diags, bool json) {
  printDiagnostics(diags, json);
  return diags.hasErrors() ? kDiagnostics : kOk;
}

int runFmt(const std::vector<std::string> &args) {
  InputOptions in;
  std::vector<std::string> extra;
  std::string error;
  if (!parseArgs(args, in, extra, error)) return usageError(error);
  ptx::WriteOptions wo;
  std::string outPath;
  bool verify = true;
  for (size_t i = 0; i < extra.size(); ++i) {
    if (extra[i] == "-o")
      outPath = extra[++i];
    else if (extra[i] == "--strip-debug")
      wo.debugInfo = false;
    else if (extra[i] == "--comments")
      wo.comments = true;
    else if (extra[i] == "--no-verify")
      verify = false;
    else
      return usageError("fmt: unknown option '" + extra[i] + "'");
  }
  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (!m) return finish(diags, in.json);
  if (!diags.hasErrors() && verify) ptx::verifyModule(*m, diags);
  if (diags.hasErrors() && verify) return finish(diags, in.json);
  std::string text = ptx::writeModule(*m, wo);
  if (outPath.empty() || outPath == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(outPath, std::ios::binary);
    out << text;
    if (!out) return usageError("cannot write '" + outPath + "'");
  }
  return finish(diags, in.json);
}

int runVerify(const std::vector<std::string> &args) {
  InputOptions in;
  std::vector<std::string> extra;
  std::string error;
  if (!parseArgs(args, in, extra, error)) return usageError(error);
  if (!extra.empty()) return usageError("verify: unknown option '" + extra[0] + "'");
  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (m && !diags.hasErrors()) ptx::verifyModule(*m, diags);
  if (!diags.hasErrors() && !in.json) std::fprintf(stderr, "%s: ok\n", in.file.c_str());
  return finish(diags, in.json);
}

int runStats(const std::vector<std::string> &args) {
  InputOptions in;
  std::vector<std::string> extra;
  std::string error;
  if (!parseArgs(args, in, extra, error)) return usageError(error);
  bool byOpcode = false, json = false;
  for (const std::string &e : extra) {
    if (e == "--by-opcode")
      byOpcode = true;
    else if (e == "--json")
      json = true;
    else
      return usageError("stats: unknown option '" + e + "'");
  }
  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (!m) return finish(diags, in.json);
  ModuleStats s = computeStats(*m);
  std::string text = json ? renderStatsJson(s) + "\n" : renderStatsText(s, byOpcode);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return finish(diags, in.json);
}

int runDump(const std::vector<std::string> &args) {
  InputOptions in;
  std::vector<std::string> extra;
  std::string error;
  if (!parseArgs(args, in, extra, error)) return usageError(error);
  bool locations = true;
  for (const std::string &e : extra) {
    if (e == "--no-locations")
      locations = false;
    else
      return usageError("dump: unknown option '" + e + "'");
  }
  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (!m) return finish(diags, in.json);
  std::string text = ptx::dumpModule(*m, locations);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return finish(diags, in.json);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fputs(kUsageText, stderr);
    return kUsage;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsageText, stdout);
    return kOk;
  }
  struct Entry {
    const char *name;
    int (*run)(const std::vector<std::string> &);
  };
  const Entry commands[] = {{"fmt", runFmt},   {"verify", runVerify},     {"stats", runStats},
                            {"dump", runDump}, {"run", runKernelCommand}, {"exec", execCommand},
                            {"analyze", runAnalyzeCommand}};
  for (const Entry &c : commands) {
    if (command != c.name) continue;
    // exec's own --help comes before its program: the program's is the program's.
    if (command != "exec" && wantsHelp(args)) {
      for (const CommandHelp &h : kHelp)
        if (command == h.name) std::fputs(h.text, stdout);
      if (command == "run") std::fputs(kRunHelp, stdout);
      if (command == "analyze") std::fputs(kAnalyzeHelp, stdout);
      return kOk;
    }
    return c.run(args);
  }
  return usageError("unknown command '" + command + "'");
}
