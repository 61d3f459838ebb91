// 128-bit values (PTX 8.3, sm_70+ for moves, loads and stores, sm_90 for
// atomics): a .b128 register is two 64-bit slots, its id for the low half
// and DOp::imm for the high half (the decoder assigns it). mov.b128 packs,
// unpacks and copies; ld/st.b128 move 16 bytes; atom.cas.b128 and
// atom.exch.b128 are atomic under the atomics' lock.
#include "emulator/Semantics.h"

#include <cstring>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;

struct U128 {
  uint64_t lo = 0, hi = 0;
  bool operator==(const U128 &) const = default;
};

U128 read128(Exec &x, const DOp &op, unsigned lane) {
  if (op.kind == DOp::Reg) return {x.reg(op.reg, lane), x.reg(static_cast<uint32_t>(op.imm), lane)};
  return {readOperand(x, op, lane), 0}; // an immediate (zero-extended)
}

void write128(Exec &x, const DOp &op, unsigned lane, U128 v) {
  if (op.kind != DOp::Reg) return; // the sink `_`
  x.reg(op.reg, lane) = v.lo;
  x.reg(static_cast<uint32_t>(op.imm), lane) = v.hi;
}

/// mov.b128 d, {lo, hi} packs; mov.b128 {lo, hi}, a unpacks; mov.b128 d, a
/// copies.
void mov(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &d = k.op(in, 0), &a = k.op(in, 1);
  forLanes(x.mask, [&](unsigned l) {
    if (a.kind == DOp::Vec) {
      write128(x, d, l, {readOperand(x, k.ops[a.reg], l), readOperand(x, k.ops[a.reg + 1], l)});
    } else if (d.kind == DOp::Vec) {
      U128 v = read128(x, a, l);
      writeOperand(x, k.ops[d.reg], l, v.lo);
      writeOperand(x, k.ops[d.reg + 1], l, v.hi);
    } else {
      write128(x, d, l, read128(x, a, l));
    }
  });
}

void load(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &d = k.op(in, 0), &addr = k.op(in, 1);
  const Space space = accessSpace(in, addr);
  forLanes(x.mask, [&](unsigned l) {
    U128 v;
    if (loadBytes(x, space, effectiveAddress(x, addr, l), 16, l, &v)) write128(x, d, l, v);
  });
}

void store(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0), &src = k.op(in, 1);
  const Space space = accessSpace(in, addr);
  forLanes(x.mask, [&](unsigned l) {
    U128 v = read128(x, src, l);
    storeBytes(x, space, effectiveAddress(x, addr, l), 16, l, &v);
  });
}

/// atom.cas.b128 d, [a], b, c: d = [a]; [a] = d == b ? c : d.
/// atom.exch.b128 d, [a], b: d = [a]; [a] = b.
template <bool Cas> void atomic(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 1);
  const Space space = accessSpace(in, addr);
  std::lock_guard lock(atomicMutex);
  forLanes(x.mask, [&](unsigned l) {
    uint8_t *p = accessBytes(x, space, effectiveAddress(x, addr, l), 16, l, true, true);
    if (!p) return;
    U128 old, b = read128(x, k.op(in, 2), l);
    std::memcpy(&old, p, 16);
    U128 now = Cas ? (old == b ? read128(x, k.op(in, 3), l) : old) : b;
    std::memcpy(p, &now, 16);
    write128(x, k.op(in, 0), l, old);
  });
}

Handler pickAtom(const DInstr &in) {
  if (in.vec > 1) return nullptr;
  return in.op == Mod::Cas ? atomic<true> : in.op == Mod::Exch ? atomic<false> : nullptr;
}
template <Handler H> Handler scalarOnly(const DInstr &in) { return in.vec > 1 ? nullptr : H; }

constexpr HandlerRow kRows[] = {
    row(Opcode::Mov, tclass::Wide, scalarOnly<mov>),
    row(Opcode::Ld, tclass::Wide, scalarOnly<load>),
    row(Opcode::St, tclass::Wide, scalarOnly<store>),
    row(Opcode::Atom, tclass::Wide, pickAtom),
};

} // namespace

std::span<const HandlerRow> wideHandlers() { return kRows; }

} // namespace emu
