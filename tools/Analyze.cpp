// `ptxvm analyze FILE [--kernel NAME] [--block X[,Y,Z]] [--format text|json|dot]`
#include "tools/Analyze.h"

#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "ptx/Writer.h"
#include "tools/CommandLine.h"

#include <charconv>
#include <cstdio>

namespace ptxvm {

const char kAnalyzeHelp[] =
    R"(usage: ptxvm analyze FILE [--kernel NAME] [--block X[,Y,Z]] [--format text|json|dot]
                     [--parser=fast|antlr] [--diagnostics=json]

Divergence analysis: for every value written, whether it is the same in all
lanes of a warp (warp-uniform), in all threads of a CTA (cta-uniform), or
neither (divergent), with its affine form in the thread id (c0 + c1*tid.x +
c2*tid.y + c3*tid.z; U and W stand for CTA- and warp-uniform unknowns); the
gates (gamma/mu/eta) of the gated SSA form; and static barrier checks:
.aligned barriers that part of a warp may reach, barrier ids and counts out of
range or divergent, and per barrier id which warp roles arrive and wait.
  --kernel NAME     analyse this kernel and the functions it calls (default:
                    every kernel; functions called by several are joined)
  --block X[,Y,Z]   the launch's block shape (default: .reqntid, a
                    one-dimensional .maxntid, or any shape)
  --format F        text (annotated listing, default), json, or dot (the CFG
                    for Graphviz, blocks and branches coloured by uniformity)
Exit status 1 when a barrier check reports an error.
)";

namespace {

int usage(const std::string &message) {
  std::fprintf(stderr, "ptxvm analyze: %s\n(run 'ptxvm analyze --help' for usage)\n", message.c_str());
  return kUsage;
}

bool parseBlock(const std::string &text, uint32_t out[3], std::string &error) {
  out[0] = out[1] = out[2] = 1;
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    size_t comma = text.find(',', at);
    std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v == 0) {
      error = "--block expects X[,Y,Z] with positive integers, got '" + text + "'";
      return false;
    }
    out[i] = v;
    if (comma == std::string::npos) break;
    at = comma + 1;
    if (i == 2) {
      error = "--block takes at most three dimensions, got '" + text + "'";
      return false;
    }
  }
  if (uint64_t{out[0]} * out[1] * out[2] > 1024) {
    error = "--block " + text + " has more than 1024 threads, the most a CTA can have";
    return false;
  }
  return true;
}

std::string quote(std::string_view s) { return "\"" + ptx::jsonEscape(s) + "\""; }

std::string flatInstruction(const ptx::Module &m, const ptx::Function &fn, const ptx::Instruction &in) {
  std::string out;
  for (char c : ptx::writeInstruction(m, fn, in))
    if (c != '\t') out += c;
  return out;
}

/// The form worth showing: constants and thread-id forms.
bool informative(const analysis::Affine &a) {
  return a.known() && !(a.threadInvariant() && !a.coef(0).isConst());
}

struct Analysed {
  const analysis::FunctionDivergence *divergence;
  const analysis::BarrierReport *barriers;
};

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

std::string renderJson(const ptx::Module &m, const std::vector<Analysed> &fns) {
  using analysis::uniformityName;
  std::string out = "{\"file\":" + quote(m.fileName) + ",\"functions\":[";
  for (size_t f = 0; f < fns.size(); ++f) {
    const analysis::FunctionDivergence &fd = *fns[f].divergence;
    const ptx::Function &fn = fd.function();
    const analysis::SSA &ssa = fd.gated().ssa();
    const analysis::DefUse &du = ssa.defUse();
    const analysis::Cfg &cfg = fd.gated().cfg();
    if (f) out += ',';
    out += "\n{\"name\":" + quote(m.str(fn.name)) + ",\"kernel\":" + (fn.isKernel ? "true" : "false") +
           ",\"block\":" + quote(fd.shape().str()) + ",\"instructions\":[";
    for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
      const ptx::Instruction &in = fn.instrs[i];
      if (i) out += ',';
      out += "\n {\"index\":" + std::to_string(i) + ",\"ptx_line\":" + std::to_string(in.loc.line);
      if (in.debugLoc) {
        const ptx::DebugLoc &dl = fn.debugLocs[in.debugLoc];
        std::string file;
        for (const ptx::FileEntry &e : m.files)
          if (e.index == dl.file) file = e.path;
        out += ",\"source\":{\"file\":" + quote(file) + ",\"line\":" + std::to_string(dl.line) + "}";
      }
      out += ",\"opcode\":" + quote(ptx::instructionName(m, in)) + ",\"defs\":[";
      auto defs = du.defs(i);
      bool first = true;
      for (uint32_t k = 0; k < defs.size(); ++k) {
        if (defs[k].registerIndex == analysis::Def::kNotRegister) continue;
        const analysis::Affine &form = fd.valueForm(ssa.defValues(i)[k]);
        out += std::string(first ? "" : ",") + "{\"reg\":" + quote(du.varName(defs[k].var)) +
               ",\"uniformity\":" + quote(uniformityName(fd.def(i, k))) +
               ",\"affine\":" + (informative(form) ? quote(form.str()) : std::string("null")) + "}";
        first = false;
      }
      out += "]";
      uint32_t b = cfg.blockOf(i);
      uint32_t br = fd.gated().branchOfBlock(b);
      if (br != analysis::kNone && fd.gated().branches()[br].instr == i)
        out += ",\"branch\":{\"uniformity\":" + quote(uniformityName(fd.branchLevel(br))) + "}";
      out += "}";
    }
    out += "],\"barriers\":[";
    const analysis::BarrierReport &br = *fns[f].barriers;
    for (size_t k = 0; k < br.ops.size(); ++k) {
      const analysis::BarrierOp &op = br.ops[k];
      out += std::string(k ? "," : "") + "\n {\"ptx_line\":" + std::to_string(fn.instrs[op.instr].loc.line) +
             ",\"opcode\":" + quote(ptx::instructionName(m, fn.instrs[op.instr])) +
             ",\"operation\":" + quote(analysis::barrierOpName(op.kind)) +
             ",\"aligned\":" + (op.aligned ? "true" : "false") +
             ",\"id\":" + (op.id ? std::to_string(*op.id) : std::string("null")) +
             ",\"count\":" + (op.count ? std::to_string(*op.count) : std::string("null")) +
             ",\"role\":" + quote(op.role) + "}";
    }
    out += "],\"roles\":[";
    bool firstRole = true;
    for (const auto &[id, roles] : br.roles)
      for (const analysis::BarrierRole &r : roles) {
        auto lines = [&](const std::vector<uint32_t> &instrs) {
          std::string s = "[";
          for (size_t k = 0; k < instrs.size(); ++k)
            s += (k ? "," : "") + std::to_string(fn.instrs[instrs[k]].loc.line);
          return s + "]";
        };
        out += std::string(firstRole ? "" : ",") + "\n {\"barrier\":" + std::to_string(id) +
               ",\"role\":" + quote(r.role) + ",\"arrive\":" + lines(r.arrives) +
               ",\"wait\":" + lines(r.waits) + "}";
        firstRole = false;
      }
    out += "],\"diagnostics\":[";
    for (size_t k = 0; k < br.diagnostics.size(); ++k) out += (k ? "," : "") + br.diagnostics[k].renderJson();
    out += "]}";
  }
  out += "\n]}\n";
  return out;
}

// ---- dot -------------------------------------------------------------------------------

const char *colour(analysis::Uniformity u) {
  switch (u) {
  case analysis::Uniformity::CtaUniform: return "forestgreen";
  case analysis::Uniformity::WarpUniform: return "darkorange";
  case analysis::Uniformity::Divergent: return "red";
  }
  return "black";
}

std::string dotEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string renderDot(const ptx::Module &m, const std::vector<Analysed> &fns) {
  std::string out = "digraph ptxvm {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (size_t f = 0; f < fns.size(); ++f) {
    const analysis::FunctionDivergence &fd = *fns[f].divergence;
    const analysis::GatedSSA &g = fd.gated();
    const analysis::Cfg &cfg = g.cfg();
    const ptx::Function &fn = fd.function();
    std::string prefix = "f" + std::to_string(f) + "_";
    out += "  subgraph cluster_" + std::to_string(f) + " {\n    label=\"" + dotEscape(m.str(fn.name)) +
           " (block " + fd.shape().str() + ")\";\n";
    for (uint32_t b = 0; b < cfg.size(); ++b) {
      std::string label = cfg.blockName(b, &m);
      if (b < cfg.numBlocks()) {
        const ptx::BasicBlock &block = fn.blocks[b];
        for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i)
          label += "\\l" + dotEscape(flatInstruction(m, fn, fn.instrs[i]));
        label += "\\l";
      }
      // Blocks that part of a warp may run are red, the others green.
      const char *fill = b < cfg.numBlocks() && fd.partialWarp(b) ? "mistyrose" : "honeydew";
      out += "    " + prefix + std::to_string(b) + " [label=\"" + label +
             "\", style=filled, fillcolor=" + fill + (cfg.reachable(b) ? "" : ", color=gray") + "];\n";
    }
    for (uint32_t b = 0; b < cfg.size(); ++b) {
      uint32_t br = g.branchOfBlock(b);
      for (uint32_t s : cfg.succs(b)) {
        out += "    " + prefix + std::to_string(b) + " -> " + prefix + std::to_string(s);
        if (cfg.isFakeEdge(b, s))
          out += " [style=dotted]";
        else if (br != analysis::kNone)
          out += std::string(" [color=") + colour(fd.branchLevel(br)) + ", label=\"" +
                 std::string(analysis::uniformityName(fd.branchLevel(br))) + "\"]";
        out += ";\n";
      }
    }
    out += "  }\n";
  }
  return out + "}\n";
}

} // namespace

int runAnalyzeCommand(const std::vector<std::string> &args) {
  InputOptions in;
  std::string kernelName, format = "text", error;
  analysis::LaunchOptions launch;
  bool haveBlock = false;
  for (size_t i = 0; i < args.size(); ++i) {
    bool consumed = false;
    if (!parseCommonOption(args[i], in, error, consumed)) return usage(error);
    if (consumed) continue;
    std::string arg = args[i], value;
    size_t eq = arg.find('=');
    bool takesValue = arg == "--kernel" || arg == "--block" || arg == "--format" ||
                      arg.starts_with("--kernel=") || arg.starts_with("--block=") ||
                      arg.starts_with("--format=");
    if (takesValue) {
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return usage(arg + " needs a value");
      }
    }
    if (arg == "--kernel") {
      kernelName = value;
    } else if (arg == "--block") {
      if (!parseBlock(value, launch.block, error)) return usage(error);
      haveBlock = true;
    } else if (arg == "--format") {
      if (value != "text" && value != "json" && value != "dot")
        return usage("unknown format '" + value + "' (expected text, json or dot)");
      format = value;
    } else if (arg.starts_with("-") && arg != "-") {
      return usage("unknown option '" + arg + "'");
    } else if (in.file.empty()) {
      in.file = arg;
    } else {
      return usage("more than one input file");
    }
  }
  if (in.file.empty()) return usage("no input file");

  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (!m || diags.hasErrors()) {
    printDiagnostics(diags, in.json);
    return kDiagnostics;
  }
  std::vector<const ptx::Function *> roots;
  if (!kernelName.empty()) {
    const ptx::Function *k = m->findFunction(kernelName);
    if (!k || !k->isKernel || !k->hasBody) return usage("no kernel '" + kernelName + "' in " + in.file);
    roots.push_back(k);
  }
  analysis::AnalysisManager am(*m, launch);
  analysis::DivergenceOptions options;
  if (haveBlock)
    options.block = analysis::LaunchShape::exact(launch.block[0], launch.block[1], launch.block[2]);
  analysis::DivergenceResult result = analysis::analyzeDivergence(am, roots, options);
  std::vector<analysis::BarrierReport> reports = analysis::checkBarriers(*m, result);

  // Functions in module order.
  std::vector<Analysed> fns;
  for (const ptx::Function &fn : m->functions) {
    const analysis::FunctionDivergence *fd = result.find(fn);
    if (!fd) continue;
    for (const analysis::BarrierReport &r : reports)
      if (r.function == &fn) fns.push_back({fd, &r});
  }
  std::string text = format == "json"  ? renderJson(*m, fns)
                     : format == "dot" ? renderDot(*m, fns)
                                       : renderText(*m, fns);
  std::fwrite(text.data(), 1, text.size(), stdout);
  bool errors = false;
  for (const analysis::BarrierReport &r : reports)
    for (const ptx::Diagnostic &d : r.diagnostics) errors |= d.severity == ptx::Severity::Error;
  if (!diags.all().empty() && format != "json") printDiagnostics(diags, in.json); // parse warnings
  return errors ? kDiagnostics : kOk;
}

} // namespace ptxvm
