// gpu_record — run tests/gpu cases on a real NVIDIA GPU and write one result file per case
// (format: tests/gpu/README.md).
//
// The GPU is ptxvm's GPU device (runtime/GpuDevice.h: the driver loaded at run time with
// dlopen, PTXVM_CUDA_DRIVER naming another library); texture and surface arrays, which the
// device interface does not model, go to that device's driver directly. Without --passes a
// case's PTX reaches the driver byte for byte as the file holds it (only its signatures are
// parsed, for the parameter layout); with --passes=LIST the whole module is parsed, the passes
// run and the driver JIT-compiles the PTX that ptx/ writes, so a recorded set can be compared
// with the one recorded without passes. Every case runs in a forked child process; the parent
// never initializes CUDA, waits for the child with a watchdog and SIGKILLs it after the timeout
// (outcome "hang").
//
// usage: gpu_record [--root DIR] [--out-dir DIR] [--timeout SEC] [--env FILE] [--passes LIST]
//                   [--pass-options KEY=VALUE,...] [--dry-run] [--show-inputs] CASE...
#include "analysis/Passes.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"
#include "regalloc/RegAlloc.h"
#include "runtime/GpuDevice.h"
#include "tools/gpu-record/gpu_case.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>

using namespace gpucase;
using namespace runtime::cuda;

namespace {

// The kernel driver's version: /proc/driver/nvidia/version ("... Kernel Module  580.95.05 ...").
std::string kernelDriverVersion() {
  std::string text;
  if (readFile("/proc/driver/nvidia/version", text)) {
    size_t p = text.find("Kernel Module");
    if (p != std::string::npos) {
      std::istringstream in(text.substr(p + 13));
      std::string v;
      while (in >> v)
        if (!v.empty() && std::isdigit((unsigned char)v[0])) return v;
    }
  }
  return "unknown";
}

// GPU 0 through ptxvm's GPU device; null with `error` saying why.
std::unique_ptr<runtime::GpuDevice> openGpu(std::string &error) {
  const char *library = std::getenv("PTXVM_CUDA_DRIVER");
  return runtime::GpuDevice::open(error, library && *library ? library : "libcuda.so.1");
}

// ---- child side ------------------------------------------------------------------------------
// Gathers the environment (key value lines) and writes it to `path`. Exit status 0 on success.
int childEnvironment(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return 3;
  std::string error;
  std::unique_ptr<runtime::GpuDevice> gpu = openGpu(error);
  if (!gpu) {
    std::fprintf(f, "error %s\n", error.c_str());
    std::fclose(f);
    return 4;
  }
  std::fprintf(f, "gpu %s\n", gpu->gpuName().c_str());
  std::fprintf(f, "compute_capability %d.%d\n", gpu->computeCapability() / 10, gpu->computeCapability() % 10);
  std::fprintf(f, "driver %s\n", kernelDriverVersion().c_str());
  const int cuda = gpu->driverVersion();
  std::fprintf(f, "cuda %d.%d\n", cuda / 1000, (cuda % 1000) / 10);
  std::fclose(f);
  return 0;
}

// ---- texture and surface objects --------------------------------------------------------------
int arrayFormat(Type t) {
  return t == Type::F32   ? CU_AD_FORMAT_FLOAT
         : t == Type::S32 ? CU_AD_FORMAT_SIGNED_INT32
                          : CU_AD_FORMAT_UNSIGNED_INT32;
}

constexpr CUresult kNotSupported = 801; // CUDA_ERROR_NOT_SUPPORTED: an old driver lacks the call

// Copies a 2-D object's elements between the host (row-major, no padding) and its CUDA array:
// from `in` to the array when `in` is given, else from the array to `out`.
CUresult copyArray(const Driver &drv, CUarray array, const Arg &a, const uint8_t *in, uint8_t *out) {
  if (!drv.cuMemcpy2D) return kNotSupported;
  CUDA_MEMCPY2D copy;
  std::memset(&copy, 0, sizeof copy);
  const size_t rowBytes = a.width * typeSize(a.type);
  if (in) {
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = in;
    copy.srcPitch = rowBytes;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array;
  } else {
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = array;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = out;
    copy.dstPitch = rowBytes;
  }
  copy.WidthInBytes = rowBytes;
  copy.Height = a.height;
  return drv.cuMemcpy2D(&copy);
}

// A width x height CUDA array of one-channel elements holding `data`.
CUresult makeArray(const Driver &drv, const Arg &a, const std::vector<uint8_t> &data, CUarray &array) {
  if (!drv.cuArray3DCreate || !drv.cuArrayDestroy) return kNotSupported;
  CUDA_ARRAY3D_DESCRIPTOR desc;
  std::memset(&desc, 0, sizeof desc);
  desc.Width = a.width;
  desc.Height = a.height;
  desc.Format = arrayFormat(a.type);
  desc.NumChannels = 1;
  desc.Flags = a.object == Object::Surface2D ? CUDA_ARRAY3D_SURFACE_LDST : 0u;
  if (CUresult r = drv.cuArray3DCreate(&array, &desc)) return r;
  return copyArray(drv, array, a, data.data(), nullptr);
}

// The texture or surface object of argument `a` over `linear` (1-D texture) or `array`.
CUresult makeObject(const Driver &drv, const Arg &a, CUdeviceptr linear, CUarray array, uint64_t &handle) {
  CUDA_RESOURCE_DESC res;
  std::memset(&res, 0, sizeof res);
  if (a.object == Object::Texture1D) {
    res.resType = CU_RESOURCE_TYPE_LINEAR;
    res.res.linear.devPtr = linear;
    res.res.linear.format = arrayFormat(a.type);
    res.res.linear.numChannels = 1;
    res.res.linear.sizeInBytes = a.count * typeSize(a.type);
  } else {
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;
  }
  if (a.object == Object::Surface2D) {
    if (!drv.cuSurfObjectCreate) return kNotSupported;
    CUsurfObject surf = 0;
    CUresult r = drv.cuSurfObjectCreate(&surf, &res);
    handle = surf;
    return r;
  }
  if (!drv.cuTexObjectCreate) return kNotSupported;
  // Point sampling, clamped, unnormalized coordinates, elements returned as stored: the
  // texture unit does no arithmetic a checker would have to model.
  CUDA_TEXTURE_DESC tex;
  std::memset(&tex, 0, sizeof tex);
  tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
  tex.filterMode = CU_TR_FILTER_MODE_POINT;
  CUtexObject texture = 0;
  CUresult r = drv.cuTexObjectCreate(&texture, &res, &tex, nullptr);
  handle = texture;
  return r;
}

// The value of diagnostic field `key` of the last error in `diags` that has it, or "".
std::string errorField(const ptx::DiagnosticList &diags, std::string_view key) {
  std::string value;
  for (const ptx::Diagnostic &d : diags.all())
    for (const auto &[k, v] : d.fields)
      if (k == key) value = v;
  return value;
}

// The first error's message, on one line.
std::string firstError(const ptx::DiagnosticList &diags) {
  for (const ptx::Diagnostic &d : diags.all())
    if (d.severity == ptx::Severity::Error) {
      std::string m = d.message.substr(0, d.message.find('\n'));
      return m;
    }
  return "unknown error";
}

// Runs one case; writes "outcome ..." and the dumped buffers to `path`.
int childRun(const Case &c, const std::string &ptxText, const std::string &passes,
             const analysis::PassOptions &passOptions, const std::string &path,
             const std::string &stdoutPath) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return 3;
  // Device printf: the driver writes the kernel's output to this process's stdout when it
  // synchronizes; send it to a file that the parent copies into the .out.
  std::fflush(stdout);
  if (!std::freopen(stdoutPath.c_str(), "w", stdout)) return 3;
  auto finish = [&](const std::string &outcome, const std::string &extra = "") {
    std::fprintf(f, "outcome %s\n%s", outcome.c_str(), extra.c_str());
    std::fclose(f);
    return 0;
  };
  auto err = [&](const char *what, CUresult r, const Driver &drv) {
    return finish("error:" + drv.errorName(r), std::string("error_at ") + what + "\n");
  };
  std::string error;
  std::unique_ptr<runtime::GpuDevice> gpu = openGpu(error);
  if (!gpu) return finish("error:no-gpu", "error_at " + error + "\n");
  const Driver &drv = gpu->driver();

  // Without passes only the signatures are parsed and the driver gets the file's own text.
  ptx::DiagnosticList diags;
  ptx::ParseOptions options;
  options.lazyBodies = passes.empty();
  std::unique_ptr<ptx::Module> module = ptx::parseModule(ptxText, c.ptx, diags, options);
  if (!passes.empty() && !diags.hasErrors()) {
    std::optional<analysis::PassManager> pipeline = analysis::makePipeline(passes, diags, error, passOptions);
    if (!pipeline) return finish("error:passes", "error_at " + error + "\n");
    ptx::verifyModule(*module, diags);
    analysis::AnalysisManager am(*module);
    if (!diags.hasErrors()) pipeline->run(*module, am);
  }
  if (diags.hasErrors()) return finish("error:ptxvm", "error_at ptxvm: " + firstError(diags) + "\n");
  std::unique_ptr<runtime::Kernel> kernel = gpu->loadKernel(*module, c.kernel, diags);
  if (!kernel) {
    std::string driverError = errorField(diags, "driver_error");
    if (driverError.empty()) return finish("error:ptxvm", "error_at ptxvm: " + firstError(diags) + "\n");
    std::string log;
    std::istringstream in(gpu->lastJitLog());
    for (std::string line; std::getline(in, line);) log += "jit_log " + line + "\n";
    return finish("error:" + driverError, "error_at " + errorField(diags, "driver_call") + "\n" + log);
  }
  const runtime::KernelAttributes &abi = kernel->attributes();

  // Arguments: scalars are stored as 8-byte slots of which the parameter takes as many bytes as
  // it declares (little-endian, so the low bytes come first).
  runtime::LaunchConfig config;
  config.params.assign(abi.paramBytes, 0);
  std::vector<uint64_t> dptr(c.args.size(), 0);
  std::vector<CUarray> arrays(c.args.size(), nullptr);
  std::vector<std::vector<uint8_t>> host(c.args.size());
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Arg &a = c.args[i];
    uint64_t slot = 0;
    if (a.isBuffer || a.object == Object::Texture1D) {
      host[i] = makeBuffer(a);
      if (!(dptr[i] = gpu->allocate(host[i].size())))
        return finish("error:allocation", "error_at cuMemAlloc\n");
      if (!gpu->write(dptr[i], host[i].data(), host[i].size()))
        return finish("error:copy", "error_at cuMemcpyHtoD\n");
      slot = dptr[i];
    } else if (a.object != Object::None) {
      host[i] = makeBuffer(a);
      if (CUresult r = makeArray(drv, a, host[i], arrays[i]))
        return err("cuArray3DCreate/cuMemcpy2D", r, drv);
    } else if (isFloat(a.type)) {
      double v = 0;
      parseReal(a.value, v);
      storeReal(reinterpret_cast<uint8_t *>(&slot), a.type, v);
    } else {
      int64_t v = 0;
      parseInt(a.value, v);
      storeInt(reinterpret_cast<uint8_t *>(&slot), a.type, (uint64_t)v);
    }
    if (a.object != Object::None) {
      const char *what = a.object == Object::Surface2D ? "cuSurfObjectCreate" : "cuTexObjectCreate";
      if (CUresult r = makeObject(drv, a, dptr[i], arrays[i], slot)) return err(what, r, drv);
    }
    if (i < abi.paramOffsets.size())
      std::memcpy(config.params.data() + abi.paramOffsets[i], &slot,
                  std::min<size_t>(sizeof slot, abi.paramSizes[i]));
  }
  config.grid = {c.grid[0], c.grid[1], c.grid[2]};
  config.block = {c.block[0], c.block[1], c.block[2]};
  config.dynamicShared = c.shared;
  // grid.sync() needs every CTA resident at once, which only the cooperative launch promises.
  config.cooperative = c.cooperative;
  if (c.hasCluster()) config.cluster = {c.cluster[0], c.cluster[1], c.cluster[2]};
  runtime::LaunchResult result = gpu->launch(*kernel, config, diags);
  if (!result.ok) {
    std::string driverError = errorField(diags, "driver_error");
    return finish("error:" + (driverError.empty() ? std::string("launch") : driverError),
                  "error_at " + errorField(diags, "driver_call") + "\n");
  }
  std::string dumps;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Arg &a = c.args[i];
    if (!a.dump) continue;
    std::vector<uint8_t> out(host[i].size());
    if (a.isBuffer) {
      if (!gpu->read(dptr[i], out.data(), out.size())) return finish("error:copy", "error_at cuMemcpyDtoH\n");
    } else if (CUresult r = copyArray(drv, arrays[i], a, nullptr, out.data())) {
      return err("cuMemcpy2D", r, drv);
    }
    dumps += formatBuffer(a, out);
  }
  for (CUarray array : arrays)
    if (array) drv.cuArrayDestroy(array);
  return finish("completed", dumps);
}

// ---- parent side ---------------------------------------------------------------------------
// The kernel's printf output as a block of the .out file: "stdout N", then each line behind
// "| " (so a checker reads it verbatim, '#' included).
std::string formatStdout(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  std::string out = "stdout " + std::to_string(lines.size()) + "\n";
  for (const std::string &l : lines) out += "| " + l + "\n";
  return out;
}

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Forks, runs `body` in the child (its return value is the exit status), waits at most
// `timeout` seconds. Returns "ok", "hang" or "child-exit-N" / "child-signal-N".
template <class F> std::string runForked(double timeout, F body) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return "fork-failed";
  if (pid == 0) {
    int st = body();
    std::fflush(nullptr);
    _exit(st);
  }
  double deadline = now() + timeout;
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return "hang";
    }
    usleep(5000);
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "ok" : "child-exit-" + std::to_string(WEXITSTATUS(status));
  return "child-signal-" + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

void usage() {
  std::fprintf(
      stderr, "usage: gpu_record [--root DIR] [--out-dir DIR] [--timeout SEC] [--env FILE] [--passes LIST]\n"
              "                  [--dry-run] CASE...\n"
              "  Runs each .case on GPU 0 through ptxvm's GPU device and writes OUT_DIR/<case>.out.\n"
              "  --root DIR     PTX paths in the cases are relative to DIR (default .)\n"
              "  --out-dir DIR  where the .out files go (default .)\n"
              "  --timeout SEC  watchdog per case; a case still running is killed: outcome hang (default 5)\n"
              "  --env FILE     also write the environment (gpu, driver, cuda) to FILE\n"
              "  --passes LIST  run ptxvm's passes (ptxvm opt --passes=list) and give the driver the PTX\n"
              "                 ptxvm writes; without, the driver gets each PTX file as it is\n"
              "  --dry-run      parse the cases, check the PTX files and generate the inputs; no GPU\n"
              "  --show-inputs  like --dry-run, and print every buffer's initial contents\n");
}

} // namespace

int main(int argc, char **argv) {
  std::string root = ".", outDir = ".", envFile, passes;
  analysis::PassOptions passOptions;
  regalloc::registerPasses();
  double timeout = 5;
  bool dryRun = false, showInputs = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gpu_record: %s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--root")
      root = next();
    else if (a == "--out-dir")
      outDir = next();
    else if (a == "--timeout") {
      if (!parseReal(next(), timeout) || timeout <= 0) {
        std::fprintf(stderr, "gpu_record: bad --timeout\n");
        return 1;
      }
    } else if (a == "--env")
      envFile = next();
    else if (a == "--passes")
      passes = next();
    else if (a == "--pass-options") {
      std::string error;
      if (!analysis::parsePassOptions(next(), passOptions, error)) {
        std::fprintf(stderr, "gpu_record: --pass-options: %s\n", error.c_str());
        return 1;
      }
    } else if (a == "--dry-run")
      dryRun = true;
    else if (a == "--show-inputs")
      dryRun = showInputs = true;
    else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "gpu_record: unknown option %s\n", a.c_str());
      usage();
      return 1;
    } else
      files.push_back(a);
  }
  if (files.empty()) {
    usage();
    return 1;
  }
  if (!passes.empty()) {
    ptx::DiagnosticList diags;
    std::string error;
    if (!analysis::makePipeline(passes, diags, error, passOptions)) {
      std::fprintf(stderr, "gpu_record: --passes: %s\n", error.c_str());
      return 1;
    }
  }

  // Parse everything first: a malformed case is an error before any GPU work.
  std::vector<Case> cases;
  std::vector<std::string> ptxTexts;
  std::map<std::string, std::string> seen;
  for (const auto &f : files) {
    try {
      cases.push_back(parseCase(f));
    } catch (const std::exception &e) {
      std::fprintf(stderr, "gpu_record: %s\n", e.what());
      return 1;
    }
    const Case &c = cases.back();
    if (seen.count(c.name)) {
      std::fprintf(stderr, "gpu_record: %s: case name '%s' also used by %s\n", f.c_str(), c.name.c_str(),
                   seen[c.name].c_str());
      return 1;
    }
    seen[c.name] = f;
    std::string text;
    if (!readFile(root + "/" + c.ptx, text)) {
      std::fprintf(stderr, "gpu_record: %s: cannot read PTX file %s/%s\n", f.c_str(), root.c_str(),
                   c.ptx.c_str());
      return 1;
    }
    ptxTexts.push_back(text);
    for (const Arg &a : c.args)
      if (a.isBuffer || a.object != Object::None) (void)makeBuffer(a);
  }
  if (dryRun) {
    for (size_t i = 0; i < cases.size(); ++i) {
      std::printf("%-40s %s %s sha256=%s\n", cases[i].name.c_str(), cases[i].ptx.c_str(),
                  cases[i].kernel.c_str(), sha256Hex(ptxTexts[i]).c_str());
      if (showInputs)
        for (const Arg &a : cases[i].args)
          if (a.isBuffer || a.object != Object::None)
            std::printf("%s", formatBuffer(a, makeBuffer(a)).c_str());
    }
    std::printf("gpu_record: %zu case(s) parsed (dry run, no GPU used)\n", cases.size());
    return 0;
  }

  mkdir(outDir.c_str(), 0755);

  // Environment, gathered in a child: the parent must not initialize CUDA before forking.
  const std::string envTmp = outDir + "/.gpu_record_env.tmp";
  std::string st = runForked(30, [&] { return childEnvironment(envTmp); });
  std::string env;
  readFile(envTmp, env);
  std::remove(envTmp.c_str());
  if (st != "ok") {
    std::fprintf(stderr, "gpu_record: cannot query the GPU (%s): %s", st.c_str(),
                 env.empty() ? "no output\n" : env.c_str());
    return 2;
  }
  std::fprintf(stderr, "%s", env.c_str());
  if (!envFile.empty()) {
    FILE *f = std::fopen(envFile.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "gpu_record: cannot write %s\n", envFile.c_str());
      return 1;
    }
    std::fprintf(f, "%s", env.c_str());
    std::fclose(f);
  }

  int counts[3] = {0, 0, 0}; // completed, hang, error
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    const double limit = c.timeout > 0 ? std::min(c.timeout, timeout) : timeout;
    const std::string bodyTmp = outDir + "/." + c.name + ".tmp";
    std::remove(bodyTmp.c_str());
    double t0 = now();
    const std::string stdoutTmp = outDir + "/." + c.name + ".stdout.tmp";
    std::remove(stdoutTmp.c_str());
    std::string st =
        runForked(limit, [&] { return childRun(c, ptxTexts[i], passes, passOptions, bodyTmp, stdoutTmp); });
    double dt = now() - t0;
    std::string body;
    if (st == "ok")
      readFile(bodyTmp, body);
    else if (st == "hang")
      body = "outcome hang\nwatchdog_seconds " + std::to_string((int)limit) + "\n";
    else
      body = "outcome error:" + st + "\n";
    std::remove(bodyTmp.c_str());
    std::string outcome = body.substr(8, body.find('\n') - 8);

    std::ostringstream o;
    o << "# ptxvm gpu-record result v1 (tests/gpu/README.md)\n";
    o << "case " << c.name << "\n";
    o << "ptx " << c.ptx << "\n";
    o << "ptx_sha256 " << sha256Hex(ptxTexts[i]) << "\n";
    o << "ptx_bytes " << ptxTexts[i].size() << "\n";
    o << "kernel " << c.kernel << "\n";
    o << "grid " << c.grid[0] << " " << c.grid[1] << " " << c.grid[2] << "\n";
    o << "block " << c.block[0] << " " << c.block[1] << " " << c.block[2] << "\n";
    o << "shared " << c.shared << "\n";
    if (!passes.empty())
      o << "passes " << passes << (passOptions.empty() ? "" : " " + analysis::formatPassOptions(passOptions))
        << "\n";
    // Only written when used, so the .out files of plain launches keep their old form.
    if (c.cooperative) o << "launch cooperative\n";
    if (c.hasCluster()) o << "cluster " << c.cluster[0] << " " << c.cluster[1] << " " << c.cluster[2] << "\n";
    o << env;
    if (!c.expect.empty()) o << "expect " << c.expect << "\n";
    o << "compare " << c.compare << "\n";
    o << body;
    std::string printed;
    if (readFile(stdoutTmp, printed) && !printed.empty()) o << formatStdout(printed);
    std::remove(stdoutTmp.c_str());
    o << "end\n";
    const std::string outPath = outDir + "/" + c.name + ".out";
    FILE *f = std::fopen(outPath.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "gpu_record: cannot write %s\n", outPath.c_str());
      return 1;
    }
    std::string s = o.str();
    std::fwrite(s.data(), 1, s.size(), f);
    std::fclose(f);
    counts[outcome == "completed" ? 0 : outcome == "hang" ? 1 : 2]++;
    std::fprintf(stderr, "%-44s %-34s%s (%.2fs)\n", c.name.c_str(), outcome.c_str(),
                 c.expect.empty()
                     ? ""
                     : (outcome == c.expect ? "  [as expected]" : ("  [expected " + c.expect + "]").c_str()),
                 dt);
  }
  std::fprintf(stderr, "gpu_record: %zu case(s): %d completed, %d hang, %d error\n", cases.size(), counts[0],
               counts[1], counts[2]);
  return 0;
}
