// The divergence analysis against execution: every tests/gpu case (the
// corpus kernels with recorded GPU inputs) runs on the emulator with a
// UniformityRecorder, and every value and branch the analysis calls
// warp-uniform (CTA-uniform) must never have been seen to differ within a
// warp (within a CTA). The test also prints the analysis's precision: of the
// values and branches observed uniform, the share it proves uniform.
#include "analysis/DefUse.h"
#include "analysis/Divergence.h"
#include "emulator/UniformityRecorder.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Writer.h"
#include "tests/emulator/CaseLaunch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>

namespace {

namespace fs = std::filesystem;
using analysis::Uniformity;

std::vector<std::string> caseFiles() {
  std::vector<std::string> out;
  for (const char *dir : {"tests/gpu/cases", "tests/gpu/barrier-table"}) {
    fs::path p = fs::path(PTXVM_SOURCE_DIR) / dir;
    if (!fs::exists(p)) continue;
    for (const auto &e : fs::directory_iterator(p))
      if (e.path().extension() == ".case") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Observed against proven, over a set of values or branches; and for the
/// values observed warp-uniform but not proven, where the divergence the
/// analysis saw came from (missCause, grouped).
struct Tally {
  std::map<std::string, uint64_t> misses;
  uint64_t executed = 0, observedWarpUniform = 0, provenWarpUniform = 0, observedCtaUniform = 0,
           provenCtaUniform = 0;
  // Observed warp-uniform in executions of two or more lanes together (the
  // rest were only ever computed by one lane at a time), and proven of those.
  uint64_t observedMultiLane = 0, provenMultiLane = 0;
  // Of those not proven, the ones uniform only through data loaded at
  // divergent addresses (onlyThroughLoadedData).
  uint64_t loadedDataMisses = 0;
  void add(const emu::UniformityRecorder::Observation &o, Uniformity u) {
    ++executed;
    observedWarpUniform += !o.warpDivergent;
    observedCtaUniform += !o.ctaDivergent;
    provenWarpUniform += u != Uniformity::Divergent;
    provenCtaUniform += u == Uniformity::CtaUniform;
    observedMultiLane += !o.warpDivergent && o.multiLane;
    provenMultiLane += !o.warpDivergent && o.multiLane && u != Uniformity::Divergent;
  }
  std::string row(const char *what) const {
    char buf[256];
    auto pct = [](uint64_t a, uint64_t b) { return b ? 100.0 * double(a) / double(b) : 0.0; };
    std::snprintf(buf, sizeof buf,
                  "%-9s %9llu  warp-uniform: observed %5.1f%%  proven %5.1f%% (%5.1f%% of observed)"
                  "  cta-uniform: observed %5.1f%%  proven %5.1f%% (%5.1f%% of observed)",
                  what, (unsigned long long)executed, pct(observedWarpUniform, executed),
                  pct(provenWarpUniform, executed), pct(provenWarpUniform, observedWarpUniform),
                  pct(observedCtaUniform, executed), pct(provenCtaUniform, executed),
                  pct(provenCtaUniform, observedCtaUniform));
    char multi[160];
    std::snprintf(
        multi, sizeof multi,
        "\n  %-9s %9s  warp-uniform in >= 2 lanes: observed %5.1f%%  proven %5.1f%% (%5.1f%% of observed)",
        "", "", pct(observedMultiLane, executed), pct(provenMultiLane, executed),
        pct(provenMultiLane, observedMultiLane));
    char code[200];
    std::snprintf(
        code, sizeof code,
        "\n  %-9s %9s  the same, less %llu uniform only through data loaded at divergent addresses: "
        "proven %5.1f%% of observed",
        "", "", (unsigned long long)loadedDataMisses,
        pct(provenMultiLane, observedMultiLane - loadedDataMisses));
    return std::string(buf) + multi + code;
  }
};

struct CaseOutcome {
  bool ran = false;
  std::vector<std::string> disagreements;
};

/// Points `c` at the -G build of its corpus file; false when there is none.
bool debugBuildOf(gpucase::Case &c) {
  std::string debug = ptxvm::test::debugBuildPath(c);
  if (debug.empty()) return false;
  c.ptx = debug;
  c.name += " (-G)";
  return true;
}

/// Where the divergence of a value the analysis calls divergent comes from:
/// following divergent operands (φ incoming values, instruction uses) back to
/// a root: an instruction whose operands are all uniform ("root OPCODE"), a
/// φ whose incoming values are ("gate"), or an entry value ("entry VAR").
std::string missCause(const ptx::Module &m, const analysis::DivergenceResult &result, const ptx::Function &fn,
                      uint32_t instr) {
  const analysis::FunctionDivergence *f = result.find(fn);
  if (!f) return "no-result";
  const analysis::SSA &ssa = f->gated().ssa();
  const analysis::DefUse &du = ssa.defUse();
  std::vector<char> seen(ssa.values().size(), 0);
  auto divergentUse = [&](uint32_t i) -> analysis::ValueId {
    auto uses = du.uses(i);
    auto values = ssa.useValues(i);
    for (size_t u = 0; u < uses.size(); ++u)
      if (values[u] != analysis::kNoValue && !seen[values[u]] &&
          f->valueLevel(values[u]) == Uniformity::Divergent)
        return values[u];
    return analysis::kNoValue;
  };
  analysis::ValueId v = divergentUse(instr);
  if (v == analysis::kNoValue) return "root " + ptx::instructionName(m, fn.instrs[instr]);
  for (int depth = 0; depth < 10000; ++depth) {
    seen[v] = 1;
    const analysis::Value &val = ssa.value(v);
    if (val.kind == analysis::ValueKind::Entry) return "entry " + du.varName(val.var);
    analysis::ValueId next = analysis::kNoValue;
    if (val.kind == analysis::ValueKind::Phi) {
      for (analysis::ValueId in : ssa.incoming(val.index))
        if (in != analysis::kNoValue && !seen[in] && f->valueLevel(in) == Uniformity::Divergent) {
          next = in;
          break;
        }
      if (next == analysis::kNoValue) return "gate";
    } else {
      next = divergentUse(val.index);
      if (next == analysis::kNoValue)
        return std::string(du.isPlaceVar(val.var) ? "place-write " : "root ") +
               ptx::instructionName(m, fn.instrs[val.index]);
    }
    v = next;
  }
  return "deep";
}

/// Whether every source of the divergence the analysis believes in, behind
/// a value or branch of instruction `instr`, is memory the run read at a
/// divergent address (a load, an atomic, a texture fetch): execution saw it
/// uniform because of the numbers in memory, which no analysis of the code
/// alone can know. Thread ids, shuffles, calls, parameters and gates are
/// sources of the code's own.
bool onlyThroughLoadedData(const analysis::DivergenceResult &result, const ptx::Function &fn,
                           uint32_t instr) {
  const analysis::FunctionDivergence *f = result.find(fn);
  if (!f) return false;
  const analysis::GatedSSA &g = f->gated();
  const analysis::SSA &ssa = g.ssa();
  const analysis::DefUse &du = ssa.defUse();
  const ptx::InstrTable &table = ptx::InstrTable::get();
  std::vector<char> seen(ssa.values().size(), 0);
  std::vector<analysis::ValueId> work;
  auto visit = [&](analysis::ValueId v) {
    if (v == analysis::kNoValue || f->valueLevel(v) != Uniformity::Divergent) return false;
    if (!seen[v]) seen[v] = 1, work.push_back(v);
    return true;
  };
  // The divergent operands of instruction i (of one role, or all); false when none is.
  auto visitUses = [&](uint32_t i, std::optional<analysis::UseRole> role) {
    bool any = false;
    auto uses = du.uses(i);
    auto values = ssa.useValues(i);
    for (size_t u = 0; u < uses.size(); ++u)
      if (!role || uses[u].role == *role) any |= visit(values[u]);
    return any;
  };
  auto readsMemory = [&](uint32_t i) {
    const ptx::Instruction &in = fn.instrs[i];
    return table.has(in.opcode, ptx::iflag::Load) || table.has(in.opcode, ptx::iflag::Atomic) ||
           table.has(in.opcode, ptx::iflag::Texture);
  };
  // What a thread's own local memory holds flows on from its stores.
  if (readsMemory(instr))
    visitUses(instr, analysis::UseRole::Memory);
  else if (!visitUses(instr, std::nullopt))
    return false;
  while (!work.empty()) {
    const analysis::Value &val = ssa.value(work.back());
    work.pop_back();
    if (val.kind == analysis::ValueKind::Entry) return false;
    if (val.kind == analysis::ValueKind::Phi) {
      bool any = false;
      for (analysis::ValueId in : ssa.incoming(val.index)) any |= visit(in);
      for (uint32_t br : g.gates(val.block))
        for (analysis::ValueId c : g.conditions(br)) any |= visit(c);
      for (uint32_t l : g.exitOf(val.block))
        for (uint32_t br : g.exitBranches(l))
          for (analysis::ValueId c : g.conditions(br)) any |= visit(c);
      if (!any) return false;
      continue;
    }
    if (readsMemory(val.index)) {
      visitUses(val.index, analysis::UseRole::Memory);
      continue;
    }
    if (!visitUses(val.index, std::nullopt)) return false;
  }
  return true;
}

/// missCause without the names of variables, and opcodes without their
/// modifiers: rows of a summary.
std::string causeGroup(std::string cause) {
  if (cause.starts_with("entry [")) return "entry value of a .param";
  if (cause.starts_with("entry ")) return "entry value";
  if (size_t at = cause.find('.', cause.find(' ') + 1); at != std::string::npos) cause.resize(at);
  return cause;
}

std::string topCauses(const Tally &t, size_t n) {
  std::vector<std::pair<uint64_t, std::string>> rows;
  uint64_t total = 0;
  for (const auto &[cause, count] : t.misses) rows.emplace_back(count, cause), total += count;
  std::sort(rows.rbegin(), rows.rend());
  std::string out;
  for (size_t i = 0; i < rows.size() && i < n; ++i) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "    %5.1f%%  %s\n",
                  total ? 100.0 * double(rows[i].first) / double(total) : 0.0, rows[i].second.c_str());
    out += buf;
  }
  return out;
}

/// What the analysis is told of the launch: nothing, its block shape, or
/// the whole launch (block, grid and the scalar arguments).
enum class Knowing { Nothing, Shape, Launch };

/// One analysis of a case's run: what it knows, and where its counts go.
struct Analysis {
  Knowing knowing;
  Tally *values, *branches;
};

/// The bytes of each scalar argument of a case's launch (buffers' addresses
/// left unknown), as `ptxvm analyze --arg` gives them.
std::vector<std::vector<uint8_t>> scalarArguments(const gpucase::Case &c, const emu::Kernel &kernel,
                                                  const emu::LaunchConfig &config) {
  std::vector<std::vector<uint8_t>> out(kernel.paramOffsets.size());
  for (size_t i = 0; i < c.args.size() && i < out.size(); ++i) {
    if (c.args[i].isBuffer || c.args[i].object != gpucase::Object::None) continue;
    const auto begin = config.params.begin() + kernel.paramOffsets[i];
    out[i].assign(begin, begin + kernel.paramSizes[i]);
  }
  return out;
}

void analyseRun(const gpucase::Case &c, const ptx::Module &m, const emu::Kernel &k,
                const emu::LaunchConfig &config, const emu::UniformityRecorder &recorder, const Analysis &a,
                CaseOutcome &out);

/// Runs case `c` once, recording what execution saw, and checks each
/// analysis against the recording.
CaseOutcome checkCase(const gpucase::Case &c, std::span<const Analysis> analyses) {
  CaseOutcome out;
  std::string text;
  ptx::DiagnosticList diags;
  if (!ptx::readFile((fs::path(PTXVM_SOURCE_DIR) / c.ptx).string(), text, diags)) return out;
  auto module = ptx::parseModule(std::move(text), c.ptx, diags);
  ptx::verifyModule(*module, diags);
  if (diags.hasErrors()) return out;
  emu::Device device;
  auto kernel = device.decode(*module, c.kernel, diags);
  if (!kernel) return out;

  // The registers each instruction writes, numbered as the analysis numbers
  // them. Calls write their results at the return and bar.red at the
  // barrier's completion: the recorder does not see those.
  std::map<const ptx::Function *, std::unique_ptr<analysis::DefUse>> defUse;
  auto defs = [&](uint32_t pc) {
    std::vector<uint32_t> regs;
    const emu::DInstr &in = kernel->code[pc];
    if (in.control != emu::Control::Next) return regs;
    const ptx::Function &fn = kernel->functionOf(in);
    auto &du = defUse[&fn];
    if (!du) du = std::make_unique<analysis::DefUse>(*module, fn);
    std::vector<std::pair<uint16_t, uint32_t>> ordered;
    for (const analysis::Def &d : du->defs(in.irIndex))
      if (d.registerIndex != analysis::Def::kNotRegister) ordered.emplace_back(d.registerIndex, d.var);
    std::sort(ordered.begin(), ordered.end());
    for (auto [k, var] : ordered) regs.push_back(var);
    return regs;
  };
  emu::UniformityRecorder recorder(*kernel, defs);
  emu::LaunchConfig config;
  ptxvm::test::CaseBuffers buffers = ptxvm::test::prepareCase(c, device, *kernel, config);
  config.maxInstructions = 200'000'000;
  config.observers.push_back(&recorder);
  ptx::DiagnosticList runDiags;
  device.launch(*kernel, config, runDiags);
  out.ran = true;

  for (const Analysis &a : analyses) analyseRun(c, *module, *kernel, config, recorder, a, out);
  return out;
}

/// Checks one analysis of a case against what its run recorded.
void analyseRun(const gpucase::Case &c, const ptx::Module &m, const emu::Kernel &k,
                const emu::LaunchConfig &config, const emu::UniformityRecorder &recorder, const Analysis &a,
                CaseOutcome &out) {
  const ptx::Module *module = &m;
  const emu::Kernel *kernel = &k;
  Tally &values = *a.values, &branches = *a.branches;
  analysis::DivergenceOptions options;
  if (a.knowing != Knowing::Nothing)
    options.block = analysis::LaunchShape::exact(c.block[0], c.block[1], c.block[2]);
  if (a.knowing == Knowing::Launch) {
    options.grid = {c.grid[0], c.grid[1], c.grid[2]};
    options.arguments = scalarArguments(c, k, config);
  }
  analysis::DivergenceResult result = analysis::analyzeDivergence(*module, *kernel->function, options);
  const std::string block = "block " + std::to_string(c.block[0]) + "x" + std::to_string(c.block[1]) + "x" +
                            std::to_string(c.block[2]);
  const std::string knowing = a.knowing == Knowing::Nothing ? std::string("any shape")
                              : a.knowing == Knowing::Shape ? block
                                                            : "the launch: " + block + ", grid and arguments";
  auto where = [&](const emu::DInstr &in) {
    return c.name + " (" + knowing + "): line " +
           std::to_string(kernel->line(static_cast<uint32_t>(&in - kernel->code.data()))) + " '" +
           ptx::instructionName(*module, kernel->instr(in)) + "'";
  };
  auto check = [&](const emu::UniformityRecorder::Observation &o, Uniformity u, const std::string &what) {
    if (!o.executed) return;
    if (u != Uniformity::Divergent && o.warpDivergent)
      out.disagreements.push_back(what + ": proven " + std::string(analysis::uniformityName(u)) +
                                  ", but lanes of a warp differed");
    else if (u == Uniformity::CtaUniform && o.ctaDivergent)
      out.disagreements.push_back(what + ": proven cta-uniform, but threads of a CTA differed");
  };
  for (uint32_t pc = 0; pc < kernel->code.size(); ++pc) {
    const emu::DInstr &in = kernel->code[pc];
    const ptx::Function &fn = kernel->functionOf(in);
    if (in.control == emu::Control::Branch) {
      Uniformity u = result.branch(fn, in.irIndex);
      const auto &o = recorder.branch(pc);
      check(o, u, where(in) + " branch");
      if (o.executed) branches.add(o, u);
      if (o.executed && !o.warpDivergent && u == Uniformity::Divergent) {
        const bool loadedData = o.multiLane && onlyThroughLoadedData(result, fn, in.irIndex);
        branches.loadedDataMisses += loadedData;
        if (std::getenv("PTXVM_SOUNDNESS_MISSES"))
          std::printf("MISS branch %s%s\n", where(in).c_str(),
                      !o.multiLane ? " | one lane at a time"
                      : loadedData ? " | (through loaded data)"
                                   : "");
      }
      continue;
    }
    for (unsigned k = 0; k < recorder.numDefinitions(pc); ++k) {
      Uniformity u = result.value(fn, in.irIndex, k);
      const auto &o = recorder.definition(pc, k);
      check(o, u, where(in) + " value " + std::to_string(k));
      if (o.executed) values.add(o, u);
      if (o.executed && !o.warpDivergent && u == Uniformity::Divergent) {
        std::string cause =
            o.multiLane ? missCause(*module, result, fn, in.irIndex) : std::string("one lane at a time");
        ++values.misses[causeGroup(cause)];
        if (o.multiLane && onlyThroughLoadedData(result, fn, in.irIndex)) {
          ++values.loadedDataMisses;
          cause += " (through loaded data)";
        }
        if (std::getenv("PTXVM_SOUNDNESS_MISSES"))
          std::printf("MISS value %s | %s\n", where(in).c_str(), cause.c_str());
      }
    }
  }
}

TEST(Soundness, TheAnalysisAgreesWithEveryCorpusRun) {
  // By Knowing: nothing, the block shape, the whole launch.
  Tally values[3], branches[3], debugValues[2], debugBranches[2];
  size_t ran = 0, skipped = 0, debugRan = 0;
  std::vector<std::string> disagreements;
#ifdef PTXVM_SANITIZED
  // Under the sanitizers (the main suite runs all of it): the analyses and
  // the recorder on every case at its launch shape and launch, the unknown
  // shape and the -G build of every third case: the same code paths.
  constexpr size_t kSample = 3;
#else
  constexpr size_t kSample = 1;
#endif
  size_t index = 0;
  for (const std::string &path : caseFiles()) {
    const bool sampled = index++ % kSample == 0;
    gpucase::Case c;
    try {
      c = gpucase::parseCase(path);
    } catch (const std::exception &e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    std::vector<Analysis> analyses = {{Knowing::Shape, &values[1], &branches[1]},
                                      {Knowing::Launch, &values[2], &branches[2]}};
    if (sampled) analyses.push_back({Knowing::Nothing, &values[0], &branches[0]});
    CaseOutcome o = checkCase(c, analyses);
    disagreements.insert(disagreements.end(), o.disagreements.begin(), o.disagreements.end());
    ran += o.ran;
    skipped += !o.ran;
    // The same kernel compiled with -G: unoptimised, values through local
    // memory, many labels per block.
    if (gpucase::Case debug = c; sampled && debugBuildOf(debug)) {
      const Analysis debugAnalyses[] = {{Knowing::Shape, &debugValues[0], &debugBranches[0]},
                                        {Knowing::Launch, &debugValues[1], &debugBranches[1]}};
      CaseOutcome d = checkCase(debug, debugAnalyses);
      debugRan += d.ran;
      disagreements.insert(disagreements.end(), d.disagreements.begin(), d.disagreements.end());
    }
  }
  EXPECT_GT(ran, 50u) << "too few corpus cases ran";
  EXPECT_GT(debugRan, 50u / kSample) << "too few -G builds of corpus cases ran";
  std::string list;
  for (size_t i = 0; i < disagreements.size() && i < 50; ++i) list += "  " + disagreements[i] + "\n";
  EXPECT_TRUE(disagreements.empty()) << disagreements.size() << " disagreements:\n" << list;
  std::printf("soundness: %zu cases run (%zu skipped), %zu disagreements\n", ran, skipped,
              disagreements.size());
  std::printf("precision, block shape unknown:\n  %s\n  %s\n", values[0].row("values").c_str(),
              branches[0].row("branches").c_str());
  std::printf("precision, block shape of the launch:\n  %s\n  %s\n", values[1].row("values").c_str(),
              branches[1].row("branches").c_str());
  std::printf("precision, the whole launch (block shape, grid and scalar arguments):\n  %s\n  %s\n",
              values[2].row("values").c_str(), branches[2].row("branches").c_str());
  std::printf("precision, -G builds (%zu cases), block shape of the launch:\n  %s\n  %s\n", debugRan,
              debugValues[0].row("values").c_str(), debugBranches[0].row("branches").c_str());
  std::printf("precision, -G builds, the whole launch:\n  %s\n  %s\n", debugValues[1].row("values").c_str(),
              debugBranches[1].row("branches").c_str());
  // Where the rest is lost: the source of the divergence the analysis
  // believes in, for values execution saw warp-uniform (PTXVM_SOUNDNESS_MISSES=1
  // lists them one by one).
  std::printf("values observed warp-uniform, not proven, by the source of their divergence "
              "(launch shape):\n%s",
              topCauses(values[1], 10).c_str());
  std::printf("the same, -G builds:\n%s", topCauses(debugValues[0], 10).c_str());
}

} // namespace
