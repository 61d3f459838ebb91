// gpu_record — run tests/gpu cases on a real NVIDIA GPU through the CUDA driver API and write
// one result file per case (format: tests/gpu/README.md).
//
// Standalone C++17, no CUDA headers: the few driver entry points are declared here and loaded
// with dlopen("libcuda.so.1"). Every case runs in a forked child process; the parent never
// initializes CUDA, waits for the child with a watchdog and SIGKILLs it after the timeout
// (outcome "hang"). Build: g++ -std=c++17 -O2 -o gpu_record gpu_record.cpp -ldl
//
// usage: gpu_record [--root DIR] [--out-dir DIR] [--timeout SEC] [--env FILE] [--dry-run]
//                   [--show-inputs] CASE...
#include "gpu_case.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <type_traits>

using namespace gpucase;

namespace {

// ---- the driver API subset -----------------------------------------------------------------
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76 };
enum { CU_JIT_INFO_LOG_BUFFER = 3, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
       CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

struct Driver {
    void *lib = nullptr;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree_v2)(CUdeviceptr);
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void **, void **);
    CUresult (*cuCtxSynchronize)();
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuModuleUnload)(CUmodule);
};

Driver drv;

bool loadDriver(std::string &err)
{
    drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv.lib) {
        const char *e = dlerror();
        err = std::string("cannot load the CUDA driver library libcuda.so.1 (") + (e ? e : "?") +
              "): this needs a machine with an NVIDIA GPU and its driver installed";
        return false;
    }
    bool ok = true;
    auto sym = [&](auto &fn, const char *name) {
        void *p = dlsym(drv.lib, name);
        if (!p) {
            err += std::string(err.empty() ? "" : ", ") + name;
            ok = false;
        }
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    sym(drv.cuInit, "cuInit");
    sym(drv.cuDriverGetVersion, "cuDriverGetVersion");
    sym(drv.cuDeviceGet, "cuDeviceGet");
    sym(drv.cuDeviceGetName, "cuDeviceGetName");
    sym(drv.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    sym(drv.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(drv.cuCtxSetCurrent, "cuCtxSetCurrent");
    sym(drv.cuModuleLoadDataEx, "cuModuleLoadDataEx");
    sym(drv.cuModuleGetFunction, "cuModuleGetFunction");
    sym(drv.cuMemAlloc_v2, "cuMemAlloc_v2");
    sym(drv.cuMemFree_v2, "cuMemFree_v2");
    sym(drv.cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2");
    sym(drv.cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2");
    sym(drv.cuLaunchKernel, "cuLaunchKernel");
    sym(drv.cuCtxSynchronize, "cuCtxSynchronize");
    sym(drv.cuGetErrorName, "cuGetErrorName");
    sym(drv.cuModuleUnload, "cuModuleUnload");
    if (!ok)
        err = "libcuda.so.1 lacks: " + err;
    return ok;
}

std::string errName(CUresult r)
{
    const char *n = nullptr;
    if (drv.cuGetErrorName && drv.cuGetErrorName(r, &n) == 0 && n)
        return n;
    return "CUDA_ERROR_" + std::to_string(r);
}

// The kernel driver's version: /proc/driver/nvidia/version ("... Kernel Module  580.95.05 ...").
std::string kernelDriverVersion()
{
    std::string text;
    if (readFile("/proc/driver/nvidia/version", text)) {
        size_t p = text.find("Kernel Module");
        if (p != std::string::npos) {
            std::istringstream in(text.substr(p + 13));
            std::string v;
            while (in >> v)
                if (!v.empty() && std::isdigit((unsigned char)v[0]))
                    return v;
        }
    }
    return "unknown";
}

// ---- child side ------------------------------------------------------------------------------
// Gathers the environment (key value lines) and writes it to `path`. Exit status 0 on success.
int childEnvironment(const std::string &path)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return 3;
    CUresult r = drv.cuInit(0);
    if (r != 0) {
        std::fprintf(f, "error cuInit: %s\n", errName(r).c_str());
        std::fclose(f);
        return 4;
    }
    int ver = 0;
    drv.cuDriverGetVersion(&ver);
    CUdevice dev = 0;
    r = drv.cuDeviceGet(&dev, 0);
    if (r != 0) {
        std::fprintf(f, "error cuDeviceGet: %s\n", errName(r).c_str());
        std::fclose(f);
        return 4;
    }
    char name[256] = {0};
    drv.cuDeviceGetName(name, sizeof name - 1, dev);
    int ma = 0, mi = 0;
    drv.cuDeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    drv.cuDeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    std::fprintf(f, "gpu %s\n", name);
    std::fprintf(f, "compute_capability %d.%d\n", ma, mi);
    std::fprintf(f, "driver %s\n", kernelDriverVersion().c_str());
    std::fprintf(f, "cuda %d.%d\n", ver / 1000, (ver % 1000) / 10);
    std::fclose(f);
    return 0;
}

// Runs one case; writes "outcome ..." and the dumped buffers to `path`.
int childRun(const Case &c, const std::string &ptxText, const std::string &path)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return 3;
    auto finish = [&](const std::string &outcome, const std::string &extra = "") {
        std::fprintf(f, "outcome %s\n%s", outcome.c_str(), extra.c_str());
        std::fclose(f);
        return 0;
    };
    auto err = [&](const char *what, CUresult r) {
        return finish("error:" + errName(r), std::string("error_at ") + what + "\n");
    };
    CUresult r = drv.cuInit(0);
    if (r)
        return err("cuInit", r);
    CUdevice dev = 0;
    if ((r = drv.cuDeviceGet(&dev, 0)))
        return err("cuDeviceGet", r);
    CUcontext ctx = nullptr;
    if ((r = drv.cuDevicePrimaryCtxRetain(&ctx, dev)))
        return err("cuDevicePrimaryCtxRetain", r);
    if ((r = drv.cuCtxSetCurrent(ctx)))
        return err("cuCtxSetCurrent", r);

    static char errLog[16384], infoLog[16384];
    int opts[4] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                   CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *vals[4] = {errLog, (void *)(uintptr_t)sizeof errLog, infoLog, (void *)(uintptr_t)sizeof infoLog};
    CUmodule mod = nullptr;
    if ((r = drv.cuModuleLoadDataEx(&mod, ptxText.c_str(), 4, opts, vals))) {
        std::string log;
        std::istringstream in(errLog);
        std::string line;
        while (std::getline(in, line))
            log += "jit_log " + line + "\n";
        return finish("error:" + errName(r), "error_at cuModuleLoadDataEx\n" + log);
    }
    CUfunction fn = nullptr;
    if ((r = drv.cuModuleGetFunction(&fn, mod, c.kernel.c_str())))
        return err("cuModuleGetFunction", r);

    // Arguments: scalars are stored as 8-byte slots; the driver reads as many bytes as the
    // kernel's parameter declares (little-endian, so the low bytes come first).
    std::vector<uint64_t> slots(c.args.size(), 0);
    std::vector<void *> params(c.args.size(), nullptr);
    std::vector<CUdeviceptr> dptr(c.args.size(), 0);
    std::vector<std::vector<uint8_t>> host(c.args.size());
    for (size_t i = 0; i < c.args.size(); ++i) {
        const Arg &a = c.args[i];
        if (a.isBuffer) {
            host[i] = makeBuffer(a);
            if ((r = drv.cuMemAlloc_v2(&dptr[i], host[i].size())))
                return err("cuMemAlloc", r);
            if ((r = drv.cuMemcpyHtoD_v2(dptr[i], host[i].data(), host[i].size())))
                return err("cuMemcpyHtoD", r);
            slots[i] = dptr[i];
        } else if (isFloat(a.type)) {
            double v = 0;
            parseReal(a.value, v);
            storeReal(reinterpret_cast<uint8_t *>(&slots[i]), a.type, v);
        } else {
            int64_t v = 0;
            parseInt(a.value, v);
            storeInt(reinterpret_cast<uint8_t *>(&slots[i]), a.type, (uint64_t)v);
        }
        params[i] = &slots[i];
    }
    r = drv.cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2],
                           c.shared, nullptr, params.empty() ? nullptr : params.data(), nullptr);
    if (r)
        return err("cuLaunchKernel", r);
    r = drv.cuCtxSynchronize();
    if (r)
        return err("cuCtxSynchronize", r);
    std::string dumps;
    for (size_t i = 0; i < c.args.size(); ++i) {
        const Arg &a = c.args[i];
        if (!a.isBuffer || !a.dump)
            continue;
        std::vector<uint8_t> out(host[i].size());
        if ((r = drv.cuMemcpyDtoH_v2(out.data(), dptr[i], out.size())))
            return err("cuMemcpyDtoH", r);
        dumps += formatBuffer(a, out);
    }
    for (CUdeviceptr p : dptr)
        if (p)
            drv.cuMemFree_v2(p);
    drv.cuModuleUnload(mod);
    return finish("completed", dumps);
}

// ---- parent side ---------------------------------------------------------------------------
double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Forks, runs `body` in the child (its return value is the exit status), waits at most
// `timeout` seconds. Returns "ok", "hang" or "child-exit-N" / "child-signal-N".
template <class F> std::string runForked(double timeout, F body)
{
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0)
        return "fork-failed";
    if (pid == 0) {
        int st = body();
        std::fflush(nullptr);
        _exit(st);
    }
    double deadline = now() + timeout;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
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

void usage()
{
    std::fprintf(stderr,
                 "usage: gpu_record [--root DIR] [--out-dir DIR] [--timeout SEC] [--env FILE] [--dry-run] CASE...\n"
                 "  Runs each .case on GPU 0 through the CUDA driver API and writes OUT_DIR/<case>.out.\n"
                 "  --root DIR     PTX paths in the cases are relative to DIR (default .)\n"
                 "  --out-dir DIR  where the .out files go (default .)\n"
                 "  --timeout SEC  watchdog per case; a case still running is killed: outcome hang (default 5)\n"
                 "  --env FILE     also write the environment (gpu, driver, cuda) to FILE\n"
                 "  --dry-run      parse the cases, check the PTX files and generate the inputs; no GPU\n"
                 "  --show-inputs  like --dry-run, and print every buffer's initial contents\n");
}

} // namespace

int main(int argc, char **argv)
{
    std::string root = ".", outDir = ".", envFile;
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
        else if (a == "--dry-run")
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
            std::fprintf(stderr, "gpu_record: %s: case name '%s' also used by %s\n", f.c_str(),
                         c.name.c_str(), seen[c.name].c_str());
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
            if (a.isBuffer)
                (void)makeBuffer(a);
    }
    if (dryRun) {
        for (size_t i = 0; i < cases.size(); ++i) {
            std::printf("%-40s %s %s sha256=%s\n", cases[i].name.c_str(), cases[i].ptx.c_str(),
                        cases[i].kernel.c_str(), sha256Hex(ptxTexts[i]).c_str());
            if (showInputs)
                for (const Arg &a : cases[i].args)
                    if (a.isBuffer)
                        std::printf("%s", formatBuffer(a, makeBuffer(a)).c_str());
        }
        std::printf("gpu_record: %zu case(s) parsed (dry run, no GPU used)\n", cases.size());
        return 0;
    }

    std::string err;
    if (!loadDriver(err)) {
        std::fprintf(stderr, "gpu_record: %s\n", err.c_str());
        return 2;
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
        std::string st = runForked(limit, [&] { return childRun(c, ptxTexts[i], bodyTmp); });
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
        o << env;
        if (!c.expect.empty())
            o << "expect " << c.expect << "\n";
        o << "compare " << c.compare << "\n";
        o << body;
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
                     c.expect.empty() ? "" : (outcome == c.expect ? "  [as expected]" : ("  [expected " + c.expect + "]").c_str()),
                     dt);
    }
    std::fprintf(stderr, "gpu_record: %zu case(s): %d completed, %d hang, %d error\n", cases.size(),
                 counts[0], counts[1], counts[2]);
    return 0;
}
