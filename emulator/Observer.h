// Observers of execution, in the manner of Oclgrind's plugins: recorders and
// checkers see each executed instruction without the interpreter knowing
// what they look for. A launch without observers runs an interpreter loop
// compiled without the calls, so they cost nothing when off.
#pragma once

#include <cstdint>
#include <memory>

namespace emu {

class Cta;
struct Warp;

/// Sees one CTA's execution, on the host thread that runs the CTA.
class CtaObserver {
public:
  virtual ~CtaObserver() = default;
  /// Instruction `pc` ran for warp `w`: `active` are the lanes at it,
  /// `executed` those whose guard held (for a branch: the lanes that take
  /// it). Destination registers hold their new values.
  virtual void instructionExecuted(const Warp &w, uint32_t pc, uint32_t active, uint32_t executed) = 0;
  /// The CTA ended (completed or not).
  virtual void ctaFinished(const Cta &) {}
};

/// Sees a launch: gives each CTA its observer. Called from several host
/// threads at once; implementations merge per-CTA results under a lock.
class LaunchObserver {
public:
  virtual ~LaunchObserver() = default;
  virtual std::unique_ptr<CtaObserver> observeCta(const Cta &cta) = 0;
};

} // namespace emu
