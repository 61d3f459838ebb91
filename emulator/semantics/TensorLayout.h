// Fragment layouts of the tensor-core instructions (mma.sync, wmma.load/store/mma):
// which element of which matrix each register of each lane holds. The mma.sync
// layouts are the PTX ISA's fragment tables; the wmma ones (unspecified by the
// ISA) were read off an H200 by the tests/gpu/cases/tr_wmma_ld* probes. Every
// layout is a base position per lane plus one (row, col) step per bit of the
// element index, so a layout is a row of data rather than code.
#pragma once

#include <cstdint>

namespace emu::tensor {

struct Fragment {
  uint16_t rows = 0, cols = 0; // the matrix the fragment holds (A: MxK, B: KxN, C/D: MxN)
  uint8_t elemBits = 0;        // bits of one element in a register: 1, 4, 8, 16, 32 or 64
  // Base of lane l, with g = l / 4 and t = l % 4: (g*rowG + t*rowT, g*colG + t*colT).
  uint8_t rowG = 0, rowT = 0, colG = 0, colT = 0;
  uint8_t numSteps = 0;    // elements per lane: 1 << numSteps (wmma f16 holds some twice)
  uint8_t step[8][2] = {}; // bit i of the element index adds (step[i][0], step[i][1])

  unsigned elements() const { return 1u << numSteps; }
  /// Elements packed in one register (registers hold 32 bits, or one f64).
  unsigned perRegister() const { return elemBits >= 32 ? 1 : 32 / elemBits; }
  unsigned registers() const { return elements() / perRegister(); }
  void position(unsigned lane, unsigned e, unsigned &row, unsigned &col) const {
    unsigned g = lane >> 2, t = lane & 3;
    row = g * rowG + t * rowT;
    col = g * colG + t * colT;
    for (unsigned i = 0; i < numSteps; ++i)
      if (e >> i & 1) row += step[i][0], col += step[i][1];
  }
};

/// A fragment with lanes' groups along the rows and each lane's elements
/// packed along the columns (A of mma and wmma): base (g, t*w) for w
/// elements per 32-bit register, then `more` steps (dr, dc).
template <unsigned N>
constexpr Fragment rowFragment(unsigned rows, unsigned cols, unsigned elemBits, const uint8_t (&more)[N][2]) {
  Fragment f;
  f.rows = static_cast<uint16_t>(rows), f.cols = static_cast<uint16_t>(cols),
  f.elemBits = static_cast<uint8_t>(elemBits);
  unsigned w = elemBits >= 32 ? 1 : 32 / elemBits;
  f.rowG = 1, f.colT = static_cast<uint8_t>(w);
  for (unsigned s = 1; s < w; s *= 2) f.step[f.numSteps][1] = static_cast<uint8_t>(s), ++f.numSteps;
  for (unsigned i = 0; i < N; ++i) {
    f.step[f.numSteps][0] = more[i][0], f.step[f.numSteps][1] = more[i][1];
    ++f.numSteps;
  }
  return f;
}
constexpr Fragment rowFragment(unsigned rows, unsigned cols, unsigned elemBits) {
  const uint8_t none[1][2] = {};
  Fragment f = rowFragment(rows, cols, elemBits, none);
  --f.numSteps;
  return f;
}

/// The transpose of rowFragment's pattern (B of mma and wmma): base (t*w, g),
/// packed elements along the rows.
template <unsigned N>
constexpr Fragment colFragment(unsigned rows, unsigned cols, unsigned elemBits, const uint8_t (&more)[N][2]) {
  uint8_t swapped[N][2] = {};
  for (unsigned i = 0; i < N; ++i) swapped[i][0] = more[i][1], swapped[i][1] = more[i][0];
  Fragment t = rowFragment(cols, rows, elemBits, swapped), f = t;
  f.rows = t.cols, f.cols = t.rows;
  f.rowG = t.colG, f.rowT = t.colT, f.colG = t.rowG, f.colT = t.rowT;
  for (unsigned i = 0; i < t.numSteps; ++i) f.step[i][0] = t.step[i][1], f.step[i][1] = t.step[i][0];
  return f;
}
constexpr Fragment colFragment(unsigned rows, unsigned cols, unsigned elemBits) {
  const uint8_t none[1][2] = {};
  Fragment f = colFragment(rows, cols, elemBits, none);
  --f.numSteps;
  return f;
}

/// Accumulator fragments (C and D): base (g, 2t), element bit 0 steps one
/// column, then `more`; whatever the element width.
template <unsigned N>
constexpr Fragment accFragment(unsigned rows, unsigned cols, unsigned elemBits, const uint8_t (&more)[N][2]) {
  Fragment f;
  f.rows = static_cast<uint16_t>(rows), f.cols = static_cast<uint16_t>(cols),
  f.elemBits = static_cast<uint8_t>(elemBits);
  f.rowG = 1, f.colT = 2;
  f.step[0][1] = 1;
  f.numSteps = 1;
  for (unsigned i = 0; i < N; ++i) {
    f.step[f.numSteps][0] = more[i][0], f.step[f.numSteps][1] = more[i][1];
    ++f.numSteps;
  }
  return f;
}

} // namespace emu::tensor
