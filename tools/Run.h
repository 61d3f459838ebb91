// `ptxvm run`: launch one kernel of a PTX file on the emulator, with
// arguments given on the command line, and report what happened.
#pragma once

#include <string>
#include <vector>

namespace ptxvm {

int runKernelCommand(const std::vector<std::string> &args);
extern const char kRunHelp[];

} // namespace ptxvm
