// Integer semantics over every thread of a CTA, for the instructions that
// compute thread-id arithmetic: moves and conversions, add/sub/mul/mad, the
// bitwise and shift operations, min/max/abs/neg, division by non-zero
// numbers, comparisons and selection.
#include "analysis/ThreadValues.h"

#include "ptx/InstrTable.h"

#include <bit>

namespace analysis {

namespace {

using ptx::Mod;
using ptx::Opcode;

int64_t signExtend(uint64_t v, unsigned w) {
  if (w == 0 || w >= 64) return static_cast<int64_t>(v);
  unsigned s = 64 - w;
  return static_cast<int64_t>(v << s) >> s;
}

bool isInteger(ptx::Type t) {
  ptx::TypeClass c = ptx::typeClass(t);
  return (c == ptx::TypeClass::Signed || c == ptx::TypeClass::Unsigned || c == ptx::TypeClass::Bits ||
          t == ptx::Type::Pred) &&
         ptx::bitWidth(t) > 0 && ptx::bitWidth(t) <= 64;
}

} // namespace

ThreadValues::ThreadValues(const ThreadSpace &space) : space_(space) {
  active_ = space.known() && space.size() <= kMaxThreads;
  threads_ = active_ ? space.size() : 0;
}

uint64_t *ThreadValues::allocate() {
  if (storage_.size() >= kMaxVectors) return nullptr;
  storage_.emplace_back(threads_);
  return storage_.back().data();
}

void ThreadValues::set(uint32_t value, Vector v) {
  if (value >= of_.size()) of_.resize(value + 1, nullptr);
  of_[value] = v;
}

ThreadValues::Vector ThreadValues::constant(uint64_t bits) {
  if (!active_) return nullptr;
  auto [it, fresh] = constants_.try_emplace(bits, nullptr);
  if (fresh)
    if (uint64_t *out = allocate()) {
      for (uint32_t t = 0; t < threads_; ++t) out[t] = bits;
      it->second = out;
    }
  return it->second;
}

ThreadValues::Vector ThreadValues::specialRegister(ptx::SpecialReg r, unsigned component) {
  if (!active_) return nullptr;
  auto [it, fresh] = specials_.try_emplace(static_cast<uint32_t>(r) << 2 | (component & 3), nullptr);
  if (fresh) it->second = computeSpecialRegister(r, component);
  return it->second;
}

ThreadValues::Vector ThreadValues::computeSpecialRegister(ptx::SpecialReg r, unsigned component) {
  using ptx::SpecialReg;
  const LaunchShape &shape = space_.shape();
  auto fill = [&](auto f) -> Vector {
    uint64_t *out = allocate();
    if (out)
      for (uint32_t t = 0; t < threads_; ++t) out[t] = f(t);
    return out;
  };
  switch (r) {
  case SpecialReg::Tid:
    if (component < 1 || component > 3) return nullptr;
    return fill([&](uint32_t t) { return uint64_t{space_.tid(t)[component - 1]}; });
  case SpecialReg::Ntid:
    if (component < 1 || component > 3 || shape.kind != LaunchShape::Kind::Exact) return nullptr;
    return constant(component == 1 ? shape.x : component == 2 ? shape.y : shape.z);
  // Warps hold consecutive linear thread indices: the lane is the index
  // modulo 32.
  case SpecialReg::LaneId: return fill([](uint32_t t) { return uint64_t{t % 32}; });
  case SpecialReg::LanemaskEq: return fill([](uint32_t t) { return uint64_t{1} << (t % 32); });
  case SpecialReg::LanemaskLt: return fill([](uint32_t t) { return (uint64_t{1} << (t % 32)) - 1; });
  case SpecialReg::LanemaskLe: return fill([](uint32_t t) { return (uint64_t{2} << (t % 32)) - 1; });
  case SpecialReg::LanemaskGe:
    return fill([](uint32_t t) { return ~((uint64_t{1} << (t % 32)) - 1) & 0xffffffffu; });
  case SpecialReg::LanemaskGt:
    return fill([](uint32_t t) { return ~((uint64_t{2} << (t % 32)) - 1) & 0xffffffffu; });
  default: return nullptr;
  }
}

ThreadValues::Vector ThreadValues::negate(Vector predicate) {
  if (!predicate) return nullptr;
  uint64_t *out = allocate();
  if (out)
    for (uint32_t t = 0; t < threads_; ++t) out[t] = predicate[t] ? 0 : 1;
  return out;
}

Uniformity ThreadValues::level(Vector v, const ThreadSpace::Mask *among) const {
  if (!v) return Uniformity::Divergent;
  return space_.classify([&](uint32_t t) { return v[t]; }, among);
}

ThreadValues::Vector ThreadValues::evaluate(const ptx::InstrDesc &desc, std::span<const Vector> src) {
  if (!active_) return nullptr;
  for (Vector v : src)
    if (!v) return nullptr;
  const ptx::Type type = desc.lastType();
  if (!isInteger(type)) return nullptr;
  const unsigned w = ptx::bitWidth(type);
  const bool isSigned = ptx::typeClass(type) == ptx::TypeClass::Signed;
  const uint64_t mask = widthMask(w);
  auto arg = [&](size_t k, uint32_t t) { return src[k][t] & mask; };
  auto sarg = [&](size_t k, uint32_t t) { return signExtend(src[k][t], w); };
  auto wide = [&](size_t k, uint32_t t) { return isSigned ? static_cast<uint64_t>(sarg(k, t)) : arg(k, t); };
  // f(t) for every thread, masked to `resultWidth` bits; null when f says
  // it cannot (nullopt for a thread).
  auto each = [&](unsigned resultWidth, auto f) -> Vector {
    uint64_t *out = allocate();
    if (!out) return nullptr;
    for (uint32_t t = 0; t < threads_; ++t) {
      std::optional<uint64_t> v = f(t);
      if (!v) return nullptr;
      out[t] = *v & widthMask(resultWidth);
    }
    return out;
  };
  auto need = [&](size_t n) { return src.size() == n; };
  const bool saturating = desc.has(Mod::Sat) || desc.has(Mod::Cc);

  switch (desc.opcode) {
  case Opcode::Mov:
    if (!need(1)) return nullptr;
    return each(w, [&](uint32_t t) { return std::optional(arg(0, t)); });
  case Opcode::Cvt: {
    const ptx::Type to = desc.type(0), from = desc.type(1);
    if (!need(1) || !isInteger(to) || !isInteger(from) || saturating ||
        desc.firstOfKind(ptx::ModKind::Rounding) != Mod::None)
      return nullptr;
    const unsigned fw = ptx::bitWidth(from);
    const bool fromSigned = ptx::typeClass(from) == ptx::TypeClass::Signed;
    return each(ptx::bitWidth(to), [&](uint32_t t) {
      uint64_t v = src[0][t] & widthMask(fw);
      return std::optional(fromSigned ? static_cast<uint64_t>(signExtend(v, fw)) : v);
    });
  }
  case Opcode::Add:
  case Opcode::Sub:
    if (!need(2) || saturating) return nullptr;
    return each(w, [&](uint32_t t) {
      return std::optional(desc.opcode == Opcode::Add ? arg(0, t) + arg(1, t) : arg(0, t) - arg(1, t));
    });
  case Opcode::Mul:
  case Opcode::Mad: {
    if (!need(desc.opcode == Opcode::Mad ? 3 : 2) || saturating || desc.has(Mod::Hi)) return nullptr;
    const bool isWide = desc.has(Mod::Wide);
    if (isWide && w > 32) return nullptr;
    const unsigned rw = isWide ? 2 * w : w;
    return each(rw, [&](uint32_t t) {
      uint64_t p = isWide ? wide(0, t) * wide(1, t) : arg(0, t) * arg(1, t);
      if (desc.opcode == Opcode::Mad) p += src[2][t];
      return std::optional(p);
    });
  }
  case Opcode::Shl:
  case Opcode::Shr:
    if (!need(2)) return nullptr;
    return each(w, [&](uint32_t t) -> std::optional<uint64_t> {
      uint64_t k = src[1][t] & 0xffffffffu; // the shift amount is .u32
      if (desc.opcode == Opcode::Shl) return k >= w ? 0 : arg(0, t) << k;
      if (isSigned) return static_cast<uint64_t>(sarg(0, t) >> std::min<uint64_t>(k, w - 1));
      return k >= w ? 0 : arg(0, t) >> k;
    });
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
    if (!need(2)) return nullptr;
    return each(w, [&](uint32_t t) {
      uint64_t a = arg(0, t), b = arg(1, t);
      return std::optional(desc.opcode == Opcode::And ? a & b : desc.opcode == Opcode::Or ? a | b : a ^ b);
    });
  case Opcode::Not:
    if (!need(1)) return nullptr;
    if (type == ptx::Type::Pred)
      return each(1, [&](uint32_t t) { return std::optional<uint64_t>(!src[0][t]); });
    return each(w, [&](uint32_t t) { return std::optional(~arg(0, t)); });
  case Opcode::Neg:
    if (!need(1)) return nullptr;
    return each(w, [&](uint32_t t) { return std::optional(0 - arg(0, t)); });
  case Opcode::Abs:
    if (!need(1) || !isSigned) return nullptr;
    return each(w, [&](uint32_t t) {
      int64_t v = sarg(0, t);
      return std::optional(static_cast<uint64_t>(v < 0 ? 0 - static_cast<uint64_t>(v) : v));
    });
  case Opcode::Min:
  case Opcode::Max:
    if (!need(2) || desc.has(Mod::Relu)) return nullptr;
    return each(w, [&](uint32_t t) {
      bool less = isSigned ? sarg(0, t) < sarg(1, t) : arg(0, t) < arg(1, t);
      bool first = desc.opcode == Opcode::Min ? less : !less;
      return std::optional(first ? arg(0, t) : arg(1, t));
    });
  case Opcode::Div:
  case Opcode::Rem:
    if (!need(2)) return nullptr;
    return each(w, [&](uint32_t t) -> std::optional<uint64_t> {
      if (arg(1, t) == 0) return std::nullopt; // what a GPU gives is no analysis' business
      if (!isSigned) return desc.opcode == Opcode::Div ? arg(0, t) / arg(1, t) : arg(0, t) % arg(1, t);
      int64_t a = sarg(0, t), b = sarg(1, t);
      if (b == -1) return desc.opcode == Opcode::Div ? 0 - static_cast<uint64_t>(a) : 0;
      return static_cast<uint64_t>(desc.opcode == Opcode::Div ? a / b : a % b);
    });
  case Opcode::Setp: {
    if (!need(2)) return nullptr; // the forms with a boolean operation and a third predicate
    const Mod cmp = desc.firstOfKind(ptx::ModKind::Compare);
    return each(1, [&](uint32_t t) -> std::optional<uint64_t> {
      std::optional<bool> r = compareIntegers(cmp, src[0][t], src[1][t], w, isSigned);
      if (!r) return std::nullopt;
      return *r ? 1 : 0;
    });
  }
  case Opcode::Selp:
    if (!need(3)) return nullptr;
    return each(w, [&](uint32_t t) { return std::optional(src[2][t] ? arg(0, t) : arg(1, t)); });
  case Opcode::Popc:
  case Opcode::Clz:
  case Opcode::Brev: {
    if (!need(1)) return nullptr;
    return each(desc.opcode == Opcode::Brev ? w : 32, [&](uint32_t t) -> std::optional<uint64_t> {
      uint64_t a = arg(0, t);
      if (desc.opcode == Opcode::Popc) return static_cast<uint64_t>(std::popcount(a));
      if (desc.opcode == Opcode::Clz) return static_cast<uint64_t>(std::countl_zero(a) - (64 - w));
      uint64_t r = 0;
      for (unsigned b = 0; b < w; ++b) r |= ((a >> b) & 1) << (w - 1 - b);
      return r;
    });
  }
  default: return nullptr;
  }
}

} // namespace analysis
