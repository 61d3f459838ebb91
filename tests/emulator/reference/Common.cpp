#include "tests/emulator/reference/Reference.h"

namespace ref {

bool Instr::has(ptx::Mod m) const {
  for (ptx::Mod x : mods)
    if (x == m) return true;
  return false;
}

ptx::Mod Instr::first(ptx::ModKind k) const {
  for (ptx::Mod x : mods)
    if (ptx::modKind(x) == k) return x;
  return ptx::Mod::None;
}

std::vector<unsigned> Instr::slotsOf(unsigned g) const {
  std::vector<unsigned> r;
  for (unsigned i = 0; i < slots.size(); ++i)
    if (slots[i].group == g) r.push_back(i);
  return r;
}

unsigned Instr::slot(unsigned g) const {
  for (unsigned i = 0; i < slots.size(); ++i)
    if (slots[i].group == g) return i;
  return static_cast<unsigned>(slots.size());
}

uint64_t widthMask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  v &= widthMask(bits);
  return (v >> (bits - 1)) & 1 ? static_cast<int64_t>(v | ~widthMask(bits)) : static_cast<int64_t>(v);
}

unsigned typeBits(ptx::Type t) { return ptx::bitWidth(t); }

bool isSignedType(ptx::Type t) { return ptx::typeClass(t) == ptx::TypeClass::Signed; }

} // namespace ref
