#include "tests/emulator/DiffKernel.h"

#include "tests/emulator/Harness.h"
#include "tests/emulator/reference/Formats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

namespace ptxvm::test {

using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

namespace {

bool isWarpSync(const ptx::InstrDesc &d) {
  switch (d.opcode) {
  case Opcode::ShflSync:
  case Opcode::VoteSync:
  case Opcode::ReduxSync:
  case Opcode::Match:
  case Opcode::ElectSync: return true;
  case Opcode::Shfl:
  case Opcode::Vote: return d.has(Mod::Sync);
  default: return false;
  }
}

bool isShared(const ptx::InstrDesc &d) {
  return d.has(Mod::Shared) || d.has(Mod::SharedCta) || d.has(Mod::SharedCluster);
}

/// The type the table gives operand spec `s` of a form.
Type specType(const ptx::OperandSpec &s, const ptx::InstrDesc &d, Type declared) {
  switch (s.type.kind) {
  case ptx::OperandType::Instruction: return d.lastType();
  case ptx::OperandType::Group: return d.type(s.type.group);
  case ptx::OperandType::Fixed: return s.type.fixed;
  case ptx::OperandType::Any: return declared;
  }
  return declared;
}

/// The input domain of a register: the operand's type, narrowed to what the
/// register can hold, predicates as predicates.
Type domainOf(Type operandType, Type declared) {
  if (declared == Type::Pred) return Type::Pred;
  if (operandType == Type::None) return declared;
  unsigned ob = ptx::bitWidth(operandType), rb = ptx::bitWidth(declared);
  if (ob > rb || ob == 0) return declared;
  return operandType;
}

const char *ldType(Type declared) {
  switch (declared) {
  case Type::B16: return "b16";
  case Type::B32: return "b32";
  case Type::B64: return "b64";
  case Type::F32: return "f32";
  case Type::F64: return "f64";
  default: return "b32";
  }
}

unsigned declaredBits(Type t) { return t == Type::Pred ? 1 : ptx::bitWidth(t); }
uint64_t widthMask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

} // namespace

bool buildCase(const TableSample &s, const DecodedSample &d, FormCase &c, std::string &why) {
  c = FormCase{};
  c.sample = s;
  const ptx::Module &m = *d.module;
  const ptx::Function &f = *d.function;
  const ptx::Instruction &in = *d.instr;
  const ptx::InstrDesc &desc = m.desc(in);
  const ptx::Form &form = ptx::InstrTable::get().form(desc.form);
  c.sm = form.sm;
  c.shared = isShared(desc);
  c.warpSync = isWarpSync(desc);
  c.carryIn = desc.opcode == Opcode::Addc || desc.opcode == Opcode::Subc || desc.opcode == Opcode::Madc;
  c.carryOut = desc.has(Mod::Cc);
  ref::Instr &ri = c.instr;
  ri.opcode = desc.opcode;
  for (Mod mod : desc.modifiers()) ri.mods.push_back(mod);
  for (unsigned i = 0; desc.type(i) != Type::None; ++i) ri.types.push_back(desc.type(i));

  std::map<uint32_t, int> regIndex;
  auto registerSlot = [&](uint32_t id, Type operandType) -> int {
    auto it = regIndex.find(id);
    if (it != regIndex.end()) return it->second;
    CaseRegister r;
    r.name = ptx::registerName(m, f, id);
    r.declared = f.registerType(id);
    r.domain = domainOf(operandType, r.declared);
    regIndex[id] = static_cast<int>(c.regs.size());
    c.regs.push_back(r);
    return static_cast<int>(c.regs.size()) - 1;
  };

  auto ops = f.operandsOf(in);
  unsigned spec = 0;
  for (unsigned g = 0; g < ops.size(); ++g) {
    const ptx::Operand &o = ops[g];
    const bool dest = g == 0 && o.kind != ptx::OperandKind::Address;
    auto specAt = [&](unsigned i) -> const ptx::OperandSpec * {
      return i < form.operands.size() ? &form.operands[i] : nullptr;
    };
    auto addSlot = [&](const ptx::Operand &e, unsigned element, const ptx::OperandSpec *sp) -> bool {
      ref::Slot sl;
      sl.dest = dest;
      sl.group = g;
      sl.element = element;
      sl.notted = e.negated();
      sl.minus = e.flags & ptx::opflag::Minus;
      sl.selector = e.selector;
      int reg = -1;
      switch (e.kind) {
      case ptx::OperandKind::Register: {
        sl.kind = ref::Slot::Register;
        sl.regType = f.registerType(e.id);
        sl.type = sp ? specType(*sp, desc, sl.regType) : sl.regType;
        if (e.selector == ptx::Selector::ByteMask || e.selector == ptx::Selector::HalfMask)
          sl.digits = e.value;
        reg = registerSlot(e.id, sl.type);
        break;
      }
      case ptx::OperandKind::Int:
      case ptx::OperandKind::F32:
      case ptx::OperandKind::F64:
        sl.kind = ref::Slot::Immediate;
        sl.type = sp ? specType(*sp, desc, Type::None) : Type::None;
        sl.digits = e.value;
        break;
      case ptx::OperandKind::SpecialReg:
        sl.kind = ref::Slot::Special;
        sl.special = e.id;
        sl.selector = e.selector;
        break;
      case ptx::OperandKind::Sink:
        sl.kind = ref::Slot::Sink;
        sl.sinkElement = element > 0 || o.kind == ptx::OperandKind::Vector;
        break;
      case ptx::OperandKind::Address:
        sl.kind = ref::Slot::Address;
        if (e.base != ptx::AddressBase::Register || e.value != 0) {
          why = "address operand other than [register]";
          return false;
        }
        reg = registerSlot(e.id, Type::B64);
        c.regs[reg].role = c.shared ? CaseRegister::SharedAddress : CaseRegister::GlobalAddress;
        if (c.shared && c.regs[reg].declared != Type::B32) {
          why = "shared address in a 64-bit register";
          return false;
        }
        break;
      default: why = "operand kind the generator does not handle"; return false;
      }
      c.instr.slots.push_back(sl);
      c.slotRegister.push_back(reg);
      return true;
    };
    if (o.kind == ptx::OperandKind::Pair) {
      unsigned e = 0;
      for (const ptx::Operand &child : f.children(o))
        if (!addSlot(child, e++, specAt(spec++))) return false;
    } else if (o.kind == ptx::OperandKind::Vector) {
      unsigned e = 0;
      const ptx::OperandSpec *sp = specAt(spec++);
      for (const ptx::Operand &child : f.children(o))
        if (!addSlot(child, e++, sp)) return false;
    } else {
      if (!addSlot(o, 0, specAt(spec++))) return false;
    }
  }
  ri.groups = static_cast<unsigned>(ops.size());
  // Operands with special meanings.
  if (c.warpSync && !ri.slots.empty()) {
    int r = c.slotRegister.back();
    if (r >= 0) c.regs[r].role = CaseRegister::MemberMask;
  }
  if (desc.has(Mod::L2CacheHint) && !ri.slots.empty() && c.slotRegister.back() >= 0 &&
      c.regs[c.slotRegister.back()].declared == Type::B64 && ri.slots.back().group == ri.groups - 1 &&
      ri.groups >= 3)
    c.regs[c.slotRegister.back()].role = CaseRegister::CachePolicy;
  if (desc.opcode == Opcode::StBulk && ri.slots.size() > 1 && c.slotRegister[1] >= 0)
    c.regs[c.slotRegister[1]].role = CaseRegister::BulkSize;
  // fp6 pairs keep the two top bits of each byte zero (the ISA leaves other
  // values undefined).
  if (desc.opcode == Opcode::Cvt && (desc.lastType() == Type::E2M3x2 || desc.lastType() == Type::E3M2x2))
    for (size_t i = 0; i < ri.slots.size(); ++i)
      if (!ri.slots[i].dest && c.slotRegister[i] >= 0) c.regs[c.slotRegister[i]].domain = desc.lastType();
  if (c.carryIn) c.regs.push_back({"%dcfi", Type::B32, Type::Pred, CaseRegister::CarryIn});
  if (c.carryOut) c.regs.push_back({"%dcfo", Type::B32, Type::B32, CaseRegister::CarryOut});
  c.kernel = caseKernel(c, "sm_100a");
  return true;
}

std::string caseKernel(const FormCase &c, const std::string &target) {
  std::ostringstream k;
  const unsigned R = static_cast<unsigned>(c.regs.size());
  k << ".version 9.0\n.target " << target << "\n.address_size 64\n";
  k << ".visible .entry k(.param .u64 pin, .param .u64 ppre, .param .u64 ppost, .param .u64 pmem, .param "
       ".u32 pn)\n{\n";
  k << "  .reg .pred %dg;\n  .reg .b32 %dt<4>;\n  .reg .b64 %dx<6>;\n  .reg .b16 %dh;\n";
  for (const CaseRegister &r : c.regs) k << "  .reg ." << ptx::spelling(r.declared) << " " << r.name << ";\n";
  if (c.shared) k << "  .shared .align 16 .b8 dsh[" << kSharedSlotBytes * 128 << "];\n";
  k << "  mov.u32 %dt0, %tid.x;\n  mov.u32 %dt1, %ctaid.x;\n  mov.u32 %dt2, %ntid.x;\n";
  k << "  mad.lo.u32 %dt3, %dt1, %dt2, %dt0;\n  ld.param.u32 %dt1, [pn];\n  setp.ge.u32 %dg, %dt3, %dt1;\n";
  k << (c.warpSync ? "  @%dg exit;\n" : "  @%dg bra $Ldone;\n");
  k << "  ld.param.u64 %dx0, [pin];\n  mul.wide.u32 %dx1, %dt3, " << R * 8
    << ";\n  add.u64 %dx0, %dx0, %dx1;\n";
  auto load = [&](const CaseRegister &r, unsigned i) {
    if (r.declared == Type::Pred)
      k << "  ld.global.u8 %dh, [%dx0+" << 8 * i << "];\n  setp.ne.b16 " << r.name << ", %dh, 0;\n";
    else
      k << "  ld.global." << ldType(r.declared) << " " << r.name << ", [%dx0+" << 8 * i << "];\n";
  };
  auto store = [&](const CaseRegister &r, unsigned i) {
    if (r.declared == Type::Pred)
      k << "  selp.u16 %dh, 1, 0, " << r.name << ";\n  st.global.u8 [%dx4+" << 8 * i << "], %dh;\n";
    else
      k << "  st.global." << ldType(r.declared) << " [%dx4+" << 8 * i << "], " << r.name << ";\n";
  };
  for (unsigned i = 0; i < R; ++i) load(c.regs[i], i);
  k << "  ld.param.u64 %dx2, [pmem];\n  mul.wide.u32 %dx3, %dt3, " << kSlotBytes
    << ";\n  add.u64 %dx2, %dx2, %dx3;\n";
  if (c.shared) {
    k << "  mov.u32 %dt2, dsh;\n  mad.lo.u32 %dt2, %dt0, " << kSharedSlotBytes << ", %dt2;\n";
    for (unsigned o = 0; o < kSharedSlotBytes; o += 8)
      k << "  ld.global.b64 %dx5, [%dx2+" << o << "];\n  st.shared.b64 [%dt2+" << o << "], %dx5;\n";
  }
  for (const CaseRegister &r : c.regs) {
    if (r.role == CaseRegister::GlobalAddress) k << "  mov.b64 " << r.name << ", %dx2;\n";
    if (r.role == CaseRegister::SharedAddress) k << "  mov.b32 " << r.name << ", %dt2;\n";
    if (r.role == CaseRegister::MemberMask) k << "  mov.b32 " << r.name << ", -1;\n";
    if (r.role == CaseRegister::CachePolicy)
      k << "  createpolicy.fractional.L2::evict_last.b64 " << r.name << ", 1.0;\n";
  }
  k << "  ld.param.u64 %dx4, [ppre];\n  add.u64 %dx4, %dx4, %dx1;\n";
  for (unsigned i = 0; i < R; ++i) store(c.regs[i], i);
  if (c.carryIn) k << "  add.cc.u32 %dt1, %dcfi, -1;\n";
  k << "  " << c.sample.text << ";\n";
  if (c.carryOut) k << "  addc.u32 %dcfo, 0, 0;\n";
  if (c.shared)
    for (unsigned o = 0; o < kSharedSlotBytes; o += 8)
      k << "  ld.shared.b64 %dx5, [%dt2+" << o << "];\n  st.global.b64 [%dx2+" << o << "], %dx5;\n";
  k << "  ld.param.u64 %dx4, [ppost];\n  add.u64 %dx4, %dx4, %dx1;\n";
  for (unsigned i = 0; i < R; ++i) store(c.regs[i], i);
  k << "$Ldone:\n  ret;\n}\n";
  return k.str();
}

std::vector<Launch> caseLaunches(const FormCase &c, uint64_t seed) {
  struct Shape {
    unsigned grid, block, n;
    bool pairs;
  };
  // Full warps without a guard; 100-thread CTAs (a partial last warp) with a
  // guard that stops mid-warp; random values throughout but the first.
  std::vector<Shape> shapes = {{8, 128, 1024, true}, {10, 100, 997, false}, {8, 128, 1000, false}};
  const unsigned R = static_cast<unsigned>(c.regs.size());
  uint64_t h = seed;
  for (char ch : c.sample.text) h = h * 131 + static_cast<unsigned char>(ch);
  std::vector<Launch> out;
  for (const Shape &s : shapes) {
    Launch l;
    l.grid = s.grid, l.block = s.block, l.n = s.n;
    const unsigned T = s.grid * s.block;
    l.in.assign(size_t(T) * R, 0);
    l.memory.assign(size_t(T) * kSlotBytes, 0);
    Rng rng{h ^ (uint64_t(s.grid) << 32) ^ s.n};
    // The registers whose values pair up exhaustively over the edge lists.
    std::vector<unsigned> data;
    for (unsigned i = 0; i < R; ++i)
      if (c.regs[i].role == CaseRegister::Data) data.push_back(i);
    size_t pairCount = 1;
    for (size_t i = 0; i < data.size() && i < 2; ++i) pairCount *= edgeValues(c.regs[data[i]].domain).size();
    for (unsigned t = 0; t < T; ++t) {
      unsigned index = t;
      for (unsigned r = 0; r < R; ++r) {
        const CaseRegister &reg = c.regs[r];
        uint64_t v;
        const auto &edges = edgeValues(reg.domain);
        auto rank = std::find(data.begin(), data.end(), r) - data.begin();
        if (s.pairs && rank < 2 && t < pairCount) {
          v = edges[index % edges.size()];
          index /= static_cast<unsigned>(edges.size());
        } else {
          v = randomValue(reg.domain, rng);
        }
        if (reg.role == CaseRegister::BulkSize) v = 16 * (rng.next() % 9);
        if (reg.role == CaseRegister::CarryIn) v = rng.next() & 1;
        if (reg.domain == Type::E2M3x2 || reg.domain == Type::E3M2x2) v &= 0x3F3F;
        l.in[size_t(t) * R + r] = v & widthMask(declaredBits(reg.declared));
      }
      // Memory: values of the instruction's type, so atomics meet NaNs,
      // infinities and wrap-around too.
      Type memType = c.instr.lastType();
      unsigned bytes = std::max(1u, ptx::bitWidth(memType) / 8);
      if (bytes > 8) bytes = 8;
      for (unsigned o = 0; o + bytes <= kSlotBytes; o += bytes) {
        uint64_t v = memType == Type::None ? rng.next() : randomValue(memType, rng);
        std::memcpy(&l.memory[size_t(t) * kSlotBytes + o], &v, bytes);
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

bool runOnEmulator(const FormCase &c, const Launch &l, Outputs &out, std::string &why) {
  const unsigned T = l.grid * l.block, R = static_cast<unsigned>(c.regs.size());
  std::vector<uint64_t> zeros(size_t(T) * R, 0);
  EmuRun r = runKernel(c.kernel, "k", {l.grid}, {l.block},
                       {Arg::array(l.in), Arg::array(zeros), Arg::array(zeros), Arg::array(l.memory),
                        Arg::scalar(uint32_t(l.n))});
  if (!r.result.ok) {
    why = r.diags.renderText();
    return false;
  }
  out.pre = r.buffer<uint64_t>(1);
  out.post = r.buffer<uint64_t>(2);
  out.memory = r.buffers[3];
  return true;
}

namespace {

ref::Format formatOf(Type t) {
  switch (t) {
  case Type::F16: return ref::kF16;
  case Type::BF16: return ref::kBF16;
  case Type::F64: return ref::kF64;
  default: return ref::kF32;
  }
}
unsigned laneBits(Type t) { return t == Type::F16 || t == Type::BF16 ? 16 : t == Type::F64 ? 64 : 32; }

bool matches(const ref::Check &chk, uint64_t got, unsigned width) {
  uint64_t m = widthMask(width);
  got &= m;
  switch (chk.kind) {
  case ref::Check::DontCare: return true;
  case ref::Check::Exact: return got == (chk.bits & m);
  case ref::Check::AnyNaN: {
    // PTXVM_DIFF_STRICT_NAN=1 compares NaN payloads too (to see what a GPU
    // returns where the ISA leaves the payload open).
    static const bool strict = std::getenv("PTXVM_DIFF_STRICT_NAN") != nullptr;
    if (strict) return got == (chk.bits & m);
    unsigned lb = laneBits(chk.fmt);
    ref::Format f = formatOf(chk.fmt);
    for (unsigned s = 0; s < width; s += lb) {
      uint64_t a = (got >> s) & widthMask(lb), b = (chk.bits >> s) & widthMask(lb);
      if (a == b) continue;
      if (!(ref::isNaNEncoding(a, f) && ref::isNaNEncoding(b, f))) return false;
    }
    return true;
  }
  case ref::Check::Within: {
    ref::Format f = formatOf(chk.fmt);
    unsigned lb = laneBits(chk.fmt);
    for (unsigned lane = 0; lane < chk.lanes; ++lane) {
      ref::Quad v = ref::decode((got >> (lane * lb)) & widthMask(lb), f), e = chk.exact[lane];
      if (ref::isNaN(e)) {
        if (!ref::isNaN(v)) return false;
        continue;
      }
      if (ref::isInf(e)) {
        if (v != e) return false;
        continue;
      }
      // Beyond the format's range the value must be infinity; below it the
      // spacing of the subnormals (one unit) is tolerated as well.
      ref::Quad largest = ref::decode(ref::largestFinite(f), f);
      ref::Quad tol = chk.absTol + chk.relTol * ref::absOf(e) + ref::decode(1, f);
      if (ref::absOf(e) > largest + tol) {
        if (!(ref::isInf(v) && ref::signOf(v) == ref::signOf(e))) return false;
        continue;
      }
      if (ref::isNaN(v) || ref::isInf(v)) return false;
      ref::Quad diff = ref::absOf(v - e);
      if (diff > tol && !(chk.ftzResult && v == 0)) return false;
    }
    return true;
  }
  }
  return false;
}

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string describe(const ref::Check &chk) {
  switch (chk.kind) {
  case ref::Check::Exact: return hex(chk.bits);
  case ref::Check::AnyNaN: return hex(chk.bits) + " (any NaN)";
  case ref::Check::Within: {
    std::ostringstream s;
    s << static_cast<double>(chk.exact[0]);
    if (chk.lanes > 1) s << " / " << static_cast<double>(chk.exact[1]);
    s << " +- " << static_cast<double>(chk.absTol) << " + " << static_cast<double>(chk.relTol) << " rel";
    return s.str();
  }
  case ref::Check::DontCare: return "anything";
  }
  return "?";
}

bool tryReferences(const ref::Instr &ri, std::vector<ref::Thread> &warp) {
  for (auto fn : {ref::integerReference, ref::bitReference, ref::floatReference, ref::compareReference,
                  ref::convertReference, ref::videoReference, ref::memoryReference, ref::warpReference})
    if (fn(ri, warp)) return true;
  return false;
}

} // namespace

std::vector<std::string> checkOutputs(const FormCase &c, const Launch &l, const Outputs &o, size_t limit,
                                      size_t &checked, bool &noReference) {
  std::vector<std::string> bad;
  const unsigned R = static_cast<unsigned>(c.regs.size());
  const unsigned slotBytes = c.shared ? kSharedSlotBytes : kSlotBytes;
  auto inputsOf = [&](unsigned g) {
    std::string s;
    for (unsigned r = 0; r < R; ++r)
      if (c.regs[r].role != CaseRegister::GlobalAddress && c.regs[r].role != CaseRegister::SharedAddress)
        s += (s.empty() ? "" : ", ") + c.regs[r].name + "=" + hex(o.pre[size_t(g) * R + r]);
    return s;
  };
  auto report = [&](unsigned g, const std::string &what) {
    if (bad.size() < limit)
      bad.push_back("thread " + std::to_string(g) + ": " + what + "  [before: " + inputsOf(g) + "]");
    else if (bad.size() == limit)
      bad.push_back("...");
  };
  int carryInReg = -1, carryOutReg = -1;
  for (unsigned i = 0; i < R; ++i) {
    if (c.regs[i].role == CaseRegister::CarryIn) carryInReg = static_cast<int>(i);
    if (c.regs[i].role == CaseRegister::CarryOut) carryOutReg = static_cast<int>(i);
  }
  for (unsigned cta = 0; cta < l.grid; ++cta) {
    for (unsigned w0 = 0; w0 < l.block; w0 += 32) {
      std::vector<ref::Thread> warp(32);
      for (unsigned lane = 0; lane < 32; ++lane) {
        ref::Thread &t = warp[lane];
        unsigned tid = w0 + lane, g = cta * l.block + tid;
        t.lane = lane, t.tid = tid, t.ctaid = cta, t.ntid = l.block, t.nctaid = l.grid;
        t.active = tid < l.block && g < l.n;
        if (!t.active) continue;
        t.in.resize(c.instr.slots.size());
        for (size_t s = 0; s < c.instr.slots.size(); ++s) {
          const ref::Slot &sl = c.instr.slots[s];
          int r = c.slotRegister[s];
          if (r >= 0)
            t.in[s] = o.pre[size_t(g) * R + r];
          else if (sl.kind == ref::Slot::Immediate)
            t.in[s] = static_cast<uint64_t>(sl.digits);
        }
        t.memory.assign(l.memory.begin() + size_t(g) * kSlotBytes,
                        l.memory.begin() + size_t(g) * kSlotBytes + slotBytes);
        if (carryInReg >= 0) t.carryIn = o.pre[size_t(g) * R + carryInReg] != 0;
        // The values the kernel loaded are the ones generated (except where it
        // overrides them).
        for (unsigned r = 0; r < R; ++r) {
          const CaseRegister &reg = c.regs[r];
          if (reg.role == CaseRegister::Data || reg.role == CaseRegister::BulkSize) {
            uint64_t m = widthMask(declaredBits(reg.declared));
            if ((o.pre[size_t(g) * R + r] & m) != (l.in[size_t(g) * R + r] & m))
              report(g, "register " + reg.name + " loaded " + hex(o.pre[size_t(g) * R + r]) +
                            ", stored input " + hex(l.in[size_t(g) * R + r]));
          }
        }
      }
      if (std::none_of(warp.begin(), warp.end(), [](const ref::Thread &t) { return t.active; })) continue;
      if (!tryReferences(c.instr, warp)) {
        noReference = true;
        return bad;
      }
      for (const ref::Thread &t : warp) {
        if (!t.active) continue;
        unsigned g = t.ctaid * l.block + t.tid;
        std::vector<bool> written(R, false);
        for (size_t s = 0; s < c.instr.slots.size(); ++s) {
          int r = c.slotRegister[s];
          if (r < 0 || !c.instr.slots[s].dest) continue;
          written[r] = true;
          const ref::Check &chk = s < t.out.size() ? t.out[s] : ref::Check{};
          uint64_t got = o.post[size_t(g) * R + r];
          ++checked;
          if (!matches(chk, got, declaredBits(c.regs[r].declared)))
            report(g, c.regs[r].name + " = " + hex(got) + ", expected " + describe(chk));
        }
        for (unsigned r = 0; r < R; ++r) {
          if (written[r] || static_cast<int>(r) == carryOutReg) continue;
          uint64_t m = widthMask(declaredBits(c.regs[r].declared));
          if ((o.post[size_t(g) * R + r] & m) != (o.pre[size_t(g) * R + r] & m))
            report(g,
                   c.regs[r].name + " changed to " + hex(o.post[size_t(g) * R + r]) + " (not a destination)");
        }
        if (carryOutReg >= 0 && t.checkCarry) {
          ++checked;
          uint64_t got = o.post[size_t(g) * R + carryOutReg] & 1;
          if (got != uint64_t(t.carryOut))
            report(g, "carry out " + std::to_string(got) + ", expected " + std::to_string(t.carryOut));
        }
        const uint8_t *after = &o.memory[size_t(g) * kSlotBytes];
        const std::vector<uint8_t> &expect = t.checkMemory ? t.memoryAfter : t.memory;
        if (t.checkMemory) ++checked;
        if (expect.size() == slotBytes && std::memcmp(after, expect.data(), slotBytes) != 0) {
          unsigned at = 0;
          while (after[at] == expect[at]) ++at;
          at &= ~7u;
          uint64_t gotWord = 0, expWord = 0;
          std::memcpy(&gotWord, after + at, std::min(8u, slotBytes - at));
          std::memcpy(&expWord, expect.data() + at, std::min(8u, slotBytes - at));
          uint64_t oldWord = 0;
          std::memcpy(&oldWord, t.memory.data() + at, std::min(8u, slotBytes - at));
          report(g, "memory at " + std::to_string(at) + " = " + hex(gotWord) + ", expected " + hex(expWord) +
                        " (was " + hex(oldWord) + ")");
        }
      }
    }
  }
  return bad;
}

} // namespace ptxvm::test
