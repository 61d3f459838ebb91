#include "tools/Exec.h"

#include "tools/HtmlReport.h"

#include "analysis/Passes.h"
#include "runtime/cudart/Config.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <set>

namespace ptxvm {

namespace {

std::string absolute(const std::string &path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.string();
}

/// The file execvp would run for `program` (searching PATH when it has no slash), or "".
std::string resolveProgram(const std::string &program) {
  if (program.find('/') != std::string::npos) return program;
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = (end > start ? dirs.substr(start, end - start) : ".") + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

/// The shared libraries an ELF64 file names (DT_NEEDED); false when it is not
/// a dynamically linked ELF64 file this can read.
bool neededLibraries(const std::string &bytes, std::vector<std::string> &needed) {
  auto read = [&](uint64_t at, auto &v) {
    if (at > bytes.size() || sizeof v > bytes.size() - at) return false;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    return true;
  };
  // ELF magic, and class 2 (64-bit).
  if (bytes.size() < 64 || std::memcmp(bytes.data(), "\177ELF", 4) != 0 || bytes[4] != 2) return false;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0;
  if (!read(0x28, shoff) || !read(0x3a, shentsize) || !read(0x3c, shnum) || shentsize < 64) return false;
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t header = shoff + uint64_t{i} * shentsize;
    uint32_t type = 0, link = 0;
    uint64_t offset = 0, size = 0;
    if (!read(header + 4, type) || type != 6 /* SHT_DYNAMIC */) continue;
    if (!read(header + 0x18, offset) || !read(header + 0x20, size) || !read(header + 0x28, link))
      return false;
    uint64_t strtab = 0, strsize = 0, strHeader = shoff + uint64_t{link} * shentsize;
    if (!read(strHeader + 0x18, strtab) || !read(strHeader + 0x20, strsize)) return false;
    for (uint64_t at = offset; at + 16 <= offset + size; at += 16) {
      int64_t tag = 0;
      uint64_t value = 0;
      if (!read(at, tag) || !read(at + 8, value) || tag == 0) break;
      if (tag == 1 /* DT_NEEDED */ && value < strsize && strtab + value < bytes.size())
        needed.emplace_back(bytes.c_str() + strtab + value);
    }
    return true;
  }
  return false;
}

/// Says why ptxvm cannot serve `program` when it can tell: the CUDA runtime
/// linked in statically (nvcc's default), or another libcudart version.
void warnAboutRuntime(const std::string &program) {
  std::string file = resolveProgram(program);
  std::FILE *f = file.empty() ? nullptr : std::fopen(file.c_str(), "rb");
  if (!f) return;
  std::string bytes;
  char buffer[1 << 16];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) bytes.append(buffer, n);
  std::fclose(f);
  std::vector<std::string> needed;
  if (!neededLibraries(bytes, needed)) return;
  for (const std::string &lib : needed) {
    if (lib == "libcudart.so.13") return;
    if (lib.starts_with("libcudart.so")) {
      std::fprintf(stderr, "ptxvm exec: warning: %s loads %s; ptxvm serves libcudart.so.13 (CUDA 13)\n",
                   program.c_str(), lib.c_str());
      return;
    }
  }
  if (bytes.find("cudaErrorInsufficientDriver") == std::string::npos) return;
  // A driver API program gets NVIDIA's static runtime linked in whether it
  // uses it or not: its driver calls are served all the same.
  if (std::find(needed.begin(), needed.end(), "libcuda.so.1") != needed.end())
    std::fprintf(stderr,
                 "ptxvm exec: warning: %s has the CUDA runtime linked in statically (nvcc's default): ptxvm "
                 "serves its driver API calls, but runtime API calls need `nvcc -cudart shared`\n",
                 program.c_str());
  else
    std::fprintf(
        stderr,
        "ptxvm exec: warning: %s has the CUDA runtime linked in statically (nvcc's default), so ptxvm "
        "cannot serve it (NVIDIA's runtime accepts only a driver that answers its undocumented integrity "
        "check): build it with `nvcc -cudart shared`\n",
        program.c_str());
}

} // namespace

/// The first of `candidates` (directories relative to the prefix above the ptxvm binary's bin/,
/// "" for bin/ itself) that holds `file`; the environment variable `override` wins.
static std::string findLibraryDirectory(const std::string &self, const char *override, const char *file,
                                        std::initializer_list<const char *> candidates) {
  namespace fs = std::filesystem;
  if (const char *dir = std::getenv(override); dir && *dir) return dir;
  std::error_code ec;
  fs::path bin = fs::canonical(self, ec).parent_path();
  if (ec) return "";
  for (const char *candidate : candidates) {
    fs::path dir = *candidate ? bin.parent_path() / candidate : bin;
    if (fs::exists(dir / file, ec)) return dir.string();
  }
  return "";
}

// An install puts the library in lib/ptxvm/ (not lib/, where it would shadow CUDA's for every
// program), the build tree in lib/ next to bin/. lib/ptxvm/ first: installed in /usr, lib/ is
// /usr/lib, where NVIDIA's own libcudart.so.13 may be.
std::string findCudartDirectory(const std::string &self) {
  return findLibraryDirectory(self, "PTXVM_CUDART_DIR", "libcudart.so.13", {"lib/ptxvm", "lib", ""});
}

/// The directory of the CUDA shim (libcuda.so.1 of --device gpu): lib/cuda-shim
/// next to bin/ in the build tree, lib/ptxvm/cuda-shim in an install.
std::string findShimDirectory(const std::string &self) {
  return findLibraryDirectory(self, "PTXVM_SHIM_DIR", "libcuda.so.1",
                              {"lib/cuda-shim", "lib/ptxvm/cuda-shim"});
}

/// The real driver the shim forwards to: PTXVM_CUDA_DRIVER (tests name a fake), else the
/// libcuda.so.1 the dynamic linker finds, as a path. Empty with `error` when there is none.
std::string findRealDriver(std::string &error) {
  const char *named = std::getenv("PTXVM_CUDA_DRIVER");
  const bool given = named && *named;
  void *handle = dlopen(given ? named : "libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = std::string("no CUDA driver: ") + (why ? why : "libcuda.so.1 not found");
    return "";
  }
  if (given) {
    dlclose(handle);
    return named;
  }
  if (dlsym(handle, "ptxvm_driver_entry")) { // ptxvm's own driver, on the emulator
    dlclose(handle);
    error = "the libcuda.so.1 found is ptxvm's own, which runs on the emulator: take ptxvm's library "
            "directory out of LD_LIBRARY_PATH to reach NVIDIA's driver";
    return "";
  }
  struct link_map *map = nullptr;
  std::string path;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) path = map->l_name;
  dlclose(handle);
  if (path.empty()) error = "cannot tell where libcuda.so.1 is";
  return path;
}

/// How the program ended, in words, for the page.
std::string endedText(int status) {
  if (WIFEXITED(status)) return fmt::format("The program exited with status {}.", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("The program was killed by signal {} ({}).", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  return "The program ended abnormally.";
}

/// `--report-html DIR` after the program ended: the page from its JSON report, the PTX it saved
/// and a CFG page per module.
bool writeExecHtmlReport(const ExecOptions &o, int status) {
  namespace fs = std::filesystem;
  const std::string &dir = o.htmlDirectory;
  const fs::path base = fs::absolute(dir);
  auto relative = [&](const std::string &path) {
    return fs::relative(fs::absolute(path), base).generic_string();
  };
  HtmlReportInputs page;
  page.title = "ptxvm exec --";
  for (const std::string &arg : o.program) page.title += " " + arg;
  page.note = endedText(status);
  const std::optional<std::string> reportText = readTextFile(o.reportPath);
  boost::system::error_code ec;
  boost::json::value report = reportText ? boost::json::parse(*reportText, ec) : boost::json::value();
  page.haveReport = reportText && !ec && report.is_object();
  if (page.haveReport) {
    page.report = std::move(report.as_object());
    page.reportLink = relative(o.reportPath);
  }
  if (!o.trace.path.empty() && fs::exists(o.trace.path)) page.traceLink = relative(o.trace.path);
  // A CFG page per module, of the kernels the program launched (a library's module may hold
  // hundreds it never calls); of every kernel when there is no report.
  std::set<std::string> launched;
  if (const boost::json::value *launches = page.report.if_contains("launches");
      launches && launches->is_array())
    for (const boost::json::value &l : launches->as_array())
      if (const boost::json::value *k = l.is_object() ? l.as_object().if_contains("kernel") : nullptr;
          k && k->is_string())
        launched.emplace(k->as_string());
  std::vector<fs::path> files; // by name
  std::error_code listError;
  for (const fs::directory_entry &e : fs::directory_iterator(o.ptxDirectory, listError))
    if (e.is_regular_file() && e.path().extension() == ".ptx") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path &file : files) {
    ReportModule module;
    module.path = absolute(file.string()); // as PTXVM_SAVE_PTX names it in diagnostics
    module.ptxLink = relative(file.string());
    InputOptions in;
    in.file = file.string();
    ptx::DiagnosticList parseDiags;
    std::unique_ptr<ptx::Module> m = loadModule(in, parseDiags);
    if (m && m->source)
      module.text = *m->source;
    else if (std::optional<std::string> text = readTextFile(file.string()))
      module.text = std::move(*text);
    std::vector<const ptx::Function *> kernels;
    if (m && page.haveReport)
      for (const ptx::Function &fn : m->functions)
        if (fn.isKernel && fn.hasBody && launched.count(std::string(m->str(fn.name)))) kernels.push_back(&fn);
    if (m && !parseDiags.hasErrors() && (!page.haveReport || !kernels.empty())) {
      std::string error;
      module.cfgLink = writeCfgPage(dir, *m, file.stem().string(), kernels, std::nullopt, error);
      if (!error.empty()) std::fprintf(stderr, "ptxvm exec: --report-html: %s\n", error.c_str());
    }
    page.modules.push_back(std::move(module));
  }
  if (!writeTextFile(dir + "/index.html", renderReportHtml(page))) {
    std::fprintf(stderr, "ptxvm exec: cannot write the HTML report to '%s'\n", dir.c_str());
    return false;
  }
  return true;
}

Command addExecCommand(CLI::App &ptxvm, const std::vector<std::string> *afterDashes) {
  auto o = std::make_shared<ExecOptions>();
  CLI::App *cmd = ptxvm.add_subcommand("exec", "run a CUDA program (nvcc -cudart shared) on a ptxvm device");
  cmd->footer(paragraph(
      "ptxvm exec [OPTIONS] [--] PROGRAM [ARGS...]\n\n"
      "Runs a CUDA program built with `nvcc -cudart shared` on a ptxvm device: ptxvm's libcudart.so.13 is "
      "found first, reads the PTX from the program's fatbin and serves the CUDA runtime API; ptxvm's "
      "libcuda.so.1, beside it, serves the driver API (programs linked with -lcuda, or that load PTX and "
      "fatbins with cuModuleLoad*) over the same state. Kernel faults "
      "are reported as compute-sanitizer does, and return the error a GPU would. The program's exit status "
      "is passed through (a signal N: 128+N).\n\n"
      "The same settings reach programs started some other way through the environment:\n"
      "PTXVM_DEVICE, PTXVM_JIT, PTXVM_JIT_THRESHOLD, PTXVM_UNCHECKED=1, PTXVM_CACHE=off, PTXVM_CACHE_DIR, "
      "PTXVM_THREADS, "
      "PTXVM_RACECHECK=1, PTXVM_MAX_INSTRUCTIONS, PTXVM_TIMEOUT, PTXVM_PASSES, "
      "PTXVM_SCHEDULE,\n"
      "PTXVM_SEED, PTXVM_REPORT, PTXVM_SAVE_PTX, PTXVM_TRACE, PTXVM_TRACE_CTAS, PTXVM_TRACE_CLOCK; with "
      "LD_LIBRARY_PATH naming the directory of\n"
      "ptxvm's libcudart.so.13 (PTXVM_CUDART_DIR tells ptxvm exec where it is)."));
  // The program and its arguments start at the first argument that is not
  // an option of exec's (or after `--`, which main splits off).
  cmd->prefix_command();
  cmd->add_option(
         "--device", o->device,
         "the device: emulator (default), cpu (kernels compiled to native code through LLVM), or gpu")
      ->option_text("emulator|cpu|gpu");
  addJitOptions(*cmd, o->jit);
  cmd->add_option("--threads", o->threads, "host threads per launch (default: all cores)")
      ->check(CLI::Range(1u, 4096u))
      ->type_name("N");
  cmd->add_flag("--racecheck", o->racecheck,
                "report shared-memory accesses of different threads not ordered by a barrier, __syncwarp or "
                "mbarrier (lanes of a warp included)");
  cmd->add_option("--max-instructions", o->maxInstructions,
                  "stop a launch after N warp instructions over all its CTAs (cudaErrorLaunchTimeout)")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  cmd->add_flag("--time-kernels", o->timeKernels,
                "with --device gpu: time each kernel with events (launches then wait for their kernel) and "
                "put the times in the report");
  addPassOptions(*cmd, o->passOptions);
  cmd->add_option("--passes", o->passes,
                  "run these passes (ptxvm opt --passes=list) on every module the program loads")
      ->type_name("LIST");
  cmd->add_option("--timeout", o->timeoutSeconds,
                  "stop a launch after SECONDS of wall-clock time (cudaErrorLaunchTimeout)")
      ->check(CLI::Range(1e-3, 1e9))
      ->type_name("SECONDS");
  cmd->add_option("--schedule", o->schedule, "warp order and divergent-side order: deterministic or random")
      ->check(CLI::IsMember({"deterministic", "random"}))
      ->type_name("MODE");
  cmd->add_option_function<uint64_t>(
         "--seed", [o](const uint64_t &seed) { o->seed = seed; }, "seed of --schedule=random (default 1)")
      ->type_name("S");
  cmd->add_option("--report", o->reportPath,
                  "launches and diagnostics as JSON, written when the program exits")
      ->type_name("FILE.json");
  addTraceOptions(*cmd, o->trace);
  addHtmlReportOption(*cmd, o->htmlDirectory);
  cmd->add_option("--save-ptx", o->ptxDirectory,
                  "write each module's PTX to DIR (diagnostics name its lines)")
      ->type_name("DIR");
  return {cmd, [o, cmd, afterDashes] {
            std::vector<std::string> program = cmd->remaining();
            // An unknown option before the program is exec's mistake, not the
            // program's name; after `--` anything goes.
            if (!program.empty() && program[0].starts_with("-"))
              return usageError(*cmd, "unknown option '" + program[0] + "'");
            if (afterDashes) {
              if (!program.empty()) program.push_back("--");
              program.insert(program.end(), afterDashes->begin(), afterDashes->end());
            }
            if (program.empty()) return usageError(*cmd, "no program to run");
            o->program = std::move(program);
            return execProgram(*o, *cmd);
          }};
}

int execProgram(const ExecOptions &given, const CLI::App &command) {
  auto usage = [&](const std::string &message) { return usageError(command, message); };
  // --report-html DIR: the report, the PTX and the trace it is made from go to DIR unless named.
  ExecOptions o = given;
  if (!o.htmlDirectory.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.htmlDirectory, ec);
    if (ec) return usage("cannot create '" + o.htmlDirectory + "': " + ec.message());
    if (o.reportPath.empty()) o.reportPath = o.htmlDirectory + "/report.json";
    if (o.ptxDirectory.empty()) {
      o.ptxDirectory = o.htmlDirectory + "/ptx";
      for (const auto &e : std::filesystem::directory_iterator(o.ptxDirectory, ec))
        if (e.path().extension() == ".ptx") std::filesystem::remove(e.path(), ec);
    }
    if (o.trace.path.empty()) o.trace.path = o.htmlDirectory + "/trace.json";
    // What an earlier run left there must not pass for this run's.
    std::filesystem::remove(o.reportPath, ec);
    std::filesystem::remove(o.trace.path, ec);
  }
  if (!o.passes.empty()) {
    ptx::DiagnosticList unused;
    std::string error;
    if (!analysis::makePipeline(o.passes, unused, error, o.passOptions)) return usage(error);
  } else if (!o.passOptions.empty()) {
    return usage("--" + o.passOptions.begin()->first + " needs --passes");
  }
  // What the program's libcudart.so.13 reads (Config.h).
  std::vector<std::pair<std::string, std::string>> settings;
  if (!o.device.empty()) settings.emplace_back("PTXVM_DEVICE", o.device);
  for (auto &setting : o.jit.settings()) settings.push_back(std::move(setting));
  if (o.threads) settings.emplace_back("PTXVM_THREADS", std::to_string(o.threads));
  if (o.racecheck) settings.emplace_back("PTXVM_RACECHECK", "1");
  if (o.maxInstructions) settings.emplace_back("PTXVM_MAX_INSTRUCTIONS", std::to_string(o.maxInstructions));
  if (o.timeoutSeconds > 0) settings.emplace_back("PTXVM_TIMEOUT", std::to_string(o.timeoutSeconds));
  if (!o.passes.empty()) settings.emplace_back("PTXVM_PASSES", o.passes);
  if (!o.passOptions.empty())
    settings.emplace_back("PTXVM_PASS_OPTIONS", analysis::formatPassOptions(o.passOptions));
  if (!o.schedule.empty()) settings.emplace_back("PTXVM_SCHEDULE", o.schedule);
  if (o.seed) settings.emplace_back("PTXVM_SEED", std::to_string(*o.seed));
  if (!o.reportPath.empty()) settings.emplace_back("PTXVM_REPORT", absolute(o.reportPath));
  if (!o.ptxDirectory.empty()) settings.emplace_back("PTXVM_SAVE_PTX", absolute(o.ptxDirectory));
  for (auto &setting : o.trace.settings()) settings.push_back(std::move(setting));
  // Check every value as the runtime will read it: a mistake is a usage
  // error here rather than a warning in the program's output.
  cudart::Config check;
  for (const auto &[variable, value] : settings) {
    std::string warning;
    if (!cudart::applySetting(check, variable, value, warning))
      return usage(warning.starts_with("ignoring ") ? warning.substr(9) : warning);
  }
  if (!check.ptxDirectory.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(check.ptxDirectory, ec);
    if (ec) return usage("cannot create '" + check.ptxDirectory + "': " + ec.message());
  }
  // On the GPU the program keeps NVIDIA's runtime; the CUDA shim, found first as libcuda.so.1,
  // rewrites each module's PTX with the passes on its way to the real driver.
  const bool gpu = o.device == "gpu";
  if (o.timeKernels && !gpu)
    return usage("--time-kernels needs --device gpu (the emulator's report has each launch's time)");
  std::string libraryDir = gpu ? findShimDirectory("/proc/self/exe") : findCudartDirectory("/proc/self/exe");
  if (gpu) {
    if (libraryDir.empty()) {
      std::fprintf(stderr,
                   "ptxvm exec: cannot find ptxvm's CUDA shim (lib/cuda-shim/libcuda.so.1 next to the "
                   "ptxvm binary, or set PTXVM_SHIM_DIR)\n");
      return kUsage;
    }
    std::string error;
    std::string driver = findRealDriver(error);
    if (driver.empty()) {
      std::fprintf(stderr, "ptxvm exec: --device gpu: %s\n", error.c_str());
      return kDiagnostics;
    }
    settings.emplace_back("PTXVM_REAL_CUDA_DRIVER", driver);
    if (o.timeKernels) settings.emplace_back("PTXVM_TIME_KERNELS", "1");
  } else if (libraryDir.empty()) {
    std::fprintf(stderr, "ptxvm exec: cannot find ptxvm's libcudart.so.13 (next to the ptxvm binary, or set "
                         "PTXVM_CUDART_DIR)\n");
    return kUsage;
  }
  for (const auto &[variable, value] : settings) setenv(variable.c_str(), value.c_str(), 1);
  const char *old = std::getenv("LD_LIBRARY_PATH");
  std::string path = libraryDir + (old && *old ? ":" + std::string(old) : "");
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);

  if (!gpu) warnAboutRuntime(o.program[0]); // on the GPU any runtime, static or shared, works
  std::vector<char *> argv;
  for (const std::string &arg : o.program) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "ptxvm exec: fork failed: %s\n", std::strerror(errno));
    return kUsage;
  }
  if (child == 0) {
    execvp(argv[0], argv.data());
    int error = errno;
    std::fprintf(stderr, "ptxvm exec: cannot run '%s': %s\n", argv[0], std::strerror(error));
    _exit(error == ENOENT ? 127 : 126); // as a shell reports it
  }
  // While the program runs, a terminal's Ctrl-C is for it (as system() does).
  struct sigaction ignore {
  }, oldInt{}, oldQuit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &oldInt);
  sigaction(SIGQUIT, &ignore, &oldQuit);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGQUIT, &oldQuit, nullptr);
  if (!o.htmlDirectory.empty()) writeExecHtmlReport(o, status);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

} // namespace ptxvm
