// The structure of a kernel's compiled function: an entry that dispatches on
// the group's pc, one LLVM block per straight-line block of the kernel and
// per branch, the budget and instruction counts the interpreter keeps, and
// the exits back to the interpreter's loop. Instruction bodies: Lowering.cpp.
#include "translator/Gen.h"

#include "ptx/Writer.h"
#include "translator/Facts.h"
#include "translator/Frame.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

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
  llvm::cast<llvm::Function>(handlerFn_.getCallee())->addFnAttr(llvm::Attribute::NoUnwind);

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
  for (uint32_t pc = 0; pc < code.size(); ++pc) {
    if (!entry_[pc]) continue;
    entries[pc] = name_ + "_" + std::to_string(pc);
    beginFunction(entries[pc], pc);
    if (code[pc].control == Control::Branch) {
      emitBranch(pc);
    } else {
      uint32_t end = pc + 1;
      while (end < code.size() && !leader_[end] && code[end].control == Control::Next) ++end;
      emitBlock(pc, end);
      if (end < code.size() && code[end].control == Control::Branch) {
        // The branch that ends the block, unless the group reconverges
        // there (a branch target's block may end at its own reconvergence
        // point): every pc control passes to is checked, as the
        // interpreter's loop checks it.
        llvm::BasicBlock *branch = newBlock("branch"), *here = newBlock("reconverge");
        b.CreateCondBr(b.CreateICmpEQ(reconverge_, b.getInt32(end)), here, branch);
        b.SetInsertPoint(here);
        leave(end);
        b.SetInsertPoint(branch);
        emitBranch(end);
      } else {
        jumpTo(end);
      }
    }
    finishFunction();
  }
  for (const DInstr &in : code)
    if (in.control != Control::Next && in.control != Control::Branch) ++stats_.interpreted;
  stats_.instructions = static_cast<uint32_t>(code.size());
  stats = stats_;
  return std::move(module_);
}

/// One function per place compiled code starts: the prologue reads the
/// frame; every exit goes through one block that writes it back.
void Gen::beginFunction(const std::string &name, uint32_t pc) {
  llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  fn_ = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false),
                               llvm::Function::ExternalLinkage, name, module_.get());
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  frame_ = fn_->getArg(0);
  start_ = pc;
  resetCaches();
  b.SetInsertPoint(newBlock("entry"));
  regs_ = b.CreateLoad(b.getPtrTy(), frameField(frame::kRegs), "regs");
  activeBits_ = b.CreateLoad(i32, frameField(frame::kActive), "active");
  activeMask_ = b.CreateBitCast(activeBits_, vec(b.getInt1Ty()), "activemask");
  activeCount_ =
      b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, activeBits_), i64, "activecount");
  reconverge_ = b.CreateLoad(i32, frameField(frame::kReconverge), "reconverge");
  budgetSlot_ = b.CreateAlloca(i64, nullptr, "budget");
  threadsSlot_ = b.CreateAlloca(i64, nullptr, "threads");
  pcSlot_ = b.CreateAlloca(i32, nullptr, "pcslot");
  deltaSlot_ = b.CreateAlloca(i64, nullptr, "delta");
  auto *scratch = b.CreateAlloca(llvm::ArrayType::get(i64, kLanes), nullptr, "scratch");
  scratch->setAlignment(llvm::Align(64));
  scratch_ = scratch;
  b.CreateStore(b.CreateLoad(i64, frameField(frame::kBudget)), budgetSlot_);
  b.CreateStore(b.CreateLoad(i64, frameField(frame::kThreads)), threadsSlot_);
  b.CreateStore(b.getInt32(pc), pcSlot_);
  exit_ = newBlock("exit");
  loop_ = newBlock("start");
  b.CreateBr(loop_);
  b.SetInsertPoint(loop_);
}

void Gen::finishFunction() {
  b.SetInsertPoint(exit_);
  b.CreateStore(b.CreateLoad(b.getInt64Ty(), budgetSlot_), frameField(frame::kBudget));
  b.CreateStore(b.CreateLoad(b.getInt64Ty(), threadsSlot_), frameField(frame::kThreads));
  b.CreateStore(b.CreateLoad(b.getInt32Ty(), pcSlot_), frameField(frame::kPc));
  b.CreateRetVoid();
}

llvm::Value *Gen::frameField(uint64_t offset) {
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), frame_, offset);
}

/// Leaders: where a straight-line block starts. Every pc control can reach
/// other than by falling through from a Next instruction: function entries,
/// branch targets and reconvergence points, brx.idx targets, and the
/// instruction after any control instruction (calls return there, barriers
/// and exits resume there).
void Gen::findBlocks() {
  const std::vector<DInstr> &code = k_.code;
  const uint32_t size = static_cast<uint32_t>(code.size());
  leader_.assign(size + 1, 0);
  auto mark = [&](uint32_t pc) {
    if (pc <= size) leader_[pc] = 1;
  };
  for (const emu::CodeRegion &r : k_.regions) mark(r.entry);
  for (uint32_t t : k_.targetTables) mark(t);
  for (uint32_t pc = 0; pc < size; ++pc) {
    const DInstr &in = code[pc];
    if (in.control == Control::Next) continue;
    mark(pc + 1);
    if (in.control == Control::Branch) mark(in.target);
    if (in.control == Control::Branch || in.control == Control::BranchIndexed) mark(in.reconverge);
  }
  entry_.assign(size, 0);
  for (uint32_t pc = 0; pc < size; ++pc) {
    const Control c = code[pc].control;
    entry_[pc] = c == Control::Branch || (c == Control::Next && leader_[pc]);
  }
}

llvm::Value *Gen::guardBits(const DInstr &in) {
  llvm::Value *g = b.CreateTrunc(loadReg(static_cast<uint32_t>(in.guard)), vec(b.getInt1Ty()));
  llvm::Value *bits = b.CreateBitCast(g, b.getInt32Ty());
  if (in.guardNegated) bits = b.CreateNot(bits);
  return b.CreateAnd(bits, activeBits_);
}

void Gen::emitBlock(uint32_t first, uint32_t end) {
  const uint32_t n = end - first;
  ++stats_.blocks;
  llvm::Value *budget = b.CreateLoad(b.getInt64Ty(), budgetSlot_);
  llvm::BasicBlock *body = newBlock("body"), *tooLittle = newBlock("budget");
  b.CreateCondBr(b.CreateICmpULT(budget, b.getInt64(n)), tooLittle, body);
  b.SetInsertPoint(tooLittle);
  leave(first);

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
  llvm::Value *failed = b.CreateCall(handlerFn_, {frame_, b.getInt32(pc), maskBits});
  cache_.clear();
  llvm::BasicBlock *fault = newBlock("fault"), *cont = newBlock("cont");
  b.CreateCondBr(b.CreateICmpNE(failed, b.getInt32(0)), fault, cont);
  // The faulting instruction counts, and the group stands after it, as in
  // the interpreter.
  b.SetInsertPoint(fault);
  b.CreateStore(b.CreateSub(blockBudget_, b.getInt64(counted_)), budgetSlot_);
  b.CreateStore(blockThreads_, threadsSlot_);
  leave(pc + 1);
  b.SetInsertPoint(cont);
}

void Gen::emitBranch(uint32_t pc) {
  const DInstr &in = k_.code[pc];
  ++stats_.branches;
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *budget = b.CreateLoad(i64, budgetSlot_);
  llvm::BasicBlock *go = newBlock("go"), *none = newBlock("nobudget");
  b.CreateCondBr(b.CreateICmpEQ(budget, b.getInt64(0)), none, go);
  b.SetInsertPoint(none);
  leave(pc);

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
  b.SetInsertPoint(split);
  leave(pc);
}

void Gen::jumpTo(uint32_t pc) {
  // A loop back to this function's start stays here; any other target is
  // the engine's to dispatch.
  if (pc != start_) return leave(pc);
  llvm::BasicBlock *here = newBlock("reconverge");
  b.CreateCondBr(b.CreateICmpEQ(reconverge_, b.getInt32(pc)), here, loop_);
  b.SetInsertPoint(here);
  leave(pc);
}

void Gen::leave(llvm::Value *pc) {
  b.CreateStore(pc, pcSlot_);
  b.CreateBr(exit_);
}

// ---- Registers and operands ----

llvm::Value *Gen::loadReg(uint32_t r) {
  if (auto it = cache_.find(r); it != cache_.end()) return it->second;
  llvm::Value *p = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), regs_, uint64_t{r} * kLanes);
  llvm::LoadInst *v = b.CreateAlignedLoad(vec(b.getInt64Ty()), p, llvm::Align(8));
  tagRegister(v);
  cache_[r] = v;
  return v;
}

void Gen::storeReg(uint32_t r, llvm::Value *bits, llvm::Value *mask) {
  llvm::Type *v64 = vec(b.getInt64Ty());
  if (bits->getType() != v64) bits = b.CreateZExt(bits, v64);
  // Only the executing lanes' registers change: a masked store, no read of
  // the old value. The cached value is right in the active lanes: a
  // guarded write merges with what they held.
  llvm::Value *p = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), regs_, uint64_t{r} * kLanes);
  tagRegister(b.CreateMaskedStore(bits, p, llvm::Align(8), mask));
  cache_[r] = mask == activeMask_ ? bits : b.CreateSelect(mask, bits, loadReg(r));
}

void Gen::storeOperand(const DOp &op, llvm::Value *bits, llvm::Value *mask) {
  if (op.kind == DOp::Reg) storeReg(op.reg, bits, mask);
}

bool Gen::readable(const DInstr &in, unsigned index) const {
  if (index >= in.numOps) return false;
  DOp::Kind kind = k_.op(in, index).kind;
  return kind == DOp::Reg || kind == DOp::Imm || kind == DOp::SReg || kind == DOp::Addr;
}

llvm::Value *Gen::operand(uint32_t pc, unsigned index, unsigned bits) {
  const DOp &op = k_.op(k_.code[pc], index);
  llvm::Value *v = nullptr;
  switch (op.kind) {
  case DOp::Reg: v = loadReg(op.reg); break;
  case DOp::Imm: return b.CreateVectorSplat(kLanes, b.getInt(llvm::APInt(64, op.imm).trunc(bits)));
  case DOp::SReg: v = specialRegister(pc, index); break;
  case DOp::Addr:
    v = b.CreateVectorSplat(kLanes, b.getInt64(op.imm));
    if (op.hasBase) v = b.CreateAdd(loadReg(op.reg), v);
    break;
  default: return nullptr;
  }
  return bits == 64 ? v : b.CreateTrunc(v, vec(intTy(bits)));
}

/// A special register as the operand service reads it (emulator/Access.cpp,
/// specialRegister): lane constants and the frame's per-warp fields in
/// compiled code, %tid too when the block is one-dimensional; the rest
/// (clocks, clusters, shared memory sizes, a 2-D or 3-D %tid) through the
/// service.
llvm::Value *Gen::specialRegister(uint32_t pc, unsigned index) {
  using ptx::SpecialReg;
  const DOp &op = k_.op(k_.code[pc], index);
  llvm::Type *i64 = b.getInt64Ty(), *v64 = vec(i64);
  auto lanes = [&](auto value) { return perLane(64, value); };
  auto field = [&](uint64_t offset) -> llvm::Value * {
    llvm::LoadInst *v = b.CreateLoad(b.getInt32Ty(), frameField(offset));
    tagFrame(v);
    return b.CreateZExt(v, i64);
  };
  auto component = [&](uint64_t offset) -> llvm::Value * {
    switch (op.selector) {
    case ptx::Selector::X: return b.CreateVectorSplat(kLanes, field(offset));
    case ptx::Selector::Y: return b.CreateVectorSplat(kLanes, field(offset + 4));
    case ptx::Selector::Z: return b.CreateVectorSplat(kLanes, field(offset + 8));
    default: return llvm::Constant::getNullValue(v64);
    }
  };
  auto service = [&]() -> llvm::Value * {
    publishBudget();
    b.CreateCall(operandFn_, {frame_, b.getInt32(pc), b.getInt32(index), scratch_});
    return b.CreateAlignedLoad(v64, scratch_, llvm::Align(64));
  };
  switch (static_cast<SpecialReg>(op.reg)) {
  case SpecialReg::LaneId: return lanes([](uint32_t l) { return l; });
  case SpecialReg::LanemaskEq: return lanes([](uint32_t l) { return 1u << l; });
  case SpecialReg::LanemaskLe: return lanes([](uint32_t l) { return l == 31 ? 0xFFFFFFFFu : (2u << l) - 1; });
  case SpecialReg::LanemaskLt: return lanes([](uint32_t l) { return (1u << l) - 1; });
  case SpecialReg::LanemaskGe: return lanes([](uint32_t l) { return ~((1u << l) - 1); });
  case SpecialReg::LanemaskGt: return lanes([](uint32_t l) { return l == 31 ? 0u : ~((2u << l) - 1); });
  case SpecialReg::Ntid: return component(frame::kNtid);
  case SpecialReg::CtaId: return component(frame::kCtaid);
  case SpecialReg::NCtaId: return component(frame::kNctaid);
  case SpecialReg::WarpId: return b.CreateVectorSplat(kLanes, field(frame::kWarpIndex));
  case SpecialReg::NWarpId: return b.CreateVectorSplat(kLanes, field(frame::kWarps));
  case SpecialReg::Tid: {
    if (op.selector != ptx::Selector::X && op.selector != ptx::Selector::Y && op.selector != ptx::Selector::Z)
      return llvm::Constant::getNullValue(v64);
    llvm::BasicBlock *linear = newBlock("tid1d"), *general = newBlock("tid"), *join = newBlock("tidjoin");
    b.CreateCondBr(b.CreateICmpNE(field(frame::kLinearBlock), b.getInt64(0)), linear, general);
    b.SetInsertPoint(linear);
    llvm::Value *fast = llvm::Constant::getNullValue(v64);
    if (op.selector == ptx::Selector::X)
      fast =
          b.CreateAdd(b.CreateVectorSplat(kLanes, b.CreateMul(field(frame::kWarpIndex), b.getInt64(kLanes))),
                      lanes([](uint32_t l) { return l; }));
    b.CreateBr(join);
    b.SetInsertPoint(general);
    llvm::Value *slow = service();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    llvm::PHINode *v = b.CreatePHI(v64, 2);
    v->addIncoming(fast, linear);
    v->addIncoming(slow, general);
    return v;
  }
  default: return service();
  }
}

Gen::Span Gen::span(llvm::Value *base, llvm::Value *mask, llvm::Value *maskBits, unsigned size,
                    bool remember) {
  auto key = std::make_tuple(base, mask, size);
  if (auto it = spans_.find(key); it != spans_.end()) return it->second;
  llvm::Type *i64 = b.getInt64Ty(), *v64 = vec(i64);
  Span s;
  s.lo = b.CreateIntMinReduce(b.CreateSelect(mask, base, llvm::Constant::getAllOnesValue(v64)), false);
  llvm::Value *live = b.CreateSelect(mask, base, llvm::Constant::getNullValue(v64));
  s.hi = b.CreateIntMaxReduce(live, false);
  s.bits = b.CreateOrReduce(live);
  s.first = b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {maskBits, b.getTrue()});
  llvm::Value *skipped = b.CreateMul(b.CreateZExt(s.first, i64), b.getInt64(size));
  llvm::Value *expected = b.CreateAdd(b.CreateVectorSplat(kLanes, b.CreateSub(s.lo, skipped)),
                                      perLane(64, [size](uint32_t l) { return uint64_t{l} * size; }));
  s.consecutive = b.CreateAndReduce(b.CreateOr(b.CreateICmpEQ(base, expected), b.CreateNot(mask)));
  s.valid = b.getTrue();
  if (remember) spans_.emplace(key, s);
  return s;
}

llvm::Value *Gen::predicate(uint32_t pc, unsigned index) {
  llvm::Value *p = operand(pc, index, 1);
  return k_.op(k_.code[pc], index).negated ? b.CreateNot(p) : p;
}

std::unique_ptr<llvm::Module> generateKernel(llvm::LLVMContext &ctx, const emu::Kernel &k,
                                             const std::string &name, EntryMap &entries, CodegenStats &stats,
                                             const AddressFacts *facts, bool names) {
  Gen gen(ctx, k, name);
  gen.facts_ = facts;
  gen.names_ = names;
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
