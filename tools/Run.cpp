#include "tools/Run.h"

#include "ptx/Verifier.h"
#include "runtime/Device.h"
#include "runtime/cudart/LaunchReport.h"
#include "tools/ArgumentSpec.h"
#include "tools/CommandLine.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ptxvm {

const char kRunHelp[] = R"(usage: ptxvm run FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [options]

Runs one kernel on a device (the SIMT emulator unless --device names another).
  --kernel NAME          the .entry to launch
  --grid X[,Y,Z]         CTAs in the grid
  --block X[,Y,Z]        threads in a CTA
  --shared BYTES         dynamic shared memory
  --arg SPEC             one kernel argument, in parameter order:
                           u32:5  s32:-1  u64:7  s64:-7  f32:1.5  f64:2.5   a scalar
                           buf:BYTES[:INIT][>OUT]                          a device buffer (its address)
                             INIT: zeros (default), iota.u32, iota.f32, fill.u32=V, fill.f32=V,
                                   random=SEED (bytes), file=PATH
                             >OUT: write the buffer to OUT after the run
  --device NAME          the device to run on (built in: emulator)
  --threads N            host threads (default: all cores)
  --racecheck            report shared-memory accesses of different threads not ordered by a
                         barrier, __syncwarp or mbarrier (lanes of a warp included)
  --schedule=random      randomise warp order and divergent-side order ...
  --seed S               ... from this seed (default 1)
  --max-instructions N   stop a launch after N warp instructions per CTA
  --report FILE.json     launches and diagnostics as JSON
  --stats                print instruction counts and SIMD efficiency

Exit status: 0 when the kernel completed without error diagnostics, 1 otherwise, 2 on usage errors.
)";

namespace {

bool parseDim(const std::string &s, runtime::Dim3 &out) {
  uint32_t v[3] = {1, 1, 1};
  std::stringstream ss(s);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i == 3 || part.empty()) return false;
    char *end;
    unsigned long x = std::strtoul(part.c_str(), &end, 10);
    if (*end || x == 0 || x > 0xFFFFFFFFul) return false;
    v[i++] = static_cast<uint32_t>(x);
  }
  if (i == 0) return false;
  out = {v[0], v[1], v[2]};
  return true;
}

/// A decimal or 0x number for an option; false on anything else.
bool parseNumber(const std::string &text, uint64_t &out) {
  if (text.empty() || text[0] == '-') return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 0);
  return errno == 0 && end && *end == '\0';
}

/// CUDA's limits on a launch's shape (what `exec` enforces through the runtime).
bool checkLaunchShape(const runtime::Dim3 &grid, const runtime::Dim3 &block, std::string &error) {
  if (grid.x > 0x7FFFFFFFu || grid.y > 65535 || grid.z > 65535) {
    error = "--grid is beyond CUDA's limits (x up to 2^31-1, y and z up to 65535)";
    return false;
  }
  if (block.x > 1024 || block.y > 1024 || block.z > 64 || block.count() > 1024) {
    error = "--block is beyond CUDA's limits (x and y up to 1024, z up to 64, 1024 threads in all)";
    return false;
  }
  return true;
}

} // namespace

int runKernelCommand(const std::vector<std::string> &args) {
  InputOptions in;
  std::string kernelName, reportPath, error, deviceName;
  runtime::LaunchConfig config;
  bool haveGrid = false, haveBlock = false, stats = false;
  std::vector<std::string> argSpecs;
  auto fail = [](const std::string &m) {
    std::fprintf(stderr, "ptxvm run: %s\n(run 'ptxvm run --help' for usage)\n", m.c_str());
    return kUsage;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    bool consumed = false;
    if (!parseCommonOption(a, in, error, consumed)) return fail(error);
    if (consumed) continue;
    auto value = [&]() -> const std::string * { return i + 1 < args.size() ? &args[++i] : nullptr; };
    const std::string *v = nullptr;
    if (a == "--kernel" && (v = value()))
      kernelName = *v;
    else if (a == "--device" && (v = value()))
      deviceName = *v;
    else if (a == "--grid" && (v = value())) {
      if (!parseDim(*v, config.grid)) return fail("bad --grid '" + *v + "'");
      haveGrid = true;
    } else if (a == "--block" && (v = value())) {
      if (!parseDim(*v, config.block)) return fail("bad --block '" + *v + "'");
      if (config.block.count() > 1024) return fail("a CTA has at most 1024 threads");
      haveBlock = true;
    } else if (a == "--shared" && (v = value())) {
      uint64_t n;
      if (!parseNumber(*v, n) || n > (1u << 30)) return fail("bad --shared '" + *v + "'");
      config.dynamicShared = static_cast<uint32_t>(n);
    } else if (a == "--arg" && (v = value()))
      argSpecs.push_back(*v);
    else if (a == "--threads" && (v = value())) {
      uint64_t n;
      if (!parseNumber(*v, n) || n == 0 || n > 4096) return fail("bad --threads '" + *v + "'");
      config.threads = static_cast<unsigned>(n);
    } else if (a == "--max-instructions" && (v = value())) {
      if (!parseNumber(*v, config.maxInstructions) || config.maxInstructions == 0)
        return fail("bad --max-instructions '" + *v + "'");
    } else if (a == "--report" && (v = value()))
      reportPath = *v;
    else if (a == "--stats")
      stats = true;
    else if (a == "--racecheck")
      config.racecheck = true;
    else if (a == "--schedule=random")
      config.randomSchedule = true;
    else if (a == "--schedule=deterministic")
      config.randomSchedule = false;
    else if (a == "--seed" && (v = value())) {
      if (!parseNumber(*v, config.seed)) return fail("bad --seed '" + *v + "'");
    } else if (!a.starts_with("--") && in.file.empty())
      in.file = a;
    else
      return fail("unknown or incomplete option '" + a + "'");
  }
  if (in.file.empty() || kernelName.empty() || !haveGrid || !haveBlock)
    return fail("FILE, --kernel, --grid and --block are required");
  if (!reportPath.empty() && !writable(reportPath))
    return fail("cannot write the report to '" + reportPath + "'");
  if (!checkLaunchShape(config.grid, config.block, error)) return fail(error);

  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (m && !diags.hasErrors()) ptx::verifyModule(*m, diags);
  if (!m || diags.hasErrors()) {
    printDiagnostics(diags, in.json);
    return kDiagnostics;
  }
  std::unique_ptr<runtime::Device> device = runtime::createDevice(deviceName, error);
  if (!device) return fail(error);
  auto kernel = device->loadKernel(*m, kernelName, diags);
  if (!kernel) {
    printDiagnostics(diags, in.json);
    return kDiagnostics;
  }
  const runtime::KernelAttributes &abi = kernel->attributes();
  if (argSpecs.size() != abi.paramOffsets.size())
    return fail("kernel '" + kernelName + "' takes " + std::to_string(abi.paramOffsets.size()) +
                " arguments, " + std::to_string(argSpecs.size()) + " given");
  std::vector<Buffer> buffers;
  config.params.assign(abi.paramBytes, 0);
  for (size_t i = 0; i < argSpecs.size(); ++i) {
    std::vector<uint8_t> bytes;
    if (!buildArgument(argSpecs[i], *device, bytes, buffers, error)) return fail(error);
    if (bytes.size() > abi.paramSizes[i])
      return fail("argument " + std::to_string(i + 1) + " ('" + argSpecs[i] + "') is " +
                  std::to_string(bytes.size()) + " bytes; the parameter is " +
                  std::to_string(abi.paramSizes[i]));
    std::memcpy(config.params.data() + abi.paramOffsets[i], bytes.data(), bytes.size());
  }
  runtime::LaunchResult r = device->launch(*kernel, config, diags);
  for (const Buffer &b : buffers) {
    if (b.out.empty()) continue;
    std::vector<uint8_t> data(b.size);
    device->read(b.address, data.data(), b.size);
    std::ofstream out(b.out, std::ios::binary);
    out.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(b.size));
  }
  printDiagnostics(diags, false);
  if (stats || !r.ok) {
    const runtime::LaunchStats &s = r.stats;
    double simd = s.warpInstructions ? double(s.threadInstructions) / (32.0 * s.warpInstructions) : 0;
    std::fprintf(
        stderr,
        "%s: %s%s%s; %llu warp instructions, %llu thread instructions, SIMD efficiency %.1f%%, %.3f s\n",
        kernelName.c_str(), r.status.c_str(), r.error.empty() ? "" : " with ", r.error.c_str(),
        (unsigned long long)s.warpInstructions, (unsigned long long)s.threadInstructions, simd * 100,
        r.wallSeconds);
  }
  if (stats) {
    std::fprintf(stderr, "  divergent branches: %llu\n", (unsigned long long)r.stats.divergentBranches);
    for (size_t w = 0; w < r.stats.perWarp.size(); ++w) {
      auto [warpInstrs, threadInstrs] = r.stats.perWarp[w];
      std::fprintf(stderr, "  warp %zu: %llu warp instructions, SIMD efficiency %.1f%%\n", w,
                   (unsigned long long)warpInstrs,
                   warpInstrs ? 100.0 * threadInstrs / (32.0 * warpInstrs) : 0.0);
    }
    for (size_t b = 0; b < 16; ++b)
      if (r.stats.barrierWaits[b])
        std::fprintf(stderr, "  barrier %zu: %llu warp waits\n", b,
                     (unsigned long long)r.stats.barrierWaits[b]);
    for (const auto &[space, count] : r.stats.memoryOps)
      if (count)
        std::fprintf(stderr, "  %s memory: %llu thread accesses\n", space.c_str(), (unsigned long long)count);
  }
  if (!reportPath.empty())
    cudart::writeReport(reportPath, {cudart::launchJson(kernelName, config.grid, config.block, r)}, diags);
  return r.ok && !diags.hasErrors() ? kOk : kDiagnostics;
}

} // namespace ptxvm
