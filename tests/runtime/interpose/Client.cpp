// What NVIDIA's runtime does with libcuda.so.1, reduced to the module loads: dlopen it, find
// cuGetProcAddress_v2 with dlsym, get the loading entry points through it and load modules -
// PTX text, a fatbin (argv[1]) and a cubin. Run with the CUDA shim ahead of the fake driver
// (FakeDriver.cpp, PTXVM_REAL_CUDA_DRIVER); prints what the driver received, for FileCheck.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <dlfcn.h>

namespace {

const char kPtx[] = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

using GetProcAddress = int (*)(const char *, void **, int, uint64_t, int *);
using LoadData = int (*)(void **, const void *);
using LibraryLoadData = int (*)(void **, const void *, int *, void **, unsigned, int *, void **, unsigned);
using Image = const char *(*)(void *);

void show(const char *what, int result, const char *image) {
  std::string text(image);
  const bool ptx = text.rfind(".version", 0) == 0 || text.rfind("//", 0) == 0;
  std::printf("%s: result %d, %s", what, result, ptx ? "PTX" : "not PTX");
  if (ptx) std::printf(", %s", text.find("bra.uni") != std::string::npos ? "bra.uni" : "no bra.uni");
  std::printf("\n");
}

} // namespace

int main(int argc, char **argv) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  const char *fakePath = std::getenv("PTXVM_REAL_CUDA_DRIVER");
  void *fake = fakePath ? dlopen(fakePath, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!cuda || !fake) {
    std::printf("cannot load libcuda.so.1 or the fake driver: %s\n", dlerror());
    return 1;
  }
  auto getProc = reinterpret_cast<GetProcAddress>(dlsym(cuda, "cuGetProcAddress_v2"));
  auto image = reinterpret_cast<Image>(dlsym(fake, "fakeImage"));
  auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(cuda, "cuInit"));
  std::printf("shim: %s\n", dlsym(cuda, "cuMemGetInfo_v2") ? "exports the driver" : "missing symbols");
  std::printf("cuInit: %d\n", init ? init(0) : -1);
  // A function the fake lacks: the shim's stub answers CUDA_ERROR_NOT_FOUND.
  auto absent = reinterpret_cast<int (*)()>(dlsym(cuda, "cuMemGetInfo_v2"));
  std::printf("absent: %d\n", absent ? absent() : -1);

  void *fn = nullptr;
  int status = 0;
  getProc("cuModuleLoadData", &fn, 13000, 0, &status);
  void *module = nullptr;
  int r = reinterpret_cast<LoadData>(fn)(&module, kPtx);
  show("cuModuleLoadData(PTX)", r, image(module));

  std::ifstream in(argc > 1 ? argv[1] : "", std::ios::binary);
  std::string fatbin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  getProc("cuLibraryLoadData", &fn, 13000, 0, &status);
  void *library = nullptr;
  r = reinterpret_cast<LibraryLoadData>(fn)(&library, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr,
                                            0);
  show("cuLibraryLoadData(fatbin)", r, image(library));

  // The wrapper __cudaRegisterFatBinary receives, which NVIDIA's runtime hands cuLibraryLoadData.
  struct {
    int magic, version;
    const void *data, *filenameOrFatbins;
  } wrapper{0x466243b1, 1, fatbin.data(), nullptr};
  r = reinterpret_cast<LibraryLoadData>(fn)(&library, &wrapper, nullptr, nullptr, 0, nullptr, nullptr, 0);
  show("cuLibraryLoadData(wrapper)", r, image(library));

  const char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  getProc("cuModuleLoadFatBinary", &fn, 13000, 0, &status);
  r = reinterpret_cast<LoadData>(fn)(&module, elf);
  show("cuModuleLoadFatBinary(cubin)", r, image(module));
  // A launch through cuGetProcAddress's cuLaunchKernel (timed with PTXVM_TIME_KERNELS=1).
  void *launch = nullptr;
  getProc("cuLaunchKernel", &launch, 13000, 0, &status);
  using Launch = int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                         void **, void **);
  std::printf("cuLaunchKernel: %d\n", launch ? reinterpret_cast<Launch>(launch)(module, 2, 1, 1, 64, 1, 1, 0,
                                                                                nullptr, nullptr, nullptr)
                                             : -1);
  // cuGetProcAddress asked for itself gives the shim's, which still interposes.
  void *self = nullptr;
  getProc("cuGetProcAddress", &self, 13000, 0, &status);
  std::printf("cuGetProcAddress: %s\n", self == reinterpret_cast<void *>(getProc) ? "the shim's" : "another");
  return 0;
}
