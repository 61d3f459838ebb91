// Operand access for the reference files: the value of a source operand, and
// setting a destination's expectation.
#pragma once

#include "tests/emulator/reference/Reference.h"

namespace ref {

/// The value of top-level source operand g (a predicate written !p is
/// complemented).
inline uint64_t src(const Instr &ri, const Thread &t, unsigned g) {
  unsigned s = ri.slot(g);
  uint64_t v = t.in[s];
  if (ri.slots[s].notted) v = (v & 1) ^ 1;
  return v;
}
/// Element e of top-level operand g.
inline uint64_t element(const Instr &ri, const Thread &t, unsigned g, unsigned e) {
  return t.in[ri.slot(g) + e];
}
/// Sets the expectation of destination slot s.
inline void expect(const Instr &ri, Thread &t, unsigned s, Check c) {
  if (t.out.size() < ri.slots.size()) t.out.resize(ri.slots.size());
  t.out[s] = c;
}
/// Expectation for the (first) destination.
inline void expectD(const Instr &ri, Thread &t, Check c) { expect(ri, t, 0, c); }
/// Number of top-level source operands (after the destination, if any).
inline unsigned sources(const Instr &ri) { return ri.groups - (ri.writes() ? 1 : 0); }
/// Top-level index of source i.
inline unsigned srcGroup(const Instr &ri, unsigned i) {
  // A pair destination is one top-level operand.
  return (ri.writes() ? 1 : 0) + i;
}

} // namespace ref
