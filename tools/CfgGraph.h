// `ptxvm analyze --format dot|svg|html`: each analysed function's CFG as a picture. Blocks are
// coloured by the uniformity of their branch (divergent, warp-uniform, CTA-uniform), blocks that
// part of a warp may run have a dashed border, reconvergence points a double one (with a dashed
// edge from their branch), barriers are marked with their operation, id and count, and the gated
// SSA gates of a block (γ, μ, η) are listed in it and shown on hover in SVG.
#pragma once

#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "ptx/IR.h"

#include <span>
#include <string>
#include <string_view>

namespace ptxvm {

/// A function's analyses, as `ptxvm analyze` computed them.
struct AnalysedFunction {
  const analysis::FunctionDivergence *divergence;
  const analysis::BarrierReport *barriers;
};

/// Text for HTML, and for Graphviz's HTML-like labels (&, <, > and " escaped).
std::string escapeHtml(std::string_view s);

/// The functions' CFGs as one Graphviz graph (a cluster per function).
std::string renderCfgDot(const ptx::Module &m, std::span<const AnalysedFunction> fns);

/// The DOT text laid out as SVG by Graphviz's `dot` (found on PATH). False, with `error` set,
/// when `dot` is missing or fails.
bool layOutSvg(const std::string &dot, std::string &svg, std::string &error);

/// The id of a function's section in renderCfgHtml's page ("fn-" and its name).
std::string cfgAnchor(std::string_view function);

/// One self-contained HTML page (no network, no JavaScript needed): a legend and, per function,
/// its CFG as inline SVG (or, when Graphviz is missing or fails, its DOT text, with `error` set),
/// its divergent branches and its barrier report.
std::string renderCfgHtml(const ptx::Module &m, std::span<const AnalysedFunction> fns, std::string &error);

} // namespace ptxvm
