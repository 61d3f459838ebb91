// Which local-memory accesses name a known place: a .local variable plus a
// constant offset (the stack frame nvcc -G keeps every variable in, and the
// arrays -O3 leaves in local memory). DefUse turns each such place into a
// variable, so that SSA, gates and the divergence analysis follow values
// through local memory as they follow registers.
//
// A register points into local variable S when every write of it is one of
//   mov r, S          cvta.local r, p      cvta.to.local r, p
//   mov r, p          add r, p, k          sub r, p, k      add r, p, x
// with p pointing into S (k an immediate: the offset stays known; x a
// register: the offset becomes unknown). Every other use of such a pointer
// (stored as data, passed to a call, compared, converted) lets S escape:
// then calls and writes through pointers of unknown origin may write S too,
// and DefUse adds them as partial writes of S's places.
#pragma once

#include "ptx/IR.h"

#include <cstdint>
#include <span>
#include <vector>

namespace analysis {

/// Bytes one memory access moves: the type's size times the vector width;
/// 0 when the form does not say.
int64_t accessBytes(const ptx::InstrDesc &desc);

class LocalSlots {
public:
  LocalSlots(const ptx::Module &m, const ptx::Function &fn);

  /// A place: bytes [begin, end) of local variable `symbol`, the union of
  /// the overlapping accesses at known offsets.
  struct Place {
    uint32_t symbol; // into symbols()
    int64_t begin, end;
  };
  struct Symbol {
    ptx::Name name;
    bool escapes = false;
    uint32_t firstPlace = 0, numPlaces = 0; // into places()
  };
  /// How an instruction reaches local memory through one address operand.
  struct Access {
    uint32_t instr;
    uint16_t operand;
    bool write;     // stores, atomics and other writes; otherwise a load
    bool exact;     // reads or (a plain store) writes every byte of exactly one place
    uint32_t first; // the places touched: [first, first + count)
    uint32_t count;
  };

  std::span<const Symbol> symbols() const { return symbols_; }
  std::span<const Place> places() const { return places_; }
  /// The accesses of instruction `instr` (sorted by instruction).
  std::span<const Access> accesses(uint32_t instr) const;
  /// Whether `instr` may write an escaped variable without naming it: a
  /// call, or a write to local or generic memory through a pointer of
  /// unknown origin.
  bool clobbers(uint32_t instr) const { return clobbers_[instr] != 0; }
  /// Whether `instr` writes local or generic memory through a pointer that
  /// is not known to point into a local variable of this function, or
  /// writes a module-scope .local variable: what a callee may change in its
  /// caller's local memory.
  bool writesUnknownPointer(uint32_t instr) const { return unknownWrites_[instr] != 0; }
  /// The places a clobbering instruction may write: those of every escaped
  /// variable.
  std::span<const uint32_t> escapedPlaces() const { return escapedPlaces_; }

  /// More places than this in one function and none are kept (a bound on
  /// the variables the dataflow analyses carry).
  static constexpr uint32_t kMaxPlaces = 4096;

private:
  std::vector<Symbol> symbols_;
  std::vector<Place> places_;
  std::vector<Access> accesses_;
  std::vector<uint32_t> accessBegin_; // per instruction, into accesses_
  std::vector<char> clobbers_, unknownWrites_;
  std::vector<uint32_t> escapedPlaces_;
};

} // namespace analysis
