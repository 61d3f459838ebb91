#include "tools/HtmlReport.h"

#include "tools/Analyze.h"
#include "tools/CfgGraph.h"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace ptxvm {

namespace {

namespace json = boost::json;

// Sections that a long run would make unreadable stop here (the JSON report keeps everything).
constexpr size_t kMaxDiagnosticsShown = 200;
constexpr size_t kMaxLaunchRowsShown = 500;
constexpr uint32_t kContextLines = 3;

std::string text(const json::value *v) {
  if (!v) return "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_null()) return "";
  return json::serialize(*v);
}

std::string field(const json::object &o, std::string_view key) { return text(o.if_contains(key)); }

uint64_t number(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  if (!v) return 0;
  if (v->is_uint64()) return v->as_uint64();
  if (v->is_int64()) return v->as_int64() < 0 ? 0 : static_cast<uint64_t>(v->as_int64());
  if (v->is_double()) return static_cast<uint64_t>(v->as_double());
  return 0;
}

double real(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_number() ? v->to_number<double>() : 0.0;
}

const json::object *object(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

const json::array *array(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

std::string dim(const json::object &o, std::string_view key) {
  const json::array *a = array(o, key);
  if (!a) return field(o, key);
  std::string out;
  for (const json::value &v : *a) out += (out.empty() ? "" : ",") + text(&v);
  return out;
}

std::string link(const std::string &href, const std::string &label) {
  return "<a href=\"" + escapeHtml(href) + "\">" + escapeHtml(label) + "</a>";
}

const ReportModule *moduleOf(const std::vector<ReportModule> &modules, const std::string &file) {
  for (const ReportModule &m : modules)
    if (m.path == file) return &m;
  return nullptr;
}

/// Files split into lines once, when a diagnostic first shows one of them: the modules' PTX
/// (already in memory) and CUDA sources the PTX's .loc names (read then).
class SourceFiles {
public:
  explicit SourceFiles(const std::vector<ReportModule> &modules) : modules_(modules) {}
  /// The file's lines, or null when it cannot be read.
  const std::vector<std::string> *lines(const std::string &path) {
    auto [it, added] = files_.try_emplace(path);
    if (added) {
      const ReportModule *m = moduleOf(modules_, path);
      std::optional<std::string> read = m ? std::nullopt : readTextFile(path);
      if (m || read) it->second = split(m ? m->text : *read);
    }
    return it->second ? &*it->second : nullptr;
  }

private:
  static std::vector<std::string> split(const std::string &contents) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < contents.size()) {
      size_t end = contents.find('\n', at);
      if (end == std::string::npos) end = contents.size();
      out.push_back(contents.substr(at, end - at));
      at = end + 1;
    }
    return out;
  }
  const std::vector<ReportModule> &modules_;
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

/// Lines around `line` (1-based) of `lines`, the line itself marked.
std::string excerpt(const std::vector<std::string> &lines, uint64_t line, const std::string &caption) {
  if (line == 0 || line > lines.size()) return "";
  uint64_t first = line > kContextLines ? line - kContextLines : 1;
  uint64_t last = std::min<uint64_t>(lines.size(), line + kContextLines);
  std::string out = "<figure class=\"source\"><figcaption>" + caption + "</figcaption><pre>";
  for (uint64_t l = first; l <= last; ++l) {
    std::string row = fmt::format("{:>6} {}", l, lines[l - 1]);
    out += l == line ? "<mark>" + escapeHtml(row) + "</mark>\n" : escapeHtml(row) + "\n";
  }
  return out + "</pre></figure>\n";
}

std::string waitForSection(const json::object &fields) {
  std::vector<WaitForRow> rows;
  for (const auto &[key, value] : fields) {
    std::string_view k = key;
    if (k.size() > 4 && k.starts_with("warp") && std::all_of(k.begin() + 4, k.end(), ::isdigit))
      if (std::optional<WaitForRow> row = parseWaitForRow(text(&value))) rows.push_back(*row);
  }
  if (rows.empty()) return "";
  std::string out = "<div class=\"waitfor\"><h4>Wait-for graph</h4>\n";
  std::string svg, error;
  if (layOutSvg(waitForDot(rows), svg, error)) {
    size_t start = svg.find("<svg");
    out += svg.substr(start == std::string::npos ? 0 : start);
  } else {
    out +=
        "<p>" + escapeHtml(error) + "; the graph in DOT:</p><pre>" + escapeHtml(waitForDot(rows)) + "</pre>";
  }
  out +=
      "<table class=\"grid\"><tr><th>warp</th><th>lanes</th><th>state</th><th>barrier</th><th>generation</th>"
      "<th>arrived / expected</th><th>PTX line</th></tr>\n";
  for (const WaitForRow &r : rows) {
    const bool waiting = r.state == WaitForRow::State::Waiting;
    const char *state = waiting                                        ? "waiting"
                        : r.state == WaitForRow::State::ClusterWaiting ? "waiting (cluster)"
                        : r.state == WaitForRow::State::Exited         ? "exited"
                        : r.state == WaitForRow::State::Running        ? "running"
                                                                       : "?";
    out += fmt::format(
        "<tr "
        "class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        r.state == WaitForRow::State::Exited ? "exited" : "", r.warp, escapeHtml(r.lanes), state,
        waiting ? std::to_string(r.barrier) : "", waiting ? std::to_string(r.generation) : "",
        waiting ? fmt::format("{} / {}", r.arrived, r.expected) : "", r.line ? std::to_string(r.line) : "");
  }
  return out + "</table></div>\n";
}

std::string diagnosticSection(const json::object &d, size_t index, const std::vector<ReportModule> &modules,
                              SourceFiles &sources) {
  const std::string kind = field(d, "kind"), severity = field(d, "severity");
  const json::object empty;
  const json::object *loc = object(d, "location");
  if (!loc) loc = &empty;
  const json::object *fields = object(d, "fields");
  const std::string file = field(*loc, "file"), function = field(*loc, "function");
  const uint64_t line = number(*loc, "line");
  std::string where;
  if (!function.empty()) where += "in " + function;
  if (fields && fields->contains("cta")) where += ", CTA (" + field(*fields, "cta") + ")";
  if (fields && fields->contains("warp")) where += ", warp " + field(*fields, "warp");
  if (line) where += fmt::format(", PTX line {}", line);
  const json::object *source = object(*loc, "source");
  // "FILE:LINE" of the call the CUDA line was inlined into (ptx/SourceLocation.h).
  const std::string inlinedAt = fields && source ? field(*fields, "inlined_at") : "";
  json::object inlined;
  if (size_t colon = inlinedAt.rfind(':'); colon != std::string::npos) {
    inlined["file"] = inlinedAt.substr(0, colon);
    inlined["line"] = std::strtoull(inlinedAt.c_str() + colon + 1, nullptr, 10);
  }
  if (source) where += fmt::format(", {}:{}", field(*source, "file"), number(*source, "line"));
  if (!inlined.empty()) where += " (inlined at " + inlinedAt + ")";
  if (where.starts_with(", ")) where.erase(0, 2);

  std::string out =
      fmt::format("<details class=\"diagnostic {}\" id=\"d{}\"{}>\n<summary><span class=\"sev\">{}</span> "
                  "<b>{}</b> {}</summary>\n",
                  escapeHtml(severity), index, index < 50 ? " open" : "", escapeHtml(severity),
                  escapeHtml(kind), escapeHtml(where));
  out += "<pre class=\"message\">" + escapeHtml(field(d, "message")) + "</pre>\n";
  if (line) {
    if (const ReportModule *m = moduleOf(modules, file)) {
      std::string caption = "PTX " + (m->ptxLink.empty() ? escapeHtml(file) : link(m->ptxLink, file)) +
                            fmt::format(", line {}", line);
      if (!m->cfgLink.empty() && !function.empty())
        caption += " &middot; <a class=\"cfg-link\" href=\"" + escapeHtml(m->cfgLink) + "#" +
                   cfgAnchor(function) + "\">CFG of " + escapeHtml(function) + "</a>";
      if (const std::vector<std::string> *lines = sources.lines(file)) out += excerpt(*lines, line, caption);
    } else if (const std::vector<std::string> *lines = sources.lines(file)) {
      out += excerpt(*lines, line, "PTX " + escapeHtml(file) + fmt::format(", line {}", line));
    }
  }
  // The CUDA line, and the call it was inlined into (where the user's own code asked for it).
  auto cuda = [&](const json::object &at, const std::string &what) {
    const std::string cudaFile = field(at, "file");
    const uint64_t cudaLine = number(at, "line");
    if (const std::vector<std::string> *lines = sources.lines(cudaFile))
      out += excerpt(*lines, cudaLine,
                     "CUDA " + escapeHtml(cudaFile) + fmt::format(", line {}", cudaLine) + what);
    else
      out += "<p class=\"missing\">CUDA source " + escapeHtml(cudaFile) + fmt::format(":{}", cudaLine) +
             " (the file is not readable from here)</p>\n";
  };
  if (source) cuda(*source, "");
  if (!inlined.empty()) cuda(inlined, fmt::format(" (line {} was inlined here)", number(*source, "line")));
  if (kind == "barrier-deadlock" && fields) out += waitForSection(*fields);
  if (fields && !fields->empty()) {
    out += "<details class=\"fields\"><summary>fields</summary><table class=\"grid\">\n";
    for (const auto &[key, value] : *fields)
      out += "<tr><th>" + escapeHtml(key) + "</th><td>" + escapeHtml(text(&value)) + "</td></tr>\n";
    out += "</table></details>\n";
  }
  return out + "</details>\n";
}

std::string launchesSection(const json::array &launches) {
  if (launches.empty()) return "<p>No kernel was launched.</p>\n";
  // Per kernel first: a program of a thousand launches stays readable.
  struct Totals {
    uint64_t launches = 0, failed = 0, warp = 0, thread = 0, divergent = 0;
    double seconds = 0;
  };
  std::vector<std::pair<std::string, Totals>> kernels;
  for (const json::value &v : launches) {
    if (!v.is_object()) continue;
    const json::object &l = v.as_object();
    const std::string name = field(l, "kernel");
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const auto &k) { return k.first == name; });
    if (it == kernels.end()) it = kernels.insert(kernels.end(), {name, {}});
    Totals &t = it->second;
    ++t.launches;
    t.failed += field(l, "error").empty() ? 0 : 1;
    t.warp += number(l, "warp_instructions");
    t.thread += number(l, "thread_instructions");
    t.divergent += number(l, "divergent_branches");
    t.seconds += real(l, "wall_seconds");
  }
  auto simd = [](uint64_t thread, uint64_t warp) {
    return warp ? fmt::format("{:.1f}%", 100.0 * double(thread) / (32.0 * double(warp))) : std::string("-");
  };
  std::string out = "<table class=\"grid\" id=\"kernels\"><tr><th>kernel</th><th>launches</th><th>failed</th>"
                    "<th>warp instructions</th><th>thread instructions</th><th>SIMD efficiency</th>"
                    "<th>divergent branches</th><th>time</th></tr>\n";
  for (const auto &[name, t] : kernels)
    out += fmt::format("<tr{}><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                       "<td>{}</td><td>{:.6f} s</td></tr>\n",
                       t.failed ? " class=\"failed\"" : "", escapeHtml(name), t.launches, t.failed, t.warp,
                       t.thread, simd(t.thread, t.warp), t.divergent, t.seconds);
  out += "</table>\n<details id=\"launch-list\"" + std::string(launches.size() <= 20 ? " open" : "") +
         "><summary>every launch</summary>\n<table class=\"grid\"><tr><th>#</th><th>kernel</th><th>grid</th>"
         "<th>block</th><th>status</th><th>error</th><th>warp instructions</th><th>SIMD efficiency</th>"
         "<th>device</th><th>engine</th><th>time</th></tr>\n";
  for (size_t i = 0; i < launches.size() && i < kMaxLaunchRowsShown; ++i) {
    if (!launches[i].is_object()) continue;
    const json::object &l = launches[i].as_object();
    const json::object *engine = object(l, "engine");
    std::string engineText = engine ? field(*engine, "name") : "";
    if (engine && engine->contains("cache")) engineText += " (cache " + field(*engine, "cache") + ")";
    if (engine && engine->contains("note")) engineText += ": " + field(*engine, "note");
    const std::string error = field(l, "error");
    out += fmt::format(
        "<tr{}><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
        "</td><td>{}</td><td>{}</td><td>{}</td><td>{:.6f} s</td></tr>\n",
        error.empty() ? "" : " class=\"failed\"", i, escapeHtml(field(l, "kernel")),
        escapeHtml(dim(l, "grid")), escapeHtml(dim(l, "block")), escapeHtml(field(l, "status")),
        escapeHtml(error), number(l, "warp_instructions"),
        simd(number(l, "thread_instructions"), number(l, "warp_instructions")),
        escapeHtml(field(l, "device")), escapeHtml(engineText), real(l, "wall_seconds"));
  }
  out += "</table>\n";
  if (launches.size() > kMaxLaunchRowsShown)
    out +=
        fmt::format("<p>{} more launches in the JSON report.</p>\n", launches.size() - kMaxLaunchRowsShown);
  return out + "</details>\n";
}

const char *kStyle = R"(body{font-family:sans-serif;margin:1.5em;color:#222;max-width:110em}
pre,code{font-family:monospace;font-size:90%}
table.grid{border-collapse:collapse;margin:.5em 0}
table.grid td,table.grid th{border:1px solid #bbb;padding:2px 8px;text-align:left;vertical-align:top}
tr.failed td,tr.exited td{background:#f8c9c9}
details.diagnostic{border:1px solid #ccc;border-left:6px solid #888;margin:.6em 0;padding:.3em .6em}
details.diagnostic.error{border-left-color:#c62828}
details.diagnostic.warning{border-left-color:#ef8f00}
details.diagnostic.note{border-left-color:#1565c0}
.sev{display:inline-block;min-width:4.5em;font-size:85%;text-transform:uppercase}
pre.message{white-space:pre-wrap;background:#f6f6f6;padding:.4em}
figure.source{margin:.4em 0}figure.source pre{background:#fbfbf4;padding:.3em;margin:.2em 0;overflow-x:auto}
figcaption{font-size:85%;color:#555}
mark{background:#ffe14d}
.waitfor svg{max-width:100%;height:auto}
.missing{color:#777;font-size:90%}
#controls button{margin-right:.5em}
)";

// Expands or collapses every section; the page reads the same without it.
const char *kScript = R"(<script>
(function(){
  var c=document.getElementById('controls');c.hidden=false;
  function all(open){document.querySelectorAll('details').forEach(function(d){d.open=open;});}
  document.getElementById('expand').onclick=function(){all(true);};
  document.getElementById('collapse').onclick=function(){all(false);};
})();
</script>
)";

} // namespace

std::optional<WaitForRow> parseWaitForRow(const std::string &row) {
  static const std::regex head(R"(^warp (\d+) lanes ([^:]*): (.*)$)");
  static const std::regex waits(
      R"(^waits at barrier (\d+) \(generation (\d+), (\d+) of (\d+) arrived\) at line (\d+)$)");
  static const std::regex cluster(R"(^waits at barrier\.cluster \(phase (\d+)\) at line (\d+)$)");
  std::smatch m;
  if (!std::regex_match(row, m, head)) return std::nullopt;
  WaitForRow r;
  r.warp = static_cast<uint32_t>(std::stoul(m[1]));
  r.lanes = m[2];
  const std::string rest = m[3];
  std::smatch w;
  if (std::regex_match(rest, w, waits)) {
    r.state = WaitForRow::State::Waiting;
    r.barrier = static_cast<uint32_t>(std::stoul(w[1]));
    r.generation = std::stoull(w[2]);
    r.arrived = std::stoull(w[3]);
    r.expected = std::stoull(w[4]);
    r.line = static_cast<uint32_t>(std::stoul(w[5]));
  } else if (std::regex_match(rest, w, cluster)) {
    r.state = WaitForRow::State::ClusterWaiting;
    r.generation = std::stoull(w[1]);
    r.line = static_cast<uint32_t>(std::stoul(w[2]));
  } else if (rest == "exited") {
    r.state = WaitForRow::State::Exited;
  } else if (rest == "running") {
    r.state = WaitForRow::State::Running;
  }
  return r;
}

std::string waitForDot(const std::vector<WaitForRow> &rows) {
  using State = WaitForRow::State;
  std::string out =
      "digraph waitfor {\n  rankdir=LR;\n  graph [fontname=\"sans-serif\", fontsize=11];\n"
      "  node [fontname=\"sans-serif\", fontsize=10];\n  edge [fontname=\"sans-serif\", fontsize=9];\n";
  auto barrierNode = [](const WaitForRow &r) {
    return r.state == State::ClusterWaiting ? std::string("cluster") : "b" + std::to_string(r.barrier);
  };
  std::map<std::string, const WaitForRow *> barriers; // node -> a warp waiting there (its counts)
  for (const WaitForRow &r : rows) {
    const char *fill = r.state == State::Exited    ? "#dddddd"
                       : r.state == State::Running ? "#d3efd3"
                                                   : "#f8c9c9";
    std::string label = fmt::format("warp {}\\nlanes {}", r.warp, r.lanes);
    if (r.state == State::Exited) label += "\\nexited";
    if (r.state == State::Running) label += "\\nrunning";
    if (r.line) label += fmt::format("\\nline {}", r.line);
    out += fmt::format("  w{} [shape=box, style=filled, fillcolor=\"{}\", label=\"{}\"];\n", r.warp, fill,
                       label);
    if (r.state == State::Waiting || r.state == State::ClusterWaiting) {
      barriers.emplace(barrierNode(r), &r);
      out += fmt::format("  w{} -> {} [label=\"waits\"];\n", r.warp, barrierNode(r));
    }
  }
  for (const auto &[node, r] : barriers) {
    std::string label = r->state == State::ClusterWaiting
                            ? fmt::format("barrier.cluster\\nphase {}", r->generation)
                            : fmt::format("barrier {}\\ngeneration {}\\n{} of {} threads", r->barrier,
                                          r->generation, r->arrived, r->expected);
    out += fmt::format("  {} [shape=ellipse, style=filled, fillcolor=\"#ffe14d\", label=\"{}\"];\n", node,
                       label);
    // The warps not waiting here are the ones it waits for.
    for (const WaitForRow &other : rows) {
      if ((other.state == State::Waiting || other.state == State::ClusterWaiting) &&
          barrierNode(other) == node)
        continue;
      if (other.state == State::Exited)
        out +=
            fmt::format("  {} -> w{} [label=\"needs (exited)\", color=red, fontcolor=red, style=dashed];\n",
                        node, other.warp);
      else
        out += fmt::format("  {} -> w{} [label=\"needs\", style=dashed];\n", node, other.warp);
    }
  }
  return out + "}\n";
}

std::string renderReportHtml(const HtmlReportInputs &in) {
  const json::object &report = in.report;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvm report: " +
      escapeHtml(in.title) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>ptxvm report</h1>\n<p><code>" + escapeHtml(in.title) + "</code></p>\n";
  if (const json::object *build = object(report, "ptxvm"))
    out += "<p class=\"build\">ptxvm " + escapeHtml(field(*build, "version")) + " (" +
           escapeHtml(field(*build, "commit")) + ")</p>\n";
  out +=
      "<div id=\"controls\" hidden><button id=\"expand\">expand all</button><button id=\"collapse\">collapse "
      "all</button></div>\n";
  if (!in.note.empty()) out += "<p class=\"note\"><b>" + escapeHtml(in.note) + "</b></p>\n";

  static const json::array none;
  const json::array *launches = array(report, "launches");
  const json::array *diagnostics = array(report, "diagnostics");
  if (!launches) launches = &none;
  if (!diagnostics) diagnostics = &none;
  std::map<std::string, size_t> bySeverity, byKind;
  for (const json::value &v : *diagnostics)
    if (v.is_object()) {
      ++bySeverity[field(v.as_object(), "severity")];
      ++byKind[field(v.as_object(), "kind")];
    }
  size_t failed = 0;
  for (const json::value &v : *launches)
    if (v.is_object() && !field(v.as_object(), "error").empty()) ++failed;

  // At a glance: what ran, what went wrong, where the rest is.
  out += "<section id=\"summary\"><h2>Summary</h2>\n<ul>\n";
  if (!in.haveReport) out += "<li>The run wrote no JSON report.</li>\n";
  out += fmt::format("<li>{} launch{}, {} failed</li>\n", launches->size(), launches->size() == 1 ? "" : "es",
                     failed);
  std::string counts;
  for (const auto &[kind, n] : byKind) counts += (counts.empty() ? "" : ", ") + fmt::format("{} {}", n, kind);
  out += fmt::format("<li>{} diagnostic{}{}</li>\n", diagnostics->size(), diagnostics->size() == 1 ? "" : "s",
                     counts.empty() ? "" : ": " + escapeHtml(counts));
  if (!in.reportLink.empty()) out += "<li>JSON report: " + link(in.reportLink, in.reportLink) + "</li>\n";
  if (!in.traceLink.empty())
    out += "<li>Timeline: " + link(in.traceLink, in.traceLink) +
           " (Chrome trace-event format: open it in ui.perfetto.dev or chrome://tracing)</li>\n";
  out += "</ul>\n</section>\n";

  out += "<section id=\"launches\"><h2>Launches</h2>\n" + launchesSection(*launches) + "</section>\n";

  out += "<section id=\"diagnostics\"><h2>Diagnostics</h2>\n";
  if (diagnostics->empty()) out += "<p>None.</p>\n";
  SourceFiles sources(in.modules);
  for (size_t i = 0; i < diagnostics->size() && i < kMaxDiagnosticsShown; ++i)
    if ((*diagnostics)[i].is_object())
      out += diagnosticSection((*diagnostics)[i].as_object(), i, in.modules, sources);
  if (diagnostics->size() > kMaxDiagnosticsShown)
    out += fmt::format("<p>{} more diagnostics in the JSON report.</p>\n",
                       diagnostics->size() - kMaxDiagnosticsShown);
  out += "</section>\n";

  out += "<section id=\"modules\"><h2>PTX modules</h2>\n";
  if (in.modules.empty())
    out += "<p>None kept.</p>\n";
  else {
    out += "<table class=\"grid\"><tr><th>module</th><th>PTX</th><th>control-flow graphs</th></tr>\n";
    for (const ReportModule &m : in.modules)
      out += "<tr><td><code>" + escapeHtml(std::filesystem::path(m.path).filename().string()) +
             "</code></td><td>" + (m.ptxLink.empty() ? "" : link(m.ptxLink, m.ptxLink)) + "</td><td>" +
             (m.cfgLink.empty() ? "" : link(m.cfgLink, "CFG by uniformity")) + "</td></tr>\n";
    out += "</table>\n";
  }
  out += "</section>\n";
  return out + kScript + "</body>\n</html>\n";
}

std::string writeCfgPage(const std::string &dir, const ptx::Module &m, const std::string &name,
                         const std::vector<const ptx::Function *> &kernels,
                         const std::optional<std::array<uint32_t, 3>> &block, std::string &error,
                         const LaunchValues &values) {
  std::unique_ptr<ModuleAnalysis> analysed = analyseModule(m, kernels, block, values);
  std::string graphError;
  const std::string page = renderCfgHtml(m, analysed->functions, graphError);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir) / "cfg", ec);
  const std::string relative = "cfg/" + name + ".html";
  if (ec || !writeTextFile(dir + "/" + relative, page)) {
    error = "cannot write " + dir + "/" + relative;
    return "";
  }
  if (!graphError.empty()) error = graphError;
  return relative;
}

std::optional<std::string> readTextFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool writeTextFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(out);
}

} // namespace ptxvm
