// Comparison references (PTX ISA, setp and set, also for .f16/.bf16 and
// their x2 packings): t = a CmpOp b (unordered comparisons true on NaN, .lo
// .ls .hi .hs unsigned), combined with an optional predicate; setp writes
// p = BoolOp(t, c) and q = BoolOp(!t, c) (packed: p and q from the low and
// high halves); set writes all ones, 1.0 or 0.
#include "tests/emulator/reference/Formats.h"
#include "tests/emulator/reference/Operands.h"

namespace ref {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

struct Operand {
  bool isFloat = false, isSigned = false;
  unsigned bits = 0;
  Format f{};
};

Operand operandOf(Type t) {
  switch (t) {
  case Type::F16:
  case Type::F16x2: return {true, false, 16, kF16};
  case Type::BF16:
  case Type::BF16x2: return {true, false, 16, kBF16};
  case Type::F32: return {true, false, 32, kF32};
  case Type::F64: return {true, false, 64, kF64};
  default: return {false, isSignedType(t), typeBits(t), {}};
  }
}

bool compare(Mod cmp, uint64_t a, uint64_t b, const Operand &o, bool ftz) {
  if (o.isFloat) {
    auto value = [&](uint64_t bits) {
      bits &= widthMask(o.bits);
      uint64_t e = (bits >> o.f.manBits) & ((1ull << o.f.expBits) - 1);
      Quad v = decode(bits, o.f);
      if (ftz && e == 0) v = 0; // subnormals (and zeros) compare as zero
      return v;
    };
    Quad x = value(a), y = value(b);
    bool u = isNaN(x) || isNaN(y);
    switch (cmp) {
    case Mod::Eq: return !u && x == y;
    case Mod::Ne: return !u && x != y;
    case Mod::Lt: return !u && x < y;
    case Mod::Le: return !u && x <= y;
    case Mod::Gt: return !u && x > y;
    case Mod::Ge: return !u && x >= y;
    case Mod::Equ: return u || x == y;
    case Mod::Neu: return u || x != y;
    case Mod::Ltu: return u || x < y;
    case Mod::Leu: return u || x <= y;
    case Mod::Gtu: return u || x > y;
    case Mod::Geu: return u || x >= y;
    case Mod::Num: return !u;
    case Mod::Nan: return u;
    default: return false;
    }
  }
  __int128 sx = signExtend(a, o.bits), sy = signExtend(b, o.bits);
  __int128 ux = a & widthMask(o.bits), uy = b & widthMask(o.bits);
  __int128 x = o.isSigned ? sx : ux, y = o.isSigned ? sy : uy;
  switch (cmp) {
  case Mod::Eq: return ux == uy;
  case Mod::Ne: return ux != uy;
  case Mod::Lt: return x < y;
  case Mod::Le: return x <= y;
  case Mod::Gt: return x > y;
  case Mod::Ge: return x >= y;
  case Mod::Lo: return ux < uy;
  case Mod::Ls: return ux <= uy;
  case Mod::Hi: return ux > uy;
  case Mod::Hs: return ux >= uy;
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

} // namespace

bool compareReference(const Instr &ri, std::vector<Thread> &warp) {
  if (ri.opcode != Opcode::Setp && ri.opcode != Opcode::Set) return false;
  const Type st = ri.lastType();
  const Operand o = operandOf(st);
  const bool packed = st == Type::F16x2 || st == Type::BF16x2;
  const Mod cmp = ri.first(ptx::ModKind::Compare), boolOp = ri.first(ptx::ModKind::BoolOp);
  const bool ftz = ri.has(Mod::Ftz);
  const bool hasC = boolOp != Mod::None;
  eachThread(warp, [&](Thread &th) {
    uint64_t a = src(ri, th, 1), b = src(ri, th, 2);
    bool c = hasC ? src(ri, th, 3) & 1 : true;
    bool t0 = compare(cmp, a, b, o, ftz);
    bool t1 = packed && compare(cmp, a >> 16, b >> 16, o, ftz);
    if (ri.opcode == Opcode::Setp) {
      auto d = ri.slotsOf(0);
      expect(ri, th, d[0], exact(combine(boolOp, t0, c)));
      if (d.size() > 1) expect(ri, th, d[1], exact(combine(boolOp, packed ? t1 : !t0, c)));
      return;
    }
    // set: "true" is 1.0 for float destinations, all ones for integers
    // (0xFFFF per half for packed sources and 16-bit destinations).
    const Type dt = ri.type(0);
    uint64_t yes;
    switch (dt) {
    case Type::F32: yes = 0x3F800000; break;
    case Type::F16:
    case Type::F16x2: yes = 0x3C00; break;
    case Type::BF16:
    case Type::BF16x2: yes = 0x3F80; break;
    case Type::U16:
    case Type::S16: yes = 0xFFFF; break;
    default: yes = packed ? 0xFFFF : 0xFFFFFFFF; break;
    }
    uint64_t r = combine(boolOp, t0, c) ? yes : 0;
    if (packed) r |= (combine(boolOp, t1, c) ? yes : 0) << 16;
    expectD(ri, th, exact(r));
  });
  return true;
}

} // namespace ref
