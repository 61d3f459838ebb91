// Atomics and reductions: atom, red and red.async, on global, shared and
// generic addresses. Every operation of the ISA on its types: bitwise
// (and, or, xor), exch and cas (b16 to b64), integer add, inc, dec, min,
// max; f32 and f64 add; f16, bf16 and packed x2 add, min and max (.noftz);
// and the .v2/.v4/.v8 vector forms of sm_90, which apply the operation to
// each element; and cp.reduce.async.bulk, the same operations element by
// element over a block of shared memory. Atomics of all CTAs run under one
// lock, so they are atomic whatever the number of host threads.
#include "emulator/Semantics.h"
#include "emulator/semantics/Fp.h"
#include "emulator/semantics/Mbarrier.h"

#include <cmath>
#include <limits>
#include <mutex>

namespace emu {

std::mutex atomicMutex;

namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

// ---- Element operations ---------------------------------------------------------------------
// Each is a struct with the element size in bytes and
//   static uint64_t apply(uint64_t old, uint64_t b, uint64_t c, bool global)
// giving the new memory value from the old one, operand b, cas's c, and
// whether the memory is global (atom.add.f32 flushes subnormals there).

template <typename T, Mod Op> struct Integer {
  static constexpr unsigned kBytes = sizeof(T);
  static uint64_t apply(uint64_t oldBits, uint64_t bBits, uint64_t cBits, bool) {
    using U = std::make_unsigned_t<T>;
    T old = static_cast<T>(oldBits), b = static_cast<T>(bBits), c = static_cast<T>(cBits);
    T r;
    if constexpr (Op == Mod::Add)
      r = static_cast<T>(static_cast<U>(old) + static_cast<U>(b));
    else if constexpr (Op == Mod::Min)
      r = b < old ? b : old;
    else if constexpr (Op == Mod::Max)
      r = b > old ? b : old;
    else if constexpr (Op == Mod::And)
      r = old & b;
    else if constexpr (Op == Mod::Or)
      r = old | b;
    else if constexpr (Op == Mod::Xor)
      r = old ^ b;
    else if constexpr (Op == Mod::Exch)
      r = b;
    else if constexpr (Op == Mod::Cas)
      r = old == b ? c : old;
    else if constexpr (Op == Mod::Inc) // (old >= b) ? 0 : old + 1, unsigned
      r = static_cast<U>(old) >= static_cast<U>(b) ? T(0) : static_cast<T>(old + 1);
    else // Dec: (old == 0 || old > b) ? b : old - 1, unsigned
      r = (old == 0 || static_cast<U>(old) > static_cast<U>(b)) ? b : static_cast<T>(old - 1);
    return static_cast<U>(r);
  }
};

/// atom.add.f32: rounds to nearest even; on global memory subnormal inputs
/// and results become zeros of the same sign (PTX ISA, atom). A NaN result
/// is the canonical NaN, as add.f32 gives.
struct AddF32 {
  static constexpr unsigned kBytes = 4;
  static float flush(float v, bool ftz) {
    return ftz && std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
  }
  static uint64_t apply(uint64_t oldBits, uint64_t bBits, uint64_t, bool global) {
    float r = flush(flush(as<float>(oldBits), global) + flush(as<float>(bBits), global), global);
    return r != r ? 0x7FFFFFFFu : bitsOf<float>(r);
  }
};

/// atom.add.f64: a NaN result is the NaN operand as it is, not even quieted
/// (b's when both are NaN), or the default NaN 0xFFF8000000000000 (measured
/// on H100).
struct AddF64 {
  static constexpr unsigned kBytes = 8;
  static uint64_t apply(uint64_t oldBits, uint64_t bBits, uint64_t, bool) {
    double o = as<double>(oldBits), b = as<double>(bBits), r = o + b;
    if (r == r) return bitsOf<double>(r);
    if (b != b) return bBits;
    if (o != o) return oldBits;
    return 0xFFF8000000000000ull;
  }
};

/// f16/bf16 add, min and max (.noftz: subnormals are kept), on one 16-bit
/// half or on both halves of an x2 element. min/max follow min.f16: a NaN
/// operand is ignored unless both are NaN; -0 is below +0.
template <bool IsBF16, unsigned Halves, Mod Op> struct Half {
  static constexpr unsigned kBytes = 2 * Halves;
  static constexpr fp::Format kFmt = IsBF16 ? fp::kBF16 : fp::kF16;
  static uint64_t one(uint64_t a, uint64_t b) {
    if constexpr (Op == Mod::Add) {
      return fp::fromDouble(fp::addOdd(fp::toDouble(a, kFmt), fp::toDouble(b, kFmt)), kFmt,
                            fp::Round::Nearest);
    } else {
      bool na = fp::isNaN(a, kFmt), nb = fp::isNaN(b, kFmt);
      if (na && nb) return fp::canonicalNaN(kFmt);
      if (na) return b;
      if (nb) return a;
      double va = fp::toDouble(a, kFmt), vb = fp::toDouble(b, kFmt);
      if (va == vb) // ±0: min takes the negative one, max the positive
        return (Op == Mod::Min) == bool(a & 0x8000) ? a : b;
      return (Op == Mod::Min) == (va < vb) ? a : b;
    }
  }
  static uint64_t apply(uint64_t old, uint64_t b, uint64_t, bool) {
    uint64_t r = 0;
    for (unsigned h = 0; h < Halves; ++h)
      r |= one((old >> (16 * h)) & 0xFFFF, (b >> (16 * h)) & 0xFFFF) << (16 * h);
    return r;
  }
};

// ---- The instruction ---------------------------------------------------------------------------

/// The element `e` of a vector operand, or the operand itself.
const DOp &element(const Kernel &k, const DOp &op, unsigned e) {
  return op.kind == DOp::Vec ? k.ops[op.reg + e] : op;
}

bool isGlobal(Space space, uint64_t address) {
  if (space != Space::Generic) return space == Space::Global;
  bool shared = address >= kSharedWindow && address < kSharedWindow + kWindowSize;
  bool local = address >= kLocalWindow && address < kLocalWindow + kWindowSize;
  return !shared && !local;
}

/// atom{.space}.op.T d, [a], b{, c}; red{.space}.op.T [a], b;
/// red.async... [a], b, [mbar]. Vector forms have {d...} and {b...}.
/// Returns: write the old value to d. HasC: cas. Async: complete the
/// element bytes on the mbarrier operand after the operation.
template <class E, bool Returns, bool HasC, bool Async = false> void atomic(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  constexpr unsigned first = Returns ? 1 : 0;
  const DOp &addr = k.op(in, first), &bOp = k.op(in, first + 1);
  const unsigned n = in.vec;
  Space space = accessSpace(in, addr);
  std::lock_guard lock(atomicMutex);
  forLanes(x.mask, [&](unsigned l) {
    uint64_t address = effectiveAddress(x, addr, l);
    uint64_t b[8], c = HasC ? readOperand(x, k.op(in, first + 2), l) : 0;
    for (unsigned e = 0; e < n; ++e) b[e] = readOperand(x, element(k, bOp, e), l);
    uint8_t *p = accessBytes(x, space, address, E::kBytes * n, l, true, true);
    if (!p) return;
    bool global = isGlobal(space, address);
    for (unsigned e = 0; e < n; ++e) {
      uint64_t old = 0;
      std::memcpy(&old, p + e * E::kBytes, E::kBytes);
      uint64_t r = E::apply(old, b[e], c, global);
      std::memcpy(p + e * E::kBytes, &r, E::kBytes);
      if constexpr (Returns) writeOperand(x, element(k, k.op(in, 0), e), l, old);
    }
    if constexpr (Async) {
      const DOp &mbar = k.op(in, 2);
      completeTransaction(x, space, effectiveAddress(x, mbar, l), E::kBytes * n, l);
    }
  });
}

/// cp.reduce.async.bulk.dst.shared::cta.completion.op{.noftz}.T [dst],
/// [src], size{, [mbar] | , policy} (sm_90): dst's element i becomes
/// op(dst[i], src[i]) over the size bytes at src, each element atomically
/// and with the rules of red.op.T; into .global with .bulk_group (done once
/// it returns), or into .shared::cluster, completing size transaction bytes
/// on the mbarrier. A trailing partial element is left alone (PTX requires
/// size to be a multiple of 16).
template <class E, bool ToShared> void bulkReduce(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &dst = k.op(in, 0), &src = k.op(in, 1);
  std::lock_guard lock(atomicMutex);
  forLanes(x.mask, [&](unsigned l) {
    const uint32_t size = static_cast<uint32_t>(readOperand(x, k.op(in, 2), l));
    const uint64_t to = effectiveAddress(x, dst, l);
    // Bulk operands are 16-byte aligned whatever their size.
    const uint8_t *from =
        size ? accessBytes(x, Space::Shared, effectiveAddress(x, src, l), size, l, false, false, 16)
             : nullptr;
    uint8_t *into =
        size ? accessBytes(x, ToShared ? Space::Shared : Space::Global, to, size, l, true, true, 16)
             : nullptr;
    if (size && (!from || !into)) return;
    for (uint32_t off = 0; off + E::kBytes <= size; off += E::kBytes) {
      uint64_t old = 0, b = 0;
      std::memcpy(&old, into + off, E::kBytes);
      std::memcpy(&b, from + off, E::kBytes);
      uint64_t r = E::apply(old, b, 0, !ToShared);
      std::memcpy(into + off, &r, E::kBytes);
    }
    if constexpr (ToShared)
      completeTransaction(x, Space::Shared, effectiveAddress(x, k.op(in, 3), l), size, l);
  });
}

template <class E, bool Async> Handler forOp(const DInstr &in) {
  if (in.opcode == Opcode::CpReduceAsyncBulk) return bulkReduce<E, Async>;
  bool returns = in.opcode == Opcode::Atom;
  if (in.op == Mod::Cas) return returns ? atomic<E, true, true> : nullptr;
  if (Async) return returns ? nullptr : atomic<E, false, false, true>;
  return returns ? atomic<E, true, false> : atomic<E, false, false>;
}

template <typename T, bool Async> Handler integer(const DInstr &in) {
  switch (in.op) {
  case Mod::Add: return forOp<Integer<T, Mod::Add>, Async>(in);
  case Mod::Min: return forOp<Integer<T, Mod::Min>, Async>(in);
  case Mod::Max: return forOp<Integer<T, Mod::Max>, Async>(in);
  case Mod::And: return forOp<Integer<T, Mod::And>, Async>(in);
  case Mod::Or: return forOp<Integer<T, Mod::Or>, Async>(in);
  case Mod::Xor: return forOp<Integer<T, Mod::Xor>, Async>(in);
  case Mod::Exch: return forOp<Integer<T, Mod::Exch>, Async>(in);
  case Mod::Cas: return forOp<Integer<T, Mod::Cas>, Async>(in);
  case Mod::Inc: return forOp<Integer<std::make_unsigned_t<T>, Mod::Inc>, Async>(in);
  case Mod::Dec: return forOp<Integer<std::make_unsigned_t<T>, Mod::Dec>, Async>(in);
  default: return nullptr;
  }
}

template <bool IsBF16, unsigned Halves> Handler half(const DInstr &in) {
  switch (in.op) {
  case Mod::Add: return forOp<Half<IsBF16, Halves, Mod::Add>, false>(in);
  case Mod::Min: return forOp<Half<IsBF16, Halves, Mod::Min>, false>(in);
  case Mod::Max: return forOp<Half<IsBF16, Halves, Mod::Max>, false>(in);
  default: return nullptr;
  }
}

template <bool Async> Handler byType(const DInstr &in) {
  switch (in.type) {
  case Type::B16:
  case Type::U16: return in.op == Mod::Cas ? integer<uint16_t, Async>(in) : nullptr;
  case Type::S16: return in.op == Mod::Cas ? integer<int16_t, Async>(in) : nullptr;
  case Type::B32:
  case Type::U32: return integer<uint32_t, Async>(in);
  case Type::S32: return integer<int32_t, Async>(in);
  case Type::B64:
  case Type::U64: return integer<uint64_t, Async>(in);
  case Type::S64: return integer<int64_t, Async>(in);
  case Type::F32: return in.op == Mod::Add ? forOp<AddF32, Async>(in) : nullptr;
  case Type::F64: return in.op == Mod::Add ? forOp<AddF64, Async>(in) : nullptr;
  case Type::F16: return Async ? nullptr : half<false, 1>(in);
  case Type::BF16: return Async ? nullptr : half<true, 1>(in);
  case Type::F16x2: return Async ? nullptr : half<false, 2>(in);
  case Type::BF16x2: return Async ? nullptr : half<true, 2>(in);
  // .b128 cas/exch: registers hold at most 64 bits in this emulator.
  default: return nullptr;
  }
}

// The .release.global form of red.async (sm_100) has no mbarrier: a plain
// reduction.
Handler pickRedAsync(const DInstr &in) { return in.numOps == 3 ? byType<true>(in) : byType<false>(in); }
// Into shared::cluster with an mbarrier (Async), or into global.
Handler pickBulkReduce(const DInstr &in) {
  return (in.mods & dmod::CompleteTxBytes) ? byType<true>(in) : byType<false>(in);
}

// .b128 atom: Wide.cpp.
constexpr HandlerRow kRows[] = {
    row(Opcode::Atom, tclass::All & ~tclass::Wide, byType<false>),
    row(Opcode::Red, tclass::All, byType<false>),
    row(Opcode::RedAsync, tclass::All, pickRedAsync),
    row(Opcode::CpReduceAsyncBulk, tclass::All, pickBulkReduce),
};

} // namespace

std::span<const HandlerRow> atomicHandlers() { return kRows; }

} // namespace emu
