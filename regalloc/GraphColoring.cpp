// Chaitin-Briggs colouring with units: a node of width w is trivially
// colourable when its neighbours, each counted by the units it can block for
// it (max of the two widths, as alignment makes a 1-unit neighbour block a
// whole pair), leave an aligned place of w units in the budget.
#include "regalloc/Allocators.h"

#include <algorithm>
#include <cmath>

namespace regalloc {

Assignment graphColoring(const LiveIntervals &live, uint32_t numRegisters, unsigned budget) {
  Assignment out;
  out.position.assign(numRegisters, Assignment::kNone);
  std::span<const LiveInterval> all = live.intervals();
  const auto n = static_cast<uint32_t>(all.size());

  // Interference: a sweep over start positions, testing the intervals not
  // yet over.
  std::vector<std::vector<uint32_t>> adj(n);
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return all[a].start() < all[b].start(); });
  std::vector<uint32_t> open;
  for (uint32_t i : order) {
    if (all[i].units == 0) continue;
    std::erase_if(open, [&](uint32_t k) { return all[k].end() <= all[i].start(); });
    for (uint32_t k : open)
      if (all[k].intersects(all[i])) {
        adj[i].push_back(k);
        adj[k].push_back(i);
      }
    open.push_back(i);
  }

  auto blockFor = [&](uint32_t node, uint32_t neighbour) {
    return std::max<unsigned>(all[node].units, all[neighbour].units);
  };
  std::vector<uint64_t> degree(n, 0);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k : adj[i]) degree[i] += blockFor(i, k);
  auto trivial = [&](uint32_t i) { return degree[i] + all[i].units <= budget; };

  // Simplify: remove trivially colourable nodes; when none is left, the
  // cheapest by weight per degree goes optimistically.
  std::vector<uint8_t> removed(n, 0);
  std::vector<uint32_t> stack;
  uint32_t left = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (all[i].units == 0)
      removed[i] = 1;
    else
      ++left;
  }
  auto remove = [&](uint32_t i) {
    removed[i] = 1;
    stack.push_back(i);
    --left;
    for (uint32_t k : adj[i])
      if (!removed[k]) degree[k] -= blockFor(k, i);
  };
  std::vector<uint32_t> worklist;
  while (left) {
    bool progress = false;
    for (uint32_t i = 0; i < n; ++i)
      if (!removed[i] && trivial(i)) {
        remove(i);
        progress = true;
      }
    if (progress) continue;
    uint32_t pick = UINT32_MAX;
    double best = INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
      if (removed[i]) continue;
      const double w = all[i].weight() / static_cast<double>(std::max<uint64_t>(degree[i], 1));
      if (pick == UINT32_MAX || w < best) {
        best = w;
        pick = i;
      }
    }
    remove(pick);
  }

  // Select: the lowest aligned place no coloured neighbour holds.
  std::vector<uint8_t> used(budget);
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    const uint32_t i = *it;
    const unsigned width = all[i].units;
    std::fill(used.begin(), used.end(), 0);
    for (uint32_t k : adj[i]) {
      uint32_t p = out.position[all[k].reg];
      if (p == Assignment::kNone) continue;
      for (unsigned u = 0; u < all[k].units; ++u) used[p + u] = 1;
    }
    uint32_t place = Assignment::kNone;
    for (unsigned p = 0; p + width <= budget && place == Assignment::kNone; p += width) {
      bool free = true;
      for (unsigned u = p; u < p + width; ++u) free &= !used[u];
      if (free) place = p;
    }
    if (place == Assignment::kNone && all[i].unspillable) {
      // A temporary must have a place: spill the cheapest spillable
      // neighbours holding one.
      double bestCost = INFINITY;
      for (unsigned p = 0; p + width <= budget; p += width) {
        double cost = 0;
        for (uint32_t k : adj[i]) {
          uint32_t q = out.position[all[k].reg];
          if (q != Assignment::kNone && q < p + width && p < q + all[k].units) cost += all[k].weight();
        }
        if (cost < bestCost) {
          bestCost = cost;
          place = p;
        }
      }
      if (place != Assignment::kNone && bestCost < INFINITY) {
        for (uint32_t k : adj[i]) {
          uint32_t q = out.position[all[k].reg];
          if (q != Assignment::kNone && q < place + width && place < q + all[k].units) {
            out.position[all[k].reg] = Assignment::kNone;
            out.spilled.push_back(all[k].reg);
          }
        }
      } else {
        place = Assignment::kNone;
      }
    }
    if (place != Assignment::kNone)
      out.position[all[i].reg] = place;
    else if (all[i].unspillable)
      out.feasible = false;
    else
      out.spilled.push_back(all[i].reg);
  }
  std::sort(out.spilled.begin(), out.spilled.end());
  return out;
}

} // namespace regalloc
