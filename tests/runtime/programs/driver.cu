// The driver API (issue 15, item 3) on ptxvm's libcuda.so.1: initialisation and devices, contexts,
// memory, modules from PTX text, a fatbin file and a library, launches with argument pointers and
// with a packed buffer, streams and events, cuGetProcAddress, errors, what is refused (a cubin,
// bad PTX, unserved functions) and a kernel fault that makes the context unusable.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/driver %bin/driver_kernels.fatbin %bin/driver_kernels.cubin > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// CHECK-NOT: FAIL
// CHECK: device 0: {{.+}}, sm_80, warp size 32
// CHECK: driver: ok
// ERR: Program hit CUDA_ERROR_NOT_INITIALIZED (error 3) due to "initialization error" on CUDA API call to cuDeviceGet.
// ERR: Program hit CUDA_ERROR_INVALID_CONTEXT (error 201) due to "invalid device context" on CUDA API call to cuMemAlloc_v2.
// ERR: error: unknown instruction 'bogus'
// ERR: the image is a cubin (SASS for one GPU) and carries no PTX
// ERR: ptxvm: cuArrayCreate_v2 is not supported
// ERR: Program hit CUDA_ERROR_ILLEGAL_ADDRESS (error 700) {{.*}} on CUDA API call to cuCtxSynchronize.
//
// Built as nvcc builds by default (the runtime linked in statically, unused), it runs the same.
// RUN: %ptxvm exec -- %bin/driver_static %bin/driver_kernels.fatbin %bin/driver_kernels.cubin > %t.static 2> %t.static.err
// RUN: FileCheck %s < %t.static
// RUN: FileCheck %s --check-prefix=STATIC < %t.static.err
// STATIC: ptxvm exec: warning: {{.*}}driver_static has the CUDA runtime linked in statically (nvcc's default): ptxvm serves its driver API calls, but runtime API calls need `nvcc -cudart shared`
//
// With ptxvm's library directory on LD_LIBRARY_PATH, the gpu device does not take ptxvm's own
// driver for NVIDIA's.
// RUN: env LD_LIBRARY_PATH=%libdir not %ptxvm exec --device gpu -- %bin/driver 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  ret;\n}\n' > %t.ptx
// RUN: env LD_LIBRARY_PATH=%libdir not %ptxvm run --device gpu %t.ptx --kernel k --grid 1 --block 1 2>&1 | FileCheck %s --check-prefix=GUARD
// GUARD: is ptxvm's own, which runs on the emulator: take ptxvm's library directory out of LD_LIBRARY_PATH
// clang-format on
#include "Inputs/check_driver.h"

#include <cstdint>
#include <cstring>
#include <vector>

static const char kSaxpy[] = R"(
.version 8.0
.target sm_80
.address_size 64

.global .align 4 .f32 scale = 0f40000000;

.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .u32 n)
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
  setp.ge.u32 %p, %r4, %r5;
  @%p bra DONE;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd5];
  ld.global.f32 %f3, [scale];
  fma.rn.f32 %f4, %f3, %f1, %f2;
  st.global.f32 [%rd5], %f4;
DONE:
  ret;
}

.visible .entry poke(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

static const char kBroken[] = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry broken()\n{\n"
                              "  bogus.instruction %r1;\n  ret;\n}\n";

static void initialisation() {
  CUdevice device = -1;
  EXPECT_CU(cuDeviceGet(&device, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_CU(cuInit(1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_CU_OK(cuInit(0));
  int version = 0, count = 0;
  EXPECT_CU_OK(cuDriverGetVersion(&version));
  EXPECT(version >= 13000);
  EXPECT_CU_OK(cuDeviceGetCount(&count));
  EXPECT(count == 1);
  EXPECT_CU(cuDeviceGet(&device, 1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_CU_OK(cuDeviceGet(&device, 0));
  char name[256] = {};
  int major = 0, minor = 0, warp = 0, multiprocessors = 0;
  EXPECT_CU_OK(cuDeviceGetName(name, sizeof name, device));
  EXPECT_CU_OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  EXPECT_CU_OK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  EXPECT_CU_OK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, device));
  EXPECT_CU_OK(cuDeviceGetAttribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  EXPECT(multiprocessors > 0);
  std::printf("device 0: %s, sm_%d%d, warp size %d\n", name, major, minor, warp);
  size_t total = 0;
  EXPECT_CU_OK(cuDeviceTotalMem(&total, device));
  EXPECT(total > (size_t{1} << 30));
  CUuuid uuid;
  EXPECT_CU_OK(cuDeviceGetUuid(&uuid, device));
  // Memory needs a context.
  CUdeviceptr p = 0;
  EXPECT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
}

static void contexts(CUcontext &context) {
  CUcontext current = nullptr, primary = nullptr, popped = nullptr;
  EXPECT_CU_OK(cuCtxGetCurrent(&current));
  EXPECT(current == nullptr);
  EXPECT_CU_OK(cuCtxCreate(&context, nullptr, 0, 0));
  EXPECT_CU_OK(cuCtxGetCurrent(&current));
  EXPECT(current == context);
  CUdevice device = -1;
  EXPECT_CU_OK(cuCtxGetDevice(&device));
  EXPECT(device == 0);
  // The primary context, pushed over the created one and popped again.
  EXPECT_CU_OK(cuDevicePrimaryCtxRetain(&primary, 0));
  EXPECT(primary != nullptr && primary != context);
  EXPECT_CU_OK(cuCtxPushCurrent(primary));
  EXPECT_CU_OK(cuCtxGetCurrent(&current));
  EXPECT(current == primary);
  EXPECT_CU_OK(cuCtxPopCurrent(&popped));
  EXPECT(popped == primary);
  EXPECT_CU_OK(cuCtxGetCurrent(&current));
  EXPECT(current == context);
  unsigned flags = 0;
  int active = 0;
  EXPECT_CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT(active == 1);
  unsigned long long id1 = 0, id2 = 0;
  EXPECT_CU_OK(cuCtxGetId(context, &id1));
  EXPECT_CU_OK(cuCtxGetId(primary, &id2));
  EXPECT(id1 != id2);
  // The last release destroys the primary context (as on an H200).
  EXPECT_CU_OK(cuDevicePrimaryCtxRelease(0));
  EXPECT_CU(cuCtxGetId(primary, &id2), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  EXPECT_CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT(active == 0);
  size_t stack = 0;
  EXPECT_CU_OK(cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
  EXPECT(stack > 0);
  // A context made and destroyed: its handle is no longer current or valid.
  CUcontext scratch = nullptr;
  EXPECT_CU_OK(cuCtxCreate(&scratch, nullptr, 0, 0));
  EXPECT_CU_OK(cuCtxDestroy(scratch));
  EXPECT_CU_OK(cuCtxGetCurrent(&current));
  EXPECT(current == context);
  EXPECT_CU(cuCtxDestroy(scratch), CUDA_ERROR_CONTEXT_IS_DESTROYED);
}

static void memory() {
  CUdeviceptr a = 0, b = 0;
  EXPECT_CU(cuMemAlloc(&a, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_CU_OK(cuMemAlloc(&a, 1024));
  EXPECT_CU_OK(cuMemAlloc(&b, 1024));
  // Fills of 1, 2 and 4 bytes, read back through a device-to-device copy.
  EXPECT_CU_OK(cuMemsetD32(a, 0x3f800000u, 256));
  EXPECT_CU_OK(cuMemcpyDtoD(b, a, 1024));
  std::vector<float> floats(256);
  EXPECT_CU_OK(cuMemcpyDtoH(floats.data(), b, 1024));
  EXPECT(floats[0] == 1.0f && floats[255] == 1.0f);
  EXPECT_CU_OK(cuMemsetD16(a + 2, 0xabcd, 3));
  EXPECT_CU_OK(cuMemsetD8(a + 8, 0x11, 1));
  uint8_t bytes[12] = {};
  EXPECT_CU_OK(cuMemcpyDtoH(bytes, a, sizeof bytes));
  const uint8_t want[12] = {0, 0, 0xcd, 0xab, 0xcd, 0xab, 0xcd, 0xab, 0x11, 0, 0x80, 0x3f};
  EXPECT(std::memcmp(bytes, want, sizeof want) == 0);
  EXPECT_CU(cuMemsetD32(a + 2, 0, 1), CUDA_ERROR_INVALID_VALUE); // misaligned
  // 2-D: rows of a pitched allocation.
  CUdeviceptr pitched = 0;
  size_t pitch = 0;
  EXPECT_CU_OK(cuMemAllocPitch(&pitched, &pitch, 10, 4, 4));
  EXPECT(pitch >= 10);
  EXPECT_CU_OK(cuMemsetD2D8(pitched, pitch, 0x5a, 10, 4));
  char rows[4][10] = {};
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = pitched;
  copy.srcPitch = pitch;
  copy.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy.dstHost = rows;
  copy.dstPitch = 10;
  copy.WidthInBytes = 10;
  copy.Height = 4;
  EXPECT_CU_OK(cuMemcpy2D(&copy));
  EXPECT(rows[0][0] == 0x5a && rows[3][9] == 0x5a);
  // Address ranges and pointer attributes.
  CUdeviceptr base = 0;
  size_t size = 0;
  EXPECT_CU_OK(cuMemGetAddressRange(&base, &size, a + 100));
  EXPECT(base == a && size == 1024);
  unsigned type = 0;
  EXPECT_CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
  EXPECT(type == CU_MEMORYTYPE_DEVICE);
  void *host = nullptr;
  EXPECT_CU_OK(cuMemAllocHost(&host, 64));
  EXPECT_CU_OK(
      cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(host)));
  EXPECT(type == CU_MEMORYTYPE_HOST);
  EXPECT_CU_OK(cuMemFreeHost(host));
  size_t free = 0, all = 0;
  EXPECT_CU_OK(cuMemGetInfo(&free, &all));
  EXPECT(free <= all && all > 0);
  EXPECT_CU_OK(cuMemFree(pitched));
  EXPECT_CU_OK(cuMemFree(a));
  EXPECT_CU_OK(cuMemFree(b));
}

static void modulesAndLaunches() {
  CUmodule module = nullptr;
  char errors[4096] = {}, info[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors, reinterpret_cast<void *>(sizeof errors), info,
                    reinterpret_cast<void *>(sizeof info)};
  EXPECT_CU_OK(cuModuleLoadDataEx(&module, kSaxpy, 4, options, values));
  EXPECT(errors[0] == 0);
  CUfunction saxpy = nullptr, missing = nullptr;
  EXPECT_CU_OK(cuModuleGetFunction(&saxpy, module, "saxpy"));
  EXPECT_CU(cuModuleGetFunction(&missing, module, "nothing"), CUDA_ERROR_NOT_FOUND);
  const char *name = nullptr;
  EXPECT_CU_OK(cuFuncGetName(&name, saxpy));
  EXPECT(name && std::strcmp(name, "saxpy") == 0);
  int threads = 0;
  EXPECT_CU_OK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy));
  EXPECT(threads == 1024);
  // The module's global: read, then changed before the launch.
  CUdeviceptr scale = 0;
  size_t scaleBytes = 0;
  EXPECT_CU_OK(cuModuleGetGlobal(&scale, &scaleBytes, module, "scale"));
  EXPECT(scaleBytes == 4);
  float s = 0;
  EXPECT_CU_OK(cuMemcpyDtoH(&s, scale, 4));
  EXPECT(s == 2.0f);
  s = 3.0f;
  EXPECT_CU_OK(cuMemcpyHtoD(scale, &s, 4));

  constexpr unsigned n = 1000;
  std::vector<float> x(n), y(n), out(n);
  for (unsigned i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
  CUdeviceptr dx = 0, dy = 0;
  EXPECT_CU_OK(cuMemAlloc(&dx, n * 4));
  EXPECT_CU_OK(cuMemAlloc(&dy, n * 4));
  EXPECT_CU_OK(cuMemcpyHtoD(dx, x.data(), n * 4));
  EXPECT_CU_OK(cuMemcpyHtoD(dy, y.data(), n * 4));
  unsigned count = n;
  void *args[] = {&dx, &dy, &count};
  EXPECT_CU_OK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  EXPECT_CU_OK(cuCtxSynchronize());
  EXPECT_CU_OK(cuMemcpyDtoH(out.data(), dy, n * 4));
  EXPECT(out[0] == 1.0f && out[10] == 31.0f && out[999] == 2998.0f);
  // The same arguments packed in one buffer at their PTX offsets (0, 8, 16).
  // The buffer's size is the parameters' (to the end of the last one); a larger one is refused.
  alignas(8) unsigned char buffer[24] = {};
  std::memcpy(buffer, &dx, 8);
  std::memcpy(buffer + 8, &dy, 8);
  std::memcpy(buffer + 16, &count, 4);
  size_t bufferSize = sizeof buffer;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &bufferSize,
                   CU_LAUNCH_PARAM_END};
  EXPECT_CU(cuLaunchKernel(saxpy, 1, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra),
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  bufferSize = 20;
  EXPECT_CU_OK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  EXPECT_CU(cuLaunchKernel(saxpy, 1, 1, 1, 128, 1, 1, 0, nullptr, args, extra), CUDA_ERROR_INVALID_VALUE);
  EXPECT_CU(cuLaunchKernel(saxpy, 1, 1, 1, 2048, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_CU_OK(cuMemcpyDtoH(out.data(), dy, n * 4));
  EXPECT(out[10] == 61.0f && out[999] == 5995.0f);

  // Streams and events, with cuLaunchKernelEx.
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  EXPECT_CU_OK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  EXPECT_CU_OK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  EXPECT_CU_OK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  EXPECT_CU_OK(cuMemcpyHtoDAsync(dy, y.data(), n * 4, stream));
  EXPECT_CU_OK(cuEventRecord(start, stream));
  CUlaunchConfig config{};
  config.gridDimX = (n + 255) / 256;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  EXPECT_CU_OK(cuLaunchKernelEx(&config, saxpy, args, nullptr));
  EXPECT_CU_OK(cuEventRecord(stop, stream));
  EXPECT_CU_OK(cuMemcpyDtoHAsync(out.data(), dy, n * 4, stream));
  EXPECT_CU_OK(cuStreamSynchronize(stream));
  EXPECT_CU_OK(cuEventSynchronize(stop));
  float ms = -1;
  EXPECT_CU_OK(cuEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0);
  EXPECT(out[10] == 31.0f);
  EXPECT_CU_OK(cuStreamQuery(stream));
  EXPECT_CU_OK(cuEventDestroy(start));
  EXPECT_CU_OK(cuEventDestroy(stop));
  EXPECT_CU_OK(cuStreamDestroy(stream));
  EXPECT_CU_OK(cuMemFree(dx));
  EXPECT_CU_OK(cuMemFree(dy));
  EXPECT_CU_OK(cuModuleUnload(module));
  EXPECT_CU(cuModuleGetFunction(&missing, module, "saxpy"), CUDA_ERROR_INVALID_HANDLE);

  // PTX that does not compile: the error log says where.
  CUmodule broken = nullptr;
  errors[0] = 0;
  values[1] = reinterpret_cast<void *>(sizeof errors);
  EXPECT_CU(cuModuleLoadDataEx(&broken, kBroken, 2, options, values), CUDA_ERROR_INVALID_PTX);
  EXPECT(std::strstr(errors, ":6:") != nullptr || std::strstr(errors, "line 6") != nullptr);
}

static void fatbinsAndLibraries(const char *fatbin, const char *cubin) {
  CUmodule module = nullptr;
  EXPECT_CU(cuModuleLoad(&module, "/no/such/file.fatbin"), CUDA_ERROR_FILE_NOT_FOUND);
  EXPECT_CU_OK(cuModuleLoad(&module, fatbin));
  CUfunction increment = nullptr;
  EXPECT_CU_OK(cuModuleGetFunction(&increment, module, "increment"));
  int values[64];
  for (int i = 0; i < 64; ++i) values[i] = i;
  CUdeviceptr d = 0;
  EXPECT_CU_OK(cuMemAlloc(&d, sizeof values));
  EXPECT_CU_OK(cuMemcpyHtoD(d, values, sizeof values));
  int n = 64, by = 5;
  void *args[] = {&d, &n, &by};
  EXPECT_CU_OK(cuLaunchKernel(increment, 2, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  EXPECT_CU_OK(cuMemcpyDtoH(values, d, sizeof values));
  EXPECT(values[0] == 5 && values[63] == 68);
  EXPECT_CU_OK(cuMemFree(d));

  // The same fatbin as a library: kernels and globals by name.
  CUlibrary library = nullptr;
  EXPECT_CU_OK(cuLibraryLoadFromFile(&library, fatbin, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel count = nullptr;
  EXPECT_CU_OK(cuLibraryGetKernel(&count, library, "count"));
  CUfunction countFunction = nullptr;
  EXPECT_CU_OK(cuKernelGetFunction(&countFunction, count));
  int times = 3;
  void *countArgs[] = {&times};
  EXPECT_CU_OK(cuLaunchKernel(countFunction, 4, 1, 1, 64, 1, 1, 0, nullptr, countArgs, nullptr));
  CUdeviceptr counter = 0;
  size_t bytes = 0;
  EXPECT_CU_OK(cuLibraryGetGlobal(&counter, &bytes, library, "counter"));
  int total = 0;
  EXPECT_CU_OK(cuMemcpyDtoH(&total, counter, sizeof total));
  EXPECT(bytes == 4 && total == 4 * 64 * 3);
  EXPECT_CU_OK(cuLibraryUnload(library));
  EXPECT_CU_OK(cuModuleUnload(module));

  // A cubin has no PTX to run.
  EXPECT_CU(cuModuleLoad(&module, cubin), CUDA_ERROR_NO_BINARY_FOR_GPU);
}

static void procAddresses() {
  void *f = nullptr;
  CUdriverProcAddressQueryResult status{};
  EXPECT_CU_OK(cuGetProcAddress("cuMemAlloc", &f, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(status == CU_GET_PROC_ADDRESS_SUCCESS && f != nullptr);
  CUdeviceptr p = 0;
  auto alloc = reinterpret_cast<CUresult (*)(CUdeviceptr *, size_t)>(f);
  EXPECT_CU_OK(alloc(&p, 256));
  EXPECT_CU_OK(cuMemFree(p));
  // What is not found is a success whose status says why (as on an H200).
  EXPECT_CU_OK(cuGetProcAddress("cuNoSuchFunction", &f, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && f == nullptr);
  EXPECT_CU_OK(cuGetProcAddress("cuCtxCreate", &f, 1000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT && f == nullptr);
  // Per-thread default stream forms, where the function has one.
  void *legacy = nullptr, *perThread = nullptr;
  EXPECT_CU_OK(cuGetProcAddress("cuLaunchKernel", &legacy, 13000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr));
  EXPECT_CU_OK(cuGetProcAddress("cuLaunchKernel", &perThread, 13000,
                                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, nullptr));
  EXPECT(legacy && perThread && legacy != perThread);
  // Errors by name and text.
  const char *text = nullptr;
  EXPECT_CU_OK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
  EXPECT(text && std::strcmp(text, "invalid argument") == 0);
  EXPECT_CU_OK(cuGetErrorName(CUDA_ERROR_NOT_FOUND, &text));
  EXPECT(text && std::strcmp(text, "CUDA_ERROR_NOT_FOUND") == 0);
  EXPECT_CU(cuGetErrorName(static_cast<CUresult>(12345), &text), CUDA_ERROR_INVALID_VALUE);
  // A function ptxvm does not serve says so (a GPU checks the descriptor: CUDA_ERROR_INVALID_VALUE).
  CUarray array = nullptr;
  CUDA_ARRAY_DESCRIPTOR descriptor{};
  EXPECT_CU(cuArrayCreate(&array, &descriptor), CUDA_ERROR_NOT_SUPPORTED);
}

static void fault() {
  CUmodule module = nullptr;
  EXPECT_CU_OK(cuModuleLoadData(&module, kSaxpy));
  CUfunction poke = nullptr;
  EXPECT_CU_OK(cuModuleGetFunction(&poke, module, "poke"));
  CUdeviceptr wild = 0x10;
  void *args[] = {&wild};
  EXPECT_CU_OK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
  EXPECT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr p = 0;
  EXPECT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_ILLEGAL_ADDRESS); // the context is unusable
}

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc < 3) {
    std::printf("usage: driver FATBIN CUBIN\n");
    return 2;
  }
  initialisation();
  CUcontext context = nullptr;
  contexts(context);
  memory();
  modulesAndLaunches();
  fatbinsAndLibraries(argv[1], argv[2]);
  procAddresses();
  fault();
  return finish("driver");
}
