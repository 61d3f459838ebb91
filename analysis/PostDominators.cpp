#include "analysis/PostDominators.h"

#include <algorithm>

namespace analysis {

// Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast
// Dominance Algorithm") on the reverse CFG, rooted at the virtual exit.
// Blocks that cannot reach an exit (infinite loops) are given an edge to the
// virtual exit from their last block in reverse post-order, so every block
// has an immediate post-dominator.
PostDominatorTree::PostDominatorTree(const ptx::Function &fn)
    : numBlocks_(static_cast<uint32_t>(fn.blocks.size())) {
  const uint32_t n = numBlocks_, exit = n;
  // Reverse graph: preds in the reverse CFG are the successors.
  std::vector<std::vector<uint32_t>> rsuccs(n + 1), rpreds(n + 1);
  for (uint32_t b = 0; b < n; ++b) {
    auto succs = fn.succs(fn.blocks[b]);
    if (succs.empty()) {
      rsuccs[exit].push_back(b);
      rpreds[b].push_back(exit);
    }
    for (uint32_t s : succs) {
      rsuccs[s].push_back(b);
      rpreds[b].push_back(s);
    }
  }
  // Post-order of the reverse graph from the exit; blocks not reached get
  // a virtual edge from the exit and another search.
  std::vector<uint32_t> order, number(n + 1, kNone);
  std::vector<char> seen(n + 1, 0);
  auto dfs = [&](uint32_t root) {
    std::vector<std::pair<uint32_t, size_t>> stack{{root, 0}};
    seen[root] = 1;
    while (!stack.empty()) {
      auto &[v, i] = stack.back();
      if (i < rsuccs[v].size()) {
        uint32_t w = rsuccs[v][i++];
        if (!seen[w]) {
          seen[w] = 1;
          stack.push_back({w, 0});
        }
      } else {
        number[v] = static_cast<uint32_t>(order.size());
        order.push_back(v);
        stack.pop_back();
      }
    }
  };
  dfs(exit);
  for (uint32_t b = n; b-- > 0;) {
    if (seen[b]) continue;
    // An infinite loop: connect it to the exit and number it too. Numbers
    // must stay a post-order, so renumber everything after the new search.
    rsuccs[exit].push_back(b);
    rpreds[b].push_back(exit);
    order.clear();
    std::fill(seen.begin(), seen.end(), 0);
    dfs(exit);
  }
  ipdom_.assign(n + 1, kNone);
  ipdom_[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (number[a] < number[b]) a = ipdom_[a];
      while (number[b] < number[a]) b = ipdom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = order.size(); i-- > 0;) {
      uint32_t v = order[i];
      if (v == exit) continue;
      uint32_t best = kNone;
      for (uint32_t p : rpreds[v]) {
        if (ipdom_[p] == kNone) continue;
        best = best == kNone ? p : intersect(p, best);
      }
      if (best != kNone && ipdom_[v] != best) {
        ipdom_[v] = best;
        changed = true;
      }
    }
  }
  ipdom_[exit] = kNone;
}

bool PostDominatorTree::postDominates(uint32_t a, uint32_t b) const {
  for (uint32_t v = b; v != kNone; v = ipdom_[v])
    if (v == a) return true;
  return false;
}

std::string PostDominatorTree::print() const {
  std::string out;
  for (uint32_t b = 0; b < numBlocks_; ++b) {
    out += "bb" + std::to_string(b) + " -> ipdom ";
    out += ipdom_[b] == numBlocks_ ? std::string("exit") : "bb" + std::to_string(ipdom_[b]);
    out += '\n';
  }
  return out;
}

} // namespace analysis
