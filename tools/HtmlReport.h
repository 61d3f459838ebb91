// `--report-html DIR` of `ptxvm run` and `ptxvm exec`: a run as one self-contained page
// (DIR/index.html) built from what the run left — its JSON report (runtime/cudart/LaunchReport.h),
// the PTX its diagnostics point into, the timeline (DIR/trace.json) — with each module's CFG
// coloured by uniformity on a page of its own (DIR/cfg/NAME.html, tools/CfgGraph.h). The page
// needs no network and no JavaScript (a few lines of it expand and collapse sections).
#pragma once

#include "ptx/IR.h"
#include "tools/Analyze.h"

#include <boost/json/object.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxvm {

/// One PTX module of the run: where diagnostics say it is, and the page's links to it.
struct ReportModule {
  std::string path;    // the file name diagnostics give (location.file)
  std::string text;    // its PTX, for the source lines shown beside diagnostics
  std::string ptxLink; // relative to DIR; "" when the report keeps no copy
  std::string cfgLink; // relative to DIR; "" when no CFG page was drawn
};

/// What the page shows.
struct HtmlReportInputs {
  std::string title;          // the command that ran
  boost::json::object report; // {"ptxvm", "launches", "diagnostics"} as cudart::reportJson makes it
  bool haveReport = true;     // false: the program wrote none (it crashed or never loaded the runtime)
  std::vector<ReportModule> modules;
  std::string reportLink; // relative to DIR
  std::string traceLink;  // relative to DIR; "" when there is no trace
  std::string note;       // said at the top (how the program ended, what is missing)
};

/// The page (index.html).
std::string renderReportHtml(const HtmlReportInputs &in);

/// A module's CFG page (renderCfgHtml of `kernels` and what they call — every kernel when
/// empty — under `block` when known, and what `values` knows of the launch) written to DIR/cfg/NAME.html; its
/// link relative to DIR, or
/// "" when it cannot be written. `error` says why, or (with a link) that Graphviz could not draw
/// and the page holds DOT text.
std::string writeCfgPage(const std::string &dir, const ptx::Module &m, const std::string &name,
                         const std::vector<const ptx::Function *> &kernels,
                         const std::optional<std::array<uint32_t, 3>> &block, std::string &error,
                         const LaunchValues &values = {});

/// Writes `text` to `path`; false when it cannot.
bool writeTextFile(const std::string &path, const std::string &text);
/// The contents of `path`, or nothing when it cannot be read.
std::optional<std::string> readTextFile(const std::string &path);

/// One wait-for row of a deadlock report (emu::Cta::reportDeadlock's `warpN` fields), parsed.
struct WaitForRow {
  uint32_t warp = 0;
  std::string lanes;
  enum class State { Waiting, ClusterWaiting, Exited, Running, Unknown } state = State::Unknown;
  uint32_t barrier = 0;
  uint64_t generation = 0, arrived = 0, expected = 0;
  uint32_t line = 0;
};
std::optional<WaitForRow> parseWaitForRow(const std::string &row);

/// The wait-for graph of a deadlock diagnostic's rows, in DOT: warps, the barriers they wait at,
/// and from each barrier to the warps it still needs (exited ones in red).
std::string waitForDot(const std::vector<WaitForRow> &rows);

} // namespace ptxvm
