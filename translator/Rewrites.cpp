// Rewrites of a kernel's finished function, after its registers became SSA
// values (Gen::finishFunction): uniform arithmetic computed once per warp,
// and write-backs of registers that still hold what the file holds dropped.
#include "translator/Gen.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <vector>

namespace translator {

/// Why a clean value needs no write-back: between a reload and any later
/// point where the register still holds the reloaded value, the file's
/// slot for the running lanes changes only by write-backs (of that same
/// value) or by services, and every service that may write a register
/// (a handler, a divergent branch, a reconvergence) is followed by a reload
/// of the registers it may have written, which gives them a new value. So
/// the running lanes' slot still holds what the value was loaded from.
/// (A 32-bit register's slot keeps its upper bits as the file had them,
/// where a write-back would have zeroed them; nothing reads them.)
void Gen::dropCleanWriteBacks(llvm::Function &fn) {
  const unsigned kind = fn.getContext().getMDKindID(kSlotMetadata);
  auto slotOf = [kind](const llvm::Instruction *i) -> int64_t {
    const llvm::MDNode *md = i->getMetadata(kind);
    if (!md) return -1;
    return llvm::mdconst::extract<llvm::ConstantInt>(md->getOperand(0))->getZExtValue();
  };
  // Whether `v` is, lane for lane, what reloads of slot r read.
  std::function<bool(llvm::Value *, int64_t, llvm::SmallPtrSetImpl<llvm::PHINode *> &)> reloaded =
      [&](llvm::Value *v, int64_t r, llvm::SmallPtrSetImpl<llvm::PHINode *> &seen) -> bool {
    for (;;) {
      if (auto *c = llvm::dyn_cast<llvm::CastInst>(v);
          c && (llvm::isa<llvm::TruncInst>(c) || llvm::isa<llvm::ZExtInst>(c))) {
        v = c->getOperand(0);
      } else if (auto *f = llvm::dyn_cast<llvm::FreezeInst>(v)) {
        v = f->getOperand(0);
      } else if (llvm::Value *x = v->getType()->isVectorTy() ? llvm::getSplatValue(v) : nullptr) {
        v = x; // a scalar register's splat
      } else {
        break;
      }
    }
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(v)) return slotOf(load) == r;
    auto *phi = llvm::dyn_cast<llvm::PHINode>(v);
    if (!phi) return false;
    if (!seen.insert(phi).second) return true; // a loop: its other inputs decide
    for (llvm::Value *in : phi->incoming_values())
      if (!reloaded(in, r, seen)) return false;
    return true;
  };
  std::vector<llvm::Instruction *> clean;
  for (llvm::BasicBlock &bb : fn)
    for (llvm::Instruction &i : bb) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(&i);
      const int64_t r = call ? slotOf(call) : -1;
      if (r < 0) continue;
      llvm::SmallPtrSet<llvm::PHINode *, 8> seen;
      if (reloaded(call->getArgOperand(0), r, seen)) clean.push_back(call);
    }
  for (llvm::Instruction *i : clean) i->eraseFromParent();
}

/// Uniform registers are scalars, read as splats: an operation whose vector
/// operands are all splats computes one lane and splats it (and a lane taken
/// from a splat is its scalar), so a chain of uniform arithmetic runs once
/// per warp instead of per lane. Visited in reverse post-order, so that an
/// operation sees its operands already rewritten.
void Gen::scalarizeUniform(llvm::Function &fn) {
  llvm::ReversePostOrderTraversal<llvm::Function *> order(&fn);
  llvm::IRBuilder<> at(fn.getContext());
  auto splatOf = [](llvm::Value *v) -> llvm::Value * {
    return v->getType()->isVectorTy() ? llvm::getSplatValue(v) : nullptr;
  };
  for (llvm::BasicBlock *bb : order) {
    for (llvm::Instruction &i : llvm::make_early_inc_range(*bb)) {
      if (auto *e = llvm::dyn_cast<llvm::ExtractElementInst>(&i)) {
        if (llvm::Value *x = splatOf(e->getVectorOperand())) {
          e->replaceAllUsesWith(x);
          e->eraseFromParent();
        }
        continue;
      }
      auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(i.getType());
      if (!vt || !(llvm::isa<llvm::BinaryOperator>(i) || llvm::isa<llvm::CmpInst>(i) ||
                   llvm::isa<llvm::CastInst>(i) || llvm::isa<llvm::SelectInst>(i) ||
                   llvm::isa<llvm::UnaryOperator>(i)))
        continue;
      // Casts lane by lane only (not a bitcast between vector shapes or from iN).
      if (auto *from = llvm::dyn_cast<llvm::FixedVectorType>(i.getOperand(0)->getType());
          llvm::isa<llvm::CastInst>(i) && (!from || from->getNumElements() != vt->getNumElements()))
        continue;
      std::vector<llvm::Value *> scalars;
      for (llvm::Value *op : i.operands()) {
        llvm::Value *x = op->getType()->isVectorTy() ? splatOf(op) : nullptr;
        if (!x) break;
        scalars.push_back(x);
      }
      if (scalars.size() != i.getNumOperands()) continue;
      at.SetInsertPoint(&i);
      llvm::Value *one = nullptr;
      if (auto *bo = llvm::dyn_cast<llvm::BinaryOperator>(&i))
        one = at.CreateBinOp(bo->getOpcode(), scalars[0], scalars[1]);
      else if (auto *c = llvm::dyn_cast<llvm::CmpInst>(&i))
        one = at.CreateCmp(c->getPredicate(), scalars[0], scalars[1]);
      else if (auto *c = llvm::dyn_cast<llvm::CastInst>(&i))
        one = at.CreateCast(c->getOpcode(), scalars[0], vt->getElementType());
      else if (llvm::isa<llvm::SelectInst>(i))
        one = at.CreateSelect(scalars[0], scalars[1], scalars[2]);
      else
        one = at.CreateUnOp(llvm::cast<llvm::UnaryOperator>(i).getOpcode(), scalars[0]);
      if (auto *oi = llvm::dyn_cast<llvm::Instruction>(one)) oi->copyIRFlags(&i);
      i.replaceAllUsesWith(at.CreateVectorSplat(vt->getNumElements(), one));
      i.eraseFromParent();
    }
  }
}

} // namespace translator
