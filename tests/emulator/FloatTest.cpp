// Floating-point arithmetic on the emulator, bit for bit against the host:
// host IEEE arithmetic under fesetround for f32/f64, an independent software
// reference for f16/bf16 (exact sums as double pairs, rounded by search).
#include "tests/emulator/Harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace ptxvm::test;

namespace {

// ---- Running one instruction over arrays ----

/// Runs `body` (reads %a, %b, %c; writes %d) once per element. Sources are
/// registers of type `inReg` loaded from arrays of In, %d of type `outReg`
/// stored to an array of Out.
template <typename Out, typename In>
std::vector<Out> launch(const std::string &inReg, const std::string &outReg, const std::string &body,
                        const std::vector<In> &a, const std::vector<In> &b = {},
                        const std::vector<In> &c = {}) {
  const size_t n = a.size();
  auto pad = [&](const std::vector<In> &v) { return v.empty() ? std::vector<In>(n) : v; };
  std::string is = std::to_string(sizeof(In)), os = std::to_string(sizeof(Out));
  std::string ptx = R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 n)
{
  .reg .pred %p, %q;
  .reg .b32 %i, %t<4>;
  .reg .b64 %x<8>;
  .reg .)" + inReg + R"( %a, %b, %c;
  .reg .)" + outReg +
                    R"( %d;
  mov.u32 %t1, %ctaid.x;
  mov.u32 %t2, %ntid.x;
  mov.u32 %t3, %tid.x;
  mad.lo.u32 %i, %t1, %t2, %t3;
  ld.param.u32 %t1, [n];
  setp.ge.u32 %p, %i, %t1;
  @%p bra DONE;
  mul.wide.u32 %x0, %i, )" +
                    is + R"(;
  ld.param.u64 %x1, [pa];
  add.u64 %x1, %x1, %x0;
  ld.global.)" + inReg +
                    R"( %a, [%x1];
  ld.param.u64 %x1, [pb];
  add.u64 %x1, %x1, %x0;
  ld.global.)" + inReg +
                    R"( %b, [%x1];
  ld.param.u64 %x1, [pc];
  add.u64 %x1, %x1, %x0;
  ld.global.)" + inReg +
                    R"( %c, [%x1];
  )" + body + R"(
  mul.wide.u32 %x0, %i, )" +
                    os + R"(;
  ld.param.u64 %x1, [pd];
  add.u64 %x1, %x1, %x0;
  st.global.)" + outReg +
                    R"( [%x1], %d;
DONE:
  ret;
}
)";
  std::vector<Out> d(n);
  EmuRun r = runKernel(
      ptxModule(ptx, "sm_90", "8.6"), "k", {uint32_t((n + 127) / 128)}, {128},
      {Arg::array(pad(a)), Arg::array(pad(b)), Arg::array(pad(c)), Arg::array(d), Arg::scalar(uint32_t(n))});
  EXPECT_TRUE(r.result.ok) << body << "\n" << r.diags.renderText();
  if (!r.result.ok) return std::vector<Out>(n);
  return r.buffer<Out>(3);
}

// ---- Inputs ----

template <typename T> using UOf = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
template <typename T> T fromBits(UOf<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
template <typename T> UOf<T> toBits(T v) {
  UOf<T> b;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

/// Edge values plus random ones (random bit patterns and random values of
/// moderate size, so that sums and products interact), fixed seed.
template <typename T> std::vector<T> values(size_t n, uint32_t seed) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      -T(0),
                      T(1),
                      T(-1),
                      T(0.5),
                      T(1.5),
                      T(2.5),
                      T(-2.5),
                      L::infinity(),
                      -L::infinity(),
                      L::quiet_NaN(),
                      L::min(),
                      -L::min(),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::max(),
                      -L::max(),
                      L::epsilon(),
                      T(1) + L::epsilon(),
                      T(3),
                      T(1) / T(3),
                      L::min() / 2,
                      -L::min() * T(0.75),
                      T(1e10)};
  std::mt19937_64 rng(seed);
  while (v.size() < n) {
    switch (rng() % 3) {
    case 0: v.push_back(fromBits<T>(UOf<T>(rng()))); break;
    case 1:
      v.push_back(T(std::ldexp(double(int64_t(rng() % 2000001) - 1000000), int(rng() % 40) - 20)));
      break;
    default:
      v.push_back(std::ldexp(T(rng() % (1u << 20)) + T(1), int(rng() % 300) - 150) * ((rng() & 1) ? 1 : -1));
    }
  }
  v.resize(n);
  return v;
}
template <typename T> std::vector<T> shuffled(std::vector<T> v, uint32_t seed) {
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

// ---- Host reference for f32/f64 ----

const char *modName(int mode) {
  return mode == FE_TOWARDZERO ? "rz" : mode == FE_DOWNWARD ? "rm" : mode == FE_UPWARD ? "rp" : "rn";
}
constexpr int kModes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

template <typename T> T flushed(T v, bool ftz) {
  return ftz && v != 0 && std::fabs(v) < std::numeric_limits<T>::min() ? std::copysign(T(0), v) : v;
}

/// The NaN an f64 instruction returns (measured on H100; PTX leaves it
/// unspecified): a NaN operand, quieted - b's before the others (a's for
/// div), then the later ones first - or 0xFFF8000000000000 when no operand
/// is NaN (an invalid operation).
uint64_t f64NaN(const std::string &instr, double a, double b, double c) {
  int operands = int(std::count(instr.begin(), instr.end(), '%')) - 1;
  const double v[3] = {a, b, c};
  int first = instr.rfind("div", 0) == 0 ? 0 : operands > 1 ? 1 : 0;
  auto quieted = [](double x) { return toBits(x) | 0x0008000000000000ull; };
  if (std::isnan(v[first])) return quieted(v[first]);
  for (int i = operands - 1; i >= 0; --i)
    if (std::isnan(v[i])) return quieted(v[i]);
  return 0xFFF8000000000000ull;
}

/// What the PTX instruction should give, as bits: the host result under
/// `mode`, with .ftz and .sat; an f32 NaN is canonical, an f64 one follows
/// f64NaN.
template <typename T>
UOf<T> expected(const std::string &instr, const std::function<T(T, T, T)> &f, T a, T b, T c, int mode,
                bool ftz, bool sat) {
  volatile T va = flushed(a, ftz), vb = flushed(b, ftz), vc = flushed(c, ftz);
  std::fesetround(mode);
  volatile T r = f(va, vb, vc);
  std::fesetround(FE_TONEAREST);
  T x = flushed(T(r), ftz);
  if (sat) x = !(x > 0) ? T(0) : x > 1 ? T(1) : x;
  if (x != x) return sizeof(T) == 4 ? UOf<T>(0x7FFFFFFFu) : UOf<T>(f64NaN(instr, a, b, c));
  return toBits(x);
}

template <typename T>
void checkOp(const std::string &instr, const std::function<T(T, T, T)> &f, int mode, bool ftz, bool sat,
             size_t n = 600) {
  std::string ty = sizeof(T) == 4 ? "f32" : "f64";
  auto a = values<T>(n, 1), b = shuffled(values<T>(n, 2), 3), c = shuffled(values<T>(n, 4), 5);
  auto d = launch<UOf<T>, T>(ty, ty, instr, a, b, c);
  for (size_t i = 0; i < n; ++i) {
    UOf<T> want = expected<T>(instr, f, a[i], b[i], c[i], mode, ftz, sat);
    ASSERT_EQ(d[i], want) << instr << " a=" << a[i] << " b=" << b[i] << " c=" << c[i] << " (" << std::hexfloat
                          << a[i] << ", " << b[i] << ", " << c[i] << ")";
  }
}

template <typename T> void checkBasicOps(bool withFtzSat) {
  std::string ty = sizeof(T) == 4 ? ".f32" : ".f64";
  using Fn = std::function<T(T, T, T)>;
  const std::pair<std::string, Fn> ops[] = {
      {"add", [](T a, T b, T) { return a + b; }},
      {"sub", [](T a, T b, T) { return a - b; }},
      {"mul", [](T a, T b, T) { return a * b; }},
      {"fma", [](T a, T b, T c) { return std::fma(a, b, c); }},
      {"mad", [](T a, T b, T c) { return std::fma(a, b, c); }},
      {"div", [](T a, T b, T) { return a / b; }},
  };
  for (int mode : kModes) {
    for (const auto &[name, f] : ops) {
      bool three = name == "fma" || name == "mad";
      std::string operands = three ? " %d, %a, %b, %c;" : " %d, %a, %b;";
      std::string base = name + "." + modName(mode);
      checkOp<T>(base + ty + operands, f, mode, false, false);
      if (!withFtzSat) continue;
      checkOp<T>(base + ".ftz" + ty + operands, f, mode, true, false);
      if (name != "div") checkOp<T>(base + ".ftz.sat" + ty + operands, f, mode, true, true);
      if (name != "div") checkOp<T>(base + ".sat" + ty + operands, f, mode, false, true);
    }
  }
}

TEST(EmulatorFloat, F32ArithmeticInEveryRoundingMode) { checkBasicOps<float>(true); }

TEST(EmulatorFloat, F64ArithmeticInEveryRoundingMode) { checkBasicOps<double>(false); }

TEST(EmulatorFloat, DefaultRoundingIsNearestEven) {
  checkOp<float>(
      "add.f32 %d, %a, %b;", [](float a, float b, float) { return a + b; }, FE_TONEAREST, false, false);
  checkOp<float>(
      "mul.ftz.f32 %d, %a, %b;", [](float a, float b, float) { return a * b; }, FE_TONEAREST, true, false);
  checkOp<double>(
      "sub.f64 %d, %a, %b;", [](double a, double b, double) { return a - b; }, FE_TONEAREST, false, false);
}

TEST(EmulatorFloat, SqrtAndRcpInEveryRoundingMode) {
  for (int mode : kModes) {
    std::string m = modName(mode);
    checkOp<float>(
        "sqrt." + m + ".f32 %d, %a;", [](float a, float, float) { return std::sqrt(a); }, mode, false, false);
    checkOp<float>(
        "sqrt." + m + ".ftz.f32 %d, %a;", [](float a, float, float) { return std::sqrt(a); }, mode, true,
        false);
    checkOp<float>(
        "rcp." + m + ".f32 %d, %a;", [](float a, float, float) { return 1.0f / a; }, mode, false, false);
    checkOp<double>(
        "sqrt." + m + ".f64 %d, %a;", [](double a, double, double) { return std::sqrt(a); }, mode, false,
        false);
    checkOp<double>(
        "rcp." + m + ".f64 %d, %a;", [](double a, double, double) { return 1.0 / a; }, mode, false, false);
  }
}

/// Exact bit operations: the reference is written out per case.
template <typename T> void checkBits(const std::string &instr, const std::function<UOf<T>(T, T)> &want) {
  std::string ty = sizeof(T) == 4 ? "f32" : "f64";
  auto a = values<T>(400, 7), b = shuffled(values<T>(400, 8), 9);
  auto d = launch<UOf<T>, T>(ty, ty, instr, a, b);
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(d[i], want(a[i], b[i])) << instr << " " << std::hexfloat << a[i] << ", " << b[i];
}

/// The NaN min/max give: canonical for f32; for f64 (measured on H100) b's
/// NaN quieted, else a's.
template <typename T> UOf<T> minMaxNaN(T a, T b) {
  if constexpr (sizeof(T) == 4)
    return UOf<T>(0x7FFFFFFFu);
  else
    return toBits(std::isnan(b) ? b : a) | 0x0008000000000000ull;
}

/// min/max: a NaN input is ignored; -0 < +0; .NaN propagates a NaN.
template <typename T> UOf<T> refMinMax(T a, T b, bool isMax, bool nanMode) {
  if (std::isnan(a) && std::isnan(b)) return minMaxNaN(a, b);
  if (std::isnan(a) || std::isnan(b)) return nanMode ? minMaxNaN(a, b) : toBits(std::isnan(a) ? b : a);
  if (a == 0 && b == 0) return toBits(std::signbit(a) != isMax ? a : b);
  return toBits(isMax ? std::max(a, b) : std::min(a, b));
}

TEST(EmulatorFloat, MinMaxAbsNegCopysign) {
  checkBits<float>("min.f32 %d, %a, %b;", [](float a, float b) { return refMinMax(a, b, false, false); });
  checkBits<float>("max.f32 %d, %a, %b;", [](float a, float b) { return refMinMax(a, b, true, false); });
  checkBits<float>("min.NaN.f32 %d, %a, %b;", [](float a, float b) { return refMinMax(a, b, false, true); });
  checkBits<float>("max.NaN.f32 %d, %a, %b;", [](float a, float b) { return refMinMax(a, b, true, true); });
  checkBits<float>("min.ftz.f32 %d, %a, %b;", [](float a, float b) {
    return refMinMax(flushed(a, true), flushed(b, true), false, false);
  });
  checkBits<double>("min.f64 %d, %a, %b;", [](double a, double b) { return refMinMax(a, b, false, false); });
  checkBits<double>("max.f64 %d, %a, %b;", [](double a, double b) { return refMinMax(a, b, true, false); });
  checkBits<float>("max.xorsign.abs.f32 %d, %a, %b;", [](float a, float b) {
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) && std::isnan(b) ? minMaxNaN(a, b)
                                            : (refMinMax(std::fabs(a), std::fabs(b), true, false) |
                                               ((toBits(a) ^ toBits(b)) & 0x80000000u));
    return refMinMax(std::fabs(a), std::fabs(b), true, false) | ((toBits(a) ^ toBits(b)) & 0x80000000u);
  });
  // abs and neg of a NaN: the canonical NaN for f32, the NaN unchanged for
  // f64 (measured on H100).
  checkBits<float>("abs.f32 %d, %a;",
                   [](float a, float) { return std::isnan(a) ? 0x7FFFFFFFu : toBits(a) & 0x7FFFFFFFu; });
  checkBits<float>("neg.f32 %d, %a;",
                   [](float a, float) { return std::isnan(a) ? 0x7FFFFFFFu : toBits(a) ^ 0x80000000u; });
  checkBits<float>("abs.ftz.f32 %d, %a;", [](float a, float) {
    return std::isnan(a) ? 0x7FFFFFFFu : toBits(flushed(a, true)) & 0x7FFFFFFFu;
  });
  checkBits<double>("neg.f64 %d, %a;",
                    [](double a, double) { return std::isnan(a) ? toBits(a) : toBits(a) ^ (1ull << 63); });
  checkBits<double>("abs.f64 %d, %a;",
                    [](double a, double) { return std::isnan(a) ? toBits(a) : toBits(a) & ~(1ull << 63); });
  checkBits<float>("copysign.f32 %d, %a, %b;",
                   [](float a, float b) { return (toBits(a) & 0x80000000u) | (toBits(b) & 0x7FFFFFFFu); });
  checkBits<double>("copysign.f64 %d, %a, %b;", [](double a, double b) {
    return (toBits(a) & (1ull << 63)) | (toBits(b) & ~(1ull << 63));
  });
}

TEST(EmulatorFloat, Testp) {
  auto a = values<float>(300, 11);
  auto ad = values<double>(300, 12);
  const std::pair<const char *, std::function<bool(double, bool)>> tests[] = {
      {"finite", [](double v, bool) { return std::isfinite(v); }},
      {"infinite", [](double v, bool) { return std::isinf(v); }},
      {"number", [](double v, bool) { return !std::isnan(v); }},
      {"notanumber", [](double v, bool) { return std::isnan(v); }},
      // H100 tests ±0 as normal (tests/gpu/cases/flt_float_compare).
      {"normal",
       [](double v, bool f32) {
         return v == 0 || (std::isfinite(v) && std::fabs(v) >= (f32 ? 0x1p-126 : 0x1p-1022));
       }},
      {"subnormal", [](double v, bool f32) { return v != 0 && std::fabs(v) < (f32 ? 0x1p-126 : 0x1p-1022); }},
  };
  for (const auto &[name, f] : tests) {
    std::string n = name;
    auto d =
        launch<uint32_t, float>("f32", "b32", "testp." + n + ".f32 %q, %a;\n  selp.u32 %d, 1, 0, %q;", a);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(d[i], f(a[i], true) ? 1u : 0u) << n << " " << a[i];
    auto dd =
        launch<uint32_t, double>("f64", "b32", "testp." + n + ".f64 %q, %a;\n  selp.u32 %d, 1, 0, %q;", ad);
    for (size_t i = 0; i < ad.size(); ++i) ASSERT_EQ(dd[i], f(ad[i], false) ? 1u : 0u) << n << " " << ad[i];
  }
}

/// .approx: within the ISA's bounds of a double-precision reference.
TEST(EmulatorFloat, ApproximateFunctionsStayInsideTheirBounds) {
  std::vector<float> a;
  std::mt19937 rng(21);
  for (int i = 0; i < 500; ++i)
    a.push_back(std::ldexp(float(rng() % 100000 + 1) / 100000.0f, int(rng() % 20) - 10) * ((i & 1) ? -1 : 1));
  auto ulps = [](float got, double want) {
    if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1e9;
    if (std::isinf(float(want))) return double(got) == double(float(want)) ? 0.0 : 1e9;
    if (std::fabs(want) < 0x1p-126) return std::fabs(double(got) - want) <= 0x1p-149 ? 0.0 : 1e9;
    return std::fabs(double(got) - want) / std::ldexp(1.0, std::ilogb(float(want)) - 23);
  };
  struct Case {
    const char *instr;
    double (*ref)(double);
    double maxUlps;
  };
  const Case cases[] = {
      {"sin.approx.f32 %d, %a;", [](double v) { return std::sin(v); }, 1},
      {"cos.approx.f32 %d, %a;", [](double v) { return std::cos(v); }, 1},
      {"lg2.approx.f32 %d, %a;", [](double v) { return std::log2(v); }, 1},
      {"ex2.approx.f32 %d, %a;", [](double v) { return std::exp2(v); }, 2},
      {"rsqrt.approx.f32 %d, %a;", [](double v) { return 1 / std::sqrt(v); }, 1},
      {"rcp.approx.f32 %d, %a;", [](double v) { return 1 / v; }, 1},
      {"sqrt.approx.f32 %d, %a;", [](double v) { return std::sqrt(v); }, 1},
      {"tanh.approx.f32 %d, %a;", [](double v) { return std::tanh(v); }, 2},
  };
  for (const Case &c : cases) {
    auto d = launch<float, float>("f32", "f32", c.instr, a);
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_LE(ulps(d[i], c.ref(a[i])), c.maxUlps) << c.instr << " " << a[i];
  }
  // Special values.
  const float inf = INFINITY;
  auto s = launch<float, float>("f32", "f32", "lg2.approx.f32 %d, %a;", {0.0f, -1.0f, inf, 1.0f});
  EXPECT_EQ(s[0], -inf);
  EXPECT_TRUE(std::isnan(s[1]));
  EXPECT_EQ(s[2], inf);
  EXPECT_EQ(s[3], 0.0f);
  s = launch<float, float>("f32", "f32", "ex2.approx.ftz.f32 %d, %a;", {-inf, inf, -200.0f, 0.0f});
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_EQ(s[1], inf);
  EXPECT_EQ(s[2], 0.0f); // 2^-200 flushes
  EXPECT_EQ(s[3], 1.0f);
  // div.approx: |b| in (2^126, 2^128) gives zero; div.full is accurate.
  auto q = launch<float, float>("f32", "f32", "div.approx.f32 %d, %a, %b;", {1.0f, 6.0f}, {0x1.8p127f, 3.0f});
  EXPECT_EQ(q[0], 0.0f);
  EXPECT_EQ(q[1], 2.0f);
  q = launch<float, float>("f32", "f32", "div.full.f32 %d, %a, %b;", {1.0f, 6.0f}, {0x1p127f, 3.0f});
  EXPECT_EQ(q[0], 0x1p-127f);
  EXPECT_EQ(q[1], 2.0f);
}

// ---- f16 / bf16: an independent reference ----

struct Half {
  int expBits, manBits;
  bool bf16;
  uint16_t inf() const { return uint16_t(((1u << expBits) - 1) << manBits); }
  double value(uint16_t b) const { // of a finite or infinite encoding; inf counts as the next binade
    int bias = (1 << (expBits - 1)) - 1;
    unsigned e = (b >> manBits) & ((1u << expBits) - 1), m = b & ((1u << manBits) - 1);
    double v = e == 0 ? std::ldexp(double(m), 1 - bias - manBits)
                      : std::ldexp(double(m | (1u << manBits)), int(e) - bias - manBits);
    return (b & 0x8000) ? -v : v;
  }
  bool isNaN(uint16_t b) const { return (b & 0x7FFF) > inf(); }
  bool isSub(uint16_t b) const { return (b & 0x7FFF) != 0 && (b & 0x7FFF) < (1u << manBits); }
};
constexpr Half kF16{5, 10, false}, kBF16{8, 7, true};

/// Rounds the exact value hi + lo (|lo| at most half an ulp of hi) to
/// nearest even by searching the encodings.
uint16_t refRound(const Half &h, double hi, double lo) {
  if (std::isnan(hi)) return 0x7FFF;
  if (std::isinf(hi)) return uint16_t((hi < 0 ? 0x8000 : 0) | h.inf());
  if (hi == 0) return std::signbit(hi) ? 0x8000 : 0;
  bool neg = hi < 0;
  double mag = std::fabs(hi), l = neg ? -lo : lo;
  uint32_t lo_ = 0, hi_ = h.inf(); // largest b with value(b) <= mag
  while (lo_ < hi_) {
    uint32_t mid = (lo_ + hi_ + 1) / 2;
    if (h.value(uint16_t(mid)) <= mag)
      lo_ = mid;
    else
      hi_ = mid - 1;
  }
  uint32_t b = lo_;
  if (h.value(uint16_t(b)) == mag && l < 0) --b; // just below an encoding
  if (h.value(uint16_t(b)) == mag && l == 0) return uint16_t((neg ? 0x8000 : 0) | b);
  if (b >= h.inf()) return uint16_t((neg ? 0x8000 : 0) | h.inf());
  double mid = (h.value(uint16_t(b)) + h.value(uint16_t(b + 1))) / 2, diff = mag - mid;
  int cmp = diff > 0 ? 1 : diff < 0 ? -1 : l > 0 ? 1 : l < 0 ? -1 : 0;
  uint32_t r = cmp > 0 ? b + 1 : cmp < 0 ? b : (b & 1 ? b + 1 : b);
  return uint16_t((neg ? 0x8000 : 0) | r);
}

std::pair<double, double> twoSum(double a, double b) {
  double s = a + b, bb = s - a;
  return {s, std::isfinite(s) ? (a - (s - bb)) + (b - bb) : 0.0};
}

std::vector<uint16_t> halfValues(const Half &h, size_t n, uint32_t seed) {
  std::vector<uint16_t> v = {0,
                             0x8000,
                             1,
                             0x8001,
                             h.inf(),
                             uint16_t(h.inf() | 0x8000),
                             uint16_t(h.inf() + 1),
                             uint16_t(h.inf() - 1),
                             uint16_t(1u << h.manBits),
                             uint16_t((1u << h.manBits) - 1)};
  // 1.0, 0.5, 1.5, 2.5, -1.0 as encodings.
  for (double d : {1.0, 0.5, 1.5, 2.5, -1.0, 3.0, 0.9990234375}) v.push_back(refRound(h, d, 0));
  std::mt19937 rng(seed);
  while (v.size() < n) {
    if (rng() % 2)
      v.push_back(uint16_t(rng()));
    else
      v.push_back(refRound(h, std::ldexp(double(int(rng() % 4001) - 2000), int(rng() % 16) - 12), 0));
  }
  return v;
}

/// f16/bf16 reference: .ftz flushes inputs and results, .sat clamps to
/// [0, 1] (NaN to 0), .relu makes negatives +0 (NaN stays canonical).
uint16_t refHalf(const Half &h, const std::string &op, uint16_t a, uint16_t b, uint16_t c, bool ftz, bool sat,
                 bool relu) {
  auto in = [&](uint16_t v) -> double {
    if (h.isNaN(v)) return NAN;
    if (ftz && h.isSub(v)) v &= 0x8000;
    if ((v & 0x7FFF) == h.inf()) return (v & 0x8000) ? -INFINITY : INFINITY;
    return h.value(v);
  };
  double x = in(a), y = in(b), z = in(c);
  std::pair<double, double> e;
  if (op == "add")
    e = twoSum(x, y);
  else if (op == "sub")
    e = twoSum(x, -y);
  else if (op == "mul")
    e = {x * y, 0.0};
  else
    e = twoSum(x * y, z);
  if (std::isnan(e.first)) return sat ? 0 : 0x7FFF;
  uint16_t r = refRound(h, e.first, e.second);
  if (ftz && h.isSub(r)) r &= 0x8000;
  if ((sat || relu) && (r & 0x8000)) return 0;
  if (sat && h.value(r) > 1.0) return refRound(h, 1.0, 0);
  return r;
}

void checkHalf(const Half &h, const std::string &instr, const std::string &op, bool ftz, bool sat, bool relu,
               bool x2) {
  size_t n = 800;
  auto a = halfValues(h, n, 31), b = shuffled(halfValues(h, n, 32), 33),
       c = shuffled(halfValues(h, n, 34), 35);
  bool three = op == "fma";
  std::string body = instr + (three ? " %d, %a, %b, %c;" : " %d, %a, %b;");
  if (!x2) {
    auto d = launch<uint16_t, uint16_t>("b16", "b16", body, a, b, c);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(d[i], refHalf(h, op, a[i], b[i], c[i], ftz, sat, relu))
          << instr << std::hex << " a=" << a[i] << " b=" << b[i] << " c=" << c[i];
    return;
  }
  std::vector<uint32_t> a2(n / 2), b2(n / 2), c2(n / 2);
  for (size_t i = 0; i < n / 2; ++i) {
    a2[i] = a[2 * i] | uint32_t(a[2 * i + 1]) << 16;
    b2[i] = b[2 * i] | uint32_t(b[2 * i + 1]) << 16;
    c2[i] = c[2 * i] | uint32_t(c[2 * i + 1]) << 16;
  }
  auto d = launch<uint32_t, uint32_t>("b32", "b32", body, a2, b2, c2);
  for (size_t i = 0; i < n / 2; ++i) {
    uint32_t want = refHalf(h, op, a[2 * i], b[2 * i], c[2 * i], ftz, sat, relu) |
                    uint32_t(refHalf(h, op, a[2 * i + 1], b[2 * i + 1], c[2 * i + 1], ftz, sat, relu)) << 16;
    ASSERT_EQ(d[i], want) << instr << std::hex << " a=" << a2[i] << " b=" << b2[i] << " c=" << c2[i];
  }
}

TEST(EmulatorFloat, HalfPrecisionArithmetic) {
  for (bool x2 : {false, true}) {
    std::string t = x2 ? ".f16x2" : ".f16";
    for (std::string op : {"add", "sub", "mul"}) {
      checkHalf(kF16, op + t, op, false, false, false, x2);
      checkHalf(kF16, op + ".rn" + t, op, false, false, false, x2);
      checkHalf(kF16, op + ".ftz" + t, op, true, false, false, x2);
      checkHalf(kF16, op + ".sat" + t, op, false, true, false, x2);
      checkHalf(kF16, op + ".ftz.sat" + t, op, true, true, false, x2);
    }
    checkHalf(kF16, "fma.rn" + t, "fma", false, false, false, x2);
    checkHalf(kF16, "fma.rn.ftz.sat" + t, "fma", true, true, false, x2);
    checkHalf(kF16, "fma.rn.relu" + t, "fma", false, false, true, x2);
    checkHalf(kF16, "fma.rn.ftz.relu" + t, "fma", true, false, true, x2);
  }
}

TEST(EmulatorFloat, Bfloat16Arithmetic) {
  for (bool x2 : {false, true}) {
    std::string t = x2 ? ".bf16x2" : ".bf16";
    for (std::string op : {"add", "sub", "mul"}) {
      checkHalf(kBF16, op + t, op, false, false, false, x2);
      checkHalf(kBF16, op + ".rn" + t, op, false, false, false, x2);
    }
    checkHalf(kBF16, "fma.rn" + t, "fma", false, false, false, x2);
    checkHalf(kBF16, "fma.rn.relu" + t, "fma", false, false, true, x2);
  }
}

TEST(EmulatorFloat, HalfPrecisionMinMaxNegAbs) {
  for (const Half *h : {&kF16, &kBF16}) {
    std::string t = h->bf16 ? ".bf16" : ".f16";
    auto a = halfValues(*h, 500, 41), b = shuffled(halfValues(*h, 500, 42), 43);
    auto ref = [&](uint16_t x, uint16_t y, bool isMax, bool nanMode) -> uint16_t {
      bool nx = h->isNaN(x), ny = h->isNaN(y);
      if (nx && ny) return 0x7FFF;
      if (nx || ny) return nanMode ? 0x7FFF : nx ? y : x;
      double vx = h->value(x), vy = h->value(y);
      if (vx == vy) return (std::signbit(vx) != isMax) ? x : y;
      return (isMax ? vx > vy : vx < vy) ? x : y;
    };
    for (bool isMax : {false, true})
      for (bool nanMode : {false, true}) {
        std::string instr = std::string(isMax ? "max" : "min") + (nanMode ? ".NaN" : "") + t + " %d, %a, %b;";
        auto d = launch<uint16_t, uint16_t>("b16", "b16", instr, a, b);
        for (size_t i = 0; i < a.size(); ++i)
          ASSERT_EQ(d[i], ref(a[i], b[i], isMax, nanMode)) << instr << std::hex << " " << a[i] << " " << b[i];
      }
    // A NaN gives the canonical NaN (measured on H100).
    auto d = launch<uint16_t, uint16_t>("b16", "b16", "neg" + t + " %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(d[i], h->isNaN(a[i]) ? 0x7FFF : a[i] ^ 0x8000);
    d = launch<uint16_t, uint16_t>("b16", "b16", "abs" + t + " %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(d[i], h->isNaN(a[i]) ? 0x7FFF : a[i] & 0x7FFF);
  }
}

TEST(EmulatorFloat, MixedPrecisionRoundsOnceInTheInstructionsMode) {
  // add.rnd.f32.f16 (sm_100): 1.0 (f16) + 2^24 (f32) lies halfway between
  // two f32 values; each rounding mode picks its neighbour.
  for (auto [mode, expected] : {std::pair<const char *, float>{"rn", 0x1p24f},
                                {"rz", 0x1p24f},
                                {"rm", 0x1p24f},
                                {"rp", 0x1p24f + 2.0f}}) {
    std::string ptx = R"(
.visible .entry k(.param .u64 p)
{
  .reg .f32 %f<3>;
  .reg .b16 %h;
  .reg .b64 %rd;
  mov.b16 %h, 0x3C00;
  mov.f32 %f1, 0f4B800000;
  add.)" + std::string(mode) +
                      R"(.f32.f16 %f2, %h, %f1;
  ld.param.u64 %rd, [p];
  st.global.f32 [%rd], %f2;
  ret;
}
)";
    std::vector<float> out(1);
    EmuRun r = runKernel(ptxModule(ptx, "sm_100a", "8.6"), "k", {1}, {1}, {Arg::array(out)});
    ASSERT_TRUE(r.result.ok) << r.diags.renderText();
    EXPECT_EQ(r.buffer<float>(0)[0], expected) << mode;
  }
}

} // namespace
