// The plumbing every instruction group's lowering shares (Lowering.cpp:
// integer, float, conversions, warp collectives; LoweringMemory.cpp: loads,
// stores, address conversion): operands, definitions, and a fast path that
// meets the instruction's interpreter handler again. Internal to translator/.
#pragma once

#include "translator/Gen.h"

#include <initializer_list>
#include <utility>
#include <vector>

namespace translator {

/// Lowers one instruction; a class so that the forms share the operand
/// plumbing without repeating it.
class LoweringBase {
public:
  LoweringBase(Gen &g, uint32_t pc, llvm::Value *mask, llvm::Value *maskBits)
      : g(g), b(g.b), pc(pc), in(g.k_.code[pc]), mask(mask), maskBits(maskBits) {}

protected:
  using DInstr = emu::DInstr;
  using DOp = emu::DOp;

  const DOp &op(unsigned i) const { return g.k_.op(in, i); }
  bool readable(std::initializer_list<unsigned> sources) const {
    for (unsigned i : sources)
      if (!g.readable(in, i)) return false;
    return true;
  }
  bool writable(unsigned i) const {
    return i < in.numOps && (op(i).kind == DOp::Reg || op(i).kind == DOp::Sink);
  }
  llvm::Value *src(unsigned i, unsigned bits) { return g.operand(pc, i, bits); }
  void def(unsigned i, llvm::Value *bits) { g.storeOperand(op(i), bits, mask); }
  llvm::Value *splat(unsigned bits, uint64_t v) {
    return b.CreateVectorSplat(kLanes, b.getInt(llvm::APInt(64, v).trunc(bits)));
  }
  llvm::Value *ext(llvm::Value *v, unsigned bits, bool sign) {
    return sign ? b.CreateSExt(v, g.vec(g.intTy(bits))) : b.CreateZExt(v, g.vec(g.intTy(bits)));
  }
  /// The high or low half of operands 1 times 2, formed in twice their width
  /// (mul.hi, mad.hi, mad.cc, madc).
  llvm::Value *productHalf(unsigned bits, bool sign, bool high) {
    llvm::Value *p = b.CreateMul(ext(src(1, bits), 2 * bits, sign), ext(src(2, bits), 2 * bits, sign));
    if (high) p = b.CreateLShr(p, splat(2 * bits, bits));
    return b.CreateTrunc(p, g.vec(g.intTy(bits)));
  }

  /// The vector code `fast` (which defines the destination) unless an
  /// executing lane is `special` (<32 x i1>): then the instruction's
  /// handler, which owns those cases.
  template <typename Fast> void unlessSpecial(llvm::Value *special, Fast fast) {
    unless(b.CreateOrReduce(b.CreateAnd(special, mask)), fast);
  }

  /// The vector code `fast` unless `slow` (i1): then the handler.
  template <typename Fast> void unless(llvm::Value *slowCase, Fast fast) {
    llvm::BasicBlock *slow = g.newBlock("special"), *common = g.newBlock("common"),
                     *done = g.newBlock("joined");
    g.branchUnlikely(slowCase, slow, common);
    Paths paths(*this, done);
    b.SetInsertPoint(slow);
    paths.handler();
    b.SetInsertPoint(common);
    paths.fast();
    fast();
    paths.arrive();
    paths.join();
  }

  /// A fast path and the handler's path of one instruction meeting again:
  /// the register cache of the fast path is dropped at the join, but for
  /// the destination register (operand 0), whose value from each path meets
  /// in a phi. Registers other than the destination are as they were (the
  /// handler writes only its destination).
  class Paths {
  public:
    Paths(LoweringBase &l, llvm::BasicBlock *done) : l_(l), done_(done), saved_(l.g.cache_) {
      const DOp &d = l.op(0);
      if (l.in.opcode != ptx::Opcode::St && d.kind == DOp::Reg) dst_ = static_cast<int64_t>(d.reg);
    }
    /// The path that leaves the registers as they are (no lane executes).
    void unchanged() { arriveWith(dst_ >= 0 ? l_.g.loadReg(static_cast<uint32_t>(dst_)) : nullptr); }
    void handler() {
      l_.g.callHandler(l_.pc, l_.maskBits);
      arriveWith(dst_ >= 0 ? l_.g.loadReg(static_cast<uint32_t>(dst_)) : nullptr);
    }
    /// Starts the fast path (in the current block).
    void fast() { l_.g.cache_ = saved_; }
    /// Ends the fast path (its def done).
    void arrive() { arriveWith(dst_ >= 0 ? l_.g.cache_.at(static_cast<uint32_t>(dst_)) : nullptr); }
    void join() {
      l_.b.SetInsertPoint(done_);
      l_.g.cache_ = saved_;
      if (dst_ < 0) return;
      l_.g.cache_.erase(static_cast<uint32_t>(dst_));
      llvm::PHINode *phi =
          l_.b.CreatePHI(incoming_.front().first->getType(), static_cast<unsigned>(incoming_.size()));
      for (auto &[value, block] : incoming_) phi->addIncoming(value, block);
      l_.g.cache_[static_cast<uint32_t>(dst_)] = phi;
    }

  private:
    void arriveWith(llvm::Value *v) {
      if (v) incoming_.emplace_back(v, l_.b.GetInsertBlock());
      l_.b.CreateBr(done_);
      l_.g.cache_ = saved_;
    }
    LoweringBase &l_;
    llvm::BasicBlock *done_;
    Gen::RegisterCache saved_;
    int64_t dst_ = -1;
    std::vector<std::pair<llvm::Value *, llvm::BasicBlock *>> incoming_;
  };

  Gen &g;
  llvm::IRBuilder<> &b;
  uint32_t pc;
  const DInstr &in;
  llvm::Value *mask, *maskBits;
};

/// Lowers ld, ldu, st and cvta (LoweringMemory.cpp); false when it does not.
bool lowerMemory(Gen &g, uint32_t pc, llvm::Value *mask, llvm::Value *maskBits);
/// add.cc, addc, sub.cc, subc, mad.cc and madc (LoweringCarry.cpp); false
/// for a form left to the handler.
bool lowerCarry(Gen &g, uint32_t pc, llvm::Value *mask, llvm::Value *maskBits);

} // namespace translator
