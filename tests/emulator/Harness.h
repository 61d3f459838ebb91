// Runs PTX kernels on the emulator from tests: parse, verify, load, launch,
// and read the buffers back — through the device interface
// (runtime/EmulatorDevice), as the runtime and `ptxvm run` do.
#pragma once

#include "emulator/Device.h"
#include "runtime/Device.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace ptxvm::test {

/// One kernel argument: a scalar, or a device buffer with initial contents
/// (its address is passed; its final contents come back in EmuRun).
struct Arg {
  std::vector<uint8_t> bytes;
  bool buffer = false;

  template <typename T> static Arg scalar(T v) {
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
  template <typename T> static Arg array(const std::vector<T> &v) {
    Arg a;
    a.buffer = true;
    a.bytes.resize(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    return a;
  }
};

struct EmuRun {
  runtime::LaunchResult result; // error: the CUDA error a GPU would give
  ptx::DiagnosticList diags;
  std::vector<std::vector<uint8_t>> buffers; // per buffer argument, in order
  bool parsed = false;

  template <typename T> std::vector<T> buffer(size_t i) const {
    std::vector<T> out(buffers.at(i).size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), buffers[i].data(), out.size() * sizeof(T));
    return out;
  }
  /// Whether a diagnostic of this kind was reported.
  bool has(ptx::DiagKind kind) const;
  const ptx::Diagnostic *first(ptx::DiagKind kind) const;
};

/// Parses and verifies `ptx` (parse or verify errors end up in diags with
/// parsed = false), then launches `kernel`. `statistics` fills
/// EmuRun::result.stats (off: the launch has no observer).
EmuRun runKernel(const std::string &ptx, const std::string &kernel, emu::Dim3 grid, emu::Dim3 block,
                 const std::vector<Arg> &args, unsigned hostThreads = 1, uint32_t dynamicShared = 0,
                 uint64_t maxInstructions = 100'000'000, bool randomSchedule = false, uint64_t seed = 0,
                 bool racecheck = false, bool statistics = false);

/// The device tests run kernels on: PTXVM_TEST_DEVICE names it (emulator
/// by default; ctest runs the emulator suites a second time with `cpu`, on
/// compiled code).
std::string testDeviceName();
std::unique_ptr<runtime::Device> testDevice();
/// For tests that drive emu::Device directly: the engine PTXVM_TEST_DEVICE
/// asks for (null: the interpreter). A kernel that does not compile fails
/// the test.
std::unique_ptr<emu::Engine> testEngine(const emu::Kernel &k);
/// `k` compiled now for the CPU device, not kept on disk (every run of a
/// suite exercises the code generator); null with `error` saying why (also
/// in a build without the CPU device). PTXVM_UNCHECKED=1 compiles it unchecked.
std::unique_ptr<emu::Engine> compiledEngine(const emu::Kernel &k, std::string &error);

/// A kernel decoded for a differential test, and its compiled engine when
/// asked for one (null: the interpreter).
struct TestKernel {
  std::unique_ptr<emu::Kernel> kernel;
  std::unique_ptr<emu::Engine> engine;
};
/// Decodes kernel `name` of `m` on `device` and, when `compiled`, compiles it
/// (compiledEngine); a null kernel with `error` saying why not.
TestKernel decodeForTest(emu::Device &device, const ptx::Module &m, const std::string &name, bool compiled,
                         std::string &error);
/// `body` (ptxModule) parsed, or null after a test failure naming `file`.
std::unique_ptr<ptx::Module> parseTestModule(const std::string &body, const std::string &file);

/// The contents of a file (empty when it cannot be read), through
/// ptx::readFile.
std::string readTextFile(const std::string &path);

/// Field `key` of diagnostic `d`, or "<no field 'key'>" (so that an
/// assertion on a missing field says so).
std::string diagnosticField(const ptx::Diagnostic &d, const std::string &key);

/// `.version 8.0 / .target sm_80 / .address_size 64` followed by `body`.
std::string ptxModule(const std::string &body, const std::string &target = "sm_80",
                      const std::string &version = "8.0");

} // namespace ptxvm::test
