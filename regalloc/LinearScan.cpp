// Linear scan with lifetime holes.
#include "regalloc/Allocators.h"

#include <algorithm>
#include <cmath>

namespace regalloc {

std::string_view allocatorName(Allocator a) {
  return a == Allocator::LinearScan ? "linear-scan" : "graph-coloring";
}

Assignment allocate(Allocator a, const LiveIntervals &live, uint32_t numRegisters, unsigned budget) {
  return a == Allocator::LinearScan ? linearScan(live, numRegisters, budget)
                                    : graphColoring(live, numRegisters, budget);
}

std::string checkAssignment(const LiveIntervals &live, const Assignment &a, unsigned budget) {
  std::vector<std::vector<const LiveInterval *>> byUnit(budget);
  for (const LiveInterval &iv : live.intervals()) {
    if (!iv.units) continue;
    const uint32_t p = a.position[iv.reg];
    if (p == Assignment::kNone || p % iv.units || p + iv.units > budget)
      return "register " + std::to_string(iv.reg) + " has no aligned place in the budget";
    for (unsigned u = 0; u < iv.units; ++u) byUnit[p + u].push_back(&iv);
  }
  for (unsigned u = 0; u < budget; ++u)
    for (size_t i = 0; i < byUnit[u].size(); ++i)
      for (size_t j = i + 1; j < byUnit[u].size(); ++j)
        if (byUnit[u][i]->intersects(*byUnit[u][j]))
          return "registers " + std::to_string(byUnit[u][i]->reg) + " and " +
                 std::to_string(byUnit[u][j]->reg) + " share unit " + std::to_string(u) +
                 " while both are live";
  return "";
}

Assignment linearScan(const LiveIntervals &live, uint32_t numRegisters, unsigned budget) {
  Assignment out;
  out.position.assign(numRegisters, Assignment::kNone);
  std::span<const LiveInterval> all = live.intervals();
  std::vector<uint32_t> unhandled(all.size());
  for (uint32_t i = 0; i < all.size(); ++i) unhandled[i] = i;
  std::stable_sort(unhandled.begin(), unhandled.end(),
                   [&](uint32_t a, uint32_t b) { return all[a].start() < all[b].start(); });
  // Placed intervals not yet over: active ones cover the current position,
  // inactive ones are in a hole.
  std::vector<uint32_t> active, inactive, spilled;
  for (uint32_t current : unhandled) {
    const LiveInterval &cur = all[current];
    const uint32_t position = cur.start();
    auto sweep = [&](std::vector<uint32_t> &from, bool wantActive) {
      for (size_t k = 0; k < from.size();) {
        const LiveInterval &iv = all[from[k]];
        if (iv.end() <= position) {
          from[k] = from.back();
          from.pop_back();
        } else if (iv.covers(position) != wantActive) {
          (wantActive ? inactive : active).push_back(from[k]);
          from[k] = from.back();
          from.pop_back();
        } else {
          ++k;
        }
      }
    };
    sweep(active, true);
    sweep(inactive, false);

    // Units blocked for cur's lifetime, and by whom.
    std::vector<std::vector<uint32_t>> holders(budget);
    auto block = [&](uint32_t k) {
      const LiveInterval &iv = all[k];
      for (unsigned u = 0; u < iv.units; ++u) holders[out.position[iv.reg] + u].push_back(k);
    };
    for (uint32_t k : active) block(k);
    for (uint32_t k : inactive)
      if (all[k].intersects(cur)) block(k);
    const unsigned width = cur.units;
    if (width == 0 || width > budget) {
      if (!cur.unspillable) spilled.push_back(cur.reg);
      out.feasible &= !cur.unspillable || width == 0;
      continue;
    }
    // A free aligned place, else the one whose holders cost least to spill.
    uint32_t best = Assignment::kNone;
    double bestCost = INFINITY;
    for (unsigned p = 0; p + width <= budget; p += width) {
      double cost = 0;
      std::vector<uint32_t> seen;
      for (unsigned u = p; u < p + width; ++u)
        for (uint32_t k : holders[u])
          if (std::find(seen.begin(), seen.end(), k) == seen.end()) {
            seen.push_back(k);
            cost += all[k].weight();
          }
      if (cost < bestCost) {
        bestCost = cost;
        best = p;
        if (cost == 0) break;
      }
    }
    if (best != Assignment::kNone && (bestCost == 0 || bestCost < cur.weight())) {
      // Evict the holders of the place.
      for (unsigned u = best; u < best + width; ++u)
        for (uint32_t k : std::vector<uint32_t>(holders[u])) {
          if (out.position[all[k].reg] == Assignment::kNone) continue;
          out.position[all[k].reg] = Assignment::kNone;
          spilled.push_back(all[k].reg);
          std::erase(active, k);
          std::erase(inactive, k);
        }
      out.position[cur.reg] = best;
      (cur.covers(position) ? active : inactive).push_back(current);
    } else if (cur.unspillable) {
      out.feasible = false;
    } else {
      spilled.push_back(cur.reg);
    }
  }
  std::sort(spilled.begin(), spilled.end());
  spilled.erase(std::unique(spilled.begin(), spilled.end()), spilled.end());
  out.spilled = std::move(spilled);
  return out;
}

} // namespace regalloc
