// The process's LLVM JIT (ORC LLJIT for the host CPU), the optimization
// pipeline, and the compiled engine that runs kernels under the emulator's
// scheduler.
#include "translator/Translator.h"

#include "emulator/Cta.h"
#include "emulator/Interpreter.h"
#include "translator/Frame.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace translator {

namespace {

/// One JIT per process: compiled kernels live as long as it does (a program
/// may exit while a launch still runs on another host thread).
struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::string error;    // why there is no JIT
  std::mutex mutex;     // one compilation at a time
  uint64_t kernels = 0; // names compiled functions uniquely

  static Jit &get() {
    static Jit *jit = new Jit;
    return *jit;
  }

private:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder) {
      error = llvm::toString(builder.takeError());
      return;
    }
    // Measured on bench_emulator's kernels: Less compiles a third faster
    // than Default for the same speed of code; None halves compile time
    // again but costs up to a third of the speed.
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Less);
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*builder).create();
    if (!jit) {
      error = llvm::toString(jit.takeError());
      return;
    }
    lljit = std::move(*jit);
    llvm::orc::MangleAndInterner mangle(lljit->getExecutionSession(), lljit->getDataLayout());
    const llvm::JITSymbolFlags flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
    llvm::orc::SymbolMap services;
    services[mangle("ptxvm_jit_handler")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_handler), flags};
    services[mangle("ptxvm_jit_operand")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_operand), flags};
    services[mangle("ptxvm_jit_direct")] = {llvm::orc::ExecutorAddr::fromPtr(&ptxvm_jit_direct), flags};
    if (llvm::Error e = lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(services)))) {
      error = llvm::toString(std::move(e));
      lljit.reset();
    }
  }
};

/// PTXVM_PERF_MAP=1: names compiled code for `perf report` in
/// /tmp/perf-PID.map (kernel, pc and PTX line of each block). Sizes are the
/// distance to the next function, which is what perf needs to attribute
/// samples.
void writePerfMap(const emu::Kernel &k, const EntryMap &entries,
                  const std::vector<CompiledFunction> &functions) {
  std::vector<std::pair<uint64_t, size_t>> sorted;
  for (size_t pc = 0; pc < functions.size(); ++pc)
    if (functions[pc]) sorted.emplace_back(reinterpret_cast<uint64_t>(functions[pc]), pc);
  std::sort(sorted.begin(), sorted.end());
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Append);
  if (ec) return;
  for (size_t i = 0; i < sorted.size(); ++i) {
    uint64_t size = i + 1 < sorted.size() ? sorted[i + 1].first - sorted[i].first : 4096;
    size_t pc = sorted[i].second;
    os << llvm::utohexstr(sorted[i].first) << " " << llvm::utohexstr(size) << " " << entries[pc] << " "
       << k.name << " line " << k.line(static_cast<uint32_t>(pc)) << "\n";
  }
}

} // namespace

std::unique_ptr<CompiledEngine> compileKernel(const emu::Kernel &k, CompileReport &report) {
  const auto start = std::chrono::steady_clock::now();
  Jit &jit = Jit::get();
  std::lock_guard<std::mutex> lock(jit.mutex);
  if (!jit.lljit) {
    report.error = "no LLVM JIT for this host: " + jit.error;
    return nullptr;
  }
  const std::string name = "ptxvm_kernel_" + std::to_string(jit.kernels++);
  auto context = std::make_unique<llvm::LLVMContext>();
  EntryMap entries;
  std::unique_ptr<llvm::Module> m = generateKernel(*context, k, name, entries, report.code);
  if (!m) {
    report.error = "the code generator produced invalid IR";
    return nullptr;
  }
  m->setDataLayout(jit.lljit->getDataLayout());
  m->setTargetTriple(jit.lljit->getTargetTriple().str());
  // No IR optimization pipeline: the generator keeps register values in SSA
  // form itself, and O1/O2 made no kernel of bench_emulator faster while
  // adding a third to compile time.
  // PTXVM_DUMP_IR=FILE appends each kernel's IR to FILE, for
  // looking at what the generator and LLVM made of a kernel.
  if (const char *dump = std::getenv("PTXVM_DUMP_IR"); dump && *dump) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec, llvm::sys::fs::OF_Append);
    if (!ec) os << "; kernel " << k.name << "\n" << *m;
  }
  if (llvm::Error e = jit.lljit->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(context)))) {
    report.error = llvm::toString(std::move(e));
    return nullptr;
  }
  // PTXVM_JIT_RANGE=LO:HI keeps compiled code only for blocks starting at
  // pcs in [LO, HI) (the interpreter runs the rest): bisecting it finds the
  // block behind a difference between the two engines.
  size_t lo = 0, hi = entries.size();
  if (const char *range = std::getenv("PTXVM_JIT_RANGE"); range && *range)
    if (std::sscanf(range, "%zu:%zu", &lo, &hi) != 2) lo = 0, hi = entries.size();
  std::vector<CompiledFunction> functions(entries.size(), nullptr);
  for (size_t pc = lo; pc < entries.size() && pc < hi; ++pc) {
    if (entries[pc].empty()) continue;
    auto address = jit.lljit->lookup(entries[pc]);
    if (!address) {
      report.error = llvm::toString(address.takeError());
      return nullptr;
    }
    functions[pc] = address->toPtr<CompiledFunction>();
  }
  if (const char *perf = std::getenv("PTXVM_PERF_MAP"); perf && *perf == '1')
    writePerfMap(k, entries, functions);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::make_unique<CompiledEngine>(k, std::move(functions));
}

emu::WarpStop CompiledEngine::run(emu::Cta &cta, emu::Warp &w, uint64_t budget) {
  return emu::Interpreter::run(cta, w, budget, *this);
}

uint64_t CompiledEngine::run(emu::Cta &cta, emu::Warp &w, emu::SimtEntry &top, uint32_t active,
                             uint64_t budget) {
  JitFrame f{w.regs.data(), &cta, &w, &kernel_, budget, 0, top.pc, active, top.reconverge};
  const uint64_t instructions = w.warpInstructions;
  f.instructionsAtStart = instructions;
  f.budgetAtStart = f.budgetNow = budget;
  f.params = cta.params.data();
  f.paramBytes = cta.observeMemory ? 0 : cta.params.size();
  // From block to block while each makes progress; a block that cannot
  // start (too little budget, a divergent branch) or a pc without compiled
  // code hands the group back to the interpreter's loop.
  while (f.pc < functions_.size() && functions_[f.pc] && f.pc != f.reconverge) {
    const uint64_t before = f.budget;
    functions_[f.pc](&f);
    if (f.budget == before || cta.failed) break;
  }
  const uint64_t used = budget - f.budget;
  cta.executed += used;
  w.warpInstructions = instructions + used;
  w.threadInstructions += f.threadInstructions;
  top.pc = f.pc;
  return used;
}

} // namespace translator
