// What the tensor-core instructions (mma.sync, wmma, wgmma: Tensor.cpp and
// Wgmma.cpp) share. Arithmetic, as measured on Hopper (tests/gpu/cases/tr_mma_*,
// tr_wgmma_*, tc_wmma_*_log; bit-exact on every recorded output): integer forms
// are exact (s32 wraps, or clamps with .satfinite). For f16, bf16 and tf32
// inputs the tensor core adds c and the K products of one step in one fused
// sum: each product is exact, its exponent taken as the sum of its factors'
// exponents; every term is truncated toward zero 25 bits below the largest
// such exponent; the sum is exact and rounded toward zero to f32 (and from
// there to nearest f16 for an f16 accumulator). tf32 operands ignore their 13
// low bits. fp8 (e4m3, e5m2; wgmma) keeps 13 bits below the largest exponent
// and rounds toward zero to 13 fraction bits. A NaN, an infinity times zero,
// or infinities of both signs give the canonical NaN. f64 is a chain of IEEE
// fma in k order.
#pragma once

#include "emulator/Semantics.h"
#include "emulator/semantics/TensorLayout.h"

#include <string>
#include <vector>

namespace emu::tensor {

/// What the modifiers of a tensor instruction say, read from its descriptor.
struct Config {
  unsigned m = 0, n = 0, k = 0;
  bool rowA = true, rowB = false; // mma: .row.col; wmma.mma: as written
  bool row = true;                // wmma.load/store: the memory layout
  ptx::Type types[4] = {ptx::Type::None, ptx::Type::None, ptx::Type::None, ptx::Type::None};
  unsigned numTypes = 0;
  bool bitAnd = false; // b1: .and.popc (else .xor.popc)
  bool trans = false;
  unsigned count = 1; // ldmatrix/stmatrix .x1/.x2/.x4
  bool m8n8 = false;  // ldmatrix/stmatrix/movmatrix .m8n8
};

/// The modifiers of a tensor instruction, read from its descriptor.
Config configOf(const Exec &x, const DInstr &in);
/// Bits of one element of a fragment of type t in a register.
unsigned elementBits(ptx::Type t);
/// mma.sync's fragments for shape c (PTX ISA); false for the shapes not modelled.
bool mmaFragments(const Config &c, ptx::Type ab, Fragment &a, Fragment &b, Fragment &acc);

/// Element e of lane l of a fragment held in the vector operand `v`.
uint64_t readElement(Exec &x, const DOp &v, const Fragment &f, unsigned lane, unsigned e);
/// Writes whole registers of lane l from its elements.
void writeElements(Exec &x, const DOp &v, const Fragment &f, unsigned lane, const uint64_t *elems);
/// Whether a fragment operand has the registers its layout needs.
bool enoughRegisters(const DOp &v, const Fragment &f);
/// The warp-wide tensor instructions need every lane of the warp; reports otherwise.
bool wholeWarp(Exec &x, const DInstr &in);
/// Reports that the instruction cannot be executed, and why.
void unsupported(Exec &x, const DInstr &in, const std::string &why);
/// A whole matrix from the warp's fragments (rows*cols raw elements), and back.
void gatherMatrix(Exec &x, const DOp &v, const Fragment &f, std::vector<uint64_t> &m);
void scatterMatrix(Exec &x, const DOp &v, const Fragment &f, const std::vector<uint64_t> &m);

/// The value of a raw floating-point element of type t.
double floatValue(uint64_t bits, ptx::Type t);
/// How a tensor core sums floating-point products: c and `block` products
/// per fused step, the terms truncated `alignBits` below the step's largest
/// exponent, the sum rounded toward zero (or to nearest) to `fractionBits`
/// (f32: 23).
struct FusedSum {
  unsigned block;
  int alignBits = 25, fractionBits = 23;
  bool nearest = false;
};

/// D = A*B + C over dense row-major matrices of raw elements (A: m x k,
/// B: k x n, C and D: m x n).
void multiply(const Config &c, ptx::Type ta, ptx::Type tb, ptx::Type tc, ptx::Type td, bool satfinite,
              FusedSum sum, const std::vector<uint64_t> &A, const std::vector<uint64_t> &B,
              const std::vector<uint64_t> &C, std::vector<uint64_t> &D);

} // namespace emu::tensor
