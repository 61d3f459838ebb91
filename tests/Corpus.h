// The test corpus: hand-written PTX in kernels/ptx/ and PTX that nvcc
// generated from kernels/*.cu into the build's corpus directory.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ptxvm::test {

struct CorpusFile {
  std::string path;
  std::string name; // a gtest-safe name
  std::string arch; // ptxas -arch for the file (from its name or a `// ptxas-arch:` line)
};

/// Shown by gtest instead of the object's bytes.
inline void PrintTo(const CorpusFile &f, std::ostream *os) { *os << f.path; }

/// Every corpus file, in a stable order.
const std::vector<CorpusFile> &corpusFiles();
std::string readText(const std::string &path);
/// The ptxas to use, or empty when none is installed.
std::string ptxasPath();
/// Runs ptxas on `text` for `arch`; returns true when it accepts, otherwise
/// false with its messages in `log`.
bool ptxasAccepts(const std::string &text, const std::string &arch, std::string &log);

} // namespace ptxvm::test
