// Integer arithmetic, logic, shifts, comparisons and selection (add, sub,
// mul, mad, div, rem, min, max, abs, neg, and, or, xor, not, shl, shr, popc,
// clz, brev, setp, selp), for every integer width; setp on f32/f64 (.ftz
// included); mov of every type but .b128. Predicate logic is in Misc.cpp.
#include "emulator/semantics/Integer.h"

#include <cmath>
#include <limits>

namespace emu {
namespace {

using ptx::Opcode;
using ptx::Type;

template <typename T> using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;

// Operands are gathered for all 32 lanes, computed in a branch-free loop the
// compiler vectorises, and written back to the executing lanes.
template <typename T, typename F> inline void binary(Exec &x, const DInstr &in, F f) {
  const Kernel &k = x.kernel();
  T a[32], b[32], r[32];
  gather(x, k.op(in, 1), a);
  gather(x, k.op(in, 2), b);
  for (unsigned l = 0; l < 32; ++l) r[l] = f(a[l], b[l]);
  scatter(x, k.op(in, 0), r);
}

template <typename T, typename F> inline void unary(Exec &x, const DInstr &in, F f) {
  const Kernel &k = x.kernel();
  T a[32], r[32];
  gather(x, k.op(in, 1), a);
  for (unsigned l = 0; l < 32; ++l) r[l] = f(a[l]);
  scatter(x, k.op(in, 0), r);
}

template <typename T> T saturate(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

template <typename T> struct Ops {
  using U = std::make_unsigned_t<T>;
  // Products wrap in at least unsigned int: 16-bit operands would be
  // promoted to (signed) int, where 0xffff * 0xffff overflows.
  using Wrap = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  static constexpr unsigned kBits = sizeof(T) * 8;

  static void add(Exec &x, const DInstr &in) {
    if (in.sat) return binary<T>(x, in, [](T a, T b) { return saturate<T>(int64_t(a) + int64_t(b)); });
    binary<T>(x, in, [](T a, T b) { return T(U(a) + U(b)); });
  }
  static void sub(Exec &x, const DInstr &in) {
    if (in.sat) return binary<T>(x, in, [](T a, T b) { return saturate<T>(int64_t(a) - int64_t(b)); });
    binary<T>(x, in, [](T a, T b) { return T(U(a) - U(b)); });
  }
  // mul.lo keeps the low half, mul.hi the high half of the double-width
  // product, mul.wide the whole product in a register twice as wide.
  static Wide<T> product(T a, T b) {
    if constexpr (sizeof(T) == 8)
      return static_cast<Wide<T>>(static_cast<U>(a) * static_cast<U>(b));
    else
      return static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b);
  }
  static T mulHigh(T a, T b) {
    if constexpr (sizeof(T) == 8) {
      using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return static_cast<T>((W(a) * W(b)) >> 64);
    } else {
      return static_cast<T>((static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)) >> kBits);
    }
  }
  static void mul(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    T a[32], b[32];
    uint64_t r[32];
    gather(x, k.op(in, 1), a);
    gather(x, k.op(in, 2), b);
    if (in.wide)
      for (unsigned l = 0; l < 32; ++l) r[l] = static_cast<uint64_t>(product(a[l], b[l]));
    else if (in.hi)
      for (unsigned l = 0; l < 32; ++l) r[l] = bitsOf<T>(mulHigh(a[l], b[l]));
    else
      for (unsigned l = 0; l < 32; ++l) r[l] = bitsOf<T>(T(Wrap(U(a[l])) * Wrap(U(b[l]))));
    scatter(x, k.op(in, 0), r);
  }
  static void mad(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    T a[32], b[32];
    uint64_t c[32], r[32];
    gather(x, k.op(in, 1), a);
    gather(x, k.op(in, 2), b);
    gather(x, k.op(in, 3), c);
    for (unsigned l = 0; l < 32; ++l) {
      if (in.wide)
        r[l] = static_cast<uint64_t>(product(a[l], b[l])) + c[l];
      else if (in.hi && in.sat)
        r[l] = bitsOf<T>(saturate<T>(int64_t(mulHigh(a[l], b[l])) + int64_t(as<T>(c[l]))));
      else if (in.hi)
        r[l] = bitsOf<T>(T(U(mulHigh(a[l], b[l])) + U(as<T>(c[l]))));
      else
        r[l] = bitsOf<T>(T(Wrap(U(a[l])) * Wrap(U(b[l])) + Wrap(U(as<T>(c[l])))));
    }
    scatter(x, k.op(in, 0), r);
  }
  // Division and remainder by zero give all ones, as measured on H100 (the
  // ISA leaves both machine-specific); INT_MIN / -1 wraps.
  static void div(Exec &x, const DInstr &in) {
    binary<T>(x, in, [](T a, T b) -> T {
      if (b == 0) return T(~U(0));
      if constexpr (std::is_signed_v<T>)
        if (a == std::numeric_limits<T>::min() && b == -1) return a;
      return a / b;
    });
  }
  static void rem(Exec &x, const DInstr &in) {
    binary<T>(x, in, [](T a, T b) -> T {
      if (b == 0) return T(~U(0));
      if constexpr (std::is_signed_v<T>)
        if (b == -1) return 0;
      return a % b;
    });
  }
  static void min(Exec &x, const DInstr &in) {
    binary<T>(x, in, [](T a, T b) { return a < b ? a : b; });
  }
  static void max(Exec &x, const DInstr &in) {
    binary<T>(x, in, [](T a, T b) { return a > b ? a : b; });
  }
  static void abs(Exec &x, const DInstr &in) {
    unary<T>(x, in, [](T a) { return a < 0 ? T(U(0) - U(a)) : a; });
  }
  static void neg(Exec &x, const DInstr &in) {
    unary<T>(x, in, [](T a) { return T(U(0) - U(a)); });
  }
  static void bitAnd(Exec &x, const DInstr &in) {
    binary<U>(x, in, [](U a, U b) { return U(a & b); });
  }
  static void bitOr(Exec &x, const DInstr &in) {
    binary<U>(x, in, [](U a, U b) { return U(a | b); });
  }
  static void bitXor(Exec &x, const DInstr &in) {
    binary<U>(x, in, [](U a, U b) { return U(a ^ b); });
  }
  static void bitNot(Exec &x, const DInstr &in) {
    unary<U>(x, in, [](U a) { return U(~a); });
  }
  static void cnot(Exec &x, const DInstr &in) {
    unary<U>(x, in, [](U a) { return U(a == 0); });
  }
  // Shift amounts are unsigned 32-bit and clamp at the register width.
  static void shl(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    U a[32], r[32];
    uint32_t s[32];
    gather(x, k.op(in, 1), a);
    gather(x, k.op(in, 2), s);
    for (unsigned l = 0; l < 32; ++l) r[l] = s[l] >= kBits ? U(0) : U(a[l] << (s[l] & (kBits - 1)));
    scatter(x, k.op(in, 0), r);
  }
  static void shr(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    T a[32], r[32];
    uint32_t s[32];
    gather(x, k.op(in, 1), a);
    gather(x, k.op(in, 2), s);
    for (unsigned l = 0; l < 32; ++l)
      r[l] = s[l] >= kBits ? (a[l] < 0 ? T(-1) : T(0)) : T(a[l] >> (s[l] & (kBits - 1)));
    scatter(x, k.op(in, 0), r);
  }
  static void popc(Exec &x, const DInstr &in) {
    unary<U>(x, in, [](U a) { return U(std::popcount(a)); });
  }
  static void clz(Exec &x, const DInstr &in) {
    unary<U>(x, in, [](U a) { return U(std::countl_zero(a)); });
  }
  static void brev(Exec &x, const DInstr &in) {
    unary<U>(x, in, [](U a) {
      U r = 0;
      for (unsigned i = 0; i < kBits; ++i) r |= U((a >> i) & 1) << (kBits - 1 - i);
      return r;
    });
  }
  static void mov(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    const DOp &d = k.op(in, 0), &a = k.op(in, 1);
    if (a.kind == DOp::Vec || d.kind == DOp::Vec) return packOrUnpack(x, d, a);
    unary<U>(x, in, [](U v) { return v; });
  }
  // mov.b64 d, {a, b} packs (a in the low half); mov.b64 {a, b}, d unpacks.
  static void packOrUnpack(Exec &x, const DOp &d, const DOp &a) {
    const Kernel &k = x.kernel();
    const DOp &vec = a.kind == DOp::Vec ? a : d;
    unsigned width = kBits / std::max<unsigned>(vec.count, 1);
    uint64_t elementMask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    forLanes(x.mask, [&](unsigned l) {
      if (a.kind == DOp::Vec) {
        uint64_t v = 0;
        for (unsigned e = 0; e < a.count; ++e)
          v |= (readOperand(x, k.ops[a.reg + e], l) & elementMask) << (e * width);
        writeOperand(x, d, l, bitsOf<U>(static_cast<U>(v)));
      } else {
        uint64_t v = readOperand(x, a, l);
        for (unsigned e = 0; e < d.count; ++e)
          writeOperand(x, k.ops[d.reg + e], l, (v >> (e * width)) & elementMask);
      }
    });
  }
  static void selp(Exec &x, const DInstr &in) {
    const Kernel &k = x.kernel();
    const DOp &cond = k.op(in, 3);
    U a[32], b[32], r[32];
    uint64_t c[32];
    gather(x, k.op(in, 1), a);
    gather(x, k.op(in, 2), b);
    gather(x, cond, c);
    const uint64_t flip = cond.negated ? 1 : 0;
    for (unsigned l = 0; l < 32; ++l) r[l] = ((c[l] ^ flip) & 1) ? a[l] : b[l];
    scatter(x, k.op(in, 0), r);
  }
};

template <typename T> bool compare(ptx::Mod op, T a, T b) {
  using ptx::Mod;
  bool unordered = false;
  if constexpr (std::is_floating_point_v<T>) unordered = a != a || b != b;
  switch (op) {
  case Mod::Eq: return !unordered && a == b;
  case Mod::Ne: return !unordered && a != b;
  case Mod::Lt:
  case Mod::Lo: return !unordered && a < b;
  case Mod::Le:
  case Mod::Ls: return !unordered && a <= b;
  case Mod::Gt:
  case Mod::Hi: return !unordered && a > b;
  case Mod::Ge:
  case Mod::Hs: return !unordered && a >= b;
  case Mod::Equ: return unordered || a == b;
  case Mod::Neu: return unordered || a != b;
  case Mod::Ltu: return unordered || a < b;
  case Mod::Leu: return unordered || a <= b;
  case Mod::Gtu: return unordered || a > b;
  case Mod::Geu: return unordered || a >= b;
  case Mod::Num: return !unordered;
  case Mod::Nan: return unordered;
  default: return false;
  }
}

bool combine(ptx::Mod op, bool r, bool c) {
  switch (op) {
  case ptx::Mod::And: return r && c;
  case ptx::Mod::Or: return r || c;
  case ptx::Mod::Xor: return r != c;
  default: return r;
  }
}

/// setp.ftz.f32 compares subnormal inputs as zeros (f64 has no .ftz form).
template <typename T> void flushInputs(const DInstr &in, T (&a)[32], T (&b)[32]) {
  if constexpr (std::is_same_v<T, float>)
    if (in.ftz)
      for (unsigned l = 0; l < 32; ++l) a[l] = flush(a[l], true), b[l] = flush(b[l], true);
}

/// setp.cmp{.ftz}{.bool}.T p{|q}, a, b{, c}: operands are p, [q], a, b, [c].
template <typename T> void setp(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  // With a pair the decoder flattened `p|q` into two destinations.
  bool pair = in.numOps == 5 || (in.numOps == 4 && in.op2 == ptx::Mod::None);
  unsigned a = pair ? 2 : 1;
  T av[32], bv[32];
  gather(x, k.op(in, a), av);
  gather(x, k.op(in, a + 1), bv);
  flushInputs(in, av, bv);
  uint64_t cv[32];
  const DOp *c = in.numOps > a + 2 ? &k.op(in, a + 2) : nullptr;
  if (c) {
    gather(x, *c, cv);
    for (unsigned l = 0; l < 32; ++l) cv[l] = (cv[l] & 1) != c->negated;
  } else {
    for (unsigned l = 0; l < 32; ++l) cv[l] = 1;
  }
  uint64_t p[32], q[32];
  for (unsigned l = 0; l < 32; ++l) {
    bool r = compare<T>(in.op, av[l], bv[l]);
    p[l] = combine(in.op2, r, cv[l]);
    q[l] = combine(in.op2, !r, cv[l]);
  }
  scatter(x, k.op(in, 0), p);
  if (pair) scatter(x, k.op(in, 1), q);
}

template <template <typename> class H> Handler byIntType(Type t, Handler (*pick)(const DInstr &) = nullptr) {
  (void)pick;
  switch (t) {
  case Type::S8: return H<int8_t>::get();
  case Type::S16: return H<int16_t>::get();
  case Type::S32: return H<int32_t>::get();
  case Type::S64: return H<int64_t>::get();
  case Type::U8:
  case Type::B8: return H<uint8_t>::get();
  case Type::U16:
  case Type::B16: return H<uint16_t>::get();
  case Type::U32:
  case Type::B32: return H<uint32_t>::get();
  case Type::U64:
  case Type::B64: return H<uint64_t>::get();
  default: return nullptr;
  }
}

#define PTXVM_PICK(Name, Fn)                                                                                 \
  template <typename T> struct Name {                                                                        \
    static Handler get() { return &Ops<T>::Fn; }                                                             \
  };
PTXVM_PICK(PickAdd, add)
PTXVM_PICK(PickSub, sub)
PTXVM_PICK(PickMul, mul)
PTXVM_PICK(PickMad, mad)
PTXVM_PICK(PickDiv, div)
PTXVM_PICK(PickRem, rem)
PTXVM_PICK(PickMin, min)
PTXVM_PICK(PickMax, max)
PTXVM_PICK(PickAbs, abs)
PTXVM_PICK(PickNeg, neg)
PTXVM_PICK(PickAnd, bitAnd)
PTXVM_PICK(PickOr, bitOr)
PTXVM_PICK(PickXor, bitXor)
PTXVM_PICK(PickNot, bitNot)
PTXVM_PICK(PickCnot, cnot)
PTXVM_PICK(PickShl, shl)
PTXVM_PICK(PickShr, shr)
PTXVM_PICK(PickPopc, popc)
PTXVM_PICK(PickClz, clz)
PTXVM_PICK(PickBrev, brev)
PTXVM_PICK(PickMov, mov)
PTXVM_PICK(PickSelp, selp)
#undef PTXVM_PICK

/// setp.cmp{.ftz}.T p, a, b, the common form: the comparison is a template
/// argument, so the lane loop has no switch in it.
template <typename T, ptx::Mod Cmp> void setpPlain(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  T a[32], b[32];
  uint64_t p[32];
  gather(x, k.op(in, 1), a);
  gather(x, k.op(in, 2), b);
  flushInputs(in, a, b);
  for (unsigned l = 0; l < 32; ++l) p[l] = compare<T>(Cmp, a[l], b[l]);
  scatter(x, k.op(in, 0), p);
}

template <typename T> Handler setpFor(const DInstr &in) {
  using ptx::Mod;
  if (in.numOps != 3) return &setp<T>; // p|q pairs, boolean combinations
  switch (in.op) {
#define PTXVM_CMP(M)                                                                                         \
  case Mod::M: return &setpPlain<T, Mod::M>;
    PTXVM_CMP(Eq)
    PTXVM_CMP(Ne)
    PTXVM_CMP(Lt)
    PTXVM_CMP(Lo)
    PTXVM_CMP(Le)
    PTXVM_CMP(Ls) PTXVM_CMP(Gt) PTXVM_CMP(Hi) PTXVM_CMP(Ge) PTXVM_CMP(Hs) PTXVM_CMP(Equ) PTXVM_CMP(Neu)
        PTXVM_CMP(Ltu) PTXVM_CMP(Leu) PTXVM_CMP(Gtu) PTXVM_CMP(Geu) PTXVM_CMP(Num) PTXVM_CMP(Nan)
#undef PTXVM_CMP
            default : return &setp<T>;
  }
}

void movPred(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) {
    writeOperand(x, x.kernel().op(in, 0), l, readOperand(x, x.kernel().op(in, 1), l) & 1);
  });
}

Handler pickSetp(const DInstr &in) {
  switch (in.type) {
  case Type::F32: return setpFor<float>(in);
  case Type::F64: return setpFor<double>(in);
  case Type::S8: return setpFor<int8_t>(in);
  case Type::U8:
  case Type::B8: return setpFor<uint8_t>(in);
  case Type::S16: return setpFor<int16_t>(in);
  case Type::S32: return setpFor<int32_t>(in);
  case Type::S64: return setpFor<int64_t>(in);
  case Type::U16:
  case Type::B16: return setpFor<uint16_t>(in);
  case Type::U32:
  case Type::B32: return setpFor<uint32_t>(in);
  case Type::U64:
  case Type::B64: return setpFor<uint64_t>(in);
  default: return nullptr;
  }
}

/// Moves and selects copy bits of any type of that width.
Type bitsOf(Type t) {
  return ptx::bitWidth(t) == 16   ? Type::B16
         : ptx::bitWidth(t) == 32 ? Type::B32
         : ptx::bitWidth(t) == 64 ? Type::B64
                                  : t;
}
Handler pickMov(const DInstr &in) { return in.vec > 1 ? nullptr : byIntType<PickMov>(bitsOf(in.type)); }
Handler pickSelp(const DInstr &in) { return in.vec > 1 ? nullptr : byIntType<PickSelp>(bitsOf(in.type)); }

/// A row per operation: the handler for the instruction's integer type.
template <template <typename> class P> Handler byType(const DInstr &in) {
  return in.vec > 1 ? nullptr : byIntType<P>(in.type);
}

constexpr uint16_t kInt = tclass::Int;
constexpr uint16_t kAnyData = tclass::All & ~(tclass::Untyped | tclass::Pred | tclass::Wide);

// add/sub/mad with .cc and min/max with .relu: Extended.cpp. setp with .ftz
// and on half types: Compare.cpp.
constexpr HandlerRow kRows[] = {
    row(Opcode::Mov, tclass::Pred, movPred),   row(Opcode::Mov, kAnyData, pickMov),
    row(Opcode::Selp, kAnyData, pickSelp),     row(Opcode::Setp, kInt | tclass::Float, pickSetp),
    row(Opcode::Add, kInt, byType<PickAdd>),   row(Opcode::Sub, kInt, byType<PickSub>),
    row(Opcode::Mul, kInt, byType<PickMul>),   row(Opcode::Mad, kInt, byType<PickMad>),
    row(Opcode::Div, kInt, byType<PickDiv>),   row(Opcode::Rem, kInt, byType<PickRem>),
    row(Opcode::Min, kInt, byType<PickMin>),   row(Opcode::Max, kInt, byType<PickMax>),
    row(Opcode::Abs, kInt, byType<PickAbs>),   row(Opcode::Neg, kInt, byType<PickNeg>),
    row(Opcode::And, kInt, byType<PickAnd>),   row(Opcode::Or, kInt, byType<PickOr>),
    row(Opcode::Xor, kInt, byType<PickXor>),   row(Opcode::Not, kInt, byType<PickNot>),
    row(Opcode::Cnot, kInt, byType<PickCnot>), row(Opcode::Shl, kInt, byType<PickShl>),
    row(Opcode::Shr, kInt, byType<PickShr>),   row(Opcode::Popc, kInt, byType<PickPopc>),
    row(Opcode::Clz, kInt, byType<PickClz>),   row(Opcode::Brev, kInt, byType<PickBrev>),
};

} // namespace

Handler selectVectorSetp(const DInstr &in) { return pickSetp(in); }

std::span<const HandlerRow> integerHandlers() { return kRows; }

} // namespace emu
