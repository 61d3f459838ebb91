// Shared by the self-checking programs in kernels/apps: CHECK for every CUDA runtime call,
// deterministic inputs, and a Verdict that compares with the host reference and says PASSED/FAILED.
#pragma once

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

// A failed runtime call ends the program with status 2, naming the call, where it was, and
// CUDA's own message, so that a broken runtime is never mistaken for a wrong result.
#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    cudaError_t check_status_ = (call);                                                                      \
    if (check_status_ != cudaSuccess) {                                                                      \
      std::fflush(stdout);                                                                                   \
      std::fprintf(stderr, "CHECK failed: %s at %s:%d: %s (%s)\n", #call, __FILE__, __LINE__,                \
                   cudaGetErrorString(check_status_), cudaGetErrorName(check_status_));                      \
      std::exit(2);                                                                                          \
    }                                                                                                        \
  } while (0)

// After a <<<...>>> launch: a bad configuration is reported by the launch itself.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// splitmix64: the same inputs on every machine and every run.
class Random {
public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // An integer in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % uint64_t(hi - lo + 1)); }
  // A float in [lo, hi).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(static_cast<double>(next() >> 11) * 0x1p-53);
  }

private:
  uint64_t state_;
};

// A device copy of a host vector, and a host copy of n device elements (CHECKed).
template <class T> T *deviceCopy(const std::vector<T> &host) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T> std::vector<T> hostCopy(const T *d, size_t n) {
  std::vector<T> host(n);
  CHECK(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Collects the differences between device results and the host reference. The first few are
// printed; finish() prints PASSED or FAILED as the last line and gives the exit status.
class Verdict {
public:
  // Records one comparison; `fmt` describes the difference when `ok` is false.
  bool expect(bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4))) {
    if (ok) return true;
    if (++failures_ <= kShown) {
      va_list args;
      va_start(args, fmt);
      std::vfprintf(stdout, fmt, args);
      va_end(args);
      std::fputc('\n', stdout);
    }
    return false;
  }
  bool expectEq(long long got, long long want, const char *what, long long index) {
    return expect(got == want, "%s[%lld]: got %lld, expected %lld", what, index, got, want);
  }
  // Floats agree when within `rel` of the reference's magnitude or within `abs` absolutely.
  bool expectNear(double got, double want, double rel, double abs, const char *what, long long index) {
    bool ok = std::fabs(got - want) <= std::fmax(abs, rel * std::fabs(want));
    return expect(ok, "%s[%lld]: got %.9g, expected %.9g", what, index, got, want);
  }
  int failures() const { return failures_; }
  int finish() {
    if (failures_ > kShown) std::printf("... %d differences in all\n", failures_);
    std::printf("%s\n", failures_ == 0 ? "PASSED" : "FAILED");
    std::fflush(stdout);
    return failures_ == 0 ? 0 : 1;
  }

private:
  static constexpr int kShown = 10;
  int failures_ = 0;
};
