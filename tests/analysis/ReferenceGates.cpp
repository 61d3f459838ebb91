// The worklist label propagation, as an oracle for GatedSSA's regions.
#include "tests/analysis/ReferenceGates.h"

#include <algorithm>

namespace analysis::test {

ReferenceRegion referenceRegion(const GatedSSA &g, uint32_t br) {
  const Cfg &cfg = g.cfg();
  const LoopForest &loops = g.loops();
  const Branch &branch = g.branches()[br];
  const uint32_t x = branch.block, n = cfg.size();
  std::vector<uint32_t> label(n, kNone);
  std::vector<char> labeled(n, 0), isJoin(n, 0), queued(n, 0);
  auto stops = [&](uint32_t v) {
    if (v == branch.floor || v == cfg.exit()) return true;
    uint32_t l = loops.headerOf(v);
    return l != kNone && loops.contains(l, x);
  };
  ReferenceRegion out;
  std::vector<uint32_t> work;
  auto push = [&](uint32_t v) {
    if (queued[v]) return;
    queued[v] = 1;
    work.push_back(v);
  };
  for (uint32_t s : g.sides(br)) push(s);
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    queued[v] = 0;
    uint32_t l = kNone;
    bool join = false;
    for (uint32_t p : cfg.preds(v)) {
      if (cfg.isFakeEdge(p, v)) continue;
      uint32_t incoming = p == x ? v : (labeled[p] && !stops(p) ? label[p] : kNone);
      if (incoming == kNone) continue;
      if (l == kNone)
        l = incoming;
      else if (l != incoming)
        join = true;
    }
    if (l == kNone) continue;
    if (join) l = v;
    bool changed = !labeled[v] || label[v] != l;
    if (!labeled[v]) {
      labeled[v] = 1;
      out.region.push_back({v, 0});
    }
    if (join && !isJoin[v]) {
      isJoin[v] = 1;
      out.joins.push_back(v);
    }
    label[v] = l;
    if (changed && !stops(v))
      for (uint32_t s : cfg.succs(v))
        if (!cfg.isFakeEdge(v, s)) push(s);
  }
  auto sides = g.sides(br);
  for (RegionNode &r : out.region) {
    uint32_t l = label[r.node];
    auto it = std::find(sides.begin(), sides.end(), l);
    r.side = isJoin[l] || it == sides.end() ? RegionNode::kMixed : static_cast<uint32_t>(it - sides.begin());
  }
  std::sort(out.region.begin(), out.region.end(),
            [](const RegionNode &a, const RegionNode &b) { return a.node < b.node; });
  std::sort(out.joins.begin(), out.joins.end());
  return out;
}

} // namespace analysis::test
