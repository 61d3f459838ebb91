// How much a value varies across the threads that compute it: the lattice of
// the divergence analysis, CTA-uniform < warp-uniform < divergent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace analysis {

/// WarpUniform: every lane of a warp that executes the instruction together
/// (in one issue) computes the same value. CtaUniform: warp-uniform, and for
/// every k, the k-th execution of the instruction computes the same value in
/// every thread of the CTA that executes it at least k times.
enum class Uniformity : uint8_t { CtaUniform = 0, WarpUniform = 1, Divergent = 2 };

inline Uniformity join(Uniformity a, Uniformity b) { return std::max(a, b); }
inline Uniformity meet(Uniformity a, Uniformity b) { return std::min(a, b); }

/// "cta-uniform", "warp-uniform", "divergent": the names used in JSON.
inline std::string_view uniformityName(Uniformity u) {
  switch (u) {
  case Uniformity::CtaUniform: return "cta-uniform";
  case Uniformity::WarpUniform: return "warp-uniform";
  case Uniformity::Divergent: return "divergent";
  }
  return "divergent";
}

} // namespace analysis
