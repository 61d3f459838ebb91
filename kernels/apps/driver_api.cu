// kernels/apps: the driver API from a runtime program, as libraries that JIT their own kernels do:
// driver functions taken through cudaGetDriverEntryPointByVersion (no -lcuda), a module loaded from
// PTX text with an error log, its __constant__ set through cuModuleGetGlobal, kernels launched with
// argument pointers, with a packed argument buffer and with cuLaunchKernelEx on a runtime stream,
// on memory from cudaMalloc; results compared exactly with the host (the inputs are small
// integers, so every sum is exact in any order).
#include "app_check.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstring>
#include <vector>

static const char kPtx[] = R"(
.version 8.0
.target sm_80
.address_size 64

.const .align 4 .f32 factor = 0f3F800000;

.visible .entry scale_add(.param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  setp.ge.s32 %p, %r4, %r5;
  @%p bra DONE;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd5];
  ld.const.f32 %f3, [factor];
  fma.rn.f32 %f4, %f3, %f1, %f2;
  st.global.f32 [%rd5], %f4;
DONE:
  ret;
}

.visible .entry block_sum(.param .u64 x, .param .u64 partial, .param .u32 n)
{
  .shared .align 4 .f32 cache[256];
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<7>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  mov.f32 %f1, 0f00000000;
  setp.ge.s32 %p1, %r4, %r5;
  @%p1 bra STORE;
  ld.param.u64 %rd1, [x];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.s32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
STORE:
  mov.u32 %r6, cache;
  shl.b32 %r7, %r3, 2;
  add.s32 %r8, %r6, %r7;
  st.shared.f32 [%r8], %f1;
  bar.sync 0;
  shr.u32 %r9, %r2, 1;
LOOP:
  setp.eq.s32 %p2, %r9, 0;
  @%p2 bra WRITE;
  setp.ge.u32 %p3, %r3, %r9;
  @%p3 bra SKIP;
  shl.b32 %r10, %r9, 2;
  add.s32 %r11, %r8, %r10;
  ld.shared.f32 %f2, [%r11];
  ld.shared.f32 %f3, [%r8];
  add.f32 %f3, %f3, %f2;
  st.shared.f32 [%r8], %f3;
SKIP:
  bar.sync 0;
  shr.u32 %r9, %r9, 1;
  bra LOOP;
WRITE:
  setp.ne.s32 %p2, %r3, 0;
  @%p2 bra END;
  ld.shared.f32 %f2, [cache];
  ld.param.u64 %rd4, [partial];
  cvta.to.global.u64 %rd4, %rd4;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.f32 [%rd6], %f2;
END:
  ret;
}
)";

// The driver functions this program uses, from the runtime.
static PFN_cuModuleLoadDataEx_v2010 moduleLoadDataEx;
static PFN_cuModuleGetFunction_v2000 moduleGetFunction;
static PFN_cuModuleGetGlobal_v3020 moduleGetGlobal;
static PFN_cuModuleUnload_v2000 moduleUnload;
static PFN_cuLaunchKernel_v4000 launchKernel;
static PFN_cuLaunchKernelEx_v11060 launchKernelEx;
static PFN_cuFuncGetAttribute_v2020 funcGetAttribute;
static PFN_cuOccupancyMaxPotentialBlockSize_v6050 maxPotentialBlockSize;
static PFN_cuCtxGetCurrent_v4000 ctxGetCurrent;
static PFN_cuGetErrorName_v6000 getErrorName;

template <class F> static void entry(const char *name, F &function) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  CHECK(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || !p) {
    std::fprintf(stderr, "no driver entry point %s (status %d)\n", name, int(status));
    std::exit(2);
  }
  function = reinterpret_cast<F>(p);
}

#define CHECK_CU(call)                                                                                       \
  do {                                                                                                       \
    CUresult check_result_ = (call);                                                                         \
    if (check_result_ != CUDA_SUCCESS) {                                                                     \
      const char *name_ = "?";                                                                               \
      getErrorName(check_result_, &name_);                                                                   \
      std::fflush(stdout);                                                                                   \
      std::fprintf(stderr, "CHECK failed: %s at %s:%d: %s\n", #call, __FILE__, __LINE__, name_);             \
      std::exit(2);                                                                                          \
    }                                                                                                        \
  } while (0)

int main() {
  CHECK(cudaFree(nullptr)); // the runtime makes its context current for the driver calls
  entry("cuModuleLoadDataEx", moduleLoadDataEx);
  entry("cuModuleGetFunction", moduleGetFunction);
  entry("cuModuleGetGlobal", moduleGetGlobal);
  entry("cuModuleUnload", moduleUnload);
  entry("cuLaunchKernel", launchKernel);
  entry("cuLaunchKernelEx", launchKernelEx);
  entry("cuFuncGetAttribute", funcGetAttribute);
  entry("cuOccupancyMaxPotentialBlockSize", maxPotentialBlockSize);
  entry("cuCtxGetCurrent", ctxGetCurrent);
  entry("cuGetErrorName", getErrorName);
  Verdict verdict;
  CUcontext context = nullptr;
  CHECK_CU(ctxGetCurrent(&context));
  verdict.expect(context != nullptr, "no current context after the runtime's first call");

  char log[2048] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
  CUmodule module = nullptr;
  CUresult loaded = moduleLoadDataEx(&module, kPtx, 2, options, values);
  if (loaded != CUDA_SUCCESS) std::fprintf(stderr, "%s\n", log);
  CHECK_CU(loaded);
  CUfunction scaleAdd = nullptr, blockSum = nullptr;
  CHECK_CU(moduleGetFunction(&scaleAdd, module, "scale_add"));
  CHECK_CU(moduleGetFunction(&blockSum, module, "block_sum"));
  int maxThreads = 0, minGrid = 0, bestBlock = 0;
  CHECK_CU(funcGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, scaleAdd));
  verdict.expect(maxThreads >= 256, "scale_add allows %d threads per block", maxThreads);
  CHECK_CU(maxPotentialBlockSize(&minGrid, &bestBlock, scaleAdd, nullptr, 0, 0));
  verdict.expect(bestBlock > 0 && bestBlock <= maxThreads && bestBlock % 32 == 0 && minGrid > 0,
                 "occupancy suggests %d blocks of %d threads", minGrid, bestBlock);

  // factor = 2.5, through the module's __constant__.
  CUdeviceptr factor = 0;
  size_t factorBytes = 0;
  CHECK_CU(moduleGetGlobal(&factor, &factorBytes, module, "factor"));
  verdict.expect(factorBytes == 4, "factor has %zu bytes", factorBytes);
  const float two = 2.5f;
  CHECK(cudaMemcpy(reinterpret_cast<void *>(factor), &two, sizeof two, cudaMemcpyHostToDevice));

  const int n = 100003;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i % 17 - 8), y[i] = float(i % 5);
  float *dx = deviceCopy(x), *dy = deviceCopy(y);
  int count = n;
  void *args[] = {&dx, &dy, &count};
  CHECK_CU(launchKernel(scaleAdd, (n + bestBlock - 1) / bestBlock, 1, 1, bestBlock, 1, 1, 0, nullptr, args,
                        nullptr));
  // Again, with the arguments packed in one buffer at their PTX offsets (0, 8, 16): 20 bytes, to
  // the end of the last parameter (a driver refuses a longer buffer).
  alignas(8) unsigned char buffer[20] = {};
  std::memcpy(buffer, &dx, 8);
  std::memcpy(buffer + 8, &dy, 8);
  std::memcpy(buffer + 16, &count, 4);
  size_t bufferSize = sizeof buffer;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &bufferSize,
                   CU_LAUNCH_PARAM_END};
  CHECK_CU(launchKernel(scaleAdd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, nullptr, extra));
  std::vector<float> got = hostCopy(dy, n);
  for (int i = 0; i < n; ++i) verdict.expectNear(got[i], y[i] + 5.0f * x[i], 0, 0, "y", i);

  // Block sums on a runtime stream, launched with cuLaunchKernelEx.
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int blocks = (n + 255) / 256;
  float *partial = nullptr;
  CHECK(cudaMalloc(&partial, blocks * sizeof(float)));
  CUlaunchConfig config{};
  config.gridDimX = blocks;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  void *sumArgs[] = {&dx, &partial, &count};
  CHECK_CU(launchKernelEx(&config, blockSum, sumArgs, nullptr));
  std::vector<float> sums(blocks);
  CHECK(cudaMemcpyAsync(sums.data(), partial, blocks * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i) want += x[i];
    verdict.expectNear(sums[b], want, 0, 0, "partial", b);
  }
  std::printf("driver_api: %d elements, %d block sums\n", n, blocks);

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(partial));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK_CU(moduleUnload(module));
  return verdict.finish();
}
