#include "tools/CommandLine.h"

#include "emulator/Timeline.h"
#include "ptx/DiagnosticJson.h"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>

namespace ptxvm {

void addJitOptions(CLI::App &command, JitCommandOptions &out) {
  command
      .add_option("--jit", out.mode,
                  "with --device cpu: compile each kernel when it is loaded (eager), or once it has run long "
                  "enough on the interpreter (tiered, the default; PTXVM_JIT_THRESHOLD sets how long)")
      ->check(CLI::IsMember({"eager", "tiered"}))
      ->type_name("MODE");
  command.add_flag("--no-cache", out.noCache,
                   "with --device cpu: do not read or write compiled code on disk ($XDG_CACHE_HOME/ptxvm)");
  command.add_flag(
      "--unchecked", out.unchecked,
      "with --device cpu: compiled code checks a warp's scattered accesses at its first lane only "
      "and keeps the other lanes inside that lane's allocation: faster, faults past the first lane "
      "are not reported (host memory stays out of reach)");
  command.add_option("--cache-dir", out.cacheDirectory, "with --device cpu: keep compiled code in DIR")
      ->type_name("DIR");
}

void addHtmlReportOption(CLI::App &command, std::string &directory) {
  command
      .add_option(
          "--report-html", directory,
          "write the run as one HTML page, DIR/index.html: statistics per launch, every diagnostic with "
          "its PTX and CUDA lines, a deadlock's wait-for graph, links to each module's CFG coloured by "
          "uniformity (DIR/cfg/) and to the timeline (DIR/trace.json unless --trace names one)")
      ->type_name("DIR");
}

void addTraceOptions(CLI::App &command, TraceCommandOptions &out) {
  command
      .add_option(
          "--trace", out.path,
          "write the warp and barrier timeline to FILE.json (Chrome/Perfetto trace-event format: open "
          "it in ui.perfetto.dev or chrome://tracing)")
      ->type_name("FILE.json");
  command
      .add_option(
          "--trace-ctas", out.ctas,
          "the CTAs in the trace, by linear index: 0,3,8-11 (default: the first 4 of each launch and every "
          "CTA with a diagnostic)")
      ->type_name("LIST")
      ->check(CLI::Validator(
          [](std::string &text) {
            std::vector<uint64_t> ctas;
            return emu::parseCtaList(text, ctas)
                       ? std::string()
                       : "expects CTA indices and ranges such as 0,3,8-11, got '" + text + "'";
          },
          "LIST"));
  command
      .add_option(
          "--trace-clock", out.clock,
          "the trace's time: steps (warp instructions executed by the CTA, deterministic; the default) or "
          "host (wall-clock time)")
      ->check(CLI::IsMember({"steps", "host"}))
      ->type_name("CLOCK");
}

std::vector<std::pair<std::string, std::string>> TraceCommandOptions::settings() const {
  std::vector<std::pair<std::string, std::string>> s;
  if (path.empty()) return s;
  s.emplace_back("PTXVM_TRACE", std::filesystem::absolute(path).string());
  if (!ctas.empty()) s.emplace_back("PTXVM_TRACE_CTAS", ctas);
  s.emplace_back("PTXVM_TRACE_CLOCK", clock);
  return s;
}

std::vector<std::pair<std::string, std::string>> JitCommandOptions::settings() const {
  std::vector<std::pair<std::string, std::string>> s;
  if (!mode.empty()) s.emplace_back("PTXVM_JIT", mode);
  if (noCache) s.emplace_back("PTXVM_CACHE", "off");
  if (unchecked) s.emplace_back("PTXVM_UNCHECKED", "1");
  if (!cacheDirectory.empty())
    s.emplace_back("PTXVM_CACHE_DIR", std::filesystem::absolute(cacheDirectory).string());
  return s;
}

void addPassOptions(CLI::App &command, analysis::PassOptions &out) {
  for (const analysis::PassInfo *pass : analysis::registeredPasses())
    for (const auto &[spelling, help] : pass->options) {
      const std::string key(spelling.substr(0, spelling.find('=')));
      if (command.get_option_no_throw("--" + key)) continue;
      const std::string value(spelling.substr(std::min(spelling.size(), key.size() + 1)));
      command
          .add_option_function<std::string>(
              "--" + key, [&out, key](const std::string &v) { out[key] = v; },
              std::string(help) + " (pass " + std::string(pass->name) + ")")
          ->type_name(value);
    }
}

void addInputOptions(CLI::App &command, InputOptions &in, bool fileRequired) {
  command.add_option("FILE", in.file, "the PTX file to read")->required(fileRequired);
  command
      .add_option_function<std::string>(
          "--parser",
          [&in](const std::string &name) {
            in.frontEnd = name == "antlr" ? ptx::FrontEnd::Antlr : ptx::FrontEnd::Fast;
          },
          "front end: fast (default) or antlr")
      ->check(CLI::IsMember({"fast", "antlr"}))
      ->option_text("fast|antlr");
  command
      .add_option_function<std::string>(
          "--diagnostics", [&in](const std::string &format) { in.json = format == "json"; },
          "diagnostics as text on stderr (default) or JSON on stdout")
      ->check(CLI::IsMember({"text", "json"}))
      ->option_text("text|json");
}

namespace {

/// The 1 to 3 numbers of X[,Y,Z]; an error message when the text is not that.
std::string splitDimensions(const std::string &text, std::array<uint32_t, 3> &out) {
  out = {1, 1, 1};
  size_t at = 0;
  for (int i = 0;; ++i) {
    if (i == 3) return fmt::format("takes at most three dimensions, got '{}'", text);
    size_t comma = text.find(',', at);
    std::string_view part(text.data() + at, (comma == std::string::npos ? text.size() : comma) - at);
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out[i]);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || out[i] == 0)
      return fmt::format("expects X[,Y,Z] with positive integers, got '{}'", text);
    if (comma == std::string::npos) return "";
    at = comma + 1;
  }
}

} // namespace

CLI::Validator dimensions(uint64_t maxProduct) {
  return CLI::Validator(
      [maxProduct](std::string &text) -> std::string {
        std::array<uint32_t, 3> d;
        if (std::string error = splitDimensions(text, d); !error.empty()) return error;
        uint64_t product = uint64_t{d[0]} * d[1] * d[2];
        if (maxProduct && product > maxProduct)
          return fmt::format("{} has {} threads; a CTA has at most {} threads", text, product, maxProduct);
        return "";
      },
      "");
}

std::string paragraph(std::string_view text, size_t width) {
  std::string out;
  size_t column = 0;
  for (size_t at = 0; at < text.size();) {
    if (text[at] == '\n') { // kept: paragraphs and preformatted lines
      out += '\n';
      column = 0;
      ++at;
      continue;
    }
    size_t end = text.find_first_of(" \n", at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(at, end - at);
    if (column && column + 1 + word.size() > width) {
      out += '\n';
      column = 0;
    } else if (column) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    at = end < text.size() && text[end] == ' ' ? end + 1 : end;
  }
  return out;
}

std::array<uint32_t, 3> parseDimensions(const std::string &text) {
  std::array<uint32_t, 3> d;
  splitDimensions(text, d);
  return d;
}

int usageError(const CLI::App &command, const std::string &message) {
  std::string name = command.get_name();
  for (const CLI::App *p = command.get_parent(); p; p = p->get_parent()) name = p->get_name() + " " + name;
  std::fprintf(stderr, "%s: %s\n(run '%s --help' for usage)\n", name.c_str(), message.c_str(), name.c_str());
  return kUsage;
}

std::unique_ptr<ptx::Module> loadModule(const InputOptions &opts, ptx::DiagnosticList &diags) {
  std::string text;
  if (!ptx::readFile(opts.file, text, diags)) return nullptr;
  ptx::ParseOptions po;
  po.frontEnd = opts.frontEnd;
  return ptx::parseModule(std::move(text), opts.file, diags, po);
}

void printDiagnostics(const ptx::DiagnosticList &diags, bool json) {
  if (json) {
    std::string text = boost::json::serialize(boost::json::object{{"diagnostics", ptx::toJson(diags)}});
    std::printf("%s\n", text.c_str());
    return;
  }
  for (const ptx::Diagnostic &d : diags.all()) std::fprintf(stderr, "%s\n", d.renderText().c_str());
}

} // namespace ptxvm
