// Device printf formatting (runtime/cudart/Printf): arguments packed with natural alignment,
// floats as doubles, strings by address, and CUDA's return value.
#include "runtime/cudart/Printf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

namespace {

/// An argument buffer laid out as nvcc lays out a printf's arguments.
class Packed final : public cudart::PrintfArguments {
public:
  template <typename T> Packed &add(T v) {
    size_t at = (bytes_.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
    return *this;
  }
  /// A string argument: its "device address" in the buffer, the text in a table.
  Packed &addString(uint64_t address, std::string text) {
    strings_[address] = std::move(text);
    return add<uint64_t>(address);
  }
  bool next(unsigned size, uint64_t &bits) override {
    offset_ = (offset_ + size - 1) / size * size;
    if (offset_ + size > bytes_.size()) return false;
    bits = 0;
    std::memcpy(&bits, bytes_.data() + offset_, size);
    offset_ += size;
    return true;
  }
  bool string(uint64_t address, std::string &out) override {
    auto it = strings_.find(address);
    if (it == strings_.end()) return false;
    out = it->second;
    return true;
  }

private:
  std::vector<uint8_t> bytes_;
  std::map<uint64_t, std::string> strings_;
  size_t offset_ = 0;
};

std::string format(const char *f, Packed &args) { return cudart::formatDevicePrintf(f, args).text; }

TEST(CudartPrintf, IntegersOfEveryLengthAndBase) {
  Packed a;
  a.add<int32_t>(-42).add<uint32_t>(4000000000u).add<int32_t>(255).add<int32_t>(255).add<int32_t>(8);
  EXPECT_EQ(format("%d %u %x %X %o", a), "-42 4000000000 ff FF 10");
  Packed b;
  b.add<int32_t>(7).add<int64_t>(-5000000000ll).add<uint64_t>(18000000000000000000ull).add<int64_t>(1);
  EXPECT_EQ(format("%i %lld %llu %ld", b), "7 -5000000000 18000000000000000000 1");
  Packed c;
  c.add<int32_t>(70000).add<int32_t>(300);
  EXPECT_EQ(format("%hd %hhu", c), "4464 44"); // converted to short and unsigned char, as C does
}

TEST(CudartPrintf, ArgumentsKeepTheirNaturalAlignment) {
  // int at 0, double at 8, int at 16, pointer at 24: what nvcc emits for
  // printf("%d %f %c %p", int, float, char, void *).
  Packed a;
  a.add<int32_t>(3).add<double>(2.5).add<int32_t>('x').add<uint64_t>(0x1234);
  EXPECT_EQ(format("%d %f %c %p", a), "3 2.500000 x 0x1234");
}

TEST(CudartPrintf, FloatsWidthsPrecisionAndFlags) {
  Packed a;
  a.add<double>(3.14159265).add<double>(-0.000123).add<double>(1e10).add<double>(1.0).add<double>(255.0);
  EXPECT_EQ(format("[%8.3f] [%e] [%g] [%+.1f] [%a]", a),
            "[   3.142] [-1.230000e-04] [1e+10] [+1.0] [0x1.fep+7]");
  Packed b;
  b.add<int32_t>(42).add<int32_t>(42).add<int32_t>(-42).add<int32_t>(42);
  EXPECT_EQ(format("[%5d][%-5d][%05d][%#x]", b), "[   42][42   ][-0042][0x2a]");
}

TEST(CudartPrintf, StarWidthAndPrecisionComeFromTheArguments) {
  Packed a;
  a.add<int32_t>(6).add<int32_t>(2).add<double>(1.23456).add<int32_t>(-4).add<int32_t>(9);
  EXPECT_EQ(format("[%*.*f][%*d]", a), "[  1.23][9   ]");
}

TEST(CudartPrintf, StringsAndPercent) {
  Packed a;
  a.addString(0x700000001000, "world").add<uint64_t>(0).addString(0x700000002000, "abcdef");
  cudart::PrintfResult r = cudart::formatDevicePrintf("100%% hello %s %s [%.3s]\n", a);
  EXPECT_EQ(r.text, "100% hello world (null) [abc]\n");
  EXPECT_EQ(r.arguments, 3);
  EXPECT_TRUE(r.ok);
}

TEST(CudartPrintf, ReturnsTheNumberOfArguments) {
  Packed none;
  cudart::PrintfResult r = cudart::formatDevicePrintf("no arguments\n", none);
  EXPECT_EQ(r.text, "no arguments\n");
  EXPECT_EQ(r.arguments, 0);
}

TEST(CudartPrintf, MissingArgumentsLeaveTheRestAsWritten) {
  Packed a;
  a.add<int32_t>(1);
  cudart::PrintfResult r = cudart::formatDevicePrintf("%d and %d and %s", a);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "1 and %d and %s");
}

TEST(CudartPrintf, UnknownConversionsAndTruncatedSpecsAreKept) {
  Packed a;
  a.add<int32_t>(5);
  EXPECT_EQ(format("%k %d %", a), "%k 5 %");
}

} // namespace
