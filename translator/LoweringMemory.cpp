// Loads, stores and address conversion as whole-warp vector code
// (emulator/semantics/Memory.cpp): the frame's memory windows, the spans of
// a warp's addresses (from the analyses' facts where they settle them),
// broadcast, consecutive and gathered accesses, per-thread frames (.local,
// device-function .param), kernel parameters and cvta. Any access the fast
// path cannot serve exactly goes to the handler's checked path.
#include "emulator/Memory.h"
#include "emulator/Semantics.h"
#include "translator/Facts.h"
#include "translator/Frame.h"
#include "translator/Lowering.h"

#include <llvm/Analysis/VectorUtils.h>

namespace translator {

using emu::DInstr;
using emu::DOp;
using ptx::Opcode;
using ptx::Type;

namespace {

class MemoryLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;

  bool run() {
    switch (in.opcode) {
    case Opcode::Ld:
    case Opcode::Ldu: return load();
    case Opcode::St: return store();
    case Opcode::Cvta: return cvta();
    default: return false;
    }
  }

private:
  // ---- Memory.cpp: ld, st ----

  /// The space, size and address operand of a scalar access the fast path
  /// may serve (global, shared, or generic), or false.
  bool access(unsigned addrIndex, emu::Space &space, unsigned &size) {
    const DOp &addr = op(addrIndex);
    if (addr.kind != DOp::Addr || in.numOps != 2) return false;
    space = emu::accessSpace(in, addr);
    if (space != emu::Space::Global && space != emu::Space::Shared && space != emu::Space::Generic)
      return false;
    size = emu::byteSize(in.type);
    return ptx::bitWidth(in.type) <= 64 && (size == 1 || size == 2 || size == 4 || size == 8);
  }

  /// Where a warp's access goes, computed before the paths split (so that
  /// the facts dominate and are reused): the span of the executing lanes'
  /// addresses (lo, hi, their OR for alignment), whether all lanes access
  /// one address, and how to form the addresses. Facts about a base
  /// register are computed once per value and reused by every access
  /// [base+imm] with an aligned immediate (Gen::spans_).
  struct Access {
    llvm::Value *lo, *hi, *bits;                         // scalars
    llvm::Value *valid;                                  // i1: lo and hi did not wrap around
    llvm::Value *uniform;                                // i1
    llvm::Value *first;                                  // i32: the first executing lane
    llvm::Value *consecutive;                            // i1: lane l at lo + (l - first) * size
    llvm::Value *halfRows, *halfPoints, *lane0, *lane16; // Gen::Span's, moved by the immediate
    llvm::Value *delta = nullptr;
    uint64_t window = 0; // the frame offset of the window that served it
  };
  Access plan(unsigned addrIndex, unsigned size) {
    const DOp &addr = op(addrIndex);
    Access a;
    if (!addr.hasBase) {
      // One address for every lane.
      a.lo = a.hi = a.bits = b.getInt64(addr.imm);
      a.valid = a.uniform = b.getTrue();
      a.first = b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {maskBits, b.getTrue()});
      a.consecutive = a.halfRows = a.halfPoints = b.getFalse();
      a.lane0 = a.lane16 = a.lo;
      return a;
    }
    const bool alignedImm = addr.imm % size == 0;
    llvm::Value *base = g.loadReg64(addr.reg);
    if (!alignedImm) base = b.CreateAdd(base, b.CreateVectorSplat(kLanes, b.getInt64(addr.imm)));
    const uint64_t imm = alignedImm ? addr.imm : 0; // what is left to add to the span
    const uint8_t fact = g.facts_ ? g.facts_->kind[pc] : uint8_t{AddressFacts::None};
    if (fact == AddressFacts::Uniform) {
      ++g.stats_.uniformAddresses;
      return oneAddress(base, imm);
    }
    if (fact == AddressFacts::Consecutive) {
      ++g.stats_.consecutiveAddresses;
      return fromSpan(consecutiveSpan(base, size), imm);
    }
    return fromSpan(g.span(base, mask, maskBits, size), imm);
  }

  /// The access from the executing lanes' span of the base (Gen::span),
  /// moved by `imm` (a multiple of the size) unless that wraps around.
  Access fromSpan(const Gen::Span &s, uint64_t imm) {
    Access a;
    a.first = s.first;
    a.consecutive = s.consecutive;
    a.uniform = s.uniform;
    a.halfRows = s.halfRows, a.halfPoints = s.halfPoints;
    if (imm == 0) {
      a.lo = s.lo, a.hi = s.hi, a.bits = s.bits, a.valid = s.valid;
      a.lane0 = s.lane0, a.lane16 = s.lane16;
      return a;
    }
    a.lane0 = b.CreateAdd(s.lane0, b.getInt64(imm));
    a.lane16 = b.CreateAdd(s.lane16, b.getInt64(imm));
    a.lo = b.CreateAdd(s.lo, b.getInt64(imm));
    a.hi = b.CreateAdd(s.hi, b.getInt64(imm));
    a.bits = s.bits; // imm is a multiple of size: alignment is the base's
    a.valid = b.CreateAnd(s.valid, static_cast<int64_t>(imm) > 0 ? b.CreateICmpUGE(a.hi, s.hi)
                                                                 : b.CreateICmpULE(a.lo, s.lo));
    return a;
  }

  /// A warp-uniform base (AddressFacts::Uniform): the first executing
  /// lane's address is every lane's.
  Access oneAddress(llvm::Value *base, uint64_t imm) {
    Access a;
    a.first = b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {maskBits, b.getTrue()});
    a.lo = a.hi = a.bits = b.CreateAdd(g.laneOf(base, a.first, 0), b.getInt64(imm));
    a.valid = a.uniform = b.getTrue();
    a.consecutive = a.halfRows = a.halfPoints = b.getFalse();
    a.lane0 = a.lane16 = a.lo;
    return a;
  }

  /// The span of a base that steps by the access size with %tid.x
  /// (AddressFacts::Consecutive): where each warp is one row of the block
  /// (a 1-D block, or %ntid.x a multiple of 32: %tid.x steps by one from lane
  /// to lane, %tid.y and %tid.z stay), it runs from the first executing
  /// lane's address to the last one's, consecutive; in any other shape,
  /// Gen::span's. Decided once per base value on the straight path, like
  /// Gen::span.
  Gen::Span consecutiveSpan(llvm::Value *base, unsigned size) {
    auto key = std::make_tuple(base, mask, size);
    if (auto it = g.spans_.find(key); it != g.spans_.end()) return it->second;
    llvm::BasicBlock *linear = g.newBlock("linear"), *general = g.newBlock("general"),
                     *join = g.newBlock("planned");
    llvm::LoadInst *rows = b.CreateLoad(b.getInt32Ty(), g.frameField(frame::kWarpRows));
    g.tagFrame(rows);
    b.CreateCondBr(b.CreateICmpNE(rows, b.getInt32(0)), linear, general);
    b.SetInsertPoint(linear);
    Gen::Span x;
    x.first = b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {maskBits, b.getTrue()});
    llvm::Value *last =
        b.CreateSub(b.getInt32(kLanes - 1),
                    b.CreateIntrinsic(llvm::Intrinsic::ctlz, {b.getInt32Ty()}, {maskBits, b.getTrue()}));
    x.lo = g.laneOf(base, x.first, 0);
    x.hi = g.laneOf(base, last, kLanes - 1);
    x.bits = x.lo; // every lane's address is lo plus a multiple of the size
    x.consecutive = b.getTrue();
    // Not wrapped around within the warp: the last lane's address is where
    // a consecutive run puts it. A 32-bit index widened on the way (Facts.cpp)
    // that wraps within the warp drops the later lanes by 2^32 times the
    // stride, which this sees.
    llvm::Value *run =
        b.CreateMul(b.CreateZExt(b.CreateSub(last, x.first), b.getInt64Ty()), b.getInt64(size));
    x.valid = b.CreateAnd(b.CreateICmpULE(x.lo, x.hi), b.CreateICmpEQ(b.CreateSub(x.hi, x.lo), run));
    x.uniform = b.CreateICmpEQ(x.lo, x.hi);
    x.halfRows = x.halfPoints = b.getFalse();
    x.lane0 = x.lane16 = x.lo;
    llvm::BasicBlock *fromLinear = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(general);
    Gen::Span y = g.span(base, mask, maskBits, size, false);
    llvm::BasicBlock *fromGeneral = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    const Gen::Span s = g.joinSpans(x, fromLinear, y, fromGeneral);
    return g.spans_.emplace(key, s).first->second;
  }

  /// The executing lanes' addresses (where a path needs them all).
  llvm::Value *addresses(unsigned addrIndex) { return src(addrIndex, 64); }

  /// Whether the fast path serves the access; on it, a.delta turns a device
  /// address into a host one. The frame's window for the space answers most
  /// accesses with scalar compares; the service is asked only when it does
  /// not.
  void direct(Access &a, emu::Space space, unsigned size, llvm::BasicBlock *slow) {
    llvm::Type *i64 = b.getInt64Ty();
    const uint32_t turn = g.nextWindow_++;
    const uint32_t slot = space == emu::Space::Shared ? frame::kSharedWindow
                          : space == emu::Space::Global
                              ? frame::kFirstGlobalWindow + turn % frame::kGlobalWindows
                              : frame::kFirstGenericWindow + turn % frame::kGenericWindows;
    const uint64_t window = frame::kWindows + slot * frame::kWindowBytes;
    a.window = window;
    auto field = [&](uint64_t offset) {
      llvm::LoadInst *v =
          b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), g.frame_, window + offset));
      g.tagFrame(v);
      return v;
    };
    llvm::BasicBlock *check = g.newBlock("span");
    g.branchUnlikely(b.CreateNot(a.valid), slow, check);
    b.SetInsertPoint(check);
    llvm::Value *lo = field(0), *end = field(8);
    llvm::Value *ok = b.CreateICmpEQ(b.CreateAnd(a.bits, b.getInt64(size - 1)), b.getInt64(0));
    ok = b.CreateAnd(ok, b.CreateAnd(b.CreateICmpUGE(a.lo, lo), b.CreateICmpULT(a.hi, end)));
    ok = b.CreateAnd(ok, b.CreateICmpULE(b.getInt64(size), b.CreateSub(end, a.hi)));
    llvm::BasicBlock *windowHit = g.newBlock("window"), *ask = g.newBlock("ask"),
                     *fast = g.newBlock("direct");
    g.branchUnlikely(b.CreateNot(ok), ask, windowHit);
    b.SetInsertPoint(windowHit);
    llvm::Value *cached = field(16);
    b.CreateBr(fast);
    b.SetInsertPoint(ask);
    llvm::Value *answer =
        b.CreateCall(g.directFn_, {g.frame_, b.getInt32(static_cast<uint32_t>(space)), b.getInt32(slot), a.lo,
                                   a.hi, a.bits, b.getInt32(size), g.deltaSlot_});
    llvm::BasicBlock *asked = g.newBlock("asked");
    g.branchUnlikely(b.CreateICmpEQ(answer, b.getInt32(0)), slow, asked);
    b.SetInsertPoint(asked);
    llvm::Value *answered = b.CreateLoad(i64, g.deltaSlot_);
    b.CreateBr(fast);
    b.SetInsertPoint(fast);
    llvm::PHINode *delta = b.CreatePHI(i64, 2);
    delta->addIncoming(cached, windowHit);
    delta->addIncoming(answered, asked);
    a.delta = delta;
  }

  llvm::Value *pointer(llvm::Value *address, const Access &a) {
    return b.CreateIntToPtr(b.CreateAdd(address, a.delta), b.getPtrTy());
  }
  /// lane 0's address in the consecutive pattern.
  llvm::Value *rowStart(const Access &a, unsigned size) {
    return b.CreateSub(a.lo, b.CreateMul(b.CreateZExt(a.first, b.getInt64Ty()), b.getInt64(size)));
  }
  /// The consecutive lanes' values at `at` (lane 0's element): a plain
  /// vector load when the whole warp executes, else a masked one. (A
  /// masked store is microcoded on AMD's cores, and both are slower than
  /// plain ones everywhere.)
  /// A whole warp reading or writing a row of consecutive lanes is most
  /// often one of many warps walking an array upwards (the next warps of
  /// the CTA take the next rows): the rows a few warps ahead are prefetched,
  /// as the hardware prefetcher cannot see the stream through the
  /// scheduling between warps. (A prefetch never faults and loads nothing
  /// into a register: addresses outside the kernel's memory are harmless.)
  void prefetchAhead(llvm::Type *row, llvm::Value *at, bool write) {
    const uint64_t bytes = g.module_->getDataLayout().getTypeStoreSize(row);
    for (uint64_t offset = 0; offset < bytes; offset += 64) {
      llvm::Value *ahead = b.CreateConstGEP1_64(b.getInt8Ty(), at, kPrefetchRows * bytes + offset);
      b.CreateIntrinsic(llvm::Intrinsic::prefetch, {b.getPtrTy()},
                        {ahead, b.getInt32(write ? 1 : 0), b.getInt32(3), b.getInt32(1)});
    }
  }
  static constexpr uint64_t kPrefetchRows = 4;

  llvm::Value *rowLoad(llvm::Type *type, llvm::Value *at) {
    llvm::BasicBlock *whole = g.newBlock("wholewarp"), *some = g.newBlock("somelanes"),
                     *join = g.newBlock("rowloaded");
    g.branchUnlikely(b.CreateICmpNE(maskBits, b.getInt32(~0u)), some, whole);
    b.SetInsertPoint(whole);
    llvm::LoadInst *plain = b.CreateAlignedLoad(type, at, llvm::Align(1));
    g.tagMemory(plain);
    prefetchAhead(type, at, false);
    b.CreateBr(join);
    b.SetInsertPoint(some);
    llvm::CallInst *masked = b.CreateMaskedLoad(type, at, llvm::Align(1), mask);
    g.tagMemory(masked);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    llvm::PHINode *v = b.CreatePHI(type, 2);
    v->addIncoming(plain, whole);
    v->addIncoming(masked, some);
    return v;
  }
  void rowStore(llvm::Value *value, llvm::Value *at) {
    llvm::BasicBlock *whole = g.newBlock("wholewarp"), *some = g.newBlock("somelanes"),
                     *join = g.newBlock("rowstored");
    g.branchUnlikely(b.CreateICmpNE(maskBits, b.getInt32(~0u)), some, whole);
    b.SetInsertPoint(whole);
    g.tagMemory(b.CreateAlignedStore(value, at, llvm::Align(1)));
    prefetchAhead(value->getType(), at, true);
    b.CreateBr(join);
    b.SetInsertPoint(some);
    g.tagMemory(b.CreateMaskedStore(value, at, llvm::Align(1), mask));
    b.CreateBr(join);
    b.SetInsertPoint(join);
  }
  /// Host pointers of every lane's address, as a gather or scatter takes
  /// them.
  llvm::Value *lanePointers(unsigned addrIndex, emu::Space space, const Access &a, unsigned size) {
    llvm::Value *all = addresses(addrIndex);
    // Unchecked, only the first lane was checked (Gen::Span): every lane's
    // access goes inside the window that served it, [lo, end - size],
    // whatever its address (no sum is formed, so none wraps around).
    auto field = [&](uint64_t offset) {
      llvm::LoadInst *v = b.CreateLoad(b.getInt64Ty(), g.frameField(a.window + offset));
      g.tagFrame(v);
      return v;
    };
    if (space == emu::Space::Shared) {
      // Offsets from the start of shared memory (at most 227 KiB): 32 bits,
      // which the hardware gathers twice as wide. The shared window starts
      // at 0, so unchecked lanes need only an upper bound.
      llvm::Value *offsets = b.CreateTrunc(all, g.vec(b.getInt32Ty()));
      if (g.unchecked_) {
        llvm::Value *last = b.CreateTrunc(b.CreateSub(field(8), b.getInt64(size)), b.getInt32Ty());
        offsets = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, offsets, b.CreateVectorSplat(kLanes, last));
      }
      return b.CreateGEP(b.getInt8Ty(), b.CreateIntToPtr(a.delta, b.getPtrTy()), offsets);
    }
    if (g.unchecked_) {
      llvm::Value *lo = field(0), *last = b.CreateSub(field(8), b.getInt64(size));
      all = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, all, b.CreateVectorSplat(kLanes, lo));
      all = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, all, b.CreateVectorSplat(kLanes, last));
    }
    return b.CreateIntToPtr(b.CreateAdd(all, b.CreateVectorSplat(kLanes, a.delta)), g.vec(b.getPtrTy()));
  }

  /// Wraps a memory access: no lane, no access (as in the interpreter);
  /// the checked path is the handler's.
  template <typename Fast> bool memory(unsigned addrIndex, emu::Space space, unsigned size, Fast fast) {
    Access a = plan(addrIndex, size);
    llvm::BasicBlock *work = g.newBlock("mem"), *slow = g.newBlock("checked"), *done = g.newBlock("memdone");
    Paths paths(*this, done);
    llvm::BasicBlock *skip = g.newBlock("nolanes");
    g.branchUnlikely(b.CreateICmpEQ(maskBits, b.getInt32(0)), skip, work);
    b.SetInsertPoint(skip);
    paths.unchanged();
    b.SetInsertPoint(work);
    direct(a, space, size, slow);
    fast(a);
    paths.arrive();
    b.SetInsertPoint(slow);
    paths.handler();
    paths.join();
    return true;
  }

  /// ld.param of a kernel parameter (the handler's uniform read): one
  /// bounds-checked read of the parameter buffer, broadcast.
  bool loadParameter() {
    const DOp &addr = op(1);
    const unsigned size = emu::byteSize(in.type);
    if (op(0).kind != DOp::Reg || addr.kind != DOp::Addr || addr.hasBase || in.numOps != 2) return false;
    if ((size != 1 && size != 2 && size != 4 && size != 8) || ptx::bitWidth(in.type) > 64 || addr.imm % size)
      return false; // misaligned: the handler reports it
    const bool sign = in.type == Type::S8 || in.type == Type::S16 || in.type == Type::S32;
    llvm::Type *i64 = b.getInt64Ty();
    llvm::BasicBlock *work = g.newBlock("param"), *read = g.newBlock("paramread"),
                     *slow = g.newBlock("checked"), *skip = g.newBlock("nolanes"),
                     *done = g.newBlock("paramdone");
    Paths paths(*this, done);
    g.branchUnlikely(b.CreateICmpEQ(maskBits, b.getInt32(0)), skip, work);
    b.SetInsertPoint(skip);
    paths.unchanged();
    b.SetInsertPoint(work);
    llvm::LoadInst *bytes = b.CreateLoad(i64, g.frameField(frame::kParamBytes));
    g.tagFrame(bytes);
    llvm::Value *inside =
        b.CreateAnd(b.CreateICmpULE(b.getInt64(size), bytes),
                    b.CreateICmpULE(b.getInt64(addr.imm), b.CreateSub(bytes, b.getInt64(size))));
    g.branchUnlikely(b.CreateNot(inside), slow, read);
    b.SetInsertPoint(read);
    llvm::LoadInst *base = b.CreateLoad(b.getPtrTy(), g.frameField(frame::kParams));
    g.tagFrame(base);
    llvm::LoadInst *v = b.CreateAlignedLoad(
        g.intTy(size * 8), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, addr.imm), llvm::Align(1));
    llvm::Value *wide = size == 8 ? static_cast<llvm::Value *>(v)
                        : sign    ? b.CreateSExt(v, i64)
                                  : b.CreateZExt(v, i64);
    def(0, b.CreateVectorSplat(kLanes, wide));
    paths.arrive();
    b.SetInsertPoint(slow);
    paths.handler();
    paths.join();
    return true;
  }

  /// cvta (Memory.cpp, cvta): the 64-bit operand moved into or out of the
  /// space's generic window, 32-bit forms truncated.
  bool cvta() {
    if (!writable(0) || !readable({1})) return false;
    const uint64_t window = in.space == emu::Space::Shared  ? emu::kSharedWindow
                            : in.space == emu::Space::Local ? emu::kLocalWindow
                            : in.space == emu::Space::Const ? g.k_.constAddress
                                                            : 0;
    llvm::Value *a = src(1, 64);
    llvm::Value *r =
        in.mods & emu::dmod::To ? b.CreateSub(a, splat(64, window)) : b.CreateAdd(a, splat(64, window));
    if (in.type == Type::U32 || in.type == Type::B32) r = b.CreateAnd(r, splat(64, 0xFFFFFFFFu));
    def(0, r);
    return true;
  }

  /// ld/st of per-thread memory (accessBytes): .local, lane l's bytes at
  /// local + (warp * 32 + l) * localBytes + offset; a device function's
  /// .param frame (Space::Frame), at callFrame + l * frameBytes + offset.
  /// Every executing lane inside its frame and aligned, or the handler
  /// (which reports the lane that is not).
  bool localAccess(bool isLoad, emu::Space space) {
    const unsigned addrIndex = isLoad ? 1 : 0;
    if (op(addrIndex).kind != DOp::Addr || in.numOps != 2) return false;
    const unsigned size = emu::byteSize(in.type);
    if (ptx::bitWidth(in.type) > 64 || (size != 1 && size != 2 && size != 4 && size != 8)) return false;
    if (isLoad ? op(0).kind != DOp::Reg : !readable({1})) return false;
    const bool local = space == emu::Space::Local;
    llvm::Type *i64 = b.getInt64Ty(), *elem = g.intTy(size * 8);
    llvm::Value *offsets = addresses(addrIndex);
    llvm::LoadInst *base =
        b.CreateLoad(b.getPtrTy(), g.frameField(local ? frame::kLocal : frame::kCallFrame));
    g.tagFrame(base);
    llvm::Value *bytes = b.getInt64(g.k_.regions[in.function].frameBytes);
    if (local) {
      llvm::LoadInst *localBytes = b.CreateLoad(i64, g.frameField(frame::kLocalBytes));
      g.tagFrame(localBytes);
      bytes = localBytes;
    }
    llvm::Value *inside = b.CreateAnd(
        b.CreateICmpULE(offsets, b.CreateVectorSplat(kLanes, b.CreateSub(bytes, b.getInt64(size)))),
        b.CreateICmpEQ(b.CreateAnd(offsets, splat(64, size - 1)), splat(64, 0)));
    llvm::Value *bad = b.CreateOrReduce(b.CreateAnd(mask, b.CreateNot(inside)));
    bad = b.CreateOr(bad, b.CreateOr(b.CreateICmpULT(bytes, b.getInt64(size)), b.CreateIsNull(base)));
    unless(bad, [&] {
      llvm::Value *frames = g.perLane(64, [](uint32_t l) { return l; });
      if (local) {
        llvm::Value *warp = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), g.frameField(frame::kWarpIndex)), i64);
        frames = b.CreateAdd(b.CreateVectorSplat(kLanes, b.CreateMul(warp, b.getInt64(kLanes))), frames);
      }
      llvm::Value *at = b.CreateAdd(b.CreateMul(frames, b.CreateVectorSplat(kLanes, bytes)), offsets);
      llvm::Value *pointers = b.CreateGEP(b.getInt8Ty(), base, at);
      if (isLoad) {
        llvm::CallInst *v = b.CreateMaskedGather(g.vec(elem), pointers, llvm::Align(1), mask);
        g.tagMemory(v);
        const bool sign = in.type == Type::S8 || in.type == Type::S16 || in.type == Type::S32;
        def(0, size == 8 ? static_cast<llvm::Value *>(v) : ext(v, 64, sign));
      } else {
        g.tagMemory(b.CreateMaskedScatter(src(1, size * 8), pointers, llvm::Align(1), mask));
      }
    });
    return true;
  }

  bool load() {
    if (emu::accessSpace(in, op(1)) == emu::Space::Param) return loadParameter();
    if (emu::accessSpace(in, op(1)) == emu::Space::Local) return localAccess(true, emu::Space::Local);
    if (emu::accessSpace(in, op(1)) == emu::Space::Frame) return localAccess(true, emu::Space::Frame);
    emu::Space space;
    unsigned size;
    if (!access(1, space, size) || op(0).kind != DOp::Reg) return false;
    const bool sign = in.type == Type::S8 || in.type == Type::S16 || in.type == Type::S32;
    const unsigned bits = size * 8;
    llvm::Type *elem = g.intTy(bits);
    return memory(1, space, size, [&](Access &a) {
      // One address for the whole warp: one read, broadcast (the handler's
      // rule, so that every lane sees one value under concurrent writes).
      llvm::BasicBlock *one = g.newBlock("broadcast"), *spread = g.newBlock("spread"),
                       *row = g.newBlock("consecutive"), *many = g.newBlock("gather"),
                       *join = g.newBlock("loaded");
      b.CreateCondBr(a.uniform, one, spread);
      b.SetInsertPoint(one);
      llvm::LoadInst *scalar = b.CreateAlignedLoad(elem, pointer(a.lo, a), llvm::Align(1));
      g.tagMemory(scalar);
      llvm::Value *broadcast = b.CreateVectorSplat(kLanes, scalar);
      b.CreateBr(join);
      b.SetInsertPoint(spread);
      llvm::BasicBlock *notRow = g.newBlock("notrow"), *points = g.newBlock("halfpoints"),
                       *notPoints = g.newBlock("notpoints"), *rows = g.newBlock("halfrows");
      b.CreateCondBr(a.consecutive, row, notRow);
      b.SetInsertPoint(row);
      llvm::Value *loaded = rowLoad(g.vec(elem), pointer(rowStart(a, size), a));
      row = b.GetInsertBlock();
      b.CreateBr(join);
      // Two rows of a 16-wide block: two half-warp loads, or two values.
      b.SetInsertPoint(notRow);
      b.CreateCondBr(a.halfPoints, points, notPoints);
      b.SetInsertPoint(points);
      llvm::LoadInst *first = b.CreateAlignedLoad(elem, pointer(a.lane0, a), llvm::Align(1));
      llvm::LoadInst *second = b.CreateAlignedLoad(elem, pointer(a.lane16, a), llvm::Align(1));
      g.tagMemory(first), g.tagMemory(second);
      llvm::Value *pair = b.CreateInsertElement(
          b.CreateInsertElement(llvm::PoisonValue::get(llvm::FixedVectorType::get(elem, 2)), first,
                                uint64_t{0}),
          second, uint64_t{1});
      llvm::Value *twoPoints = b.CreateShuffleVector(pair, llvm::createReplicatedMask(kLanes / 2, 2));
      b.CreateBr(join);
      b.SetInsertPoint(notPoints);
      b.CreateCondBr(a.halfRows, rows, many);
      b.SetInsertPoint(rows);
      llvm::Type *half = llvm::FixedVectorType::get(elem, kLanes / 2);
      llvm::LoadInst *low = b.CreateAlignedLoad(half, pointer(a.lane0, a), llvm::Align(1));
      llvm::LoadInst *high = b.CreateAlignedLoad(half, pointer(a.lane16, a), llvm::Align(1));
      g.tagMemory(low), g.tagMemory(high);
      llvm::Value *twoRows = b.CreateShuffleVector(low, high, llvm::createSequentialMask(0, kLanes, 0));
      b.CreateBr(join);
      b.SetInsertPoint(many);
      llvm::CallInst *gathered =
          b.CreateMaskedGather(g.vec(elem), lanePointers(1, space, a, size), llvm::Align(1), mask);
      g.tagMemory(gathered);
      b.CreateBr(join);
      b.SetInsertPoint(join);
      llvm::PHINode *v = b.CreatePHI(g.vec(elem), 5);
      v->addIncoming(broadcast, one);
      v->addIncoming(loaded, row);
      v->addIncoming(twoPoints, points);
      v->addIncoming(twoRows, rows);
      v->addIncoming(gathered, many);
      def(0, bits == 64 ? static_cast<llvm::Value *>(v) : ext(v, 64, sign));
    });
  }

  bool store() {
    if (emu::accessSpace(in, op(0)) == emu::Space::Local) return localAccess(false, emu::Space::Local);
    if (emu::accessSpace(in, op(0)) == emu::Space::Frame) return localAccess(false, emu::Space::Frame);
    emu::Space space;
    unsigned size;
    if (!access(0, space, size) || !readable({1})) return false;
    return memory(0, space, size, [&](Access &a) {
      llvm::Value *value = src(1, size * 8);
      llvm::BasicBlock *row = g.newBlock("consecutive"), *many = g.newBlock("scatter"),
                       *notRow = g.newBlock("notrow"), *rows = g.newBlock("halfrows"),
                       *join = g.newBlock("stored");
      b.CreateCondBr(a.consecutive, row, notRow);
      b.SetInsertPoint(row);
      rowStore(value, pointer(rowStart(a, size), a));
      b.CreateBr(join);
      // Two rows of a 16-wide block: lanes 16-31 stored last, as a scatter
      // orders lanes that write one address.
      b.SetInsertPoint(notRow);
      b.CreateCondBr(a.halfRows, rows, many);
      b.SetInsertPoint(rows);
      g.tagMemory(
          b.CreateAlignedStore(b.CreateShuffleVector(value, llvm::createSequentialMask(0, kLanes / 2, 0)),
                               pointer(a.lane0, a), llvm::Align(1)));
      g.tagMemory(b.CreateAlignedStore(
          b.CreateShuffleVector(value, llvm::createSequentialMask(kLanes / 2, kLanes / 2, 0)),
          pointer(a.lane16, a), llvm::Align(1)));
      b.CreateBr(join);
      b.SetInsertPoint(many);
      g.tagMemory(b.CreateMaskedScatter(value, lanePointers(0, space, a, size), llvm::Align(1), mask));
      b.CreateBr(join);
      b.SetInsertPoint(join);
    });
  }
};

} // namespace

bool lowerMemory(Gen &g, uint32_t pc, llvm::Value *mask, llvm::Value *maskBits) {
  return MemoryLowering(g, pc, mask, maskBits).run();
}

} // namespace translator
