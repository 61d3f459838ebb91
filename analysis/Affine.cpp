// Affine forms over the thread id, and the uniformity checks that enumerate
// a CTA of known shape warp by warp.
#include "analysis/Affine.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <utility>

namespace analysis {

namespace {

int64_t wrap(int64_t v, unsigned w) {
  if (w == 0 || w >= 64) return v;
  unsigned s = 64 - w;
  return static_cast<int64_t>(static_cast<uint64_t>(v) << s) >> s;
}

unsigned trailingZeros(int64_t v, unsigned w) {
  uint64_t u = static_cast<uint64_t>(v) & widthMask(w);
  return u == 0 ? w : static_cast<unsigned>(std::countr_zero(u));
}

unsigned alignOf(const Coef &c, unsigned w) { return c.isConst() ? trailingZeros(c.value, w) : c.align; }
Uniformity levelOfCoef(const Coef &c) { return c.isConst() ? Uniformity::CtaUniform : c.level; }

Coef constCoef(int64_t v, unsigned w) {
  Coef c;
  c.value = wrap(v, w);
  return c;
}

Coef uniformCoef(Uniformity level, unsigned align, unsigned w) {
  if (align >= w) return constCoef(0, w); // a multiple of 2^width is 0
  Coef c;
  c.kind = Coef::Kind::Uniform;
  c.level = level;
  c.align = static_cast<uint8_t>(align);
  return c;
}

int64_t mulWrap(int64_t a, int64_t b, unsigned w) {
  return wrap(static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)), w);
}

Coef addCoef(const Coef &a, const Coef &b, unsigned w) {
  if (a.isConst() && b.isConst())
    return constCoef(static_cast<int64_t>(static_cast<uint64_t>(a.value) + static_cast<uint64_t>(b.value)),
                     w);
  if (a.isZero()) return b;
  if (b.isZero()) return a;
  return uniformCoef(join(levelOfCoef(a), levelOfCoef(b)), std::min(alignOf(a, w), alignOf(b, w)), w);
}

Coef scaleCoef(const Coef &c, int64_t k, unsigned w) {
  if (c.isConst()) return constCoef(mulWrap(c.value, k, w), w);
  if (wrap(k, w) == 0) return constCoef(0, w);
  return uniformCoef(c.level, std::min<unsigned>(c.align + trailingZeros(k, w), w), w);
}

Coef mulCoef(const Coef &a, const Coef &b, unsigned w) {
  if (a.isConst()) return scaleCoef(b, a.value, w);
  if (b.isConst()) return scaleCoef(a, b.value, w);
  return uniformCoef(join(a.level, b.level), std::min<unsigned>(a.align + b.align, w), w);
}

// The value of a form's constant thread-id terms for one thread, mod 2^w.
uint64_t threadTerms(const Affine &a, const std::array<uint32_t, 3> &tid) {
  uint64_t t = 0;
  for (unsigned i = 1; i <= 3; ++i) t += static_cast<uint64_t>(a.coef(i).value) * tid[i - 1];
  return t & widthMask(a.width());
}

bool hasUniformThreadTerm(const Affine &a) {
  for (unsigned i = 1; i <= 3; ++i)
    if (!a.coef(i).isConst()) return true;
  return false;
}

// Signed or unsigned view of a w-bit pattern.
int64_t asSigned(uint64_t v, unsigned w) { return wrap(static_cast<int64_t>(v), w); }

// Ranges of a constant term: [lo, hi] of unsigned w-bit numbers, lo <= hi.
// Arithmetic on them is modular; a result that would wrap around 2^w in the
// middle is no interval any more and is dropped.
using Range = std::optional<std::pair<uint64_t, uint64_t>>;
using Wide = unsigned __int128;

Range addRanges(const Range &x, const Range &y, unsigned w) {
  if (!x || !y) return std::nullopt;
  const uint64_t mask = widthMask(w);
  const Wide length = Wide{x->second - x->first} + (y->second - y->first);
  const uint64_t lo = (x->first + y->first) & mask;
  if (Wide{lo} + length > mask) return std::nullopt;
  return std::pair(lo, static_cast<uint64_t>(lo + length));
}

Range negRange(const Range &x, unsigned w) {
  if (!x) return std::nullopt;
  if (x->first == 0) return x->second == 0 ? x : std::nullopt; // 0 stays, the rest wraps to the top
  const uint64_t mask = widthMask(w);
  return std::pair((0 - x->second) & mask, (0 - x->first) & mask);
}

Range mulRanges(const Range &x, const Range &y, unsigned w) {
  if (!x || !y || Wide{x->second} * y->second > widthMask(w)) return std::nullopt;
  return std::pair(x->first * y->first, x->second * y->second);
}

/// The range of c·k for a range of c: through -(c·|k|) for a negative k.
Range scaleRange(const Range &x, int64_t k, unsigned w) {
  const int64_t kw = wrap(k, w);
  if (kw >= 0) return mulRanges(x, std::pair(uint64_t(kw), uint64_t(kw)), w);
  const uint64_t magnitude = 0 - static_cast<uint64_t>(kw);
  return negRange(mulRanges(x, std::pair(magnitude, magnitude), w), w);
}

/// The most values of an unknown constant term tried one by one, times the
/// threads of the block.
constexpr uint64_t kMaxEnumerated = uint64_t{1} << 20;

/// Calls f(u) for every number u the constant term of `a` can be - the
/// multiples of 2^align in a bounded unknown's range - and returns true;
/// false, calling nothing, when that is not known or too many to try.
template <class F> bool forEachConstantTerm(const Affine &a, const ThreadSpace &space, F f) {
  const Range range = a.constantTermRange();
  if (!range || !space.known()) return false;
  const Coef &c0 = a.coef(0);
  const uint64_t step = uint64_t{1} << (c0.isConst() ? 0 : std::min<unsigned>(c0.align, 63));
  const uint64_t count = (range->second - range->first) / step + 1;
  if (count > kMaxEnumerated / space.size()) return false;
  for (uint64_t i = 0; i < count; ++i) f(range->first + i * step);
  return true;
}

} // namespace

// ---- Launch shapes ------------------------------------------------------------

LaunchShape LaunchShape::ofFunction(const ptx::Function &fn) {
  auto dims = [](const ptx::FunctionDirective &d) {
    std::array<uint32_t, 3> v{1, 1, 1};
    for (size_t i = 0; i < d.values.size() && i < 3; ++i) v[i] = d.values[i];
    return v;
  };
  for (const ptx::FunctionDirective &d : fn.directives)
    if (d.kind == ptx::DirectiveKind::ReqNTid && !d.values.empty()) {
      auto v = dims(d);
      return exact(v[0], v[1], v[2]);
    }
  for (const ptx::FunctionDirective &d : fn.directives)
    if (d.kind == ptx::DirectiveKind::MaxNTid && !d.values.empty()) {
      auto v = dims(d);
      if (v[1] == 1 && v[2] == 1) return linear(v[0]);
    }
  return {};
}

std::string LaunchShape::str() const {
  switch (kind) {
  case Kind::Any: return "any";
  case Kind::Exact: return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
  case Kind::Linear: return "x<=" + std::to_string(x);
  }
  return "any";
}

ThreadSpace::ThreadSpace(const LaunchShape &shape) : shape_(shape) {
  // A CTA holds at most 1024 threads; larger shapes are enumerated up to a
  // bound so that a bad --block cannot make the analysis slow.
  constexpr uint64_t kMaxThreads = 1u << 16;
  uint64_t n = 0;
  if (shape.kind == LaunchShape::Kind::Exact) n = uint64_t{shape.x} * shape.y * shape.z;
  if (shape.kind == LaunchShape::Kind::Linear) n = shape.x;
  threads_ = n <= kMaxThreads ? static_cast<uint32_t>(n) : 0;
}

std::array<uint32_t, 3> ThreadSpace::tid(uint32_t linear) const {
  if (shape_.kind == LaunchShape::Kind::Linear) return {linear, 0, 0};
  return {linear % shape_.x, linear / shape_.x % shape_.y, linear / (shape_.x * shape_.y)};
}

// ---- Forms ---------------------------------------------------------------------

Affine Affine::constant(int64_t v, unsigned width) {
  Affine a(State::Known, width);
  a.c_[0] = constCoef(v, width);
  return a;
}

Affine Affine::unknown(Uniformity level, unsigned width, unsigned align) {
  if (level == Uniformity::Divergent) return top();
  Affine a(State::Known, width);
  a.c_[0] = uniformCoef(level, align, width);
  return a;
}

Affine Affine::unknownIn(Uniformity level, unsigned width, uint64_t lo, uint64_t hi, unsigned align) {
  Affine a = unknown(level, width, align);
  a.bound(std::pair(lo, hi));
  return a;
}

std::optional<std::pair<uint64_t, uint64_t>> Affine::constantTermRange() const {
  if (!known()) return std::nullopt;
  if (c_[0].isConst()) {
    const uint64_t v = static_cast<uint64_t>(c_[0].value) & widthMask(width_);
    return std::pair(v, v);
  }
  if (!bounded_) return std::nullopt;
  return std::pair(lo_, hi_);
}

void Affine::bound(std::optional<std::pair<uint64_t, uint64_t>> range) {
  bounded_ = false;
  lo_ = hi_ = 0;
  if (!range || !known() || c_[0].isConst()) return;
  auto [lo, hi] = *range;
  // Only the multiples of 2^align in it: a range the factor rules out
  // entirely says nothing usable.
  const uint64_t step = uint64_t{1} << std::min<unsigned>(c_[0].align, 63);
  const Wide first = (Wide{lo} + step - 1) / step * step;
  hi = hi / step * step;
  if (lo > hi || hi > widthMask(width_) || first > hi) return;
  lo = static_cast<uint64_t>(first);
  if (lo == hi) {
    // One number: the term is that constant, the same in every thread.
    c_[0] = constCoef(static_cast<int64_t>(lo), width_);
    return;
  }
  bounded_ = true;
  lo_ = lo;
  hi_ = hi;
}

Affine Affine::threadId(unsigned component, unsigned width) {
  Affine a(State::Known, width);
  a.c_[component] = constCoef(1, width);
  return a;
}

bool Affine::allConst() const {
  if (!known()) return false;
  for (const Coef &c : c_)
    if (!c.isConst()) return false;
  return true;
}

bool Affine::threadInvariant() const {
  if (!known()) return false;
  for (unsigned i = 1; i <= 3; ++i)
    if (!c_[i].isZero()) return false;
  return true;
}

void Affine::normalize() {
  for (Coef &c : c_) {
    if (c.isConst())
      c.value = wrap(c.value, width_);
    else if (c.align >= width_)
      c = constCoef(0, width_);
  }
  if (bounded_) bound(std::pair(lo_, hi_)); // dropped when no longer the width's numbers
}

std::string Affine::str() const {
  if (isTop()) return "top";
  if (isBottom()) return "bottom";
  auto unknownName = [](const Coef &c) {
    std::string u = c.level == Uniformity::WarpUniform ? "W" : "U";
    return c.align ? std::to_string(uint64_t{1} << c.align) + "*" + u : u;
  };
  static const char *const kTid[] = {"", "tid.x", "tid.y", "tid.z"};
  std::string out;
  auto term = [&](const std::string &t) {
    if (out.empty())
      out = t;
    else if (t[0] == '-')
      out += " - " + t.substr(1);
    else
      out += " + " + t;
  };
  for (unsigned i = 1; i <= 3; ++i) {
    const Coef &c = c_[i];
    if (c.isZero()) continue;
    if (!c.isConst())
      term("(" + unknownName(c) + ")*" + kTid[i]);
    else if (c.value == 1)
      term(kTid[i]);
    else if (c.value == -1)
      term(std::string("-") + kTid[i]);
    else
      term(std::to_string(c.value) + "*" + kTid[i]);
  }
  const Coef &c0 = c_[0];
  if (!c0.isConst()) {
    std::string u = unknownName(c0);
    if (bounded_) u = "(" + u + ": " + std::to_string(lo_) + ".." + std::to_string(hi_) + ")";
    out = out.empty() ? u : u + (out[0] == '-' ? " - " + out.substr(1) : " + " + out);
  } else if (c0.value != 0 || out.empty()) {
    std::string k = std::to_string(c0.value);
    out = out.empty() ? k : k + (out[0] == '-' ? " - " + out.substr(1) : " + " + out);
  }
  return out;
}

Affine add(const Affine &a, const Affine &b) {
  if (a.isTop() || b.isTop() || (a.known() && b.known() && a.width_ != b.width_)) return Affine::top();
  if (a.isBottom() || b.isBottom()) return Affine::bottom();
  Affine r(Affine::State::Known, a.width_);
  for (unsigned i = 0; i < 4; ++i) r.c_[i] = addCoef(a.c_[i], b.c_[i], a.width_);
  r.bound(addRanges(a.constantTermRange(), b.constantTermRange(), a.width_));
  return r;
}

Affine neg(const Affine &a) {
  if (!a.known()) return a;
  Affine r = a;
  for (Coef &c : r.c_)
    if (c.isConst()) c.value = wrap(static_cast<int64_t>(0 - static_cast<uint64_t>(c.value)), a.width_);
  r.bound(negRange(a.constantTermRange(), a.width_));
  return r;
}

Affine sub(const Affine &a, const Affine &b) { return add(a, neg(b)); }

Affine scale(const Affine &a, int64_t k) {
  if (!a.known()) return a;
  Affine r = a;
  for (Coef &c : r.c_) c = scaleCoef(c, k, a.width_);
  r.bound(scaleRange(a.constantTermRange(), k, a.width_));
  return r;
}

Affine mul(const Affine &a, const Affine &b) {
  if (a.isTop() || b.isTop() || (a.known() && b.known() && a.width_ != b.width_)) return Affine::top();
  if (a.isBottom() || b.isBottom()) return Affine::bottom();
  const Affine *factor = a.threadInvariant() ? &a : b.threadInvariant() ? &b : nullptr;
  if (!factor) return Affine::top();
  const Affine &other = factor == &a ? b : a;
  Affine r(Affine::State::Known, a.width_);
  for (unsigned i = 0; i < 4; ++i) r.c_[i] = mulCoef(factor->c_[0], other.c_[i], a.width_);
  r.bound(mulRanges(factor->constantTermRange(), other.constantTermRange(), a.width_));
  return r;
}

Affine convert(const Affine &a, unsigned toWidth, bool signedSource) {
  if (!a.known()) return a;
  Affine r = a;
  r.width_ = static_cast<uint8_t>(toWidth);
  if (toWidth <= a.width_) {
    r.normalize();
    return r;
  }
  const unsigned w = a.width_;
  const uint64_t toMask = widthMask(toWidth);
  // The constant term's bounds as numbers of the source's signedness; the
  // widened term has them, extended, unless they straddle its sign.
  auto extend = [&](uint64_t bits) {
    return signedSource ? static_cast<__int128>(asSigned(bits, w)) : static_cast<__int128>(bits);
  };
  const Range range = a.constantTermRange();
  const __int128 first = range ? extend(range->first) : 0, last = range ? extend(range->second) : 0;
  auto keepBounds = [&](Affine &widened) {
    if (range && first <= last)
      widened.bound(std::pair(static_cast<uint64_t>(first) & toMask, static_cast<uint64_t>(last) & toMask));
    else
      widened.bound(std::nullopt);
  };
  if (a.threadInvariant()) {
    if (a.c_[0].isConst()) return Affine::constant(static_cast<int64_t>(first), toWidth);
    keepBounds(r); // an unknown keeps its uniformity and factor
    return r;
  }
  if (hasUniformThreadTerm(a) || !range || first > last) return Affine::top();
  // Widening is exact when no thread's value wraps in the source width;
  // thread ids are below the hardware limits 1024, 1024, 64.
  static constexpr int64_t kMaxTid[] = {0, 1023, 1023, 63};
  __int128 lo = first, hi = last;
  for (unsigned i = 1; i <= 3; ++i) {
    __int128 term = static_cast<__int128>(a.c_[i].value) * kMaxTid[i];
    lo += std::min<__int128>(0, term);
    hi += std::max<__int128>(0, term);
  }
  __int128 minOk = signedSource ? -(static_cast<__int128>(1) << (w - 1)) : 0;
  __int128 maxOk =
      signedSource ? (static_cast<__int128>(1) << (w - 1)) - 1 : (static_cast<__int128>(1) << w) - 1;
  if (lo < minOk || hi > maxOk) return Affine::top();
  if (a.c_[0].isConst())
    r.c_[0] = constCoef(static_cast<int64_t>(first), toWidth);
  else
    keepBounds(r);
  return r;
}

Affine merge(const Affine &a, const Affine &b, Uniformity gate) {
  if (a.isBottom()) return b;
  if (b.isBottom()) return a;
  if (a.isTop() || b.isTop() || a.width_ != b.width_) return Affine::top();
  if (a == b && a.allConst()) return a;
  Affine r(Affine::State::Known, a.width_);
  for (unsigned i = 0; i < 4; ++i) {
    const Coef &x = a.c_[i], &y = b.c_[i];
    if (x.isConst() && x == y) {
      r.c_[i] = x;
      continue;
    }
    if (gate == Uniformity::Divergent) return Affine::top();
    Uniformity level = join(join(levelOfCoef(x), levelOfCoef(y)), gate);
    r.c_[i] = uniformCoef(level, std::min(alignOf(x, a.width_), alignOf(y, a.width_)), a.width_);
  }
  // Bounds survive only when both sides have the same: the hull would
  // climb by a stride per round around a loop.
  if (const Range range = a.constantTermRange(); range == b.constantTermRange()) r.bound(range);
  return r;
}

Affine raise(const Affine &a, Uniformity floor) {
  if (!a.known() || floor == Uniformity::CtaUniform || a.allConst()) return a;
  if (floor == Uniformity::Divergent) return Affine::top();
  Affine r = a;
  for (Coef &c : r.c_)
    if (!c.isConst()) c.level = join(c.level, floor);
  return r;
}

// ---- Uniformity over a CTA ----------------------------------------------------------

Uniformity levelOf(const Affine &a, const ThreadSpace &space, const ThreadSpace::Mask *among) {
  if (!a.known()) return Uniformity::Divergent;
  Uniformity level = levelOfCoef(a.coef(0));
  if (a.threadInvariant()) return level;
  if (!space.known()) return Uniformity::Divergent;
  // Unknown coefficients multiply their thread-id component: that component
  // must be constant where the value is to be.
  std::array<bool, 3> unknownTerm{};
  for (unsigned i = 1; i <= 3; ++i)
    if (!a.coef(i).isConst()) {
      unknownTerm[i - 1] = true;
      level = join(level, a.coef(i).level);
    }
  return join(level, space.classify(
                         [&](uint32_t t) {
                           auto tid = space.tid(t);
                           uint64_t packed = 0;
                           for (unsigned i = 0; i < 3; ++i)
                             if (unknownTerm[i]) packed |= uint64_t{tid[i]} << (20 * i);
                           uint64_t value = 0;
                           for (unsigned i = 1; i <= 3; ++i)
                             if (a.coef(i).isConst())
                               value += static_cast<uint64_t>(a.coef(i).value) * tid[i - 1];
                           return std::pair(value & widthMask(a.width()), packed);
                         },
                         among));
}

namespace {

/// Classifies f(value of a in each thread) when the constant term is known,
/// and g(high part, low part) when it is an unknown multiple of 2^align:
/// then value = U + t with U's low `align` bits zero, so the bits of the
/// value at and above `align` are (U >> align) + (t >> align), carry-free,
/// and the bits below are those of t.
/// How key(u, thread) varies when the constant term of `a` is each number
/// u it can be in turn (a bounded unknown: a CTA of a launch whose grid is
/// known has one of them): uniform only when it is for every u.
template <class Key> Uniformity classifyEachConstantTerm(const Affine &a, const ThreadSpace &space, Key key) {
  Uniformity level = Uniformity::CtaUniform;
  const bool tried = forEachConstantTerm(a, space, [&](uint64_t u) {
    if (level != Uniformity::Divergent)
      level = join(level, space.classify([&](uint32_t t) { return key(u, t); }));
  });
  if (!tried) return Uniformity::Divergent;
  return a.coef(0).isConst() ? level : join(level, a.coef(0).level);
}

template <class Exact, class Split>
Uniformity classifyValue(const Affine &a, const ThreadSpace &space, Exact exact, Split split) {
  if (!a.known() || hasUniformThreadTerm(a)) return Uniformity::Divergent;
  const unsigned w = a.width();
  const Coef &c0 = a.coef(0);
  if (c0.isConst())
    return space.classify([&](uint32_t t) {
      return exact((static_cast<uint64_t>(c0.value) + threadTerms(a, space.tid(t))) & widthMask(w));
    });
  const unsigned align = std::min<unsigned>(c0.align, w);
  const Uniformity bySplit = join(c0.level, space.classify([&](uint32_t t) {
    uint64_t v = threadTerms(a, space.tid(t));
    return split(align >= 64 ? 0 : v >> align, v & widthMask(align));
  }));
  if (bySplit == Uniformity::CtaUniform) return bySplit;
  return meet(bySplit, classifyEachConstantTerm(a, space, [&](uint64_t u, uint32_t t) {
                return exact((u + threadTerms(a, space.tid(t))) & widthMask(w));
              }));
}

} // namespace

Uniformity refineShiftRight(const Affine &a, unsigned k, bool arithmetic, const ThreadSpace &space) {
  const unsigned w = a.width();
  if (w == 0) return Uniformity::Divergent;
  if (!arithmetic && k >= w) return Uniformity::CtaUniform; // always 0
  k = std::min(k, w - 1);
  return classifyValue(
      a, space, [&](uint64_t v) { return arithmetic ? static_cast<uint64_t>(asSigned(v, w) >> k) : v >> k; },
      // The high part carries every bit at and above `align`; the low part
      // only matters through its bits at and above k.
      [&](uint64_t high, uint64_t low) { return std::pair(high, low >> k); });
}

Uniformity refineAnd(const Affine &a, uint64_t mask, const ThreadSpace &space) {
  const unsigned w = a.width();
  mask &= widthMask(w);
  return classifyValue(
      a, space, [&](uint64_t v) { return v & mask; },
      [&](uint64_t high, uint64_t low) {
        // Bits at and above align come from the high part (plus U).
        unsigned align = std::min<unsigned>(a.coef(0).align, w);
        bool highMatters = align < 64 && (mask >> align) != 0;
        return std::pair(highMatters ? high : 0, low & mask);
      });
}

Uniformity refineDivRem(const Affine &a, uint64_t divisor, bool remainder, bool isSigned,
                        const ThreadSpace &space) {
  const unsigned w = a.width();
  divisor &= widthMask(w);
  if (divisor == 0 || !a.known()) return Uniformity::Divergent;
  if (a.coef(0).isConst()) {
    int64_t sd = asSigned(divisor, w);
    return classifyValue(
        a, space,
        [&](uint64_t v) -> uint64_t {
          if (isSigned) {
            int64_t sv = asSigned(v, w);
            if (sd == -1) return remainder ? 0 : static_cast<uint64_t>(0 - static_cast<uint64_t>(sv));
            return static_cast<uint64_t>(remainder ? sv % sd : sv / sd);
          }
          return remainder ? v % divisor : v / divisor;
        },
        [](uint64_t, uint64_t) { return std::pair<uint64_t, uint64_t>(0, 0); });
  }
  if (isSigned || !std::has_single_bit(divisor)) return Uniformity::Divergent;
  unsigned k = static_cast<unsigned>(std::countr_zero(divisor));
  return remainder ? refineAnd(a, divisor - 1, space) : refineShiftRight(a, k, false, space);
}

Affine maskedForm(const Affine &a, uint64_t mask, Uniformity level, const ThreadSpace &space) {
  const unsigned w = a.width();
  if (w == 0) return Affine::top();
  mask &= widthMask(w);
  if (mask == 0) return Affine::constant(0, w);
  // a & mask is a multiple of 2^zeros; and the bits a never has may join
  // the mask: `(2·tid) & 62` is `(2·tid) & 63`.
  const unsigned never = std::min(knownAlignment(a), w);
  const unsigned zeros = std::max(never, static_cast<unsigned>(std::countr_zero(mask)));
  mask |= widthMask(never);
  if (mask == widthMask(w)) return a;
  if (a.known() && std::has_single_bit(mask + 1)) {
    const unsigned j = static_cast<unsigned>(std::countr_one(mask));
    const Uniformity high = refineAnd(a, ~mask & widthMask(w), space);
    if (high != Uniformity::Divergent) return sub(a, Affine::unknown(high, w, j));
  }
  return Affine::unknownIn(level, w, 0, mask, zeros); // no bit outside the mask
}

unsigned knownAlignment(const Affine &a) {
  if (!a.known()) return 0;
  unsigned j = a.width();
  for (unsigned i = 0; i < 4; ++i) j = std::min(j, alignOf(a.coef(i), a.width()));
  return j;
}

std::optional<bool> compareIntegers(ptx::Mod cmp, uint64_t x, uint64_t y, unsigned width, bool isSigned) {
  using ptx::Mod;
  const bool unsignedOrder =
      !isSigned || cmp == Mod::Lo || cmp == Mod::Ls || cmp == Mod::Hi || cmp == Mod::Hs;
  x &= widthMask(width);
  y &= widthMask(width);
  auto less = [&](uint64_t p, uint64_t q) {
    return unsignedOrder ? p < q : asSigned(p, width) < asSigned(q, width);
  };
  switch (cmp) {
  case Mod::Eq: return x == y;
  case Mod::Ne: return x != y;
  case Mod::Lt:
  case Mod::Lo: return less(x, y);
  case Mod::Le:
  case Mod::Ls: return !less(y, x);
  case Mod::Gt:
  case Mod::Hi: return less(y, x);
  case Mod::Ge:
  case Mod::Hs: return !less(x, y);
  default: return std::nullopt;
  }
}

namespace {

/// The comparison with its operands swapped: a < b is b > a.
ptx::Mod mirrored(ptx::Mod cmp) {
  using ptx::Mod;
  switch (cmp) {
  case Mod::Lt: return Mod::Gt;
  case Mod::Gt: return Mod::Lt;
  case Mod::Le: return Mod::Ge;
  case Mod::Ge: return Mod::Le;
  case Mod::Lo: return Mod::Hi;
  case Mod::Hi: return Mod::Lo;
  case Mod::Ls: return Mod::Hs;
  case Mod::Hs: return Mod::Ls;
  default: return cmp; // eq, ne
  }
}

/// `U + v(t)  cmp  k` where U is a uniform unknown multiple of 2^align, v
/// the thread terms and k a constant. Split at any s <= align: U + v =
/// (U/2^s + v/2^s)·2^s + v mod 2^s without a carry between the parts, and
/// so is k. The comparison (signed too: the sign bit is in the high part,
/// s < w) is then a function of the high part of U + v, uniform up to
/// v/2^s, and of where v mod 2^s lies against k mod 2^s — only whether it is
/// below for <, >=; not above for <=, >; equal for ==, !=. The loop
/// `for (i = tid; i < 256; i += blockDim.x)` at 128 threads: i = U·128 +
/// tid, and at s = 7 the high part of tid is 0 and k's low part is 0.
Uniformity compareAlignedUnknown(const Affine &a, uint64_t k, ptx::Mod cmp, const ThreadSpace &space) {
  using ptx::Mod;
  const unsigned w = a.width();
  const Coef &u = a.coef(0);
  const unsigned align = std::min<unsigned>(u.align, w - 1);
  Uniformity best = Uniformity::Divergent;
  // What of the low part matters: whether it is below k's (<, >=), not
  // above it (<=, >), or equal to it (==, !=).
  enum class Side { Below, NotAbove, Equal };
  const Side side = cmp == Mod::Lt || cmp == Mod::Lo || cmp == Mod::Ge || cmp == Mod::Hs   ? Side::Below
                    : cmp == Mod::Le || cmp == Mod::Ls || cmp == Mod::Gt || cmp == Mod::Hi ? Side::NotAbove
                                                                                           : Side::Equal;
  for (unsigned s = 0; s <= align && best != Uniformity::CtaUniform; ++s) {
    const uint64_t low = widthMask(s), kLow = k & low;
    const Uniformity level = space.classify([&](uint32_t t) {
      const uint64_t v = threadTerms(a, space.tid(t));
      const uint64_t l = v & low;
      const bool where = side == Side::Below ? l < kLow : side == Side::NotAbove ? l <= kLow : l == kLow;
      return std::pair(v >> s, where);
    });
    if (level != Uniformity::Divergent && (best == Uniformity::Divergent || level == Uniformity::CtaUniform))
      best = level;
  }
  return best == Uniformity::Divergent ? best : join(best, u.level);
}

} // namespace

Uniformity refineCompare(const Affine &a, const Affine &b, ptx::Mod cmp, bool isSigned,
                         const ThreadSpace &space) {
  if (!a.known() || !b.known() || a.width() != b.width()) return Uniformity::Divergent;
  if (hasUniformThreadTerm(a) || hasUniformThreadTerm(b)) return Uniformity::Divergent;
  const unsigned w = a.width();
  if (!compareIntegers(cmp, 0, 0, w, isSigned)) return Uniformity::Divergent; // not an integer comparison
  // An unknown multiple of a power of two against a constant, either side;
  // a bounded unknown also value by value.
  auto unknownAgainst = [&](const Affine &x, uint64_t k, ptx::Mod c) {
    const Uniformity aligned = compareAlignedUnknown(x, k, c, space);
    if (aligned == Uniformity::CtaUniform) return aligned;
    return meet(aligned, classifyEachConstantTerm(x, space, [&](uint64_t u, uint32_t t) {
                  return *compareIntegers(c, u + threadTerms(x, space.tid(t)), k, w, isSigned);
                }));
  };
  if (!a.coef(0).isConst() && b.allConst() && b.threadInvariant())
    return unknownAgainst(a, static_cast<uint64_t>(b.coef(0).value) & widthMask(w), cmp);
  if (!b.coef(0).isConst() && a.allConst() && a.threadInvariant())
    return unknownAgainst(b, static_cast<uint64_t>(a.coef(0).value) & widthMask(w), mirrored(cmp));
  if (!a.coef(0).isConst() || !b.coef(0).isConst()) return Uniformity::Divergent;
  return space.classify([&](uint32_t t) {
    auto tid = space.tid(t);
    uint64_t x = static_cast<uint64_t>(a.coef(0).value) + threadTerms(a, tid);
    uint64_t y = static_cast<uint64_t>(b.coef(0).value) + threadTerms(b, tid);
    return *compareIntegers(cmp, x, y, w, isSigned);
  });
}

} // namespace analysis
