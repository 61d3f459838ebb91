// wgmma (sm_90a): warpgroup matrix multiply-accumulate. Four consecutive warps
// form a warpgroup; warp w of it owns rows 16w..16w+15 of the m64 tile, so each
// warp computes its own rows when it executes wgmma.mma_async (A rows from its
// registers or from shared memory through a descriptor, all of B through a
// descriptor). The result is in the registers when the instruction returns:
// wgmma.commit_group / wait_group have nothing left to wait for, and reading
// the accumulators before the wait is undefined in the PTX ISA anyway.
//
// Shared-memory layouts, as an H200 reads them (tests/gpu/cases/tr_wgmma_layout_*):
// a descriptor holds start address, leading (LBO) and stride (SBO) byte offsets
// (each >> 4, 14 bits) and a swizzle mode. With r the M/N index and T the element
// bytes, a K-major operand without swizzle is made of 8x16-byte core matrices:
//   (r/8)*SBO + (r%8)*16 + (kT/16)*LBO + kT%16,
// and MN-major (imm-trans = 1) the transpose, LBO stepping k by 8 and SBO r:
//   (k/8)*LBO + (k%8)*16 + (rT/16)*SBO + rT%16.
// A swizzle of S = 32, 64 or 128 bytes makes rows of S bytes, 8 per SBO:
//   K-major (r/8)*SBO + (r%8)*S + kT,  MN-major (k/8)*SBO + (k%8)*S + (rT/S)*LBO + rT%S,
// and XORs address bits [4, 4+log2(S/16)) with bits [7, 7+log2(S/16)) of the
// shared address. (One instruction's K spans 32 bytes, within one swizzled
// K-major row; a K-major LBO step per S bytes is assumed, never observed. The
// descriptor's base-offset field is ignored: the swizzle uses the address
// itself, which is right for operands aligned to their swizzle pattern.)
#include "emulator/semantics/TensorCore.h"
#include "ptx/Writer.h"

#include <charconv>

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;
using namespace tensor;

const DOp &opnd(const Exec &x, const DInstr &in, unsigned i) { return x.kernel().op(in, i); }

/// The shared address of element (r, k) of an operand described by `desc`
/// (r: the row of A or the column of B).
uint64_t descriptorAddress(uint64_t desc, unsigned r, unsigned k, unsigned bytes, bool mnMajor) {
  uint64_t start = (desc & 0x3FFF) << 4, lbo = (desc >> 16 & 0x3FFF) << 4, sbo = (desc >> 32 & 0x3FFF) << 4;
  static constexpr unsigned kWidth[4] = {0, 128, 64, 32};
  unsigned swizzle = kWidth[desc >> 62];
  uint64_t off;
  if (!mnMajor) {
    uint64_t kb = uint64_t(k) * bytes;
    off = swizzle ? (r / 8) * sbo + (r % 8) * swizzle + (kb / swizzle) * lbo + kb % swizzle
                  : (r / 8) * sbo + (r % 8) * 16 + (kb / 16) * lbo + kb % 16;
  } else {
    uint64_t rb = uint64_t(r) * bytes;
    off = swizzle ? (k / 8) * sbo + (k % 8) * swizzle + (rb / swizzle) * lbo + rb % swizzle
                  : (k / 8) * lbo + (k % 8) * 16 + (rb / 16) * sbo + rb % 16;
  }
  uint64_t a = start + off;
  if (swizzle) a ^= ((a >> 7) & (swizzle / 16 - 1)) << 4;
  return a;
}

/// Loads rows x cols raw elements of an operand from shared memory;
/// `pos(i, j)` gives the (r, k) descriptor coordinates of element (i, j).
template <typename Pos>
bool loadOperand(Exec &x, uint64_t desc, unsigned rows, unsigned cols, unsigned bytes, bool mnMajor, Pos pos,
                 std::vector<uint64_t> &m) {
  m.assign(size_t(rows) * cols, 0);
  for (unsigned i = 0; i < rows; ++i)
    for (unsigned j = 0; j < cols; ++j) {
      unsigned r, k;
      pos(i, j, r, k);
      uint64_t v = 0;
      if (!loadBytes(x, Space::Shared, descriptorAddress(desc, r, k, bytes, mnMajor), bytes, 0, &v))
        return false;
      m[size_t(i) * cols + j] = v;
    }
  return true;
}

/// The accumulator fragment of one warp: element i of lane l is row
/// g + 8*((i >> 1) & 1), column 8*(i/4) + 2t + (i & 1) of its 16 rows.
void accumulatorPosition(unsigned lane, unsigned i, unsigned &row, unsigned &col) {
  unsigned g = lane >> 2, t = lane & 3;
  row = g + 8 * ((i >> 1) & 1);
  col = 8 * (i / 4) + 2 * t + (i & 1);
}

uint64_t signBit(Type t) {
  switch (t) {
  case Type::F16:
  case Type::BF16: return 1ull << 15;
  case Type::E4M3:
  case Type::E5M2: return 1ull << 7;
  default: return 1ull << 31; // tf32
  }
}

/// wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a-desc|{a}, b-desc, scale-d
///   {, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}}
void wgmmaMmaAsync(Exec &x, const DInstr &in) {
  if (!wholeWarp(x, in)) return;
  const ptx::InstrDesc &desc = x.kernel().desc(in);
  unsigned n = 0, k = 0;
  bool satfinite = in.mods & dmod::SatFinite;
  for (Mod m : desc.modifiers()) {
    std::string_view s = ptx::spelling(m);
    if (s.size() < 6 || s.substr(0, 4) != "m64n") continue;
    size_t kPos = s.find('k');
    std::from_chars(s.data() + 4, s.data() + kPos, n);
    std::from_chars(s.data() + kPos + 1, s.data() + s.size(), k);
  }
  Type td = desc.type(0), ta = desc.type(1), tb = desc.type(2);
  if (n == 0 || k == 0 || ta == Type::B1)
    return unsupported(x, in, "this shape or type (b1 is not modelled)");
  bool isFloat = td != Type::S32;
  bool halfTypes = ta == Type::F16 || ta == Type::BF16;
  const DOp &d = opnd(x, in, 0), &a = opnd(x, in, 1), &b = opnd(x, in, 2);
  bool aRegs = a.kind == DOp::Vec;
  auto imm = [&](unsigned i) {
    return i < in.numOps ? static_cast<int32_t>(readOperand(x, opnd(x, in, i), 0)) : 0;
  };
  bool scaleD = readOperand(x, opnd(x, in, 3), 0) & 1;
  int scaleA = isFloat ? imm(4) : 1, scaleB = isFloat ? imm(5) : 1;
  bool transA = halfTypes && !aRegs && imm(6), transB = halfTypes && imm(aRegs ? 6 : 7);
  unsigned bytes = elementBits(ta) / 8, dBits = elementBits(td);
  unsigned warpRow = 16 * (x.warp.index % 4);

  Config c;
  c.m = 16, c.n = n, c.k = k;
  thread_local std::vector<uint64_t> A, B, C, D; // scratch, reused
  C.assign(size_t(16) * n, 0);
  if (aRegs) {
    Fragment fa, fb, fc;
    Config ca = c;
    ca.n = 8;
    if (!mmaFragments(ca, ta, fa, fb, fc) || !enoughRegisters(a, fa))
      return unsupported(x, in, "its A registers do not match the shape");
    gatherMatrix(x, a, fa, A);
  } else {
    uint64_t descA = readOperand(x, a, 0);
    auto pos = [&](unsigned i, unsigned j, unsigned &r, unsigned &kk) { r = warpRow + i, kk = j; };
    if (!loadOperand(x, descA, 16, k, bytes, transA, pos, A)) return;
  }
  uint64_t descB = readOperand(x, b, 0);
  auto posB = [&](unsigned i, unsigned j, unsigned &r, unsigned &kk) { r = j, kk = i; };
  if (!loadOperand(x, descB, k, n, bytes, transB, posB, B)) return;
  if (scaleA < 0)
    for (uint64_t &v : A) v ^= signBit(ta);
  if (scaleB < 0)
    for (uint64_t &v : B) v ^= signBit(tb);

  unsigned per = dBits >= 32 ? 1 : 32 / dBits, elements = n / 2;
  if (d.kind != DOp::Vec || d.count < elements / per)
    return unsupported(x, in, "too few accumulator registers");
  auto reg = [&](unsigned i) -> const DOp & { return x.kernel().ops[d.reg + i / per]; };
  uint64_t mask = dBits >= 64 ? ~0ull : (1ull << dBits) - 1;
  if (scaleD)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < elements; ++i) {
        unsigned row, col;
        accumulatorPosition(lane, i, row, col);
        C[size_t(row) * n + col] = readOperand(x, reg(i), lane) >> ((i % per) * dBits) & mask;
      }
  // Every type sums the K products of one instruction in one fused step;
  // fp8 keeps 13 bits below the largest exponent and 13 fraction bits
  // (measured: tests/gpu/cases/tr_wgmma_*; TensorCore.h).
  bool fp8 = ta == Type::E4M3 || ta == Type::E5M2;
  multiply(c, ta, tb, td, td, satfinite, fp8 ? FusedSum{k, 13, 13} : FusedSum{k}, A, B, C, D);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned r = 0; r < elements / per; ++r) {
      uint64_t word = 0;
      for (unsigned e = 0; e < per; ++e) {
        unsigned row, col;
        accumulatorPosition(lane, r * per + e, row, col);
        word |= (D[size_t(row) * n + col] & mask) << (e * dBits);
      }
      writeOperand(x, reg(r * per), lane, word);
    }
}

/// wgmma.fence, wgmma.commit_group, wgmma.wait_group: wgmma.mma_async
/// completes when it executes, so there is nothing to order or wait for.
void wgmmaNothingToWait(Exec &x, const DInstr &in) { wholeWarp(x, in); }

constexpr HandlerRow kRows[] = {
    row(Opcode::WgmmaMmaAsync, tclass::All, wgmmaMmaAsync),
    row(Opcode::WgmmaFence, tclass::All, wgmmaNothingToWait),
    row(Opcode::WgmmaCommitGroup, tclass::All, wgmmaNothingToWait),
    row(Opcode::WgmmaWaitGroup, tclass::All, wgmmaNothingToWait),
};

} // namespace

std::span<const HandlerRow> wgmmaHandlers() { return kRows; }

} // namespace emu
