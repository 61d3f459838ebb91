#include "tools/Run.h"

#include "emulator/Device.h"
#include "ptx/Verifier.h"
#include "runtime/cudart/LaunchReport.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <fstream>

namespace ptxvm {

namespace {

struct Buffer {
  uint64_t address = 0, size = 0;
  std::string out;
};

uint64_t splitmix(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Builds one argument's bytes (and its buffer); false with `error`.
bool buildArgument(const std::string &spec, emu::Device &dev, std::vector<uint8_t> &bytes,
                   std::vector<Buffer> &buffers, std::string &error) {
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon), rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  auto put = [&](const void *p, size_t n) {
    bytes.assign(static_cast<const uint8_t *>(p), static_cast<const uint8_t *>(p) + n);
  };
  char *end = nullptr;
  if (kind == "u32" || kind == "s32") {
    uint32_t v = static_cast<uint32_t>(std::strtoll(rest.c_str(), &end, 0));
    put(&v, 4);
  } else if (kind == "u64" || kind == "s64") {
    uint64_t v = static_cast<uint64_t>(std::strtoll(rest.c_str(), &end, 0));
    put(&v, 8);
  } else if (kind == "f32") {
    float v = std::strtof(rest.c_str(), &end);
    put(&v, 4);
  } else if (kind == "f64") {
    double v = std::strtod(rest.c_str(), &end);
    put(&v, 8);
  } else if (kind == "buf") {
    Buffer b;
    size_t gt = rest.find('>');
    if (gt != std::string::npos) {
      b.out = rest.substr(gt + 1);
      rest = rest.substr(0, gt);
    }
    size_t c2 = rest.find(':');
    std::string sizeText = rest.substr(0, c2), init = c2 == std::string::npos ? "zeros" : rest.substr(c2 + 1);
    b.size = std::strtoull(sizeText.c_str(), &end, 0);
    if (*end == 'K' || *end == 'k')
      b.size <<= 10, ++end;
    else if (*end == 'M' || *end == 'm')
      b.size <<= 20, ++end;
    if (*end || b.size == 0) {
      error = "bad buffer size in '" + spec + "'";
      return false;
    }
    std::vector<uint8_t> data(b.size);
    if (init == "iota.u32") {
      for (uint64_t i = 0; i + 4 <= b.size; i += 4) {
        uint32_t v = static_cast<uint32_t>(i / 4);
        std::memcpy(&data[i], &v, 4);
      }
    } else if (init == "iota.f32") {
      for (uint64_t i = 0; i + 4 <= b.size; i += 4) {
        float v = static_cast<float>(i / 4);
        std::memcpy(&data[i], &v, 4);
      }
    } else if (init.starts_with("fill.u32=")) {
      uint32_t v = static_cast<uint32_t>(std::strtoull(init.c_str() + 9, nullptr, 0));
      for (uint64_t i = 0; i + 4 <= b.size; i += 4) std::memcpy(&data[i], &v, 4);
    } else if (init.starts_with("fill.f32=")) {
      float v = std::strtof(init.c_str() + 9, nullptr);
      for (uint64_t i = 0; i + 4 <= b.size; i += 4) std::memcpy(&data[i], &v, 4);
    } else if (init.starts_with("random=")) {
      uint64_t seed = std::strtoull(init.c_str() + 7, nullptr, 0);
      for (uint64_t i = 0; i < b.size; ++i) data[i] = static_cast<uint8_t>(splitmix(seed));
    } else if (init.starts_with("file=")) {
      std::ifstream in(init.substr(5), std::ios::binary);
      if (!in) {
        error = "cannot read '" + init.substr(5) + "'";
        return false;
      }
      in.read(reinterpret_cast<char *>(data.data()), static_cast<std::streamsize>(b.size));
    } else if (init != "zeros") {
      error = "unknown buffer contents '" + init + "'";
      return false;
    }
    b.address = dev.global.allocate(b.size);
    dev.global.write(b.address, data.data(), b.size);
    put(&b.address, 8);
    buffers.push_back(b);
    return true;
  } else {
    error = "unknown argument kind '" + kind + "' in '" + spec + "' (see ptxvm run --help)";
    return false;
  }
  if (!end || *end) {
    error = "bad number in '" + spec + "'";
    return false;
  }
  return true;
}

} // namespace

Command addRunCommand(CLI::App &ptxvm) {
  auto o = std::make_shared<RunOptions>();
  CLI::App *cmd = ptxvm.add_subcommand("run", "run a kernel of a PTX file on the SIMT emulator");
  addInputOptions(*cmd, o->in);
  cmd->add_option("--device", o->device, "the device to run on (emulator)")->type_name("NAME");
  cmd->add_option("--kernel", o->kernel, "the .entry to launch")->required()->type_name("NAME");
  cmd->add_option("--grid", o->grid, "CTAs in the grid")
      ->required()
      ->type_name("X[,Y,Z]")
      ->check(dimensions(0));
  cmd->add_option("--block", o->block, "threads in a CTA")
      ->required()
      ->type_name("X[,Y,Z]")
      ->check(dimensions(1024));
  cmd->add_option("--shared", o->sharedBytes, "dynamic shared memory")
      ->check(CLI::Range(uint32_t{0}, uint32_t{1} << 30))
      ->type_name("BYTES");
  cmd->add_option("--arg", o->args, "one kernel argument, in parameter order (SPEC: see below)")
      ->allow_extra_args(false)
      ->type_name("SPEC");
  cmd->add_option("--threads", o->threads, "host threads (default: all cores)")
      ->check(CLI::Range(1u, 4096u))
      ->type_name("N");
  cmd->add_flag("--racecheck", o->racecheck,
                "report shared-memory accesses of different threads not ordered by a barrier, __syncwarp or "
                "mbarrier (lanes of a warp included)");
  cmd->add_option("--schedule", o->schedule, "warp order and divergent-side order: deterministic or random")
      ->check(CLI::IsMember({"deterministic", "random"}))
      ->type_name("MODE");
  cmd->add_option("--seed", o->seed, "seed of --schedule=random (default 1)")->type_name("S");
  cmd->add_option("--max-instructions", o->maxInstructions, "stop a launch after N warp instructions per CTA")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  cmd->add_option("--report", o->reportPath, "launches and diagnostics as JSON")->type_name("FILE.json");
  cmd->add_flag("--stats", o->stats, "print instruction counts and SIMD efficiency");
  cmd->footer(R"(SPEC:
  u32:5  s32:-1  u64:7  s64:-7  f32:1.5  f64:2.5   a scalar
  buf:BYTES[:INIT][>OUT]                          a device buffer (its address)
    INIT: zeros (default), iota.u32, iota.f32, fill.u32=V, fill.f32=V, random=SEED (bytes), file=PATH
    >OUT: write the buffer to OUT after the run

Exit status: 0 when the kernel completed without error diagnostics, 1 otherwise, 2 on usage errors.)");
  return {cmd, [o, cmd] { return runKernel(*o, *cmd); }};
}

int runKernel(const RunOptions &o, const CLI::App &command) {
  const InputOptions &in = o.in;
  const std::string &kernelName = o.kernel, &reportPath = o.reportPath;
  const std::vector<std::string> &argSpecs = o.args;
  const bool stats = o.stats;
  std::string error;
  auto fail = [&](const std::string &m) { return usageError(command, m); };
  emu::LaunchConfig config;
  auto [gx, gy, gz] = parseDimensions(o.grid);
  auto [bx, by, bz] = parseDimensions(o.block);
  config.grid = {gx, gy, gz};
  config.block = {bx, by, bz};
  config.dynamicShared = o.sharedBytes;
  config.threads = o.threads;
  config.racecheck = o.racecheck;
  config.randomSchedule = o.schedule == "random";
  config.seed = o.seed;
  if (o.maxInstructions) config.maxInstructions = o.maxInstructions;
  if (o.device != "emulator") return fail("device '" + o.device + "' is not built in (built in: emulator)");

  ptx::DiagnosticList diags;
  auto m = loadModule(in, diags);
  if (m && !diags.hasErrors()) ptx::verifyModule(*m, diags);
  if (!m || diags.hasErrors()) {
    printDiagnostics(diags, in.json);
    return kDiagnostics;
  }
  emu::Device device;
  auto kernel = device.decode(*m, kernelName, diags);
  if (!kernel) {
    printDiagnostics(diags, in.json);
    return kDiagnostics;
  }
  if (argSpecs.size() != kernel->paramOffsets.size())
    return fail(fmt::format("kernel '{}' takes {} arguments, {} given", kernelName,
                            kernel->paramOffsets.size(), argSpecs.size()));
  std::vector<Buffer> buffers;
  config.params.assign(kernel->paramBytes, 0);
  for (size_t i = 0; i < argSpecs.size(); ++i) {
    std::vector<uint8_t> bytes;
    if (!buildArgument(argSpecs[i], device, bytes, buffers, error)) return fail(error);
    if (bytes.size() > kernel->paramSizes[i])
      return fail(fmt::format("argument {} ('{}') is {} bytes; the parameter is {}", i + 1, argSpecs[i],
                              bytes.size(), kernel->paramSizes[i]));
    std::memcpy(config.params.data() + kernel->paramOffsets[i], bytes.data(), bytes.size());
  }
  emu::LaunchResult r = device.launch(*kernel, config, diags);
  for (const Buffer &b : buffers) {
    if (b.out.empty()) continue;
    std::vector<uint8_t> data(b.size);
    device.global.read(b.address, data.data(), b.size);
    std::ofstream out(b.out, std::ios::binary);
    out.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(b.size));
  }
  printDiagnostics(diags, false);
  if (stats || !r.ok) {
    double simd = r.warpInstructions ? double(r.threadInstructions) / (32.0 * r.warpInstructions) : 0;
    fmt::print(
        stderr,
        "{}: {}{}{}; {} warp instructions, {} thread instructions, SIMD efficiency {:.1f}%, {:.3f} s\n",
        kernelName, r.status, r.error.empty() ? "" : " with ", r.error, r.warpInstructions,
        r.threadInstructions, simd * 100, r.wallSeconds);
  }
  if (stats) {
    fmt::print(stderr, "  divergent branches: {}\n", r.stats.divergentBranches);
    for (size_t w = 0; w < r.perWarp.size(); ++w) {
      auto [warpInstrs, threadInstrs] = r.perWarp[w];
      fmt::print(stderr, "  warp {}: {} warp instructions, SIMD efficiency {:.1f}%\n", w, warpInstrs,
                 warpInstrs ? 100.0 * threadInstrs / (32.0 * warpInstrs) : 0.0);
    }
    for (size_t b = 0; b < 16; ++b)
      if (r.stats.barrierWaits[b])
        fmt::print(stderr, "  barrier {}: {} warp waits\n", b, r.stats.barrierWaits[b]);
    for (size_t s = 0; s < r.stats.memoryOps.size(); ++s)
      if (r.stats.memoryOps[s])
        fmt::print(stderr, "  {} memory: {} thread accesses\n", emu::spaceName(static_cast<emu::Space>(s)),
                   r.stats.memoryOps[s]);
  }
  if (!reportPath.empty())
    cudart::writeReport(reportPath, {cudart::launchJson(kernelName, config.grid, config.block, r)}, diags);
  return r.ok && !diags.hasErrors() ? kOk : kDiagnostics;
}

} // namespace ptxvm
