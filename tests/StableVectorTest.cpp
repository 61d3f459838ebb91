// ptx::StableVector (ptx/StableVector.h): indexing across segment boundaries, moves, and reads of
// published elements while another thread appends (a module's lazily parsed bodies add names and
// instruction descriptions while kernels of the module run).
#include "ptx/StableVector.h"
#include "ptx/IR.h"
#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(StableVector, IndexesAcrossSegmentsAndNeverMovesAnElement) {
  ptx::StableVector<std::string> v;
  EXPECT_TRUE(v.empty());
  std::vector<const std::string *> where;
  for (int i = 0; i < 5000; ++i) where.push_back(&v.emplace_back(std::to_string(i)));
  ASSERT_EQ(v.size(), 5000u);
  for (int i = 0; i < 5000; ++i) {
    EXPECT_EQ(v[i], std::to_string(i)) << i;
    EXPECT_EQ(&v[i], where[i]) << i; // the address handed out when it was appended
  }
  EXPECT_EQ(v.back(), "4999");
  ptx::StableVector<std::string> moved = std::move(v);
  EXPECT_EQ(moved.size(), 5000u);
  EXPECT_EQ(&moved[4095], where[4095]);
  EXPECT_EQ(v.size(), 0u); // NOLINT(bugprone-use-after-move): a moved-from vector is empty
}

TEST(StableVector, ReadersSeePublishedElementsWhileOneThreadAppends) {
  ptx::StableVector<uint64_t> v;
  v.push_back(0);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> wrong{0};
  std::thread reader([&] {
    while (!done.load()) {
      const size_t n = v.size();
      for (size_t i = 0; i < n; i += 97)
        if (v[i] != i * 3) ++wrong;
    }
  });
  for (uint64_t i = 1; i < 200000; ++i) v.push_back(i * 3);
  done = true;
  reader.join();
  EXPECT_EQ(wrong.load(), 0u);
}

TEST(StableVector, AModulesNamesStayReadableWhileALazyBodyIsParsed) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry first(.param .u64 p) { ret; }\n"
                     ".visible .entry second(.param .u64 q) {\n";
  for (int i = 0; i < 400; ++i) text += "  .reg .b32 %v" + std::to_string(i) + ";\n";
  text += "  ret;\n}\n";
  ptx::DiagnosticList diags;
  ptx::ParseOptions options;
  options.lazyBodies = true;
  std::unique_ptr<ptx::Module> m = ptx::parseModule(text, "lazy.ptx", diags, options);
  ASSERT_TRUE(m && !diags.hasErrors());
  ptx::Function *second = m->findFunction("second");
  ASSERT_TRUE(second && !second->bodyParsed);
  const size_t before = m->names.size();
  std::vector<std::string> expected;
  for (size_t n = 0; n < before; ++n) expected.emplace_back(m->str(static_cast<ptx::Name>(n)));
  std::atomic<bool> done{false};
  std::atomic<uint64_t> wrong{0};
  std::thread reader([&] {
    while (!done.load())
      for (size_t n = 0; n < before; ++n)
        if (m->str(static_cast<ptx::Name>(n)) != expected[n]) ++wrong;
  });
  EXPECT_TRUE(ptx::materializeBody(*m, *second, diags));
  done = true;
  reader.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GE(m->names.size(), before + 400);
}

} // namespace
