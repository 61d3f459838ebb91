// Comparisons the integer group does not make: setp with .ftz and on
// .f16/.bf16 and their x2 packings (p from the low half, q from the high
// half), and set (a comparison, optionally combined with a predicate,
// written as all ones / 1.0 or 0, per half for packed sources) for every
// source and destination type.
#include "emulator/Semantics.h"
#include "emulator/semantics/Fp.h"
#include "emulator/semantics/Integer.h"

#include <cmath>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

/// One comparison operand, as the compare needs it.
struct Value {
  double f = 0;  // floating-point sources
  int64_t s = 0; // integer sources, sign-extended
  uint64_t u = 0;
};

/// How a source type is read: its width and kind.
struct Source {
  enum Kind : uint8_t { Signed, Unsigned, Float } kind;
  unsigned bits;
  fp::Format fmt{0, 0};
};

Source sourceOf(Type t) {
  switch (t) {
  case Type::S16: return {Source::Signed, 16};
  case Type::S32: return {Source::Signed, 32};
  case Type::S64: return {Source::Signed, 64};
  case Type::B16:
  case Type::U16: return {Source::Unsigned, 16};
  case Type::B32:
  case Type::U32: return {Source::Unsigned, 32};
  case Type::B64:
  case Type::U64: return {Source::Unsigned, 64};
  case Type::F16:
  case Type::F16x2: return {Source::Float, 16, fp::kF16};
  case Type::BF16:
  case Type::BF16x2: return {Source::Float, 16, fp::kBF16};
  case Type::F32: return {Source::Float, 32, fp::kF32};
  case Type::F64: return {Source::Float, 64, fp::kF64};
  default: return {Source::Unsigned, 0};
  }
}

Value valueOf(uint64_t bits, const Source &s, bool ftz) {
  Value v;
  uint64_t m = s.bits == 64 ? ~0ull : (1ull << s.bits) - 1;
  bits &= m;
  if (s.kind == Source::Float) {
    v.f = fp::toDouble(bits, s.fmt);
    // .ftz flushes f32 and f16 subnormals (bf16 and f64 have no .ftz forms).
    double tiny = std::ldexp(1.0, 2 - (1 << (s.fmt.expBits - 1)));
    if (ftz && v.f != 0 && std::fabs(v.f) < tiny) v.f = std::copysign(0.0, v.f);
  } else {
    v.u = bits;
    v.s = s.kind == Source::Signed && s.bits < 64 && (bits >> (s.bits - 1)) & 1 ? int64_t(bits | ~m)
                                                                                : int64_t(bits);
  }
  return v;
}

bool compare(Mod op, const Value &a, const Value &b, Source::Kind kind) {
  if (kind == Source::Float) {
    double x = a.f, y = b.f;
    bool unordered = x != x || y != y;
    switch (op) {
    case Mod::Eq: return !unordered && x == y;
    case Mod::Ne: return !unordered && x != y;
    case Mod::Lt: return !unordered && x < y;
    case Mod::Le: return !unordered && x <= y;
    case Mod::Gt: return !unordered && x > y;
    case Mod::Ge: return !unordered && x >= y;
    case Mod::Equ: return unordered || x == y;
    case Mod::Neu: return unordered || x != y;
    case Mod::Ltu: return unordered || x < y;
    case Mod::Leu: return unordered || x <= y;
    case Mod::Gtu: return unordered || x > y;
    case Mod::Geu: return unordered || x >= y;
    case Mod::Num: return !unordered;
    case Mod::Nan: return unordered;
    default: return false;
    }
  }
  // .lo/.ls/.hi/.hs compare unsigned; .lt... compare in the type's signedness.
  bool sgn = kind == Source::Signed;
  switch (op) {
  case Mod::Eq: return a.u == b.u;
  case Mod::Ne: return a.u != b.u;
  case Mod::Lt: return sgn ? a.s < b.s : a.u < b.u;
  case Mod::Le: return sgn ? a.s <= b.s : a.u <= b.u;
  case Mod::Gt: return sgn ? a.s > b.s : a.u > b.u;
  case Mod::Ge: return sgn ? a.s >= b.s : a.u >= b.u;
  case Mod::Lo: return a.u < b.u;
  case Mod::Ls: return a.u <= b.u;
  case Mod::Hi: return a.u > b.u;
  case Mod::Hs: return a.u >= b.u;
  default: return false;
  }
}

bool combine(Mod op, bool t, bool c) {
  switch (op) {
  case Mod::And: return t && c;
  case Mod::Or: return t || c;
  case Mod::Xor: return t != c;
  default: return t;
  }
}

bool predicateOperand(Exec &x, const DOp &p, unsigned lane) {
  return (readOperand(x, p, lane) & 1) != p.negated;
}

/// setp.cmp{.bool}{.ftz}.T p{|q}, a, b{, c}. Packed .f16x2/.bf16x2 compare
/// each half: p from the low one, q from the high one; otherwise q gets the
/// complement of the comparison.
template <bool Packed> void setp(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const Source src = sourceOf(in.type);
  const bool boolOp = in.op2 != Mod::None;
  const bool pair = in.numOps == (boolOp ? 5u : 4u);
  const unsigned a = pair ? 2 : 1;
  const DOp &aOp = k.op(in, a), &bOp = k.op(in, a + 1);
  forLanes(x.mask, [&](unsigned l) {
    uint64_t av = readOperand(x, aOp, l), bv = readOperand(x, bOp, l);
    bool c = boolOp ? predicateOperand(x, k.op(in, a + 2), l) : true;
    bool t0 = compare(in.op, valueOf(av, src, in.ftz), valueOf(bv, src, in.ftz), src.kind);
    bool p, q;
    if constexpr (Packed) {
      bool t1 = compare(in.op, valueOf(av >> 16, src, in.ftz), valueOf(bv >> 16, src, in.ftz), src.kind);
      p = combine(in.op2, t0, c), q = combine(in.op2, t1, c);
    } else {
      p = combine(in.op2, t0, c), q = combine(in.op2, !t0, c);
    }
    writeOperand(x, k.op(in, 0), l, p);
    if (pair) writeOperand(x, k.op(in, 1), l, q);
  });
}

/// The encoding of "true" in a set destination of type t (per half for
/// packed sources).
uint64_t trueValue(Type t, bool packedSource) {
  switch (t) {
  case Type::F32: return 0x3F800000u;
  case Type::F16:
  case Type::F16x2: return 0x3C00u;
  case Type::BF16:
  case Type::BF16x2: return 0x3F80u;
  case Type::U16:
  case Type::S16: return 0xFFFFu;
  default: return packedSource ? 0xFFFFu : 0xFFFFFFFFu;
  }
}

/// set.cmp{.bool}{.ftz}.dtype.stype d, a, b{, c}.
template <bool Packed> void set(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const Source src = sourceOf(in.type);
  const uint64_t yes = trueValue(in.type0, Packed);
  const bool boolOp = in.op2 != Mod::None;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t av = readOperand(x, k.op(in, 1), l), bv = readOperand(x, k.op(in, 2), l);
    bool c = boolOp ? predicateOperand(x, k.op(in, 3), l) : true;
    bool t0 =
        combine(in.op2, compare(in.op, valueOf(av, src, in.ftz), valueOf(bv, src, in.ftz), src.kind), c);
    uint64_t r = t0 ? yes : 0;
    if constexpr (Packed) {
      bool t1 = combine(
          in.op2, compare(in.op, valueOf(av >> 16, src, in.ftz), valueOf(bv >> 16, src, in.ftz), src.kind),
          c);
      r |= (t1 ? yes : 0) << 16;
    }
    writeOperand(x, k.op(in, 0), l, r);
  });
}

bool isPacked(Type t) { return t == Type::F16x2 || t == Type::BF16x2; }

Handler pickSet(const DInstr &in) {
  if (sourceOf(in.type).bits == 0) return nullptr;
  return isPacked(in.type) ? set<true> : set<false>;
}
Handler pickSetp(const DInstr &in) {
  if (sourceOf(in.type).bits == 0) return nullptr;
  // setp.ftz.f32: the vectorised setp, flushing its inputs.
  if (in.type == Type::F32) return selectVectorSetp(in);
  return isPacked(in.type) ? setp<true> : setp<false>;
}

// setp on integers, and on f32/f64 without .ftz: Integer.cpp's vectorised setp.
constexpr HandlerRow kRows[] = {
    row(Opcode::Set, tclass::All, pickSet),
    row(Opcode::Setp, tclass::Float, pickSetp, kmod::Ftz),
    row(Opcode::Setp, tclass::Half, pickSetp),
};

} // namespace

std::span<const HandlerRow> compareHandlers() { return kRows; }

} // namespace emu
