// `ptxvm opt FILE [-o OUT] --passes=LIST [--stats] [--report R.json]`.
#include "tools/Opt.h"

#include "analysis/Passes.h"
#include "ptx/Version.h"
#include "ptx/Writer.h"

#include <boost/json/serialize.hpp>

#include <cstdio>
#include <fstream>

namespace ptxvm {

namespace {

struct OptOptions {
  InputOptions in;
  std::string out, passes, report;
  analysis::PassOptions passOptions;
  bool stats = false;
};

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

int opt(const OptOptions &o, const CLI::App &cmd) {
  if (o.passes == "list") {
    for (const analysis::PassInfo *p : analysis::registeredPasses()) {
      std::printf("%-18s %.*s\n", std::string(p->name).c_str(), static_cast<int>(p->description.size()),
                  p->description.data());
      for (const auto &[option, help] : p->options)
        std::printf("  --%-16s %.*s\n", std::string(option).c_str(), static_cast<int>(help.size()),
                    help.data());
    }
    return kOk;
  }
  if (o.in.file.empty()) return usageError(cmd, "FILE is required (or --passes=list)");
  ptx::DiagnosticList diags;
  std::string error;
  std::optional<analysis::PassManager> pipeline =
      analysis::makePipeline(o.passes, diags, error, o.passOptions);
  if (!pipeline) return usageError(cmd, error);
  analysis::PassManager &pm = *pipeline;
  auto m = loadModule(o.in, diags);
  if (!m || diags.hasErrors()) {
    printDiagnostics(diags, o.in.json);
    return kDiagnostics;
  }
  analysis::AnalysisManager am(*m);
  const bool ok = pm.run(*m, am);
  // Statistics: one line per figure on stderr, and the report.
  boost::json::array passes;
  for (size_t i = 0; i < pm.passes().size(); ++i) {
    const analysis::Pass &pass = *pm.passes()[i];
    boost::json::object figures;
    for (const analysis::PassStatistic &s : pass.statistics()) {
      figures[s.name] = s.value;
      if (o.stats)
        std::fprintf(stderr, "%s: %s %llu\n", std::string(pass.name()).c_str(), s.name.c_str(),
                     static_cast<unsigned long long>(s.value));
    }
    boost::json::array remarks;
    for (const std::string &line : pass.remarks()) {
      remarks.push_back(boost::json::string(line));
      if (o.stats) std::fprintf(stderr, "%s: %s\n", std::string(pass.name()).c_str(), line.c_str());
    }
    if (o.stats)
      std::fprintf(stderr, "%s: %.3f ms\n", std::string(pass.name()).c_str(), pm.seconds()[i] * 1e3);
    passes.push_back(boost::json::object{{"name", std::string(pass.name())},
                                         {"seconds", pm.seconds()[i]},
                                         {"statistics", std::move(figures)},
                                         {"remarks", std::move(remarks)}});
  }
  if (!o.report.empty()) {
    boost::json::object report{
        {"ptxvm", ptx::buildInfoJson()}, {"file", o.in.file}, {"ok", ok}, {"passes", std::move(passes)}};
    if (!writeFile(o.report, boost::json::serialize(report) + "\n"))
      return usageError(cmd, "cannot write the report to '" + o.report + "'");
  }
  if (!ok) {
    printDiagnostics(diags, o.in.json);
    return kDiagnostics;
  }
  const std::string text = ptx::writeModule(*m);
  if (o.out.empty() || o.out == "-")
    std::fwrite(text.data(), 1, text.size(), stdout);
  else if (!writeFile(o.out, text))
    return usageError(cmd, "cannot write '" + o.out + "'");
  printDiagnostics(diags, o.in.json);
  return diags.hasErrors() ? kDiagnostics : kOk;
}

} // namespace

Command addOptCommand(CLI::App &ptxvm) {
  auto o = std::make_shared<OptOptions>();
  CLI::App *cmd = ptxvm.add_subcommand("opt", "run passes over PTX and write the PTX they leave");
  cmd->footer(paragraph("Runs the passes of LIST in order over FILE and writes the result as PTX (to OUT, or "
                        "stdout) that ptxas accepts. '--passes=list' names the passes. A pass that finds "
                        "errors (verify) stops the pipeline: nothing is written and the exit status is 1."));
  addInputOptions(*cmd, o->in, false);
  cmd->add_option("-o", o->out, "write to OUT instead of stdout ('-': stdout)")->type_name("OUT");
  cmd->add_option("--passes", o->passes, "comma-separated passes to run, or 'list'")
      ->required()
      ->type_name("LIST");
  addPassOptions(*cmd, o->passOptions);
  cmd->add_flag("--stats", o->stats, "print each pass's statistics and time on stderr");
  cmd->add_option("--report", o->report, "per-pass statistics and times as JSON")->type_name("R.json");
  return {cmd, [o, cmd] { return opt(*o, *cmd); }};
}

} // namespace ptxvm
