// PTX generators for the analysis tests.
#include "tests/analysis/Generators.h"

#include <algorithm>

namespace analysis::test {

namespace {

std::string terminator(uint32_t b, const std::vector<uint32_t> &succs, const char *indexReg) {
  std::string out;
  if (succs.empty()) return "\tret;\n";
  if (succs.size() == 1) return "\tbra L" + std::to_string(succs[0]) + ";\n";
  out += "T" + std::to_string(b) + ": .branchtargets ";
  for (size_t i = 0; i < succs.size(); ++i) out += (i ? ", L" : "L") + std::to_string(succs[i]);
  out += ";\n\tbrx.idx " + std::string(indexReg) + ", T" + std::to_string(b) + ";\n";
  return out;
}

std::vector<std::vector<uint32_t>> successors(uint32_t n,
                                              const std::vector<std::pair<uint32_t, uint32_t>> &edges) {
  std::vector<std::vector<uint32_t>> succs(n);
  for (auto [a, b] : edges) succs[a].push_back(b);
  return succs;
}

} // namespace

std::string graphKernel(uint32_t numBlocks, const std::vector<std::pair<uint32_t, uint32_t>> &edges) {
  auto succs = successors(numBlocks, edges);
  std::string out = std::string(kModuleHeader) + "\n";
  out += ".visible .entry g()\n{\n\t.reg .b32 %r<4>;\n";
  for (uint32_t b = 0; b < numBlocks; ++b) {
    out += "L" + std::to_string(b) + ":\n\tadd.u32 %r1, %r1, " + std::to_string(b) + ";\n";
    out += terminator(b, succs[b], "%r1");
  }
  out += "}\n";
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> randomEdges(uint32_t n, std::mt19937 &rng) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::uniform_int_distribution<uint32_t> degree(0, 3), node(0, n - 1);
  for (uint32_t b = 0; b < n; ++b) {
    uint32_t d = std::min(degree(rng), n);
    std::vector<uint32_t> succ;
    if (b + 1 < n && d > 0) succ.push_back(b + 1);
    while (succ.size() < d) {
      uint32_t s = node(rng);
      bool fresh = true;
      for (uint32_t t : succ) fresh &= t != s;
      if (fresh) succ.push_back(s);
    }
    for (uint32_t s : succ) edges.emplace_back(b, s);
  }
  return edges;
}

std::string randomProgram(uint32_t n, std::mt19937 &rng) {
  auto succs = successors(n, randomEdges(n, rng));
  std::uniform_int_distribution<uint32_t> reg(1, 6), count(0, 3), coin(0, 3);
  std::string out = std::string(kModuleHeader) + "\n";
  out += ".visible .entry r()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n";
  for (uint32_t b = 0; b < n; ++b) {
    out += "L" + std::to_string(b) + ":\n";
    for (uint32_t k = count(rng); k > 0; --k) {
      std::string d = "%r" + std::to_string(reg(rng)), a = "%r" + std::to_string(reg(rng));
      switch (coin(rng)) {
      case 0: out += "\tmov.u32 " + d + ", " + std::to_string(b) + ";\n"; break;
      case 1: out += "\t@%p1 add.u32 " + d + ", " + a + ", 1;\n"; break;
      case 2: out += "\tsetp.lt.u32 %p1, " + a + ", " + d + ";\n"; break;
      default: out += "\tadd.u32 " + d + ", " + a + ", " + d + ";\n"; break;
      }
    }
    out += terminator(b, succs[b], "%r7");
  }
  out += "}\n";
  return out;
}

namespace {

/// Writes the kernel of irreducibleKernel, one region at a time. %r1..%r3
/// are the thread id, the parameter n and the CTA id; %r4..%r7 are the
/// long-lived values (even: divergent, odd: uniform).
class IrreducibleWriter {
public:
  explicit IrreducibleWriter(Conditions conditions) : conditions_(conditions) {}

  std::string kernel(IrreducibleShape shape, uint32_t numBlocks) {
    emit("mov.u32 %r1, %tid.x;");
    emit("ld.param.u32 %r2, [n];");
    emit("mov.u32 %r3, %ctaid.x;");
    emit("mul.lo.u32 %r4, %r1, 3;");
    emit("add.u32 %r5, %r2, %r3;");
    emit("xor.b32 %r6, %r1, %r2;");
    emit("mul.lo.u32 %r7, %r3, 7;");
    emit("ld.param.u64 %rd1, [out];");
    blocks_ = 1;
    uint32_t chain = 5;
    if (shape == IrreducibleShape::Ladder) {
      chain = ladder(chain, numBlocks);
    } else {
      // Each region adds 3 blocks per level of nesting.
      while (blocks_ + 2 < numBlocks) {
        uint32_t depth = shape == IrreducibleShape::Nested ? 1 + region_ % 4 : 1;
        depth = std::max<uint32_t>(1, std::min(depth, (numBlocks - blocks_) / 3));
        chain = twoEntry(chain, depth);
      }
    }
    emit("st.global.u32 [%rd1], " + r(chain) + ";");
    for (uint32_t k = 4; k <= 7; ++k)
      emit("st.global.u32 [%rd1+" + std::to_string(4 * (k - 3)) + "], " + r(k) + ";");
    emit("ret;");
    std::string out = std::string(kModuleHeader) + "\n";
    out += ".visible .entry irr(.param .u64 out, .param .u32 n)\n{\n";
    out += "\t.reg .pred %p<" + std::to_string(pred_ + 1) + ">;\n";
    out += "\t.reg .b32 %r<" + std::to_string(reg_ + 1) + ">;\n";
    out += "\t.reg .b64 %rd<2>;\n";
    out += body_ + "}\n";
    return out;
  }

private:
  void emit(const std::string &line) { body_ += "\t" + line + "\n"; }
  void place(const std::string &label) {
    body_ += label + ":\n";
    ++blocks_;
  }
  std::string r(uint32_t k) const { return "%r" + std::to_string(k); }
  std::string p(uint32_t k) const { return "%p" + std::to_string(k); }
  uint32_t freshReg() { return ++reg_; }
  uint32_t freshPred() { return ++pred_; }
  bool divergent(uint32_t region) const {
    return conditions_ == Conditions::Divergent || (conditions_ == Conditions::Mixed && region % 2 == 0);
  }
  /// A long-lived register of the region's kind.
  std::string longLived(uint32_t region) const {
    return r((divergent(region) ? 4 : 5) + 2 * (region / 2 % 2));
  }
  /// The condition of the branch that picks a loop's entry: the thread id
  /// or the CTA id against a constant.
  std::string entryCondition(uint32_t region, uint32_t pred) const {
    return "setp.lt.u32 " + p(pred) + ", " + (divergent(region) ? r(1) : r(3)) + ", " +
           std::to_string(region % 29 + 1) + ";";
  }
  /// A trip-count test: counter against a divergent or a uniform bound.
  std::string tripCondition(uint32_t region, const char *cmp, uint32_t pred, uint32_t counter) const {
    return std::string("setp.") + cmp + ".u32 " + p(pred) + ", " + r(counter) + ", " + longLived(region) +
           ";";
  }

  /// A two-entry loop B <-> C entered from the current block, `depth` - 1
  /// more nested inside B; returns the register holding the result.
  uint32_t twoEntry(uint32_t in, uint32_t depth) {
    const uint32_t k = region_++, counter = freshReg(), w = freshReg();
    const std::string id = std::to_string(k);
    emit("mov.u32 " + r(counter) + ", 0;");
    emit("mov.u32 " + r(w) + ", " + r(in) + ";");
    uint32_t pa = freshPred();
    emit(entryCondition(k, pa));
    emit("@" + p(pa) + " bra C" + id + ";");
    place("B" + id);
    emit("add.u32 " + r(w) + ", " + r(w) + ", " + longLived(k) + ";");
    if (depth > 1) {
      uint32_t inner = twoEntry(w, depth - 1);
      emit("mov.u32 " + r(w) + ", " + r(inner) + ";");
    }
    emit("add.u32 " + r(counter) + ", " + r(counter) + ", 1;");
    uint32_t pb = freshPred();
    emit(tripCondition(k, "ge", pb, counter));
    emit("@" + p(pb) + " bra X" + id + ";");
    place("C" + id);
    emit("xor.b32 " + r(w) + ", " + r(w) + ", " + r(counter) + ";");
    emit("add.u32 " + r(counter) + ", " + r(counter) + ", 1;");
    uint32_t pc = freshPred();
    emit(tripCondition(k, "lt", pc, counter));
    emit("@" + p(pc) + " bra B" + id + ";");
    place("X" + id);
    uint32_t out = freshReg();
    emit("add.u32 " + r(out) + ", " + r(w) + ", " + longLived(k + 1) + ";");
    return out;
  }

  /// Regions H -> M -> T -> H, M also jumping to the next region's M, inside
  /// one loop from the first H to the block after the last region.
  uint32_t ladder(uint32_t in, uint32_t numBlocks) {
    const uint32_t counter = freshReg(), w = freshReg(), trips = freshReg();
    emit("mov.u32 " + r(counter) + ", 0;");
    emit("mov.u32 " + r(w) + ", " + r(in) + ";");
    emit("mov.u32 " + r(trips) + ", 0;");
    const uint32_t regions = std::max<uint32_t>(1, (numBlocks > 3 ? numBlocks - 3 : 0) / 3);
    for (uint32_t k = 0; k < regions; ++k) {
      const std::string id = std::to_string(k);
      region_ = k;
      place("H" + id);
      emit("add.u32 " + r(w) + ", " + r(w) + ", " + longLived(k) + ";");
      place("M" + id);
      emit("add.u32 " + r(counter) + ", " + r(counter) + ", 1;");
      emit("xor.b32 " + r(w) + ", " + r(w) + ", " + r(counter) + ";");
      uint32_t pm = freshPred();
      emit(entryCondition(k, pm));
      emit("@" + p(pm) + " bra " + (k + 1 < regions ? "M" + std::to_string(k + 1) : std::string("E")) + ";");
      place("T" + id);
      uint32_t pt = freshPred();
      emit(tripCondition(k, "lt", pt, counter));
      emit("@" + p(pt) + " bra H" + id + ";");
    }
    place("E");
    emit("add.u32 " + r(trips) + ", " + r(trips) + ", 1;");
    uint32_t pe = freshPred();
    emit("setp.lt.u32 " + p(pe) + ", " + r(trips) + ", " + r(2) + ";");
    emit("@" + p(pe) + " bra H0;");
    place("F");
    uint32_t out = freshReg();
    emit("add.u32 " + r(out) + ", " + r(w) + ", " + r(trips) + ";");
    return out;
  }

  Conditions conditions_;
  std::string body_;
  uint32_t reg_ = 7, pred_ = 0, blocks_ = 0, region_ = 0;
};

} // namespace

std::string_view irreducibleShapeName(IrreducibleShape s) {
  switch (s) {
  case IrreducibleShape::TwoEntry: return "two-entry";
  case IrreducibleShape::Nested: return "nested";
  case IrreducibleShape::Ladder: return "ladder";
  }
  return "?";
}

std::optional<IrreducibleShape> irreducibleShapeNamed(std::string_view name) {
  for (IrreducibleShape s : kIrreducibleShapes)
    if (irreducibleShapeName(s) == name) return s;
  return std::nullopt;
}

std::string irreducibleKernel(IrreducibleShape shape, uint32_t numBlocks, Conditions conditions) {
  return IrreducibleWriter(conditions).kernel(shape, numBlocks);
}

} // namespace analysis::test
