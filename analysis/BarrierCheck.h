// Static checks of CTA barriers (bar.*, barrier.*) on the divergence
// results: an .aligned barrier that part of a warp may reach
// (divergent-barrier), barrier ids and thread counts out of range or
// different between the lanes of a warp, and, for warp-specialized code, a
// table per barrier id of which warp roles arrive and which wait, with a
// warning where the number of barrier operations differs between paths or
// between roles (the protocol would hang).
//
// A role is a set of decisions of warp-uniform branches (the same in every
// lane of a warp, different between warps): the warps that take one side of
// `if (warpid < 4)` are one role, the others another. Counting follows
// acyclic paths: a loop body counts once, as one iteration of a protocol.
#pragma once

#include "analysis/Divergence.h"
#include "ptx/Diagnostic.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace analysis {

enum class BarrierOpKind : uint8_t { Sync, Arrive, Reduce };
std::string_view barrierOpName(BarrierOpKind k); // "sync", "arrive", "reduce"

struct BarrierOp {
  uint32_t instr;
  BarrierOpKind kind;
  bool aligned;
  std::optional<uint32_t> id;    // when constant
  std::optional<uint32_t> count; // when given and constant
  bool hasCount = false;
  std::string role; // "all warps", or the branch decisions
};

struct BarrierRole {
  std::string role;
  std::vector<uint32_t> arrives, waits; // instructions
};

struct BarrierReport {
  const ptx::Function *function = nullptr;
  std::vector<BarrierOp> ops;
  /// Per constant barrier id: the roles that use it.
  std::map<uint32_t, std::vector<BarrierRole>> roles;
  std::vector<ptx::Diagnostic> diagnostics;

  /// The findings and the role tables, for tests and `ptxvm analyze`.
  std::string print() const;
};

/// One report per function the divergence result covers (functions without
/// barriers or findings included, with empty lists).
std::vector<BarrierReport> checkBarriers(const ptx::Module &m, const DivergenceResult &divergence);

/// Where each line of a module's source text starts, for quoting lines.
std::vector<size_t> lineStarts(const ptx::Module &m);

/// Where instruction `instr` of `fn` is: PTX file and line, CUDA file and
/// line from .loc, and the PTX line's text (found through `starts`, from
/// lineStarts(m), when given).
ptx::Diagnostic diagnosticAt(const ptx::Module &m, const ptx::Function &fn, uint32_t instr,
                             ptx::DiagKind kind, ptx::Severity severity, std::string message,
                             const std::vector<size_t> *starts = nullptr);

} // namespace analysis
