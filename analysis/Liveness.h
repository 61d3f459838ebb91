// Liveness of variables (registers, the carry flag, .param variables) at
// block boundaries, for register allocation and pruned SSA. A partial write
// (guarded instruction, vector component) does not end a live range.
#pragma once

#include "analysis/Cfg.h"
#include "analysis/DefUse.h"

#include <span>
#include <string>
#include <vector>

namespace analysis {

class Liveness {
public:
  Liveness(const Cfg &cfg, const DefUse &du);

  /// Variables live on entry to / exit from node `v`, ascending. The
  /// virtual exit reads the function's return values.
  std::span<const uint32_t> liveIn(uint32_t v) const { return liveIn_[v]; }
  std::span<const uint32_t> liveOut(uint32_t v) const { return liveOut_[v]; }
  bool isLiveIn(uint32_t var, uint32_t v) const;
  /// Variables live just before instruction `instr` (walks its block
  /// backwards from the block's live-out set).
  std::vector<uint32_t> liveBefore(uint32_t instr) const;

  /// `bb1 in: %r1 %r2 out: %r2`, one line per reachable node.
  std::string print() const;

private:
  const Cfg *cfg_;
  const DefUse *du_;
  std::vector<std::vector<uint32_t>> liveIn_, liveOut_;
};

} // namespace analysis
