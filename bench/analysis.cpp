// bench_analysis: how the analyses scale. Generates kernels of growing size
// (straight-line code, nested branches, loops, three families of
// irreducible control flow from tests/analysis/Generators.h and random
// graphs; 1k to 100k instructions), runs each analysis on them and prints microseconds per
// instruction. A near-linear analysis keeps its column flat as the size
// grows.
//   bench_analysis [SHAPE...]          only these shapes
//   bench_analysis --emit SHAPE SIZE   print one generated kernel
#include "analysis/Analyses.h"
#include "analysis/BarrierCheck.h"
#include "analysis/Divergence.h"
#include "ptx/Parser.h"
#include "tests/analysis/Generators.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace analysis;

namespace {

/// PTX text of one kernel with about `target` instructions. Every value gets
/// a fresh register, as nvcc's output does.
class Generator {
public:
  std::string kernel(const std::string &shape, size_t target) {
    body_.clear();
    reg_ = 3;
    pred_ = 0;
    label_ = 0;
    count_ = 0;
    emit("mov.u32 %r1, %tid.x;");
    emit("ld.param.u32 %r2, [n];");
    emit("mov.u32 %r3, %ctaid.x;");
    uint32_t value = 3; // the chain of values continues from block to block
    while (count_ < target) {
      if (shape == "straight")
        value = straight(8, value);
      else if (shape == "branches")
        value = diamond(3, value);
      else
        value = loop(2, value);
    }
    emit("ret;");
    std::string out =
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u32 n)\n{\n";
    out += "\t.reg .pred %p<" + std::to_string(pred_ + 2) + ">;\n\t.reg .b32 %r<" + std::to_string(reg_ + 2) +
           ">;\n" + body_ + "}\n";
    return out;
  }

private:
  void emit(const std::string &line) {
    body_ += "\t" + line + "\n";
    ++count_;
  }
  std::string r(uint32_t k) const { return "%r" + std::to_string(k); }
  /// A few arithmetic instructions, each on the previous result (defined
  /// on the current path) and the uniform or divergent inputs %r1..%r3.
  uint32_t straight(int n, uint32_t in) {
    uint32_t prev = in, before = in;
    for (int i = 0; i < n; ++i) {
      uint32_t d = ++reg_;
      switch (i % 4) {
      case 0: emit("add.u32 " + r(d) + ", " + r(prev) + ", " + r(1 + d % 3) + ";"); break;
      case 1: emit("mad.lo.u32 " + r(d) + ", " + r(prev) + ", 3, " + r(3) + ";"); break;
      case 2: emit("shr.u32 " + r(d) + ", " + r(before) + ", 5;"); break;
      default: emit("xor.b32 " + r(d) + ", " + r(prev) + ", " + r(2) + ";"); break;
      }
      before = prev;
      prev = d;
    }
    return prev;
  }
  /// if-then-else nested `depth` deep; the join combines the value from
  /// before the branch.
  uint32_t diamond(int depth, uint32_t in) {
    uint32_t p = ++pred_, id = ++label_;
    emit("setp.lt.u32 %p" + std::to_string(p) + ", " + r(in) + ", " + r(1 + id % 3) + ";");
    emit("@%p" + std::to_string(p) + " bra ELSE" + std::to_string(id) + ";");
    uint32_t t = straight(3, in);
    if (depth > 1) diamond(depth - 1, t);
    emit("bra JOIN" + std::to_string(id) + ";");
    body_ += "ELSE" + std::to_string(id) + ":\n";
    uint32_t e = straight(3, in);
    if (depth > 1) diamond(depth - 1, e);
    body_ += "JOIN" + std::to_string(id) + ":\n";
    uint32_t out = ++reg_;
    emit("add.u32 " + r(out) + ", " + r(in) + ", 1;");
    if (id % 16 == 0) emit("bar.sync 0;");
    return out;
  }
  /// Loops nested `depth` deep: inner ones run a uniform number of times,
  /// the outer one a divergent number.
  uint32_t loop(int depth, uint32_t in) {
    uint32_t id = ++label_, counter = ++reg_, p = ++pred_;
    emit("mov.u32 " + r(counter) + ", 0;");
    body_ += "LOOP" + std::to_string(id) + ":\n";
    uint32_t v = straight(6, in);
    if (depth > 1) v = loop(depth - 1, v);
    emit("add.u32 " + r(counter) + ", " + r(counter) + ", 1;");
    emit("setp.lt.u32 %p" + std::to_string(p) + ", " + r(counter) + ", " + (depth > 1 ? r(1) : r(2)) + ";");
    emit("@%p" + std::to_string(p) + " bra LOOP" + std::to_string(id) + ";");
    return v;
  }

  std::string body_;
  uint32_t reg_ = 0, pred_ = 0, label_ = 0;
  size_t count_ = 0;
};

/// Sizes are measured once, not three times, when one run takes this long;
/// larger sizes of a shape are skipped after one that took kSkipAbove (ten
/// times the size would take minutes unless the analyses scale linearly).
constexpr double kRepeatBelow = 5, kSkipAbove = 3;

/// CPU time of this thread: what a run costs whatever else the machine
/// is doing (wall time on a loaded machine says more about the load).
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double seconds(const std::function<void()> &f) {
  double t0 = cpuSeconds();
  f();
  return cpuSeconds() - t0;
}

constexpr const char *kIrreduciblePrefix = "irr-";

/// The random CFG family: test::randomProgram with a fixed seed and the
/// thread id as every brx.idx index, so its branches are divergent. Most of
/// its branches reconverge only at the exit: a branch's region (every block
/// it reaches before reconverging) is a sizeable part of the function, and
/// the regions' total grows with the square of the size.
constexpr const char *kRandom = "irr-random";

/// A kernel of about `size` instructions of the named shape: the reducible
/// ones above, `irr-` and an IrreducibleShape name, or kRandom.
std::string kernelOf(const std::string &shape, size_t size) {
  if (shape.rfind(kIrreduciblePrefix, 0) != 0) return Generator().kernel(shape, size);
  std::function<std::string(uint32_t)> byBlocks;
  if (shape == kRandom) {
    byBlocks = [](uint32_t blocks) {
      std::mt19937 rng(1);
      std::string text = test::randomProgram(blocks, rng);
      size_t body = text.find("L0:");
      return text.insert(body, "\tmov.u32 %r7, %tid.x;\n");
    };
  } else if (auto irr = test::irreducibleShapeNamed(shape.substr(4))) {
    byBlocks = [irr](uint32_t blocks) { return test::irreducibleKernel(*irr, blocks); };
  } else {
    return {};
  }
  // Instructions per block, from a small sample of the same shape.
  ptx::DiagnosticList diags;
  const uint32_t sample = 1000;
  auto m = ptx::parseModule(byBlocks(sample), "sample.ptx", diags);
  double perBlock = static_cast<double>(m->functions[0].instrs.size()) / sample;
  return byBlocks(static_cast<uint32_t>(static_cast<double>(size) / perBlock));
}

} // namespace

int main(int argc, char **argv) {
  // bench_analysis --emit SHAPE SIZE: print one generated kernel.
  std::vector<std::string> shapes = {"straight", "branches", "loops"};
  for (test::IrreducibleShape s : test::kIrreducibleShapes)
    shapes.push_back(kIrreduciblePrefix + std::string(test::irreducibleShapeName(s)));
  shapes.push_back(kRandom);
  auto known = [&](const std::string &s) {
    return std::find(shapes.begin(), shapes.end(), s) != shapes.end();
  };
  if (argc == 4 && std::string(argv[1]) == "--emit") {
    if (!known(argv[2])) {
      std::fprintf(stderr, "bench_analysis: unknown shape '%s'\n", argv[2]);
      return 2;
    }
    std::fputs(kernelOf(argv[2], std::stoul(argv[3])).c_str(), stdout);
    return 0;
  }
  if (argc > 1) {
    std::vector<std::string> chosen(argv + 1, argv + argc);
    for (const std::string &s : chosen)
      if (!known(s)) {
        std::fprintf(stderr, "bench_analysis: unknown shape '%s'\n", s.c_str());
        return 2;
      }
    shapes = chosen;
  }
  const char *names[] = {"cfg",      "dom+post", "frontier", "loops",      "def-use",
                         "liveness", "ssa",      "gated",    "divergence", "barriers"};
  std::printf("CPU microseconds per instruction (best of 3 runs; one run where it takes over %.0f s)\n",
              kRepeatBelow);
  std::printf("%-13s %7s %7s", "shape", "instrs", "blocks");
  for (const char *n : names) std::printf(" %10s", n);
  std::printf(" %10s\n", "total");
  for (const std::string &shape : shapes) {
    bool tooSlow = false;
    for (size_t size : {1000, 10000, 100000}) {
      // Regions quadratic in the size (see kRandom): a tenth of the
      // largest size already holds millions of region nodes.
      if (shape == kRandom && size > 10000) {
        std::printf("%-13s %7zu   (not run: its regions alone are quadratic in the size)\n", shape.c_str(),
                    size);
        continue;
      }
      if (tooSlow) {
        std::printf("%-13s %7zu   (skipped: the previous size took over %.0f s)\n", shape.c_str(), size,
                    kSkipAbove);
        continue;
      }
      std::string text = kernelOf(shape, size);
      ptx::DiagnosticList diags;
      auto m = ptx::parseModule(text, shape + ".ptx", diags);
      if (diags.hasErrors()) {
        std::fprintf(stderr, "%s", diags.renderText().c_str());
        return 1;
      }
      const ptx::Function &fn = m->functions[0];
      const double n = static_cast<double>(fn.instrs.size());
      std::vector<double> best(std::size(names), 1e30);
      for (int run = 0; run < 3; ++run) {
        if (run > 0 && std::accumulate(best.begin(), best.end(), 0.0) > kRepeatBelow) break;
        std::vector<double> t;
        // Each analysis on its own, in dependency order, as the pass
        // manager would compute them.
        std::unique_ptr<Cfg> cfg;
        DominatorTree dom, post;
        std::unique_ptr<DominanceFrontier> df;
        std::unique_ptr<LoopForest> loops;
        std::unique_ptr<DefUse> du;
        std::unique_ptr<Liveness> live;
        std::unique_ptr<SSA> ssa;
        std::unique_ptr<GatedSSA> gated;
        t.push_back(seconds([&] { cfg = std::make_unique<Cfg>(fn); }));
        t.push_back(seconds([&] {
          dom = DominatorTree::forward(*cfg);
          post = DominatorTree::backward(*cfg);
        }));
        t.push_back(seconds([&] { df = std::make_unique<DominanceFrontier>(cfg->graph(), dom); }));
        t.push_back(seconds([&] { loops = std::make_unique<LoopForest>(*cfg); }));
        t.push_back(seconds([&] { du = std::make_unique<DefUse>(*m, fn); }));
        t.push_back(seconds([&] { live = std::make_unique<Liveness>(*cfg, *du); }));
        t.push_back(seconds([&] { ssa = std::make_unique<SSA>(*cfg, dom, *df, *loops, *du, *live); }));
        t.push_back(seconds([&] { gated = std::make_unique<GatedSSA>(*cfg, post, *loops, *ssa); }));
        // The divergence solver and the barrier checks, on analyses the
        // manager has cached already.
        AnalysisManager am(*m);
        am.get<GatedSSAAnalysis>(fn);
        DivergenceResult result;
        const ptx::Function *roots[] = {&fn};
        t.push_back(seconds([&] { result = analyzeDivergence(am, roots); }));
        t.push_back(seconds([&] { checkBarriers(*m, result); }));
        for (size_t k = 0; k < t.size(); ++k) best[k] = std::min(best[k], t[k]);
      }
      double total = 0;
      std::printf("%-13s %7zu %7zu", shape.c_str(), fn.instrs.size(), fn.blocks.size());
      for (double b : best) {
        std::printf(" %10.3f", b * 1e6 / n);
        total += b;
      }
      std::printf(" %10.3f\n", total * 1e6 / n);
      std::fflush(stdout);
      tooSlow = total > kSkipAbove;
    }
  }
  return 0;
}
