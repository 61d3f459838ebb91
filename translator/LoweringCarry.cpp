// Extended-precision integer arithmetic through the carry flag as whole-warp
// vector code (emulator/semantics/Extended.cpp): add.cc, addc{.cc}, sub.cc,
// subc{.cc}, mad.{lo,hi}.cc and madc.{lo,hi}{.cc} on 32- and 64-bit integers
// (mad on 32-bit ones). CC.CF stays where the handlers keep it, the warp's
// carry word (JitFrame::carry), read and written by the executing lanes, so
// that compiled code and handler calls can alternate in one chain.
#include "translator/Frame.h"
#include "translator/Lowering.h"

namespace translator {

using ptx::Opcode;

namespace {

class CarryLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;

  bool run() {
    const unsigned bits = ptx::bitWidth(in.type);
    const bool carryIn = in.opcode == Opcode::Addc || in.opcode == Opcode::Subc || in.opcode == Opcode::Madc;
    const bool mad = in.opcode == Opcode::Mad || in.opcode == Opcode::Madc;
    if ((bits != 32 && bits != 64) || (mad && bits != 32) || in.sat || in.wide || !writable(0) ||
        !readable(mad ? std::initializer_list<unsigned>{1, 2, 3} : std::initializer_list<unsigned>{1, 2}))
      return false;
    llvm::Type *lanesTy = g.vec(g.intTy(bits));
    llvm::Value *carryPtr = b.CreateLoad(b.getPtrTy(), g.frameField(frame::kCarry), "carryptr");
    llvm::Value *flags = b.CreateLoad(b.getInt32Ty(), carryPtr, "cc");
    auto flagLanes = [&] { return b.CreateZExt(b.CreateBitCast(flags, g.vec(b.getInt1Ty())), lanesTy); };
    // The first addend and the second: a + b, a + ~b (sub: "no borrow" in
    // CF, so the carry in without one is 1), or (a * b).{lo,hi} + c.
    llvm::Value *first = nullptr, *second = nullptr, *cin = nullptr;
    switch (in.opcode) {
    case Opcode::Add:
    case Opcode::Addc:
      first = src(1, bits), second = src(2, bits);
      cin = carryIn ? flagLanes() : splat(bits, 0);
      break;
    case Opcode::Sub:
    case Opcode::Subc:
      first = src(1, bits), second = b.CreateNot(src(2, bits));
      cin = carryIn ? flagLanes() : splat(bits, 1);
      break;
    case Opcode::Mad:
    case Opcode::Madc:
      first = productHalf(bits, ptx::typeClass(in.type) == ptx::TypeClass::Signed, in.hi);
      second = src(3, bits);
      cin = carryIn ? flagLanes() : splat(bits, 0);
      break;
    default: return false;
    }
    llvm::Value *sum = b.CreateAdd(first, second), *result = b.CreateAdd(sum, cin);
    def(0, result);
    if (in.cc || !carryIn) {
      // CF = the carry out of either addition, in the executing lanes.
      llvm::Value *out = b.CreateOr(b.CreateICmpULT(sum, first), b.CreateICmpULT(result, sum));
      llvm::Value *bitsOut = b.CreateBitCast(out, b.getInt32Ty());
      b.CreateStore(b.CreateOr(b.CreateAnd(flags, b.CreateNot(maskBits)), b.CreateAnd(bitsOut, maskBits)),
                    carryPtr);
    }
    return true;
  }
};

} // namespace

bool lowerCarry(Gen &g, uint32_t pc, llvm::Value *mask, llvm::Value *maskBits) {
  return CarryLowering(g, pc, mask, maskBits).run();
}

} // namespace translator
