// PTX generators for the analysis tests.
#include "tests/analysis/Generators.h"

#include <algorithm>

namespace analysis::test {

namespace {

const char kHeader[] = ".version 8.0\n.target sm_80\n.address_size 64\n\n";

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
  std::string out = kHeader;
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
  std::string out = kHeader;
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

} // namespace analysis::test
