// The register allocation pass: rounds of allocate / spill, then naming by place.
#include "regalloc/RegAlloc.h"

#include "analysis/Analyses.h"
#include "ptx/Edit.h"
#include "ptx/Layout.h"
#include "regalloc/Webs.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <mutex>
#include <stdexcept>

namespace regalloc {

using namespace analysis;

namespace {

/// Option `key` of `in`, one of `values` (a spelling and what it sets `out`
/// to); false with `error` for any other spelling.
template <class T>
bool choose(const PassOptions &in, std::string_view key,
            std::initializer_list<std::pair<std::string_view, T>> values, T &out, std::string &error) {
  auto it = in.find(key);
  if (it == in.end()) return true;
  std::string accepted;
  size_t n = 0;
  for (const auto &[spelling, value] : values) {
    if (it->second == spelling) {
      out = value;
      return true;
    }
    accepted += (n == 0 ? "" : n + 1 == values.size() ? " or " : ", ") + std::string(spelling);
    ++n;
  }
  error = "--" + std::string(key) + " takes " + accepted + ", not '" + it->second + "'";
  return false;
}

} // namespace

bool parseRegAllocOptions(const PassOptions &in, RegAllocOptions &out, std::string &error) {
  if (auto it = in.find("max-registers"); it != in.end()) {
    unsigned k = 0;
    auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), k);
    if (ec != std::errc() || end != it->second.data() + it->second.size() || k < 8 || k > 255) {
      error = "--max-registers takes a number of registers from 8 to 255, not '" + it->second + "'";
      return false;
    }
    out.maxRegisters = k;
  }
  if (auto it = in.find("reserve"); it != in.end()) {
    unsigned r = 0;
    auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), r);
    if (ec != std::errc() || end != it->second.data() + it->second.size() || r + 8 > out.maxRegisters) {
      error = "--reserve takes a number of registers that leaves at least 8 of --max-registers, not '" +
              it->second + "'";
      return false;
    }
    out.reserve = r;
  }
  if (!choose(in, "spill",
              {{"divergence", SpillPolicy::Divergence},
               {"local", SpillPolicy::Local},
               {"auto", SpillPolicy::Auto}},
              out.spill, error) ||
      !choose(in, "allocator",
              {{"linear-scan", Allocator::LinearScan}, {"graph-coloring", Allocator::GraphColoring}},
              out.allocator, error) ||
      !choose(in, "reload", {{"yes", true}, {"no", false}}, out.reload, error) ||
      !choose(in, "split", {{"yes", true}, {"no", false}}, out.split, error) ||
      !choose(in, "maxnreg", {{"yes", true}, {"no", false}}, out.maxnreg, error))
    return false;
  return true;
}

namespace {

/// Uniform registers per warp on sm_75 and later (UR0-UR62).
constexpr unsigned kUniformRegisters = 63;

/// Static shared memory the module declares (every kernel may use it).
uint64_t moduleSharedBytes(const ptx::Module &m) {
  uint64_t bytes = 0;
  for (const ptx::Variable &v : m.globals)
    if (v.space == ptx::Mod::Shared) bytes += ptx::variableBytes(v).value_or(0);
  return bytes;
}

/// Threads of a CTA at most: .reqntid / .maxntid, else 1024.
uint32_t maxThreads(const ptx::Function &fn) {
  for (const ptx::FunctionDirective &d : fn.directives)
    if ((d.kind == ptx::DirectiveKind::ReqNTid || d.kind == ptx::DirectiveKind::MaxNTid) &&
        !d.values.empty()) {
      uint64_t n = 1;
      for (uint32_t v : d.values) n *= std::max(v, 1u);
      return static_cast<uint32_t>(std::min<uint64_t>(n, 1024));
    }
  return 1024;
}

/// Whether `fn` may call itself (directly or through other functions):
/// its .local spill area would need a frame per call.
bool recursive(const ptx::Module &m, const ptx::Function &fn) {
  const ptx::InstrTable &table = ptx::InstrTable::get();
  std::vector<const ptx::Function *> work{&fn};
  std::vector<const ptx::Function *> seen;
  while (!work.empty()) {
    const ptx::Function *f = work.back();
    work.pop_back();
    for (const ptx::Instruction &in : f->instrs) {
      if (!table.has(in.opcode, ptx::iflag::Call)) continue;
      for (const ptx::Operand &op : f->operandsOf(in)) {
        if (op.kind != ptx::OperandKind::Symbol) continue;
        const ptx::Function *callee = m.findFunction(m.str(op.id));
        if (!callee) continue;
        if (callee == &fn) return true;
        if (std::find(seen.begin(), seen.end(), callee) == seen.end()) {
          seen.push_back(callee);
          work.push_back(callee);
        }
      }
    }
  }
  return false;
}

/// Names registers by place: %r{p} (32-bit), %rd{p/2}, %rq{p/4}, %rh{p}
/// (16-bit), %rb{p} (8-bit); predicates %p<n> in order.
void renameByPlace(ptx::Module &m, ptx::Function &fn, const Assignment &a) {
  struct Class {
    const char *name;
    ptx::Type type;
    unsigned units;
    uint32_t count = 0, first = 0;
  };
  std::array<Class, 6> classes{{{"%rb", ptx::Type::B8, 1},
                                {"%rh", ptx::Type::B16, 1},
                                {"%r", ptx::Type::B32, 1},
                                {"%rd", ptx::Type::B64, 2},
                                {"%rq", ptx::Type::B128, 4},
                                {"%p", ptx::Type::Pred, 0}}};
  auto classOf = [&](const ptx::RegisterDecl &d) -> size_t {
    if (d.type == ptx::Type::Pred) return 5;
    switch (ptx::bitWidth(d.type)) {
    case 8: return 0;
    case 16: return 1;
    case 32: return 2;
    case 64: return 3;
    default: return 4;
    }
  };
  std::vector<uint8_t> cls(fn.numRegisters);
  std::vector<uint32_t> slot(fn.numRegisters);
  for (const ptx::RegisterDecl &d : fn.regDecls)
    for (uint32_t k = 0; k < std::max(d.count, 1u); ++k) {
      const uint32_t r = d.firstRegister + k;
      cls[r] = static_cast<uint8_t>(classOf(d));
      Class &c = classes[cls[r]];
      slot[r] = c.units == 0 ? c.count : (a.position[r] == Assignment::kNone ? 0 : a.position[r] / c.units);
      c.count = std::max(c.count, slot[r] + 1);
    }
  std::vector<ptx::RegisterDecl> decls;
  uint32_t next = 0;
  for (Class &c : classes) {
    if (!c.count) continue;
    ptx::RegisterDecl d;
    d.name = m.names.intern(c.name);
    d.type = c.type;
    d.count = c.count;
    d.firstRegister = c.first = next;
    next += c.count;
    decls.push_back(d);
  }
  for (ptx::Instruction &in : fn.instrs)
    ptx::forEachRegister(fn, in, [&](uint32_t &r) { r = classes[cls[r]].first + slot[r]; });
  ptx::BodyEdit edit(fn);
  edit.replaceRegisters(std::move(decls), next);
  edit.apply();
}

/// Allocation rounds on `fn` (already split into webs) until nothing
/// spills; false with `reason` when the budget cannot hold the spill code's
/// own temporaries or the rounds do not settle.
bool allocateRounds(ptx::Module &m, ptx::Function &fn, AnalysisManager &am, const RegAllocOptions &options,
                    SpillState &state, FunctionAllocation &result) {
  // A spilled register's pieces can be spilled again, one loop level (then
  // a block, then single instructions) deeper each round.
  constexpr unsigned kMaxRounds = 48;
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    result.rounds = round + 1;
    std::vector<bool> pieces(state.regionOf.size());
    for (uint32_t r = 0; r < pieces.size(); ++r) pieces[r] = state.regionOf[r].kind != SpillRegion::Whole;
    LiveIntervals live(fn, am, state.unspillable, pieces);
    if (round == 0) result.pressure = live.maxPressure();
    const unsigned budget = options.maxRegisters - options.reserve;
    Assignment a = allocate(options.allocator, live, fn.numRegisters, budget);
    if (!a.feasible) {
      result.reason = "the spill code's temporaries do not fit " + std::to_string(budget) + " registers";
      return false;
    }
    if (a.spilled.empty()) {
      if (std::string conflict = checkAssignment(live, a, budget); !conflict.empty())
        throw std::logic_error("regalloc: " + std::string(allocatorName(options.allocator)) + " placed " +
                               conflict);
      countSpillAccesses(fn, am, state);
      finishSpillAreas(m, fn, state);
      renameByPlace(m, fn, a);
      am.invalidate(fn, PreservedAnalyses::none());
      return true;
    }
    insertSpillCode(m, fn, am, live, a.spilled, budget, state);
    am.invalidate(fn, PreservedAnalyses::none());
  }
  result.reason = "allocation did not settle in " + std::to_string(kMaxRounds) + " rounds";
  return false;
}

} // namespace

FunctionAllocation allocateFunction(ptx::Module &m, ptx::Function &fn, AnalysisManager &am,
                                    const RegAllocOptions &options) {
  FunctionAllocation result;
  result.name = m.str(fn.name);
  if (std::string why = cannotRename(m, fn, am); !why.empty()) {
    result.reason = why;
    return result;
  }
  for (const ptx::RegisterDecl &d : fn.regDecls)
    if (d.vectorWidth) {
      result.reason = "vector registers";
      return result;
    }
  // Everything the rounds change, to restore when they fail.
  const ptx::Function original = fn;
  const std::vector<ptx::Variable> globals = m.globals;
  const std::vector<ptx::TopLevel> order = m.order;
  auto restore = [&] {
    fn = original;
    m.globals = globals;
    m.order = order;
    am.invalidate(fn, PreservedAnalyses::none());
  };
  const size_t instructionsBefore = fn.instrs.size();

  auto attempt = [&](SpillMode mode, SpillState &state) {
    state.mode = mode;
    state.reload = options.reload;
    state.split = options.split;
    state.maxWarps = (maxThreads(fn) + 31) / 32;
    // The shared spill areas share the SM with the kernel's own shared
    // memory at the occupancy K allows: 64K registers, 2048 threads and
    // 227 KiB per SM, and 48 KiB of static shared memory per CTA.
    const uint64_t threadsPerSm = std::min<uint64_t>(2048, 65536 / options.maxRegisters);
    const uint64_t ctasPerSm = std::max<uint64_t>(1, threadsPerSm / (state.maxWarps * 32ull));
    const uint64_t perCta = std::min<uint64_t>(48 * 1024, 227 * 1024 / ctasPerSm);
    const uint64_t own = moduleSharedBytes(m);
    state.sharedLimit = static_cast<uint32_t>(perCta > own ? perCta - own : 0);
    state.unspillable.assign(fn.numRegisters, false);
    state.facts.clear();
    state.spilledBefore.clear();
    if (mode == SpillMode::Divergence) recordRegisterFacts(fn, am, state);
    try {
      return allocateRounds(m, fn, am, options, state, result);
    } catch (const std::logic_error &e) {
      result.reason = e.what();
      return false;
    }
  };

  splitWebs(m, fn, am);
  am.invalidate(fn, PreservedAnalyses::none());
  const ptx::Function renamed = fn;
  SpillState state;
  bool ok = false;
  if (options.spill == SpillPolicy::Auto) {
    // The cost model. ptxas at the same budget keeps up to 63 uniform values
    // in uniform registers and spills what still does not fit to local
    // memory, roughly as our own allocation does with every spill local.
    // Take the lattice's placement only when its weighted cost is clearly
    // lower: shared memory is about a third of local memory's latency, a
    // recomputation one ALU operation or two. When the lattice gains
    // nothing the kernel stays as it is, under the same budget when one was
    // asked for: ptxas's own allocation at K.
    auto leave = [&](std::string why) {
      result.reason = std::move(why);
      restore();
      if (options.maxnreg && fn.isKernel) {
        analysis::capRegisters(fn, options.maxRegisters);
        result.reason += " (left to ptxas with .maxnreg " + std::to_string(options.maxRegisters) + ")";
      }
      return result;
    };
    // ptxas keeps warp-uniform values in the uniform registers of sm_75 and
    // later (63 per warp, outside the per-thread budget): the pressure it
    // sees is what is left beyond them. On the H100 that predicted its
    // spilling closely (chemistry at 48/64/80: 45/29/13 values predicted,
    // 46/30/14 spilled).
    {
      SpillState facts;
      recordRegisterFacts(fn, am, facts);
      std::vector<bool> uniform(fn.numRegisters, false);
      for (uint32_t r = 0; r < fn.numRegisters; ++r)
        uniform[r] = facts.facts[r].known && facts.facts[r].level != Uniformity::Divergent;
      const LiveIntervals live(fn, am, {});
      result.pressure = live.maxPressure();
      result.ptxasPressure = live.maxPressureBeyond(uniform, kUniformRegisters);
      if (result.ptxasPressure <= options.maxRegisters)
        return leave("ptxas fits it: " + std::to_string(result.ptxasPressure) +
                     " registers beyond its uniform registers");
    }
    SpillState local;
    if (!attempt(SpillMode::Local, local)) {
      restore();
      return result;
    }
    const double localCost = local.localOps * 3.0;
    if (local.loads + local.stores == 0) return leave("no spills at this budget: ptxas allocates it as well");
    fn = renamed;
    m.globals = globals;
    m.order = order;
    am.invalidate(fn, PreservedAnalyses::none());
    ok = attempt(SpillMode::Divergence, state);
    const double cost =
        state.localOps * 3.0 + state.sharedOps * 1.0 + state.reloadOps * 1.0 + state.rematOps * 1.0;
    result.costLocal = localCost;
    result.costLattice = cost;
    // The lattice's placement must cut the predicted cost by 30%: below
    // that, its extra instructions and ptxas's own spilling on top of the
    // allocation (SGEMM at 80 on the H100: 23% predicted, 11% slower) eat
    // the gain.
    if (ok && cost >= 0.7 * localCost)
      return leave("the cost model predicts too little gain over local spills");
  } else {
    ok = attempt(options.spill == SpillPolicy::Local ? SpillMode::Local : SpillMode::Divergence, state);
  }
  if (ok && state.localBytes && recursive(m, fn)) {
    ok = false;
    result.reason = "a recursive function would need a local spill frame per call";
  }
  if (!ok) {
    restore();
    return result;
  }
  if (options.maxnreg) analysis::capRegisters(fn, options.maxRegisters);
  result.changed = true;
  result.spills = state;
  result.instructionsAdded =
      fn.instrs.size() > instructionsBefore ? fn.instrs.size() - instructionsBefore : 0;
  return result;
}

std::string checkAllocation(const ptx::Module &m, const ptx::Function &fn, AnalysisManager &am,
                            unsigned budget) {
  // The place of each register from its name: %r{p}, %rd{p/2}, ...
  std::vector<uint32_t> place(fn.numRegisters, Assignment::kNone);
  for (const ptx::RegisterDecl &d : fn.regDecls) {
    const unsigned units = unitsOf(d);
    if (!units) continue;
    const std::string_view name = m.str(d.name);
    if (!d.count || (name != "%r" && name != "%rd" && name != "%rq" && name != "%rh" && name != "%rb"))
      return "register " + std::string(name) + " is not named by place";
    if (d.count * units > budget)
      return std::string(name) + "<" + std::to_string(d.count) + "> passes the budget of " +
             std::to_string(budget) + " units";
    for (uint32_t k = 0; k < d.count; ++k) place[d.firstRegister + k] = k * units;
  }
  LiveIntervals live(fn, am, {});
  std::vector<std::vector<const LiveInterval *>> byUnit(budget);
  for (const LiveInterval &iv : live.intervals())
    for (unsigned u = 0; u < iv.units; ++u) byUnit[place[iv.reg] + u].push_back(&iv);
  for (unsigned u = 0; u < budget; ++u)
    for (size_t i = 0; i < byUnit[u].size(); ++i)
      for (size_t j = i + 1; j < byUnit[u].size(); ++j)
        if (byUnit[u][i]->reg != byUnit[u][j]->reg && byUnit[u][i]->intersects(*byUnit[u][j]))
          return ptx::registerName(m, fn, byUnit[u][i]->reg) + " and " +
                 ptx::registerName(m, fn, byUnit[u][j]->reg) + " share unit " + std::to_string(u) +
                 " while both are live (position " +
                 std::to_string(byUnit[u][i]->firstIntersection(*byUnit[u][j])) + ")";
  return "";
}

PreservedAnalyses RegAllocPass::run(ptx::Module &m, AnalysisManager &am) {
  functions_.clear();
  for (ptx::Function &fn : m.functions) {
    if (!fn.hasBody) continue;
    functions_.push_back(allocateFunction(m, fn, am, options_));
  }
  return PreservedAnalyses::none();
}

std::vector<PassStatistic> RegAllocPass::statistics() const {
  uint64_t changed = 0, unchanged = 0, pressure = 0, loads = 0, stores = 0, remats = 0, shared = 0, local = 0,
           added = 0, pieces = 0, hoisted = 0;
  std::array<uint64_t, kSpillClasses> spilled{};
  for (const FunctionAllocation &f : functions_) {
    (f.changed ? changed : unchanged)++;
    pressure = std::max<uint64_t>(pressure, f.pressure);
    if (!f.changed) continue;
    for (size_t c = 0; c < kSpillClasses; ++c) spilled[c] += f.spills.spilled[c];
    loads += f.spills.loads;
    stores += f.spills.stores;
    remats += f.spills.remats;
    pieces += f.spills.pieces;
    hoisted += f.spills.hoisted;
    shared += f.spills.ctaBytes + f.spills.warpSlotBytes * f.spills.maxWarps;
    local += f.spills.localBytes;
    added += f.instructionsAdded;
  }
  std::vector<PassStatistic> s = {
      {"functions allocated", changed}, {"functions unchanged", unchanged}, {"max pressure", pressure}};
  for (size_t c = 0; c < kSpillClasses; ++c)
    s.push_back({"spilled " + std::string(spillClassName(static_cast<SpillClass>(c))), spilled[c]});
  s.push_back({"spill loads", loads});
  s.push_back({"spill stores", stores});
  s.push_back({"rematerializations", remats});
  s.push_back({"live-range pieces", pieces});
  s.push_back({"reloads hoisted out of loops", hoisted});
  s.push_back({"shared bytes", shared});
  s.push_back({"local bytes", local});
  s.push_back({"instructions added", added});
  return s;
}

std::vector<std::string> RegAllocPass::remarks() const {
  std::vector<std::string> lines;
  for (const FunctionAllocation &f : functions_) {
    std::string line = f.name + ": pressure " + std::to_string(f.pressure) + ", ";
    if (!f.changed) {
      line += "unchanged: " + f.reason;
    } else {
      line += "allocated in " + std::to_string(f.rounds) + " round(s)";
      std::string spills;
      for (size_t c = 0; c < kSpillClasses; ++c)
        if (f.spills.spilled[c])
          spills += (spills.empty() ? "" : ", ") + std::to_string(f.spills.spilled[c]) + " " +
                    std::string(spillClassName(static_cast<SpillClass>(c)));
      if (!spills.empty()) line += ", spilled " + spills;
      if (f.spills.pieces)
        line += ", " + std::to_string(f.spills.pieces) + " live-range piece(s), " +
                std::to_string(f.spills.hoisted) + " reload(s) hoisted out of loops";
    }
    if (f.costLocal > 0)
      line += " (cost model: " + std::to_string(static_cast<uint64_t>(f.costLattice)) + " by the lattice, " +
              std::to_string(static_cast<uint64_t>(f.costLocal)) + " all local)";
    lines.push_back(std::move(line));
  }
  return lines;
}

void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerPass({"split-webs",
                  "give each web of a register (values tied by phi-nodes) a register of its own (out of SSA)",
                  [](ptx::DiagnosticList &, const PassOptions &, std::string &) {
                    return std::make_unique<SplitWebsPass>();
                  }});
    registerPass(
        {"regalloc",
         "allocate registers into a budget, spilling by divergence (uniform values to shared memory)",
         [](ptx::DiagnosticList &, const PassOptions &options, std::string &error) -> std::unique_ptr<Pass> {
           RegAllocOptions o;
           if (!parseRegAllocOptions(options, o, error)) return nullptr;
           return std::make_unique<RegAllocPass>(o);
         },
         {{"max-registers=K", "the budget: 32-bit registers per thread (8-255, default 32)"},
          {"spill=MODE", "divergence, local or auto (default: auto, the cost model decides)"},
          {"reserve=R", "leave R of the K registers to ptxas's own temporaries (default 0)"},
          {"allocator=NAME", "linear-scan (default) or graph-coloring"},
          {"split=yes|no", "split spilled live ranges by loop and block, hoisting reloads out of loops "
                           "(default yes; no: a load or store at every mention)"},
          {"reload=yes|no",
           "load read-only values (parameters, constants, ld.global.nc) again where read (default no)"},
          {"maxnreg=yes|no",
           "give allocated kernels .maxnreg K, so the JIT keeps the budget (default no)"}}});
  });
}

} // namespace regalloc
