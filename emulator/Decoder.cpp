// IR -> Kernel: registers resolved, immediates inline, symbols resolved to
// addresses, branch targets and reconvergence points computed, a handler
// chosen per instruction. Runs once per kernel.
#include "analysis/PostDominators.h"
#include "emulator/Device.h"
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

#include <cstring>

namespace emu {

uint32_t Kernel::line(uint32_t pc) const {
  if (pc >= code.size()) return 0;
  return function->instrs[code[pc].irIndex].loc.line;
}

namespace {

uint32_t alignUp(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

uint64_t variableBytes(const ptx::Variable &v) {
  uint64_t bytes = byteSize(v.type) * (v.vectorWidth ? v.vectorWidth : 1);
  for (uint64_t d : v.dims) bytes *= d; // an unsized [] counts 0
  return bytes;
}

uint32_t naturalAlignment(const ptx::Variable &v) {
  if (v.alignment) return v.alignment;
  return std::max<uint32_t>(1, byteSize(v.type) * (v.vectorWidth ? v.vectorWidth : 1));
}

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

Device::LoadedModule &Device::load(const ptx::Module &m) {
  std::lock_guard lock(mutex_);
  auto [it, fresh] = modules_.try_emplace(&m);
  LoadedModule &lm = it->second;
  if (!fresh) return lm;
  // Lay out every module-level variable, then write initializers (which may
  // name any variable's address).
  for (const ptx::Variable &v : m.globals) {
    uint64_t size = variableBytes(v);
    SymbolLocation loc;
    loc.size = size;
    if (v.space == ptx::Mod::Const) {
      uint32_t off = alignUp(static_cast<uint32_t>(lm.constBank.size()), naturalAlignment(v));
      lm.constBank.resize(off + size);
      loc = {Space::Const, off, size};
    } else if (v.space == ptx::Mod::Shared) {
      uint32_t off = alignUp(lm.sharedBytes, naturalAlignment(v));
      lm.sharedBytes = off + static_cast<uint32_t>(size);
      loc = {Space::Shared, off, size};
    } else {
      loc = {Space::Global, global.allocate(std::max<uint64_t>(size, 1), std::max<uint32_t>(naturalAlignment(v), 8)),
             size};
    }
    lm.symbols.emplace(v.name, loc);
  }
  for (const ptx::Variable &v : m.globals) {
    if (v.init.empty()) continue;
    const SymbolLocation &loc = lm.symbols[v.name];
    unsigned elem = byteSize(v.type);
    std::vector<uint8_t> bytes(loc.size);
    uint64_t at = 0;
    for (const ptx::InitItem &item : v.init) {
      if (item.kind == ptx::InitItem::List) continue;
      if (at + elem > bytes.size()) break;
      uint64_t value = static_cast<uint64_t>(item.value);
      if (item.kind == ptx::InitItem::Address) {
        auto target = lm.symbols.find(item.symbol);
        value = target == lm.symbols.end() ? 0 : target->second.address + value;
        if (target != lm.symbols.end() && target->second.space == Space::Shared && (item.flags & 1))
          value += kSharedWindow;
      } else if (item.kind == ptx::InitItem::F64 && v.type == ptx::Type::F32) {
        double d;
        std::memcpy(&d, &value, 8);
        float f = static_cast<float>(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        value = b;
      }
      std::memcpy(bytes.data() + at, &value, elem);
      at += elem;
    }
    if (loc.space == Space::Const) std::memcpy(lm.constBank.data() + loc.address, bytes.data(), bytes.size());
    else if (loc.space == Space::Global) global.write(loc.address, bytes.data(), bytes.size());
  }
  return lm;
}

const SymbolLocation *Device::symbol(const ptx::Module &m, ptx::Name name) {
  LoadedModule &lm = load(m);
  auto it = lm.symbols.find(name);
  return it == lm.symbols.end() ? nullptr : &it->second;
}

const std::vector<uint8_t> &Device::constBank(const ptx::Module &m) { return load(m).constBank; }

/// Turns one function's IR into a Kernel.
class Decoder {
public:
  Decoder(Device &device, const ptx::Module &m, const ptx::Function &fn, ptx::DiagnosticList &diags)
      : device_(device), m_(m), fn_(fn), diags_(diags), lm_(device.load(m)) {}

  std::unique_ptr<Kernel> run() {
    auto k = std::make_unique<Kernel>();
    k_ = k.get();
    k->module = &m_;
    k->function = &fn_;
    k->name = std::string(m_.str(fn_.name));
    k->numRegisters = fn_.numRegisters;
    layoutParams();
    layoutLocals();
    mapLabels();
    analysis::PostDominatorTree pdt(fn_);
    k->exitPc = static_cast<uint32_t>(fn_.instrs.size());
    blockOf_.assign(fn_.instrs.size(), 0);
    for (uint32_t b = 0; b < fn_.blocks.size(); ++b)
      for (uint32_t i = 0; i < fn_.blocks[b].numInstrs; ++i) blockOf_[fn_.blocks[b].firstInstr + i] = b;
    k->code.reserve(fn_.instrs.size());
    for (uint32_t i = 0; i < fn_.instrs.size(); ++i) {
      DInstr d = decode(i);
      if (d.control == Control::Branch || d.control == Control::BranchIndexed) {
        uint32_t ip = pdt.ipdom(blockOf_[i]);
        d.reconverge = ip == pdt.virtualExit() ? k->exitPc : blockPc(ip);
      }
      k->code.push_back(d);
    }
    return k;
  }

private:
  uint32_t blockPc(uint32_t b) const {
    const ptx::BasicBlock &bb = fn_.blocks[b];
    // An empty labelled block starts where the next instruction is.
    return bb.numInstrs ? bb.firstInstr : std::min<uint32_t>(bb.firstInstr, k_->exitPc);
  }

  void layoutParams() {
    uint32_t off = 0;
    for (const ptx::Variable &p : fn_.params) {
      uint32_t size = static_cast<uint32_t>(variableBytes(p));
      off = alignUp(off, naturalAlignment(p));
      locals_.emplace(p.name, SymbolLocation{Space::Param, off, size});
      k_->paramOffsets.push_back(off);
      k_->paramSizes.push_back(size);
      off += size;
    }
    k_->paramBytes = off;
  }

  void layoutLocals() {
    uint32_t shared = lm_.sharedBytes, local = 0;
    std::vector<ptx::Name> dynamic;
    for (const ptx::Variable &v : fn_.locals) {
      uint32_t size = static_cast<uint32_t>(variableBytes(v));
      if (v.space == ptx::Mod::Shared) {
        if (size == 0) {
          dynamic.push_back(v.name); // extern .shared x[]: the dynamic region
          continue;
        }
        shared = alignUp(shared, naturalAlignment(v));
        locals_.emplace(v.name, SymbolLocation{Space::Shared, shared, size});
        shared += size;
      } else if (v.space == ptx::Mod::Local) {
        local = alignUp(local, naturalAlignment(v));
        locals_.emplace(v.name, SymbolLocation{Space::Local, local, size});
        local += size;
      }
    }
    // Module-level `.extern .shared` arrays are unsized too.
    for (const ptx::Variable &v : m_.globals)
      if (v.space == ptx::Mod::Shared && variableBytes(v) == 0) dynamic.push_back(v.name);
    shared = alignUp(shared, 16);
    for (ptx::Name n : dynamic) locals_[n] = SymbolLocation{Space::Shared, shared, 0};
    k_->staticShared = shared;
    k_->localBytes = alignUp(local, 8);
  }

  void mapLabels() {
    for (const ptx::BasicBlock &b : fn_.blocks)
      if (b.label != UINT32_MAX) labelPc_[fn_.labels[b.label].name] = b.numInstrs ? b.firstInstr : b.firstInstr;
  }

  const SymbolLocation *findSymbol(ptx::Name n) const {
    auto it = locals_.find(n);
    if (it != locals_.end()) return &it->second;
    auto g = lm_.symbols.find(n);
    return g == lm_.symbols.end() ? nullptr : &g->second;
  }

  DOp decodeOperand(const ptx::Operand &o, const DInstr &d) {
    DOp op;
    op.negated = o.negated();
    op.selector = o.selector;
    switch (o.kind) {
    case ptx::OperandKind::Register:
      op.kind = DOp::Reg;
      op.reg = o.id;
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
        float f;
        uint32_t b = static_cast<uint32_t>(op.imm);
        std::memcpy(&f, &b, 4);
        double v = f;
        std::memcpy(&op.imm, &v, 8);
      }
      break;
    case ptx::OperandKind::F64: {
      op.kind = DOp::Imm;
      op.imm = static_cast<uint64_t>(o.value);
      if (d.type == ptx::Type::F32) {
        double v;
        std::memcpy(&v, &op.imm, 8);
        float f = static_cast<float>(v);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        op.imm = b;
      }
      break;
    }
    case ptx::OperandKind::Symbol: {
      op.kind = DOp::Imm;
      if (const SymbolLocation *s = findSymbol(o.id)) {
        op.imm = s->address;
      } else if (auto it = labelPc_.find(o.id); it != labelPc_.end()) {
        op.imm = it->second;
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
        }
      }
      break;
    }
    case ptx::OperandKind::Vector:
    case ptx::OperandKind::AddressList:
    case ptx::OperandKind::List: {
      op.kind = DOp::Vec;
      auto kids = fn_.children(o);
      op.count = static_cast<uint16_t>(kids.size());
      std::vector<DOp> elems;
      for (const ptx::Operand &c : kids) elems.push_back(decodeOperand(c, d));
      op.reg = static_cast<uint32_t>(k_->ops.size());
      k_->ops.insert(k_->ops.end(), elems.begin(), elems.end());
      break;
    }
    case ptx::OperandKind::Pair: {
      // d|p: decoded as two consecutive operands by the caller.
      break;
    }
    case ptx::OperandKind::Sink: op.kind = DOp::Sink; break;
    }
    return op;
  }

  DInstr decode(uint32_t index) {
    const ptx::Instruction &in = fn_.instrs[index];
    const ptx::InstrDesc &desc = m_.desc(in);
    const ptx::InstrTable &table = ptx::InstrTable::get();
    DInstr d;
    d.opcode = in.opcode;
    d.irIndex = index;
    d.type = desc.lastType();
    d.type0 = desc.type(0);
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
        if (d.op == ptx::Mod::None) d.op = mod;
        else d.op2 = mod;
        break;
      case ptx::ModKind::Vector: d.vec = mod == ptx::Mod::V2 ? 2 : mod == ptx::Mod::V4 ? 4 : 8; break;
      default: break;
      }
      if (mod == ptx::Mod::Ftz) d.ftz = true;
      if (mod == ptx::Mod::Sat) d.sat = true;
      if (mod == ptx::Mod::Hi) d.hi = true;
      if (mod == ptx::Mod::Wide) d.wide = true;
      if (mod == ptx::Mod::Cc) d.cc = true;
    }
    // Operands, with pairs flattened (d|p -> d, p).
    d.firstOp = static_cast<uint32_t>(k_->ops.size());
    std::vector<DOp> ops;
    for (const ptx::Operand &o : fn_.operandsOf(in)) {
      if (o.kind == ptx::OperandKind::Pair) {
        for (const ptx::Operand &c : fn_.children(o)) ops.push_back(decodeOperand(c, d));
      } else {
        ops.push_back(decodeOperand(o, d));
      }
    }
    d.firstOp = static_cast<uint32_t>(k_->ops.size());
    k_->ops.insert(k_->ops.end(), ops.begin(), ops.end());
    d.numOps = static_cast<uint8_t>(ops.size());

    uint32_t flags = table.info(in.opcode).flags;
    if (in.opcode == ptx::Opcode::Bra) {
      d.control = Control::Branch;
      const ptx::Operand &target = fn_.operandsOf(in)[0];
      auto it = labelPc_.find(target.id);
      d.target = it == labelPc_.end() ? k_->exitPc : it->second;
      return d;
    }
    if (in.opcode == ptx::Opcode::BrxIdx) {
      // brx.idx index, list: the list names a .branchtargets directive.
      d.control = Control::BranchIndexed;
      d.target = static_cast<uint32_t>(k_->targetTables.size());
      ptx::Name list = fn_.operandsOf(in)[1].id;
      for (const ptx::TargetList &t : fn_.targetLists) {
        if (t.name != list || t.calls) continue;
        for (ptx::Name label : t.targets) {
          auto it = labelPc_.find(label);
          k_->targetTables.push_back(it == labelPc_.end() ? k_->exitPc : it->second);
        }
        break;
      }
      d.numTargets = static_cast<uint32_t>(k_->targetTables.size()) - d.target;
      return d;
    }
    if (flags & ptx::iflag::Exit) {
      d.control = Control::Exit;
      return d;
    }
    if (flags & ptx::iflag::Return) {
      // A kernel's ret ends its threads; device-function calls come later.
      d.control = Control::Exit;
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

  [[maybe_unused]] Device &device_;
  const ptx::Module &m_;
  const ptx::Function &fn_;
  [[maybe_unused]] ptx::DiagnosticList &diags_;
  Device::LoadedModule &lm_;
  Kernel *k_ = nullptr;
  std::unordered_map<ptx::Name, SymbolLocation> locals_;
  std::unordered_map<ptx::Name, uint32_t> labelPc_;
  std::vector<uint32_t> blockOf_;
};

std::unique_ptr<Kernel> Device::decode(const ptx::Module &m, std::string_view name, ptx::DiagnosticList &diags) {
  const ptx::Function *fn = m.findFunction(name);
  if (!fn || !fn->isKernel || !fn->hasBody) {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::VerifyError;
    d.message = "no kernel named '" + std::string(name) + "' in " + m.fileName;
    d.loc.file = m.fileName;
    diags.add(std::move(d));
    return nullptr;
  }
  return Decoder(*this, m, *fn, diags).run();
}

} // namespace emu
