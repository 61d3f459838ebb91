// The code generator's state while it builds one kernel's function, shared
// by the block structure (Codegen.cpp) and the instruction lowering
// (Lowering.cpp). Internal to translator/.
#pragma once

#include "emulator/Kernel.h"
#include "translator/Codegen.h"
#include "translator/RegisterLiveness.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace translator {

constexpr unsigned kLanes = 32;

class Gen {
public:
  Gen(llvm::LLVMContext &ctx, const emu::Kernel &k, const std::string &name);

  /// Builds the function; fills `entries` and `stats`.
  std::unique_ptr<llvm::Module> run(EntryMap &entries, CodegenStats &stats);

  // ---- Instruction lowering (Lowering.cpp) ----

  /// Emits vector code for instruction `pc` under lane mask `mask` (a
  /// <32 x i1>; `maskBits` the same as an i32). False, having emitted
  /// nothing, for an instruction it does not compile: the caller then calls
  /// its handler. Memory instructions may branch to `fault` (the handler of
  /// their checked path reported a fault), with the block's counts so far.
  bool lower(uint32_t pc, llvm::Value *mask, llvm::Value *maskBits);

private:
  // ---- Structure (Codegen.cpp) ----
  void findBlocks();
  /// The function of the PTX function `region`.
  void beginFunction(const std::string &name, const emu::CodeRegion &region, size_t regionIndex);
  void finishFunction();
  static void scalarizeUniform(llvm::Function &fn);
  /// Drops the write-backs (writeBack) of registers whose value is still
  /// what a reload read from the file (through phis and width changes
  /// only): the file holds it already. After promotion, when the values are
  /// SSA.
  static void dropCleanWriteBacks(llvm::Function &fn);
  /// Promoted registers (below): the block that reads the registers live
  /// at entry `pc` from the file, then runs it; the registers a group
  /// standing at `pcs` may read (live there, and the cross-lane ones);
  /// writing the lanes `mask` (the running group's) of `slots` to the file,
  /// and reading them back from it.
  llvm::BasicBlock *refreshBlock(uint32_t pc);
  std::vector<uint32_t> neededAt(std::initializer_list<uint32_t> pcs) const;
  void writeBack(const std::vector<uint32_t> &slots, llvm::Value *mask);
  /// `active`: the running group's lanes (i32), one of which a scalar
  /// register is read from.
  void reload(const std::vector<uint32_t> &slots, llvm::Value *active);
  void emitEntry(uint32_t pc);
  void emitBlock(uint32_t first, uint32_t end);
  void emitBranch(uint32_t pc);
  /// Continues at `pc`: jumps to the block at `pc` (which pops at the
  /// group's reconvergence point and stops when the budget is spent), or
  /// leaves for the interpreter where none starts.
  void jumpTo(uint32_t pc);
  /// The block where a group stops running at `pc` (its budget spent, no
  /// compiled code there, its reconvergence point, or a divergent branch):
  /// the registers it needs there written back, then the split (the
  /// service) at a divergent branch, the pop (the service) when `pc` is its
  /// reconvergence point, else the function's exit.
  llvm::BasicBlock *stopAt(uint32_t pc);
  std::unordered_map<uint32_t, llvm::BasicBlock *> stops_; // per pc, in the function being built
  /// Leaves the function, the group going on at `pc`, whose registers are
  /// in the file already.
  void leave(llvm::Value *pc);
  /// Leaves after a fault: the CTA has failed, nothing reads its registers.
  void leaveFailed(uint32_t pc);
  /// The guard mask of instruction `pc` within the active lanes (i32).
  llvm::Value *guardBits(const emu::DInstr &in);

public:
  // ---- For lowering: registers, operands, services ----
  llvm::Type *vec(llvm::Type *element) const { return llvm::FixedVectorType::get(element, kLanes); }
  llvm::Type *intTy(unsigned bits) const { return llvm::Type::getIntNTy(ctx_, bits); }
  /// A <32 x i`bits`> constant whose lane l holds value(l).
  template <typename Value> llvm::Constant *perLane(unsigned bits, Value value) {
    std::vector<llvm::Constant *> lanes;
    for (uint32_t l = 0; l < kLanes; ++l)
      lanes.push_back(llvm::ConstantInt::get(intTy(bits), static_cast<uint64_t>(value(l))));
    return llvm::ConstantVector::get(lanes);
  }
  /// Register r at its declared width (<32 x iN>, CodeRegion::slotBits),
  /// exact in the group's active lanes; loadReg64 zero-extends it to 64
  /// bits, as the register file holds it.
  llvm::Value *loadReg(uint32_t r);
  llvm::Value *loadReg64(uint32_t r) { return fit(loadReg(r), 64); }
  /// Writes bits (any <32 x iN>, truncated or zero-extended to the
  /// register's width) into register r in the lanes of `mask` (within the
  /// active lanes).
  void storeReg(uint32_t r, llvm::Value *bits, llvm::Value *mask);
  /// Register r's declared width, and its vector type.
  unsigned slotBits(uint32_t r) const {
    return region_ && r < region_->slotBits.size() ? region_->slotBits[r] : 64;
  }
  llvm::Type *slotType(uint32_t r) const { return vec(intTy(slotBits(r))); }
  /// A <32 x iN> value truncated or zero-extended to <32 x i`bits`>.
  llvm::Value *fit(llvm::Value *v, unsigned bits);
  /// Registers in SSA form. In a function whose registers are promoted
  /// (most: up to kMaxPromotedSlots), each register slot the function names
  /// is an alloca that mem2reg turns into SSA values, exact in the running
  /// group's lanes for the registers live where it runs (and in every lane
  /// for registers read across lanes). The warp's register file holds the
  /// rest: a group that starts running reads the registers live at its pc
  /// from the file, and the running group writes its lanes of the
  /// registers live where it stops back to the file whenever it stops
  /// running - when it leaves, splits at a divergent branch or waits at its
  /// reconvergence point - and a handler's operands around its call. So
  /// every lane not running has in the file what it will read. Otherwise
  /// every access goes to the file. Either way, a value read or written once
  /// is reused while the code between stays straight (no join of paths, no
  /// handler call, which may write any register).
  static constexpr size_t kMaxPromotedSlots = 1024;
  bool promoted_ = false;
  std::optional<RegisterLiveness> live_;
  std::vector<llvm::AllocaInst *> value_; // per slot (promoted functions)
  /// Per slot: kept as one scalar (AddressFacts::uniformSlots; never a
  /// register read across lanes), not a vector of lanes.
  std::vector<uint8_t> scalar_;
  llvm::Value *fileSlot(uint32_t r);
  using RegisterCache = std::unordered_map<uint32_t, llvm::Value *>;
  RegisterCache cache_;
  /// What the executing lanes (`mask`) of a base-address value look like:
  /// min, max and OR over them, the first of them, and whether lane l holds
  /// lo + (l - first) * size. Computed once per (value, mask, size) on the
  /// straight path, so that it dominates every later use.
  /// Unchecked (GenerateOptions::unchecked), lanes that are neither one
  /// address nor consecutive give up the min, max and OR: lo, hi and bits
  /// are the first lane's address, and the access clamps every lane into
  /// the allocation that address lies in.
  /// A whole warp of a block whose rows are 16 threads wide (a 16x16 tile)
  /// is two rows: `halfRows`, lanes 0-15 and 16-31 each consecutive from
  /// `lane0` and `lane16`; `halfPoints`, each half one address. Both false
  /// for any other pattern and for a partial warp. (Unchecked, lo..hi is
  /// then the two halves' span rather than the first lane's address.)
  struct Span {
    llvm::Value *lo, *hi, *bits, *first, *consecutive;
    llvm::Value *uniform; // i1: every executing lane has one address
    llvm::Value *valid;   // i1: lo..hi is the span (no wrap-around)
    llvm::Value *halfRows, *halfPoints, *lane0, *lane16;
  };
  /// `remember`: keep it for later accesses (false where the code computing
  /// it does not dominate what follows).
  Span span(llvm::Value *base, llvm::Value *mask, llvm::Value *maskBits, unsigned size, bool remember = true);
  /// At the current block (the join of two paths that computed a span),
  /// each field as a φ of `a` from `fromA` and `c` from `fromC`.
  Span joinSpans(const Span &a, llvm::BasicBlock *fromA, const Span &c, llvm::BasicBlock *fromC);
  std::map<std::tuple<llvm::Value *, llvm::Value *, unsigned>, Span> spans_;
  /// Lane `lane` (i32) of vector `v`, at a constant index when it is
  /// `likely` (0 or 31: the first or last lane of a whole warp).
  llvm::Value *laneOf(llvm::Value *v, llvm::Value *lane, uint32_t likely);
  /// The lowest lane set in `bits` (i32), within the warp even when none is.
  llvm::Value *firstLane(llvm::Value *bits);
  /// Forgets what the caches know (control may come from elsewhere).
  void resetCaches() {
    cache_.clear();
    spans_.clear();
  }
  /// Same, for a destination operand (a sink discards).
  void storeOperand(const emu::DOp &op, llvm::Value *bits, llvm::Value *mask);
  /// A source operand of instruction `pc` as <32 x i`bits`>: registers
  /// truncated, immediates splat, special registers and addresses computed.
  /// nullptr for an operand kind it cannot read (vectors, sinks).
  llvm::Value *operand(uint32_t pc, unsigned index, unsigned bits);
  /// Special register operand `index` of instruction `pc` as <32 x i64>.
  llvm::Value *specialRegister(uint32_t pc, unsigned index);
  /// A predicate source (bit 0, negation applied) as <32 x i1>.
  llvm::Value *predicate(uint32_t pc, unsigned index);
  /// Whether operand `index` of `in` is one operand() can read.
  bool readable(const emu::DInstr &in, unsigned index) const;
  /// A field of the frame, by byte offset (Frame.h, frame::k*).
  llvm::Value *frameField(uint64_t offset);
  /// Tells the services how far the block has come (JitFrame::budgetNow).
  void publishBudget();
  /// Calls the interpreter's handler for instruction `pc`; branches to the
  /// fault exit when it reports a fault.
  void callHandler(uint32_t pc, llvm::Value *maskBits);
  /// Tags a register access / a device-memory access for alias analysis:
  /// the two never overlap.
  void tagRegister(llvm::Instruction *i) { i->setMetadata(llvm::LLVMContext::MD_tbaa, tbaaReg_); }
  /// Names the register slot a reload reads or a write-back writes
  /// (dropCleanWriteBacks).
  static constexpr const char *kSlotMetadata = "ptxvm.slot";
  void tagSlot(llvm::Instruction *i, uint32_t r) {
    i->setMetadata(kSlotMetadata, llvm::MDNode::get(ctx_, llvm::ConstantAsMetadata::get(b.getInt32(r))));
  }
  void tagMemory(llvm::Instruction *i) { i->setMetadata(llvm::LLVMContext::MD_tbaa, tbaaMem_); }
  template <typename I> I *tagFrame(I *i) {
    i->setMetadata(llvm::LLVMContext::MD_tbaa, tbaaFrame_);
    return i;
  }
  llvm::BasicBlock *newBlock(const char *name) { return llvm::BasicBlock::Create(ctx_, name, fn_); }
  /// A branch to `rare` when `cond` holds, else to `usual`: weighted so that
  /// block placement keeps the rare side (checked paths, faults, running
  /// out of budget) out of the hot code's way.
  void branchUnlikely(llvm::Value *cond, llvm::BasicBlock *rare, llvm::BasicBlock *usual) {
    b.CreateCondBr(cond, rare, usual, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  }

  llvm::LLVMContext &ctx_;
  const emu::Kernel &k_;
  const emu::CodeRegion *region_ = nullptr; // the function being built
  const struct AddressFacts *facts_ = nullptr;
  bool names_ = true;      // CodegenStats::handlerOpcodes (reads the ptx::Module)
  bool unchecked_ = false; // GenerateOptions::unchecked
  std::string name_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> b;
  llvm::Function *fn_ = nullptr;
  llvm::Value *frame_ = nullptr, *regs_ = nullptr;
  llvm::Value *activeBits_ = nullptr, *activeMask_ = nullptr, *activeCount_ = nullptr, *reconverge_ = nullptr;
  llvm::Value *budgetSlot_ = nullptr, *threadsSlot_ = nullptr, *pcSlot_ = nullptr;
  llvm::Value *scratch_ = nullptr, *deltaSlot_ = nullptr;
  /// The lanes taking the branch whose group diverges, from the branch to
  /// its stop block (stopAt); 0 everywhere else.
  llvm::Value *divergeSlot_ = nullptr;
  llvm::BasicBlock *exit_ = nullptr, *dispatch_ = nullptr, *pop_ = nullptr;
  std::vector<llvm::BasicBlock *> blocks_; // per pc of the function being built: its entry's block
  llvm::FunctionCallee handlerFn_, operandFn_, directFn_, divergeFn_, reconvergeFn_;
  llvm::MDNode *tbaaReg_ = nullptr, *tbaaMem_ = nullptr, *tbaaFrame_ = nullptr;
  CodegenStats stats_;

  /// Memory instructions so far, to give each the next window of its space.
  uint32_t nextWindow_ = 0;
  // Per pc: whether compiled code starts there.
  std::vector<uint8_t> entry_;
  std::vector<uint8_t> leader_;

  // While a block is emitted: its budget at entry, the instructions and
  // lane-instructions it has counted.
  llvm::Value *blockBudget_ = nullptr, *blockThreads_ = nullptr;
  uint32_t counted_ = 0;
};

} // namespace translator
