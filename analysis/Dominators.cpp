// Lengauer and Tarjan's dominator algorithm ("A Fast Algorithm for Finding
// Dominators in a Flowgraph", 1979), simple version with path compression:
// O(m log n), iterative so that deep graphs do not exhaust the stack.
#include "analysis/Dominators.h"

namespace analysis {

DominatorTree::DominatorTree(const Graph &g, uint32_t root) : root_(root) {
  const uint32_t n = g.size();
  idom_.assign(n, kNone);
  // Depth-first numbering from the root; numbers start at 1, 0 = unvisited.
  std::vector<uint32_t> dfn(n, 0), vertex(n + 1, 0), parent(n + 1, 0);
  uint32_t count = 0;
  if (root < n) {
    std::vector<std::pair<uint32_t, uint32_t>> stack{{root, 0}};
    dfn[root] = ++count;
    vertex[count] = root;
    while (!stack.empty()) {
      auto &[v, i] = stack.back();
      auto succ = g.succs(v);
      if (i == succ.size()) {
        stack.pop_back();
        continue;
      }
      uint32_t w = succ[i++];
      if (dfn[w]) continue;
      dfn[w] = ++count;
      vertex[count] = w;
      parent[count] = dfn[v];
      stack.emplace_back(w, 0);
    }
  }
  std::vector<uint32_t> semi(count + 1), label(count + 1), ancestor(count + 1, 0), dom(count + 1, 0);
  std::vector<uint32_t> bucketHead(count + 1, 0), bucketNext(count + 1, 0);
  for (uint32_t i = 0; i <= count; ++i) semi[i] = label[i] = i;
  std::vector<uint32_t> path;
  auto eval = [&](uint32_t v) {
    if (ancestor[v] == 0) return v;
    // Compress the ancestor path of v, nearest the root first.
    path.clear();
    for (uint32_t x = v; ancestor[ancestor[x]] != 0; x = ancestor[x]) path.push_back(x);
    for (size_t k = path.size(); k-- > 0;) {
      uint32_t y = path[k];
      if (semi[label[ancestor[y]]] < semi[label[y]]) label[y] = label[ancestor[y]];
      ancestor[y] = ancestor[ancestor[y]];
    }
    return label[v];
  };
  for (uint32_t w = count; w >= 2; --w) {
    for (uint32_t p : g.preds(vertex[w])) {
      if (!dfn[p]) continue;
      uint32_t u = eval(dfn[p]);
      if (semi[u] < semi[w]) semi[w] = semi[u];
    }
    bucketNext[w] = bucketHead[semi[w]];
    bucketHead[semi[w]] = w;
    uint32_t pw = parent[w];
    ancestor[w] = pw;
    for (uint32_t v = bucketHead[pw]; v; v = bucketNext[v]) {
      uint32_t u = eval(v);
      dom[v] = semi[u] < semi[v] ? u : pw;
    }
    bucketHead[pw] = 0;
  }
  for (uint32_t w = 2; w <= count; ++w) {
    if (dom[w] != semi[w]) dom[w] = dom[dom[w]];
    idom_[vertex[w]] = vertex[dom[w]];
  }

  // Children in compressed rows, then depths and pre/post numbers.
  childBegin_.assign(n + 1, 0);
  for (uint32_t v = 0; v < n; ++v)
    if (idom_[v] != kNone) ++childBegin_[idom_[v] + 1];
  for (uint32_t v = 0; v < n; ++v) childBegin_[v + 1] += childBegin_[v];
  child_.resize(childBegin_[n]);
  std::vector<uint32_t> next(childBegin_.begin(), childBegin_.end() - 1);
  for (uint32_t w = 2; w <= count; ++w) child_[next[idom_[vertex[w]]]++] = vertex[w];
  depth_.assign(n, 0);
  pre_.assign(n, kNone);
  post_.assign(n, kNone);
  if (count == 0) return;
  uint32_t clock = 0;
  std::vector<std::pair<uint32_t, uint32_t>> stack{{root, 0}};
  pre_[root] = clock++;
  preorder_.push_back(root);
  while (!stack.empty()) {
    auto &[v, i] = stack.back();
    auto kids = children(v);
    if (i == kids.size()) {
      post_[v] = clock++;
      stack.pop_back();
      continue;
    }
    uint32_t c = kids[i++];
    depth_[c] = depth_[v] + 1;
    pre_[c] = clock++;
    preorder_.push_back(c);
    stack.emplace_back(c, 0);
  }
}

uint32_t DominatorTree::nearestCommonDominator(uint32_t a, uint32_t b) const {
  if (!reachable(a) || !reachable(b)) return kNone;
  while (depth_[a] > depth_[b]) a = idom_[a];
  while (depth_[b] > depth_[a]) b = idom_[b];
  while (a != b) {
    a = idom_[a];
    b = idom_[b];
  }
  return a;
}

std::string DominatorTree::print(const std::function<std::string(uint32_t)> &name) const {
  std::string out;
  for (uint32_t v = 0; v < size(); ++v) {
    if (v == root_ || !reachable(v)) continue;
    out += name(v) + " -> idom " + name(idom_[v]) + '\n';
  }
  return out;
}

DominanceFrontier::DominanceFrontier(const Graph &g, const DominatorTree &tree) {
  const uint32_t n = g.size();
  std::vector<std::pair<uint32_t, uint32_t>> pairs; // (node, frontier member)
  std::vector<uint32_t> stamp(n, kNone);
  for (uint32_t b = 0; b < n; ++b) {
    if (!tree.reachable(b)) continue;
    auto preds = g.preds(b);
    // The root is also entered from outside the graph, so one edge back to
    // it already makes it a join.
    if (preds.size() < 2 && !(b == tree.root() && !preds.empty())) continue;
    for (uint32_t p : preds) {
      for (uint32_t runner = p; runner != kNone && runner != tree.idom(b); runner = tree.idom(runner)) {
        if (!tree.reachable(runner) || stamp[runner] == b) break;
        stamp[runner] = b;
        pairs.emplace_back(runner, b);
      }
    }
  }
  begin_.assign(n + 1, 0);
  for (auto [v, f] : pairs) ++begin_[v + 1];
  for (uint32_t v = 0; v < n; ++v) begin_[v + 1] += begin_[v];
  frontier_.resize(pairs.size());
  std::vector<uint32_t> next(begin_.begin(), begin_.end() - 1);
  for (auto [v, f] : pairs) frontier_[next[v]++] = f;
}

} // namespace analysis
