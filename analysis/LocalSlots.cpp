// Pointers into .local variables, found by a fixpoint over every write of
// each register (flow-insensitive: a register is a pointer only if all its
// writes make it one), then the places their accesses touch.
#include "analysis/LocalSlots.h"

#include "analysis/DefUse.h"
#include "ptx/InstrTable.h"
#include "ptx/Layout.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

namespace analysis {

namespace {

using ptx::Mod;
using ptx::Opcode;
using ptx::OperandKind;

/// What a register holds, as far as local variables go; only rises
/// (Unset < Known < Unknown < Bad).
struct Pointer {
  enum State : uint8_t { Unset, Known, Unknown, Bad };
  State state = Unset;
  uint32_t symbol = 0;
  int64_t offset = 0;

  bool points() const { return state == Known || state == Unknown; }
  /// Joins another write of the same register; true when it changed.
  bool join(const Pointer &o) {
    Pointer r = *this;
    if (o.state == Unset) return false;
    if (r.state == Unset)
      r = o;
    else if (r.state == Bad || o.state == Bad || r.symbol != o.symbol)
      r.state = Bad;
    else if (r.state == Unknown || o.state == Unknown || r.offset != o.offset)
      r.state = Unknown;
    bool changed = r.state != state || r.symbol != symbol || r.offset != offset;
    *this = r;
    return changed;
  }
};

bool isScalarRegister(const ptx::Operand &op) {
  return op.kind == OperandKind::Register && op.selector == ptx::Selector::None;
}

} // namespace

int64_t accessBytes(const ptx::InstrDesc &desc) {
  unsigned bits = ptx::bitWidth(desc.lastType());
  if (bits == 0 || bits % 8) return 0;
  Mod vector = desc.firstOfKind(ptx::ModKind::Vector);
  int64_t lanes = vector == Mod::V2 ? 2 : vector == Mod::V4 ? 4 : vector == Mod::V8 ? 8 : 1;
  return lanes * bits / 8;
}

namespace {

/// a + b when both and the sum stay within a terabyte of the variable's
/// start (an offset beyond is no place of a real frame: an unknown offset).
std::optional<int64_t> addOffset(int64_t a, int64_t b) {
  constexpr int64_t kFar = int64_t{1} << 40;
  if (a < -kFar || a > kFar || b < -kFar || b > kFar) return std::nullopt;
  return a + b;
}

template <class F> void forEachRegister(const ptx::Function &fn, const ptx::Operand &op, F f) {
  if (op.kind == OperandKind::Register) f(op);
  if (op.kind == OperandKind::Vector || op.kind == OperandKind::Pair)
    for (const ptx::Operand &c : fn.children(op))
      if (c.kind == OperandKind::Register) f(c);
}

} // namespace

LocalSlots::LocalSlots(const ptx::Module &m, const ptx::Function &fn) {
  accessBegin_.assign(fn.instrs.size() + 1, 0);
  clobbers_.assign(fn.instrs.size(), 0);
  unknownWrites_.assign(fn.instrs.size(), 0);
  std::unordered_map<ptx::Name, uint32_t> symbolOf;
  std::vector<int64_t> bytes; // per symbol; 0 when unknown
  auto addSymbols = [&](const std::vector<ptx::Variable> &vars) {
    for (const ptx::Variable &v : vars)
      if (v.space == Mod::Local && symbolOf.try_emplace(v.name, symbols_.size()).second) {
        symbols_.push_back({v.name});
        auto size = ptx::variableBytes(v);
        bytes.push_back(size && *size <= uint64_t{1} << 40 ? static_cast<int64_t>(*size) : 0);
      }
  };
  addSymbols(fn.locals);
  // Module-scope .local variables live as long as the thread: every
  // function may write them, calls included, as if they had escaped.
  const size_t firstModuleSymbol = symbols_.size();
  addSymbols(m.globals);
  for (size_t s = firstModuleSymbol; s < symbols_.size(); ++s) symbols_[s].escapes = true;
  auto localSymbol = [&](const ptx::Operand &op) -> std::optional<uint32_t> {
    if (op.kind != OperandKind::Symbol) return std::nullopt;
    auto it = symbolOf.find(op.id);
    return it == symbolOf.end() ? std::nullopt : std::optional(it->second);
  };

  const ptx::InstrTable &table = ptx::InstrTable::get();
  if (symbols_.empty()) {
    // No local variable, so no pointer into one: every write to local or
    // generic memory goes through an unknown pointer.
    for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
      const ptx::Instruction &in = fn.instrs[i];
      const ptx::InstrDesc &desc = m.desc(in);
      const uint32_t flags = table.flags(in.opcode, desc.modifiers());
      const Mod space = desc.firstOfKind(ptx::ModKind::Space);
      if ((flags & ptx::iflag::Call) || (space != Mod::Local && space != Mod::None) ||
          ((flags & ptx::iflag::Load) && !(flags & (ptx::iflag::Store | ptx::iflag::Atomic))))
        continue;
      for (const ptx::Operand &op : fn.operandsOf(in)) {
        bool address = op.kind == OperandKind::Address;
        if (op.kind == OperandKind::AddressList)
          for (const ptx::Operand &c : fn.children(op)) address |= c.kind == OperandKind::Address;
        unknownWrites_[i] |= address;
      }
    }
    return;
  }

  // Which registers point into which variable.
  std::vector<Pointer> ptr(fn.numRegisters);
  for (const ptx::Variable &p : fn.params)
    if (p.space == Mod::Reg)
      for (const ptx::RegisterDecl &d : fn.regDecls)
        if (d.name == p.name && d.count == 0) ptr[d.firstRegister].state = Pointer::Bad;
  // The pointer instruction i writes to its first operand, when it is a
  // derivation; Bad for every other write.
  auto derive = [&](const ptx::Instruction &in) -> Pointer {
    const ptx::InstrDesc &desc = m.desc(in);
    auto ops = fn.operandsOf(in);
    Pointer bad{Pointer::Bad};
    auto source = [&](const ptx::Operand &op) -> Pointer {
      if (auto s = localSymbol(op)) return {Pointer::Known, *s, 0};
      if (isScalarRegister(op) && ptr[op.id].points()) return ptr[op.id];
      return bad;
    };
    switch (in.opcode) {
    case Opcode::Mov: return ops.size() == 2 ? source(ops[1]) : bad;
    case Opcode::Cvta:
      return ops.size() == 2 && desc.firstOfKind(ptx::ModKind::Space) == Mod::Local ? source(ops[1]) : bad;
    case Opcode::Add:
    case Opcode::Sub: {
      if (ops.size() != 3 || desc.has(Mod::Sat) || desc.has(Mod::Cc)) return bad;
      for (int side = 1; side <= 2; ++side) {
        Pointer p = source(ops[side]);
        const ptx::Operand &other = ops[3 - side];
        if (!p.points() || (in.opcode == Opcode::Sub && side == 2)) continue;
        if (other.kind == OperandKind::Int) {
          if (p.state == Pointer::Known) {
            const bool negate =
                in.opcode == Opcode::Sub && other.value != std::numeric_limits<int64_t>::min();
            auto offset = addOffset(p.offset, negate ? -other.value : other.value);
            if (in.opcode == Opcode::Sub && !negate) offset.reset();
            if (!offset) return {Pointer::Unknown, p.symbol, 0};
            p.offset = *offset;
          }
          return p;
        }
        if (other.kind == OperandKind::Register && !ptr[other.id].points())
          return {Pointer::Unknown, p.symbol, 0};
      }
      return bad;
    }
    default: return bad;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const ptx::Instruction &in : fn.instrs) {
      if (table.has(in.opcode, ptx::iflag::Call) || in.form >= table.forms().size()) continue;
      auto ops = fn.operandsOf(in);
      const size_t dests = std::min(destinationOperands(table.form(in.form)), ops.size());
      for (size_t j = 0; j < dests; ++j)
        forEachRegister(fn, ops[j], [&](const ptx::Operand &r) {
          bool derived = j == 0 && isScalarRegister(ops[0]);
          changed |= ptr[r.id].join(derived ? derive(in) : Pointer{Pointer::Bad});
        });
    }
  }
  // Call results are written by the callee.
  for (const ptx::Instruction &in : fn.instrs)
    if (table.has(in.opcode, ptx::iflag::Call))
      for (const ptx::Operand &op : fn.operandsOf(in))
        if (op.kind == OperandKind::List)
          for (const ptx::Operand &c : fn.children(op))
            if (c.kind == OperandKind::Register) ptr[c.id].state = Pointer::Bad;

  // Accesses at known places and escapes.
  struct Raw {
    uint32_t instr;
    uint16_t operand;
    bool write;
    uint32_t symbol;
    std::optional<int64_t> begin; // none: an unknown offset
    int64_t bytes;
  };
  std::vector<Raw> raw;
  std::vector<char> unknownAccess(symbols_.size(), 0);
  auto escape = [&](uint32_t s) { symbols_[s].escapes = true; };
  std::function<void(const ptx::Operand &)> escapeAll = [&](const ptx::Operand &op) {
    if (isScalarRegister(op) && ptr[op.id].points()) escape(ptr[op.id].symbol);
    if (op.kind == OperandKind::Register && op.selector != ptx::Selector::None && ptr[op.id].points())
      escape(ptr[op.id].symbol);
    if (auto s = localSymbol(op)) escape(*s);
    if (op.kind == OperandKind::Address && op.base == ptx::AddressBase::Register && ptr[op.id].points())
      escape(ptr[op.id].symbol);
    if (op.kind == OperandKind::Address && op.base == ptx::AddressBase::Symbol && symbolOf.count(op.id))
      escape(symbolOf[op.id]);
    if (op.isComposite())
      for (const ptx::Operand &c : fn.children(op)) escapeAll(c);
  };
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    const ptx::Instruction &in = fn.instrs[i];
    const ptx::InstrDesc &desc = m.desc(in);
    const uint32_t flags = table.flags(in.opcode, desc.modifiers());
    auto ops = fn.operandsOf(in);
    const Mod space = desc.firstOfKind(ptx::ModKind::Space);
    const bool loadOnly = (flags & ptx::iflag::Load) && !(flags & (ptx::iflag::Store | ptx::iflag::Atomic));
    const bool localOrGeneric = space == Mod::Local || space == Mod::None;
    const bool derivation =
        !ops.empty() && isScalarRegister(ops[0]) && ptr[ops[0].id].points() && !(flags & ptx::iflag::Call);
    bool unknownWrite = false, moduleWrite = false;
    for (uint16_t j = 0; j < ops.size(); ++j) {
      const ptx::Operand &op = ops[j];
      if (op.kind == OperandKind::AddressList && !loadOnly && localOrGeneric)
        for (const ptx::Operand &c : fn.children(op)) unknownWrite |= c.kind == OperandKind::Address;
      if (op.kind == OperandKind::Address) {
        std::optional<Pointer> at;
        if (op.base == ptx::AddressBase::Register && ptr[op.id].points()) at = ptr[op.id];
        if (op.base == ptx::AddressBase::Symbol)
          if (auto it = symbolOf.find(op.id); it != symbolOf.end())
            at = Pointer{Pointer::Known, it->second, 0};
        if (!at) {
          unknownWrite |= !loadOnly && localOrGeneric && !(flags & ptx::iflag::Call);
          continue;
        }
        if (!localOrGeneric || (flags & ptx::iflag::Call)) {
          escape(at->symbol);
          continue;
        }
        Raw r{i, j, !loadOnly, at->symbol, std::nullopt, accessBytes(desc)};
        // What a callee writes in a module-scope variable, its callers see.
        moduleWrite |= r.write && at->symbol >= firstModuleSymbol;
        if (at->state == Pointer::Known && r.bytes > 0) r.begin = addOffset(at->offset, op.value);
        if (!r.begin) unknownAccess[at->symbol] = 1;
        raw.push_back(r);
        continue;
      }
      // A derivation's pointer and its sources stay inside the variable;
      // a register that points is only ever written by derivations.
      if (derivation) continue;
      escapeAll(op);
    }
    unknownWrites_[i] = unknownWrite || moduleWrite;
    if (unknownWrite || (flags & ptx::iflag::Call)) clobbers_[i] = 1;
  }

  // Places: the union of overlapping accesses at known offsets, and one for
  // the bytes only accesses at unknown offsets reach.
  std::vector<char> restPlace(symbols_.size(), 0);
  for (uint32_t s = 0; s < symbols_.size(); ++s) {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const Raw &r : raw)
      if (r.symbol == s && r.begin) ranges.emplace_back(*r.begin, *r.begin + r.bytes);
    std::sort(ranges.begin(), ranges.end());
    symbols_[s].firstPlace = static_cast<uint32_t>(places_.size());
    for (auto [b, e] : ranges) {
      if (places_.size() > symbols_[s].firstPlace && b < places_.back().end)
        places_.back().end = std::max(places_.back().end, e);
      else
        places_.push_back({s, b, e});
    }
    // Accesses at unknown offsets may also reach bytes no other access
    // names: unless the known places cover the whole variable, one more
    // place stands for those.
    int64_t covered = 0;
    for (uint32_t p = symbols_[s].firstPlace; p < places_.size() && covered >= places_[p].begin; ++p)
      covered = std::max(covered, places_[p].end);
    restPlace[s] = unknownAccess[s] && (bytes[s] == 0 || covered < bytes[s]);
    if (restPlace[s])
      places_.push_back({s, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
    symbols_[s].numPlaces = static_cast<uint32_t>(places_.size()) - symbols_[s].firstPlace;
  }
  if (places_.size() > kMaxPlaces) {
    // Too many to carry: nothing is tracked, every local load is divergent.
    places_.clear();
    for (Symbol &sym : symbols_) sym.numPlaces = 0, sym.escapes = false;
    std::fill(clobbers_.begin(), clobbers_.end(), 0);
    return;
  }
  for (const Raw &r : raw) {
    const Symbol &sym = symbols_[r.symbol];
    Access a{r.instr, r.operand, r.write, false, sym.firstPlace, sym.numPlaces};
    if (r.begin) {
      auto first = places_.begin() + sym.firstPlace;
      auto last = first + sym.numPlaces - (restPlace[r.symbol] ? 1 : 0);
      auto it =
          std::upper_bound(first, last, *r.begin, [](int64_t v, const Place &p) { return v < p.begin; });
      a.first = static_cast<uint32_t>(it - 1 - places_.begin());
      a.count = 1;
      const Place &p = places_[a.first];
      const ptx::InstrDesc &desc = m.desc(fn.instrs[r.instr]);
      a.exact = p.begin == *r.begin && p.end == *r.begin + r.bytes &&
                (!r.write ||
                 (table.has(desc.opcode, ptx::iflag::Store) && !table.has(desc.opcode, ptx::iflag::Atomic)));
    }
    accesses_.push_back(a);
  }
  std::sort(accesses_.begin(), accesses_.end(),
            [](const Access &a, const Access &b) { return a.instr < b.instr; });
  for (const Access &a : accesses_) ++accessBegin_[a.instr + 1];
  for (size_t i = 0; i < fn.instrs.size(); ++i) accessBegin_[i + 1] += accessBegin_[i];
  for (const Symbol &sym : symbols_)
    if (sym.escapes)
      for (uint32_t p = sym.firstPlace; p < sym.firstPlace + sym.numPlaces; ++p) escapedPlaces_.push_back(p);
  if (escapedPlaces_.empty()) std::fill(clobbers_.begin(), clobbers_.end(), 0);
}

std::span<const LocalSlots::Access> LocalSlots::accesses(uint32_t instr) const {
  if (accesses_.empty()) return {};
  return {accesses_.data() + accessBegin_[instr], accessBegin_[instr + 1] - accessBegin_[instr]};
}

} // namespace analysis
