// Runs the differential test's exported cases on a real GPU (the driver JIT-
// compiles each kernel) and writes the registers before and after the
// instruction and the memory slots, for DifferentialTest to check against
// the references (PTXVM_DIFF_GPU). Not part of the build: compile it where
// a GPU and the CUDA driver are, with
//   g++ -O2 -std=c++17 -I$CUDA/include tests/emulator/gpu/diff_runner.cpp -o diff_runner -lcuda
// and run  diff_runner DIR [CASE...]  on a directory written with
// PTXVM_DIFF_EXPORT=DIR (all cases, or the named ones). A kernel that faults
// leaves the process's context unusable: run one case per process, e.g.
//   for f in DIR/*.ptx; do diff_runner DIR $(basename $f .ptx); done
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return true;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "%s: %s\n", what, name ? name : "?");
  return false;
}

std::vector<char> slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void spill(const std::string &path, const void *data, size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char *>(data), std::streamsize(n));
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: diff_runner DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  CUdevice dev;
  CUcontext ctx;
  if (!check(cuInit(0), "cuInit") || !check(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
    return 1;
  std::vector<std::string> names(argv + 2, argv + argc);
  if (names.empty())
    if (DIR *d = opendir(dir.c_str())) {
      while (dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 4 && n.substr(n.size() - 4) == ".ptx") names.push_back(n.substr(0, n.size() - 4));
      }
      closedir(d);
    }
  int rejected = 0, failed = 0, ran = 0;
  for (const std::string &name : names) {
    std::vector<char> ptx = slurp(dir + "/" + name + ".ptx");
    ptx.push_back(0);
    char log[8192] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, reinterpret_cast<void *>(sizeof log)};
    CUmodule mod;
    if (cuModuleLoadDataEx(&mod, ptx.data(), 2, opts, vals) != CUDA_SUCCESS) {
      std::printf("REJECTED %s: %s\n", name.c_str(), log);
      ++rejected;
      continue;
    }
    CUfunction fn;
    check(cuModuleGetFunction(&fn, mod, "k"), "cuModuleGetFunction");
    for (int launch = 0;; ++launch) {
      std::string stem = dir + "/" + name + "." + std::to_string(launch);
      std::ifstream shape(stem + ".shape");
      if (!shape) break;
      unsigned grid, block, n, regs;
      shape >> grid >> block >> n >> regs;
      std::vector<char> in = slurp(stem + ".in"), mem = slurp(stem + ".mem");
      size_t regBytes = size_t(grid) * block * regs * 8;
      CUdeviceptr dIn, dPre, dPost, dMem;
      cuMemAlloc(&dIn, regBytes + 8);
      cuMemAlloc(&dPre, regBytes + 8);
      cuMemAlloc(&dPost, regBytes + 8);
      cuMemAlloc(&dMem, mem.size() + 8);
      cuMemcpyHtoD(dIn, in.data(), in.size());
      cuMemsetD8(dPre, 0, regBytes);
      cuMemsetD8(dPost, 0, regBytes);
      cuMemcpyHtoD(dMem, mem.data(), mem.size());
      void *params[] = {&dIn, &dPre, &dPost, &dMem, &n};
      bool ok =
          check(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, nullptr, params, nullptr), name.c_str()) &&
          check(cuCtxSynchronize(), name.c_str());
      if (!ok) {
        // A fault poisons the context for good.
        std::printf("FAILED %s launch %d\n", name.c_str(), launch);
        return 1;
      }
      std::vector<char> pre(regBytes), post(regBytes), memOut(mem.size());
      cuMemcpyDtoH(pre.data(), dPre, regBytes);
      cuMemcpyDtoH(post.data(), dPost, regBytes);
      cuMemcpyDtoH(memOut.data(), dMem, mem.size());
      spill(stem + ".pre", pre.data(), pre.size());
      spill(stem + ".post", post.data(), post.size());
      spill(stem + ".memout", memOut.data(), memOut.size());
      cuMemFree(dIn), cuMemFree(dPre), cuMemFree(dPost), cuMemFree(dMem);
      ++ran;
    }
    cuModuleUnload(mod);
  }
  std::printf("%zu cases, %d launches ran, %d rejected by the JIT, %d failed\n", names.size(), ran, rejected,
              failed);
  return 0;
}
