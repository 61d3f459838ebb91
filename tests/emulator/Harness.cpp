#include "tests/emulator/Harness.h"

#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "runtime/EmulatorDevice.h"
#if PTXVM_CPU_DEVICE
#include "translator/Translator.h"
#endif

#include <gtest/gtest.h>

#include <cstdlib>

namespace ptxvm::test {

std::string testDeviceName() {
  const char *name = std::getenv("PTXVM_TEST_DEVICE");
  return name && *name ? name : "emulator";
}

std::unique_ptr<runtime::Device> testDevice() {
  std::string error;
  std::unique_ptr<runtime::Device> device = runtime::createDevice(testDeviceName(), error);
  if (!device) ADD_FAILURE() << error;
  return device;
}

std::unique_ptr<emu::Engine> compiledEngine(const emu::Kernel &k, std::string &error) {
#if PTXVM_CPU_DEVICE
  const translator::JitOptions environment = translator::JitOptions::fromEnvironment();
  translator::JitOptions options;
  options.eager = true;
  // A disk cache only where the environment names its directory (ctest's
  // cpu: suites share one in the build tree, so that a module the GPU-truth
  // comparison compiled is not compiled again for its racecheck run); never
  // the user's.
  options.diskCache = environment.diskCache && !environment.cacheDirectory.empty();
  options.cacheDirectory = environment.cacheDirectory;
  // ctest's translator.unchecked runs the differential suites unchecked.
  options.checked = environment.checked;
  translator::CompileReport report;
  std::unique_ptr<emu::Engine> engine = translator::CompiledEngine::compile(k, options, report);
  if (!engine) error = "kernel " + k.name + " does not compile: " + report.error;
  return engine;
#else
  (void)k;
  error = "this build has no CPU device";
  return nullptr;
#endif
}

TestKernel decodeForTest(emu::Device &device, const ptx::Module &m, const std::string &name, bool compiled,
                         std::string &error) {
  TestKernel t;
  ptx::DiagnosticList diags;
  t.kernel = device.decode(m, name, diags);
  if (!t.kernel) {
    error = diags.renderText();
    return t;
  }
  if (compiled && !(t.engine = compiledEngine(*t.kernel, error))) t.kernel.reset();
  return t;
}

std::unique_ptr<ptx::Module> parseTestModule(const std::string &body, const std::string &file) {
  ptx::DiagnosticList diags;
  auto m = ptx::parseModule(ptxModule(body), file, diags);
  if (!m || diags.hasErrors()) {
    ADD_FAILURE() << file << " does not parse: " << diags.renderText();
    return nullptr;
  }
  return m;
}

std::unique_ptr<emu::Engine> testEngine(const emu::Kernel &k) {
  if (testDeviceName() != "cpu") return nullptr;
  std::string error;
  std::unique_ptr<emu::Engine> engine = compiledEngine(k, error);
  if (!engine) ADD_FAILURE() << "PTXVM_TEST_DEVICE=cpu: " << error;
  return engine;
}

bool EmuRun::has(ptx::DiagKind kind) const { return first(kind) != nullptr; }

const ptx::Diagnostic *EmuRun::first(ptx::DiagKind kind) const {
  for (const ptx::Diagnostic &d : diags.all())
    if (d.kind == kind) return &d;
  return nullptr;
}

std::string readTextFile(const std::string &path) {
  std::string text;
  ptx::DiagnosticList diags;
  ptx::readFile(path, text, diags);
  return text;
}

std::string diagnosticField(const ptx::Diagnostic &d, const std::string &key) {
  for (const auto &[k, v] : d.fields)
    if (k == key) return v;
  return "<no field '" + key + "'>";
}

std::string ptxModule(const std::string &body, const std::string &target, const std::string &version) {
  return ".version " + version + "\n.target " + target + "\n.address_size 64\n" + body;
}

EmuRun runKernel(const std::string &ptxText, const std::string &kernel, emu::Dim3 grid, emu::Dim3 block,
                 const std::vector<Arg> &args, unsigned hostThreads, uint32_t dynamicShared,
                 uint64_t maxInstructions, bool randomSchedule, uint64_t seed, bool racecheck,
                 bool statistics) {
  EmuRun run;
  auto m = ptx::parseModule(ptxText, "test.ptx", run.diags);
  if (run.diags.hasErrors()) return run;
  ptx::verifyModule(*m, run.diags);
  if (run.diags.hasErrors()) return run;
  run.parsed = true;
  std::unique_ptr<runtime::Device> served = testDevice();
  if (!served) return run;
  runtime::Device &device = *served;
  auto k = device.loadKernel(*m, kernel, run.diags);
  if (!k) return run;
  // On the CPU device every kernel must compile: a note that one runs on
  // the interpreter instead is a failure of the translator.
  for (const ptx::Diagnostic &d : run.diags.all())
    if (d.severity == ptx::Severity::Note && d.kind == ptx::DiagKind::Unsupported)
      ADD_FAILURE() << d.renderText();
  const runtime::KernelAttributes &abi = k->attributes();
  runtime::LaunchConfig config;
  config.grid = {grid.x, grid.y, grid.z};
  config.block = {block.x, block.y, block.z};
  config.threads = hostThreads;
  config.dynamicShared = dynamicShared;
  config.maxInstructions = maxInstructions;
  config.randomSchedule = randomSchedule;
  config.seed = seed;
  config.racecheck = racecheck;
  config.statistics = statistics;
  config.params.assign(abi.paramBytes, 0);
  std::vector<std::pair<uint64_t, size_t>> buffers;
  for (size_t i = 0; i < args.size() && i < abi.paramOffsets.size(); ++i) {
    std::vector<uint8_t> bytes = args[i].bytes;
    if (args[i].buffer) {
      uint64_t address = device.allocate(std::max<size_t>(bytes.size(), 1));
      device.write(address, bytes.data(), bytes.size());
      buffers.emplace_back(address, bytes.size());
      bytes.resize(8);
      std::memcpy(bytes.data(), &address, 8);
    }
    std::memcpy(config.params.data() + abi.paramOffsets[i], bytes.data(),
                std::min<size_t>(bytes.size(), abi.paramSizes[i]));
  }
  run.result = device.launch(*k, config, run.diags);
  for (auto [address, size] : buffers) {
    std::vector<uint8_t> data(size);
    device.read(address, data.data(), size);
    run.buffers.push_back(std::move(data));
  }
  // Keep the module alive as long as the diagnostics refer to it: they are
  // copies, so nothing to do.
  return run;
}

} // namespace ptxvm::test
