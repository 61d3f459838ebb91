// The process's LLVM JIT (ORC LLJIT for the host CPU), the optimization
// pipeline, and the compiled engine that runs kernels under the emulator's
// scheduler.
#include "translator/Translator.h"

#include "emulator/Cta.h"
#include "emulator/Interpreter.h"
#include "translator/Frame.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <cstdlib>
#include <mutex>

namespace translator {

namespace {

/// One JIT per process: compiled kernels live as long as it does (a program
/// may exit while a launch still runs on another host thread).
struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> machine; // for the optimizer's cost model
  std::string error;                            // why there is no JIT
  std::mutex mutex;                             // one compilation at a time
  uint64_t kernels = 0;                         // names compiled functions uniquely

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
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
    auto tm = builder->createTargetMachine();
    if (!tm) {
      error = llvm::toString(tm.takeError());
      return;
    }
    machine = std::move(*tm);
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

void optimize(llvm::Module &m, llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder pb(machine);
  pb.registerModuleAnalyses(modules);
  pb.registerCGSCCAnalyses(sccs);
  pb.registerFunctionAnalyses(functions);
  pb.registerLoopAnalyses(loops);
  pb.crossRegisterProxies(loops, functions, sccs, modules);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(m, modules);
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
  optimize(*m, jit.machine.get());
  // PTXVM_DUMP_IR=FILE appends each kernel's optimized IR to FILE, for
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
  auto address = jit.lljit->lookup(name);
  if (!address) {
    report.error = llvm::toString(address.takeError());
    return nullptr;
  }
  if (const char *dump = std::getenv("PTXVM_DUMP_IR"); dump && *dump) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec, llvm::sys::fs::OF_Append);
    if (!ec) os << "; " << name << " at 0x" << llvm::utohexstr(address->getValue()) << "\n";
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::make_unique<CompiledEngine>(k, address->toPtr<CompiledFunction>(), std::move(entries));
}

emu::WarpStop CompiledEngine::run(emu::Cta &cta, emu::Warp &w, uint64_t budget) {
  return emu::Interpreter::run(cta, w, budget, *this);
}

uint64_t CompiledEngine::run(emu::Cta &cta, emu::Warp &w, emu::SimtEntry &top, uint32_t active, uint64_t budget) {
  if (top.pc >= entries_.size() || !entries_[top.pc]) return 0;
  JitFrame f{w.regs.data(), &cta, &w, &kernel_, budget, 0, top.pc, active, top.reconverge};
  fn_(&f);
  const uint64_t used = budget - f.budget;
  cta.executed += used;
  w.warpInstructions += used;
  w.threadInstructions += f.threadInstructions;
  top.pc = f.pc;
  return used;
}

} // namespace translator
