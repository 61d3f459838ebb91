// The emulator's post-dominator tree: the generic dominator tree of the
// reversed CFG, rooted at the virtual exit.
#include "analysis/PostDominators.h"

namespace analysis {

PostDominatorTree::PostDominatorTree(const ptx::Function &fn)
    : numBlocks_(static_cast<uint32_t>(fn.blocks.size())) {
  CfgOptions options;
  options.guardedReturnEdges = false;
  tree_ = DominatorTree::backward(Cfg(fn, options));
}

std::string PostDominatorTree::print() const {
  std::string out;
  for (uint32_t b = 0; b < numBlocks_; ++b) {
    uint32_t ip = ipdom(b);
    out += "bb" + std::to_string(b) + " -> ipdom ";
    out += ip == numBlocks_ ? std::string("exit") : "bb" + std::to_string(ip);
    out += '\n';
  }
  return out;
}

} // namespace analysis
