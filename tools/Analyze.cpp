#include "tools/Analyze.h"

#include "tools/ArgumentSpec.h"
#include "tools/CfgGraph.h"

#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "ptx/DiagnosticJson.h"
#include "ptx/Writer.h"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace ptxvm {

namespace {

/// The form worth showing: constants and thread-id forms.
bool informative(const analysis::Affine &a) {
  return a.known() && !(a.threadInvariant() && !a.coef(0).isConst());
}

using Analysed = AnalysedFunction;

// ---- text ------------------------------------------------------------------------------

std::string renderText(const ptx::Module &m, const std::vector<Analysed> &fns) {
  std::string out;
  for (const Analysed &a : fns) {
    out += a.divergence->print(m);
    if (!a.barriers->diagnostics.empty() || !a.barriers->roles.empty()) {
      out += "  barriers:\n";
      std::string report = a.barriers->print();
      size_t at = 0;
      while (at < report.size()) {
        size_t end = report.find('\n', at);
        out += "    " + report.substr(at, end - at) + "\n";
        at = end + 1;
      }
    }
    out += '\n';
  }
  return out;
}

// ---- json ------------------------------------------------------------------------------

boost::json::value affineJson(const analysis::Affine &form) {
  if (!informative(form)) return nullptr;
  return boost::json::value(form.str());
}

boost::json::object functionJson(const ptx::Module &m, const Analysed &a) {
  using analysis::uniformityName;
  const analysis::FunctionDivergence &fd = *a.divergence;
  const ptx::Function &fn = fd.function();
  const analysis::SSA &ssa = fd.gated().ssa();
  const analysis::DefUse &du = ssa.defUse();
  const analysis::Cfg &cfg = fd.gated().cfg();
  boost::json::array instructions;
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    const ptx::Instruction &in = fn.instrs[i];
    boost::json::object instr{{"index", i}, {"ptx_line", in.loc.line}};
    if (in.debugLoc) {
      const ptx::DebugLoc &dl = fn.debugLocs[in.debugLoc];
      std::string file;
      for (const ptx::FileEntry &e : m.files)
        if (e.index == dl.file) file = e.path;
      instr["source"] = {{"file", file}, {"line", dl.line}};
    }
    instr["opcode"] = ptx::instructionName(m, in);
    boost::json::array defs;
    auto defList = du.defs(i);
    for (uint32_t k = 0; k < defList.size(); ++k) {
      if (defList[k].registerIndex == analysis::Def::kNotRegister) continue;
      defs.push_back(boost::json::object{{"reg", du.varName(defList[k].var)},
                                         {"uniformity", uniformityName(fd.def(i, k))},
                                         {"affine", affineJson(fd.valueForm(ssa.defValues(i)[k]))}});
    }
    instr["defs"] = std::move(defs);
    uint32_t br = fd.gated().branchOfBlock(cfg.blockOf(i));
    if (br != analysis::kNone && fd.gated().branches()[br].instr == i)
      instr["branch"] = {{"uniformity", uniformityName(fd.branchLevel(br))}};
    instructions.push_back(std::move(instr));
  }

  const analysis::BarrierReport &report = *a.barriers;
  auto optional = [](const auto &v) -> boost::json::value {
    if (v) return *v;
    return nullptr;
  };
  boost::json::array barriers;
  for (const analysis::BarrierOp &op : report.ops)
    barriers.push_back(boost::json::object{{"ptx_line", fn.instrs[op.instr].loc.line},
                                           {"opcode", ptx::instructionName(m, fn.instrs[op.instr])},
                                           {"operation", analysis::barrierOpName(op.kind)},
                                           {"aligned", op.aligned},
                                           {"id", optional(op.id)},
                                           {"count", optional(op.count)},
                                           {"role", op.role}});
  auto lines = [&](const std::vector<uint32_t> &instrs) {
    boost::json::array out;
    for (uint32_t i : instrs) out.push_back(fn.instrs[i].loc.line);
    return out;
  };
  boost::json::array roles;
  for (const auto &[id, list] : report.roles)
    for (const analysis::BarrierRole &r : list)
      roles.push_back(boost::json::object{
          {"barrier", id}, {"role", r.role}, {"arrive", lines(r.arrives)}, {"wait", lines(r.waits)}});
  boost::json::array diagnostics;
  for (const ptx::Diagnostic &d : report.diagnostics) diagnostics.push_back(ptx::toJson(d));

  return {{"name", m.str(fn.name)},
          {"kernel", fn.isKernel},
          {"block", fd.shape().str()},
          {"launch", fd.launch()},
          {"instructions", std::move(instructions)},
          {"barriers", std::move(barriers)},
          {"roles", std::move(roles)},
          {"diagnostics", std::move(diagnostics)}};
}

std::string renderJson(const ptx::Module &m, const std::vector<Analysed> &fns) {
  boost::json::array functions;
  for (const Analysed &a : fns) functions.push_back(functionJson(m, a));
  return boost::json::serialize(
             boost::json::object{{"file", m.fileName}, {"functions", std::move(functions)}}) +
         "\n";
}

} // namespace

std::unique_ptr<ModuleAnalysis> analyseModule(const ptx::Module &m,
                                              const std::vector<const ptx::Function *> &roots,
                                              const std::optional<std::array<uint32_t, 3>> &block,
                                              const LaunchValues &values) {
  auto a = std::make_unique<ModuleAnalysis>();
  analysis::LaunchOptions launch;
  if (block) std::copy(block->begin(), block->end(), launch.block);
  a->manager = std::make_unique<analysis::AnalysisManager>(m, launch);
  analysis::DivergenceOptions options;
  if (block) options.block = analysis::LaunchShape::exact((*block)[0], (*block)[1], (*block)[2]);
  options.grid = values.grid;
  options.arguments = values.arguments;
  a->divergence = analysis::analyzeDivergence(*a->manager, roots, options);
  a->barriers = analysis::checkBarriers(m, a->divergence);
  for (const ptx::Function &fn : m.functions) {
    const analysis::FunctionDivergence *fd = a->divergence.find(fn);
    if (!fd) continue;
    for (const analysis::BarrierReport &r : a->barriers)
      if (r.function == &fn) a->functions.push_back({fd, &r});
  }
  return a;
}

bool launchArguments(const ptx::Function &kernel, const std::vector<std::string> &specs,
                     std::vector<std::vector<uint8_t>> &out, std::string &error) {
  if (specs.size() != kernel.params.size()) {
    error = fmt::format("the kernel takes {} arguments, {} given", kernel.params.size(), specs.size());
    return false;
  }
  out.assign(specs.size(), {});
  for (size_t i = 0; i < specs.size(); ++i) {
    std::vector<uint8_t> bytes;
    switch (scalarArgument(specs[i], bytes, error)) {
    case ScalarSpec::Malformed: return false;
    case ScalarSpec::NotScalar:
      if (specs[i] == "buf" || specs[i].starts_with("buf:")) continue;
      error = "unknown argument kind in '" + specs[i] + "' (see ptxvm run --help)";
      return false;
    case ScalarSpec::Scalar: break;
    }
    const ptx::Variable &p = kernel.params[i];
    const bool scalar = p.dims.empty() && p.vectorWidth <= 1;
    const size_t size = scalar ? ptx::bitWidth(p.type) / 8 : bytes.size();
    if (bytes.size() > size) {
      error = fmt::format("argument {} ('{}') is {} bytes; the parameter is {}", i + 1, specs[i],
                          bytes.size(), size);
      return false;
    }
    bytes.resize(size, 0);
    out[i] = std::move(bytes);
  }
  return true;
}

Command addAnalyzeCommand(CLI::App &ptxvm) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App *cmd = ptxvm.add_subcommand("analyze", "divergence and affine analysis, static barrier checks");
  cmd->footer(paragraph(
      "Divergence analysis: for every value written, whether it is the same in all lanes of a warp "
      "(warp-uniform), in all threads of a CTA (cta-uniform), or neither (divergent), with its affine form "
      "in "
      "the thread id (c0 + c1*tid.x + c2*tid.y + c3*tid.z; U and W stand for CTA- and warp-uniform "
      "unknowns); "
      "the gates (gamma/mu/eta) of the gated SSA form; and static barrier checks: .aligned barriers that "
      "part "
      "of a warp may reach, barrier ids and counts out of range or divergent, and per barrier id which warp "
      "roles arrive and wait.\n\nExit status 1 when a barrier check reports an error."));
  addInputOptions(*cmd, o->in);
  cmd->add_option(
         "--kernel", o->kernel,
         "analyse this kernel and the functions it calls (default: every kernel; functions called by "
         "several are joined)")
      ->type_name("NAME");
  cmd->add_option("--block", o->block,
                  "the launch's block shape (default: .reqntid, a one-dimensional .maxntid, or any shape)")
      ->type_name("X[,Y,Z]")
      ->check(dimensions(1024));
  cmd->add_option("--grid", o->grid,
                  "the launch's grid: %nctaid is then a constant and %ctaid bounded (default: unknown)")
      ->type_name("X[,Y,Z]")
      ->check(dimensions(0));
  cmd->add_option(
         "--arg", o->args,
         "one argument of the launch, in parameter order, as ptxvm run takes it: what ld.param reads "
         "of a scalar (u32:, s32:, u64:, s64:, f32:, f64:) is then a constant; a buf: spec stands "
         "for a pointer not known (needs --kernel)")
      ->allow_extra_args(false)
      ->type_name("SPEC");
  cmd->add_option(
         "--format", o->format,
         "text (annotated listing, default), json, or the CFG with blocks coloured by the uniformity of "
         "their branch, reconvergence points, barriers and gates: dot (Graphviz), svg (laid out by "
         "Graphviz's "
         "dot; DOT when it is not installed), html (one self-contained page per file)")
      ->check(CLI::IsMember({"text", "json", "dot", "svg", "html"}))
      ->type_name("FORMAT");
  return {cmd, [o, cmd] { return analyze(*o, *cmd); }};
}

int analyze(const AnalyzeOptions &o, const CLI::App &command) {
  const InputOptions &in = o.in;
  const std::string &kernelName = o.kernel, &format = o.format;
  std::optional<std::array<uint32_t, 3>> block;
  if (!o.block.empty()) block = parseDimensions(o.block);

  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (!m || diags.hasErrors()) {
    printDiagnostics(diags, in.json);
    return kDiagnostics;
  }
  std::vector<const ptx::Function *> roots;
  if (!kernelName.empty()) {
    const ptx::Function *k = m->findFunction(kernelName);
    if (!k || !k->isKernel || !k->hasBody)
      return usageError(command, "no kernel '" + kernelName + "' in " + in.file);
    roots.push_back(k);
  }
  LaunchValues values;
  if (!o.grid.empty()) values.grid = parseDimensions(o.grid);
  if (!o.args.empty()) {
    if (roots.empty()) return usageError(command, "--arg needs --kernel: the arguments are one kernel's");
    std::string error;
    if (!launchArguments(*roots[0], o.args, values.arguments, error)) return usageError(command, error);
  }
  std::unique_ptr<ModuleAnalysis> analysed = analyseModule(*m, roots, block, values);
  const std::vector<Analysed> &fns = analysed->functions;
  std::string text;
  if (format == "json") {
    text = renderJson(*m, fns);
  } else if (format == "dot") {
    text = renderCfgDot(*m, fns);
  } else if (format == "svg") {
    std::string error;
    text = renderCfgDot(*m, fns);
    std::string svg;
    if (layOutSvg(text, svg, error))
      text = std::move(svg);
    else
      std::fprintf(stderr, "ptxvm analyze: %s: writing DOT instead of SVG\n", error.c_str());
  } else if (format == "html") {
    std::string error;
    text = renderCfgHtml(*m, fns, error);
    if (!error.empty())
      std::fprintf(stderr, "ptxvm analyze: %s: the page has DOT text instead of pictures\n", error.c_str());
  } else {
    text = renderText(*m, fns);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  bool errors = false;
  for (const analysis::BarrierReport &r : analysed->barriers)
    for (const ptx::Diagnostic &d : r.diagnostics) errors |= d.severity == ptx::Severity::Error;
  if (!diags.all().empty() && format != "json") printDiagnostics(diags, in.json); // parse warnings
  return errors ? kDiagnostics : kOk;
}

} // namespace ptxvm
