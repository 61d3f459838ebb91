// Parallel-copy sequentialization (Boissinot, Darte, Rastello, Dupont de
// Dinechin and Guillon, "Revisiting Out-of-SSA Translation for Correctness,
// Code Quality, and Efficiency", CGO 2009, Algorithm 1) and the φ copies.
#include "analysis/OutOfSSA.h"

#include <unordered_map>

namespace analysis {

std::vector<Copy> sequentialize(std::span<const Copy> parallel, uint32_t temp) {
  std::vector<Copy> out;
  // pred[a]: where a's value comes from; loc[b]: where b's original value
  // is now (it moves when b is copied out before being overwritten).
  std::unordered_map<uint32_t, uint32_t> pred, loc;
  std::vector<uint32_t> ready, todo;
  for (const Copy &c : parallel) {
    if (c.dst == c.src) continue;
    loc[c.src] = c.src;
    pred[c.dst] = c.src;
    todo.push_back(c.dst);
  }
  // Destinations nobody reads can be written at once.
  for (uint32_t a : todo)
    if (!loc.count(a)) ready.push_back(a);
  while (!todo.empty()) {
    while (!ready.empty()) {
      uint32_t a = ready.back();
      ready.pop_back();
      uint32_t b = pred[a], c = loc[b];
      out.push_back({a, c});
      loc[b] = a;
      // b's own value is safe in a now: b may be overwritten.
      if (b == c && pred.count(b)) ready.push_back(b);
    }
    uint32_t a = todo.back();
    todo.pop_back();
    if (loc[pred[a]] != a) {
      // Still pending: a cycle. Save a in the temporary and go on.
      out.push_back({temp, a});
      loc[a] = temp;
      ready.push_back(a);
    }
  }
  return out;
}

std::vector<EdgeCopies> phiCopies(const SSA &ssa, std::span<const uint32_t> registerOf, uint32_t temp) {
  const Cfg &cfg = ssa.cfg();
  std::vector<EdgeCopies> out;
  for (uint32_t j = 0; j < cfg.size(); ++j) {
    auto phis = ssa.phisOf(j);
    if (phis.empty()) continue;
    auto preds = cfg.preds(j);
    for (uint32_t k = 0; k < preds.size(); ++k) {
      uint32_t from = preds[k];
      if (cfg.isFakeEdge(from, j) || !cfg.reachable(from)) continue;
      std::vector<Copy> parallel;
      for (uint32_t p : phis) {
        ValueId in = ssa.incoming(p)[k];
        if (in != kNoValue) parallel.push_back({registerOf[ssa.phis()[p].value], registerOf[in]});
      }
      std::vector<Copy> moves = sequentialize(parallel, temp);
      if (moves.empty()) continue;
      uint32_t realSuccs = 0;
      for (uint32_t s : cfg.succs(from)) realSuccs += !cfg.isFakeEdge(from, s);
      out.push_back({from, j, realSuccs > 1 && preds.size() > 1, std::move(moves)});
    }
  }
  return out;
}

} // namespace analysis
