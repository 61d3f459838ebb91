// The pieces of tensor-core semantics that mma, wmma and wgmma share: the
// modifiers of an instruction, mma fragment layouts, moving fragments between
// registers and dense matrices, and the arithmetic (see TensorCore.h).
#include "emulator/semantics/TensorCore.h"
#include "emulator/semantics/Fp.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace emu::tensor {

using ptx::Mod;
using ptx::Type;

static bool shapeOf(Mod s, Config &c) {
  struct S {
    Mod mod;
    uint16_t m, n, k;
  };
  static constexpr S kShapes[] = {
      {Mod::TenM8N8K4, 8, 8, 4},       {Mod::TenM8N8K16, 8, 8, 16},     {Mod::TenM8N8K32, 8, 8, 32},
      {Mod::TenM8N8K128, 8, 8, 128},   {Mod::TenM16N8K4, 16, 8, 4},     {Mod::TenM16N8K8, 16, 8, 8},
      {Mod::TenM16N8K16, 16, 8, 16},   {Mod::TenM16N8K32, 16, 8, 32},   {Mod::TenM16N8K64, 16, 8, 64},
      {Mod::TenM16N8K128, 16, 8, 128}, {Mod::TenM16N8K256, 16, 8, 256}, {Mod::TenM16N16K16, 16, 16, 16},
      {Mod::TenM8N32K16, 8, 32, 16},   {Mod::TenM32N8K16, 32, 8, 16},   {Mod::TenM16N16K8, 16, 16, 8},
  };
  for (const S &x : kShapes)
    if (x.mod == s) {
      c.m = x.m, c.n = x.n, c.k = x.k;
      return true;
    }
  return false;
}

Config configOf(const Exec &x, const DInstr &in) {
  Config c;
  const ptx::InstrDesc &d = x.kernel().desc(in);
  unsigned layouts = 0;
  for (Mod mod : d.modifiers()) {
    if (mod == Mod::TenRow || mod == Mod::TenCol) {
      bool row = mod == Mod::TenRow;
      if (layouts == 0)
        c.row = c.rowA = row;
      else
        c.rowB = row;
      ++layouts;
    } else if (mod == Mod::TenTrans) {
      c.trans = true;
    } else if (mod == Mod::And) {
      c.bitAnd = true;
    } else if (mod == Mod::TenX1 || mod == Mod::TenX2 || mod == Mod::TenX4) {
      c.count = mod == Mod::TenX1 ? 1 : mod == Mod::TenX2 ? 2 : 4;
    } else if (mod == Mod::TenM8N8) {
      c.m8n8 = true;
    } else {
      shapeOf(mod, c);
    }
  }
  for (unsigned i = 0; i < 4; ++i) {
    Type t = d.type(i);
    if (t == Type::None) break;
    c.types[c.numTypes++] = t;
  }
  return c;
}

unsigned elementBits(Type t) {
  switch (t) {
  case Type::B1: return 1;
  case Type::S4:
  case Type::U4: return 4;
  case Type::S8:
  case Type::U8:
  case Type::E4M3:
  case Type::E5M2: return 8;
  case Type::F16:
  case Type::BF16: return 16;
  case Type::F64: return 64;
  default: return 32; // tf32, f32, s32
  }
}

// ---- layouts ----------------------------------------------------------------------------

/// mma.sync fragments (PTX ISA, "Matrix fragments for mma.m*n*k*").
bool mmaFragments(const Config &c, Type ab, Fragment &a, Fragment &b, Fragment &acc) {
  unsigned bits = elementBits(ab);
  unsigned w = bits >= 32 ? 1 : 32 / bits; // A/B elements per register
  static constexpr uint8_t kRows8[1][2] = {{8, 0}}, kNone[1][2] = {{0, 0}};
  // C/D: 16x8 (two row halves) or 8x8.
  if (c.m == 16)
    acc = accFragment(16, 8, 32, kRows8);
  else
    acc = accFragment(8, 8, 32, kNone), acc.numSteps = 1;
  if (c.n != 8 || (c.m != 16 && c.m != 8)) return false;
  // A is m x k: lane groups along rows, w elements per register along k,
  // then the second row half (m = 16), then further k blocks of 4w.
  unsigned kPerQuad = 4 * w; // k covered by the four lanes of a group in one register
  if (c.k % kPerQuad != 0) return false;
  uint8_t aSteps[4][2] = {}, bSteps[4][2] = {};
  unsigned na = 0, nb = 0;
  // Every type orders A the same way: the row half first, then the k blocks
  // (f16 m16n8k16: a0,a1 row g; a2,a3 row g+8; a4..a7 the same, k + 8).
  if (c.m == 16) aSteps[na][0] = 8, aSteps[na][1] = 0, ++na;
  for (unsigned kb = kPerQuad; kb < c.k; kb *= 2) {
    aSteps[na][0] = 0, aSteps[na][1] = static_cast<uint8_t>(kb), ++na;
    bSteps[nb][0] = static_cast<uint8_t>(kb), bSteps[nb][1] = 0, ++nb;
  }
  auto build = [&](bool isA) {
    Fragment f = isA ? rowFragment(c.m, c.k, bits) : colFragment(c.k, c.n, bits);
    const uint8_t(*steps)[2] = isA ? aSteps : bSteps;
    unsigned count = isA ? na : nb;
    for (unsigned i = 0; i < count; ++i) {
      f.step[f.numSteps][0] = steps[i][0], f.step[f.numSteps][1] = steps[i][1];
      ++f.numSteps;
    }
    return f;
  };
  a = build(true);
  b = build(false);
  return true;
}

// ---- register access ----------------------------------------------------------------------

/// Element e of lane l of a fragment held in the vector operand `v`.
uint64_t readElement(Exec &x, const DOp &v, const Fragment &f, unsigned lane, unsigned e) {
  unsigned per = f.perRegister();
  const DOp &r = v.kind == DOp::Vec ? x.kernel().ops[v.reg + e / per] : v;
  uint64_t bits = readOperand(x, r, lane);
  if (per == 1) return f.elemBits == 64 ? bits : bits & 0xFFFFFFFFu;
  return bits >> ((e % per) * f.elemBits) & ((1ull << f.elemBits) - 1);
}

/// Writes whole registers of lane l from its elements.
void writeElements(Exec &x, const DOp &v, const Fragment &f, unsigned lane, const uint64_t *elems) {
  unsigned per = f.perRegister();
  for (unsigned r = 0; r < f.registers(); ++r) {
    uint64_t word = 0;
    if (per == 1) {
      word = elems[r];
    } else {
      for (unsigned i = 0; i < per; ++i)
        word |= (elems[r * per + i] & ((1ull << f.elemBits) - 1)) << (i * f.elemBits);
    }
    const DOp &d = v.kind == DOp::Vec ? x.kernel().ops[v.reg + r] : v;
    writeOperand(x, d, lane, word);
  }
}

/// Checks that a fragment operand has the registers its layout needs.
bool enoughRegisters(const DOp &v, const Fragment &f) {
  return (v.kind == DOp::Vec ? v.count : 1u) >= f.registers();
}

/// The warp-wide tensor instructions need every lane of the warp.
bool wholeWarp(Exec &x, const DInstr &in) {
  if (x.mask == 0xFFFFFFFFu) return true;
  x.cta.report(ptx::DiagKind::WarpSyncMismatch, ptx::Severity::Error, x.pc, x.warp, x.mask,
               "'" + ptx::instructionName(*x.kernel().module, x.kernel().instr(in)) +
                   "' is executed by a warp with inactive or exited lanes: .sync.aligned tensor-core "
                   "instructions need all 32");
  return false;
}

void unsupported(Exec &x, const DInstr &in, const std::string &why) {
  x.cta.report(ptx::DiagKind::Unsupported, ptx::Severity::Error, x.pc, x.warp, x.mask,
               "the emulator cannot execute '" +
                   ptx::instructionName(*x.kernel().module, x.kernel().instr(in)) + "': " + why);
}

/// Gathers a whole matrix from the warp's fragments (rows*cols raw elements).
void gatherMatrix(Exec &x, const DOp &v, const Fragment &f, std::vector<uint64_t> &m) {
  m.assign(size_t(f.rows) * f.cols, 0);
  const unsigned per = f.perRegister(), regs = f.registers();
  const uint64_t mask = f.elemBits >= 64 ? ~0ull : (1ull << f.elemBits) - 1;
  uint64_t words[128];
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned r = 0; r < regs; ++r)
      words[r] = readOperand(x, v.kind == DOp::Vec ? x.kernel().ops[v.reg + r] : v, lane);
    for (unsigned e = 0; e < f.elements(); ++e) {
      unsigned row, col;
      f.position(lane, e, row, col);
      m[size_t(row) * f.cols + col] = words[e / per] >> ((e % per) * f.elemBits) & mask;
    }
  }
}

void scatterMatrix(Exec &x, const DOp &v, const Fragment &f, const std::vector<uint64_t> &m) {
  uint64_t elems[128];
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned e = 0; e < f.elements(); ++e) {
      unsigned r, c;
      f.position(lane, e, r, c);
      elems[e] = m[size_t(r) * f.cols + c];
    }
    writeElements(x, v, f, lane, elems);
  }
}

// ---- arithmetic ---------------------------------------------------------------------------

double floatValue(uint64_t bits, Type t) {
  switch (t) {
  case Type::F16: return fp::toDouble(bits, fp::kF16);
  case Type::BF16: return fp::toDouble(bits, fp::kBF16);
  case Type::TF32: return fp::toDouble(bits & 0xFFFFE000u, fp::kF32); // the low 13 bits are ignored
  case Type::E4M3: return fp::toDouble(bits & 0xFF, fp::kE4M3);
  case Type::E5M2: return fp::toDouble(bits & 0xFF, fp::kE5M2);
  case Type::F64: return as<double>(bits);
  default: return as<float>(bits);
  }
}

static int64_t intValue(uint64_t bits, Type t) {
  switch (t) {
  case Type::S4: return static_cast<int64_t>(bits << 60) >> 60;
  case Type::S8: return static_cast<int8_t>(bits);
  case Type::S32: return static_cast<int32_t>(bits);
  default: return static_cast<int64_t>(bits); // u4, u8, b1
  }
}


/// One step of the f64 chain: IEEE fma; a NaN result is the addend's NaN,
/// else b's, else a's (quieted), else the default NaN of an invalid
/// operation (tests/gpu/cases/tr_mma_f64_*_special).
static double fma64(double a, double b, double acc) {
  double r = std::fma(a, b, acc);
  if (r == r) return r;
  uint64_t bits = 0xFFF8000000000000ull;
  if (acc != acc)
    bits = bitsOf<double>(acc);
  else if (b != b)
    bits = bitsOf<double>(b);
  else if (a != a)
    bits = bitsOf<double>(a);
  return as<double>(bits | 0x0008000000000000ull);
}

/// An input value as the tensor core sees it: mant * 2^(e - 23) with
/// |mant| < 2^24 (exact for every input type but f64), e its exponent;
/// flags say negative (for zeros), infinite or NaN.
enum : uint8_t { kNegative = 1, kInfinite = 2, kNaN = 4 };
struct Decoded {
  int64_t mant = 0;
  int e = 0;
  uint8_t flags = 0;
};

static Decoded decode(double v) {
  // Every input type but f64 is a normal double with at most 24 significant
  // bits: the fields of its encoding give the exponent and mantissa.
  Decoded d;
  uint64_t bits = bitsOf<double>(v);
  unsigned field = static_cast<unsigned>(bits >> 52 & 0x7FF);
  d.flags = bits >> 63 ? kNegative : 0;
  if (field == 0x7FF) {
    d.flags |= v != v ? kNaN : kInfinite;
  } else if (field != 0) {
    d.e = static_cast<int>(field) - 1023;
    int64_t mant = static_cast<int64_t>((bits & ((1ull << 52) - 1)) | 1ull << 52) >> 29;
    d.mant = bits >> 63 ? -mant : mant;
  } else if (v != 0) { // a subnormal double: not among the inputs, but exact all the same
    d.e = std::ilogb(v);
    d.mant = static_cast<int64_t>(std::ldexp(v, 23 - d.e));
  }
  return d;
}

/// Decoded operands, structure of arrays: A row-major (m x k) and B
/// transposed (n x k), so that a row of A and a column of B are contiguous.
struct DecodedMatrix {
  std::vector<int64_t> mant;
  std::vector<int32_t> e;
  std::vector<uint8_t> flags;
  void assign(size_t n) { mant.assign(n, 0), e.assign(n, 0), flags.assign(n, 0); }
  void set(size_t i, const Decoded &d) { mant[i] = d.mant, e[i] = d.e, flags[i] = d.flags; }
};

/// The result of a step with an infinite or NaN term: a NaN, an infinity
/// times zero, or infinities of both signs give the canonical NaN.
static uint32_t specialSum(const int64_t *am, const uint8_t *af, const int64_t *bm, const uint8_t *bf,
                           unsigned k, const Decoded &c) {
  bool nan = c.flags & kNaN, pos = (c.flags & kInfinite) && !(c.flags & kNegative),
       neg = (c.flags & kInfinite) && (c.flags & kNegative);
  for (unsigned i = 0; i < k; ++i) {
    uint8_t special = (af[i] | bf[i]) & (kInfinite | kNaN);
    if (!special) continue;
    bool zero = (!(af[i] & kInfinite) && am[i] == 0) || (!(bf[i] & kInfinite) && bm[i] == 0);
    if ((special & kNaN) || zero)
      nan = true;
    else
      ((af[i] ^ bf[i]) & kNegative ? neg : pos) = true;
  }
  if (nan || (pos && neg)) return 0x7FFFFFFFu;
  return neg ? 0xFF800000u : 0x7F800000u;
}

/// c + sum(a[i]*b[i]) as Hopper's tensor core computes one fused step, as
/// f32 bits (TensorCore.h): each term is mant * 2^(exp - unitExp) truncated
/// toward zero (products have 46 fraction bits, c 23), the int64 sum rounded
/// once into `sum`'s format.
static uint32_t fusedDot(const DecodedMatrix &a, size_t ai, const DecodedMatrix &b, size_t bi, unsigned k,
                         const Decoded &c, const FusedSum &sum) {
  const int64_t *am = &a.mant[ai], *bm = &b.mant[bi];
  const int32_t *ae = &a.e[ai], *be = &b.e[bi];
  const uint8_t *af = &a.flags[ai], *bf = &b.flags[bi];
  uint8_t special = c.flags & (kInfinite | kNaN);
  bool negativeZeros = c.mant == 0 && (c.flags & kNegative);
  int emax = c.mant ? c.e : INT_MIN;
  for (unsigned i = 0; i < k; ++i) {
    special |= (af[i] | bf[i]) & (kInfinite | kNaN);
    if (am[i] && bm[i])
      emax = std::max(emax, ae[i] + be[i]);
    else
      negativeZeros &= ((af[i] ^ bf[i]) & kNegative) != 0;
  }
  if (special) return specialSum(am, af, bm, bf, k, c);
  if (emax == INT_MIN) return negativeZeros ? 0x80000000u : 0; // zeros add as IEEE says
  const int unitExp = emax - sum.alignBits;
  auto units = [](int64_t mant, int shift) -> int64_t {
    uint64_t m = static_cast<uint64_t>(mant < 0 ? -mant : mant);
    uint64_t u = shift >= 0 ? m << shift : (-shift >= 63 ? 0 : m >> -shift);
    return mant < 0 ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  };
  int64_t total = c.mant ? units(c.mant, c.e - 23 - unitExp) : 0;
  for (unsigned i = 0; i < k; ++i) total += units(am[i] * bm[i], ae[i] + be[i] - 46 - unitExp);
  if (total == 0) return 0; // exact cancellation: +0
  bool neg = total < 0;
  const fp::Format format{8, sum.fractionBits};
  uint64_t r = fp::roundBits(neg, static_cast<uint64_t>(neg ? -total : total), unitExp, false, format,
                             sum.nearest ? fp::Round::Nearest : fp::Round::Zero);
  return format.manBits == 23
             ? static_cast<uint32_t>(r)
             : static_cast<uint32_t>(bitsOf<float>(static_cast<float>(fp::toDouble(r, format))));
}

/// D = A*B + C over dense matrices of raw elements.
void multiply(const Config &c, Type ta, Type tb, Type tc, Type td, bool satfinite, FusedSum sum,
              const std::vector<uint64_t> &A, const std::vector<uint64_t> &B, const std::vector<uint64_t> &C,
              std::vector<uint64_t> &D) {
  const unsigned M = c.m, N = c.n, K = c.k;
  D.assign(size_t(M) * N, 0);
  bool isFloat = ta == Type::F16 || ta == Type::BF16 || ta == Type::TF32 || ta == Type::F64 ||
                 ta == Type::E4M3 || ta == Type::E5M2;
  // Scratch reused across calls: no allocation once a thread has run the
  // largest shape.
  thread_local std::vector<double> fa, fb;
  thread_local DecodedMatrix da, db;
  if (ta == Type::F64) {
    fa.resize(A.size()), fb.resize(B.size());
    for (size_t i = 0; i < A.size(); ++i) fa[i] = floatValue(A[i], ta);
    for (size_t i = 0; i < B.size(); ++i) fb[i] = floatValue(B[i], tb);
  } else if (isFloat) {
    da.assign(A.size()), db.assign(B.size());
    for (size_t i = 0; i < A.size(); ++i) da.set(i, decode(floatValue(A[i], ta)));
    for (unsigned kk = 0; kk < K; ++kk)
      for (unsigned j = 0; j < N; ++j)
        db.set(size_t(j) * K + kk, decode(floatValue(B[size_t(kk) * N + j], tb)));
  }
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      uint64_t cij = C[size_t(i) * N + j];
      uint64_t &dij = D[size_t(i) * N + j];
      if (ta == Type::F64) {
        double acc = as<double>(cij);
        for (unsigned kk = 0; kk < K; ++kk) acc = fma64(fa[size_t(i) * K + kk], fb[size_t(kk) * N + j], acc);
        dij = bitsOf<double>(acc);
      } else if (isFloat) {
        double cv = tc == Type::F16 ? fp::toDouble(cij, fp::kF16) : as<float>(cij);
        uint32_t r = 0;
        for (unsigned k0 = 0; k0 < K; k0 += sum.block) {
          r = fusedDot(da, size_t(i) * K + k0, db, size_t(j) * K + k0, std::min(sum.block, K - k0),
                       decode(cv), sum);
          cv = as<float>(r);
        }
        if (td == Type::F16)
          dij = r == 0x7FFFFFFFu ? 0x7FFFu : fp::fromDouble(as<float>(r), fp::kF16, fp::Round::Nearest);
        else
          dij = r;
      } else {
        int64_t acc = intValue(cij, Type::S32);
        for (unsigned kk = 0; kk < K; ++kk) {
          uint64_t av = A[size_t(i) * K + kk], bv = B[size_t(kk) * N + j];
          if (ta == Type::B1)
            acc += c.bitAnd ? (av & bv & 1) : ((av ^ bv) & 1);
          else
            acc += intValue(av, ta) * intValue(bv, tb);
        }
        if (satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        dij = static_cast<uint32_t>(acc);
      }
    }
}

} // namespace emu::tensor
