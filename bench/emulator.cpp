// bench_emulator: the SIMT emulator on corpus kernels (kernels/algorithms.cu,
// kernels/named_barriers.cu as compiled by nvcc for sm_80): vector add, a
// shared-memory reduction with shuffles and barriers, a tiled SGEMM,
// Mandelbrot (divergent), Black-Scholes (expf, logf, sqrtf, divisions),
// fast-math transcendentals (kernels/math_fast.cu), many small launches of
// vector add, tensor cores and a warp-specialized producer/consumer pipeline.
// For each it checks the result against the same algorithm in plain C++
// (compiled -O3), and prints thread-instructions per second on the
// interpreter and on compiled code (translator/, what --device cpu runs),
// on one host thread and on all, and the ratios of their times to each other
// and to native C++, all measured in this run.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#if PTXVM_CPU_DEVICE
#include "translator/Translator.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace emu;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Case {
  const char *name;
  const char *file; // corpus file stem
  const char *kernel;
  Dim3 grid, block;
  /// Sets up buffers and parameters; returns a checker of the outputs.
  std::function<std::function<bool(Device &)>(Device &, std::vector<uint8_t> &params, const Kernel &)> setup;
  /// The same computation in plain C++.
  std::function<void()> native;
};

template <typename T> uint64_t upload(Device &d, const std::vector<T> &v) {
  uint64_t a = d.global.allocate(v.size() * sizeof(T));
  d.global.write(a, v.data(), v.size() * sizeof(T));
  return a;
}
template <typename T> std::vector<T> download(Device &d, uint64_t a, size_t n) {
  std::vector<T> v(n);
  d.global.read(a, v.data(), n * sizeof(T));
  return v;
}
template <typename T> void param(std::vector<uint8_t> &p, const Kernel &k, size_t i, T v) {
  std::memcpy(p.data() + k.paramOffsets[i], &v, sizeof(T));
}

// Inputs shared by the emulated and native runs.
constexpr int kN = 1 << 20;
constexpr int kM = 128; // SGEMM is kM x kM x kM
constexpr int kW = 256, kH = 128, kIter = 64;
std::vector<float> A(kN), B(kN), C(kN), G1(kM *kM), G2(kM *kM), G3(kM *kM);
std::vector<unsigned char> img(kW *kH);
volatile float sink;

int mandel(int px, int py) {
  float x0 = -2.0f + 3.0f * px / kW, y0 = -1.5f + 3.0f * py / kH, x = 0, y = 0;
  int i = 0;
  while (i < kIter && x * x + y * y <= 4.0f) {
    float t = x * x - y * y + x0;
    y = 2.0f * x * y + y0;
    x = t;
    ++i;
  }
  return 255 * i / kIter;
}

// Fast-math inputs (sin/cos arguments within a few pi, nonzero divisors)
// and the host's results of fast_transcendental's formulas.
constexpr int kFast = 1 << 16, kSmall = 1 << 14;
std::vector<float> FastX(kFast), FastY(kFast), FastOut(8 * kFast);

void fastNative() {
  for (int i = 0; i < kFast; ++i) {
    const float v = FastX[i], w = FastY[i];
    float *o = &FastOut[8 * i];
    o[0] = std::sin(v) + std::cos(w);
    o[1] = std::exp(v);
    o[2] = std::log(std::fabs(w) + 1.0f);
    o[3] = std::pow(std::fabs(v) + 1.0f, w);
    o[4] = v / w;
    o[5] = std::sqrt(std::fabs(v));
    o[6] = 1.0f / w;
    o[7] = std::tanh(v) + std::exp2(w) + std::log2(std::fabs(v) + 1.0f);
  }
}

// wmma GEMM inputs: 16 x kWmmaK f16 small integers (A row-major, B column-major),
// their values as floats for the native run, and its 16x16 result.
constexpr int kWmmaK = 1024;
std::vector<uint16_t> WmmaA(16 * kWmmaK), WmmaB(16 * kWmmaK);
std::vector<float> WmmaAf(16 * kWmmaK), WmmaBf(16 * kWmmaK), WmmaC(256);

void wmmaNative() {
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float acc = 0;
      for (int k = 0; k < kWmmaK; ++k) acc += WmmaAf[i * kWmmaK + k] * WmmaBf[j * kWmmaK + k];
      WmmaC[i * 16 + j] = acc;
    }
}

// Black-Scholes inputs and the host's prices (the kernel's formula).
constexpr int kOptions = 1 << 18;
constexpr float kRate = 0.02f, kVolatility = 0.3f;
std::vector<float> Spot(kOptions), Strike(kOptions), Years(kOptions), Call(kOptions), Put(kOptions);

float cumulativeNormal(float d) {
  const float k = 1.0f / (1.0f + 0.2316419f * std::fabs(d));
  const float poly =
      k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  const float tail = 0.39894228040143267794f * std::exp(-0.5f * d * d) * poly;
  return d > 0 ? 1.0f - tail : tail;
}

void blackScholes(int i) {
  const float s = Spot[i], x = Strike[i], t = Years[i], sqrtT = std::sqrt(t);
  const float d1 = (std::log(s / x) + (kRate + 0.5f * kVolatility * kVolatility) * t) / (kVolatility * sqrtT);
  const float d2 = d1 - kVolatility * sqrtT, discount = x * std::exp(-kRate * t);
  Call[i] = s * cumulativeNormal(d1) - discount * cumulativeNormal(d2);
  Put[i] = discount * (1.0f - cumulativeNormal(d2)) - s * (1.0f - cumulativeNormal(d1));
}

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"vector add",
                 "algorithms",
                 "vec_add",
                 {256},
                 {256},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t a = upload(d, A), b = upload(d, B), c = upload(d, std::vector<float>(kN));
                   param(p, k, 0, a), param(p, k, 1, b), param(p, k, 2, c), param(p, k, 3, kN);
                   return std::function<bool(Device &)>([c](Device &d) {
                     auto r = download<float>(d, c, kN);
                     for (int i = 0; i < kN; ++i)
                       if (r[i] != A[i] + B[i]) return false;
                     return true;
                   });
                 },
                 [] {
                   for (int i = 0; i < kN; ++i) C[i] = A[i] + B[i];
                   sink = C[kN / 2];
                 }});
  out.push_back({"reduction",
                 "algorithms",
                 "reduce_sum",
                 {64},
                 {256},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t in = upload(d, A), o = upload(d, std::vector<float>(1));
                   param(p, k, 0, in), param(p, k, 1, o), param(p, k, 2, kN);
                   return std::function<bool(Device &)>([o](Device &d) {
                     double want = 0;
                     for (float v : A) want += v;
                     float got = download<float>(d, o, 1)[0];
                     return std::fabs(got - want) <= 1e-3 * std::fabs(want);
                   });
                 },
                 [] {
                   float s = 0;
                   for (float v : A) s += v;
                   sink = s;
                 }});
  out.push_back({"tiled SGEMM",
                 "algorithms",
                 "sgemm_tiled",
                 {kM / 16, kM / 16},
                 {16, 16},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t a = upload(d, G1), b = upload(d, G2), c = upload(d, std::vector<float>(kM * kM));
                   param(p, k, 0, a), param(p, k, 1, b), param(p, k, 2, c);
                   param(p, k, 3, kM), param(p, k, 4, kM), param(p, k, 5, kM);
                   return std::function<bool(Device &)>([c](Device &d) {
                     auto r = download<float>(d, c, kM * kM);
                     for (int i = 0; i < kM; ++i)
                       for (int j = 0; j < kM; ++j) {
                         float acc = 0;
                         for (int x = 0; x < kM; ++x) acc += G1[i * kM + x] * G2[x * kM + j];
                         if (std::fabs(r[i * kM + j] - acc) > 1e-3f * (1 + std::fabs(acc))) return false;
                       }
                     return true;
                   });
                 },
                 [] {
                   for (int i = 0; i < kM; ++i)
                     for (int j = 0; j < kM; ++j) {
                       float acc = 0;
                       for (int x = 0; x < kM; ++x) acc += G1[i * kM + x] * G2[x * kM + j];
                       G3[i * kM + j] = acc;
                     }
                   sink = G3[5];
                 }});
  out.push_back({"Mandelbrot",
                 "algorithms",
                 "mandelbrot",
                 {kW / 16, kH / 16},
                 {16, 16},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t o = upload(d, std::vector<unsigned char>(kW * kH));
                   param(p, k, 0, o), param(p, k, 1, kW), param(p, k, 2, kH), param(p, k, 3, kIter);
                   return std::function<bool(Device &)>([o](Device &d) {
                     auto r = download<unsigned char>(d, o, kW * kH);
                     size_t differ = 0;
                     for (int y = 0; y < kH; ++y)
                       for (int x = 0; x < kW; ++x)
                         differ += r[y * kW + x] != static_cast<unsigned char>(mandel(x, y));
                     return differ * 100 < r.size(); // float contraction may move a few boundary pixels
                   });
                 },
                 [] {
                   for (int y = 0; y < kH; ++y)
                     for (int x = 0; x < kW; ++x) img[y * kW + x] = static_cast<unsigned char>(mandel(x, y));
                   sink = img[100];
                 }});
  out.push_back({"Black-Scholes",
                 "algorithms",
                 "black_scholes",
                 {kOptions / 256, 1},
                 {256, 1},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t call = upload(d, std::vector<float>(kOptions)),
                            put = upload(d, std::vector<float>(kOptions));
                   param(p, k, 0, call), param(p, k, 1, put), param(p, k, 2, upload(d, Spot));
                   param(p, k, 3, upload(d, Strike)), param(p, k, 4, upload(d, Years));
                   param(p, k, 5, kRate), param(p, k, 6, kVolatility), param(p, k, 7, kOptions);
                   return std::function<bool(Device &)>([call, put](Device &d) {
                     auto c = download<float>(d, call, kOptions), q = download<float>(d, put, kOptions);
                     for (int i = 0; i < kOptions; ++i) {
                       blackScholes(i);
                       // expf/logf on the GPU are within 2 ulp of the host's.
                       if (std::fabs(c[i] - Call[i]) > 1e-4f * std::max(1.0f, std::fabs(Call[i])) ||
                           std::fabs(q[i] - Put[i]) > 1e-4f * std::max(1.0f, std::fabs(Put[i])))
                         return false;
                     }
                     return true;
                   });
                 },
                 [] {
                   for (int i = 0; i < kOptions; ++i) blackScholes(i);
                   sink = Call[7] + Put[7];
                 }});
  // Fast math (-use_fast_math): sin/cos/ex2/lg2/rcp/sqrt .approx and .ftz
  // arithmetic, eight results per element. Native: the same formulas
  // through the host's libm.
  out.push_back({"fast-math transcendentals",
                 "math_fast",
                 "fast_transcendental",
                 {kFast / 256},
                 {256},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t o = upload(d, std::vector<float>(8 * kFast));
                   param(p, k, 0, upload(d, FastX)), param(p, k, 1, upload(d, FastY)), param(p, k, 2, o);
                   param(p, k, 3, kFast);
                   return std::function<bool(Device &)>([o](Device &d) {
                     auto r = download<float>(d, o, 8 * kFast);
                     fastNative();
                     for (int i = 0; i < 8 * kFast; ++i)
                       if (!(std::fabs(r[i] - FastOut[i]) <= 2e-3f * std::max(1.0f, std::fabs(FastOut[i]))))
                         return false;
                     return true;
                   });
                 },
                 [] {
                   fastNative();
                   sink = FastOut[9];
                 }});
  // What a launch costs: 64 CTAs of 256 threads, one element each (a
  // dozen instructions per thread), as programs of many small launches do.
  out.push_back({"vector add 16K (per launch)",
                 "algorithms",
                 "vec_add",
                 {kSmall / 256},
                 {256},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t a = upload(d, A), b = upload(d, B), c = upload(d, std::vector<float>(kSmall));
                   param(p, k, 0, a), param(p, k, 1, b), param(p, k, 2, c), param(p, k, 3, kSmall);
                   return std::function<bool(Device &)>([c](Device &d) {
                     auto r = download<float>(d, c, kSmall);
                     for (int i = 0; i < kSmall; ++i)
                       if (r[i] != A[i] + B[i]) return false;
                     return true;
                   });
                 },
                 [] {
                   for (int i = 0; i < kSmall; ++i) C[i] = A[i] + B[i];
                   sink = C[kSmall / 2];
                 }});
  // Tensor cores: 64 warps, each a 16x16 tile over K = 1024 with wmma f16 -> f32
  // (64 wmma.mma each); small integers, so the sums are exact. Native: the same
  // 64 tiles in float.
  out.push_back({"wmma GEMM (tensor cores)",
                 "tensor_cores",
                 "wmma_f16_f32",
                 {64},
                 {32},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   std::vector<uint16_t> a(16 * kWmmaK), b(16 * kWmmaK);
                   for (size_t i = 0; i < a.size(); ++i) a[i] = WmmaA[i], b[i] = WmmaB[i];
                   uint64_t o = upload(d, std::vector<float>(256));
                   param(p, k, 0, upload(d, a)), param(p, k, 1, upload(d, b)), param(p, k, 2, o);
                   param(p, k, 3, kWmmaK);
                   return std::function<bool(Device &)>([o](Device &d) {
                     auto r = download<float>(d, o, 256);
                     wmmaNative();
                     for (int i = 0; i < 256; ++i)
                       if (r[i] != 2.0f * WmmaC[i]) return false;
                     return true;
                   });
                 },
                 [] {
                   for (int w = 0; w < 64; ++w) wmmaNative();
                   sink = WmmaC[17];
                 }});
  // 32 CTAs of 3 compute + 2 DMA warps, 64 tiles of 512 floats each: a
  // 3-point circular stencil per tile, double-buffered through named barriers.
  out.push_back({"warp-specialized pipeline",
                 "named_barriers",
                 "dma_double_buffer",
                 {32},
                 {160},
                 [](Device &d, std::vector<uint8_t> &p, const Kernel &k) {
                   uint64_t in = upload(d, A), o = upload(d, std::vector<float>(kN));
                   param(p, k, 0, in), param(p, k, 1, o), param(p, k, 2, 64);
                   return std::function<bool(Device &)>([o](Device &d) {
                     auto r = download<float>(d, o, kN);
                     for (int i = 0; i < kN; ++i) {
                       int base = i / 512 * 512, j = i % 512;
                       float want =
                           0.25f * A[base + (j + 511) % 512] + 0.5f * A[i] + 0.25f * A[base + (j + 1) % 512];
                       if (r[i] != want) return false;
                     }
                     return true;
                   });
                 },
                 [] {
                   for (int i = 0; i < kN; ++i) {
                     int base = i / 512 * 512, j = i % 512;
                     C[i] = 0.25f * A[base + (j + 511) % 512] + 0.5f * A[i] + 0.25f * A[base + (j + 1) % 512];
                   }
                   sink = C[3];
                 }});
  return out;
}

/// One engine's run of a case on `threads` host threads: the best of
/// `repeat` launches, the outputs checked after the first.
struct Measured {
  bool ok = false;
  std::string why;
  double seconds = 0;
  uint64_t threadInstructions = 0;
};
Measured measure(Case &c, const ptx::Module &m, unsigned threads, int repeat, bool compiled,
                 double &compileSeconds, bool facts = true, bool checked = true) {
  Measured out;
  Device device;
  ptx::DiagnosticList diags;
  auto k = device.decode(m, c.kernel, diags);
  if (!k) {
    out.why = "does not decode";
    return out;
  }
  std::unique_ptr<Engine> engine;
  LaunchConfig config;
  if (compiled) {
#if PTXVM_CPU_DEVICE
    // Compiled now and not from the disk cache: compile time is measured.
    translator::JitOptions options;
    options.eager = true;
    options.memoryCache = options.diskCache = false;
    options.uniformity = facts;
    options.checked = checked;
    translator::CompileReport report;
    engine = translator::CompiledEngine::compile(*k, options, report);
    if (!engine) {
      out.why = "does not compile: " + report.error;
      return out;
    }
    compileSeconds = report.seconds;
    config.engine = engine.get();
#else
    (void)compileSeconds, (void)facts, (void)checked;
    out.why = "this build has no CPU device (-DPTXVM_CPU_DEVICE=OFF)";
    return out;
#endif
  }
  config.grid = c.grid;
  config.block = c.block;
  config.threads = threads;
  config.params.assign(k->paramBytes, 0);
  auto check = c.setup(device, config.params, *k);
  ptx::DiagnosticList runDiags;
  out.seconds = 1e30;
  // The best of `repeat` launches, and of as many more as fit in a quarter
  // second: the first launches of a short kernel run up to 3x slower (this
  // machine's cores speed up under load), which a fixed count of
  // millisecond launches does not outlast.
  const auto start = Clock::now();
  for (int r = 0; r < repeat || seconds(start) < 0.25; ++r) {
    auto t0 = Clock::now();
    LaunchResult result = device.launch(*k, config, runDiags);
    out.seconds = std::min(out.seconds, seconds(t0));
    if (!result.ok) {
      out.why = runDiags.all().empty() ? std::string("failed") : runDiags.all()[0].renderText();
      return out;
    }
    out.threadInstructions = result.threadInstructions;
    if (r == 0 && !check(device)) {
      out.why = "wrong results";
      return out;
    }
  }
  out.ok = true;
  return out;
}

} // namespace

/// usage: bench_emulator [--repeat N] [--profile interp|cpu|cpu-unchecked] [NAME-SUBSTRING...]
/// --profile runs only that engine on one host thread (for perf record).
int main(int argc, char **argv) {
  int repeat = 3;
  std::vector<std::string> only;
  std::string profile;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
      profile = argv[++i];
    else
      only.emplace_back(argv[i]);
  }
  for (int i = 0; i < kN; ++i) A[i] = static_cast<float>(i % 1000) * 0.5f, B[i] = static_cast<float>(i % 77);
  for (int i = 0; i < kM * kM; ++i)
    G1[i] = static_cast<float>(i % 13) * 0.25f, G2[i] = static_cast<float>(i % 7);
  for (int i = 0; i < kFast; ++i)
    FastX[i] = -4.0f + static_cast<float>(i % 4001) * 0.002f,
    FastY[i] = 0.5f + static_cast<float>(i % 97) * 0.03f;
  for (int i = 0; i < kOptions; ++i) {
    Spot[i] = 5.0f + static_cast<float>(i % 251) * 0.1f;
    Strike[i] = 1.0f + static_cast<float>(i % 997) * 0.1f;
    Years[i] = 0.25f + static_cast<float>(i % 113) * 0.08f;
  }
  static const uint16_t kHalf[9] = {0xC400, 0xC200, 0xC000, 0xBC00, 0,
                                    0x3C00, 0x4000, 0x4200, 0x4400}; // -4..4
  for (int i = 0; i < 16 * kWmmaK; ++i) {
    int a = i % 9 - 4, b = (i * 7 + 3) % 9 - 4;
    WmmaA[i] = kHalf[a + 4], WmmaB[i] = kHalf[b + 4];
    WmmaAf[i] = static_cast<float>(a), WmmaBf[i] = static_cast<float>(b);
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("%-26s %14s %11s %11s %11s %11s %9s %9s %9s %9s %9s %9s\n", "kernel", "thread-instrs",
              "interp 1t", "cpu 1t", "interp all", "cpu all", "cpu/intrp", "intrp/nat", "cpu/nat", "compile",
              "facts", "unchecked");
  for (Case &c : cases()) {
    if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string &o) {
          return std::string(c.name).find(o) != std::string::npos;
        }))
      continue;
    std::string path = std::string(PTXVM_CORPUS_DIR) + "/" + c.file + ".sm_80.ptx";
    std::string text;
    ptx::DiagnosticList diags;
    if (!ptx::readFile(path, text, diags)) {
      std::printf("%-26s corpus file %s missing (build ptx_corpus)\n", c.name, path.c_str());
      continue;
    }
    auto m = ptx::parseModule(std::move(text), path, diags);
    if (!m) continue;
    double compileSeconds = 0;
    if (!profile.empty()) {
      const Measured run =
          measure(c, *m, 1, repeat, profile != "interp", compileSeconds, true, profile != "cpu-unchecked");
      std::printf("%-26s %s: %s %.3g thread-instructions/s (%llu in %.3g ms, the best launch)\n", c.name,
                  profile.c_str(), run.ok ? "ok" : run.why.c_str(),
                  run.ok ? run.threadInstructions / run.seconds : 0.0,
                  static_cast<unsigned long long>(run.threadInstructions), run.seconds * 1e3);
      continue;
    }
    // Interpreter and compiled code (--device cpu's engine), on one host
    // thread and on all.
    Measured runs[4];
    bool ok = true;
    for (int i = 0; i < 4 && ok; ++i) {
      runs[i] = measure(c, *m, i < 2 ? 1 : cores, repeat, i % 2 == 1, compileSeconds);
      if (!runs[i].ok) {
        std::printf("%-26s %s: %s\n", c.name, i % 2 ? "cpu" : "interpreter", runs[i].why.c_str());
        ok = false;
      }
    }
    if (!ok) continue;
    // Compiled code without the analyses' facts (Facts.h), one host thread.
    double unused = 0;
    const Measured plain = measure(c, *m, 1, repeat, true, unused, false);
    // Compiled code with --unchecked, one host thread.
    const Measured unchecked = measure(c, *m, 1, repeat, true, unused, true, false);
    // Native: the best run of a quarter second's worth, as for the kernels.
    double native = 1e30;
    for (auto start = Clock::now(); seconds(start) < 0.25;) {
      auto t0 = Clock::now();
      c.native();
      native = std::min(native, seconds(t0));
    }
    auto rate = [&](int i) { return runs[i].threadInstructions / runs[i].seconds; };
    std::printf("%-26s %14llu %11.3g %11.3g %11.3g %11.3g %8.1fx %8.0fx %8.1fx %7.0fms %8.2fx %8.2fx\n",
                c.name, (unsigned long long)runs[0].threadInstructions, rate(0), rate(1), rate(2), rate(3),
                runs[0].seconds / runs[1].seconds, runs[0].seconds / native, runs[1].seconds / native,
                compileSeconds * 1e3, plain.ok ? plain.seconds / runs[1].seconds : 0.0,
                unchecked.ok ? runs[1].seconds / unchecked.seconds : 0.0);
  }
  std::printf(
      "(interp/cpu 1t, all: thread-instructions per second on the interpreter and on compiled code "
      "(--device\n"
      " cpu), on one host thread and on all %u; cpu/intrp: how much faster compiled code runs on one "
      "thread;\n"
      " intrp/nat, cpu/nat: time on one host thread over the same algorithm in C++ -O3 on one core; "
      "compile:\n"
      " the kernel's compile time, apart; facts: how much faster compiled code runs with the divergence\n"
      " and affine analyses' facts than without them (one thread); unchecked: how much faster it runs with\n"
      " --unchecked than checked (one thread). All measured in this run.)\n",
      cores);
  return 0;
}
