// bench_micro: Google Benchmark micro-benchmarks of the front-end stages on
// one corpus file (default: the largest nvcc-generated one without -G):
// lexing, full parse, lazy index, verification and writing, in bytes/s of PTX.
#include "ptx/Lexer.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "ptx/Writer.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace ptx;

namespace {

const std::string &input() {
  static const std::string text = [] {
    fs::path best;
    uintmax_t bestSize = 0;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(PTXVM_CORPUS_DIR, ec)) {
      std::string name = e.path().filename().string();
      if (e.path().extension() != ".ptx" || name.find(".G.") != std::string::npos) continue;
      if (e.file_size() > bestSize) {
        bestSize = e.file_size();
        best = e.path();
      }
    }
    if (best.empty()) best = fs::path(PTXVM_SOURCE_DIR) / "kernels" / "ptx" / "named_barriers.ptx";
    std::ifstream in(best, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

void BM_Lex(benchmark::State &state) {
  for (auto _ : state) {
    Lexer lex(input());
    size_t n = 0;
    Token t;
    for (lex.next(t); t.kind != Tok::End; lex.next(t)) ++n;
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input().size()));
}
BENCHMARK(BM_Lex);

void BM_Parse(benchmark::State &state, bool lazy) {
  ParseOptions o;
  o.lazyBodies = lazy;
  for (auto _ : state) {
    DiagnosticList diags;
    auto m = parseModule(input(), "bench.ptx", diags, o);
    benchmark::DoNotOptimize(m.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input().size()));
}
BENCHMARK_CAPTURE(BM_Parse, full, false);
BENCHMARK_CAPTURE(BM_Parse, index_only, true);

void BM_Verify(benchmark::State &state) {
  DiagnosticList diags;
  auto m = parseModule(input(), "bench.ptx", diags);
  for (auto _ : state) {
    DiagnosticList d;
    benchmark::DoNotOptimize(verifyModule(*m, d));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input().size()));
}
BENCHMARK(BM_Verify);

void BM_Write(benchmark::State &state) {
  DiagnosticList diags;
  auto m = parseModule(input(), "bench.ptx", diags);
  for (auto _ : state) benchmark::DoNotOptimize(writeModule(*m));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input().size()));
}
BENCHMARK(BM_Write);

} // namespace

BENCHMARK_MAIN();
