#include "tools/CfgGraph.h"

#include "ptx/Writer.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <cerrno>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace ptxvm {
namespace {

using analysis::Uniformity;

/// A block's fill and its branch edges' colour, by the uniformity of its branch (indexed by
/// Uniformity: CtaUniform, WarpUniform, Divergent).
struct Colours {
  const char *fill, *edge;
};
constexpr Colours kColours[] = {{"#d3efd3", "forestgreen"}, {"#fde3b5", "darkorange"}, {"#f8c9c9", "red"}};
const char *fillColour(Uniformity u) { return kColours[static_cast<unsigned>(u)].fill; }
const char *edgeColour(Uniformity u) { return kColours[static_cast<unsigned>(u)].edge; }

/// A DOT string's contents ("..." quoted); newlines become \n.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + '"';
}

std::string instructionText(const ptx::Module &m, const ptx::Function &fn, const ptx::Instruction &in) {
  std::string out;
  for (char c : ptx::writeInstruction(m, fn, in))
    if (c != '\t') out += c;
  return out;
}

std::string barrierText(const analysis::BarrierOp &op) {
  return "barrier " + (op.id ? std::to_string(*op.id) : std::string("?")) + ": " +
         std::string(analysis::barrierOpName(op.kind)) + ", " +
         (op.count      ? std::to_string(*op.count) + " threads"
          : op.hasCount ? "? threads"
                        : "all threads");
}

std::string functionTitle(const ptx::Module &m, const analysis::FunctionDivergence &fd) {
  const ptx::Function &fn = fd.function();
  return std::string(fn.isKernel ? "kernel " : "function ") + std::string(m.str(fn.name)) + " (" +
         fd.launch() + ")";
}

/// The blocks and edges of one function, node names starting with `prefix`.
std::string functionGraph(const ptx::Module &m, const AnalysedFunction &a, const std::string &prefix,
                          const std::string &indent) {
  const analysis::FunctionDivergence &fd = *a.divergence;
  const analysis::GatedSSA &g = fd.gated();
  const analysis::Cfg &cfg = g.cfg();
  const analysis::SSA &ssa = g.ssa();
  const ptx::Function &fn = fd.function();
  std::unordered_map<uint32_t, const analysis::BarrierOp *> barrierAt;
  for (const analysis::BarrierOp &op : a.barriers->ops) barrierAt[op.instr] = &op;
  // The barrier checks' findings, by PTX line: severity and kind in the block (short, so that
  // blocks keep their width), the whole message on hover.
  struct Findings {
    std::string brief, full;
    bool error = false;
  };
  std::unordered_map<uint32_t, Findings> findingsAt;
  for (const ptx::Diagnostic &d : a.barriers->diagnostics) {
    Findings &f = findingsAt[d.loc.line];
    const std::string severity(ptx::severityName(d.severity)), kind(ptx::kindName(d.kind));
    f.brief += (f.brief.empty() ? "" : ", ") + severity + ": " + kind;
    f.full += "\n" + severity + ": " + d.message + " [" + kind + "]";
    f.error |= d.severity == ptx::Severity::Error;
  }
  // The reconvergence points of the branches that may split a warp.
  std::vector<std::vector<uint32_t>> reconverging(cfg.size());
  for (uint32_t br = 0; br < g.branches().size(); ++br)
    if (fd.branchLevel(br) == Uniformity::Divergent && g.branches()[br].floor < cfg.size())
      reconverging[g.branches()[br].floor].push_back(br);

  std::string out;
  for (uint32_t b = 0; b < cfg.size(); ++b) {
    const bool real = b < cfg.numBlocks();
    const uint32_t br = g.branchOfBlock(b);
    std::string rows = "<tr><td align=\"left\"><b>" + escapeHtml(cfg.blockName(b, &m)) + "</b></td></tr>";
    std::string tooltip = cfg.blockName(b, &m);
    for (uint32_t p : ssa.phisOf(b)) {
      const std::string gate = g.describePhi(p);
      rows += "<tr><td align=\"left\"><font color=\"#3b4fa0\" point-size=\"9\">" + escapeHtml(gate) +
              "</font></td></tr>";
      tooltip += "\n" + gate;
    }
    if (real) {
      const ptx::BasicBlock &block = fn.blocks[b];
      for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
        const std::string text = escapeHtml(instructionText(m, fn, fn.instrs[i]));
        auto op = barrierAt.find(i);
        auto finding = findingsAt.find(fn.instrs[i].loc.line);
        if (op == barrierAt.end() && finding == findingsAt.end()) {
          rows += "<tr><td align=\"left\">" + text + "</td></tr>";
          continue;
        }
        // Barriers in yellow, the checks' findings in red (errors) or orange (warnings).
        const char *background = "#ffe14d";
        std::string note = op != barrierAt.end() ? "  [" + escapeHtml(barrierText(*op->second)) + "]" : "";
        if (finding != findingsAt.end()) {
          background = finding->second.error ? "#ff8080" : "#ffb366";
          note += "  " + escapeHtml(finding->second.brief);
          tooltip += finding->second.full;
        }
        rows += std::string("<tr><td align=\"left\" bgcolor=\"") + background + "\"><b>" + text + "</b>" +
                note + "</td></tr>";
      }
    }
    for (uint32_t from : reconverging[b]) {
      rows +=
          "<tr><td align=\"left\"><i>reconvergence of " + escapeHtml(g.branchName(from)) + "</i></td></tr>";
      tooltip += "\nreconvergence point of the divergent branch " + g.branchName(from);
    }
    if (br != analysis::kNone) {
      tooltip += "\nbranch: " + std::string(analysis::uniformityName(fd.branchLevel(br)));
      if (fd.branchLevel(br) == Uniformity::Divergent)
        tooltip += ", reconverges at " + cfg.blockName(g.branches()[br].floor);
    }
    const bool partial = real && fd.partialWarp(b);
    if (partial) tooltip += "\nrun by part of a warp";
    out += indent + prefix + std::to_string(b) + " [id=" + quoted(prefix + std::to_string(b)) +
           ", label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"1\">" + rows +
           "</table>>, style=\"filled" + (partial ? ",dashed" : "") +
           "\", fillcolor=" + quoted(br != analysis::kNone ? fillColour(fd.branchLevel(br)) : "white") +
           (partial ? ", color=red, penwidth=1.5" : "") + (reconverging[b].empty() ? "" : ", peripheries=2") +
           (cfg.reachable(b) ? "" : ", fontcolor=gray50, color=gray") + ", tooltip=" + quoted(tooltip) +
           "];\n";
  }
  for (uint32_t b = 0; b < cfg.size(); ++b) {
    const uint32_t br = g.branchOfBlock(b);
    for (uint32_t s : cfg.succs(b)) {
      out += indent + prefix + std::to_string(b) + " -> " + prefix + std::to_string(s);
      if (cfg.isFakeEdge(b, s))
        out += " [style=dotted]";
      else if (br != analysis::kNone)
        out += std::string(" [color=") + edgeColour(fd.branchLevel(br)) +
               ", fontcolor=" + edgeColour(fd.branchLevel(br)) +
               ", label=" + quoted(analysis::uniformityName(fd.branchLevel(br))) + "]";
      out += ";\n";
    }
  }
  for (uint32_t br = 0; br < g.branches().size(); ++br) {
    const analysis::Branch &branch = g.branches()[br];
    if (fd.branchLevel(br) != Uniformity::Divergent || branch.floor >= cfg.size()) continue;
    out += indent + prefix + std::to_string(branch.block) + " -> " + prefix + std::to_string(branch.floor) +
           " [style=dashed, color=gray40, fontcolor=gray40, arrowhead=empty, constraint=false, "
           "label=\"reconverge\", fontsize=8];\n";
  }
  return out;
}

const char *kGraphHeader = "  graph [fontname=\"sans-serif\", fontsize=11];\n"
                           "  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
                           "  edge [fontname=\"sans-serif\", fontsize=9];\n";

std::string legend() {
  std::string out =
      "  subgraph cluster_legend {\n    label=\"legend\";\n    node [fontname=\"sans-serif\"];\n";
  out += std::string("    legend_d [label=\"divergent branch\", style=filled, fillcolor=\"") +
         fillColour(Uniformity::Divergent) + "\"];\n";
  out += std::string("    legend_w [label=\"warp-uniform branch\", style=filled, fillcolor=\"") +
         fillColour(Uniformity::WarpUniform) + "\"];\n";
  out += std::string("    legend_c [label=\"CTA-uniform branch\", style=filled, fillcolor=\"") +
         fillColour(Uniformity::CtaUniform) + "\"];\n";
  out += "    legend_p [label=\"run by part of a warp\", style=\"filled,dashed\", fillcolor=white, "
         "color=red];\n";
  out += "    legend_r [label=\"reconvergence point\", peripheries=2];\n";
  out +=
      "    legend_b [label=<<table border=\"0\"><tr><td bgcolor=\"#ffe14d\"><b>barrier</b></td></tr><tr><td "
      "bgcolor=\"#ffb366\">warning</td></tr><tr><td bgcolor=\"#ff8080\">error</td></tr></table>>];\n";
  out += "    legend_d -> legend_w -> legend_c -> legend_p -> legend_r -> legend_b [style=invis];\n  }\n";
  return out;
}

std::string singleFunctionDot(const ptx::Module &m, const AnalysedFunction &a) {
  return "digraph ptxvm {\n" + std::string(kGraphHeader) +
         "  label=" + quoted(functionTitle(m, *a.divergence)) + ";\n  labelloc=t;\n" +
         functionGraph(m, a, "b", "  ") + "}\n";
}

/// A temporary file holding `text` (empty path when it cannot be written).
std::string temporaryFile(const std::string &text) {
  const char *dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/ptxvm-dot-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0) return "";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) {
    std::remove(path.c_str());
    return "";
  }
  return path;
}

} // namespace

std::string escapeHtml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string renderCfgDot(const ptx::Module &m, std::span<const AnalysedFunction> fns) {
  std::string out = "digraph ptxvm {\n" + std::string(kGraphHeader) + legend();
  for (size_t f = 0; f < fns.size(); ++f) {
    out += "  subgraph cluster_" + std::to_string(f) +
           " {\n    label=" + quoted(functionTitle(m, *fns[f].divergence)) + ";\n";
    out += functionGraph(m, fns[f], "f" + std::to_string(f) + "_", "    ");
    out += "  }\n";
  }
  return out + "}\n";
}

bool layOutSvg(const std::string &dot, std::string &svg, std::string &error) {
  const std::string input = temporaryFile(dot), output = temporaryFile("");
  if (input.empty() || output.empty()) {
    error = "cannot write a temporary file";
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_TRUNC, 0);
  char *argv[] = {const_cast<char *>("dot"), const_cast<char *>("-Tsvg"), nullptr};
  pid_t child = 0;
  int status = 0;
  const int spawned = posix_spawnp(&child, "dot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == 0)
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  std::ifstream in(output, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(input.c_str());
  std::remove(output.c_str());
  if (spawned != 0) {
    error = "Graphviz's dot was not found (install the graphviz package)";
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = "Graphviz's dot failed";
    return false;
  }
  svg = text.str();
  return true;
}

constexpr size_t kMaxBlocksLaidOut = 2000;

std::string cfgAnchor(std::string_view function) { return "fn-" + escapeHtml(function); }

namespace {
std::string functionAnchor(const ptx::Module &m, const analysis::FunctionDivergence &fd) {
  return cfgAnchor(m.str(fd.function().name));
}
} // namespace

std::string renderCfgHtml(const ptx::Module &m, std::span<const AnalysedFunction> fns, std::string &error) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvm analyze: " +
      escapeHtml(m.fileName) +
      "</title>\n<style>\n"
      "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
      "pre,code{font-family:monospace;font-size:90%}\n"
      ".cfg svg{max-width:100%;height:auto}\n"
      "table.branches{border-collapse:collapse}\n"
      "table.branches td,table.branches th{border:1px solid #bbb;padding:2px 8px;text-align:left}\n"
      ".key{display:inline-block;padding:1px 8px;margin-right:6px;border:1px solid #888}\n"
      ".divergent{background:#f8c9c9}.warp-uniform{background:#fde3b5}.cta-uniform{background:#d3efd3}\n"
      ".barrier{background:#ffe14d}\n"
      "</style>\n</head>\n<body>\n<h1>ptxvm analyze: " +
      escapeHtml(m.fileName) + "</h1>\n<p>Blocks are coloured by the uniformity of their branch: " +
      "<span class=\"key divergent\">divergent</span><span class=\"key warp-uniform\">warp-uniform</span>"
      "<span class=\"key cta-uniform\">CTA-uniform</span>; a dashed red border marks blocks that part of a "
      "warp may run, a double border the reconvergence point of a divergent branch (a dashed edge leads "
      "there from the branch), <span class=\"key barrier\">barriers</span> show their id and thread count, "
      "and each block lists its gated SSA gates (also on hover).</p>\n";
  out += "<ul>\n";
  for (size_t f = 0; f < fns.size(); ++f)
    out += "<li><a href=\"#" + functionAnchor(m, *fns[f].divergence) + "\">" +
           escapeHtml(functionTitle(m, *fns[f].divergence)) + "</a></li>\n";
  out += "</ul>\n";
  // The sections; after Graphviz's first failure the rest are given as DOT text too.
  std::string sections;
  for (size_t f = 0; f < fns.size(); ++f) {
    std::string &out = sections;
    const AnalysedFunction &a = fns[f];
    const analysis::FunctionDivergence &fd = *a.divergence;
    const analysis::GatedSSA &g = fd.gated();
    const ptx::Function &fn = fd.function();
    out +=
        "<section id=\"" + functionAnchor(m, fd) + "\">\n<h2>" + escapeHtml(functionTitle(m, fd)) + "</h2>\n";
    const std::string dot = singleFunctionDot(m, a);
    std::string svg;
    out += "<details open>\n<summary>control-flow graph</summary>\n<div class=\"cfg\">\n";
    // Graphviz takes seconds for a thousand blocks and grows faster than the graph: past the
    // limit the page keeps the DOT text rather than take minutes.
    const bool tooLarge = g.cfg().size() > kMaxBlocksLaidOut;
    if (tooLarge)
      out += "<p>" + std::to_string(g.cfg().size()) + " blocks: more than the " +
             std::to_string(kMaxBlocksLaidOut) +
             " this page lays out; the graph in DOT (<code>dot -Tsvg</code> draws it):</p>\n";
    if (!tooLarge && error.empty() && layOutSvg(dot, svg, error)) {
      size_t start = svg.find("<svg");
      out += svg.substr(start == std::string::npos ? 0 : start);
    } else {
      out += "<pre>" + escapeHtml(dot) + "</pre>\n";
    }
    out += "</div>\n</details>\n";
    out += "<h3>Branches</h3>\n";
    if (g.branches().empty()) {
      out += "<p>none</p>\n";
    } else {
      out +=
          "<table class=\"branches\">\n<tr><th>PTX line</th><th>block</th><th>uniformity</th><th>reconverges "
          "at</th></tr>\n";
      for (uint32_t br = 0; br < g.branches().size(); ++br) {
        const std::string level(analysis::uniformityName(fd.branchLevel(br)));
        const analysis::Branch &branch = g.branches()[br];
        out += "<tr class=\"" + level + "\"><td>" + std::to_string(fn.instrs[branch.instr].loc.line) +
               "</td><td>" + escapeHtml(g.cfg().blockName(branch.block, &m)) + "</td><td>" + level +
               "</td><td>" +
               (branch.floor < g.cfg().size() ? escapeHtml(g.cfg().blockName(branch.floor, &m))
                                              : std::string("exit")) +
               "</td></tr>\n";
      }
      out += "</table>\n";
    }
    const std::string barriers = a.barriers->print();
    if (!barriers.empty()) out += "<h3>Barriers</h3>\n<pre>" + escapeHtml(barriers) + "</pre>\n";
    out += "</section>\n";
  }
  if (!error.empty()) out += "<p><b>" + escapeHtml(error) + "</b>: the graphs are given as DOT text.</p>\n";
  return out + sections + "</body>\n</html>\n";
}

} // namespace ptxvm
