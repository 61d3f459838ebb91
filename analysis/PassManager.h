// A small pass manager: analyses are computed on demand and cached (per
// function, or once per module); a transform pass says which analyses it
// preserves, and the others are dropped, together with every cached result
// that was computed from them.
#pragma once

#include "ptx/IR.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace analysis {

/// Identifies an analysis: each analysis type has one static key.
struct AnalysisKey {
  std::string_view name;
};

class PreservedAnalyses {
public:
  static PreservedAnalyses all() {
    PreservedAnalyses p;
    p.all_ = true;
    return p;
  }
  static PreservedAnalyses none() { return {}; }
  template <class A> PreservedAnalyses &preserve() {
    keys_.insert(&A::key);
    return *this;
  }
  bool preserves(const AnalysisKey *key) const { return all_ || keys_.count(key) != 0; }

private:
  bool all_ = false;
  std::set<const AnalysisKey *> keys_;
};

/// What is known of the launch, for analyses that depend on it.
struct LaunchOptions {
  /// The block shape of every kernel launch; 0 = unknown (use each kernel's
  /// .reqntid or .maxntid).
  uint32_t block[3] = {0, 0, 0};
};

/// Caches analysis results for one module. A function analysis A provides
///   using Result = ...;  static inline const AnalysisKey key{"name"};
///   static Result run(const ptx::Function &, AnalysisManager &);
/// a module analysis the same with `static Result run(AnalysisManager &)`.
class AnalysisManager {
public:
  explicit AnalysisManager(const ptx::Module &m, LaunchOptions launch = {}) : module_(&m), launch_(launch) {}
  AnalysisManager(const AnalysisManager &) = delete;
  AnalysisManager &operator=(const AnalysisManager &) = delete;

  const ptx::Module &module() const { return *module_; }
  const LaunchOptions &launch() const { return launch_; }

  template <class A> const typename A::Result &get(const ptx::Function &fn) {
    return get<A>(&fn, [&] { return A::run(fn, *this); });
  }
  template <class A> const typename A::Result &getModule() {
    return get<A>(nullptr, [&] { return A::run(*this); });
  }
  template <class A> bool cached(const ptx::Function *fn = nullptr) const {
    return entries_.count({&A::key, fn}) != 0;
  }

  /// Drops every result not preserved, and whatever was computed from it.
  void invalidate(const PreservedAnalyses &preserved);
  /// The same for the results of one function (module results computed
  /// from them go too).
  void invalidate(const ptx::Function &fn, const PreservedAnalyses &preserved);
  /// How many results are cached, and how many were computed so far.
  size_t size() const { return entries_.size(); }
  size_t computed() const { return computed_; }

private:
  using Slot = std::pair<const AnalysisKey *, const ptx::Function *>;
  struct Entry {
    std::shared_ptr<void> result;
  };

  template <class A, class Run> const typename A::Result &get(const ptx::Function *fn, Run run) {
    Slot slot{&A::key, fn};
    if (!computing_.empty()) dependentsOf_[slot].insert(computing_.back());
    if (auto it = entries_.find(slot); it != entries_.end())
      return *static_cast<const typename A::Result *>(it->second.result.get());
    computing_.push_back(slot);
    auto result = std::make_shared<typename A::Result>(run());
    computing_.pop_back();
    ++computed_;
    Entry &e = entries_[slot];
    e.result = result;
    return *result;
  }
  void drop(const Slot &slot);

  const ptx::Module *module_;
  LaunchOptions launch_;
  std::map<Slot, Entry> entries_;
  std::map<Slot, std::set<Slot>> dependentsOf_; // results computed from a result
  std::vector<Slot> computing_;
  size_t computed_ = 0;
};

/// One figure a pass reports about its last run ("branches marked": 12).
struct PassStatistic {
  std::string name;
  uint64_t value = 0;
};

/// A transform over a module.
class Pass {
public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual PreservedAnalyses run(ptx::Module &m, AnalysisManager &am) = 0;
  /// What the last run did, for --stats and reports.
  virtual std::vector<PassStatistic> statistics() const { return {}; }
  /// What the last run did per function, a line each ("f: unchanged: why").
  virtual std::vector<std::string> remarks() const { return {}; }
  /// Errors the last run found (a verifier pass): the pipeline stops.
  virtual bool failed() const { return false; }
};

class PassManager {
public:
  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  /// Runs the passes in order, invalidating after each what it did not
  /// preserve; stops after a pass that failed. False if one did.
  bool run(ptx::Module &m, AnalysisManager &am);
  /// The passes, and the wall-clock seconds each took in the last run
  /// (parallel to passes(); a pass that did not run: 0).
  const std::vector<std::unique_ptr<Pass>> &passes() const { return passes_; }
  const std::vector<double> &seconds() const { return seconds_; }

private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<double> seconds_;
};

} // namespace analysis
