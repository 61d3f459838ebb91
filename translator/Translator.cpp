// The process's LLVM JIT (ORC LLJIT for the host CPU), the caches of
// compiled code (per process, on disk), the background compiler of tiered
// kernels, and the engine that runs kernels under the emulator's scheduler.
#include "translator/Translator.h"

#include "emulator/Cta.h"
#include "emulator/Interpreter.h"
#include "translator/Facts.h"
#include "translator/Frame.h"
#include "translator/ObjectCache.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Pass.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>
#include <llvm/Target/TargetMachine.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace translator {

JitOptions JitOptions::fromEnvironment() {
  JitOptions o;
  if (const char *mode = std::getenv("PTXVM_JIT"); mode && *mode) o.eager = std::string_view(mode) == "eager";
  if (const char *n = std::getenv("PTXVM_JIT_THRESHOLD"); n && *n) {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(n, &end, 10);
    if (end && *end == '\0') o.threshold = value;
  }
  if (const char *facts = std::getenv("PTXVM_JIT_FACTS"); facts && *facts) o.uniformity = *facts != '0';
  if (const char *unchecked = std::getenv("PTXVM_UNCHECKED"); unchecked && *unchecked)
    o.checked = *unchecked == '0';
  if (const char *sync = std::getenv("PTXVM_JIT_SYNC"); sync && *sync) o.synchronous = *sync == '1';
  if (const char *cache = std::getenv("PTXVM_CACHE"); cache && *cache) {
    const std::string_view v(cache);
    o.diskCache = !(v == "off" || v == "0" || v == "no");
  }
  if (const char *dir = std::getenv("PTXVM_CACHE_DIR"); dir && *dir) o.cacheDirectory = dir;
  return o;
}

const char *cacheResultName(CacheResult r) {
  switch (r) {
  case CacheResult::Miss: return "miss";
  case CacheResult::Memory: return "memory";
  case CacheResult::Disk: return "disk";
  }
  return "miss";
}

namespace {

constexpr const char *kBlockPrefix = "ptxvm_block";

/// One JIT per process: compiled kernels live as long as it does (a program
/// may exit while a launch still runs on another host thread).
struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> target; // machine code for cache misses
  std::string targetId;                        // what besides the IR decides the machine code
  std::string error;                           // why there is no JIT
  std::mutex mutex;                            // one compilation at a time
  uint64_t dylibs = 0;                         // names each kernel's JITDylib uniquely
  /// Compiled code by cache key: identical kernels (one module loaded
  /// twice, the same kernel in two modules) are compiled once.
  std::unordered_map<std::string, std::shared_ptr<const CompiledCode>> compiled;

  static Jit &get() {
    static Jit *jit = new Jit;
    return *jit;
  }

private:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // The machine scheduler took 60% of code generation on kernels with
    // long blocks (wmma GEMM: 2.4 of 4 s) and made no bench kernel faster.
    const char *sched = std::getenv("PTXVM_JIT_MISCHED");
    const bool misched = sched && *sched == '1';
    if (!misched) {
      auto &options = llvm::cl::getRegisteredOptions();
      if (auto it = options.find("enable-misched"); it != options.end())
        it->second->addOccurrence(0, "enable-misched", "false");
    }
    // PTXVM_LLVM_ARGS="-time-passes ...": LLVM's own options, for looking at
    // where compile time goes (part of the cache key: they may change code).
    const char *args = std::getenv("PTXVM_LLVM_ARGS");
    if (args && *args) {
      std::string line = std::string("ptxvm ") + args;
      llvm::SmallVector<const char *, 8> argv;
      llvm::BumpPtrAllocator strings;
      llvm::StringSaver saver(strings);
      llvm::cl::TokenizeGNUCommandLine(line, saver, argv);
      llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &llvm::errs());
    }
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder) {
      error = llvm::toString(builder.takeError());
      return;
    }
    // Measured on bench_emulator's kernels: Less compiles a third faster
    // than Default for the same speed of code; None halves compile time
    // again but costs up to a third of the speed.
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Less);
    auto machine = builder->createTargetMachine();
    if (!machine) {
      error = llvm::toString(machine.takeError());
      return;
    }
    target = std::move(*machine);
    targetId = builder->getTargetTriple().str() + " " + builder->getCPU() + " " +
               builder->getFeatures().getString() + (misched ? " O1" : " O1 no-misched") +
               " LLVM " LLVM_VERSION_STRING " ptxvm " PTXVM_VERSION +
               (args && *args ? std::string(" ") + args : "");
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*builder).create();
    if (!jit) {
      error = llvm::toString(jit.takeError());
      return;
    }
    lljit = std::move(*jit);
  }

public:
  /// Compiles a small function that takes the code generator's main paths
  /// (masked and gathered vector memory, reductions, shuffles, float
  /// vectors), so that the function-local statics LLVM creates on first use
  /// exist before the background compiler registers its exit handler (exit
  /// destroys later statics first: a compilation running then would use them
  /// after they are gone).
  void warmUp() {
    llvm::LLVMContext ctx;
    llvm::Module m("ptxvm_warm_up", ctx);
    m.setDataLayout(lljit->getDataLayout());
    m.setTargetTriple(lljit->getTargetTriple().str());
    llvm::IRBuilder<> b(ctx);
    llvm::Type *i64 = b.getInt64Ty();
    auto *v64 = llvm::FixedVectorType::get(i64, 32), *f32 = llvm::FixedVectorType::get(b.getFloatTy(), 32);
    auto *fn =
        llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getInt32Ty()}, false),
                               llvm::Function::ExternalLinkage, "warm", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value *p = fn->getArg(0);
    llvm::Value *mask = b.CreateBitCast(fn->getArg(1), llvm::FixedVectorType::get(b.getInt1Ty(), 32));
    llvm::Value *v = b.CreateMaskedLoad(v64, p, llvm::Align(8), mask);
    llvm::Value *at =
        b.CreateGEP(b.getInt32Ty(), p, b.CreateTrunc(v, llvm::FixedVectorType::get(b.getInt32Ty(), 32)));
    llvm::Value *g =
        b.CreateMaskedGather(llvm::FixedVectorType::get(b.getInt32Ty(), 32), at, llvm::Align(4), mask);
    llvm::Value *x = b.CreateAdd(v, b.CreateZExt(g, v64));
    llvm::Value *lo =
        b.CreateIntMinReduce(b.CreateSelect(mask, x, llvm::Constant::getAllOnesValue(v64)), false);
    llvm::Value *e = b.CreateExtractElement(
        x, b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {fn->getArg(1), b.getTrue()}));
    std::vector<int> rotate;
    for (int l = 0; l < 32; ++l) rotate.push_back((l + 1) % 32);
    llvm::Value *f = b.CreateBitCast(
        b.CreateTrunc(b.CreateShuffleVector(x, rotate), llvm::FixedVectorType::get(b.getInt32Ty(), 32)), f32);
    f = b.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {f, f, f});
    b.CreateMaskedScatter(f, b.CreateGEP(b.getFloatTy(), p, g), llvm::Align(4), mask);
    b.CreateMaskedStore(b.CreateAdd(x, b.CreateVectorSplat(32, b.CreateAdd(lo, e))), p, llvm::Align(8), mask);
    b.CreateRetVoid();
    llvm::orc::SimpleCompiler compiler(*target);
    if (auto object = compiler(m); !object) llvm::consumeError(object.takeError());
  }
};

/// The host services compiled code calls, defined in each kernel's JITDylib.
llvm::Error defineServices(Jit &jit, llvm::orc::JITDylib &dylib) {
  llvm::orc::MangleAndInterner mangle(jit.lljit->getExecutionSession(), jit.lljit->getDataLayout());
  const llvm::JITSymbolFlags flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  llvm::orc::SymbolMap services;
  services[mangle("ptxvm_jit_handler")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_handler), flags};
  services[mangle("ptxvm_jit_operand")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_operand), flags};
  services[mangle("ptxvm_jit_direct")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_direct), flags};
  services[mangle("ptxvm_jit_diverge")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_diverge), flags};
  services[mangle("ptxvm_jit_reconverge")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_reconverge), flags};
  return dylib.define(llvm::orc::absoluteSymbols(std::move(services)));
}

/// A kernel's IR and what linking it needs; everything that reads the
/// kernel happens here, so that the kernel may go away after it.
struct Prepared {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  EntryMap entries;
  std::string key;
  std::vector<std::string> perfLabels; // per pc, for PTXVM_PERF_MAP
};

/// The kernel's IR. `facts` null: none. `onLoadingThread`: the caller may
/// read the kernel's ptx::Module (the background compiler may not: the
/// loading thread may be adding function bodies to it), for the names of
/// handler calls.
bool prepare(const emu::Kernel &k, const Jit &jit, const JitOptions &options, const AddressFacts &facts,
             bool onLoadingThread, Prepared &p, CompileReport &report) {
  p.context = std::make_unique<llvm::LLVMContext>();
  // Names do not depend on the kernel or the process: identical kernels
  // give identical IR, and the IR's hash is the cache key.
  GenerateOptions generate;
  generate.facts = options.uniformity ? &facts : nullptr;
  generate.names = onLoadingThread;
  generate.unchecked = !options.checked;
  report.unchecked = !options.checked;
  p.module = generateKernel(*p.context, k, kBlockPrefix, p.entries, report.code, generate);
  if (!p.module) {
    report.error = "the code generator produced invalid IR";
    return false;
  }
  p.module->setDataLayout(jit.lljit->getDataLayout());
  p.module->setTargetTriple(jit.lljit->getTargetTriple().str());
  std::string ir;
  llvm::raw_string_ostream os(ir);
  os << *p.module << "\n; " << jit.targetId;
  os.flush();
  const llvm::XXH128_hash_t h =
      llvm::xxh3_128bits(llvm::ArrayRef(reinterpret_cast<const uint8_t *>(ir.data()), ir.size()));
  p.key = llvm::utohexstr(h.high64, false, 16) + llvm::utohexstr(h.low64, false, 16);
  report.key = p.key;
  // PTXVM_DUMP_IR=FILE appends each kernel's IR to FILE, for looking at
  // what the generator and LLVM made of a kernel.
  if (const char *dump = std::getenv("PTXVM_DUMP_IR"); dump && *dump) {
    std::error_code ec;
    llvm::raw_fd_ostream out(dump, ec, llvm::sys::fs::OF_Append);
    if (!ec) out << "; kernel " << k.name << "\n" << *p.module;
  }
  if (const char *perf = std::getenv("PTXVM_PERF_MAP"); perf && *perf == '1') {
    p.perfLabels.resize(p.entries.size());
    for (size_t pc = 0; pc < p.entries.size(); ++pc)
      p.perfLabels[pc] = k.name + " line " + std::to_string(k.line(static_cast<uint32_t>(pc)));
  }
  return true;
}

/// PTXVM_PERF_MAP=1: names compiled code for `perf report` in
/// /tmp/perf-PID.map (kernel, pc and PTX line of each block). Sizes are the
/// distance to the next function, which is what perf needs to attribute
/// samples.
void writePerfMap(const Prepared &p, const std::vector<CompiledFunction> &functions) {
  std::vector<std::pair<uint64_t, size_t>> sorted;
  for (size_t pc = 0; pc < functions.size(); ++pc)
    if (functions[pc]) sorted.emplace_back(reinterpret_cast<uint64_t>(functions[pc]), pc);
  // One function per PTX function: named after its first entry.
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end(), [](auto &x, auto &y) { return x.first == y.first; }),
               sorted.end());
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Append);
  if (ec) return;
  for (size_t i = 0; i < sorted.size(); ++i) {
    uint64_t size = i + 1 < sorted.size() ? sorted[i + 1].first - sorted[i].first : 4096;
    size_t pc = sorted[i].second;
    os << llvm::utohexstr(sorted[i].first) << " " << llvm::utohexstr(size) << " pc " << pc << " "
       << p.perfLabels[pc] << "\n";
  }
}

/// Links `object` into a new JITDylib and finds every entry of `p` in it.
llvm::Expected<std::shared_ptr<const CompiledCode>> linkObject(Jit &jit, const Prepared &p,
                                                               std::unique_ptr<llvm::MemoryBuffer> object) {
  auto dylib = jit.lljit->createJITDylib("ptxvm_code_" + std::to_string(jit.dylibs++));
  if (!dylib) return dylib.takeError();
  if (llvm::Error e = defineServices(jit, *dylib)) return e;
  if (llvm::Error e = jit.lljit->addObjectFile(*dylib, std::move(object))) return e;
  auto code = std::make_shared<CompiledCode>();
  code->functions.assign(p.entries.size(), nullptr);
  for (size_t pc = 0; pc < p.entries.size(); ++pc) {
    if (p.entries[pc].empty()) continue;
    auto address = jit.lljit->lookup(*dylib, p.entries[pc]);
    if (!address) return address.takeError();
    code->functions[pc] = address->toPtr<CompiledFunction>();
  }
  return code;
}

/// Machine code for `p`, from the caches or LLVM's code generator.
std::shared_ptr<const CompiledCode> link(Jit &jit, Prepared &p, const JitOptions &options,
                                         CompileReport &report) {
  std::lock_guard<std::mutex> lock(jit.mutex);
  if (auto it = jit.compiled.find(p.key); options.memoryCache && it != jit.compiled.end()) {
    report.cache = CacheResult::Memory;
    return it->second;
  }
  std::optional<ObjectCache> disk;
  if (options.diskCache) {
    std::string dir =
        options.cacheDirectory.empty() ? ObjectCache::defaultDirectory() : options.cacheDirectory;
    if (!dir.empty()) disk.emplace(std::move(dir));
  }
  report.diskCache = disk.has_value();
  if (disk) {
    if (std::optional<std::string> bytes = disk->load(p.key)) {
      auto code = linkObject(jit, p, llvm::MemoryBuffer::getMemBufferCopy(*bytes, p.key));
      if (code) {
        report.cache = CacheResult::Disk;
        jit.compiled.insert_or_assign(p.key, *code);
        return *code;
      }
      // An entry the linker rejects (another LLVM wrote it, say): compiled
      // again and replaced.
      llvm::consumeError(code.takeError());
      disk->drop(p.key);
    }
  }
  llvm::orc::SimpleCompiler compiler(*jit.target);
  auto object = compiler(*p.module);
  // With PTXVM_LLVM_ARGS=-time-passes: this kernel's pass timings, now (the
  // JIT lives until exit, past where LLVM would print them).
  if (llvm::TimePassesIsEnabled) llvm::reportAndResetTimings(&llvm::errs());
  if (!object) {
    report.error = llvm::toString(object.takeError());
    return nullptr;
  }
  if (disk) disk->store(p.key, (*object)->getBuffer());
  auto code = linkObject(jit, p, std::move(*object));
  if (!code) {
    report.error = llvm::toString(code.takeError());
    return nullptr;
  }
  report.cache = CacheResult::Miss;
  if (!p.perfLabels.empty()) writePerfMap(p, (*code)->functions);
  jit.compiled.insert_or_assign(p.key, *code);
  return *code;
}

std::shared_ptr<const CompiledCode> compileNow(const emu::Kernel &k, const JitOptions &options,
                                               CompileReport &report) {
  const auto start = std::chrono::steady_clock::now();
  Jit &jit = Jit::get();
  if (!jit.lljit) {
    report.error = "no LLVM JIT for this host: " + jit.error;
    return nullptr;
  }
  Prepared p;
  AddressFacts facts;
  if (options.uniformity) facts = addressFacts(k);
  if (!prepare(k, jit, options, facts, true, p, report)) return nullptr;
  std::shared_ptr<const CompiledCode> code = link(jit, p, options, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return code;
}

} // namespace

/// A kernel's engine state, shared with the background compiler (which may
/// still hold it when the engine is gone).
struct TierState {
  JitOptions options;
  bool eager = false;
  uint64_t threshold = 0; // warp instructions on the interpreter before compiling
  std::atomic<const CompiledCode *> code{nullptr};
  std::atomic<uint64_t> interpreted{0};
  std::atomic<bool> requested{false};

  mutable std::mutex mutex;
  mutable std::condition_variable finishedSignal;
  const emu::Kernel *kernel = nullptr; // null once the engine is gone
  AddressFacts facts;                  // tiered: computed when the engine is made
  std::shared_ptr<const CompiledCode> owner;
  CompileReport report;
  bool finished = false;

  void publish(std::shared_ptr<const CompiledCode> compiled, CompileReport r) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      owner = std::move(compiled);
      report = std::move(r);
      finished = true;
      code.store(owner.get(), std::memory_order_release);
    }
    finishedSignal.notify_all();
  }
};

namespace {

/// The background compiler of tiered kernels: one thread, in the order
/// kernels got hot. It lives as long as the process, but stops compiling
/// when the process exits (LLVM's own statics go away then: a compilation
/// still running would crash the exit).
class BackgroundCompiler {
public:
  static BackgroundCompiler &get() {
    static BackgroundCompiler *compiler = new BackgroundCompiler;
    return *compiler;
  }

  void enqueue(std::shared_ptr<TierState> state) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      queue_.push_back(std::move(state));
      if (!started_) {
        started_ = true;
        // After LLVM is warm: see stopAtExit.
        Jit &jit = Jit::get();
        if (jit.lljit) {
          std::lock_guard<std::mutex> jitLock(jit.mutex);
          jit.warmUp();
        }
        stopAtExit();
        std::thread([this] { loop(); }).detach();
      }
    }
    wake_.notify_one();
  }

  /// Queued compilations dropped, the one under way finished; later ones
  /// are welcome.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    dropQueue("the device went away");
    idle_.wait(lock, [this] { return !busy_; });
  }

  /// Whether compiling may start (not once the process is exiting).
  bool open() {
    std::lock_guard<std::mutex> lock(mutex_);
    return !stopping_;
  }

  static void compile(TierState &s) {
    CompileReport report;
    const auto start = std::chrono::steady_clock::now();
    Jit &jit = Jit::get();
    Prepared p;
    {
      // The kernel is read only here, while its engine cannot go away.
      std::lock_guard<std::mutex> lock(s.mutex);
      if (!s.kernel) return;
      if (!jit.lljit)
        report.error = "no LLVM JIT for this host: " + jit.error;
      else
        prepare(*s.kernel, jit, s.options, s.facts, false, p, report);
    }
    std::shared_ptr<const CompiledCode> code;
    if (report.error.empty()) code = link(jit, p, s.options, report);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    s.publish(std::move(code), std::move(report));
  }

private:
  void loop() {
    for (;;) {
      std::shared_ptr<TierState> state;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return !queue_.empty() || stopping_; });
        if (stopping_) return;
        state = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
      }
      compile(*state);
      // Again after each compilation: exit runs handlers in reverse order of
      // registration, statics' destructors among them, so the handler must
      // come after every static LLVM created so far.
      stopAtExit();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        busy_ = false;
      }
      idle_.notify_all();
    }
  }

  static void stopAtExit() {
    std::atexit([] { get().stop(); });
  }

  /// At exit: no new compilation, and the one under way finished.
  void stop() {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    dropQueue("the process is exiting");
    wake_.notify_all();
    idle_.wait(lock, [this] { return !busy_; });
  }

  void dropQueue(const char *why) {
    for (std::shared_ptr<TierState> &state : queue_) {
      CompileReport report;
      report.error = why;
      state->publish(nullptr, std::move(report));
    }
    queue_.clear();
  }

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::shared_ptr<TierState>> queue_;
  bool started_ = false, stopping_ = false, busy_ = false;
};

} // namespace

void drainBackgroundCompiler() { BackgroundCompiler::get().drain(); }

std::unique_ptr<CompiledEngine> CompiledEngine::compile(const emu::Kernel &k, const JitOptions &options,
                                                        CompileReport &report) {
  std::shared_ptr<const CompiledCode> code = compileNow(k, options, report);
  if (!code) return nullptr;
  auto state = std::make_shared<TierState>();
  state->options = options;
  state->eager = true;
  state->kernel = &k;
  state->requested = true;
  state->publish(std::move(code), report);
  return std::unique_ptr<CompiledEngine>(new CompiledEngine(std::move(state)));
}

namespace {
constexpr uint64_t kRegistersPerThresholdStep = 32;
} // namespace

std::unique_ptr<CompiledEngine> CompiledEngine::tiered(const emu::Kernel &k, const JitOptions &options) {
  auto state = std::make_shared<TierState>();
  state->options = options;
  state->kernel = &k;
  // `threshold` warp instructions per PTX instruction, and more for a
  // kernel with many registers: its code grows with them (each entry reads
  // the live ones, each place a group stops writes them back), and so does
  // its compile time, which a short program would wait for at exit.
  // Measured (instructions, register slots, compile time): vector add 22,
  // 23, 57 ms; kernels/apps' tiled matrix multiply 120, 130, 1.2 s; CUB's
  // radix-sort histogram kernel 605, 653, 7.5 s (18 s before session 27
  // wrote registers back once per pc instead of once per edge).
  state->threshold = options.threshold * std::max<uint64_t>(k.code.size(), 1) *
                     std::max<uint64_t>(k.numRegisters / kRegistersPerThresholdStep, 1);
  // The analyses read the ptx::Module: here, on the thread that loads the
  // kernel, not on the background compiler's.
  if (options.uniformity) state->facts = addressFacts(k);
  return std::unique_ptr<CompiledEngine>(new CompiledEngine(std::move(state)));
}

CompiledEngine::~CompiledEngine() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->kernel = nullptr;
}

TierStatus CompiledEngine::status() const {
  TierStatus s;
  std::lock_guard<std::mutex> lock(state_->mutex);
  s.eager = state_->eager;
  s.compiled = state_->owner != nullptr;
  s.requested = state_->requested.load();
  s.interpreted = state_->interpreted.load();
  if (state_->finished) s.report = state_->report;
  return s;
}

void CompiledEngine::waitForCompilation() const {
  if (!state_->requested.load()) return;
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->finishedSignal.wait(lock, [this] { return state_->finished || !state_->kernel; });
}

emu::WarpStop CompiledEngine::run(emu::Cta &cta, emu::Warp &w, uint64_t budget) {
  if (state_->code.load(std::memory_order_acquire)) return emu::Interpreter::run(cta, w, budget, *this);
  // Not compiled (yet): the interpreter, counting what it ran until the
  // kernel is hot enough to compile. Warps switch at their next slice.
  const uint64_t before = w.warpInstructions;
  const emu::WarpStop stop = emu::Interpreter::instance().run(cta, w, budget);
  const uint64_t ran = w.warpInstructions - before;
  const uint64_t total = state_->interpreted.fetch_add(ran, std::memory_order_relaxed) + ran;
  if (total >= state_->threshold && !state_->requested.load(std::memory_order_relaxed) &&
      !state_->requested.exchange(true)) {
    if (!state_->options.synchronous)
      BackgroundCompiler::get().enqueue(state_);
    else if (BackgroundCompiler::get().open())
      BackgroundCompiler::compile(*state_);
  }
  return stop;
}

uint64_t CompiledEngine::run(emu::Cta &cta, emu::Warp &w, emu::SimtEntry &top, uint32_t active,
                             uint64_t budget) {
  const std::vector<CompiledFunction> &functions = state_->code.load(std::memory_order_relaxed)->functions;
  JitFrame f;
  f.regs = w.regs.data();
  f.cta = &cta;
  f.warp = &w;
  f.carry = &w.carry;
  f.kernel = state_->kernel;
  f.budget = budget;
  f.threadInstructions = 0;
  f.pc = top.pc;
  f.active = active;
  f.reconverge = top.reconverge;
  const emu::Dim3 dims[3] = {cta.ntid, cta.ctaid, cta.nctaid};
  uint32_t *fields[3] = {f.ntid, f.ctaid, f.nctaid};
  for (int i = 0; i < 3; ++i) fields[i][0] = dims[i].x, fields[i][1] = dims[i].y, fields[i][2] = dims[i].z;
  f.warpIndex = w.index;
  f.warps = static_cast<uint32_t>(cta.warps.size());
  f.linearBlock = cta.ntid.y == 1 && cta.ntid.z == 1;
  f.warpRows = f.linearBlock || cta.ntid.x % 32 == 0;
  const uint64_t instructions = w.warpInstructions;
  f.instructionsAtStart = instructions;
  f.budgetAtStart = f.budgetNow = budget;
  f.ctaExecutedAtStart = cta.executed;
  f.params = cta.params.data();
  f.paramBytes = cta.observeMemory ? 0 : cta.params.size();
  f.local = cta.observeMemory ? nullptr : cta.local.data();
  f.localBytes = cta.kernel.localBytes;
  f.callFrame = cta.observeMemory ? nullptr : w.frame.data();
  f.pops = 0;
  // The memory windows of the CTA's earlier slices (the allocations they
  // map live until the launch ends, but for device-side frees, which drop
  // them): a warp that stops at every barrier would otherwise ask the
  // services again for every array after each one.
  static_assert(std::size(f.windows) * 3 == std::tuple_size_v<decltype(cta.engineCache)>);
  if (cta.engineCacheValid)
    for (size_t i = 0; i < std::size(f.windows); ++i)
      f.windows[i] = {cta.engineCache[3 * i], cta.engineCache[3 * i + 1], cta.engineCache[3 * i + 2]};
  // Compiled code runs the warp's groups (divergence and reconvergence
  // included) until the interpreter's loop must take over; a pc without
  // compiled code, or too little budget to start, hands over at once.
  if (f.pc < functions.size() && functions[f.pc] && f.pc != f.reconverge) functions[f.pc](&f);
  // Written back only when they changed: most slices of a warp find every
  // array in the windows already.
  if (f.windowsChanged) {
    for (size_t i = 0; i < std::size(f.windows); ++i) {
      const JitFrame::Window &window = f.windows[i];
      cta.engineCache[3 * i] = window.lo, cta.engineCache[3 * i + 1] = window.end;
      cta.engineCache[3 * i + 2] = window.delta;
    }
    cta.engineCacheValid = true;
  }
  const uint64_t used = budget - f.budget;
  const uint64_t executed = used - f.pops;
  cta.executed = f.ctaExecutedAtStart + executed;
  w.warpInstructions = instructions + executed;
  w.threadInstructions += f.threadInstructions;
  // The services may have pushed and popped: the group compiled code
  // stopped in is the stack's top, no longer necessarily `top`.
  w.stack.back().pc = f.pc;
  return used;
}

} // namespace translator
