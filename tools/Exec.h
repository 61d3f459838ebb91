// `ptxvm exec`: run an unmodified CUDA program (built with `nvcc -cudart shared`) on a ptxvm
// device, with ptxvm's libcudart.so.13 found first and its checkers configured.
#pragma once

#include <string>
#include <vector>

namespace ptxvm {

int execCommand(const std::vector<std::string> &args);
extern const char kExecHelp[];

/// The directory holding ptxvm's libcudart.so.13 for the ptxvm binary at
/// `self` (the build tree's lib/, or an install's lib/ptxvm/), or "".
std::string findCudartDirectory(const std::string &self);

} // namespace ptxvm
