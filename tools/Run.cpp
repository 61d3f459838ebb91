#include "tools/Run.h"

#include <algorithm>

#include "analysis/Passes.h"

#include "emulator/Timeline.h"
#include "ptx/Verifier.h"
#include "runtime/Device.h"
#include "runtime/cudart/LaunchReport.h"
#include "tools/Analyze.h"
#include "tools/ArgumentSpec.h"
#include "tools/HtmlReport.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ptxvm {

namespace {

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

/// `--report-html DIR` after the launch: the JSON report, a copy of the PTX, its CFG page (under
/// the launch's block shape, grid and scalar arguments) and the page itself. Without a module that parsed and
/// verified (`m` null) or a launch, the page has the diagnostics that stopped the run.
bool writeRunHtmlReport(const RunOptions &o, const ptx::Module *m,
                        const std::vector<boost::json::object> &launches, const ptx::DiagnosticList &diags,
                        const std::string &tracePath) {
  namespace fs = std::filesystem;
  const std::string &dir = o.htmlDirectory;
  HtmlReportInputs page;
  page.title =
      "ptxvm run " + o.in.file + " --kernel " + o.kernel + " --grid " + o.grid + " --block " + o.block;
  for (const std::string &arg : o.args) page.title += " --arg " + arg;
  page.report = cudart::reportJson(launches, diags);
  page.reportLink = "report.json";
  if (!launches.empty())
    page.traceLink = fs::relative(fs::absolute(tracePath), fs::absolute(dir)).generic_string();
  if (launches.empty()) {
    page.note = "The kernel was not launched: see the diagnostics.";
    std::error_code unused;
    if (o.trace.path.empty()) fs::remove(tracePath, unused); // --report-html's own, left empty
  }
  std::string error;
  bool ok = cudart::writeReport(dir + "/report.json", launches, diags);
  ReportModule module;
  module.path = m ? m->fileName : o.in.file;
  if (m && m->source)
    module.text = *m->source;
  else if (std::optional<std::string> text = readTextFile(o.in.file))
    module.text = std::move(*text);
  const std::string name = fs::path(o.in.file).stem().string();
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "ptx", ec);
  if (!ec && writeTextFile(dir + "/ptx/" + name + ".ptx", module.text))
    module.ptxLink = "ptx/" + name + ".ptx";
  auto block = parseDimensions(o.block);
  const ptx::Function *kernel = m ? m->findFunction(o.kernel) : nullptr;
  if (kernel && kernel->isKernel && kernel->hasBody) {
    // Coloured for this launch: its grid and scalar arguments too.
    LaunchValues values;
    values.grid = parseDimensions(o.grid);
    std::string unused;
    if (!launchArguments(*kernel, o.args, values.arguments, unused)) values.arguments.clear();
    module.cfgLink = writeCfgPage(dir, *m, name, {kernel}, block, error, values);
  }
  if (!error.empty()) fmt::print(stderr, "ptxvm run: --report-html: {}\n", error);
  page.modules.push_back(std::move(module));
  ok = writeTextFile(dir + "/index.html", renderReportHtml(page)) && ok;
  if (!ok) fmt::print(stderr, "ptxvm run: cannot write the HTML report to '{}'\n", dir);
  return ok;
}

} // namespace

Command addRunCommand(CLI::App &ptxvm) {
  auto o = std::make_shared<RunOptions>();
  CLI::App *cmd =
      ptxvm.add_subcommand("run", "run a kernel of a PTX file on a device (the SIMT emulator by default)");
  addInputOptions(*cmd, o->in);
  cmd->add_option("--device", o->device,
                  "the device to run on: emulator (default), cpu (the emulator's machine model with kernels "
                  "compiled to native code through LLVM), gpu (the real GPU through its driver: the PTX as "
                  "ptxvm writes it, JIT-compiled by the driver)")
      ->option_text("emulator|cpu|gpu");
  addJitOptions(*cmd, o->jit);
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
  cmd->add_option(
         "--repeat", o->repeat,
         "launch the kernel N times (--stats prints the min/median/max time; the buffers keep what the "
         "last launch left)")
      ->check(CLI::Range(1u, 100000u))
      ->type_name("N");
  cmd->add_option("--max-instructions", o->maxInstructions,
                  "stop a launch after N warp instructions over all its CTAs")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  addPassOptions(*cmd, o->passOptions);
  cmd->add_option("--passes", o->passes,
                  "run these passes (ptxvm opt --passes=list) before loading the kernel")
      ->type_name("LIST");
  cmd->add_option("--timeout", o->timeoutSeconds, "stop a launch after SECONDS of wall-clock time")
      ->check(CLI::Range(1e-3, 1e9))
      ->type_name("SECONDS");
  cmd->add_option("--report", o->reportPath, "launches and diagnostics as JSON")->type_name("FILE.json");
  addTraceOptions(*cmd, o->trace);
  addHtmlReportOption(*cmd, o->htmlDirectory);
  cmd->add_flag("--stats", o->stats,
                "print instruction counts, SIMD efficiency and memory accesses per space (counting each "
                "access makes compiled code take the checked path: slower on --device cpu)");
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
  runtime::LaunchConfig config;
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
  config.timeoutSeconds = o.timeoutSeconds;
  if (!reportPath.empty() && !writable(reportPath))
    return fail("cannot write the report to '" + reportPath + "'");
  const std::string &html = o.htmlDirectory;
  if (!html.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(html, ec);
    if (ec || !writable(html + "/index.html")) return fail("cannot write the HTML report to '" + html + "'");
  }
  // --report-html keeps a timeline of its own unless --trace names the file.
  const std::string tracePath = o.trace.path.empty() && !html.empty() ? html + "/trace.json" : o.trace.path;
  if (!tracePath.empty() && !writable(tracePath))
    return fail("cannot write the trace to '" + tracePath + "'");
  emu::TimelineOptions traceOptions;
  traceOptions.clock =
      o.trace.clock == "host" ? emu::TimelineOptions::Clock::Host : emu::TimelineOptions::Clock::Steps;
  if (!o.trace.ctas.empty()) emu::parseCtaList(o.trace.ctas, traceOptions.ctas);
  emu::Timeline timeline(traceOptions);
  if (!tracePath.empty()) config.timeline = &timeline;
  if (!checkLaunchShape(config.grid, config.block, error)) return fail(error);

  ptx::DiagnosticList diags;
  std::optional<analysis::PassManager> passes;
  if (!o.passes.empty() && !(passes = analysis::makePipeline(o.passes, diags, error, o.passOptions)))
    return fail(error);
  if (o.passes.empty() && !o.passOptions.empty())
    return fail("--" + o.passOptions.begin()->first + " needs --passes");
  auto m = loadModule(in, diags);
  if (m && !diags.hasErrors()) ptx::verifyModule(*m, diags);
  if (m && !diags.hasErrors() && passes) {
    // What the device loads is the PTX the passes leave, as `ptxvm opt` writes it.
    analysis::AnalysisManager am(*m);
    passes->run(*m, am);
  }
  if (!m || diags.hasErrors()) {
    printDiagnostics(diags, in.json);
    if (!html.empty()) writeRunHtmlReport(o, nullptr, {}, diags, tracePath);
    return kDiagnostics;
  }
  for (const auto &[variable, value] : o.jit.settings()) setenv(variable.c_str(), value.c_str(), 1);
  std::unique_ptr<runtime::Device> device = runtime::createDevice(o.device, error);
  if (!device) {
    std::string notBuiltIn;
    if (!runtime::deviceBuiltIn(o.device.empty() ? "emulator" : o.device, notBuiltIn)) return fail(error);
    // A device this ptxvm has but this machine lacks (no GPU, no driver).
    fmt::print(stderr, "ptxvm run: {}\n", error);
    return kDiagnostics;
  }
  auto kernel = device->loadKernel(*m, kernelName, diags);
  if (!kernel) {
    printDiagnostics(diags, in.json);
    if (!html.empty()) writeRunHtmlReport(o, m.get(), {}, diags, tracePath);
    return kDiagnostics;
  }
  const runtime::KernelAttributes &abi = kernel->attributes();
  if (argSpecs.size() != abi.paramOffsets.size())
    return fail(fmt::format("kernel '{}' takes {} arguments, {} given", kernelName, abi.paramOffsets.size(),
                            argSpecs.size()));
  std::vector<Buffer> buffers;
  config.params.assign(abi.paramBytes, 0);
  for (size_t i = 0; i < argSpecs.size(); ++i) {
    std::vector<uint8_t> bytes;
    if (!buildArgument(argSpecs[i], *device, bytes, buffers, error)) return fail(error);
    if (bytes.size() > abi.paramSizes[i])
      return fail(fmt::format("argument {} ('{}') is {} bytes; the parameter is {}", i + 1, argSpecs[i],
                              bytes.size(), abi.paramSizes[i]));
    std::memcpy(config.params.data() + abi.paramOffsets[i], bytes.data(), bytes.size());
  }
  config.statistics = stats || !reportPath.empty(); // the report has divergent_branches
  config.memoryStatistics = stats;                  // only --stats prints memory accesses per space
  runtime::LaunchResult r = device->launch(*kernel, config, diags);
  std::vector<double> seconds{r.wallSeconds};
  for (unsigned n = 1; n < o.repeat && r.ok; ++n) {
    runtime::LaunchResult again = device->launch(*kernel, config, diags);
    seconds.push_back(again.wallSeconds);
    if (!again.ok) r = again;
  }
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
    fmt::print(
        stderr,
        "{}: {}{}{}; {} warp instructions, {} thread instructions, SIMD efficiency {:.1f}%, {:.3f} s\n",
        kernelName, r.status, r.error.empty() ? "" : " with ", r.error, s.warpInstructions,
        s.threadInstructions, simd * 100, r.wallSeconds);
  }
  if (stats && seconds.size() > 1) {
    std::vector<double> sorted = seconds;
    std::sort(sorted.begin(), sorted.end());
    fmt::print(stderr, "  {} launches: min {:.6f} ms, median {:.6f} ms, max {:.6f} ms\n", sorted.size(),
               sorted.front() * 1e3, sorted[sorted.size() / 2] * 1e3, sorted.back() * 1e3);
  }
  if (stats) {
    fmt::print(stderr, "  device: {}\n", device->name());
    if (abi.registers >= 0)
      fmt::print(stderr, "  registers per thread: {}, local memory per thread: {} bytes\n", abi.registers,
                 abi.localBytes);
    fmt::print(stderr, "  divergent branches: {}\n", r.stats.divergentBranches);
    for (size_t w = 0; w < r.stats.perWarp.size(); ++w) {
      auto [warpInstrs, threadInstrs] = r.stats.perWarp[w];
      fmt::print(stderr, "  warp {}: {} warp instructions, SIMD efficiency {:.1f}%\n", w, warpInstrs,
                 warpInstrs ? 100.0 * threadInstrs / (32.0 * warpInstrs) : 0.0);
    }
    for (size_t b = 0; b < 16; ++b)
      if (r.stats.barrierWaits[b])
        fmt::print(stderr, "  barrier {}: {} warp waits\n", b, r.stats.barrierWaits[b]);
    for (const auto &[space, count] : r.stats.memoryOps)
      if (count) fmt::print(stderr, "  {} memory: {} thread accesses\n", space, count);
  }
  const std::vector<boost::json::object> launches{
      cudart::launchJson(kernelName, config.grid, config.block, r)};
  if (!reportPath.empty()) cudart::writeReport(reportPath, launches, diags);
  if (!tracePath.empty() && !timeline.write(tracePath)) {
    fmt::print(stderr, "ptxvm run: cannot write the trace to '{}'\n", tracePath);
    return kDiagnostics;
  }
  if (!html.empty() && !writeRunHtmlReport(o, m.get(), launches, diags, tracePath)) return kDiagnostics;
  return r.ok && !diags.hasErrors() ? kOk : kDiagnostics;
}

} // namespace ptxvm
