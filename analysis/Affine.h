// The affine abstraction of integer values: c0 + c1·tid.x + c2·tid.y +
// c3·tid.z modulo 2^width, each coefficient a constant or an unknown
// uniform value (with its uniformity and a known power-of-two factor); and
// the launch shapes that decide when a function of the thread id is the same
// in every lane of a warp. With a 128x1x1 block, `%tid.x >> 5` is
// warp-uniform; with 48x2x1 it is not (warp 1 holds tid.x 32..47 of row 0
// and 0..15 of row 1).
#pragma once

#include "analysis/Uniformity.h"
#include "analysis/UniformityFacts.h"
#include "ptx/IR.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace analysis {

/// The low `width` bits set (all 64 from 64 up): the values of a `width`-bit integer.
inline uint64_t widthMask(unsigned width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

struct LaunchShape {
  enum class Kind : uint8_t {
    Any,    // nothing known
    Exact,  // x × y × z threads
    Linear, // y = z = 1 and at most x threads (a one-dimensional .maxntid)
  };
  Kind kind = Kind::Any;
  uint32_t x = 0, y = 1, z = 1;

  static LaunchShape exact(uint32_t x, uint32_t y = 1, uint32_t z = 1) { return {Kind::Exact, x, y, z}; }
  static LaunchShape linear(uint32_t maxX) { return {Kind::Linear, maxX, 1, 1}; }
  /// From the function's .reqntid (exact) or one-dimensional .maxntid.
  static LaunchShape ofFunction(const ptx::Function &fn);
  bool operator==(const LaunchShape &) const = default;
  /// "any", "128x1x1", "x<=256".
  std::string str() const;
};

/// The threads of one CTA of a known shape, warp by warp.
class ThreadSpace {
public:
  explicit ThreadSpace(const LaunchShape &shape);
  const LaunchShape &shape() const { return shape_; }
  bool known() const { return threads_ != 0; }
  uint32_t size() const { return threads_; }
  std::array<uint32_t, 3> tid(uint32_t linear) const;

  /// Threads by linear index (a CTA has at most 1024).
  using Mask = std::bitset<1024>;

  /// How `key(thread)` varies: CtaUniform when it is the same in every
  /// thread, WarpUniform when the same within each warp, else Divergent
  /// (always Divergent when the shape is unknown). With `among`, only the
  /// threads in it count: those that can execute the instruction at all.
  template <class Key> Uniformity classify(Key key, const Mask *among = nullptr) const {
    if (!known()) return Uniformity::Divergent;
    std::optional<decltype(key(0u))> first;
    bool cta = true;
    for (uint32_t w = 0; w < threads_; w += 32) {
      std::optional<decltype(key(0u))> lead;
      for (uint32_t t = w; t < w + 32 && t < threads_; ++t) {
        if (among && !among->test(t)) continue;
        auto k = key(t);
        if (!lead) {
          lead = k;
          if (!first)
            first = k;
          else
            cta &= k == *first;
        } else if (!(k == *lead)) {
          return Uniformity::Divergent;
        }
      }
    }
    return cta ? Uniformity::CtaUniform : Uniformity::WarpUniform;
  }

private:
  LaunchShape shape_;
  uint32_t threads_ = 0;
};

struct Coef {
  enum class Kind : uint8_t { Const, Uniform };
  Kind kind = Kind::Const;
  Uniformity level = Uniformity::CtaUniform; // Uniform: how uniform the unknown is
  uint8_t align = 0;                         // Uniform: a known multiple of 2^align
  int64_t value = 0;                         // Const, sign-extended from the width
  bool isConst() const { return kind == Kind::Const; }
  bool isZero() const { return kind == Kind::Const && value == 0; }
  bool operator==(const Coef &) const = default;
};

class Affine {
public:
  enum class State : uint8_t { Bottom, Known, Top };

  static Affine bottom() { return Affine(State::Bottom, 0); }
  static Affine top() { return Affine(State::Top, 0); }
  static Affine constant(int64_t v, unsigned width);
  static Affine unknown(Uniformity level, unsigned width, unsigned align = 0);
  /// An unknown uniform value known to lie in [lo, hi] (unsigned numbers of
  /// the width): a launch's %ctaid.x is in [0, grid.x - 1].
  static Affine unknownIn(Uniformity level, unsigned width, uint64_t lo, uint64_t hi, unsigned align = 0);
  /// tid.x, tid.y or tid.z (component 1, 2, 3).
  static Affine threadId(unsigned component, unsigned width);

  State state() const { return state_; }
  bool known() const { return state_ == State::Known; }
  bool isTop() const { return state_ == State::Top; }
  bool isBottom() const { return state_ == State::Bottom; }
  unsigned width() const { return width_; }
  const Coef &coef(unsigned i) const { return c_[i]; }
  /// Every coefficient a constant: the value depends on the thread id only.
  bool allConst() const;
  /// No thread-id term.
  bool threadInvariant() const;
  /// The numbers the constant term can be (unsigned, of the width): [c, c]
  /// for a constant, the bounds of a bounded unknown, nothing otherwise.
  std::optional<std::pair<uint64_t, uint64_t>> constantTermRange() const;

  /// "3 + 1*tid.x", "u(cta,×128) + tid.x", "top".
  std::string str() const;
  bool operator==(const Affine &o) const = default;

  friend Affine add(const Affine &a, const Affine &b);
  friend Affine sub(const Affine &a, const Affine &b);
  friend Affine neg(const Affine &a);
  friend Affine scale(const Affine &a, int64_t k);
  friend Affine mul(const Affine &a, const Affine &b);
  friend Affine convert(const Affine &a, unsigned toWidth, bool signedSource);
  friend Affine merge(const Affine &a, const Affine &b, Uniformity gate);
  friend Affine raise(const Affine &a, Uniformity floor);

private:
  Affine(State s, unsigned width) : state_(s), width_(static_cast<uint8_t>(width)) {}
  void normalize();

  /// Sets the bounds of an unknown constant term (dropped when the range
  /// is not one of the width's numbers).
  void bound(std::optional<std::pair<uint64_t, uint64_t>> range);

  State state_;
  uint8_t width_;
  bool bounded_ = false; // an unknown constant term lies in [lo_, hi_]
  std::array<Coef, 4> c_{};
  uint64_t lo_ = 0, hi_ = 0;
};

/// a + b, a - b, -a, a·k, a·b (when one side has no thread-id term).
Affine add(const Affine &a, const Affine &b);
Affine sub(const Affine &a, const Affine &b);
Affine neg(const Affine &a);
Affine scale(const Affine &a, int64_t k);
Affine mul(const Affine &a, const Affine &b);
/// Integer conversion: narrowing wraps; widening keeps the form only when no
/// thread's value can wrap in the source width.
Affine convert(const Affine &a, unsigned toWidth, bool signedSource);
/// The value of a φ-node (or a guarded write) choosing between a and b
/// under a decision of uniformity `gate`.
Affine merge(const Affine &a, const Affine &b, Uniformity gate);
/// The form after its unknowns are made at least `floor`-uniform.
Affine raise(const Affine &a, Uniformity floor);

/// How uniform a value of form `a` is over the threads of `space` (only
/// those in `among`, when given).
Uniformity levelOf(const Affine &a, const ThreadSpace &space, const ThreadSpace::Mask *among = nullptr);

/// Uniformity of op(a) or op(a, b) for the RefineOps: shift right and
/// division by a constant, and with a constant mask, remainder by a
/// constant, comparison (`cmp` is the setp comparison modifier). Divergent
/// when the forms or the shape do not show uniformity.
Uniformity refineShiftRight(const Affine &a, unsigned k, bool arithmetic, const ThreadSpace &space);
Uniformity refineAnd(const Affine &a, uint64_t mask, const ThreadSpace &space);
Uniformity refineDivRem(const Affine &a, uint64_t divisor, bool remainder, bool isSigned,
                        const ThreadSpace &space);
Uniformity refineCompare(const Affine &a, const Affine &b, ptx::Mod cmp, bool isSigned,
                         const ThreadSpace &space);

/// The form of a & mask, given the uniformity `level` of the result: for a
/// low mask 2^j - 1 whose complement leaves a uniform part (at the shape of
/// `space`), a minus that part — a multiple of 2^j (`tid.x & 31` is
/// tid.x - 32·warp in a one-dimensional block); otherwise an unknown
/// multiple of 2^(trailing zeros of mask), top when divergent.
Affine maskedForm(const Affine &a, uint64_t mask, Uniformity level, const ThreadSpace &space);
/// The largest j such that every value of form a is a multiple of 2^j
/// (its width for 0); a value below 2^j then shares no bit with it, and
/// `or` adds the two.
unsigned knownAlignment(const Affine &a);

/// setp's integer comparison `cmp` of two `width`-bit numbers; nullopt for
/// a comparison integers do not have (the unordered float ones).
std::optional<bool> compareIntegers(ptx::Mod cmp, uint64_t x, uint64_t y, unsigned width, bool isSigned);

} // namespace analysis
