// Instruction bodies as whole-warp vector code. Each form compiled here
// reproduces, bit for bit, the interpreter handler the registry chose for
// it (emulator/semantics/*.cpp, named per group below); everything else is
// left to that handler (Gen::lower returns false). Floating-point forms take
// the common path in vector code and hand the instruction to its handler
// when any lane meets a case it treats specially (a NaN result, a subnormal
// under .ftz), as the interpreter's own fast loop does.
#include "translator/Lowering.h"

#include "emulator/Memory.h"
#include "emulator/Semantics.h"
#include "translator/Facts.h"
#include "translator/Frame.h"
#include "translator/VecMathIR.h"

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace translator {

using emu::DInstr;
using emu::DOp;
using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

namespace {

bool isSigned(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

/// Integer comparison of setp (Integer.cpp, compare<T>): the type's
/// signedness decides for every operator, as the handler's T does.
llvm::CmpInst::Predicate intPredicate(Mod op, bool sign) {
  using P = llvm::CmpInst::Predicate;
  switch (op) {
  case Mod::Eq:
  case Mod::Equ: return P::ICMP_EQ;
  case Mod::Ne:
  case Mod::Neu: return P::ICMP_NE;
  case Mod::Lt:
  case Mod::Lo:
  case Mod::Ltu: return sign ? P::ICMP_SLT : P::ICMP_ULT;
  case Mod::Le:
  case Mod::Ls:
  case Mod::Leu: return sign ? P::ICMP_SLE : P::ICMP_ULE;
  case Mod::Gt:
  case Mod::Hi:
  case Mod::Gtu: return sign ? P::ICMP_SGT : P::ICMP_UGT;
  case Mod::Ge:
  case Mod::Hs:
  case Mod::Geu: return sign ? P::ICMP_SGE : P::ICMP_UGE;
  case Mod::Num: return P::BAD_ICMP_PREDICATE; // always true
  default: return P::BAD_FCMP_PREDICATE;       // always false (Nan, unknown)
  }
}

llvm::CmpInst::Predicate floatPredicate(Mod op) {
  using P = llvm::CmpInst::Predicate;
  switch (op) {
  case Mod::Eq: return P::FCMP_OEQ;
  case Mod::Ne: return P::FCMP_ONE;
  case Mod::Lt:
  case Mod::Lo: return P::FCMP_OLT;
  case Mod::Le:
  case Mod::Ls: return P::FCMP_OLE;
  case Mod::Gt:
  case Mod::Hi: return P::FCMP_OGT;
  case Mod::Ge:
  case Mod::Hs: return P::FCMP_OGE;
  case Mod::Equ: return P::FCMP_UEQ;
  case Mod::Neu: return P::FCMP_UNE;
  case Mod::Ltu: return P::FCMP_ULT;
  case Mod::Leu: return P::FCMP_ULE;
  case Mod::Gtu: return P::FCMP_UGT;
  case Mod::Geu: return P::FCMP_UGE;
  case Mod::Num: return P::FCMP_ORD;
  case Mod::Nan: return P::FCMP_UNO;
  default: return P::FCMP_FALSE;
  }
}

/// The group whose row serves a decoded instruction ("Integer", "Float", ...).
std::string_view groupOf(const DInstr &in) {
  const emu::HandlerRegistry &r = emu::HandlerRegistry::get();
  const emu::HandlerRow *row = r.find(in);
  return row ? r.groupOf(row) : std::string_view{};
}

/// The integer, float, conversion and warp-collective forms.
class Lowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;

  bool run() {
    if (in.vec != 1 || !in.run) return false;
    // PTXVM_JIT_NATIVE=GROUPS compiles only those semantics groups'
    // instructions (Integer,Float,Misc,Memory; "none": every one through
    // its handler), to find which lowering differs from its handler.
    static const char *only = std::getenv("PTXVM_JIT_NATIVE");
    if (only && std::string_view(only).find(groupOf(in)) == std::string_view::npos) return false;
    const std::string_view group = groupOf(in);
    const uint16_t cls = emu::typeClassOf(in.type);
    if (group == "Integer") {
      if (in.opcode == Opcode::Mov) return mov();
      if (in.opcode == Opcode::Selp) return selp();
      if (in.opcode == Opcode::Setp)
        return cls == emu::tclass::Int || cls == emu::tclass::Float ? setp() : false;
      return cls == emu::tclass::Int && integer();
    }
    if (group == "Misc" && cls == emu::tclass::Pred) return predicateLogic();
    if (group == "Convert" && in.opcode == Opcode::Cvt) return convert();
    if (group == "Float" && cls == emu::tclass::Float && in.type0 == in.type) return floating();
    if (group == "Memory") return lowerMemory(g, pc, mask, maskBits);
    if (group == "Extended") return cls == emu::tclass::Int && lowerCarry(g, pc, mask, maskBits);
    if (group == "Warp") return warp();
    return false;
  }

private:
  // ---- Integer.cpp ----

  /// mov of every width but .b128 (Ops<U>::mov), and of predicates
  /// (movPred: bit 0, a negation not applied).
  bool mov() {
    if (op(0).kind == DOp::Vec || op(1).kind == DOp::Vec) return packOrUnpack();
    if (!writable(0) || !readable({1})) return false;
    if (in.type == Type::Pred) {
      def(0, src(1, 1));
      return true;
    }
    unsigned bits = ptx::bitWidth(in.type);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return false;
    def(0, src(1, bits));
    return true;
  }

  /// mov.bN d, {a, b, ...} packs (element 0 in the low bits); mov.bN {a, b,
  /// ...}, d unpacks (Ops<U>::packOrUnpack). Elements are registers,
  /// immediates (packing) or sinks (unpacking).
  bool packOrUnpack() {
    const DOp &d = op(0), &a = op(1);
    const unsigned bits = ptx::bitWidth(in.type);
    const DOp &vec = a.kind == DOp::Vec ? a : d;
    if ((bits != 16 && bits != 32 && bits != 64) || vec.count == 0 || bits % vec.count) return false;
    const unsigned width = bits / vec.count;
    const uint64_t elementMask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    auto element = [&](unsigned e) -> const DOp & { return g.k_.ops[vec.reg + e]; };
    if (a.kind == DOp::Vec) {
      if (d.kind != DOp::Reg && d.kind != DOp::Sink) return false;
      for (unsigned e = 0; e < a.count; ++e)
        if (element(e).kind != DOp::Reg && element(e).kind != DOp::Imm) return false;
      llvm::Value *v = splat(64, 0);
      for (unsigned e = 0; e < a.count; ++e) {
        const DOp &x = element(e);
        llvm::Value *part = x.kind == DOp::Reg ? g.loadReg64(x.reg) : splat(64, x.imm);
        part = b.CreateAnd(part, splat(64, elementMask));
        v = b.CreateOr(v, e ? b.CreateShl(part, splat(64, uint64_t{e} * width)) : part);
      }
      def(0, b.CreateTrunc(v, g.vec(g.intTy(bits))));
      return true;
    }
    if (a.kind != DOp::Reg && a.kind != DOp::Imm) return false;
    for (unsigned e = 0; e < d.count; ++e)
      if (element(e).kind != DOp::Reg && element(e).kind != DOp::Sink) return false;
    llvm::Value *v = a.kind == DOp::Reg ? g.loadReg64(a.reg) : splat(64, a.imm);
    for (unsigned e = 0; e < d.count; ++e) {
      llvm::Value *part = e ? b.CreateLShr(v, splat(64, uint64_t{e} * width)) : v;
      g.storeOperand(element(e), b.CreateAnd(part, splat(64, elementMask)), mask);
    }
    return true;
  }

  /// selp (Ops<U>::selp): bit 0 of c, negation applied, picks a or b.
  bool selp() {
    unsigned bits = ptx::bitWidth(in.type);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return false;
    if (!writable(0) || !readable({1, 2, 3})) return false;
    llvm::Value *a = src(1, bits), *bv = src(2, bits), *c = g.predicate(pc, 3);
    def(0, b.CreateSelect(c, a, bv));
    return true;
  }

  /// setp (setp<T>, setpPlain): p = cmp BOOLOP c, q = !cmp BOOLOP c.
  bool setp() {
    const bool pair = in.numOps == 5 || (in.numOps == 4 && in.op2 == Mod::None);
    const unsigned a = pair ? 2 : 1;
    const bool hasC = in.numOps > a + 2;
    if (!writable(0) || (pair && !writable(1)) || !readable({a, a + 1}) || (hasC && !readable({a + 2})))
      return false;
    const unsigned bits = ptx::bitWidth(in.type);
    llvm::Value *r;
    if (in.type == Type::F32 || in.type == Type::F64) {
      if (in.ftz) return false;
      llvm::Type *f = in.type == Type::F32 ? b.getFloatTy() : b.getDoubleTy();
      llvm::Value *x = b.CreateBitCast(src(a, bits), g.vec(f)),
                  *y = b.CreateBitCast(src(a + 1, bits), g.vec(f));
      r = b.CreateFCmp(floatPredicate(in.op), x, y);
    } else {
      llvm::CmpInst::Predicate p = intPredicate(in.op, isSigned(in.type));
      llvm::Value *x = src(a, bits), *y = src(a + 1, bits);
      if (p == llvm::CmpInst::BAD_ICMP_PREDICATE)
        r = b.CreateVectorSplat(kLanes, b.getTrue());
      else if (p == llvm::CmpInst::BAD_FCMP_PREDICATE)
        r = b.CreateVectorSplat(kLanes, b.getFalse());
      else
        r = b.CreateICmp(p, x, y);
    }
    llvm::Value *c = hasC ? g.predicate(pc, a + 2) : nullptr;
    auto combine = [&](llvm::Value *v) -> llvm::Value * {
      if (!c) return v;
      switch (in.op2) {
      case Mod::And: return b.CreateAnd(v, c);
      case Mod::Or: return b.CreateOr(v, c);
      case Mod::Xor: return b.CreateXor(v, c);
      default: return v;
      }
    };
    def(0, combine(r));
    if (pair) def(1, combine(b.CreateNot(r)));
    return true;
  }

  /// The integer arithmetic, logic and shifts of Ops<T> without .cc/.sat.
  bool integer() {
    const unsigned bits = ptx::bitWidth(in.type);
    const bool sign = isSigned(in.type);
    if (in.cc || !writable(0)) return false;
    switch (in.opcode) {
    case Opcode::Add:
    case Opcode::Sub: {
      if (in.sat || !readable({1, 2})) return false;
      llvm::Value *x = src(1, bits), *y = src(2, bits);
      def(0, in.opcode == Opcode::Add ? b.CreateAdd(x, y) : b.CreateSub(x, y));
      return true;
    }
    case Opcode::Mul: {
      if (!readable({1, 2})) return false;
      if (in.wide) {
        if (bits > 32) return false;
        // product() in a 64-bit integer of the type's signedness, all 64 bits kept.
        def(0, b.CreateMul(ext(src(1, bits), 64, sign), ext(src(2, bits), 64, sign)));
      } else if (in.hi) {
        if (bits > 32) return false;
        def(0, productHalf(bits, sign, true));
      } else {
        def(0, b.CreateMul(src(1, bits), src(2, bits)));
      }
      return true;
    }
    case Opcode::Mad: {
      if (!readable({1, 2, 3})) return false;
      if (in.wide) {
        if (bits > 32) return false;
        // product(a, b) + c, c read as its whole 64-bit register.
        llvm::Value *p = b.CreateMul(ext(src(1, bits), 64, sign), ext(src(2, bits), 64, sign));
        def(0, b.CreateAdd(p, src(3, 64)));
      } else if (in.hi) {
        if (in.sat || bits > 32) return false;
        def(0, b.CreateAdd(productHalf(bits, sign, true), src(3, bits)));
      } else {
        def(0, b.CreateAdd(b.CreateMul(src(1, bits), src(2, bits)), src(3, bits)));
      }
      return true;
    }
    case Opcode::Div:
    case Opcode::Rem: {
      // The handler's answers where LLVM's division is undefined: all ones
      // by zero; INT_MIN / -1 wraps and x % -1 is 0 (divided by 1 instead).
      if (!readable({1, 2})) return false;
      llvm::Value *x = src(1, bits), *y = src(2, bits);
      llvm::Value *byZero = b.CreateICmpEQ(y, splat(bits, 0)), *one = splat(bits, 1), *byOne = byZero;
      if (sign) {
        llvm::Value *minusOne = b.CreateICmpEQ(y, splat(bits, ~0ull));
        byOne = b.CreateOr(byOne,
                           in.opcode == Opcode::Rem
                               ? minusOne
                               : b.CreateAnd(minusOne, b.CreateICmpEQ(x, splat(bits, 1ull << (bits - 1)))));
      }
      llvm::Value *d = b.CreateSelect(byOne, one, y);
      llvm::Value *q = in.opcode == Opcode::Div ? (sign ? b.CreateSDiv(x, d) : b.CreateUDiv(x, d))
                                                : (sign ? b.CreateSRem(x, d) : b.CreateURem(x, d));
      def(0, b.CreateSelect(byZero, splat(bits, ~0ull), q));
      return true;
    }
    case Opcode::Min:
    case Opcode::Max: {
      if (in.mods || !readable({1, 2})) return false;
      llvm::Value *x = src(1, bits), *y = src(2, bits);
      llvm::Intrinsic::ID id = in.opcode == Opcode::Min
                                   ? (sign ? llvm::Intrinsic::smin : llvm::Intrinsic::umin)
                                   : (sign ? llvm::Intrinsic::smax : llvm::Intrinsic::umax);
      def(0, b.CreateBinaryIntrinsic(id, x, y));
      return true;
    }
    case Opcode::Abs:
    case Opcode::Neg: {
      if (!readable({1})) return false;
      llvm::Value *x = src(1, bits), *negated = b.CreateSub(splat(bits, 0), x);
      if (in.opcode == Opcode::Neg)
        def(0, negated);
      else
        def(0, sign ? b.CreateSelect(b.CreateICmpSLT(x, splat(bits, 0)), negated, x) : x);
      return true;
    }
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor: {
      if (!readable({1, 2})) return false;
      llvm::Value *x = src(1, bits), *y = src(2, bits);
      def(0, in.opcode == Opcode::And  ? b.CreateAnd(x, y)
             : in.opcode == Opcode::Or ? b.CreateOr(x, y)
                                       : b.CreateXor(x, y));
      return true;
    }
    case Opcode::Not:
    case Opcode::Cnot: {
      if (!readable({1})) return false;
      llvm::Value *x = src(1, bits);
      def(0, in.opcode == Opcode::Not ? b.CreateNot(x) : b.CreateICmpEQ(x, splat(bits, 0)));
      return true;
    }
    case Opcode::Shl:
    case Opcode::Shr: {
      // Amounts are unsigned 32-bit and clamp at the width: shl gives 0,
      // shr the sign (signed) or 0.
      if (!readable({1, 2})) return false;
      llvm::Value *x = src(1, bits), *s = src(2, 32);
      llvm::Value *over = b.CreateICmpUGE(s, b.CreateVectorSplat(kLanes, b.getInt32(bits)));
      llvm::Value *amount = b.CreateZExtOrTrunc(
          b.CreateAnd(s, b.CreateVectorSplat(kLanes, b.getInt32(bits - 1))), g.vec(g.intTy(bits)));
      llvm::Value *r;
      if (in.opcode == Opcode::Shl)
        r = b.CreateSelect(over, splat(bits, 0), b.CreateShl(x, amount));
      else if (sign)
        r = b.CreateAShr(x, b.CreateSelect(over, splat(bits, bits - 1), amount));
      else
        r = b.CreateSelect(over, splat(bits, 0), b.CreateLShr(x, amount));
      def(0, r);
      return true;
    }
    default: return false;
    }
  }

  // ---- Misc.cpp: predicate logic ----

  bool predicateLogic() {
    const bool binary = in.opcode == Opcode::And || in.opcode == Opcode::Or || in.opcode == Opcode::Xor;
    if (!binary && in.opcode != Opcode::Not) return false;
    if (!writable(0) || !readable({1}) || (binary && !readable({2}))) return false;
    llvm::Value *x = g.predicate(pc, 1);
    if (!binary) {
      def(0, b.CreateNot(x));
      return true;
    }
    llvm::Value *y = g.predicate(pc, 2);
    def(0, in.opcode == Opcode::And  ? b.CreateAnd(x, y)
           : in.opcode == Opcode::Or ? b.CreateOr(x, y)
                                     : b.CreateXor(x, y));
    return true;
  }

  // ---- Float.cpp: add, sub, mul, fma/mad, and div, sqrt, rcp .rn in round-to-nearest ----

  bool floating() {
    if (in.type != Type::F32 && in.type != Type::F64) return false;
    unsigned n;
    bool onlyRn = false; // div, sqrt and rcp without .rn are .approx/.full forms
    switch (in.opcode) {
    case Opcode::Abs:
    case Opcode::Neg: return signBit();
    case Opcode::Ex2:
      return in.type == Type::F32 && approxF32([](VecMathIR &m, llvm::Value *x) { return m.exp2(x); });
    case Opcode::Lg2:
      return in.type == Type::F32 && approxF32([](VecMathIR &m, llvm::Value *x) { return m.log2(x); });
    case Opcode::Tanh:
      return in.type == Type::F32 && approxF32([](VecMathIR &m, llvm::Value *x) { return m.tanh(x); });
    case Opcode::Sin:
    case Opcode::Cos: {
      const bool cosine = in.opcode == Opcode::Cos;
      return in.type == Type::F32 &&
             approxF32([&](VecMathIR &m, llvm::Value *x) { return m.sinCos(x, cosine); }, true);
    }
    case Opcode::Sqrt:
    case Opcode::Rcp:
    case Opcode::Rsqrt:
      if (in.rounding == Mod::None)
        return in.type == Type::F32 &&
               approxF32([&](VecMathIR &, llvm::Value *x) { return reciprocalOrRoot(x); });
      if (in.opcode == Opcode::Rsqrt) return false;
      n = 1, onlyRn = true;
      break;
    case Opcode::Div:
      if (in.rounding == Mod::None) return in.type == Type::F32 && divApproxOrFull();
      n = 2, onlyRn = true;
      break;
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul: n = 2; break;
    case Opcode::Fma:
    case Opcode::Mad: n = 3; break;
    default: return false;
    }
    if (in.mods || (in.rounding != Mod::Rn && (onlyRn || in.rounding != Mod::None))) return false;
    if (!writable(0) || !readable({1}) || (n >= 2 && !readable({2})) || (n == 3 && !readable({3})))
      return false;
    const bool f32 = in.type == Type::F32;
    const unsigned bits = f32 ? 32 : 64;
    llvm::Type *ft = g.vec(f32 ? b.getFloatTy() : b.getDoubleTy());
    llvm::Value *x = b.CreateBitCast(src(1, bits), ft);
    llvm::Value *y = n >= 2 ? b.CreateBitCast(src(2, bits), ft) : nullptr;
    llvm::Value *z = n == 3 ? b.CreateBitCast(src(3, bits), ft) : nullptr;
    llvm::Value *r;
    switch (in.opcode) {
    case Opcode::Add: r = b.CreateFAdd(x, y); break;
    case Opcode::Sub: r = b.CreateFSub(x, y); break;
    case Opcode::Mul: r = b.CreateFMul(x, y); break;
    case Opcode::Div: r = b.CreateFDiv(x, y); break;
    case Opcode::Rcp: r = b.CreateFDiv(llvm::ConstantFP::get(ft, 1.0), x); break;
    case Opcode::Sqrt: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x); break;
    default: r = b.CreateIntrinsic(llvm::Intrinsic::fma, {ft}, {x, y, z}); break;
    }
    // The handler's special cases: a NaN result (canonical for f32,
    // propagated by position for f64); under .ftz any subnormal operand or a
    // result at or below the smallest normal.
    llvm::Value *special = b.CreateFCmpUNO(r, r);
    if (in.ftz) {
      llvm::Value *smallest = llvm::ConstantFP::get(ft, f32 ? double(FLT_MIN) : DBL_MIN);
      llvm::Value *zero = llvm::ConstantFP::get(ft, 0.0);
      auto tiny = [&](llvm::Value *v) {
        llvm::Value *a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
        return b.CreateAnd(b.CreateFCmpOLE(a, smallest), b.CreateFCmpONE(v, zero));
      };
      special = b.CreateOr(special, b.CreateOr(tiny(x), tiny(r)));
      if (y) special = b.CreateOr(special, tiny(y));
      if (z) special = b.CreateOr(special, tiny(z));
    }
    unlessSpecial(special, [&] {
      if (in.sat) {
        // Clamped to [0, 1]; -0 gives +0 (NaN took the handler's path).
        llvm::Value *one = llvm::ConstantFP::get(ft, 1.0), *zero = llvm::ConstantFP::get(ft, 0.0);
        r = b.CreateSelect(b.CreateFCmpOGT(r, zero), b.CreateSelect(b.CreateFCmpOGT(r, one), one, r), zero);
      }
      def(0, b.CreateBitCast(r, g.vec(g.intTy(bits))));
    });
    return true;
  }

  /// ex2, lg2, tanh, sin, cos, rcp, sqrt and rsqrt .approx{.ftz}.f32
  /// (F<float>::approx and F<float>::trig): the function of the widened
  /// input in <32 x double> (emu::vecmath's step for step, VecMathIR.h),
  /// rounded to f32; .ftz flushes the input and the result (a result of
  /// ±FLT_MIN stays: these have no tiny-before-rounding case); a NaN result
  /// is the canonical NaN. Every lane in vector code, but for sin and cos
  /// beyond the range VecMath reduces exactly (and inf, NaN), which the
  /// handler gives libm.
  template <typename Body> bool approxF32(Body body, bool trig = false) {
    if (in.mods || !writable(0) || !readable({1})) return false;
    auto compute = [&](llvm::Value *input) {
      VecMathIR math(b);
      llvm::Type *f32 = g.vec(b.getFloatTy());
      llvm::Value *x = b.CreateFPExt(b.CreateBitCast(flushedF32(input), f32), g.vec(b.getDoubleTy()));
      llvm::Value *out =
          flushedF32(b.CreateBitCast(b.CreateFPTrunc(body(math, x), f32), g.vec(b.getInt32Ty())));
      llvm::Value *nan = b.CreateICmpUGT(b.CreateAnd(out, splat(32, 0x7FFFFFFFu)), splat(32, 0x7F800000u));
      def(0, b.CreateSelect(nan, splat(32, 0x7FFFFFFFu), out));
    };
    llvm::Value *input = src(1, 32);
    if (!trig) {
      compute(input);
      return true;
    }
    llvm::Value *magnitude = b.CreateAnd(input, splat(32, 0x7FFFFFFFu));
    unlessSpecial(b.CreateICmpUGT(magnitude, splat(32, emu::vecmath::kTrigLimitF32)),
                  [&] { compute(input); });
    return true;
  }
  /// A subnormal f32 (as bits) to a zero of its sign under .ftz.
  llvm::Value *flushedF32(llvm::Value *bits) {
    if (!in.ftz) return bits;
    llvm::Value *noExponent = b.CreateICmpEQ(b.CreateAnd(bits, splat(32, 0x7F800000u)), splat(32, 0));
    return b.CreateSelect(noExponent, b.CreateAnd(bits, splat(32, 0x80000000u)), bits);
  }
  /// rcpD, sqrtD and rsqrtD of Float.cpp on <32 x double>.
  llvm::Value *reciprocalOrRoot(llvm::Value *x) {
    llvm::Value *one = llvm::ConstantFP::get(x->getType(), 1.0);
    if (in.opcode == Opcode::Rcp) return b.CreateFDiv(one, x);
    llvm::Value *root = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    return in.opcode == Opcode::Sqrt ? root : b.CreateFDiv(one, root);
  }

  /// div.approx{.ftz}.f32 and div.full{.ftz}.f32 (F<float>::divApprox,
  /// divFull) after lanes<float, 2>'s flushes. A NaN result, or under .ftz
  /// one of ±FLT_MIN (tiny before rounding, perhaps), is the handler's.
  bool divApproxOrFull() {
    if ((in.mods & ~emu::dmod::Full) || !writable(0) || !readable({1, 2})) return false;
    llvm::Type *f32 = g.vec(b.getFloatTy());
    llvm::Value *x = b.CreateBitCast(flushedF32(src(1, 32)), f32);
    llvm::Value *yBits = flushedF32(src(2, 32));
    llvm::Value *y = b.CreateBitCast(yBits, f32);
    llvm::Value *r = b.CreateFDiv(x, y);
    if (!(in.mods & emu::dmod::Full)) {
      // a * (1/b), the reciprocal flushed; a subnormal b (not flushed) gives
      // the quotient.
      llvm::Value *reciprocal = b.CreateFDiv(llvm::ConstantFP::get(f32, 1.0), y);
      llvm::Value *recipBits = b.CreateBitCast(reciprocal, g.vec(b.getInt32Ty()));
      llvm::Value *noExponent = b.CreateICmpEQ(b.CreateAnd(recipBits, splat(32, 0x7F800000u)), splat(32, 0));
      reciprocal = b.CreateBitCast(
          b.CreateSelect(noExponent, b.CreateAnd(recipBits, splat(32, 0x80000000u)), recipBits), f32);
      llvm::Value *subnormalY =
          b.CreateICmpULT(b.CreateAnd(yBits, splat(32, 0x7FFFFFFFu)), splat(32, 0x00800000u));
      r = b.CreateSelect(subnormalY, r, b.CreateFMul(x, reciprocal));
    }
    llvm::Value *out = flushedF32(b.CreateBitCast(r, g.vec(b.getInt32Ty())));
    llvm::Value *magnitude = b.CreateAnd(out, splat(32, 0x7FFFFFFFu));
    llvm::Value *special = b.CreateICmpUGT(magnitude, splat(32, 0x7F800000u));
    if (in.ftz) special = b.CreateOr(special, b.CreateICmpEQ(magnitude, splat(32, 0x00800000u)));
    unlessSpecial(special, [&] { def(0, out); });
    return true;
  }

  /// abs and neg of f32/f64 (F<T>::abs, neg): the sign bit, after .ftz has
  /// flushed a subnormal to a zero of its sign; a NaN gives the canonical
  /// NaN for f32 and stays as it is for f64 (as measured on the H100).
  bool signBit() {
    if (in.mods || !writable(0) || !readable({1})) return false;
    const bool f32 = in.type == Type::F32;
    const unsigned bits = f32 ? 32 : 64;
    const uint64_t sign = uint64_t{1} << (bits - 1), exponent = f32 ? 0x7F800000u : 0x7FF0000000000000ull;
    llvm::Value *v = src(1, bits);
    if (in.ftz) {
      llvm::Value *noExponent = b.CreateICmpEQ(b.CreateAnd(v, splat(bits, exponent)), splat(bits, 0));
      v = b.CreateSelect(noExponent, b.CreateAnd(v, splat(bits, sign)), v);
    }
    llvm::Value *nan = b.CreateICmpUGT(b.CreateAnd(v, splat(bits, ~sign)), splat(bits, exponent));
    llvm::Value *r =
        in.opcode == Opcode::Abs ? b.CreateAnd(v, splat(bits, ~sign)) : b.CreateXor(v, splat(bits, sign));
    def(0, b.CreateSelect(nan, f32 ? splat(bits, 0x7FFFFFFFu) : v, r));
    return true;
  }

  // ---- Warp.cpp: shfl, vote, redux, activemask ----
  // Compiled where every executing lane's member mask is exactly the
  // executing lanes. Anything else (tiles of a warp with a mask per lane, a
  // lane outside its mask, a named lane elsewhere, a partial warp's
  // shuffle) is the handler's, with its diagnostics.

  bool warp() {
    switch (in.opcode) {
    case Opcode::Shfl:
    case Opcode::ShflSync: return shfl();
    case Opcode::Vote:
    case Opcode::VoteSync: return vote();
    case Opcode::ReduxSync: return redux();
    case Opcode::Activemask:
      if (!writable(0)) return false;
      def(0, b.CreateVectorSplat(kLanes, maskBits));
      return true;
    default: return false;
    }
  }

  llvm::Value *laneIds() {
    return g.perLane(32, [](uint32_t l) { return l; });
  }

  /// i1: membermask operand `index` is, in every executing lane, exactly
  /// the executing lanes (then every lane's group is the same, and
  /// memberMasks() has nothing to report).
  llvm::Value *exactMembers(unsigned index) {
    llvm::Value *same = b.CreateICmpEQ(src(index, 32), b.CreateVectorSplat(kLanes, maskBits));
    return b.CreateAndReduce(b.CreateOr(same, b.CreateNot(mask)));
  }

  /// Lane l of the result is lane j[l] of `values` (j in [0, 32)): a
  /// shuffle when j is known here, else a gather from the scratch array.
  llvm::Value *permute(llvm::Value *values, llvm::Value *j) {
    if (auto *c = llvm::dyn_cast<llvm::Constant>(j)) {
      std::vector<int> lanes;
      for (uint32_t l = 0; l < kLanes; ++l)
        if (auto *e = llvm::dyn_cast_or_null<llvm::ConstantInt>(c->getAggregateElement(l)))
          lanes.push_back(static_cast<int>(e->getZExtValue() & 31));
      if (lanes.size() == kLanes) return b.CreateShuffleVector(values, lanes);
    }
    b.CreateAlignedStore(values, g.scratch_, llvm::Align(64));
    llvm::Value *at = b.CreateGEP(b.getInt32Ty(), g.scratch_, j);
    return b.CreateMaskedGather(g.vec(b.getInt32Ty()), at, llvm::Align(4));
  }

  /// shfl{.sync}.mode.b32 d{|p}, a, b, c{, membermask} (shfl<Mode, Sync>,
  /// shflSource) on a whole warp.
  bool shfl() {
    const bool sync = in.opcode == Opcode::ShflSync || (in.mods & emu::dmod::Sync);
    if (in.type != Type::B32) return false;
    const bool pair = in.numOps == (sync ? 6u : 5u);
    const unsigned a = pair ? 2 : 1;
    const Mod mode = in.op;
    if (mode != Mod::Up && mode != Mod::Down && mode != Mod::Bfly && mode != Mod::Idx) return false;
    if (!writable(0) || (pair && !writable(1)) || !readable({a, a + 1, a + 2}) ||
        (sync && !readable({a + 3})))
      return false;
    llvm::Value *whole = b.CreateICmpEQ(maskBits, b.getInt32(~0u));
    if (sync) whole = b.CreateAnd(whole, exactMembers(a + 3));
    unless(b.CreateNot(whole), [&] {
      llvm::Value *lane = laneIds(), *values = src(a, 32), *bv = src(a + 1, 32), *cv = src(a + 2, 32);
      llvm::Value *bval = b.CreateAnd(bv, splat(32, 31)), *cval = b.CreateAnd(cv, splat(32, 31));
      llvm::Value *seg = b.CreateAnd(b.CreateLShr(cv, splat(32, 8)), splat(32, 31));
      llvm::Value *notSeg = b.CreateNot(seg);
      llvm::Value *maxLane = b.CreateOr(b.CreateAnd(lane, seg), b.CreateAnd(cval, notSeg));
      llvm::Value *from, *inRange;
      switch (mode) {
      case Mod::Up:
        from = b.CreateSub(lane, bval);
        inRange = b.CreateICmpSGE(from, maxLane);
        break;
      case Mod::Down:
        from = b.CreateAdd(lane, bval);
        inRange = b.CreateICmpSLE(from, maxLane);
        break;
      case Mod::Bfly:
        from = b.CreateXor(lane, bval);
        inRange = b.CreateICmpSLE(from, maxLane);
        break;
      default:
        from = b.CreateOr(b.CreateAnd(lane, seg), b.CreateAnd(bval, notSeg));
        inRange = b.CreateICmpSLE(from, maxLane);
        break;
      }
      def(0, permute(values, b.CreateSelect(inRange, from, lane)));
      if (pair) def(1, inRange);
    });
    if (pair) g.cache_.erase(op(1).reg);
    return true;
  }

  /// vote{.sync}.mode (vote): over the executing lanes' predicate.
  bool vote() {
    const bool sync = in.numOps == 3;
    if (!writable(0) || !readable({1}) || (sync && !readable({2}))) return false;
    const Mod mode = in.op == Mod::None ? Mod::Uni : in.op;
    auto body = [&] {
      llvm::Value *yes = b.CreateAnd(b.CreateBitCast(g.predicate(pc, 1), b.getInt32Ty()), maskBits);
      llvm::Value *r;
      switch (mode) {
      case Mod::All: r = b.CreateICmpEQ(yes, maskBits); break;
      case Mod::Any: r = b.CreateICmpNE(yes, b.getInt32(0)); break;
      case Mod::Ballot: r = yes; break;
      default: r = b.CreateOr(b.CreateICmpEQ(yes, b.getInt32(0)), b.CreateICmpEQ(yes, maskBits)); break;
      }
      def(0, b.CreateVectorSplat(kLanes, r));
    };
    if (sync)
      unless(b.CreateNot(exactMembers(2)), body);
    else
      body();
    return true;
  }

  /// redux.sync.op.{s32,u32,b32} (redux<T, Op>): one reduction over the
  /// executing lanes, in every one of them.
  bool redux() {
    const bool sign = in.type == Type::S32;
    if (!sign && in.type != Type::U32 && in.type != Type::B32) return false;
    if (!writable(0) || !readable({1, 2})) return false;
    if (in.op != Mod::Add && in.op != Mod::Min && in.op != Mod::Max && in.op != Mod::And &&
        in.op != Mod::Or && in.op != Mod::Xor)
      return false;
    unless(b.CreateNot(exactMembers(2)), [&] {
      uint32_t identity = 0;
      if (in.op == Mod::And) identity = ~0u;
      if (in.op == Mod::Min) identity = sign ? 0x7FFFFFFFu : ~0u;
      if (in.op == Mod::Max) identity = sign ? 0x80000000u : 0u;
      llvm::Value *v = b.CreateSelect(mask, src(1, 32), splat(32, identity)), *r;
      switch (in.op) {
      case Mod::Add: r = b.CreateAddReduce(v); break;
      case Mod::Min: r = b.CreateIntMinReduce(v, sign); break;
      case Mod::Max: r = b.CreateIntMaxReduce(v, sign); break;
      case Mod::And: r = b.CreateAndReduce(v); break;
      case Mod::Or: r = b.CreateOrReduce(v); break;
      default: r = b.CreateXorReduce(v); break;
      }
      def(0, b.CreateVectorSplat(kLanes, r));
    });
    return true;
  }

  // ---- Convert.cpp: cvt between integers, f32 and f64 ----

  struct Kind {
    bool integer = false, sign = false, floating = false;
    unsigned bits = 0;
  };
  static Kind kindOf(Type t) {
    switch (t) {
    case Type::S8: return {true, true, false, 8};
    case Type::S16: return {true, true, false, 16};
    case Type::S32: return {true, true, false, 32};
    case Type::S64: return {true, true, false, 64};
    case Type::U8: return {true, false, false, 8};
    case Type::U16: return {true, false, false, 16};
    case Type::U32: return {true, false, false, 32};
    case Type::U64: return {true, false, false, 64};
    case Type::F32: return {false, false, true, 32};
    case Type::F64: return {false, false, true, 64};
    default: return {};
    }
  }

  /// cvt (Convert.cpp, convert()): integer results sign- or zero-extended
  /// by the destination's type; float results as their bits. Forms with
  /// .sat, .ftz, .relu or .satfinite, f16/bf16 and the narrow formats stay
  /// with the handler, as do lanes with a NaN operand (PTX's NaN results).
  bool convert() {
    const Kind d = kindOf(in.type0), a = kindOf(in.type);
    if ((!d.integer && !d.floating) || (!a.integer && !a.floating)) return false;
    const bool integralRounding = in.rounding == Mod::Rni || in.rounding == Mod::Rzi ||
                                  in.rounding == Mod::Rmi || in.rounding == Mod::Rpi;
    if (in.type0 == Type::F32 && in.type == Type::F32 && !integralRounding) return convertF32ToF32();
    if (in.sat || in.ftz || in.mods || in.numOps != 2 || !writable(0) || !readable({1})) return false;
    llvm::Value *x = src(1, a.bits);
    auto intResult = [&](llvm::Value *v) { return ext(v, 64, d.sign); };
    if (a.integer && d.integer) {
      if (in.rounding != Mod::None) return false;
      llvm::Value *v = d.bits <= a.bits ? b.CreateTrunc(x, g.vec(g.intTy(d.bits))) : ext(x, d.bits, a.sign);
      def(0, intResult(v));
      return true;
    }
    llvm::Type *df = d.floating ? g.vec(d.bits == 32 ? b.getFloatTy() : b.getDoubleTy()) : nullptr;
    if (a.integer) {
      // To f32/f64 in round-to-nearest: the host's conversion rounds so.
      if (in.rounding != Mod::None && in.rounding != Mod::Rn) return false;
      llvm::Value *v = a.sign ? b.CreateSIToFP(x, df) : b.CreateUIToFP(x, df);
      def(0, b.CreateBitCast(v, g.vec(g.intTy(d.bits))));
      return true;
    }
    llvm::Type *af = g.vec(a.bits == 32 ? b.getFloatTy() : b.getDoubleTy());
    llvm::Value *f = b.CreateBitCast(x, af);
    llvm::Value *result;
    if (d.integer) {
      // Rounded to an integral value, then saturated into the type (NaN is
      // the handler's).
      llvm::Intrinsic::ID round;
      switch (in.rounding) {
      case Mod::Rzi: round = llvm::Intrinsic::trunc; break;
      case Mod::Rmi: round = llvm::Intrinsic::floor; break;
      case Mod::Rpi: round = llvm::Intrinsic::ceil; break;
      case Mod::Rni: round = llvm::Intrinsic::roundeven; break;
      default: return false;
      }
      llvm::Value *r = b.CreateUnaryIntrinsic(round, f);
      llvm::Type *it = g.vec(g.intTy(d.bits));
      result = intResult(b.CreateIntrinsic(d.sign ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                                           {it, af}, {r}));
    } else if (a.bits == 32 && d.bits == 64) {
      if (in.rounding != Mod::None) return false;
      result = b.CreateBitCast(b.CreateFPExt(f, df), g.vec(b.getInt64Ty()));
    } else if (a.bits == 64 && d.bits == 32) {
      if (in.rounding != Mod::None && in.rounding != Mod::Rn) return false;
      result = b.CreateBitCast(b.CreateFPTrunc(f, df), g.vec(b.getInt32Ty()));
    } else {
      return false; // f32 to f32 (rounding to integral values): the handler's
    }
    unlessSpecial(b.CreateFCmpUNO(f, f), [&] { def(0, result); });
    return true;
  }

  /// cvt{.rnd}{.ftz}{.sat}.f32.f32 (cvtF32ToF32): the value is exact in
  /// its own format, so only the bits change: flushed under .ftz, a NaN
  /// made canonical, and under .sat NaN and every value with the sign bit
  /// +0, positive ones capped at 1.0 (they order as their bits).
  bool convertF32ToF32() {
    if (in.mods || in.numOps != 2 || !writable(0) || !readable({1})) return false;
    llvm::Value *v = flushedF32(src(1, 32));
    llvm::Value *nan = b.CreateICmpUGT(b.CreateAnd(v, splat(32, 0x7FFFFFFFu)), splat(32, 0x7F800000u));
    v = b.CreateSelect(nan, splat(32, 0x7FFFFFFFu), v);
    if (in.sat)
      v = b.CreateSelect(b.CreateICmpUGT(v, splat(32, 0x7F800000u)), splat(32, 0),
                         b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v, splat(32, 0x3F800000u)));
    def(0, v);
    return true;
  }
};

} // namespace

bool Gen::lower(uint32_t pc, llvm::Value *mask, llvm::Value *maskBits) {
  return Lowering(*this, pc, mask, maskBits).run();
}

} // namespace translator
