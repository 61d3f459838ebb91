// Tensor cores, functionally: mma.sync, wmma.load/store/mma, ldmatrix,
// stmatrix and movmatrix. A warp's fragments are gathered into dense
// matrices (TensorLayout.h says which register element is which matrix
// element), multiplied (TensorCore.h: the arithmetic), and scattered back.
#include "emulator/semantics/Fp.h"
#include "emulator/semantics/TensorCore.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <cmath>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;
using namespace tensor;

const DOp &opnd(const Exec &x, const DInstr &in, unsigned i) { return x.kernel().op(in, i); }

/// wmma fragments as the H200 lays them out (tr_wmma_ld* probes).
bool wmmaFragment(char matrix, const Config &c, Type t, Fragment &f) {
  unsigned bits = elementBits(t);
  if (matrix == 'c') {
    static constexpr uint8_t k16[2][2] = {{8, 0}, {0, 8}}, k32x8[2][2] = {{8, 0}, {16, 0}},
                             k8x8[1][2] = {{0, 0}};
    if (c.m == 16 && c.n == 16)
      f = accFragment(16, 16, bits, k16);
    else if (c.m == 32)
      f = accFragment(32, 8, bits, k32x8);
    else if (c.m == 8 && c.n == 32) {
      // the transpose of m32n8's: base (2t, g), then one row, then columns +8, +16
      static constexpr uint8_t k8x32[2][2] = {{0, 8}, {0, 16}};
      f = accFragment(8, 32, bits, k8x32);
      f.rowG = 0, f.rowT = 2, f.colG = 1, f.colT = 0;
      f.step[0][0] = 1, f.step[0][1] = 0;
    } else if (c.m == 8 && c.n == 8) {
      f = accFragment(8, 8, bits, k8x8);
      f.numSteps = 1;
    } else {
      return false;
    }
    return true;
  }
  bool a = matrix == 'a';
  unsigned rows = a ? c.m : c.k, cols = a ? c.k : c.n;
  // Extra steps after the in-register ones, per (type width, shape, matrix).
  uint8_t s[4][2] = {};
  unsigned ns = 0;
  auto add = [&](unsigned dr, unsigned dc) {
    s[ns][0] = static_cast<uint8_t>(dr), s[ns][1] = static_cast<uint8_t>(dc), ++ns;
  };
  if (bits == 16) {
    if (a) {
      if (c.m == 16)
        add(8, 0), add(0, 8);
      else if (c.m == 32)
        add(8, 0), add(0, 8), add(16, 0);
      else
        add(0, 8);
    } else {
      if (c.n == 16)
        add(8, 0), add(0, 8);
      else if (c.n == 8)
        add(8, 0);
      else
        add(0, 8), add(8, 0), add(0, 16);
    }
    // f16 fragments always hold 16 elements: the rest repeat
    if (t == Type::F16)
      while (ns < 3) add(0, 0);
  } else if (bits == 8) {
    if (a) {
      if (c.m == 16)
        add(8, 0);
      else if (c.m == 32)
        add(8, 0), add(16, 0);
    } else {
      if (c.n == 16)
        add(0, 8);
      else if (c.n == 32)
        add(0, 8), add(0, 16);
    }
  } else if (bits == 32) { // tf32 m16n16k8
    if (a)
      add(8, 0), add(0, 4);
    else
      add(4, 0), add(0, 8);
  } // f64 m8n8k4, s4/u4 m8n8k32, b1 m8n8k128: one step pattern each, none extra
  if (rows == 0 || cols == 0) return false;
  if (bits == 64 || bits <= 4) {
    f = a ? rowFragment(rows, cols, bits) : colFragment(rows, cols, bits);
    return true;
  }
  uint8_t more[4][2] = {};
  for (unsigned i = 0; i < ns; ++i) more[i][0] = s[i][0], more[i][1] = s[i][1];
  f = a ? rowFragment(rows, cols, bits, more) : colFragment(rows, cols, bits, more);
  f.numSteps = static_cast<uint8_t>(f.numSteps - (4 - ns));
  return true;
}

/// The matrices of an mma-like instruction d, a, b, c: scratch of the host
/// thread, reused (no allocation once warm).
struct Operands {
  std::vector<uint64_t> A, B, C, D;
};

/// Gathers a, b and c (operands 1-3) into dense matrices; nullptr after
/// reporting a fragment operand with fewer registers than its layout.
Operands *gatherOperands(Exec &x, const DInstr &in, const Fragment &fa, const Fragment &fb,
                         const Fragment &fc, const Fragment &fd) {
  const DOp &d = opnd(x, in, 0), &a = opnd(x, in, 1), &b = opnd(x, in, 2), &c = opnd(x, in, 3);
  if (!enoughRegisters(a, fa) || !enoughRegisters(b, fb) || !enoughRegisters(c, fc) ||
      !enoughRegisters(d, fd)) {
    unsupported(x, in, "a fragment has fewer registers than its layout");
    return nullptr;
  }
  thread_local Operands o;
  gatherMatrix(x, a, fa, o.A);
  gatherMatrix(x, b, fb, o.B);
  gatherMatrix(x, c, fc, o.C);
  return &o;
}

// ---- mma.sync ---------------------------------------------------------------------------

/// mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c
/// (b1: .s32.b1.b1.s32.{xor,and}.popc).
void mma(Exec &x, const DInstr &in) {
  if (!wholeWarp(x, in)) return;
  Config c = configOf(x, in);
  if (c.numTypes < 4) return unsupported(x, in, "its types are not d.a.b.c");
  Type td = c.types[0], ta = c.types[1], tb = c.types[2], tc = c.types[3];
  Fragment fa, fb, fc;
  if (!mmaFragments(c, ta, fa, fb, fc))
    return unsupported(x, in, "this shape (the m8n8k4 quad-pair forms of sm_70)");
  Fragment fcIn = fc, fd = fc;
  fcIn.elemBits = static_cast<uint8_t>(elementBits(tc));
  fd.elemBits = static_cast<uint8_t>(elementBits(td));
  Operands *o = gatherOperands(x, in, fa, fb, fcIn, fd);
  if (!o) return;
  // fp8 mma.sync (sm_89+) is not a Hopper tensor-core step of its own, and
  // its summation order is not pinned down: c plus the 32 products rounded to
  // nearest f32 gives 249 of the 256 recorded results exactly, the others
  // within 8 ulps (tests/gpu/cases/tr_mma_e*; tests/gpu/README.md).
  bool fp8 = ta == Type::E4M3 || ta == Type::E5M2;
  multiply(c, ta, tb, tc, td, in.mods & dmod::SatFinite, fp8 ? FusedSum{c.k, 40, 23, true} : FusedSum{c.k},
           o->A, o->B, o->C, o->D);
  scatterMatrix(x, opnd(x, in, 0), fd, o->D);
}

// ---- wmma ---------------------------------------------------------------------------------

/// Byte address and bit offset of element (r, c) of a matrix in memory.
void elementAddress(uint64_t base, uint64_t stride, bool rowMajor, unsigned r, unsigned c, unsigned bits,
                    uint64_t &byte, unsigned &shift) {
  uint64_t index = rowMajor ? uint64_t(r) * stride + c : uint64_t(c) * stride + r;
  uint64_t bit = index * bits;
  byte = base + bit / 8;
  shift = static_cast<unsigned>(bit % 8);
}

/// Calls visit(lane, e, byte address, bit shift) for every element of every
/// lane of a wmma.load / wmma.store whose address is operand `addrOp` (the
/// stride, when given, follows at 2); stops when visit returns false.
template <typename Visit>
void forEachElement(Exec &x, const DInstr &in, unsigned addrOp, const Config &c, const Fragment &f,
                    Visit visit) {
  const DOp &addr = opnd(x, in, addrOp);
  for (unsigned lane = 0; lane < 32; ++lane) {
    uint64_t base = effectiveAddress(x, addr, lane);
    uint64_t stride =
        in.numOps > 2 ? readOperand(x, opnd(x, in, 2), lane) & 0xFFFFFFFFu : (c.row ? f.cols : f.rows);
    for (unsigned e = 0; e < f.elements(); ++e) {
      unsigned row, col, shift;
      f.position(lane, e, row, col);
      uint64_t at;
      elementAddress(base, stride, c.row, row, col, f.elemBits, at, shift);
      if (!visit(lane, e, at, shift)) return;
    }
  }
}

bool wmmaSetup(Exec &x, const DInstr &in, char matrix, Config &c, Fragment &f, Type &t) {
  if (!wholeWarp(x, in)) return false;
  c = configOf(x, in);
  t = c.numTypes ? c.types[c.numTypes - 1] : Type::None;
  if (!wmmaFragment(matrix, c, t, f)) {
    unsupported(x, in, "unknown wmma shape");
    return false;
  }
  return true;
}

/// wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}
template <char Matrix> void wmmaLoad(Exec &x, const DInstr &in) {
  Config c;
  Fragment f;
  Type t;
  if (!wmmaSetup(x, in, Matrix, c, f, t)) return;
  const DOp &r = opnd(x, in, 0), &addr = opnd(x, in, 1);
  if (!enoughRegisters(r, f)) return unsupported(x, in, "a fragment has fewer registers than its layout");
  Space space = accessSpace(in, addr);
  unsigned bits = f.elemBits, bytes = bits >= 8 ? bits / 8 : 1;
  uint64_t elems[128];
  forEachElement(x, in, 1, c, f, [&](unsigned lane, unsigned e, uint64_t at, unsigned shift) {
    uint64_t v = 0;
    if (!loadBytes(x, space, at, bytes, lane, &v)) return false;
    elems[e] = bits >= 8 ? v : (v >> shift) & ((1u << bits) - 1);
    if (e + 1 == f.elements()) writeElements(x, r, f, lane, elems);
    return true;
  });
}

/// wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}
void wmmaStore(Exec &x, const DInstr &in) {
  Config c;
  Fragment f;
  Type t;
  if (!wmmaSetup(x, in, 'c', c, f, t)) return;
  const DOp &addr = opnd(x, in, 0), &r = opnd(x, in, 1);
  if (!enoughRegisters(r, f)) return unsupported(x, in, "a fragment has fewer registers than its layout");
  Space space = accessSpace(in, addr);
  unsigned bytes = f.elemBits / 8;
  forEachElement(x, in, 0, c, f, [&](unsigned lane, unsigned e, uint64_t at, unsigned) {
    uint64_t v = readElement(x, r, f, lane, e);
    return storeBytes(x, space, at, bytes, lane, &v);
  });
}

/// wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.dtype{.atype.btype}.ctype{.satfinite} d, a, b, c
void wmmaMma(Exec &x, const DInstr &in) {
  if (!wholeWarp(x, in)) return;
  Config c = configOf(x, in);
  Type td, ta, tb, tc;
  if (c.numTypes == 2) { // f16 forms: .dtype.ctype
    td = c.types[0], tc = c.types[1], ta = tb = Type::F16;
  } else if (c.numTypes == 4) {
    td = c.types[0], ta = c.types[1], tb = c.types[2], tc = c.types[3];
  } else {
    return unsupported(x, in, "its types");
  }
  Fragment fa, fb, fc, fd;
  if (!wmmaFragment('a', c, ta, fa) || !wmmaFragment('b', c, tb, fb) || !wmmaFragment('c', c, tc, fc) ||
      !wmmaFragment('c', c, td, fd))
    return unsupported(x, in, "unknown wmma shape");
  Operands *o = gatherOperands(x, in, fa, fb, fc, fd);
  if (!o) return;
  // m16n16k16 and the other wmma shapes run as m16n8-wide tensor-core
  // steps over the instruction's whole K, so one fused step per element.
  multiply(c, ta, tb, tc, td, in.mods & dmod::SatFinite, {ta == Type::TF32 ? 4u : c.k}, o->A, o->B, o->C,
           o->D);
  scatterMatrix(x, opnd(x, in, 0), fd, o->D);
}

// ---- ldmatrix / stmatrix / movmatrix ---------------------------------------------------------
// Matrix i of an .x1/.x2/.x4 access is 8 rows of 8 b16 elements; lanes 8i..8i+7
// give its row addresses. Register i of lane l holds row l/4, columns 2(l%4)
// and 2(l%4)+1 of matrix i (.trans: column l/4, rows 2(l%4) and 2(l%4)+1).

using Matrix8x8 = uint16_t[8][8];

/// The element of an 8x8 matrix that half h (0: low) of lane l's register holds.
uint16_t &held(Matrix8x8 &m, unsigned lane, unsigned h, bool trans) {
  unsigned g = lane / 4, t = lane % 4;
  return trans ? m[2 * t + h][g] : m[g][2 * t + h];
}

void ldmatrix(Exec &x, const DInstr &in) {
  if (!wholeWarp(x, in)) return;
  Config c = configOf(x, in);
  if (c.types[0] != Type::B16 || !c.m8n8) return unsupported(x, in, "only the .m8n8 .b16 forms are modelled");
  const DOp &d = opnd(x, in, 0), &addr = opnd(x, in, 1);
  Space space = accessSpace(in, addr);
  Matrix8x8 m[4];
  for (unsigned i = 0; i < c.count; ++i)
    for (unsigned row = 0; row < 8; ++row) {
      unsigned lane = 8 * i + row;
      if (!loadBytes(x, space, effectiveAddress(x, addr, lane), 16, lane, m[i][row], 16)) return;
    }
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < c.count; ++i) {
      const DOp &r = d.kind == DOp::Vec ? x.kernel().ops[d.reg + i] : d;
      writeOperand(x, r, lane,
                   uint32_t(held(m[i], lane, 0, c.trans)) | uint32_t(held(m[i], lane, 1, c.trans)) << 16);
    }
}

void stmatrix(Exec &x, const DInstr &in) {
  if (!wholeWarp(x, in)) return;
  Config c = configOf(x, in);
  if (c.types[0] != Type::B16 || !c.m8n8) return unsupported(x, in, "only the .m8n8 .b16 forms are modelled");
  const DOp &addr = opnd(x, in, 0), &v = opnd(x, in, 1);
  Space space = accessSpace(in, addr);
  Matrix8x8 m[4];
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < c.count; ++i) {
      const DOp &r = v.kind == DOp::Vec ? x.kernel().ops[v.reg + i] : v;
      uint32_t w = static_cast<uint32_t>(readOperand(x, r, lane));
      held(m[i], lane, 0, c.trans) = static_cast<uint16_t>(w);
      held(m[i], lane, 1, c.trans) = static_cast<uint16_t>(w >> 16);
    }
  for (unsigned i = 0; i < c.count; ++i)
    for (unsigned row = 0; row < 8; ++row) {
      unsigned lane = 8 * i + row;
      if (!storeBytes(x, space, effectiveAddress(x, addr, lane), 16, lane, m[i][row], 16)) return;
    }
}

/// movmatrix.sync.aligned.m8n8.trans.b16 d, a: the transpose of the 8x8
/// matrix the warp holds in ldmatrix's layout.
void movmatrix(Exec &x, const DInstr &in) {
  if (!wholeWarp(x, in)) return;
  Matrix8x8 m;
  for (unsigned lane = 0; lane < 32; ++lane) {
    uint32_t w = static_cast<uint32_t>(readOperand(x, opnd(x, in, 1), lane));
    held(m, lane, 0, false) = static_cast<uint16_t>(w);
    held(m, lane, 1, false) = static_cast<uint16_t>(w >> 16);
  }
  for (unsigned lane = 0; lane < 32; ++lane)
    writeOperand(x, opnd(x, in, 0), lane,
                 uint32_t(held(m, lane, 0, true)) | uint32_t(held(m, lane, 1, true)) << 16);
}

constexpr HandlerRow kRows[] = {
    row(Opcode::Mma, tclass::All, mma),
    row(Opcode::WmmaLoadA, tclass::All, wmmaLoad<'a'>),
    row(Opcode::WmmaLoadB, tclass::All, wmmaLoad<'b'>),
    row(Opcode::WmmaLoadC, tclass::All, wmmaLoad<'c'>),
    row(Opcode::WmmaStoreD, tclass::All, wmmaStore),
    row(Opcode::WmmaMma, tclass::All, wmmaMma),
    row(Opcode::Ldmatrix, tclass::All, ldmatrix),
    row(Opcode::Stmatrix, tclass::All, stmatrix),
    row(Opcode::Movmatrix, tclass::All, movmatrix),
};

} // namespace

std::span<const HandlerRow> tensorHandlers() { return kRows; }

} // namespace emu
