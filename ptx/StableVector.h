// An append-only sequence whose elements never move. A module's names and instruction
// descriptions live in one: its function bodies are parsed lazily, on the host thread, while
// kernels of the same module run on other threads and read entries appended before.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <utility>

namespace ptx {

/// Elements live in segments of doubling size (64, 128, 256, ...) reached through a fixed array
/// of segment pointers, so an append never moves an element nor the index of the segments.
/// One thread appends; other threads may read any element whose index they learnt (with the
/// happens-before that told them) while it does.
template <class T> class StableVector {
public:
  StableVector() = default;
  StableVector(const StableVector &) = delete;
  StableVector &operator=(const StableVector &) = delete;
  StableVector(StableVector &&other) noexcept { steal(other); }
  StableVector &operator=(StableVector &&other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~StableVector() { release(); }

  size_t size() const { return size_.load(std::memory_order_acquire); }
  bool empty() const { return size() == 0; }
  const T &operator[](size_t i) const {
    auto [segment, offset] = locate(i);
    return segments_[segment].load(std::memory_order_acquire)[offset];
  }
  T &operator[](size_t i) {
    auto [segment, offset] = locate(i);
    return segments_[segment].load(std::memory_order_acquire)[offset];
  }
  T &back() { return (*this)[size() - 1]; }
  const T &back() const { return (*this)[size() - 1]; }

  template <class... Args> T &emplace_back(Args &&...args) {
    const size_t i = size_.load(std::memory_order_relaxed);
    auto [segment, offset] = locate(i);
    T *elements = segments_[segment].load(std::memory_order_relaxed);
    if (!elements) {
      elements = new T[segmentSize(segment)];
      segments_[segment].store(elements, std::memory_order_release);
    }
    elements[offset] = T(std::forward<Args>(args)...);
    size_.store(i + 1, std::memory_order_release);
    return elements[offset];
  }
  void push_back(T value) { emplace_back(std::move(value)); }

private:
  static constexpr unsigned kFirstBits = 6; // the first segment holds 2^6 elements
  static constexpr size_t segmentSize(unsigned segment) { return size_t{1} << (segment + kFirstBits); }
  /// Element i is at offset i + 2^6 - 2^(k+6) of segment k = floor(log2(i + 2^6)) - 6.
  static std::pair<unsigned, size_t> locate(size_t i) {
    const size_t shifted = i + (size_t{1} << kFirstBits);
    const unsigned segment = static_cast<unsigned>(std::bit_width(shifted)) - 1 - kFirstBits;
    return {segment, shifted - segmentSize(segment)};
  }
  void release() {
    for (auto &s : segments_) delete[] s.exchange(nullptr);
    size_.store(0);
  }
  void steal(StableVector &other) {
    for (size_t k = 0; k < segments_.size(); ++k) segments_[k].store(other.segments_[k].exchange(nullptr));
    size_.store(other.size_.exchange(0));
  }

  std::array<std::atomic<T *>, 64 - kFirstBits> segments_{};
  std::atomic<size_t> size_{0};
};

} // namespace ptx
