// The device interface (runtime/Device.h) on the emulator: host functions served to device
// code, host memory mapped into the device, frees while a launch runs, the host's access to
// constant banks and global placement — the pieces the CUDA runtime uses.
#include "emulator/Device.h"
#include "ptx/Parser.h"
#include "runtime/EmulatorDevice.h"

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <vector>

namespace {

const char kPtx[] = R"(
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 func_retval0) combine(.param .b32 combine_param_0, .param .b64 combine_param_1);
.extern .func note_string(.param .b64 note_string_param_0);
.extern .func not_served(.param .b32 not_served_param_0);
.global .align 1 .b8 greeting[6] = {104, 101, 108, 108, 111, 0};
.const .align 4 .u32 factor = 3;
.global .align 4 .u32 placed[4];

.visible .entry calls(.param .u64 calls_param_0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [calls_param_0];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b64 param1;
  st.param.b64 [param1], 1000;
  .param .b32 retval0;
  call.uni (retval0), combine, (param0, param1);
  ld.param.b32 %r2, [retval0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}

.visible .entry strings(.param .u64 strings_param_0)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [strings_param_0];
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  call.uni note_string, (param0);
  }
  ret;
}

.visible .entry unserved()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  call.uni not_served, (param0);
  }
  ret;
}

.visible .entry scaled(.param .u64 scaled_param_0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [scaled_param_0];
  mov.u32 %r1, %tid.x;
  ld.const.u32 %r2, [factor];
  mul.lo.u32 %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.u32 [%rd3], %r3;
  st.global.u32 [placed], %r2;
  ret;
}
)";

struct HostFunctions : ::testing::Test {
  ptx::DiagnosticList diags;
  std::unique_ptr<ptx::Module> module = ptx::parseModule(kPtx, "host.ptx", diags);
  runtime::EmulatorDevice device;

  runtime::LaunchResult run(const char *kernel, uint32_t threads, const std::vector<uint64_t> &args,
                            ptx::DiagnosticList &out) {
    auto k = device.loadKernel(*module, kernel, out);
    if (!k) return {};
    runtime::LaunchConfig config;
    config.block = {threads, 1, 1};
    config.threads = 2;
    config.params.assign(k->attributes().paramBytes, 0);
    for (size_t i = 0; i < args.size(); ++i)
      std::memcpy(config.params.data() + k->attributes().paramOffsets[i], &args[i], 8);
    return device.launch(*k, config, out);
  }
};

TEST_F(HostFunctions, HostFunctionGetsEachLanesArgumentsAndReturnsItsResult) {
  ASSERT_FALSE(diags.hasErrors()) << diags.renderText();
  std::mutex m;
  std::vector<unsigned> order;
  device.setHostFunction("combine", [&](runtime::HostCall &call) {
    EXPECT_EQ(call.numArguments(), 2u);
    EXPECT_EQ(call.threadIndex().x, call.argument(0));
    std::lock_guard lock(m);
    order.push_back(static_cast<unsigned>(call.argument(0)));
    call.setResult(call.argument(0) * 2 + call.argument(1));
  });
  uint64_t out = device.allocate(48 * 4);
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("calls", 48, {out}, d);
  ASSERT_TRUE(r.ok) << d.renderText();
  std::vector<uint32_t> values(48);
  ASSERT_TRUE(device.read(out, values.data(), values.size() * 4));
  for (uint32_t t = 0; t < 48; ++t) EXPECT_EQ(values[t], 2 * t + 1000) << t;
  // Every thread called once; within a warp, in lane order.
  ASSERT_EQ(order.size(), 48u);
  std::vector<unsigned> firstWarp(order.begin(), order.end());
  std::erase_if(firstWarp, [](unsigned t) { return t >= 32; });
  for (unsigned i = 0; i < firstWarp.size(); ++i) EXPECT_EQ(firstWarp[i], i);
}

TEST_F(HostFunctions, HostFunctionReadsDeviceMemoryThroughGenericAddresses) {
  std::string seen;
  device.setHostFunction(
      "note_string", [&](runtime::HostCall &call) { EXPECT_TRUE(call.readString(call.argument(0), seen)); });
  std::optional<runtime::Symbol> g = device.symbol(*module, module->names.find("greeting"));
  ASSERT_TRUE(g);
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("strings", 1, {g->address}, d);
  ASSERT_TRUE(r.ok) << d.renderText();
  EXPECT_EQ(seen, "hello");
}

TEST_F(HostFunctions, ABadAddressInAHostFunctionIsReportedAndFailsTheLaunch) {
  device.setHostFunction("note_string", [&](runtime::HostCall &call) {
    std::string s;
    EXPECT_FALSE(call.readString(call.argument(0), s));
  });
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("strings", 1, {0x123}, d);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "cudaErrorIllegalAddress");
  ASSERT_FALSE(d.all().empty());
  EXPECT_EQ(d.all()[0].kind, ptx::DiagKind::OutOfBounds);
}

TEST_F(HostFunctions, AHostFunctionCanFailTheLaunchWithItsOwnError) {
  device.setHostFunction("combine", [&](runtime::HostCall &call) {
    if (call.threadIndex().x == 5)
      call.fail(ptx::DiagKind::Trap, "thread 5 gave up", {{"cuda_error", "cudaErrorAssert"}});
  });
  uint64_t out = device.allocate(32 * 4);
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("calls", 32, {out}, d);
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(d.all().size(), 1u);
  const ptx::Diagnostic &diag = d.all()[0];
  EXPECT_EQ(diag.kind, ptx::DiagKind::Trap);
  EXPECT_EQ(diag.message, "thread 5 gave up");
  EXPECT_EQ(diag.loc.function, "calls");
  bool hasError = false, hasThread = false;
  for (const auto &[k, v] : diag.fields) {
    hasError |= k == "cuda_error" && v == "cudaErrorAssert";
    hasThread |= k == "thread" && v == "5";
  }
  EXPECT_TRUE(hasError && hasThread);
}

TEST_F(HostFunctions, AnExternFunctionWithoutAHostFunctionStaysUnsupported) {
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("unserved", 1, {}, d);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "cudaErrorNotSupported");
  ASSERT_FALSE(d.all().empty());
  EXPECT_EQ(d.all()[0].kind, ptx::DiagKind::Unsupported);
  EXPECT_NE(d.all()[0].message.find("'not_served'"), std::string::npos) << d.all()[0].message;
}

TEST_F(HostFunctions, AdoptedHostMemoryIsReachedThroughTheHostPointer) {
  std::vector<uint32_t> host(64, 0xdeadbeef);
  ASSERT_TRUE(device.mapHost(host.data(), host.size() * 4));
  // The same range cannot be adopted twice, nor overlap.
  EXPECT_FALSE(device.mapHost(host.data() + 8, 16));
  auto info = device.allocationAt(reinterpret_cast<uint64_t>(host.data() + 3));
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->hostMapped && info->live);
  EXPECT_EQ(info->size, 256u);
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("scaled", 64, {reinterpret_cast<uint64_t>(host.data())}, d);
  ASSERT_TRUE(r.ok) << d.renderText();
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(host[t], 3 * t);
  // Adopted memory is not heap memory.
  uint64_t before = device.liveBytes();
  EXPECT_TRUE(device.unmapHost(reinterpret_cast<uint64_t>(host.data())));
  EXPECT_EQ(device.liveBytes(), before);
  ptx::DiagnosticList after;
  r = run("scaled", 64, {reinterpret_cast<uint64_t>(host.data())}, after);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "cudaErrorIllegalAddress");
  // Released memory may be adopted again (the host reuses its memory).
  EXPECT_TRUE(device.mapHost(host.data(), 64));
}

TEST_F(HostFunctions, MappingRefusesTheGenericWindowsAndTheDeviceHeap) {
  EXPECT_FALSE(device.mapHost(reinterpret_cast<void *>(emu::kSharedWindow + 64), 16));
  EXPECT_FALSE(device.mapHost(reinterpret_cast<void *>(emu::kLocalWindow), 16));
  uint64_t a = device.allocate(64);
  EXPECT_FALSE(device.mapHost(reinterpret_cast<void *>(a), 16));
  EXPECT_FALSE(device.mapHost(nullptr, 16));
}

TEST_F(HostFunctions, TheConstantBankIsWritableBetweenLaunchesAndGlobalsCanBePlaced) {
  std::vector<uint32_t> placed(4, 0);
  device.placeGlobal = [&](const ptx::Module &, const ptx::Variable &v, uint64_t bytes) -> uint64_t {
    if (module->str(v.name) != "placed") return 0;
    EXPECT_EQ(bytes, 16u);
    return device.mapHost(placed.data(), bytes) ? reinterpret_cast<uint64_t>(placed.data()) : 0;
  };
  std::optional<runtime::Symbol> factor = device.symbol(*module, module->names.find("factor"));
  ASSERT_TRUE(factor);
  EXPECT_EQ(factor->space, runtime::Symbol::Space::Const);
  EXPECT_EQ(factor->size, 4u);
  // The bank lives in device memory: host copies reach it at the symbol's address.
  uint32_t seven = 7;
  EXPECT_TRUE(device.write(factor->address, &seven, 4));
  EXPECT_FALSE(device.write(factor->address + 2, &seven, 4)); // past the bank
  uint64_t out = device.allocate(8 * 4);
  ptx::DiagnosticList d;
  runtime::LaunchResult r = run("scaled", 8, {out}, d);
  ASSERT_TRUE(r.ok) << d.renderText();
  uint32_t values[8];
  ASSERT_TRUE(device.read(out, values, sizeof values));
  EXPECT_EQ(values[5], 35u);
  EXPECT_EQ(placed[0], 7u); // the kernel's `st.global [placed]` went to the host's array
}

TEST(GlobalMemoryFree, AFreeDuringALaunchIsDeadAtOnceAndReleasedWhenTheLaunchEnds) {
  emu::GlobalMemory memory;
  uint64_t a = memory.allocate(128);
  ASSERT_TRUE(memory.write(a, "abc", 3));
  emu::GlobalMemory::Range range = memory.rangeOf(a);
  ASSERT_NE(range.bytes, nullptr);
  memory.beginLaunch();
  memory.beginLaunch(); // two launches at once (streams): the bytes stay until both end
  EXPECT_TRUE(memory.free(a));
  EXPECT_FALSE(memory.free(a)); // twice
  char c;
  EXPECT_FALSE(memory.read(a, &c, 1));
  EXPECT_EQ(range.bytes[1], 'b'); // another CTA's cached view stays readable until the launch ends
  auto info = memory.allocationAt(a + 5);
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->live);
  memory.endLaunch();
  EXPECT_EQ(range.bytes[2], 'c');
  memory.endLaunch();
  EXPECT_EQ(memory.liveBytes(), 0u);
}

TEST(DeviceRegistry, TheEmulatorIsTheDefaultAndOtherDevicesAreNamedInTheError) {
  std::string error;
  auto emulator = runtime::createDevice("", error);
  ASSERT_TRUE(emulator);
  EXPECT_EQ(emulator->name(), "emulator");
  EXPECT_TRUE(runtime::createDevice("emulator", error));
  std::string builtIn;
  bool cpu = false;
  for (std::string_view name : runtime::deviceNames()) {
    builtIn += (builtIn.empty() ? "" : ", ") + std::string(name);
    cpu |= name == "cpu";
  }
  // The CPU device is built in unless the build turned it off
  // (-DPTXVM_CPU_DEVICE=OFF); either way the answer says so.
  auto device = runtime::createDevice("cpu", error);
  if (cpu) {
    ASSERT_TRUE(device) << error;
    EXPECT_EQ(device->name(), "cpu");
  } else {
    EXPECT_FALSE(device);
    EXPECT_EQ(error, "device 'cpu' is not built into this ptxvm (built in: " + builtIn + ")");
  }
  EXPECT_FALSE(runtime::createDevice("tpu", error));
  EXPECT_EQ(error, "unknown device 'tpu' (built in: " + builtIn + ")");
}

TEST(DeviceRegistry, TheGpuDeviceWithoutADriverSaysSo) {
  // Built in (the driver is loaded at run time), and an error value, not a crash, without one.
  setenv("PTXVM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  std::string error;
  EXPECT_FALSE(runtime::createDevice("gpu", error));
  unsetenv("PTXVM_CUDA_DRIVER");
  EXPECT_NE(error.find("cannot load the CUDA driver"), std::string::npos) << error;
  EXPECT_NE(error.find("needs a machine with an NVIDIA GPU"), std::string::npos) << error;
}

TEST(DeviceErrors, ALaunchErrorComesFromTheFirstFatalDiagnostic) {
  auto diag = [](ptx::DiagKind kind, ptx::Severity severity = ptx::Severity::Error) {
    ptx::Diagnostic d;
    d.kind = kind;
    d.severity = severity;
    return d;
  };
  ptx::DiagnosticList list;
  EXPECT_EQ(runtime::launchError(list), "cudaErrorLaunchFailure");
  list.add(diag(ptx::DiagKind::DivergentBarrier, ptx::Severity::Warning));
  list.add(diag(ptx::DiagKind::SharedRace)); // a checker's finding, not a fault
  list.add(diag(ptx::DiagKind::MisalignedAccess));
  list.add(diag(ptx::DiagKind::OutOfBounds));
  EXPECT_EQ(runtime::launchError(list), "cudaErrorMisalignedAddress");
  ptx::DiagnosticList asked;
  ptx::Diagnostic trap = diag(ptx::DiagKind::Trap);
  trap.fields.emplace_back("cuda_error", "cudaErrorAssert");
  asked.add(trap);
  EXPECT_EQ(runtime::launchError(asked), "cudaErrorAssert");
  EXPECT_EQ(runtime::cudaErrorFor(ptx::DiagKind::BarrierDeadlock), "cudaErrorLaunchTimeout");
  EXPECT_EQ(runtime::cudaErrorFor(ptx::DiagKind::BarrierCountMismatch), "cudaErrorIllegalInstruction");
  EXPECT_EQ(runtime::cudaErrorFor(ptx::DiagKind::Unsupported), "cudaErrorNotSupported");
}

} // namespace
