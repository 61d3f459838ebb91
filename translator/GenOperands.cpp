// Registers and operands of compiled code: registers in SSA form or in the
// frame's file, operands (immediates, addresses, special registers: %tid of
// any block shape computed in place), a lane's value, and the span of a
// warp's addresses that the memory fast path decides on (Gen::span).
#include "translator/Frame.h"
#include "translator/Gen.h"

#include <llvm/Analysis/VectorUtils.h>

namespace translator {

using emu::DInstr;
using emu::DOp;

llvm::Value *Gen::fit(llvm::Value *v, unsigned bits) {
  const unsigned from = llvm::cast<llvm::VectorType>(v->getType())->getElementType()->getIntegerBitWidth();
  if (from == bits) return v;
  return from > bits ? b.CreateTrunc(v, vec(intTy(bits))) : b.CreateZExt(v, vec(intTy(bits)));
}

llvm::Value *Gen::loadReg(uint32_t r) {
  if (auto it = cache_.find(r); it != cache_.end()) return it->second;
  llvm::Value *v;
  if (promoted_ && scalar_[r]) {
    v = b.CreateVectorSplat(kLanes, b.CreateLoad(intTy(slotBits(r)), value_.at(r)));
  } else if (promoted_) {
    v = b.CreateLoad(slotType(r), value_.at(r));
  } else {
    llvm::LoadInst *file = b.CreateAlignedLoad(vec(b.getInt64Ty()), fileSlot(r), llvm::Align(8));
    tagRegister(file);
    v = fit(file, slotBits(r));
  }
  cache_[r] = v;
  return v;
}

void Gen::storeReg(uint32_t r, llvm::Value *bits, llvm::Value *mask) {
  bits = fit(bits, slotBits(r));
  if (promoted_ && scalar_[r]) {
    // Every executing lane computed the same value (the facts), and a
    // guard that leaves some of the group out would make the register
    // divergent: the mask is the whole group or no lane.
    llvm::Value *value = llvm::getSplatValue(bits);
    llvm::Value *maskBits = b.CreateBitCast(mask, b.getInt32Ty());
    if (!value) {
      value = laneOf(bits, firstLane(maskBits), 0);
    }
    llvm::Value *old = b.CreateLoad(intTy(slotBits(r)), value_[r]);
    value = b.CreateSelect(b.CreateICmpEQ(maskBits, b.getInt32(0)), old, value);
    b.CreateStore(value, value_[r]);
    cache_[r] = b.CreateVectorSplat(kLanes, value);
    return;
  }
  // Only the executing lanes' registers change: the new value blended with
  // the old one and stored whole (a masked store per instruction is slower:
  // AMD's Zen 3 microcodes vpmaskmov stores). Promoted registers need to be
  // exact only in the running group's lanes (every lane for those read
  // across lanes): a write by the whole group replaces the value, with no
  // blend and no dependence on the old one.
  const bool whole = promoted_ && mask == activeMask_ &&
                     !std::binary_search(live_->crossLane().begin(), live_->crossLane().end(), r);
  llvm::Value *merged = whole ? bits : b.CreateSelect(mask, bits, loadReg(r));
  if (promoted_)
    b.CreateStore(merged, value_.at(r));
  else
    tagRegister(b.CreateAlignedStore(fit(merged, 64), fileSlot(r), llvm::Align(8)));
  cache_[r] = merged;
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
    if (op.hasBase) v = b.CreateAdd(loadReg64(op.reg), v);
    break;
  default: return nullptr;
  }
  return fit(v, bits);
}

/// A special register as the operand service reads it (emulator/Access.cpp,
/// specialRegister): lane constants, %tid and the frame's per-warp fields in
/// compiled code; the rest (clocks, clusters, shared memory sizes) through
/// the service.
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
    // Any other shape: the lanes' linear thread indices t divided by %ntid.x
    // (and the quotient by %ntid.y) in double. Exact for every t below 2^32:
    // a quotient that is not an integer lies at least 1/n from the next one,
    // more than its rounding error (under t/n * 2^-53), so truncating it
    // gives t / n. (A vector integer division is 32 scalar ones.)
    llvm::Type *f64 = vec(b.getDoubleTy());
    auto divide = [&](llvm::Value *num, llvm::Value *den) {
      return b.CreateFPToUI(b.CreateFDiv(b.CreateUIToFP(num, f64), b.CreateUIToFP(den, f64)), v64);
    };
    llvm::Value *t =
        b.CreateAdd(b.CreateVectorSplat(kLanes, b.CreateMul(field(frame::kWarpIndex), b.getInt64(kLanes))),
                    lanes([](uint32_t l) { return l; }));
    llvm::Value *nx = b.CreateVectorSplat(kLanes, field(frame::kNtid));
    llvm::Value *ny = b.CreateVectorSplat(kLanes, field(frame::kNtid + 4));
    llvm::Value *row = divide(t, nx); // t / ntid.x = tid.y + ntid.y * tid.z
    llvm::Value *slow;
    if (op.selector == ptx::Selector::X) {
      slow = b.CreateSub(t, b.CreateMul(row, nx));
    } else {
      llvm::Value *plane = divide(row, ny);
      slow = op.selector == ptx::Selector::Y ? b.CreateSub(row, b.CreateMul(plane, ny)) : plane;
    }
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

llvm::Value *Gen::firstLane(llvm::Value *bits) {
  return b.CreateAnd(b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {bits, b.getFalse()}),
                     b.getInt32(kLanes - 1));
}

/// A variable index stores the vector to the stack and loads the lane
/// back, which stalls on an earlier store to the same address modulo 4 KiB
/// (vector add ran 3x slower in some stack layouts than in others).
llvm::Value *Gen::laneOf(llvm::Value *v, llvm::Value *lane, uint32_t likely) {
  // The index may be poison (cttz of an empty mask, on a path that tests for
  // no lanes later): frozen, the branch on it is defined.
  lane = b.CreateFreeze(lane);
  llvm::BasicBlock *fixed = newBlock("lane"), *any = newBlock("anylane"), *done = newBlock("picked");
  b.CreateCondBr(b.CreateICmpEQ(lane, b.getInt32(likely)), fixed, any);
  b.SetInsertPoint(fixed);
  llvm::Value *atLikely = b.CreateExtractElement(v, uint64_t{likely});
  b.CreateBr(done);
  b.SetInsertPoint(any);
  llvm::Value *atLane = b.CreateExtractElement(v, lane);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode *phi = b.CreatePHI(atLane->getType(), 2);
  phi->addIncoming(atLikely, fixed);
  phi->addIncoming(atLane, any);
  return phi;
}

/// Most warps' accesses are consecutive, so that is tested first, with
/// 64-bit lane compares; the span is then the first and last executing
/// lanes' addresses. Only other patterns pay for the min, max and OR
/// reductions (64-bit unsigned min and max take several instructions per
/// step on AVX2).
Gen::Span Gen::span(llvm::Value *base, llvm::Value *mask, llvm::Value *maskBits, unsigned size,
                    bool remember) {
  auto key = std::make_tuple(base, mask, size);
  if (auto it = spans_.find(key); it != spans_.end()) return it->second;
  llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty(), *v64 = vec(i64);
  Span s;
  // Lane indices stay defined (and within the warp) for an empty mask too: this code runs, and
  // branches, before the caller's test for no lanes.
  s.first = firstLane(maskBits);
  llvm::Value *firstAddress = laneOf(base, s.first, 0);
  llvm::Value *skipped = b.CreateMul(b.CreateZExt(s.first, i64), b.getInt64(size));
  llvm::Value *expected = b.CreateAdd(b.CreateVectorSplat(kLanes, b.CreateSub(firstAddress, skipped)),
                                      perLane(64, [size](uint32_t l) { return uint64_t{l} * size; }));
  s.consecutive = b.CreateAndReduce(b.CreateOr(b.CreateICmpEQ(base, expected), b.CreateNot(mask)));
  llvm::BasicBlock *row = newBlock("row"), *other = newBlock("spread"), *join = newBlock("spanned");
  b.CreateCondBr(s.consecutive, row, other);

  b.SetInsertPoint(row);
  llvm::Value *last =
      b.CreateAnd(b.CreateSub(b.getInt32(kLanes - 1),
                              b.CreateIntrinsic(llvm::Intrinsic::ctlz, {i32}, {maskBits, b.getFalse()})),
                  b.getInt32(kLanes - 1));
  llvm::Value *rowHi = laneOf(base, last, kLanes - 1);
  llvm::Value *rowValid = b.CreateICmpULE(firstAddress, rowHi); // no wrap-around within the warp
  llvm::Value *rowUniform = b.CreateICmpEQ(firstAddress, rowHi);
  row = b.GetInsertBlock();
  b.CreateBr(join);

  b.SetInsertPoint(other);
  llvm::Value *lo, *hi, *bits, *uniform, *valid = b.getTrue();
  // Two rows or two points of a 16-wide block (whole warps only).
  llvm::Value *lane0 = b.CreateExtractElement(base, uint64_t{0}),
              *lane16 = b.CreateExtractElement(base, uint64_t{kLanes / 2});
  llvm::SmallVector<int, kLanes> halves;
  for (uint32_t l = 0; l < kLanes; ++l) halves.push_back(l < kLanes / 2 ? 0 : kLanes / 2);
  llvm::Value *starts = b.CreateShuffleVector(base, halves);
  llvm::Value *whole = b.CreateICmpEQ(maskBits, b.getInt32(~0u));
  llvm::Value *halfPoints = b.CreateAnd(whole, b.CreateAndReduce(b.CreateICmpEQ(base, starts)));
  llvm::Value *steps = perLane(64, [size](uint32_t l) { return uint64_t{l % (kLanes / 2)} * size; });
  llvm::Value *halfRows =
      b.CreateAnd(whole, b.CreateAndReduce(b.CreateICmpEQ(base, b.CreateAdd(starts, steps))));
  if (unchecked_) {
    // Only the first lane is checked; the access clamps the others. Two
    // rows or points are accessed whole, so their span is theirs: from the
    // lower start to the higher one's end, which must not wrap around.
    uniform = b.CreateAndReduce(
        b.CreateOr(b.CreateICmpEQ(base, b.CreateVectorSplat(kLanes, firstAddress)), b.CreateNot(mask)));
    llvm::Value *halvesOf = b.CreateOr(halfRows, halfPoints);
    llvm::Value *low = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, lane0, lane16),
                *high = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, lane0, lane16);
    llvm::Value *end =
        b.CreateAdd(high, b.CreateSelect(halfRows, b.getInt64((kLanes / 2 - 1) * size), b.getInt64(0)));
    lo = b.CreateSelect(halvesOf, low, firstAddress);
    hi = b.CreateSelect(halvesOf, end, firstAddress);
    bits = b.CreateSelect(halvesOf, b.CreateOr(lane0, lane16), firstAddress);
    valid = b.CreateOr(b.CreateNot(halvesOf), b.CreateICmpUGE(end, high));
  } else {
    // Exact over every lane, which also bounds the two halves' accesses.
    lo = b.CreateIntMinReduce(b.CreateSelect(mask, base, llvm::Constant::getAllOnesValue(v64)), false);
    llvm::Value *live = b.CreateSelect(mask, base, llvm::Constant::getNullValue(v64));
    hi = b.CreateIntMaxReduce(live, false);
    bits = b.CreateOrReduce(live);
    uniform = b.CreateICmpEQ(lo, hi);
  }
  b.CreateBr(join);

  b.SetInsertPoint(join);
  // Every lane's address is the first one's plus a multiple of the size:
  // the first one's alignment is theirs.
  const Span onRow{firstAddress, rowHi,        firstAddress, s.first,      s.consecutive, rowUniform,
                   rowValid,     b.getFalse(), b.getFalse(), firstAddress, firstAddress};
  const Span onOther{lo,    hi,       bits,       s.first, s.consecutive, uniform,
                     valid, halfRows, halfPoints, lane0,   lane16};
  s = joinSpans(onRow, row, onOther, other);
  if (remember) spans_.emplace(key, s);
  return s;
}

Gen::Span Gen::joinSpans(const Span &a, llvm::BasicBlock *fromA, const Span &c, llvm::BasicBlock *fromC) {
  auto phi = [&](llvm::Value *p, llvm::Value *q) -> llvm::Value * {
    if (p == q) return p;
    llvm::PHINode *n = b.CreatePHI(p->getType(), 2);
    n->addIncoming(p, fromA);
    n->addIncoming(q, fromC);
    return n;
  };
  Span s;
  s.lo = phi(a.lo, c.lo), s.hi = phi(a.hi, c.hi), s.bits = phi(a.bits, c.bits);
  s.first = phi(a.first, c.first), s.consecutive = phi(a.consecutive, c.consecutive);
  s.uniform = phi(a.uniform, c.uniform), s.valid = phi(a.valid, c.valid);
  s.halfRows = phi(a.halfRows, c.halfRows), s.halfPoints = phi(a.halfPoints, c.halfPoints);
  s.lane0 = phi(a.lane0, c.lane0), s.lane16 = phi(a.lane16, c.lane16);
  return s;
}

llvm::Value *Gen::predicate(uint32_t pc, unsigned index) {
  llvm::Value *p = operand(pc, index, 1);
  return k_.op(k_.code[pc], index).negated ? b.CreateNot(p) : p;
}

} // namespace translator
