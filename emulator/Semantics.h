// What instruction semantics are written with: operand access per lane, lane
// loops, memory access with checking, and the registry of handlers by key.
// Each group of instructions lives in a file of its own (semantics/*.cpp)
// with a table of the handlers it registers.
#pragma once

#include "emulator/Cta.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

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
/// .ftz: a subnormal f32 becomes a zero of the same sign (f64 has no .ftz
/// forms, except the .approx.ftz.f64 ones, which flush as well).
/// Branch-free (a zero is its own flush), so lane loops using it vectorize.
template <typename T> inline T flush(T v, bool ftz) {
  return ftz && std::fabs(v) < std::numeric_limits<T>::min() ? std::copysign(T(0), v) : v;
}

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
template <typename T> [[gnu::always_inline]] inline void gather(Exec &x, const DOp &op, T (&out)[32]) {
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
template <typename T> [[gnu::always_inline]] inline void scatter(Exec &x, const DOp &op, const T (&v)[32]) {
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

/// The lowest and highest address the executing lanes of a warp access, and
/// the OR of all of them (its low bits tell whether any is misaligned).
struct AddressSpan {
  uint64_t lo = ~0ull, hi = 0, bits = 0;
};
/// The fast path of a warp's scalar or vector access of `size` bytes at
/// each address of `s`: when every one lies, naturally aligned, in one
/// global allocation or in the CTA's shared memory, and no observer wants
/// memory events, the host bytes behind them (address a is at
/// result + (a - bias)). nullptr when some lane needs the checked path
/// (accessBytes), which reports faults. Shared by every engine.
uint8_t *directAccess(Cta &cta, Space space, const AddressSpan &s, unsigned size, uint64_t &bias);

/// Loads/stores `size` bytes for one lane in `space`; on a bad access reports
/// the fault, marks the CTA failed and returns false. `alignment` as for
/// accessBytes.
bool loadBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, void *out,
               unsigned alignment = 0);
bool storeBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, const void *in,
                unsigned alignment = 0);
/// Host pointer for an access, or nullptr after reporting a fault. `atomic`:
/// an atomic read-modify-write (atom, red, mbarrier operations), which
/// --racecheck does not count as racing with another atomic. `alignment`:
/// what the address must be a multiple of (a power of two); 0 = the largest
/// power of two dividing `size`. Every check is overflow-proof (fitsIn).
uint8_t *accessBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, bool write,
                     bool atomic = false, unsigned alignment = 0);

/// Size in bytes of a PTX type as stored in memory.
inline unsigned byteSize(ptx::Type t) { return (ptx::bitWidth(t) + 7) / 8; }

/// Held by every atomic read-modify-write, so that atomics of all CTAs are
/// atomic whatever the number of host threads.
extern std::mutex atomicMutex;

// ---- Handlers by key ----------------------------------------------------------
//
// Each semantics group (semantics/*.cpp) lists its handlers in a table of
// HandlerRows next to them: one row per (opcode, type classes, modifiers),
// giving the handler or a picker that specialises it for the decoded
// instruction's exact types and remaining modifiers. The registry holds the
// rows of all groups; a key registered twice is an error it reports, so no
// group can shadow another's handler.

/// Classes of an instruction's last type modifier (DInstr::type), as bits so
/// that one row can serve several.
namespace tclass {
enum : uint16_t {
  Untyped = 1u << 0,   // no type modifier
  Pred = 1u << 1,      // .pred
  Int = 1u << 2,       // .b8-.b64, .u8-.u64, .s8-.s64 (and .b1-.u4)
  PackedInt = 1u << 3, // .u16x2, .s16x2, .u8x4, .s8x4
  Float = 1u << 4,     // .f32, .f64
  FloatPair = 1u << 5, // .f32x2
  Half = 1u << 6,      // .f16, .bf16, .f16x2, .bf16x2
  Wide = 1u << 7,      // .b128
  Other = 1u << 8,     // the narrow float formats, .tf32, opaque types
  All = (1u << 9) - 1,
};
} // namespace tclass
/// The tclass bit of a type.
uint16_t typeClassOf(ptx::Type t);

/// Modifiers a row's key may name: the decoded fields and dmod bits of
/// DInstr that split one opcode's forms between handlers.
namespace kmod {
enum : uint32_t {
  Cc = 1u << 0,   // DInstr::cc
  Ftz = 1u << 1,  // DInstr::ftz
  Relu = 1u << 2, // dmod::Relu
};
} // namespace kmod
/// The kmod bits of a decoded instruction.
uint32_t keyModsOf(const DInstr &in);

/// Chooses the handler for a decoded instruction the row's key matched:
/// specialised for its exact types and modifiers, or nullptr for a
/// combination the emulator cannot run.
using Picker = Handler (*)(const DInstr &in);

struct HandlerRow {
  ptx::Opcode opcode;
  uint16_t types;        // tclass bits the row serves
  uint32_t mods;         // kmod bits the instruction has, among those its opcode's rows name
  Handler handler;       // the handler, or
  Picker pick = nullptr; // the picker when the handler depends on more
};

/// Rows that call a handler directly, or a picker.
constexpr HandlerRow row(ptx::Opcode op, uint16_t types, Handler h, uint32_t mods = 0) {
  return {op, types, mods, h, nullptr};
}
constexpr HandlerRow row(ptx::Opcode op, uint16_t types, Picker p, uint32_t mods = 0) {
  return {op, types, mods, nullptr, p};
}

class HandlerRegistry {
public:
  /// The registry with every semantics group's rows.
  static const HandlerRegistry &get();

  /// Adds the rows of group `group`; a row whose key overlaps one already
  /// added (same opcode and modifiers, a type class in common) is recorded
  /// in conflicts() and not added.
  void add(std::string_view group, std::span<const HandlerRow> rows);
  /// The row whose key the instruction has, or nullptr.
  const HandlerRow *find(const DInstr &in) const;
  /// The group that registered `r` (for tests and diagnostics).
  std::string_view groupOf(const HandlerRow *r) const;
  /// The handler for a decoded instruction, or nullptr.
  Handler select(const DInstr &in) const;
  const std::vector<std::string> &conflicts() const { return conflicts_; }
  size_t size() const { return count_; }

private:
  struct Entry {
    HandlerRow row;
    std::string_view group;
  };
  std::vector<std::vector<Entry>> byOpcode_ = std::vector<std::vector<Entry>>(ptx::kNumOpcodes);
  std::vector<std::string> conflicts_;
  size_t count_ = 0;
};

/// The handler for a decoded instruction, or nullptr when no group can run
/// it (HandlerRegistry::get().select).
Handler selectHandler(const DInstr &in);

// Each group's rows (semantics/*.cpp).
std::span<const HandlerRow> integerHandlers();
std::span<const HandlerRow> extendedHandlers();
std::span<const HandlerRow> floatHandlers();
std::span<const HandlerRow> compareHandlers();
std::span<const HandlerRow> convertHandlers();
std::span<const HandlerRow> videoHandlers();
std::span<const HandlerRow> memoryHandlers();
std::span<const HandlerRow> atomicHandlers();
std::span<const HandlerRow> warpHandlers();
std::span<const HandlerRow> miscHandlers();
std::span<const HandlerRow> asyncHandlers();
std::span<const HandlerRow> wideHandlers();
std::span<const HandlerRow> tensorHandlers();
std::span<const HandlerRow> wgmmaHandlers();
std::span<const HandlerRow> textureHandlers();
std::span<const HandlerRow> surfaceHandlers();

} // namespace emu
