// Invalidation with dependents, and the pass pipeline.
#include "analysis/PassManager.h"

#include <chrono>

namespace analysis {

void AnalysisManager::drop(const Slot &slot) {
  entries_.erase(slot);
  auto it = dependentsOf_.find(slot);
  if (it == dependentsOf_.end()) return;
  std::set<Slot> dependents = std::move(it->second);
  dependentsOf_.erase(it);
  for (const Slot &d : dependents) drop(d);
}

void AnalysisManager::invalidate(const PreservedAnalyses &preserved) {
  std::vector<Slot> gone;
  for (const auto &[slot, entry] : entries_)
    if (!preserved.preserves(slot.first)) gone.push_back(slot);
  for (const Slot &s : gone) drop(s);
}

void AnalysisManager::invalidate(const ptx::Function &fn, const PreservedAnalyses &preserved) {
  std::vector<Slot> gone;
  for (const auto &[slot, entry] : entries_)
    if (slot.second == &fn && !preserved.preserves(slot.first)) gone.push_back(slot);
  for (const Slot &s : gone) drop(s);
}

bool PassManager::run(ptx::Module &m, AnalysisManager &am) {
  seconds_.assign(passes_.size(), 0.0);
  for (size_t i = 0; i < passes_.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    am.invalidate(passes_[i]->run(m, am));
    seconds_[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (passes_[i]->failed()) return false;
  }
  return true;
}

} // namespace analysis
