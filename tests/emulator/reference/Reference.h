// C++ reference semantics for the differential test, written from the PTX
// ISA text independently of the emulator's code: one small function per
// family of opcodes. A reference gets one warp's worth of threads, each with
// the values its instruction's operands had just before it ran (registers,
// immediates, special registers, the memory slot it addresses, the carry
// flag), and says what every destination register, the memory slot and the
// carry flag must hold afterwards, and how exactly (bit for bit, any NaN,
// within an error bound, or anything where the ISA leaves it undefined).
#pragma once

#include "ptx/IR.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ref {

/// One operand position of the instruction, with vectors and pairs
/// flattened into their elements.
struct Slot {
  enum Kind : uint8_t { Register, Immediate, Special, Address, Sink } kind = Sink;
  bool dest = false;   // written by the instruction (operand 0 and its pair/vector elements)
  bool notted = false; // !p
  bool minus = false;  // -%r (video)
  ptx::Type regType{}; // declared type of a register
  ptx::Type type{};    // the instruction's type for this operand (from the table)
  ptx::Selector selector = ptx::Selector::None;
  int64_t digits = 0;   // SIMD selector digits (Operand::value), or an immediate's bits
  unsigned group = 0;   // index of the top-level operand it belongs to
  unsigned element = 0; // element within a vector operand
  unsigned special = 0; // ptx::SpecialReg for Special
  bool sinkElement = false;
};

/// The instruction as the references see it.
struct Instr {
  ptx::Opcode opcode{};
  std::vector<ptx::Mod> mods;   // modifiers as written (types included)
  std::vector<ptx::Type> types; // type modifiers in order
  std::vector<Slot> slots;
  unsigned groups = 0; // top-level operands

  bool has(ptx::Mod m) const;
  ptx::Type type(unsigned n) const { return n < types.size() ? types[n] : ptx::Type::None; }
  ptx::Type lastType() const { return types.empty() ? ptx::Type::None : types.back(); }
  /// The first modifier of a kind (Compare, BoolOp, Op, Rounding ...).
  ptx::Mod first(ptx::ModKind k) const;
  /// Slots of top-level operand g.
  std::vector<unsigned> slotsOf(unsigned g) const;
  /// Index of the first slot of top-level operand g.
  unsigned slot(unsigned g) const;
  /// Whether the instruction's first operand is a destination.
  bool writes() const { return !slots.empty() && slots[0].dest; }
};

/// How a value must match.
struct Check {
  enum Kind : uint8_t {
    Exact,    // bit for bit
    AnyNaN,   // bit for bit, except that any NaN of `fmt` matches a NaN
    Within,   // a float of `fmt` within `tolerance` (absolute + relative) of `exact`
    DontCare, // undefined in the ISA
  } kind = Exact;
  uint64_t bits = 0;
  ptx::Type fmt = ptx::Type::None; // F16, BF16, F32, F64 (per 16/32-bit lane for packed)
  long double exact[2] = {0, 0};   // Within: per lane (packed halves have two)
  unsigned lanes = 1;
  long double absTol = 0, relTol = 0;
  bool ftzResult = false; // Within: a zero result is acceptable (flushed subnormal, documented zero)
};

/// One thread of the warp under test.
struct Thread {
  bool active = false; // executed the instruction
  unsigned lane = 0, tid = 0, ctaid = 0, ntid = 0, nctaid = 0;
  std::vector<uint64_t> in;    // per slot: the value before the instruction
  std::vector<uint8_t> memory; // the slot of memory its address operand points at, before
  bool carryIn = false;
  // Filled by the reference:
  std::vector<Check> out; // per slot (only dest slots are looked at)
  std::vector<uint8_t> memoryAfter;
  bool checkMemory = false;
  bool carryOut = false, checkCarry = false;
};

/// A reference: fills `out`, `memoryAfter` and carry of every active thread
/// of one warp. False when it has no semantics for this form (the test then
/// fails: every executable form needs a reference).
using Reference = bool (*)(const Instr &, std::vector<Thread> &warp);

/// The families, each in its own file; they return false for opcodes or
/// forms they do not cover.
bool integerReference(const Instr &, std::vector<Thread> &);
bool bitReference(const Instr &, std::vector<Thread> &);
bool floatReference(const Instr &, std::vector<Thread> &);
bool compareReference(const Instr &, std::vector<Thread> &);
bool convertReference(const Instr &, std::vector<Thread> &);
bool videoReference(const Instr &, std::vector<Thread> &);
bool memoryReference(const Instr &, std::vector<Thread> &);
bool warpReference(const Instr &, std::vector<Thread> &);

// ---- Helpers shared by the reference files ----

/// Applies f(thread) to each active thread.
template <typename F> void eachThread(std::vector<Thread> &warp, F f) {
  for (Thread &t : warp)
    if (t.active) f(t);
}
inline Check exact(uint64_t bits) { return {Check::Exact, bits}; }
inline Check anyNaN(uint64_t bits, ptx::Type fmt) {
  Check c{Check::AnyNaN, bits};
  c.fmt = fmt;
  return c;
}
inline Check dontCare() { return {Check::DontCare}; }
uint64_t widthMask(unsigned bits);
/// The low `bits` of v, sign-extended to 64 bits.
int64_t signExtend(uint64_t v, unsigned bits);
/// Bits of a PTX type (packed types: the whole packing).
unsigned typeBits(ptx::Type t);
bool isSignedType(ptx::Type t);

} // namespace ref
