// Exact values of integers computed from the thread id alone: under a known
// block shape each such value is one number per thread, so its uniformity
// follows from comparing the numbers warp by warp. This decides what the
// affine forms cannot: `(2*tid - (tid & 1)) & 32`, `(tid % 48) / 16`,
// `tid.x + 17*tid.y > 40` under a 2-D block.
#pragma once

#include "analysis/Affine.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace analysis {

class ThreadValues {
public:
  /// Threads of one CTA: no more than the hardware allows.
  static constexpr uint32_t kMaxThreads = 1024;
  /// Values kept per function (each one number per thread): a bound on
  /// memory, after which values are not evaluated.
  static constexpr size_t kMaxVectors = 4096;

  explicit ThreadValues(const ThreadSpace &space);
  bool active() const { return active_; }
  const ThreadSpace &space() const { return space_; }

  /// The numbers of a value, one per thread; null when it has none.
  using Vector = const uint64_t *;
  Vector find(uint32_t value) const { return value < of_.size() ? of_[value] : nullptr; }
  void set(uint32_t value, Vector v);

  /// An immediate in every thread.
  Vector constant(uint64_t bits);
  /// %tid.x/y/z, %ntid.x/y/z, %laneid and the %lanemask_* registers; null
  /// for the others.
  Vector specialRegister(ptx::SpecialReg r, unsigned component);

  /// Evaluates `desc` over the threads on operand numbers given in operand
  /// order (sources only); the result, or null when the instruction is not
  /// one it evaluates (or could fault: division by zero).
  Vector evaluate(const ptx::InstrDesc &desc, std::span<const Vector> sources);
  /// The negation of a predicate's numbers (the `q` of `setp p|q`).
  Vector negate(Vector predicate);

  /// How uniform a value with these numbers is (over the threads in
  /// `among`, when given: those that can compute it).
  Uniformity level(Vector v, const ThreadSpace::Mask *among = nullptr) const;

private:
  uint64_t *allocate();
  Vector computeSpecialRegister(ptx::SpecialReg r, unsigned component);

  ThreadSpace space_;
  bool active_ = false;
  uint32_t threads_ = 0;
  std::deque<std::vector<uint64_t>> storage_;
  std::vector<Vector> of_;
  std::unordered_map<uint64_t, Vector> constants_;
  std::unordered_map<uint32_t, Vector> specials_; // by register << 2 | component
};

} // namespace analysis
