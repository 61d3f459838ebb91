// Barrier checks on the divergence results: operands, divergent .aligned
// barriers, warp roles and the balance of barrier operations between paths
// and roles.
#include "analysis/BarrierCheck.h"

#include "ptx/SourceLocation.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <set>

namespace analysis {

namespace {

using ptx::Opcode;

/// A named-barrier instruction as the table's BARRIER row describes it (the
/// cluster barriers have no id and are not checked here).
struct BarrierForm {
  BarrierOpKind kind;
  uint8_t idOperand;
};

std::optional<BarrierForm> barrierForm(Opcode op) {
  const ptx::BarrierInfo &b = ptx::InstrTable::get().barrier(op);
  switch (b.kind) {
  case ptx::BarrierKind::Sync: return BarrierForm{BarrierOpKind::Sync, b.idOperand};
  case ptx::BarrierKind::Arrive: return BarrierForm{BarrierOpKind::Arrive, b.idOperand};
  case ptx::BarrierKind::Reduce: return BarrierForm{BarrierOpKind::Reduce, b.idOperand};
  default: return std::nullopt;
  }
}

struct OperandFact {
  std::optional<int64_t> constant;
  Uniformity level = Uniformity::CtaUniform;
  std::string text;
};

/// What is known of operand `j` of instruction `i`: its constant value, if
/// any, and its uniformity.
OperandFact operandFact(const ptx::Module &m, const FunctionDivergence &fd, uint32_t i, uint32_t j) {
  const ptx::Function &fn = fd.function();
  auto ops = fn.operandsOf(fn.instrs[i]);
  OperandFact f;
  if (j >= ops.size()) return f;
  f.text = ptx::writeOperand(m, fn, ops[j]);
  if (ops[j].kind == ptx::OperandKind::Int) {
    f.constant = ops[j].value;
    return f;
  }
  const SSA &ssa = fd.gated().ssa();
  auto uses = ssa.defUse().uses(i);
  for (size_t u = 0; u < uses.size(); ++u) {
    if (uses[u].operand != j || ssa.useValues(i)[u] == kNoValue) continue;
    ValueId v = ssa.useValues(i)[u];
    f.level = fd.valueLevel(v);
    const Affine &form = fd.valueForm(v);
    if (form.threadInvariant() && form.coef(0).isConst()) f.constant = form.coef(0).value;
  }
  return f;
}

std::string lineOf(const ptx::Function &fn, uint32_t instr) {
  return std::to_string(fn.instrs[instr].loc.line);
}

/// "%p1 true at line 12": one decision of a warp-uniform branch.
std::string decision(const ptx::Module &m, const GatedSSA &g, uint32_t br, uint32_t side) {
  const ptx::Function &fn = g.cfg().function();
  const Branch &b = g.branches()[br];
  const ptx::Instruction &in = fn.instrs[b.instr];
  uint32_t target = g.sides(br)[side];
  std::string where = " at line " + lineOf(fn, b.instr);
  if (in.opcode == Opcode::BrxIdx) return "index selects " + g.cfg().blockName(target, &m) + where;
  // The side that is the branch's label is the one taken when the guard holds.
  bool taken = false;
  for (const ptx::Operand &op : fn.operandsOf(in))
    if (op.kind == ptx::OperandKind::Symbol && target < fn.blocks.size() &&
        fn.blocks[target].label != UINT32_MAX && fn.labels[fn.blocks[target].label].name == op.id)
      taken = true;
  if (target == g.cfg().exit()) taken = true; // a guarded ret
  bool holds = taken != in.guardNegated;
  return ptx::registerName(m, fn, in.guard) + (holds ? " true" : " false") + where;
}

struct Range {
  uint32_t lo = UINT32_MAX, hi = 0;
  bool empty() const { return lo > hi; }
  void add(const Range &r) {
    lo = std::min(lo, r.lo);
    hi = std::max(hi, r.hi);
  }
};

class Checker {
public:
  Checker(const ptx::Module &m, const FunctionDivergence &fd, const std::vector<size_t> &starts,
          BarrierReport &out)
      : m_(m), fd_(fd), g_(fd.gated()), cfg_(g_.cfg()), fn_(fd.function()), starts_(starts), out_(out) {}

  void run();

private:
  void collect();
  void checkOperands(BarrierOp &op, const BarrierForm &form);
  void computeRoles();
  void checkBalance();
  void report(uint32_t instr, ptx::DiagKind kind, ptx::Severity severity, std::string message) {
    out_.diagnostics.push_back(diagnosticAt(m_, fn_, instr, kind, severity, std::move(message), &starts_));
  }

  const ptx::Module &m_;
  const FunctionDivergence &fd_;
  const GatedSSA &g_;
  const Cfg &cfg_;
  const ptx::Function &fn_;
  const std::vector<size_t> &starts_;
  BarrierReport &out_;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> roleOf_; // per block: (branch, side)
};

void Checker::run() {
  out_.function = &fn_;
  roleOf_.assign(cfg_.size(), {});
  for (uint32_t br = 0; br < g_.branches().size(); ++br) {
    if (fd_.branchLevel(br) != Uniformity::WarpUniform) continue;
    for (const RegionNode &r : g_.region(br))
      if (r.side != RegionNode::kMixed && r.node != g_.branches()[br].floor)
        roleOf_[r.node].emplace_back(br, r.side);
  }
  collect();
  computeRoles();
  checkBalance();
}

void Checker::collect() {
  for (uint32_t b = 0; b < cfg_.numBlocks(); ++b) {
    if (!cfg_.reachable(b)) continue;
    const ptx::BasicBlock &block = fn_.blocks[b];
    for (uint32_t i = block.firstInstr; i < block.firstInstr + block.numInstrs; ++i) {
      std::optional<BarrierForm> form = barrierForm(fn_.instrs[i].opcode);
      if (!form) continue;
      BarrierOp op;
      op.instr = i;
      op.kind = form->kind;
      op.aligned =
          ptx::InstrTable::get().alignedBarrier(fn_.instrs[i].opcode, m_.desc(fn_.instrs[i]).modifiers());
      std::string role;
      for (auto [br, side] : roleOf_[b]) role += (role.empty() ? "" : " and ") + decision(m_, g_, br, side);
      op.role = role.empty() ? "all warps" : "warps where " + role;
      checkOperands(op, *form);
      out_.ops.push_back(op);
      if (op.aligned && fd_.partialWarp(b)) {
        uint32_t cause = fd_.partialCause(b);
        std::string why =
            cause == FunctionDivergence::kCalledPartially
                ? "the function is called where part of a warp may be"
                : "it depends on the divergent branch at line " + lineOf(fn_, g_.branches()[cause].instr);
        report(i, ptx::DiagKind::DivergentBarrier, ptx::Severity::Warning,
               "'" + ptx::instructionName(m_, fn_.instrs[i]) +
                   "' is .aligned but part of a warp may reach it: " + why);
      }
    }
  }
}

void Checker::checkOperands(BarrierOp &op, const BarrierForm &form) {
  const uint32_t i = op.instr;
  const uint32_t n = fn_.instrs[i].numOperands;
  const std::string name = "'" + ptx::instructionName(m_, fn_.instrs[i]) + "'";
  OperandFact id = operandFact(m_, fd_, i, form.idOperand);
  if (id.constant) {
    if (*id.constant < 0 || *id.constant > 15)
      report(i, ptx::DiagKind::BarrierInvalidOperand, ptx::Severity::Error,
             "barrier id " + std::to_string(*id.constant) + " is out of range 0..15 in " + name);
    else
      op.id = static_cast<uint32_t>(*id.constant);
  } else if (id.level == Uniformity::Divergent) {
    report(i, ptx::DiagKind::BarrierInvalidOperand, ptx::Severity::Warning,
           "barrier id " + id.text + " of " + name + " may differ between the lanes of a warp");
  }
  uint32_t countOperand = form.idOperand + 1;
  op.hasCount = form.kind == BarrierOpKind::Reduce ? n == 4 : n > countOperand;
  if (!op.hasCount) return;
  OperandFact count = operandFact(m_, fd_, i, countOperand);
  if (count.constant) {
    int64_t c = *count.constant;
    if (c <= 0 || c % 32 != 0) {
      report(i, ptx::DiagKind::BarrierInvalidOperand, ptx::Severity::Error,
             "barrier thread count " + std::to_string(c) + " of " + name +
                 " is not a positive multiple of 32");
      return;
    }
    op.count = static_cast<uint32_t>(c);
    const LaunchShape &shape = fd_.shape();
    if (shape.kind == LaunchShape::Kind::Exact) {
      uint64_t threads = uint64_t{shape.x} * shape.y * shape.z, slots = (threads + 31) / 32 * 32;
      if (static_cast<uint64_t>(c) > slots)
        report(i, ptx::DiagKind::BarrierDeadlock, ptx::Severity::Error,
               "barrier thread count " + std::to_string(c) + " of " + name + " exceeds the " +
                   std::to_string(threads) + " threads of a " + shape.str() +
                   " block: it can never complete");
    }
  } else if (count.level == Uniformity::Divergent) {
    report(i, ptx::DiagKind::BarrierCountMismatch, ptx::Severity::Warning,
           "barrier thread count " + count.text + " of " + name + " may differ between the lanes of a warp");
  }
}

void Checker::computeRoles() {
  for (const BarrierOp &op : out_.ops) {
    if (!op.id) continue;
    auto &roles = out_.roles[*op.id];
    auto it =
        std::find_if(roles.begin(), roles.end(), [&](const BarrierRole &r) { return r.role == op.role; });
    if (it == roles.end()) it = roles.insert(roles.end(), BarrierRole{op.role, {}, {}});
    (op.kind == BarrierOpKind::Arrive ? it->arrives : it->waits).push_back(op.instr);
  }
}

void Checker::checkBalance() {
  // Barrier operations per block and id.
  std::map<uint32_t, std::vector<uint32_t>> opsIn; // id -> per block count
  for (const BarrierOp &op : out_.ops) {
    if (!op.id) continue;
    auto &counts = opsIn[*op.id];
    counts.resize(cfg_.size(), 0);
    ++counts[cfg_.blockOf(op.instr)];
  }
  for (uint32_t br = 0; br < g_.branches().size(); ++br) {
    if (fd_.branchLevel(br) != Uniformity::WarpUniform) continue;
    const Branch &branch = g_.branches()[br];
    auto sides = g_.sides(br);
    std::vector<uint32_t> sideOf(cfg_.size(), kNone);
    for (const RegionNode &r : g_.region(br))
      if (r.side != RegionNode::kMixed && r.node != branch.floor && r.node < cfg_.numBlocks())
        sideOf[r.node] = r.side;
    for (const auto &[id, counts] : opsIn) {
      bool used = false;
      for (uint32_t b = 0; b < cfg_.numBlocks(); ++b) used |= sideOf[b] != kNone && counts[b];
      if (!used) continue;
      // Participations along forward paths of each side, in reverse post-order.
      std::vector<Range> in(cfg_.size()), out(cfg_.size()), total(sides.size());
      for (uint32_t v : cfg_.rpo()) {
        if (v >= cfg_.numBlocks() || sideOf[v] == kNone) continue;
        uint32_t s = sideOf[v];
        if (v == sides[s]) in[v] = {0, 0};
        for (uint32_t p : cfg_.preds(v))
          if (p < cfg_.numBlocks() && sideOf[p] == s && cfg_.rpoIndex(p) < cfg_.rpoIndex(v) &&
              !out[p].empty())
            in[v].add(out[p]);
        if (in[v].empty()) continue;
        out[v] = {in[v].lo + counts[v], in[v].hi + counts[v]};
        bool leaves = cfg_.succs(v).empty();
        for (uint32_t w : cfg_.succs(v)) leaves |= w >= cfg_.numBlocks() || sideOf[w] != s;
        if (leaves) total[s].add(out[v]);
      }
      std::string where = "barrier " + std::to_string(id) + ": ";
      bool fixed = true;
      for (uint32_t s = 0; s < sides.size(); ++s) {
        if (total[s].empty() || total[s].lo == total[s].hi) continue;
        fixed = false;
        report(branch.instr, ptx::DiagKind::BarrierDeadlock, ptx::Severity::Warning,
               where + "warps where " + decision(m_, g_, br, s) + " take part in " +
                   std::to_string(total[s].lo) + " to " + std::to_string(total[s].hi) +
                   " barrier operations depending on the path");
      }
      if (!fixed || sides.size() < 2) continue;
      // A barrier that only one role uses is the role's own (its count
      // covers that role's warps); roles that share one must take part
      // equally often.
      for (uint32_t s = 1; s < sides.size(); ++s) {
        uint32_t a = total[0].empty() ? 0 : total[0].lo, b = total[s].empty() ? 0 : total[s].lo;
        if (a == b || a == 0 || b == 0) continue;
        report(branch.instr, ptx::DiagKind::BarrierDeadlock, ptx::Severity::Warning,
               where + "warps where " + decision(m_, g_, br, 0) + " take part in " + std::to_string(a) +
                   " barrier operations, warps where " + decision(m_, g_, br, s) + " in " +
                   std::to_string(b) + ": the arrive/wait balance differs between roles");
      }
    }
  }
}

} // namespace

std::string_view barrierOpName(BarrierOpKind k) {
  switch (k) {
  case BarrierOpKind::Sync: return "sync";
  case BarrierOpKind::Arrive: return "arrive";
  case BarrierOpKind::Reduce: return "reduce";
  }
  return "sync";
}

std::vector<size_t> lineStarts(const ptx::Module &m) {
  std::vector<size_t> starts{0};
  if (m.source)
    for (size_t i = 0; i < m.source->size(); ++i)
      if ((*m.source)[i] == '\n') starts.push_back(i + 1);
  return starts;
}

ptx::Diagnostic diagnosticAt(const ptx::Module &m, const ptx::Function &fn, uint32_t instr,
                             ptx::DiagKind kind, ptx::Severity severity, std::string message,
                             const std::vector<size_t> *starts) {
  ptx::Diagnostic d;
  d.kind = kind;
  d.severity = severity;
  d.message = std::move(message);
  const ptx::Instruction &in = fn.instrs[instr];
  d.loc.file = m.fileName;
  d.loc.line = in.loc.line;
  d.loc.column = in.loc.column;
  d.loc.function = std::string(m.str(fn.name));
  ptx::setCudaLocation(d, m, fn, in);
  if (m.source && in.loc.line) {
    std::vector<size_t> own;
    if (!starts) own = lineStarts(m);
    const std::vector<size_t> &at = starts ? *starts : own;
    if (in.loc.line <= at.size()) {
      const std::string &src = *m.source;
      size_t begin = at[in.loc.line - 1], end = src.find('\n', begin);
      d.sourceLine = src.substr(begin, (end == std::string::npos ? src.size() : end) - begin);
      if (!d.sourceLine.empty() && d.sourceLine.back() == '\r') d.sourceLine.pop_back();
    }
  }
  return d;
}

std::vector<BarrierReport> checkBarriers(const ptx::Module &m, const DivergenceResult &divergence) {
  std::vector<BarrierReport> reports;
  std::map<const ptx::Function *, size_t> index;
  const std::vector<size_t> starts = lineStarts(m);
  for (const auto &fd : divergence.functions()) {
    BarrierReport r;
    Checker(m, *fd, starts, r).run();
    index[&fd->function()] = reports.size();
    reports.push_back(std::move(r));
  }
  // Functions that execute an .aligned barrier, directly or in a callee.
  std::set<const ptx::Function *> aligned;
  for (const BarrierReport &r : reports)
    for (const BarrierOp &op : r.ops)
      if (op.aligned) aligned.insert(r.function);
  auto calleeOf = [&](const ptx::Function &fn, const ptx::Instruction &in) -> const ptx::Function * {
    DefUse::CallOperands c = DefUse::callOperands(fn, in);
    if (c.callee == Use::kNoOperand) return nullptr;
    const ptx::Operand &t = fn.operandsOf(in)[c.callee];
    return t.kind == ptx::OperandKind::Symbol ? m.findFunction(m.str(t.id)) : nullptr;
  };
  const ptx::InstrTable &table = ptx::InstrTable::get();
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &fd : divergence.functions()) {
      const ptx::Function &fn = fd->function();
      if (aligned.count(&fn)) continue;
      for (const ptx::Instruction &in : fn.instrs)
        if (table.has(in.opcode, ptx::iflag::Call))
          if (const ptx::Function *callee = calleeOf(fn, in); callee && aligned.count(callee)) {
            aligned.insert(&fn);
            changed = true;
            break;
          }
    }
  }
  // Calls to them from blocks part of a warp may reach.
  for (const auto &fd : divergence.functions()) {
    const ptx::Function &fn = fd->function();
    const Cfg &cfg = fd->gated().cfg();
    for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
      if (!table.has(fn.instrs[i].opcode, ptx::iflag::Call) || !cfg.reachable(cfg.blockOf(i))) continue;
      const ptx::Function *callee = calleeOf(fn, fn.instrs[i]);
      if (!callee || !aligned.count(callee) || !fd->partialWarp(cfg.blockOf(i))) continue;
      if (fd->partialCause(cfg.blockOf(i)) == FunctionDivergence::kCalledPartially)
        continue; // reported upstream
      reports[index[&fn]].diagnostics.push_back(
          diagnosticAt(m, fn, i, ptx::DiagKind::DivergentBarrier, ptx::Severity::Warning,
                       "call to '" + std::string(m.str(callee->name)) +
                           "', which executes an .aligned barrier, may be reached by part of a warp",
                       &starts));
    }
  }
  for (BarrierReport &r : reports)
    std::stable_sort(
        r.diagnostics.begin(), r.diagnostics.end(),
        [](const ptx::Diagnostic &a, const ptx::Diagnostic &b) { return a.loc.line < b.loc.line; });
  return reports;
}

std::string BarrierReport::print() const {
  std::string out;
  for (const ptx::Diagnostic &d : diagnostics)
    out += "line " + std::to_string(d.loc.line) + ": " + std::string(ptx::severityName(d.severity)) + ": " +
           d.message + " [" + std::string(ptx::kindName(d.kind)) + "]\n";
  for (const auto &[id, roles] : this->roles) {
    out += "barrier " + std::to_string(id) + ":\n";
    for (const BarrierRole &r : roles) {
      auto lines = [&](const std::vector<uint32_t> &instrs) {
        std::string s;
        for (uint32_t i : instrs) s += (s.empty() ? "line " : ", line ") + lineOf(*function, i);
        return s.empty() ? std::string("none") : s;
      };
      out += "  " + r.role + ": arrive " + lines(r.arrives) + "; wait " + lines(r.waits) + "\n";
    }
  }
  return out;
}

} // namespace analysis
