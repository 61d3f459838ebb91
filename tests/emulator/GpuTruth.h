// GpuTruth.h — the recorded side of GpuTruthTest.cpp: reading a tests/gpu/results .out file and
// the tolerances of the cases whose GPU results go through .approx instructions or contractions.
#pragma once

#include "tools/gpu-record/gpu_case.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace gputruth {

// ---- the recorded result --------------------------------------------------------------------

struct RecordedBuffer {
  std::string name, type;
  uint64_t count = 0;
  std::vector<std::string> elements; // as written by gpucase::formatElement
};

struct Recorded {
  std::map<std::string, std::string> fields; // first word -> rest of the line
  std::vector<RecordedBuffer> buffers;
  std::vector<std::string> printed; // the kernel's printf output (the stdout block), GPU order
  bool ended = false;
  std::string get(const std::string &key) const {
    auto it = fields.find(key);
    return it == fields.end() ? std::string() : it->second;
  }
};

inline Recorded parseOut(const std::string &text) {
  Recorded r;
  std::istringstream in(text);
  std::string line;
  RecordedBuffer *buf = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) == 0 || line == "|") { // printf output, verbatim ('#' included)
      r.printed.push_back(line.size() > 2 ? line.substr(2) : "");
      continue;
    }
    size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    std::vector<std::string> w = gpucase::splitWords(line);
    if (w.empty()) continue;
    if (w[0] == "end") {
      r.ended = true;
      buf = nullptr;
    } else if (w[0] == "buffer" && w.size() == 4) {
      RecordedBuffer b;
      b.name = w[1];
      b.type = w[2];
      b.count = std::stoull(w[3]);
      r.buffers.push_back(b);
      buf = &r.buffers.back();
    } else if (buf) {
      buf->elements.insert(buf->elements.end(), w.begin(), w.end());
    } else {
      std::string rest;
      for (size_t i = 1; i < w.size(); ++i) rest += (i > 1 ? " " : "") + w[i];
      r.fields.emplace(w[0], rest);
    }
  }
  return r;
}

// ---- tolerance for .approx instructions ----------------------------------------------------

/// Bound on |emulator - GPU| for element `index` of dumped buffer `buffer`,
/// whose recorded (GPU) value is `gpu`.
using Tolerance = std::function<double(const std::string &buffer, uint64_t index, double gpu)>;

inline float loadF32(const std::vector<uint8_t> &bytes, uint64_t i) {
  float f;
  std::memcpy(&f, bytes.data() + 4 * i, 4);
  return f;
}

/// Spacing of the floats of type `t` at magnitude m (the larger spacing at a
/// binade edge; the subnormal spacing below the normal range).
inline double ulpOf(double m, gpucase::Type t) {
  m = std::fabs(m);
  if (!std::isfinite(m)) return 0;
  int fraction = 52, minExp = -1022;
  if (t == gpucase::Type::F32) fraction = 23, minExp = -126;
  if (t == gpucase::Type::F16) fraction = 10, minExp = -14;
  if (t == gpucase::Type::BF16) fraction = 7, minExp = -126;
  if (m == 0) return std::ldexp(1.0, minExp - fraction);
  int e = 0;
  std::frexp(m, &e); // m in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, minExp) - fraction);
}

/// Spacing of the floats just above magnitude m (conservative at a binade edge).
inline double ulpAbove(double m) {
  m = std::fabs(m);
  float f = static_cast<float>(m);
  if (static_cast<double>(f) < m) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return static_cast<double>(std::nextafter(f, std::numeric_limits<float>::infinity())) - f;
}

/// `compare ulp N [abs E]` for a case without a model of its own below: each
/// element within N units in the last place of the GPU's value (in the
/// buffer's own float type), or within E absolutely, whichever is larger;
/// with `tolerate` lines only the elements they name (with the line's own N
/// and E where it gives them), the others bit-exact. The
/// case file says why its kernel needs it (which .approx instructions, or
/// which unrounded mul/add pairs ptxas may contract) and why N and E bound
/// the difference; see the cases that use it.
inline std::optional<Tolerance> genericTolerance(const gpucase::Case &c) {
  if (c.compareUlp <= 0) return std::nullopt;
  std::map<std::string, gpucase::Type> types;
  for (const gpucase::Arg &a : c.args) types[a.name] = a.type;
  return Tolerance([c, types](const std::string &buffer, uint64_t index, double gpu) {
    auto it = types.find(buffer);
    if (it == types.end()) return 0.0;
    const auto [ulps, absolute] = c.tolerance(buffer, index);
    return std::max(ulps * ulpOf(gpu, it->second), absolute);
  });
}

/// Tolerances, ONLY for the cases whose result goes through an .approx
/// instruction; every other case is compared bit for bit (if another float
/// case ever differs because ptxas contracted a mul/add without rounding
/// modifier, give it an error model here like flt_f32_basic's):
///
/// flt_f32_basic (kernel f32_basic, kernels/float_arith.cu, PTX pinned by
///   ptx_sha256). Two things make the GPU's bits one of several right answers:
///   - rsqrtf() is `rsqrt.approx.f32`, whose maximum relative error the PTX
///     ISA states as 2^-22.9 over the full range. The GPU's value and the
///     emulator's value of r = rsqrt(|y| + 1) (%f16) are both within that of the
///     exact value, so they differ by at most d16 = 2 * 2^-22.9 * r.
///   - `mul.f32 %f5, %f3, %f4; sub.f32 %f6, %f5, %f2;` (r * z - x) carry no
///     rounding modifier, and the PTX ISA (add, mul) allows the code generator
///     to contract such mul/add sequences into a fused multiply-add; ptxas did
///     on the H100 (with fma(x + y, z, -x) and a correctly rounded rsqrt, a host
///     model reproduces 499 of the 500 recorded values bit for bit; the 500th is
///     2 ulp off, which is the rsqrt.approx error). Fused and unfused differ by
///     at most the product's rounding error, half an ulp of |%f5|, plus one ulp
///     of the rounded difference: d6 = ulp(|f5|)/2 + ulp(|f6| + ...).
///   Every other instruction of the kernel is IEEE (fma.rn, div.rn, sqrt.rn,
///   rcp.rn, add, min/max, copysign), so d6 and d16 only travel through the
///   roundings after them: each add rounds both versions to nearest, which adds
///   at most one ulp of the sum (d' = d + ulp(|sum| + 2d)), and
///   `r += copysignf(r, y)` doubles the difference (or collapses both to 0).
///   The bound is computed per element from the regenerated inputs (host float
///   arithmetic for the magnitudes): |emulator - GPU| <= d27 below: a few ulp
///   of the largest intermediate (x / y can be large), at most 3e-3 for these
///   inputs, ~1.7e-5 of |out| on average.
///
/// flt_f32_rounding also contains rsqrt.approx.ftz.f32, but only as the seed of
///   __frsqrt_rn's Newton step, whose result is correctly rounded (round to
///   nearest even) whatever the seed within the ISA bound; its adds and muls all
///   carry explicit rounding modifiers: it is compared exactly.
inline std::optional<Tolerance> approxTolerance(const gpucase::Case &c,
                                                const std::vector<std::vector<uint8_t>> &inputs) {
  if (c.name != "flt_f32_basic") return genericTolerance(c);
  if (c.kernel != "f32_basic" || inputs.size() < 3) return std::nullopt;
  const double eps = std::exp2(-22.9); // PTX ISA, rsqrt: max relative error of rsqrt.approx.f32
  std::vector<double> bound(inputs[0].size() / 4);
  auto round = [](double d, float v) { return d + ulpAbove(std::fabs(v) + 2 * d); };
  for (uint64_t i = 0; i < bound.size(); ++i) {
    float x = loadF32(inputs[0], i), y = loadF32(inputs[1], i), z = loadF32(inputs[2], i);
    float f3 = x + y, f5 = f3 * z, f6 = f5 - x, f7 = std::fma(x, y, z), f8 = f7 + f6;
    float f9 = x / y, f10 = f9 + f8, f12 = std::sqrt(std::fabs(x)), f13 = f12 + f10;
    float f15 = std::fabs(y) + 1.0f;
    double r = 1.0 / std::sqrt(static_cast<double>(f15));
    float f16 = static_cast<float>(r), f17 = f13 + f16;
    float f18 = 1.0f / z, f19 = f18 + f17, f22 = std::fmin(x, y) + std::fmax(y, z), f23 = f19 + f22;
    float f25 = f23 + std::copysign(f23, y), f27 = f25 - std::fabs(z);
    double d6 = round(ulpAbove(f5) / 2, f6); // mul+sub, fused or not
    double d13 = round(round(round(d6, f8), f10), f13);
    double d16 = 2 * eps * r * (1 + 0x1p-20); // rsqrt.approx.f32, GPU vs emulator
    double d23 = round(round(round(d13 + d16, f17), f19), f23);
    double d27 = round(2 * d23, f27);
    bound[i] = d27;
  }
  return Tolerance([bound](const std::string &buffer, uint64_t index, double) {
    return buffer == "out" && index < bound.size() ? bound[index] : 0.0;
  });
}

} // namespace gputruth
