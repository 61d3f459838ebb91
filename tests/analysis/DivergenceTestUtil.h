// A kernel parsed and analysed for the divergence tests, with look-ups of
// instructions by their PTX text.
#pragma once

#include "analysis/Divergence.h"
#include "tests/analysis/TestUtil.h"

#include <memory>
#include <ostream>
#include <string>

namespace analysis::test {

class Kernel {
public:
  /// `text` without a .version header gets one (PTX 8.0, `target`).
  explicit Kernel(const std::string &text, const std::string &target = "sm_80",
                  DivergenceOptions options = {}, const std::string &kernel = "k");

  /// Uniformity of the k-th register written by the first instruction of
  /// the kernel whose text contains `text`.
  Uniformity at(const std::string &text, uint32_t k = 0) const { return atIn(kernel_, text, k); }
  Uniformity atIn(const std::string &function, const std::string &text, uint32_t k = 0) const;
  Uniformity branchAt(const std::string &text) const;
  /// The affine form of that write.
  std::string formAt(const std::string &text, uint32_t k = 0) const;

  const ptx::Module &module() const { return *m_; }
  const ptx::Function &function(const std::string &name) const;
  const DivergenceResult &result() const { return result_; }
  std::string print(const std::string &function) const;

private:
  std::unique_ptr<ptx::Module> m_;
  std::string kernel_;
  DivergenceResult result_;
};

} // namespace analysis::test

namespace analysis {
/// Uniformity by name in test messages.
inline void PrintTo(Uniformity u, std::ostream *os) { *os << uniformityName(u); }
} // namespace analysis
