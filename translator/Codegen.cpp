// The structure of a kernel's compiled functions (one per PTX function): an
// entry that dispatches on the group's pc, one LLVM block per straight-line
// block and per branch, the SIMT services at divergence and reconvergence, the budget and instruction counts
// the interpreter keeps, and the exits back to the interpreter's loop. Instruction bodies: Lowering.cpp.
#include "translator/Gen.h"

#include "ptx/Writer.h"
#include "translator/Facts.h"
#include "translator/Frame.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace translator {

using emu::Control;
using emu::DInstr;
using emu::DOp;

Gen::Gen(llvm::LLVMContext &ctx, const emu::Kernel &k, const std::string &name)
    : ctx_(ctx), k_(k), name_(name), module_(std::make_unique<llvm::Module>(name, ctx)), b(ctx) {
  llvm::Type *ptr = b.getPtrTy(), *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  // Host services: the handler may touch anything; the others only their
  // arguments and memory compiled code never reads (the CTA's state), so
  // register values stay in SSA form across them.
  handlerFn_ =
      module_->getOrInsertFunction("ptxvm_jit_handler", llvm::FunctionType::get(i32, {ptr, i32, i32}, false));
  operandFn_ = module_->getOrInsertFunction(
      "ptxvm_jit_operand", llvm::FunctionType::get(b.getVoidTy(), {ptr, i32, i32, ptr}, false));
  directFn_ = module_->getOrInsertFunction(
      "ptxvm_jit_direct", llvm::FunctionType::get(i32, {ptr, i32, i32, i64, i64, i64, i32, ptr}, false));
  for (llvm::FunctionCallee c : {operandFn_, directFn_}) {
    auto *f = llvm::cast<llvm::Function>(c.getCallee());
    f->setMemoryEffects(llvm::MemoryEffects::inaccessibleOrArgMemOnly());
    f->addFnAttr(llvm::Attribute::NoUnwind);
  }
  divergeFn_ = module_->getOrInsertFunction("ptxvm_jit_diverge",
                                            llvm::FunctionType::get(b.getVoidTy(), {ptr, i32, i32}, false));
  reconvergeFn_ =
      module_->getOrInsertFunction("ptxvm_jit_reconverge", llvm::FunctionType::get(i32, {ptr}, false));
  for (llvm::FunctionCallee c : {handlerFn_, divergeFn_, reconvergeFn_})
    llvm::cast<llvm::Function>(c.getCallee())->addFnAttr(llvm::Attribute::NoUnwind);

  llvm::MDBuilder md(ctx);
  llvm::MDNode *root = md.createTBAARoot("ptxvm");
  llvm::MDNode *reg = md.createTBAAScalarTypeNode("register", root);
  llvm::MDNode *mem = md.createTBAAScalarTypeNode("device memory", root);
  tbaaReg_ = md.createTBAAStructTagNode(reg, reg, 0);
  tbaaMem_ = md.createTBAAStructTagNode(mem, mem, 0);
  llvm::MDNode *frameType = md.createTBAAScalarTypeNode("frame", root);
  tbaaFrame_ = md.createTBAAStructTagNode(frameType, frameType, 0);
}

std::unique_ptr<llvm::Module> Gen::run(EntryMap &entries, CodegenStats &stats) {
  const std::vector<DInstr> &code = k_.code;
  findBlocks();
  entries.assign(code.size(), std::string());
  for (const emu::CodeRegion &region : k_.regions) {
    const uint32_t end = std::min<uint32_t>(region.end, static_cast<uint32_t>(code.size()));
    if (std::none_of(entry_.begin() + region.entry, entry_.begin() + end, [](uint8_t e) { return e; }))
      continue;
    const std::string name = name_ + "_" + std::to_string(region.entry);
    beginFunction(name, region, static_cast<size_t>(&region - k_.regions.data()));
    for (uint32_t pc = region.entry; pc < end; ++pc) {
      if (!entry_[pc]) continue;
      entries[pc] = name;
      emitEntry(pc);
    }
    finishFunction();
  }
  for (const DInstr &in : code)
    if (in.control != Control::Next && in.control != Control::Branch) ++stats_.interpreted;
  stats_.instructions = static_cast<uint32_t>(code.size());
  for (const llvm::Function &f : *module_) stats_.irInstructions += f.getInstructionCount();
  stats = stats_;
  return std::move(module_);
}

/// One function per PTX function (CodeRegion): the prologue reads the frame
/// and dispatches on the group's pc; every exit goes through one block that
/// writes the frame back. Between, control moves from block to block
/// directly, and through `dispatch_` after the SIMT stack changed.
void Gen::beginFunction(const std::string &name, const emu::CodeRegion &region, size_t regionIndex) {
  const uint32_t first = region.entry,
                 end = std::min<uint32_t>(region.end, static_cast<uint32_t>(k_.code.size()));
  llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  fn_ = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false),
                               llvm::Function::ExternalLinkage, name, module_.get());
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  frame_ = fn_->getArg(0);
  region_ = &region;
  resetCaches();
  b.SetInsertPoint(newBlock("entry"));
  regs_ = b.CreateLoad(b.getPtrTy(), frameField(frame::kRegs), "regs");
  budgetSlot_ = b.CreateAlloca(i64, nullptr, "budget");
  threadsSlot_ = b.CreateAlloca(i64, nullptr, "threads");
  pcSlot_ = b.CreateAlloca(i32, nullptr, "pcslot");
  deltaSlot_ = b.CreateAlloca(i64, nullptr, "delta");
  auto *scratch = b.CreateAlloca(llvm::ArrayType::get(i64, kLanes), nullptr, "scratch");
  scratch->setAlignment(llvm::Align(64));
  scratch_ = scratch;
  divergeSlot_ = b.CreateAlloca(i32, nullptr, "diverging");
  b.CreateStore(b.CreateLoad(i64, frameField(frame::kBudget)), budgetSlot_);
  b.CreateStore(b.CreateLoad(i64, frameField(frame::kThreads)), threadsSlot_);
  live_.emplace(k_, region);
  // PTXVM_JIT_PROMOTE_MAX=N lowers the limit (0: every function keeps its
  // registers in the file), so that tests reach that path too.
  static const size_t maxPromoted = [] {
    const char *n = std::getenv("PTXVM_JIT_PROMOTE_MAX");
    return n && *n ? std::min<size_t>(std::strtoull(n, nullptr, 10), kMaxPromotedSlots) : kMaxPromotedSlots;
  }();
  promoted_ = live_->mentioned().size() <= maxPromoted &&
              (live_->mentioned().empty() || live_->mentioned().back() < region.numRegisters);
  value_.assign(promoted_ ? region.numRegisters : 0, nullptr);
  scalar_.assign(value_.size(), 0);
  if (facts_ && regionIndex < facts_->uniformSlots.size()) {
    const std::vector<uint8_t> &uniform = facts_->uniformSlots[regionIndex];
    for (uint32_t r = 0; r < scalar_.size() && r < uniform.size(); ++r) scalar_[r] = uniform[r];
    for (uint32_t r : live_->crossLane())
      if (r < scalar_.size()) scalar_[r] = 0;
  }
  for (uint32_t r : promoted_ ? live_->mentioned() : std::vector<uint32_t>{}) {
    value_[r] =
        b.CreateAlloca(scalar_[r] ? intTy(slotBits(r)) : slotType(r), nullptr, "r" + std::to_string(r));
    ++stats_.registers;
    if (scalar_[r]) ++stats_.scalarRegisters;
  }
  exit_ = newBlock("exit");
  dispatch_ = newBlock("dispatch");
  pop_ = newBlock("pop");
  blocks_.assign(k_.code.size(), nullptr);
  stops_.clear();
  for (uint32_t pc = first; pc < end; ++pc)
    if (entry_[pc]) blocks_[pc] = newBlock(("pc" + std::to_string(pc)).c_str());
  b.CreateBr(dispatch_);

  // The group the SIMT stack runs next (the caller's, or the services'
  // after a divergent branch or a pop): its reconvergence point pops, any
  // other pc goes to its block (through the file's registers live there,
  // when promoted), or back to the interpreter without one.
  b.SetInsertPoint(dispatch_);
  // Every lane not running has its registers in the file: what the
  // allocas held before is of no use to the next group. (Zero, not undef,
  // so that LLVM does not reason about lanes nobody reads.)
  for (llvm::AllocaInst *a : value_)
    if (a) b.CreateStore(llvm::Constant::getNullValue(a->getAllocatedType()), a);
  // No branch of the next group has diverged yet. Set here, on every way
  // into compiled blocks, so that the slot is 0 on every path that reaches a
  // stop block without splitting (and mem2reg leaves no phi cycle through
  // dispatch for it).
  b.CreateStore(b.getInt32(0), divergeSlot_);
  llvm::Value *pc = b.CreateLoad(i32, frameField(frame::kPc), "pc");
  llvm::Value *reconverge = b.CreateLoad(i32, frameField(frame::kReconverge));
  llvm::BasicBlock *select = newBlock("select"), *none = newBlock("interpreted");
  b.CreateCondBr(b.CreateICmpEQ(pc, reconverge), pop_, select);
  b.SetInsertPoint(select);
  llvm::SwitchInst *sw = b.CreateSwitch(pc, none);
  for (uint32_t p = first; p < end; ++p)
    if (blocks_[p]) sw->addCase(b.getInt32(p), promoted_ ? refreshBlock(p) : blocks_[p]);
  b.SetInsertPoint(none);
  leave(pc);

  // The group stands at its reconvergence point (f->pc): the service pops.
  b.SetInsertPoint(pop_);
  b.CreateStore(b.CreateLoad(i64, budgetSlot_), frameField(frame::kBudget));
  llvm::Value *goesOn = b.CreateCall(reconvergeFn_, {frame_});
  b.CreateStore(b.CreateLoad(i64, frameField(frame::kBudget)), budgetSlot_);
  llvm::BasicBlock *stop = newBlock("popstop");
  b.CreateCondBr(b.CreateICmpNE(goesOn, b.getInt32(0)), dispatch_, stop);
  b.SetInsertPoint(stop);
  leave(b.CreateLoad(i32, frameField(frame::kPc)));
}

llvm::Value *Gen::fileSlot(uint32_t r) {
  return b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), regs_, uint64_t{r} * kLanes);
}

/// The group about to run from `pc` reads the registers live there from
/// the file, and the registers read across lanes in every lane.
llvm::BasicBlock *Gen::refreshBlock(uint32_t pc) {
  llvm::BasicBlock *refresh = newBlock(("enter" + std::to_string(pc)).c_str());
  llvm::IRBuilderBase::InsertPointGuard keep(b);
  b.SetInsertPoint(refresh);
  llvm::LoadInst *active = b.CreateLoad(b.getInt32Ty(), frameField(frame::kActive));
  tagFrame(active);
  reload(neededAt({pc}), active);
  b.CreateBr(blocks_[pc]);
  return refresh;
}

std::vector<uint32_t> Gen::neededAt(std::initializer_list<uint32_t> pcs) const {
  std::vector<uint32_t> slots = live_->crossLane();
  for (uint32_t pc : pcs) {
    std::vector<uint32_t> live = live_->liveIn(pc);
    slots.insert(slots.end(), live.begin(), live.end());
  }
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  return slots;
}

/// A masked store: write-backs run when a group stops running, not per
/// instruction, so their speed matters less than their size (AMD's Zen 3
/// microcodes masked stores; a blend needs a load and a select per register
/// and made code generation slower).
void Gen::writeBack(const std::vector<uint32_t> &slots, llvm::Value *mask) {
  for (uint32_t r : slots) {
    if (r >= value_.size() || !value_[r]) continue;
    llvm::Value *value = b.CreateLoad(value_[r]->getAllocatedType(), value_[r]);
    value = scalar_[r] ? b.CreateVectorSplat(kLanes, b.CreateZExt(value, b.getInt64Ty())) : fit(value, 64);
    llvm::Instruction *store = b.CreateMaskedStore(value, fileSlot(r), llvm::Align(8), mask);
    tagRegister(store);
    tagSlot(store, r);
  }
}

void Gen::reload(const std::vector<uint32_t> &slots, llvm::Value *active) {
  llvm::Value *lane = nullptr; // the first running lane, for scalar registers
  for (uint32_t r : slots) {
    if (r >= value_.size() || !value_[r]) continue;
    if (scalar_[r]) {
      if (!lane) lane = b.CreateZExt(firstLane(active), b.getInt64Ty());
      llvm::LoadInst *file = b.CreateLoad(
          b.getInt64Ty(),
          b.CreateInBoundsGEP(b.getInt64Ty(), regs_, {b.CreateAdd(lane, b.getInt64(uint64_t{r} * kLanes))}));
      tagRegister(file);
      tagSlot(file, r);
      b.CreateStore(b.CreateTrunc(file, intTy(slotBits(r))), value_[r]);
      continue;
    }
    llvm::LoadInst *file = b.CreateAlignedLoad(vec(b.getInt64Ty()), fileSlot(r), llvm::Align(8));
    tagRegister(file);
    tagSlot(file, r);
    b.CreateStore(fit(file, slotBits(r)), value_[r]);
  }
}

void Gen::finishFunction() {
  b.SetInsertPoint(exit_);
  b.CreateStore(b.CreateLoad(b.getInt64Ty(), budgetSlot_), frameField(frame::kBudget));
  b.CreateStore(b.CreateLoad(b.getInt64Ty(), threadsSlot_), frameField(frame::kThreads));
  b.CreateStore(b.CreateLoad(b.getInt32Ty(), pcSlot_), frameField(frame::kPc));
  b.CreateRetVoid();
  // The register allocas (and the frame fields' copies) become SSA values.
  std::vector<llvm::AllocaInst *> promotable;
  for (llvm::Instruction &i : fn_->getEntryBlock())
    if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i); a && llvm::isAllocaPromotable(a))
      promotable.push_back(a);
  if (!promotable.empty()) {
    llvm::DominatorTree dominators(*fn_);
    llvm::PromoteMemToReg(promotable, dominators);
  }
  scalarizeUniform(*fn_);
  dropCleanWriteBacks(*fn_);
}

/// The code of entry `pc`: a straight-line block and the branch that ends
/// it, or a branch alone, for the group the frame names.
void Gen::emitEntry(uint32_t pc) {
  const std::vector<DInstr> &code = k_.code;
  b.SetInsertPoint(blocks_[pc]);
  activeBits_ = b.CreateLoad(b.getInt32Ty(), frameField(frame::kActive), "active");
  activeMask_ = b.CreateBitCast(activeBits_, vec(b.getInt1Ty()), "activemask");
  activeCount_ = b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, activeBits_), b.getInt64Ty(),
                              "activecount");
  reconverge_ = b.CreateLoad(b.getInt32Ty(), frameField(frame::kReconverge), "reconverge");
  if (code[pc].control == Control::Branch) return emitBranch(pc);
  uint32_t end = pc + 1;
  while (end < code.size() && !leader_[end] && code[end].control == Control::Next) ++end;
  emitBlock(pc, end);
  if (end < code.size() && code[end].control == Control::Branch && !leader_[end]) {
    // The branch that ends the block (it checks for the group's
    // reconvergence point, as every pc control passes to is checked).
    emitBranch(end);
  } else {
    jumpTo(end);
  }
}

llvm::Value *Gen::frameField(uint64_t offset) {
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), frame_, offset);
}

/// Leaders (blockLeaders, shared with the liveness), and the entries of
/// compiled code among them.
void Gen::findBlocks() {
  const std::vector<DInstr> &code = k_.code;
  const uint32_t size = static_cast<uint32_t>(code.size());
  leader_ = blockLeaders(k_);
  // PTXVM_JIT_RANGE=LO:HI compiles only the blocks starting at pcs in
  // [LO, HI) (the interpreter runs the rest): bisecting it finds the block
  // behind a difference between the two engines.
  uint32_t lo = 0, hi = size;
  if (const char *range = std::getenv("PTXVM_JIT_RANGE"); range && *range)
    if (std::sscanf(range, "%u:%u", &lo, &hi) != 2) lo = 0, hi = size;
  entry_.assign(size, 0);
  for (uint32_t pc = lo; pc < std::min(hi, size); ++pc) {
    const Control c = code[pc].control;
    entry_[pc] = c == Control::Branch || (c == Control::Next && leader_[pc]);
  }
}

llvm::Value *Gen::guardBits(const DInstr &in) {
  llvm::Value *g = fit(loadReg(static_cast<uint32_t>(in.guard)), 1);
  llvm::Value *bits = b.CreateBitCast(g, b.getInt32Ty());
  if (in.guardNegated) bits = b.CreateNot(bits);
  return b.CreateAnd(bits, activeBits_);
}

void Gen::emitBlock(uint32_t first, uint32_t end) {
  const uint32_t n = end - first;
  ++stats_.blocks;
  llvm::Value *budget = b.CreateLoad(b.getInt64Ty(), budgetSlot_);
  llvm::BasicBlock *body = newBlock("body");
  branchUnlikely(
      b.CreateOr(b.CreateICmpEQ(reconverge_, b.getInt32(first)), b.CreateICmpULT(budget, b.getInt64(n))),
      stopAt(first), body);

  b.SetInsertPoint(body);
  resetCaches(); // control may come from anywhere
  blockBudget_ = budget;
  blockThreads_ = b.CreateLoad(b.getInt64Ty(), threadsSlot_);
  counted_ = 0;
  for (uint32_t pc = first; pc < end; ++pc) {
    const DInstr &in = k_.code[pc];
    ++counted_;
    llvm::Value *maskBits = activeBits_, *mask = activeMask_;
    if (in.guard >= 0) {
      maskBits = guardBits(in);
      mask = b.CreateBitCast(maskBits, vec(b.getInt1Ty()));
      blockThreads_ =
          b.CreateAdd(blockThreads_,
                      b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, maskBits), b.getInt64Ty()));
    } else {
      blockThreads_ = b.CreateAdd(blockThreads_, activeCount_);
    }
    if (lower(pc, mask, maskBits)) {
      ++stats_.native;
      continue;
    }
    ++stats_.handlerCalls;
    if (names_) ++stats_.handlerOpcodes[ptx::instructionName(*k_.module, k_.instr(in))];
    if (in.guard < 0) {
      callHandler(pc, maskBits);
      continue;
    }
    // As in the interpreter, no lane: no call.
    llvm::BasicBlock *call = newBlock("guarded"), *after = newBlock("after");
    b.CreateCondBr(b.CreateICmpEQ(maskBits, b.getInt32(0)), after, call);
    b.SetInsertPoint(call);
    callHandler(pc, maskBits);
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }
  b.CreateStore(b.CreateSub(blockBudget_, b.getInt64(n)), budgetSlot_);
  b.CreateStore(blockThreads_, threadsSlot_);
}

void Gen::publishBudget() {
  tagFrame(b.CreateStore(b.CreateSub(blockBudget_, b.getInt64(counted_)), frameField(frame::kBudgetNow)));
}

void Gen::callHandler(uint32_t pc, llvm::Value *maskBits) {
  publishBudget();
  std::vector<uint32_t> slots;
  if (promoted_) {
    // The handler reads and writes its operands in the register file.
    slots = live_->slotsOf(pc);
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    writeBack(slots, activeMask_);
  }
  llvm::Value *failed = b.CreateCall(handlerFn_, {frame_, b.getInt32(pc), maskBits});
  cache_.clear();
  if (promoted_) reload(slots, activeBits_);
  llvm::BasicBlock *fault = newBlock("fault"), *cont = newBlock("cont");
  branchUnlikely(b.CreateICmpNE(failed, b.getInt32(0)), fault, cont);
  // The faulting instruction counts, and the group stands after it, as in
  // the interpreter.
  b.SetInsertPoint(fault);
  b.CreateStore(b.CreateSub(blockBudget_, b.getInt64(counted_)), budgetSlot_);
  b.CreateStore(blockThreads_, threadsSlot_);
  leaveFailed(pc + 1);
  b.SetInsertPoint(cont);
}

void Gen::emitBranch(uint32_t pc) {
  const DInstr &in = k_.code[pc];
  ++stats_.branches;
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *budget = b.CreateLoad(i64, budgetSlot_);
  llvm::BasicBlock *go = newBlock("go");
  branchUnlikely(
      b.CreateOr(b.CreateICmpEQ(reconverge_, b.getInt32(pc)), b.CreateICmpEQ(budget, b.getInt64(0))),
      stopAt(pc), go);

  b.SetInsertPoint(go);
  resetCaches();
  llvm::Value *threads = b.CreateLoad(i64, threadsSlot_);
  auto count = [&](llvm::Value *lanes) {
    b.CreateStore(b.CreateSub(budget, b.getInt64(1)), budgetSlot_);
    b.CreateStore(b.CreateAdd(threads, lanes), threadsSlot_);
  };
  if (in.guard < 0) {
    count(activeCount_);
    jumpTo(in.target);
    return;
  }
  // A uniform branch stays in compiled code; a divergent one goes back to
  // the interpreter's loop, which splits the group.
  llvm::Value *taken = guardBits(in);
  llvm::BasicBlock *notTaken = newBlock("nottaken"), *test = newBlock("test"), *all = newBlock("taken"),
                   *split = newBlock("divergent");
  b.CreateCondBr(b.CreateICmpEQ(taken, b.getInt32(0)), notTaken, test);
  b.SetInsertPoint(test);
  b.CreateCondBr(b.CreateICmpEQ(taken, activeBits_), all, split);
  b.SetInsertPoint(notTaken);
  count(b.getInt64(0));
  jumpTo(pc + 1);
  b.SetInsertPoint(all);
  count(activeCount_);
  jumpTo(in.target);
  // A divergent branch: the service splits the group on the SIMT stack as
  // the interpreter's loop does, and the side that runs first goes on here.
  b.SetInsertPoint(split);
  count(b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, taken), i64));
  b.CreateStore(b.CreateSub(budget, b.getInt64(1)), frameField(frame::kBudget));
  // Both sides stop running here for now (the registers live at the branch
  // are those live at either side, which may stand at the reconvergence
  // point already): the branch's stop block writes them back and calls the
  // service.
  b.CreateStore(taken, divergeSlot_);
  b.CreateBr(stopAt(pc));
}

void Gen::jumpTo(uint32_t pc) {
  // An entry of this function is a direct branch (the entry checks for the
  // group's reconvergence point); the rest is the interpreter's. (Branches
  // stay within their PTX function.)
  b.CreateBr(blocks_[pc] ? blocks_[pc] : stopAt(pc));
}

/// One block per pc, however many paths stop there: the registers' write-
/// backs are emitted once (mem2reg gives them the values of every path
/// through phis), not once per edge, which was three quarters of the IR of
/// large kernels.
llvm::BasicBlock *Gen::stopAt(uint32_t pc) {
  auto [it, added] = stops_.try_emplace(pc, nullptr);
  if (!added) return it->second;
  llvm::BasicBlock *stop = it->second = newBlock(("stop" + std::to_string(pc)).c_str());
  llvm::IRBuilderBase::InsertPointGuard keep(b);
  b.SetInsertPoint(stop);
  // At a branch, the group may also stop because it diverges there: then
  // divergeSlot_ holds the lanes that take it (never 0), else 0.
  llvm::Value *taken = nullptr;
  if (k_.code[pc].control == Control::Branch) taken = b.CreateLoad(b.getInt32Ty(), divergeSlot_);
  if (promoted_) {
    // The running group's lanes, as every path here has them in the frame.
    writeBack(neededAt({pc}),
              b.CreateBitCast(tagFrame(b.CreateLoad(b.getInt32Ty(), frameField(frame::kActive))),
                              vec(b.getInt1Ty())));
  }
  if (taken) {
    llvm::BasicBlock *split = newBlock("divergent"), *stay = newBlock("stopped");
    b.CreateCondBr(b.CreateICmpNE(taken, b.getInt32(0)), split, stay);
    b.SetInsertPoint(split);
    b.CreateCall(divergeFn_, {frame_, b.getInt32(pc), taken});
    b.CreateBr(dispatch_);
    b.SetInsertPoint(stay);
  }
  tagFrame(b.CreateStore(b.getInt32(pc), frameField(frame::kPc)));
  b.CreateStore(b.getInt32(pc), pcSlot_);
  llvm::Value *reconverge = tagFrame(b.CreateLoad(b.getInt32Ty(), frameField(frame::kReconverge)));
  b.CreateCondBr(b.CreateICmpEQ(reconverge, b.getInt32(pc)), pop_, exit_);
  return stop;
}

void Gen::leave(llvm::Value *pc) {
  b.CreateStore(pc, pcSlot_);
  b.CreateBr(exit_);
}

void Gen::leaveFailed(uint32_t pc) { leave(b.getInt32(pc)); }

std::unique_ptr<llvm::Module> generateKernel(llvm::LLVMContext &ctx, const emu::Kernel &k,
                                             const std::string &name, EntryMap &entries, CodegenStats &stats,
                                             const GenerateOptions &options) {
  Gen gen(ctx, k, name);
  gen.facts_ = options.facts;
  gen.names_ = options.names;
  gen.unchecked_ = options.unchecked;
  std::unique_ptr<llvm::Module> m = gen.run(entries, stats);
  std::string error;
  llvm::raw_string_ostream os(error);
  if (llvm::verifyModule(*m, &os)) {
    // A generator bug: say so loudly in debug builds, and run nothing compiled.
    os.flush();
    if (error.size() > 2000) error.resize(2000);
    llvm::errs() << "ptxvm translator: invalid IR for " << name << ": " << error << "\n";
    return nullptr;
  }
  return m;
}

} // namespace translator
