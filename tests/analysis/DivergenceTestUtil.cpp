// A kernel parsed and analysed for the divergence tests.
#include "tests/analysis/DivergenceTestUtil.h"

#include <gtest/gtest.h>

namespace analysis::test {

Kernel::Kernel(const std::string &text, const std::string &target, DivergenceOptions options,
               const std::string &kernel)
    : kernel_(kernel) {
  std::string full = text.find(".version") == std::string::npos
                         ? ".version 8.0\n.target " + target + "\n.address_size 64\n" + text
                         : text;
  m_ = parse(full);
  result_ = analyzeDivergence(*m_, function(kernel), options);
}

const ptx::Function &Kernel::function(const std::string &name) const {
  const ptx::Function *f = m_->findFunction(name);
  if (!f) {
    ADD_FAILURE() << "no function " << name;
    return m_->functions.at(0);
  }
  return *f;
}

Uniformity Kernel::atIn(const std::string &function, const std::string &text, uint32_t k) const {
  const ptx::Function &fn = this->function(function);
  return result_.value(fn, instrContaining(*m_, fn, text), k);
}

Uniformity Kernel::branchAt(const std::string &text) const {
  const ptx::Function &fn = function(kernel_);
  return result_.branch(fn, instrContaining(*m_, fn, text));
}

std::string Kernel::formAt(const std::string &text, uint32_t k) const {
  const ptx::Function &fn = function(kernel_);
  const FunctionDivergence *f = result_.find(fn);
  uint32_t i = instrContaining(*m_, fn, text);
  auto defs = f->gated().ssa().defUse().defs(i);
  for (uint32_t slot = 0; slot < defs.size(); ++slot)
    if (defs[slot].registerIndex == k) return f->defForm(i, slot).str();
  return "none";
}

std::string Kernel::print(const std::string &function) const {
  const FunctionDivergence *f = result_.find(this->function(function));
  return f ? f->print(*m_) : "not analysed";
}

} // namespace analysis::test
