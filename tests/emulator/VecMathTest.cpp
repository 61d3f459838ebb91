// The branch-free exp2, log2, sin, cos and tanh the .approx lane loops use
// (emulator/semantics/VecMath.h) against libm: over f32 inputs spread across
// the whole range (every 4099th bit pattern, both signs), the f32 results
// must be libm's and the double results within 1e-15 of libm's; and the
// special values (zeros, infinities, NaN, negatives for log2, exact powers
// of two, the edges of the trig range) as libm gives them.
#include "emulator/semantics/VecMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace vm = emu::vecmath;

namespace {

float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool sameFloat(double a, double b) {
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  return fa == fb ? std::signbit(fa) == std::signbit(fb) : fa != fa && fb != fb;
}

struct Function {
  const char *name;
  double (*mine)(double);
  double (*libm)(double);
  bool absolute; // error measured absolutely (sin and cos near their zeros)
};

double sinOrLibm(double x) { return std::fabs(x) <= vm::kTrigLimit ? vm::sinCos<false>(x) : std::sin(x); }
double cosOrLibm(double x) { return std::fabs(x) <= vm::kTrigLimit ? vm::sinCos<true>(x) : std::cos(x); }

const Function kFunctions[] = {
    {"exp2", [](double x) { return vm::exp2(x); }, [](double x) { return std::exp2(x); }, false},
    {"log2", [](double x) { return vm::log2(x); }, [](double x) { return std::log2(x); }, false},
    {"sin", sinOrLibm, [](double x) { return std::sin(x); }, true},
    {"cos", cosOrLibm, [](double x) { return std::cos(x); }, true},
    {"tanh", [](double x) { return vm::tanh(x); }, [](double x) { return std::tanh(x); }, false},
};

TEST(VecMath, F32ResultsAreLibmsOverTheWholeRange) {
  for (const Function &f : kFunctions) {
    SCOPED_TRACE(f.name);
    unsigned differ = 0;
    double worst = 0;
    for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 4099) {
      const double x = floatOf(static_cast<uint32_t>(b));
      const double got = f.mine(x), want = f.libm(x);
      if (!sameFloat(got, want) && ++differ <= 3)
        ADD_FAILURE() << std::hexfloat << "x = " << x << ": " << got << ", libm " << want;
      // The double results, where f32 results are normal (below that,
      // exp2's double result underflows gradually and loses relative bits).
      if (std::isfinite(want) && std::fabs(want) >= std::numeric_limits<float>::min()) {
        const double error = std::fabs(got - want) / (f.absolute ? 1.0 : std::fabs(want));
        worst = std::max(worst, error);
      }
    }
    EXPECT_EQ(differ, 0u);
    EXPECT_LT(worst, 1e-15);
  }
}

TEST(VecMath, SpecialValuesAreLibms) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double flt = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
  const double values[] = {0.0,
                           -0.0,
                           inf,
                           -inf,
                           nan,
                           -nan,
                           1.0,
                           -1.0,
                           2.0,
                           0.5,
                           flt,
                           -flt,
                           tiny,
                           -tiny,
                           128.0,
                           -126.0,
                           -149.0,
                           -150.0,
                           127.99999,
                           1e-30,
                           1e6,
                           -1e6,
                           vm::kTrigLimit,
                           -vm::kTrigLimit,
                           vm::kTrigLimit * 2,
                           0.55,
                           -0.55,
                           20.0,
                           -20.0,
                           1e-8,
                           3.14159274101257324,
                           1.57079637050628662};
  for (const Function &f : kFunctions)
    for (double x : values)
      EXPECT_TRUE(sameFloat(f.mine(x), f.libm(x)))
          << f.name << std::hexfloat << "(" << x << ") = " << f.mine(x) << ", libm " << f.libm(x);
  for (int n = -1074; n <= 1023; ++n) EXPECT_EQ(vm::exp2(n), std::ldexp(1.0, n)) << "2^" << n;
  for (int n = -149; n <= 127; ++n) EXPECT_EQ(vm::log2(std::ldexp(1.0, n)), n) << "log2 2^" << n;
  // Beyond the range sin and cos reduce exactly: NaN, for the caller to ask libm.
  EXPECT_TRUE(std::isnan(vm::sinCos<false>(vm::kTrigLimit * 2)));
  EXPECT_TRUE(std::isnan(vm::sinCos<true>(-inf)));
}

} // namespace
