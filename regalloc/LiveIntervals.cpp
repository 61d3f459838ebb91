// Building live intervals from block liveness (Wimmer and Franz's
// BuildIntervals, without SSA: full writes start a range, partial writes
// keep the old value alive).
#include "regalloc/LiveIntervals.h"

#include "analysis/Analyses.h"

#include <algorithm>
#include <cmath>

namespace regalloc {

using namespace analysis;

unsigned unitsOf(const ptx::RegisterDecl &d) {
  if (d.vectorWidth || d.type == ptx::Type::Pred) return 0;
  switch (ptx::bitWidth(d.type)) {
  case 8:
  case 16:
  case 32: return 1;
  case 64: return 2;
  case 128: return 4;
  default: return 0;
  }
}

double blockFrequency(const LoopForest &loops, uint32_t b) {
  const uint32_t loop = loops.loopOf(b);
  return std::pow(10.0, std::min<uint32_t>(loop == kNone ? 0 : loops.loop(loop).depth, 4));
}

bool LiveInterval::covers(uint32_t position) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), position,
                             [](uint32_t p, const LiveRange &r) { return p < r.end; });
  return it != ranges.end() && it->start <= position;
}

uint32_t LiveInterval::firstIntersection(const LiveInterval &o) const {
  size_t i = 0, j = 0;
  while (i < ranges.size() && j < o.ranges.size()) {
    const LiveRange &a = ranges[i], &b = o.ranges[j];
    const uint32_t lo = std::max(a.start, b.start);
    if (lo < std::min(a.end, b.end)) return lo;
    (a.end <= b.end ? i : j)++;
  }
  return UINT32_MAX;
}

double LiveInterval::weight() const {
  if (unspillable) return INFINITY;
  uint64_t length = 0;
  for (const LiveRange &r : ranges) length += r.end - r.start;
  return spillCost / static_cast<double>(std::max<uint64_t>(length, 1));
}

LiveIntervals::LiveIntervals(const ptx::Function &fn, AnalysisManager &am,
                             const std::vector<bool> &unspillable, const std::vector<bool> &yielding)
    : fn_(&fn), index_(fn.numRegisters, UINT32_MAX) {
  const Cfg &cfg = am.get<CfgAnalysis>(fn);
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  const Liveness &live = am.get<LivenessAnalysis>(fn);
  const LoopForest &loops = am.get<LoopAnalysis>(fn);

  std::vector<uint8_t> units(fn.numRegisters, 0);
  for (const ptx::RegisterDecl &d : fn.regDecls)
    for (uint32_t k = 0; k < std::max(d.count, 1u); ++k)
      units[d.firstRegister + k] = static_cast<uint8_t>(unitsOf(d));
  std::vector<std::vector<LiveRange>> ranges(fn.numRegisters);
  std::vector<double> cost(fn.numRegisters, 0);
  // Ranges are added block by block from the last, so each register's list
  // grows towards the front; it is reversed and merged at the end.
  auto addRange = [&](uint32_t reg, uint32_t from, uint32_t to) {
    std::vector<LiveRange> &r = ranges[reg];
    if (!r.empty() && r.back().start <= to && from <= r.back().end) {
      r.back().start = std::min(r.back().start, from);
      r.back().end = std::max(r.back().end, to);
    } else {
      r.push_back({from, to});
    }
  };
  std::vector<uint8_t> isLive(fn.numRegisters, 0);
  for (uint32_t b = cfg.numBlocks(); b-- > 0;) {
    if (!cfg.reachable(b)) continue;
    const ptx::BasicBlock &block = fn.blocks[b];
    const uint32_t from = 2 * block.firstInstr, to = 2 * (block.firstInstr + block.numInstrs);
    const double frequency = blockFrequency(loops, b);
    std::fill(isLive.begin(), isLive.end(), 0);
    for (uint32_t v : live.liveOut(b))
      if (v < fn.numRegisters && units[v]) {
        addRange(v, from, to);
        isLive[v] = 1;
      }
    for (uint32_t i = block.firstInstr + block.numInstrs; i-- > block.firstInstr;) {
      for (const Def &d : du.defs(i)) {
        if (d.var >= fn.numRegisters || !units[d.var]) continue;
        cost[d.var] += frequency;
        if (d.partial) {
          // The old value lives on through the write.
          addRange(d.var, from, 2 * i + 2);
          isLive[d.var] = 1;
        } else if (isLive[d.var]) {
          std::vector<LiveRange> &r = ranges[d.var];
          r.back().start = std::max(r.back().start, 2 * i + 1);
          isLive[d.var] = 0;
        } else {
          addRange(d.var, 2 * i + 1, 2 * i + 2); // a write nothing reads
        }
      }
      for (const Use &u : du.uses(i)) {
        if (u.var >= fn.numRegisters || !units[u.var]) continue;
        cost[u.var] += frequency;
        addRange(u.var, from, 2 * i + 1);
        isLive[u.var] = 1;
      }
    }
  }
  for (uint32_t reg = 0; reg < fn.numRegisters; ++reg) {
    if (ranges[reg].empty()) continue;
    LiveInterval iv;
    iv.reg = reg;
    iv.units = units[reg];
    iv.spillCost = reg < yielding.size() && yielding[reg] ? cost[reg] / 1024 : cost[reg];
    iv.unspillable = reg < unspillable.size() && unspillable[reg];
    std::vector<LiveRange> &r = ranges[reg];
    std::sort(r.begin(), r.end(), [](const LiveRange &a, const LiveRange &b) { return a.start < b.start; });
    for (const LiveRange &x : r) {
      if (!iv.ranges.empty() && x.start <= iv.ranges.back().end)
        iv.ranges.back().end = std::max(iv.ranges.back().end, x.end);
      else
        iv.ranges.push_back(x);
    }
    index_[reg] = static_cast<uint32_t>(intervals_.size());
    intervals_.push_back(std::move(iv));
  }
  // Pressure: sweep the range boundaries.
  std::vector<std::pair<uint32_t, int>> events;
  for (const LiveInterval &iv : intervals_)
    for (const LiveRange &r : iv.ranges) {
      events.emplace_back(r.start, iv.units);
      events.emplace_back(r.end, -static_cast<int>(iv.units));
    }
  std::sort(events.begin(), events.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second; // ends before starts
  });
  int pressure = 0;
  for (const auto &[position, delta] : events) {
    pressure += delta;
    maxPressure_ = std::max<unsigned>(maxPressure_, static_cast<unsigned>(std::max(pressure, 0)));
  }
}

unsigned LiveIntervals::maxPressureBeyond(const std::vector<bool> &cheap, unsigned cap) const {
  struct Event {
    uint32_t position;
    int total, cheap;
  };
  std::vector<Event> events;
  for (const LiveInterval &iv : intervals_) {
    const int c = iv.reg < cheap.size() && cheap[iv.reg] ? iv.units : 0;
    for (const LiveRange &r : iv.ranges) {
      events.push_back({r.start, iv.units, c});
      events.push_back({r.end, -static_cast<int>(iv.units), -c});
    }
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.position != b.position ? a.position < b.position : a.total < b.total;
  });
  int total = 0, held = 0;
  unsigned most = 0;
  for (const Event &e : events) {
    total += e.total;
    held += e.cheap;
    most = std::max<unsigned>(
        most, static_cast<unsigned>(std::max(total - std::min(held, static_cast<int>(cap)), 0)));
  }
  return most;
}

std::string LiveIntervals::print(const ptx::Module &m) const {
  std::string out;
  for (const LiveInterval &iv : intervals_) {
    out += ptx::registerName(m, *fn_, iv.reg);
    for (const LiveRange &r : iv.ranges)
      out += " [" + std::to_string(r.start) + "," + std::to_string(r.end) + ")";
    out +=
        " units " + std::to_string(iv.units) + " cost " + std::to_string(static_cast<uint64_t>(iv.spillCost));
    if (iv.unspillable) out += " unspillable";
    out += "\n";
  }
  return out;
}

} // namespace regalloc
