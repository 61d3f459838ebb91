// IR -> Kernel: registers resolved, immediates inline, symbols resolved to
// addresses, branch targets and reconvergence points computed, a handler
// chosen per instruction. Runs once per kernel.
#include "analysis/BarrierCheck.h"
#include "analysis/DefUse.h"
#include "analysis/Liveness.h"
#include "analysis/PostDominators.h"
#include "emulator/Device.h"
#include "emulator/Limits.h"
#include "emulator/Semantics.h"
#include "ptx/Layout.h"
#include "ptx/Writer.h"

#include <cstring>
#include <optional>
#include <unordered_set>

namespace emu {

using namespace limits;

namespace {

/// Kernel::entrySlots: the registers live on entry to the kernel (read on
/// some path before any write; a guarded write keeps them live), and every
/// register a shuffle reads (it may read a lane that never wrote it).
std::vector<uint32_t> entrySlots(const ptx::Module &m, const ptx::Function &kernel,
                                 const CodeRegion &region) {
  std::vector<uint8_t> zero(region.numRegisters, 0);
  auto mark = [&](uint32_t r) {
    if (r >= kernel.numRegisters) return;
    zero[r] = 1;
    if (region.highSlot[r]) zero[region.highSlot[r]] = 1;
  };
  analysis::Cfg cfg(kernel);
  if (cfg.numBlocks() > 0) {
    analysis::DefUse du(m, kernel);
    analysis::Liveness live(cfg, du);
    for (uint32_t v : live.liveIn(cfg.entry()))
      if (du.isRegister(v)) mark(v);
  }
  for (const ptx::Instruction &in : kernel.instrs)
    if (in.opcode == ptx::Opcode::Shfl || in.opcode == ptx::Opcode::ShflSync)
      for (const ptx::Operand &op : kernel.operandsOf(in))
        if (op.kind == ptx::OperandKind::Register) mark(op.id);
  std::vector<uint32_t> slots;
  for (uint32_t slot = 0; slot < zero.size(); ++slot)
    if (zero[slot]) slots.push_back(slot);
  return slots;
}

} // namespace

uint32_t dmodOf(ptx::Mod m) {
  using ptx::Mod;
  switch (m) {
  case Mod::Relu: return dmod::Relu;
  case Mod::MemSurfP: return dmod::Formatted;
  case Mod::NaN: return dmod::NaN;
  case Mod::XorSign: return dmod::XorSign;
  case Mod::Abs: return dmod::Abs;
  case Mod::Full: return dmod::Full;
  case Mod::SatF: return dmod::SatFinite;
  case Mod::Sync: return dmod::Sync;
  case Mod::Clamp: return dmod::Clamp;
  case Mod::Shiftamt: return dmod::Shiftamt;
  case Mod::Left: return dmod::Left;
  case Mod::MemTo: return dmod::To;
  case Mod::Global: return dmod::Global;
  case Mod::MemExpectTx: return dmod::ExpectTx;
  case Mod::MemNoComplete: return dmod::NoComplete;
  case Mod::MemParity: return dmod::Parity;
  case Mod::MemNoinc: return dmod::Noinc;
  case Mod::MemCpMask: return dmod::CpMask;
  case Mod::MemBulkGroup: return dmod::BulkGroup;
  case Mod::MemCompleteTxBytes: return dmod::CompleteTxBytes;
  case Mod::VmadPo: return dmod::VmadPo;
  case Mod::VmadShr7: return dmod::VmadShr7;
  case Mod::VmadShr15: return dmod::VmadShr15;
  case Mod::PrmtF4e: return dmod::PrmtF4e;
  case Mod::PrmtB4e: return dmod::PrmtB4e;
  case Mod::PrmtRc8: return dmod::PrmtRc8;
  case Mod::PrmtEcl: return dmod::PrmtEcl;
  case Mod::PrmtEcr: return dmod::PrmtEcr;
  case Mod::PrmtRc16: return dmod::PrmtRc16;
  default: return 0;
  }
}

uint32_t Kernel::line(uint32_t pc) const {
  if (pc >= code.size()) return 0;
  return instr(code[pc]).loc.line;
}

namespace {

Space spaceOfMod(ptx::Mod m) {
  switch (m) {
  case ptx::Mod::Global: return Space::Global;
  case ptx::Mod::Shared:
  case ptx::Mod::SharedCta:
  case ptx::Mod::SharedCluster: return Space::Shared;
  case ptx::Mod::Local: return Space::Local;
  case ptx::Mod::Param:
  case ptx::Mod::ParamEntry:
  case ptx::Mod::ParamFunc: return Space::Param;
  case ptx::Mod::Const: return Space::Const;
  default: return Space::Generic;
  }
}

} // namespace

/// Turns a kernel, and every device function of its module, into a Kernel:
/// region 0 is the kernel, the functions follow.
class Decoder {
public:
  Decoder(Device &device, const ptx::Module &m, ptx::DiagnosticList &diags)
      : m_(m), diags_(diags), device_(device), lm_(device.load(m)) {}

  std::unique_ptr<Kernel> run(const ptx::Function &kernelFn) {
    auto k = std::make_unique<Kernel>();
    k_ = k.get();
    k->module = &m_;
    k->function = &kernelFn;
    k->name = std::string(m_.str(kernelFn.name));
    if (!lm_.error.empty()) {
      refuseKernel(lm_.errorLine, "the module cannot be loaded: " + lm_.error, lm_.errorCuda);
      return nullptr;
    }
    // Regions: the kernel, then the device functions with bodies.
    std::vector<const ptx::Function *> fns{&kernelFn};
    for (const ptx::Function &f : m_.functions)
      if (!f.isKernel && f.hasBody && f.bodyParsed) fns.push_back(&f);
    uint32_t pc = 0;
    for (uint32_t r = 0; r < fns.size(); ++r) {
      CodeRegion region;
      region.function = fns[r];
      region.entry = pc;
      pc += static_cast<uint32_t>(fns[r]->instrs.size());
      region.end = pc;
      // A .b128 register has two 64-bit slots: its id (low half) and one
      // after the function's registers (high half).
      region.numRegisters = fns[r]->numRegisters;
      region.highSlot.assign(fns[r]->numRegisters, 0);
      for (const ptx::RegisterDecl &d : fns[r]->regDecls)
        if (d.type == ptx::Type::B128)
          for (uint32_t i = 0; i < std::max(d.count, 1u) && d.firstRegister + i < fns[r]->numRegisters; ++i)
            region.highSlot[d.firstRegister + i] = region.numRegisters++;
      region.slotBits.assign(region.numRegisters, 64);
      for (const ptx::RegisterDecl &d : fns[r]->regDecls) {
        const unsigned bits = ptx::bitWidth(d.type);
        if (d.vectorWidth || bits == 0 || bits > 64) continue;
        for (uint32_t i = 0; i < std::max(d.count, 1u) && d.firstRegister + i < fns[r]->numRegisters; ++i)
          region.slotBits[d.firstRegister + i] = static_cast<uint8_t>(bits);
      }
      k->regions.push_back(region);
      regionOf_[fns[r]->name] = r;
    }
    functionIndex_ = functionIndices(m_);
    k->regionOfFunction.assign(m_.functions.size(), UINT32_MAX);
    for (auto [name, region] : regionOf_) k->regionOfFunction[functionIndex_.at(name)] = region;
    k->exitPc = k->regions[0].end;
    k->numRegisters = k->regions[0].numRegisters;
    k->entrySlots = entrySlots(m_, *fns[0], k->regions[0]);
    sharedCursor_ = lm_.sharedBytes;
    states_.resize(fns.size());
    for (uint32_t r = 0; r < fns.size(); ++r) layout(r);
    if (failed_) return nullptr;
    sharedCursor_ = (sharedCursor_ + 15) / 16 * 16;
    for (RegionState &st : states_)
      for (ptx::Name n : st.dynamicShared) st.locals[n] = SymbolLocation{Space::Shared, sharedCursor_, 0};
    k->staticShared = static_cast<uint32_t>(sharedCursor_);
    k->constAddress = lm_.constAddress;
    k->constSize = lm_.constSize;
    k->constBytes = lm_.constBytes;
    k->localBytes = static_cast<uint32_t>((localCursor_ + 7) / 8 * 8);
    k->stackBase = k->localBytes;
    auto allocates = [](const ptx::Function *f) {
      return std::any_of(f->instrs.begin(), f->instrs.end(),
                         [](const ptx::Instruction &in) { return in.opcode == ptx::Opcode::Alloca; });
    };
    if (std::any_of(fns.begin(), fns.end(), allocates)) k->localBytes += kAllocaStackBytes;
    markRecursion();
    k->code.reserve(pc);
    for (uint32_t r = 0; r < fns.size(); ++r) decodeRegion(r);
    if (failed_) return nullptr;
    return k;
  }

private:
  struct RegionState {
    std::unordered_map<ptx::Name, SymbolLocation> locals;
    std::unordered_map<const ptx::Variable *, SymbolLocation> scoped; // call-site .param variables
    std::unordered_map<ptx::Name, uint32_t> labelPc;
    std::vector<ptx::Name> dynamicShared;
  };

  const ptx::Function &fn(uint32_t r) const { return *k_->regions[r].function; }

  /// Parameters, locals and labels of region `r`.
  void layout(uint32_t r) {
    CodeRegion &region = k_->regions[r];
    RegionState &st = states_[r];
    const ptx::Function &f = fn(r);
    uint64_t frame = 0;
    // Places `v` at the cursor of a space of at most `limit` bytes; past the
    // limit the kernel is refused (reported once) and `v` gets offset 0.
    auto place = [&](const ptx::Variable &v, uint64_t &cursor, uint64_t limit, const char *what) -> uint32_t {
      const std::optional<uint64_t> bytes = bytesOf(v);
      const uint64_t at = alignUp(cursor, ptx::naturalAlignment(v));
      if (!bytes || *bytes > limit || at + *bytes > limit) {
        refuse(v, !bytes ? "its size does not fit in 64 bits"
                         : std::string(what) + " pass " + std::to_string(limit) + " bytes");
        return 0;
      }
      cursor = at + *bytes;
      return static_cast<uint32_t>(at);
    };
    auto sizeOf = [](const ptx::Variable &v) { return bytesOf(v).value_or(0); };
    if (r == 0) {
      // Kernel parameters live in the launch's parameter buffer.
      uint64_t off = 0;
      for (const ptx::Variable &p : f.params) {
        uint32_t at = place(p, off, kMaxParamFrame, "the kernel's parameters");
        st.locals.emplace(p.name, SymbolLocation{Space::Param, at, sizeOf(p)});
        k_->paramOffsets.push_back(at);
        k_->paramSizes.push_back(static_cast<uint32_t>(sizeOf(p)));
      }
      k_->paramBytes = static_cast<uint32_t>(off);
    } else {
      for (const ptx::Variable &p : f.params) {
        uint32_t at = place(p, frame, kMaxParamFrame, "the function's .param frame");
        st.locals.emplace(p.name, SymbolLocation{Space::Frame, at, sizeOf(p)});
        region.paramOffsets.push_back(at);
        region.paramSizes.push_back(static_cast<uint32_t>(sizeOf(p)));
      }
      for (const ptx::Variable &p : f.returns) {
        uint32_t at = place(p, frame, kMaxParamFrame, "the function's .param frame");
        st.locals.emplace(p.name, SymbolLocation{Space::Frame, at, sizeOf(p)});
        region.returnOffsets.push_back(at);
        region.returnSizes.push_back(static_cast<uint32_t>(sizeOf(p)));
      }
    }
    for (const ptx::Variable &v : f.locals) {
      const uint64_t size = sizeOf(v);
      if (v.space == ptx::Mod::Shared) {
        if (size == 0 && bytesOf(v))
          st.dynamicShared.push_back(v.name); // extern .shared x[]: the dynamic region
        else
          st.locals.emplace(v.name, SymbolLocation{Space::Shared,
                                                   place(v, sharedCursor_, kMaxStaticShared,
                                                         "the kernel's .shared variables"),
                                                   size});
      } else if (v.space == ptx::Mod::Local) {
        st.locals.emplace(v.name, SymbolLocation{Space::Local,
                                                 place(v, localCursor_, kMaxLocalPerThread,
                                                       "the .local variables of a thread"),
                                                 size});
        if (r != 0) hasLocals_.insert(r);
      } else if (v.space == ptx::Mod::Param) {
        // Call-site variables (`.param .b32 param0;`) are per thread, in
        // the frame of the function that declares them. Sibling `{ }`
        // scopes reuse names with other types, so each declaration gets
        // its own slot, found by scope while decoding.
        st.scoped.emplace(&v, SymbolLocation{Space::Frame,
                                             place(v, frame, kMaxParamFrame, "the function's .param frame"),
                                             size});
      }
    }
    if (r == 0)
      for (const ptx::Variable &v : m_.globals)
        if (v.space == ptx::Mod::Shared && bytesOf(v) == 0) st.dynamicShared.push_back(v.name);
    if (f.numRegisters > kMaxRegisterSlots)
      refuseKernel(f.loc.line,
                   "'" + std::string(m_.str(f.name)) + "' declares " + std::to_string(f.numRegisters) +
                       " registers; the emulator runs functions of up to " +
                       std::to_string(kMaxRegisterSlots) + " per thread",
                   "cudaErrorLaunchOutOfResources");
    region.frameBytes = static_cast<uint32_t>((frame + 7) / 8 * 8);
    for (const ptx::BasicBlock &b : f.blocks)
      if (b.label != UINT32_MAX) st.labelPc[f.labels[b.label].name] = region.entry + b.firstInstr;
  }

  /// A function that can reach itself through direct calls keeps one copy of
  /// its .local variables: calls to such a function are reported rather
  /// than run with shared local memory.
  void markRecursion() {
    size_t n = k_->regions.size();
    std::vector<std::vector<uint32_t>> callees(n);
    for (uint32_t r = 0; r < n; ++r)
      for (const ptx::Instruction &in : fn(r).instrs) {
        if (in.opcode != ptx::Opcode::Call) continue;
        for (const ptx::Operand &o : fn(r).operandsOf(in))
          if (o.kind == ptx::OperandKind::Symbol)
            if (auto it = regionOf_.find(o.id); it != regionOf_.end()) callees[r].push_back(it->second);
      }
    for (uint32_t r : hasLocals_) {
      std::vector<char> seen(n, 0);
      std::vector<uint32_t> work = callees[r];
      while (!work.empty()) {
        uint32_t v = work.back();
        work.pop_back();
        if (v == r) {
          k_->regions[r].recursiveWithLocals = true;
          break;
        }
        if (seen[v]) continue;
        seen[v] = 1;
        work.insert(work.end(), callees[v].begin(), callees[v].end());
      }
    }
  }

  void decodeRegion(uint32_t r) {
    const ptx::Function &f = fn(r);
    region_ = r;
    analysis::PostDominatorTree pdt(f);
    std::vector<uint32_t> blockOf(f.instrs.size(), 0);
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (uint32_t i = 0; i < f.blocks[b].numInstrs; ++i) blockOf[f.blocks[b].firstInstr + i] = b;
    const CodeRegion &region = k_->regions[r];
    // Walk the body in order to see which call-site variables are in scope.
    scopes_.assign(1, {});
    for (const ptx::Stmt &s : f.statements()) {
      if (s.kind == ptx::StmtKind::ScopeBegin) {
        scopes_.emplace_back();
      } else if (s.kind == ptx::StmtKind::ScopeEnd) {
        if (scopes_.size() > 1) scopes_.pop_back();
      } else if (s.kind == ptx::StmtKind::Variable) {
        const ptx::Variable &v = f.locals[s.index];
        if (auto it = states_[r].scoped.find(&v); it != states_[r].scoped.end())
          scopes_.back()[v.name] = it->second;
      } else if (s.kind == ptx::StmtKind::Instruction) {
        DInstr d = decode(s.index);
        if (d.control == Control::Branch || d.control == Control::BranchIndexed) {
          uint32_t ip = pdt.ipdom(blockOf[s.index]);
          d.reconverge = ip == pdt.virtualExit() ? region.end : region.entry + blockStart(f, ip);
        }
        k_->code.push_back(d);
      }
    }
  }

  static uint32_t blockStart(const ptx::Function &f, uint32_t b) {
    const ptx::BasicBlock &bb = f.blocks[b];
    // An empty labelled block starts where the next instruction is.
    return std::min<uint32_t>(bb.firstInstr, static_cast<uint32_t>(f.instrs.size()));
  }

  const SymbolLocation *findSymbol(ptx::Name n) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto s = it->find(n); s != it->end()) return &s->second;
    const RegionState &st = states_[region_];
    auto it = st.locals.find(n);
    if (it != st.locals.end()) return &it->second;
    auto g = lm_.symbols.find(n);
    return g == lm_.symbols.end() ? nullptr : &g->second;
  }

  /// Whether `n` names a kernel (.entry) of the module (the set made on first use).
  bool isKernelName(ptx::Name n) {
    if (!kernelNames_) {
      kernelNames_.emplace();
      for (const ptx::Function &f : m_.functions)
        if (f.isKernel) kernelNames_->insert(f.name);
    }
    return kernelNames_->count(n) != 0;
  }

  /// Names that are not values: a .callprototype or a .branchtargets /
  /// .calltargets list (call and brx.idx read them themselves).
  static bool namesDirective(const ptx::Function &f, ptx::Name n) {
    for (const ptx::Prototype &p : f.prototypes)
      if (p.name == n) return true;
    for (const ptx::TargetList &t : f.targetLists)
      if (t.name == n) return true;
    return false;
  }

  /// A kernel past one of the emulator's layout limits: reported (once) as
  /// resource-limit with the CUDA error a driver would give, and not run.
  void refuseKernel(uint32_t line, std::string why, const char *cudaError) {
    if (refused_) return;
    refused_ = failed_ = true;
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::ResourceLimit;
    d.severity = ptx::Severity::Error;
    d.message = std::move(why);
    d.loc.file = m_.fileName;
    d.loc.line = line;
    d.loc.function = k_ ? k_->name : std::string();
    d.fields.emplace_back("cuda_error", cudaError);
    diags_.add(std::move(d));
  }
  void refuse(const ptx::Variable &v, const std::string &why) {
    refuseKernel(v.loc.line, "'" + std::string(m_.str(v.name)) + "': " + why,
                 "cudaErrorLaunchOutOfResources");
  }

  /// A symbol the kernel cannot be given an address for: reported at its
  /// PTX line, and the kernel is not run (it would read address 0).
  void unresolved(ptx::Name n, const DInstr &d) {
    const ptx::Function &f = fn(region_);
    ptx::Diagnostic diag = analysis::diagnosticAt(
        m_, f, d.irIndex, ptx::DiagKind::VerifyError, ptx::Severity::Error,
        "'" + std::string(m_.str(n)) + "' in '" + ptx::instructionName(m_, f.instrs[d.irIndex]) +
            "' names no variable, function or label the emulator can resolve");
    diag.fields.push_back({"symbol", std::string(m_.str(n))});
    diags_.add(std::move(diag));
    failed_ = true;
  }

  DOp decodeOperand(const ptx::Operand &o, const DInstr &d) {
    const ptx::Function &f = fn(region_);
    DOp op;
    op.negated = o.negated();
    op.selector = o.selector;
    switch (o.kind) {
    case ptx::OperandKind::Register:
      op.kind = DOp::Reg;
      op.reg = o.id;
      if (o.id < k_->regions[region_].highSlot.size()) op.imm = k_->regions[region_].highSlot[o.id];
      break;
    case ptx::OperandKind::SpecialReg:
      op.kind = DOp::SReg;
      op.reg = o.id;
      op.imm = static_cast<uint64_t>(o.value);
      break;
    case ptx::OperandKind::Int:
      op.kind = DOp::Imm;
      op.imm = static_cast<uint64_t>(o.value);
      break;
    case ptx::OperandKind::F32:
      op.kind = DOp::Imm;
      op.imm = static_cast<uint64_t>(o.value) & 0xFFFFFFFFu;
      if (d.type == ptx::Type::F64) {
        float v;
        uint32_t b = static_cast<uint32_t>(op.imm);
        std::memcpy(&v, &b, 4);
        double w = v;
        std::memcpy(&op.imm, &w, 8);
      }
      break;
    case ptx::OperandKind::F64:
      op.kind = DOp::Imm;
      op.imm = static_cast<uint64_t>(o.value);
      if (d.type == ptx::Type::F32) {
        double v;
        std::memcpy(&v, &op.imm, 8);
        float w = static_cast<float>(v);
        uint32_t b;
        std::memcpy(&b, &w, 4);
        op.imm = b;
      }
      break;
    case ptx::OperandKind::Symbol: {
      op.kind = DOp::Imm;
      if (const SymbolLocation *s = findSymbol(o.id)) {
        op.space = s->space;
        op.imm = s->address;
      } else if (auto it = states_[region_].labelPc.find(o.id); it != states_[region_].labelPc.end()) {
        op.imm = it->second;
      } else if (auto fn = functionIndex_.find(o.id); fn != functionIndex_.end() && regionOf_.count(o.id)) {
        op.imm = kFunctionTag | fn->second;
      } else if (fn != functionIndex_.end() && isKernelName(o.id)) {
        // A kernel's address (what a device-side launch names; Device::kernelAt).
        op.imm = kFunctionTag | fn->second;
      } else if (uint64_t host = device_.hostFunctionAddress(m_, o.id)) {
        op.imm = host; // an extern function the host serves (vprintf, malloc, ...)
      } else if (!functionIndex_.count(o.id) && !namesDirective(f, o.id)) {
        // (A declared function without a body or host service is left to
        // the call, which reports it unsupported when it runs.)
        unresolved(o.id, d);
      }
      break;
    }
    case ptx::OperandKind::Address: {
      op.kind = DOp::Addr;
      op.imm = static_cast<uint64_t>(o.value);
      if (o.base == ptx::AddressBase::Register) {
        op.hasBase = true;
        op.reg = o.id;
      } else if (o.base == ptx::AddressBase::Symbol) {
        if (const SymbolLocation *s = findSymbol(o.id)) {
          op.space = s->space;
          op.imm += s->address;
          // A generic access to a shared or local symbol goes through its
          // window.
          if (d.space == Space::Generic && s->space == Space::Shared) op.imm += kSharedWindow;
          if (d.space == Space::Generic && s->space == Space::Local) op.imm += kLocalWindow;
        } else {
          unresolved(o.id, d);
        }
      }
      break;
    }
    case ptx::OperandKind::Vector:
    case ptx::OperandKind::AddressList:
    case ptx::OperandKind::List: {
      op.kind = DOp::Vec;
      auto kids = f.children(o);
      op.count = static_cast<uint16_t>(kids.size());
      std::vector<DOp> elems;
      for (const ptx::Operand &c : kids) elems.push_back(decodeOperand(c, d));
      op.reg = static_cast<uint32_t>(k_->ops.size());
      k_->ops.insert(k_->ops.end(), elems.begin(), elems.end());
      break;
    }
    case ptx::OperandKind::Pair: break; // flattened by the caller
    case ptx::OperandKind::Sink: op.kind = DOp::Sink; break;
    }
    return op;
  }

  /// DInstr::shape and the selecting modifier of a texture or surface
  /// instruction (modifiers the loop above does not keep).
  static void decodeTextureModifiers(const ptx::InstrDesc &desc, DInstr &d) {
    using ptx::Mod;
    const bool sured = d.opcode == ptx::Opcode::Sured;
    if (!sured) d.op = Mod::None;
    for (Mod mod : desc.modifiers()) {
      if (ptx::modKind(mod) == ptx::ModKind::Shape) {
        d.shape = mod;
        continue;
      }
      bool selects = false;
      switch (d.opcode) {
      case ptx::Opcode::Tex:
        selects = mod == Mod::MemBase || mod == Mod::MemLevel || mod == Mod::MemGrad;
        break;
      case ptx::Opcode::Tld4:
        selects = mod == Mod::Right || mod == Mod::MemCompG || mod == Mod::MemCompB || mod == Mod::MemCompA;
        break;
      case ptx::Opcode::Txq:
      case ptx::Opcode::Suq: selects = ptx::modKind(mod) == ptx::ModKind::Misc && mod != Mod::MemLevel; break;
      default: selects = mod == Mod::MemTrap || mod == Mod::Clamp || mod == Mod::MemZero; break;
      }
      if (!selects) continue;
      (sured ? d.op2 : d.op) = mod;
    }
  }

  DInstr decode(uint32_t index) {
    const ptx::Function &f = fn(region_);
    const CodeRegion &region = k_->regions[region_];
    const ptx::Instruction &in = f.instrs[index];
    const ptx::InstrDesc &desc = m_.desc(in);
    const ptx::InstrTable &table = ptx::InstrTable::get();
    DInstr d;
    d.opcode = in.opcode;
    d.irIndex = index;
    d.desc = in.desc;
    d.function = static_cast<uint16_t>(region_);
    d.type = desc.lastType();
    d.type0 = desc.type(0);
    d.type1 = desc.type(1);
    if (in.hasGuard) {
      d.guard = static_cast<int32_t>(in.guard);
      d.guardNegated = in.guardNegated;
    }
    for (ptx::Mod mod : desc.modifiers()) {
      switch (ptx::modKind(mod)) {
      case ptx::ModKind::Space:
        if (d.space == Space::Generic) d.space = spaceOfMod(mod);
        break;
      case ptx::ModKind::Rounding: d.rounding = mod; break;
      case ptx::ModKind::Compare:
      case ptx::ModKind::Op:
      case ptx::ModKind::BoolOp:
        if (d.op == ptx::Mod::None)
          d.op = mod;
        else
          d.op2 = mod;
        break;
      case ptx::ModKind::Vector: d.vec = mod == ptx::Mod::V2 ? 2 : mod == ptx::Mod::V4 ? 4 : 8; break;
      default: break;
      }
      if (mod == ptx::Mod::Ftz) d.ftz = true;
      if (mod == ptx::Mod::Sat) d.sat = true;
      if (mod == ptx::Mod::Hi) d.hi = true;
      if (mod == ptx::Mod::Wide) d.wide = true;
      if (mod == ptx::Mod::Cc) d.cc = true;
      d.mods |= dmodOf(mod);
    }
    d.barrier = table.barrier(in.opcode).kind;
    d.barrierIdOperand = table.barrier(in.opcode).idOperand;
    d.aligned = table.alignedBarrier(in.opcode, desc.modifiers());
    // .param accesses in a device function (or to call-site variables) go
    // to the thread's call frame, not the kernel's parameter buffer.
    std::vector<DOp> ops;
    auto irOps = f.operandsOf(in);
    for (size_t i = 0; i < irOps.size(); ++i) {
      const ptx::Operand &o = irOps[i];
      if (o.kind == ptx::OperandKind::Pair) {
        for (const ptx::Operand &c : f.children(o)) ops.push_back(decodeOperand(c, d));
      } else {
        ops.push_back(decodeOperand(o, d));
      }
    }
    if (d.space == Space::Param)
      for (const DOp &op : ops)
        if (op.kind == DOp::Addr && op.space == Space::Frame) d.space = Space::Frame;
    d.firstOp = static_cast<uint32_t>(k_->ops.size());
    k_->ops.insert(k_->ops.end(), ops.begin(), ops.end());
    d.numOps = static_cast<uint8_t>(ops.size());

    uint32_t flags = table.info(in.opcode).flags;
    if (flags & ptx::iflag::Texture) decodeTextureModifiers(desc, d);
    if (!(flags & ptx::iflag::Tensor) && in.form < table.forms().size())
      d.dests = static_cast<uint8_t>(analysis::destinationOperands(table.form(in.form)));
    if (in.opcode == ptx::Opcode::Bra) {
      d.control = Control::Branch;
      auto it = states_[region_].labelPc.find(irOps[0].id);
      d.target = it == states_[region_].labelPc.end() ? region.end : it->second;
      return d;
    }
    if (in.opcode == ptx::Opcode::BrxIdx) {
      // brx.idx index, list: the list names a .branchtargets directive.
      d.control = Control::BranchIndexed;
      d.target = static_cast<uint32_t>(k_->targetTables.size());
      for (const ptx::TargetList &t : f.targetLists) {
        if (t.name != irOps[1].id || t.calls) continue;
        for (ptx::Name label : t.targets) {
          auto it = states_[region_].labelPc.find(label);
          k_->targetTables.push_back(it == states_[region_].labelPc.end() ? region.end : it->second);
        }
        break;
      }
      d.numTargets = static_cast<uint32_t>(k_->targetTables.size()) - d.target;
      return d;
    }
    if (in.opcode == ptx::Opcode::Call) {
      // call (results), target, (arguments){, prototype}: find the parts.
      d.control = Control::Call;
      for (size_t i = 0; i < irOps.size(); ++i) {
        const ptx::Operand &o = irOps[i];
        if (o.kind == ptx::OperandKind::List) {
          if (d.callTarget < 0)
            d.callResults = static_cast<int8_t>(i);
          else if (d.callArgs < 0)
            d.callArgs = static_cast<int8_t>(i);
        } else if (d.callTarget < 0) {
          d.callTarget = static_cast<int8_t>(i);
        }
      }
      return d;
    }
    if (flags & ptx::iflag::Exit) {
      d.control = Control::Exit;
      return d;
    }
    if (flags & ptx::iflag::Return) {
      // ret ends a kernel's threads, or returns from a device function.
      d.control = region_ == 0 ? Control::Exit : Control::Return;
      return d;
    }
    if (flags & ptx::iflag::Barrier) {
      d.control = Control::Barrier;
      return d;
    }
    d.run = selectHandler(d);
    if (!d.run) d.control = Control::Unsupported;
    return d;
  }

  const ptx::Module &m_;
  ptx::DiagnosticList &diags_;
  Device &device_;
  Device::LoadedModule &lm_;
  Kernel *k_ = nullptr;
  uint32_t region_ = 0;
  std::vector<RegionState> states_;
  std::vector<std::unordered_map<ptx::Name, SymbolLocation>> scopes_; // while decoding a region
  std::unordered_map<ptx::Name, uint32_t> regionOf_;
  std::unordered_map<ptx::Name, uint32_t> functionIndex_;    // see functionIndices
  std::optional<std::unordered_set<ptx::Name>> kernelNames_; // see isKernelName
  std::unordered_set<uint32_t> hasLocals_;
  uint64_t sharedCursor_ = 0, localCursor_ = 0;
  bool failed_ = false;  // a diagnostic was reported: no kernel
  bool refused_ = false; // a layout limit was reported
};

std::unique_ptr<Kernel> Device::decode(const ptx::Module &m, std::string_view name,
                                       ptx::DiagnosticList &diags) {
  const ptx::Function *fn = m.findFunction(name);
  if (!fn || !fn->isKernel || !fn->hasBody) {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::VerifyError;
    d.message = "no kernel named '" + std::string(name) + "' in " + m.fileName;
    d.loc.file = m.fileName;
    diags.add(std::move(d));
    return nullptr;
  }
  return Decoder(*this, m, diags).run(*fn);
}

} // namespace emu
