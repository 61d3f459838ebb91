// What instruction semantics are written with: operand access per lane, lane
// loops, and memory access with checking. Each group of instructions lives
// in a file of its own (semantics/*.cpp) with a `select` function that picks
// the handler for a decoded instruction, or nullptr when it cannot run it.
#pragma once

#include "emulator/Cta.h"

#include <bit>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace emu {

/// Calls f(lane) for every lane in `mask`; the all-lanes case is a plain
/// loop the compiler can vectorise.
template <typename F> inline void forLanes(uint32_t mask, F &&f) {
  if (mask == 0xFFFFFFFFu) {
    for (unsigned lane = 0; lane < 32; ++lane) f(lane);
    return;
  }
  while (mask) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(mask));
    f(lane);
    mask &= mask - 1;
  }
}

/// The value of a source operand in `lane`: register bits, immediate bits,
/// or a special register.
uint64_t readOperand(Exec &x, const DOp &op, unsigned lane);
/// A source operand in all 32 lanes (special registers computed once per
/// warp, not once per lane).
void readOperandLanes(Exec &x, const DOp &op, uint64_t (&out)[32]);
/// Writes a destination register (a sink discards).
inline void writeOperand(Exec &x, const DOp &op, unsigned lane, uint64_t bits) {
  if (op.kind == DOp::Reg) x.reg(op.reg, lane) = bits;
}

template <typename T> inline T as(uint64_t bits) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  } else if constexpr (std::is_same_v<T, double>) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  } else {
    return static_cast<T>(bits);
  }
}

template <typename T> inline uint64_t bitsOf(T v) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else {
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
  }
}

/// Operand i of the instruction in `lane`, as T.
template <typename T> inline T arg(Exec &x, const DInstr &in, unsigned i, unsigned lane) {
  return as<T>(readOperand(x, x.kernel().op(in, i), lane));
}

/// Reads an operand for all 32 lanes (inactive lanes too: harmless, and it
/// keeps the loop branch-free), converting to T.
template <typename T> inline void gather(Exec &x, const DOp &op, T (&out)[32]) {
  if (op.kind == DOp::Reg) {
    const uint64_t *r = &x.warp.regs[op.reg * 32];
    for (unsigned l = 0; l < 32; ++l) out[l] = as<T>(r[l]);
  } else if (op.kind == DOp::Imm) {
    T v = as<T>(op.imm);
    for (unsigned l = 0; l < 32; ++l) out[l] = v;
  } else {
    uint64_t v[32];
    readOperandLanes(x, op, v);
    for (unsigned l = 0; l < 32; ++l) out[l] = as<T>(v[l]);
  }
}

/// Writes a destination register in the executing lanes.
template <typename T> inline void scatter(Exec &x, const DOp &op, const T (&v)[32]) {
  if (op.kind != DOp::Reg) return;
  uint64_t *r = &x.warp.regs[op.reg * 32];
  if (x.mask == 0xFFFFFFFFu) {
    for (unsigned l = 0; l < 32; ++l) r[l] = bitsOf<T>(v[l]);
    return;
  }
  forLanes(x.mask, [&](unsigned l) { r[l] = bitsOf<T>(v[l]); });
}

/// The space a memory instruction accesses: its state-space modifier, or for
/// a generic access to a named symbol (`ld.u32 %r, [s]`), the symbol's space.
inline Space accessSpace(const DInstr &in, const DOp &addr) {
  return in.space == Space::Generic && addr.space != Space::Generic && !addr.hasBase ? addr.space : in.space;
}

/// Effective address of an address operand in `lane`.
inline uint64_t effectiveAddress(Exec &x, const DOp &op, unsigned lane) {
  return (op.hasBase ? x.reg(op.reg, lane) : 0) + op.imm;
}

/// Loads/stores `size` bytes for one lane in `space`; on a bad access reports
/// the fault, marks the CTA failed and returns false.
bool loadBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, void *out);
bool storeBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, const void *in);
/// Host pointer for an access, or nullptr after reporting a fault. `atomic`:
/// an atomic read-modify-write (atom, red, mbarrier operations), which
/// --racecheck does not count as racing with another atomic.
uint8_t *accessBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, bool write,
                     bool atomic = false);

/// Size in bytes of a PTX type as stored in memory.
inline unsigned byteSize(ptx::Type t) { return (ptx::bitWidth(t) + 7) / 8; }

/// The modifiers of an instruction that DInstr does not decode into fields
/// of its own (.approx, .relu, .NaN, prmt modes, .noftz, ...), as a select
/// function sees them. Select functions run once, at decode time, and pick
/// a handler specialised for what they find, so handlers never ask the IR.
class Modifiers {
public:
  explicit Modifiers(const ptx::InstrDesc *desc) : desc_(desc) {}
  bool has(ptx::Mod m) const {
    asked_ = true;
    return desc_ && desc_->has(m);
  }
  /// The n-th type modifier (DInstr keeps only the first and the last).
  ptx::Type type(unsigned n) const {
    asked_ = true;
    return desc_ ? desc_->type(n) : ptx::Type::None;
  }
  /// Whether a select function asked (see selectHandler(const DInstr &)).
  bool asked() const { return asked_; }

private:
  const ptx::InstrDesc *desc_;
  mutable bool asked_ = false;
};

// Group selectors (semantics/*.cpp).
Handler selectIntegerArith(const DInstr &in);
Handler selectExtended(const DInstr &in, const Modifiers &mods);
Handler selectFloatArith(const DInstr &in, const Modifiers &mods);
Handler selectCompare(const DInstr &in, const Modifiers &mods);
Handler selectConvert(const DInstr &in, const Modifiers &mods);
Handler selectVideo(const DInstr &in, const Modifiers &mods);
Handler selectMemory(const DInstr &in);
Handler selectAtomic(const DInstr &in, const Modifiers &mods);
Handler selectWarp(const DInstr &in, const Modifiers &mods);
Handler selectMisc(const DInstr &in, const Modifiers &mods);
Handler selectAsync(const DInstr &in, const Modifiers &mods);
Handler selectWide(const DInstr &in);

/// Held by every atomic read-modify-write, so that atomics of all CTAs are
/// atomic whatever the number of host threads.
extern std::mutex atomicMutex;

/// The handler for a decoded instruction with description `desc`, or
/// nullptr when no group can run it.
Handler selectHandler(const DInstr &in, const ptx::InstrDesc &desc);
/// The same for a caller that has no description at hand: where the choice
/// depends on modifiers, the handler returned makes it each time the
/// instruction runs (slower; and an instruction no group can run is then
/// reported when it runs rather than when it is decoded).
Handler selectHandler(const DInstr &in);

} // namespace emu
