// Loop nesting by Steensgaard's method: the strongly connected components of
// the CFG are the outermost loops; a component's entry blocks are its
// headers; removing the edges into the headers and searching the component
// again gives the loops nested in it. Each level is one linear search, so
// the whole costs O(edges x nesting depth).
#include "analysis/Loops.h"

#include <algorithm>

namespace analysis {

LoopForest::LoopForest(const Cfg &cfg) {
  const uint32_t n = cfg.size();
  loopOf_.assign(n, kNone);
  headerOf_.assign(n, kNone);
  inSet_.assign(n, 0);
  index_.assign(n, kNone);
  low_.assign(n, 0);
  compOf_.assign(n, kNone);
  std::vector<uint32_t> nodes;
  for (uint32_t v : cfg.rpo())
    if (v != cfg.exit()) nodes.push_back(v);
  std::sort(nodes.begin(), nodes.end());
  decompose(cfg, nodes, kNone);

  // Back edges and exits, now that containment can be asked.
  for (uint32_t id = 0; id < loops_.size(); ++id) {
    Loop &l = loops_[id];
    for (uint32_t b : l.blocks) {
      for (uint32_t s : cfg.succs(b)) {
        if (cfg.isFakeEdge(b, s)) continue;
        if (!contains(id, s)) {
          l.exits.emplace_back(b, s);
          l.exitBlocks.push_back(s);
        } else if (headerOf_[s] == id) {
          // (A header of a loop is no header of a loop nested in it: the
          // nested levels never follow edges into it.)
          l.backEdges.emplace_back(b, s);
        }
      }
    }
    std::sort(l.exitBlocks.begin(), l.exitBlocks.end());
    l.exitBlocks.erase(std::unique(l.exitBlocks.begin(), l.exitBlocks.end()), l.exitBlocks.end());
  }
  inSet_ = {};
  index_ = {};
  low_ = {};
  compOf_ = {};
}

void LoopForest::decompose(const Cfg &cfg, std::span<const uint32_t> nodes, uint32_t parent) {
  const uint32_t stamp = ++setStamp_;
  for (uint32_t v : nodes) {
    inSet_[v] = stamp;
    index_[v] = kNone;
    compOf_[v] = kNone;
  }
  // Edges of this level: inside the set, not into a header of the parent.
  auto follows = [&](uint32_t w) {
    return inSet_[w] == stamp && (parent == kNone || headerOf_[w] != parent);
  };

  // Tarjan's strongly connected components, iteratively.
  std::vector<std::vector<uint32_t>> components;
  std::vector<uint32_t> sccStack;
  std::vector<std::pair<uint32_t, uint32_t>> dfs;
  uint32_t counter = 0;
  for (uint32_t root : nodes) {
    if (index_[root] != kNone) continue;
    dfs.emplace_back(root, 0);
    index_[root] = low_[root] = counter++;
    sccStack.push_back(root);
    while (!dfs.empty()) {
      auto &[v, i] = dfs.back();
      auto succ = cfg.succs(v);
      if (i < succ.size()) {
        uint32_t w = succ[i++];
        if (!follows(w)) continue;
        if (index_[w] == kNone) {
          index_[w] = low_[w] = counter++;
          sccStack.push_back(w);
          dfs.emplace_back(w, 0);
        } else if (compOf_[w] == kNone) {
          low_[v] = std::min(low_[v], index_[w]);
        }
        continue;
      }
      uint32_t done = v;
      dfs.pop_back();
      if (!dfs.empty()) low_[dfs.back().first] = std::min(low_[dfs.back().first], low_[done]);
      if (low_[done] != index_[done]) continue;
      std::vector<uint32_t> comp;
      uint32_t w;
      do {
        w = sccStack.back();
        sccStack.pop_back();
        compOf_[w] = static_cast<uint32_t>(components.size());
        comp.push_back(w);
      } while (w != done);
      bool cyclic = comp.size() > 1;
      if (!cyclic)
        for (uint32_t s : cfg.succs(done)) cyclic |= s == done && follows(s);
      if (cyclic)
        components.push_back(std::move(comp));
      else
        compOf_[done] = UINT32_MAX - 1; // finished, not a loop
    }
  }

  for (std::vector<uint32_t> &comp : components) {
    std::sort(comp.begin(), comp.end());
    const uint32_t id = static_cast<uint32_t>(loops_.size());
    Loop l;
    l.parent = parent;
    l.depth = parent == kNone ? 1 : loops_[parent].depth + 1;
    l.blocks = comp;
    // Membership of this component, for the header test.
    const uint32_t member = ++setStamp_;
    for (uint32_t v : comp) inSet_[v] = member;
    for (uint32_t v : comp) {
      bool entered = v == cfg.entry();
      for (uint32_t p : cfg.preds(v)) entered |= cfg.reachable(p) && inSet_[p] != member;
      if (entered) l.headers.push_back(v);
    }
    for (uint32_t h : l.headers) headerOf_[h] = id;
    for (uint32_t v : comp) loopOf_[v] = id;
    loops_.push_back(std::move(l));
    lastDescendant_.push_back(id);
    decompose(cfg, comp, id);
    lastDescendant_[id] = static_cast<uint32_t>(loops_.size() - 1);
  }
}

uint32_t LoopForest::commonLoop(uint32_t a, uint32_t b) const {
  while (a != kNone && b != kNone && a != b) {
    if (a > b)
      a = loops_[a].parent;
    else
      b = loops_[b].parent;
  }
  return a == b ? a : kNone;
}

uint32_t LoopForest::outermostLoopOf(uint32_t b) const {
  uint32_t l = loopOf(b);
  while (l != kNone && loops_[l].parent != kNone) l = loops_[l].parent;
  return l;
}

std::string LoopForest::print(const Cfg &cfg) const {
  std::string out;
  for (uint32_t id = 0; id < loops_.size(); ++id) {
    const Loop &l = loops_[id];
    out += "loop " + std::to_string(id) + " (depth " + std::to_string(l.depth);
    if (l.parent != kNone) out += ", in loop " + std::to_string(l.parent);
    if (l.irreducible()) out += ", irreducible";
    out += ") headers";
    for (uint32_t h : l.headers) out += ' ' + cfg.blockName(h);
    out += " blocks";
    for (uint32_t b : l.blocks) out += ' ' + cfg.blockName(b);
    out += " exits";
    for (uint32_t e : l.exitBlocks) out += ' ' + cfg.blockName(e);
    out += '\n';
  }
  return out;
}

} // namespace analysis
