// ptxvm: the command-line program. Each subcommand is a CLI11 subcommand
// whose options are bound to a struct and whose work is a small function over
// the libraries; `ptxvm SUBCOMMAND --help` is generated from its options.
#include "ptx/IRDump.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Version.h"
#include "ptx/Writer.h"
#include "regalloc/RegAlloc.h"
#include "tools/Analyze.h"
#include "tools/CommandLine.h"
#include "tools/Exec.h"
#include "tools/Opt.h"
#include "tools/Run.h"
#include "tools/ShellDocs.h"
#include "tools/Stats.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace ptxvm;

namespace {

int finish(const ptx::DiagnosticList &diags, bool json) {
  printDiagnostics(diags, json);
  return diags.hasErrors() ? kDiagnostics : kOk;
}

Command addFmtCommand(CLI::App &ptxvm) {
  struct Options {
    InputOptions in;
    std::string out;
    bool stripDebug = false, comments = false, noVerify = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App *cmd = ptxvm.add_subcommand("fmt", "parse, verify and re-emit PTX");
  cmd->footer(paragraph(
      "Parses FILE, verifies it, and writes it back as PTX (to OUT, or stdout). The output parses to the "
      "identical IR and is accepted by ptxas."));
  addInputOptions(*cmd, o->in);
  cmd->add_option("-o", o->out, "write to OUT instead of stdout ('-': stdout)")->type_name("OUT");
  cmd->add_flag("--strip-debug", o->stripDebug, "drop .file, .loc, .section and the debug target");
  cmd->add_flag("--comments", o->comments, "annotate basic blocks with their predecessors");
  cmd->add_flag("--no-verify", o->noVerify, "write even when the verifier reports errors");
  return {cmd, [o, cmd] {
            ptx::WriteOptions wo;
            wo.debugInfo = !o->stripDebug;
            wo.comments = o->comments;
            bool verify = !o->noVerify;
            ptx::DiagnosticList diags;
            auto m = loadModule(o->in, diags);
            if (!m) return finish(diags, o->in.json);
            if (!diags.hasErrors() && verify) ptx::verifyModule(*m, diags);
            if (diags.hasErrors() && verify) return finish(diags, o->in.json);
            std::string text = ptx::writeModule(*m, wo);
            if (o->out.empty() || o->out == "-") {
              std::fwrite(text.data(), 1, text.size(), stdout);
            } else {
              std::ofstream out(o->out, std::ios::binary);
              out << text;
              if (!out) return usageError(*cmd, "cannot write '" + o->out + "'");
            }
            return finish(diags, o->in.json);
          }};
}

Command addVerifyCommand(CLI::App &ptxvm) {
  auto in = std::make_shared<InputOptions>();
  CLI::App *cmd = ptxvm.add_subcommand("verify", "check PTX against the instruction table and PTX rules");
  cmd->footer(paragraph(
      "Parses and verifies FILE: operand shapes and types per the instruction table, defined registers, "
      "labels and symbols, state spaces, availability against .version and .target, immediate barrier "
      "operands."));
  addInputOptions(*cmd, *in);
  return {cmd, [in] {
            ptx::DiagnosticList diags;
            auto m = loadModule(*in, diags);
            if (m && !diags.hasErrors()) ptx::verifyModule(*m, diags);
            if (!diags.hasErrors() && !in->json) std::fprintf(stderr, "%s: ok\n", in->file.c_str());
            return finish(diags, in->json);
          }};
}

Command addStatsCommand(CLI::App &ptxvm) {
  struct Options {
    InputOptions in;
    bool byOpcode = false, json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App *cmd = ptxvm.add_subcommand("stats", "functions, instruction counts by class, registers, memory");
  cmd->footer(paragraph(
      "Prints per function: instructions by class, registers, basic blocks, local and shared bytes; and "
      "module totals."));
  addInputOptions(*cmd, o->in);
  cmd->add_flag("--by-opcode", o->byOpcode, "also count instructions per opcode");
  cmd->add_flag("--json", o->json, "machine-readable output (one JSON document)");
  return {cmd, [o] {
            ptx::DiagnosticList diags;
            auto m = loadModule(o->in, diags);
            if (!m) return finish(diags, o->in.json);
            ModuleStats s = computeStats(*m);
            std::string text = o->json ? renderStatsJson(s) + "\n" : renderStatsText(s, o->byOpcode);
            std::fwrite(text.data(), 1, text.size(), stdout);
            return finish(diags, o->in.json);
          }};
}

Command addDumpCommand(CLI::App &ptxvm) {
  struct Options {
    InputOptions in;
    bool noLocations = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App *cmd = ptxvm.add_subcommand("dump", "print the IR structure (for debugging ptxvm itself)");
  addInputOptions(*cmd, o->in);
  cmd->add_flag("--no-locations", o->noLocations, "leave out source locations");
  return {cmd, [o] {
            ptx::DiagnosticList diags;
            auto m = loadModule(o->in, diags);
            if (!m) return finish(diags, o->in.json);
            std::string text = ptx::dumpModule(*m, !o->noLocations);
            std::fwrite(text.data(), 1, text.size(), stdout);
            return finish(diags, o->in.json);
          }};
}

/// CLI11 reads `--` as the end of exec's options but would still take a
/// `--help` after it as exec's own; the program's arguments are therefore
/// split off here, before CLI11 sees them.
std::vector<std::string> splitProgram(std::vector<std::string> &args, bool &split) {
  split = false;
  if (args.empty() || args[0] != "exec") return {};
  for (size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--") {
      std::vector<std::string> program(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      args.resize(i);
      split = true;
      return program;
    }
  return {};
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("ptxvm: a PTX virtual machine. Reads, checks, analyses and runs PTX; runs CUDA programs.",
               "ptxvm");
  app.require_subcommand(1);
  std::string version = ptx::versionText();
  version.pop_back(); // CLI11 ends it with a newline of its own
  app.set_version_flag("--version", version, "print the version, commit, build and the PTX ptxvm serves");
  app.footer("Exit status: 0 success, 1 diagnostics reported, 2 usage error.\n"
             "'ptxvm COMMAND --help' describes a command.");
  regalloc::registerPasses(); // before the commands add the passes' options
  std::vector<std::string> args(argv + 1, argv + argc);
  bool split = false;
  std::vector<std::string> program = splitProgram(args, split);
  std::vector<Command> commands{addFmtCommand(app),       addVerifyCommand(app),
                                addStatsCommand(app),     addDumpCommand(app),
                                addAnalyzeCommand(app),   addOptCommand(app),
                                addRunCommand(app),       addExecCommand(app, split ? &program : nullptr),
                                addCompletionCommand(app)};
  try {
    // CLI11 takes its arguments last first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    const CLI::App *failed = &app;
    for (const CLI::App *sub : app.get_subcommands()) failed = sub;
    if (failed == &app && args.empty()) {
      std::fputs(app.help().c_str(), stderr);
      return kUsage;
    }
    if (failed == &app && !args[0].starts_with("-"))
      return usageError(app, "unknown command '" + args[0] + "'");
    return usageError(*failed, e.what());
  }
  for (const Command &c : commands)
    if (c.app->parsed()) return c.run();
  return kUsage;
}
