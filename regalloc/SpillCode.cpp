// Spill code placed by the divergence lattice.
#include "regalloc/SpillCode.h"

#include "analysis/Analyses.h"
#include "analysis/Divergence.h"
#include "ptx/Edit.h"
#include "regalloc/LiveIntervals.h"

#include <cmath>
#include <stdexcept>

namespace regalloc {

using namespace analysis;

std::string_view spillClassName(SpillClass c) {
  switch (c) {
  case SpillClass::Remat: return "affine";
  case SpillClass::Reload: return "read-only";
  case SpillClass::CtaShared: return "cta-uniform";
  case SpillClass::WarpShared: return "warp-uniform";
  case SpillClass::Local: return "divergent";
  }
  return "divergent";
}

namespace {

ptx::Selector componentSelector(int c) {
  return c == 0 ? ptx::Selector::X : c == 1 ? ptx::Selector::Y : ptx::Selector::Z;
}

/// Writes instructions for one function; a spelling the table refuses is a
/// bug of this file, reported as an exception the pass turns into a remark.
class Emitter {
public:
  Emitter(ptx::Module &m, ptx::Function &fn) : m_(m), fn_(fn) {}
  ptx::Instruction operator()(std::string_view spelling, std::initializer_list<ptx::Operand> ops) {
    std::string error;
    std::optional<ptx::Instruction> in = ptx::makeInstruction(m_, fn_, spelling, ops, error);
    if (!in) throw std::logic_error("regalloc spill code: " + error);
    return *in;
  }

private:
  ptx::Module &m_;
  ptx::Function &fn_;
};

/// A fresh register like `like` (a temporary of the spill code).
uint32_t newRegister(ptx::Module &m, ptx::Function &fn, ptx::RegisterDecl like, SpillState &state) {
  const uint32_t id = fn.numRegisters++;
  like.count = 0;
  like.firstRegister = id;
  like.name = m.names.intern("%__spill" + std::to_string(id));
  fn.regDecls.push_back(like);
  state.unspillable.resize(fn.numRegisters, false);
  state.unspillable[id] = true;
  return id;
}

/// The module-scope .shared array `name` (declared before `fn`), sized later.
ptx::Name sharedArea(ptx::Module &m, const ptx::Function &fn, std::string name) {
  ptx::Variable v;
  v.name = m.names.intern(name);
  v.space = ptx::Mod::Shared;
  v.type = ptx::Type::B8;
  v.alignment = 16;
  v.dims = {16};
  const auto fnIndex = static_cast<uint32_t>(&fn - m.functions.data());
  auto at = std::find_if(m.order.begin(), m.order.end(), [&](const ptx::TopLevel &t) {
    return t.kind == ptx::TopLevelKind::Function && t.index == fnIndex;
  });
  m.order.insert(at, {ptx::TopLevelKind::Variable, static_cast<uint32_t>(m.globals.size())});
  m.globals.push_back(v);
  return v.name;
}

uint32_t align(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

} // namespace

void recordRegisterFacts(ptx::Function &fn, AnalysisManager &am, SpillState &state) {
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  const Cfg &cfg = am.get<CfgAnalysis>(fn);
  const LoopForest &loops = am.get<LoopAnalysis>(fn);
  const FunctionDivergence *fd = am.getModule<DivergenceAnalysis>().find(fn);
  state.facts.assign(fn.numRegisters, {});
  if (!fd) return;
  std::vector<uint32_t> writes(fn.numRegisters, 0);
  std::vector<bool> partial(fn.numRegisters, false);
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    auto defs = du.defs(i);
    const uint32_t block = cfg.blockOf(i);
    const bool reachable = block < cfg.numBlocks() && cfg.reachable(block);
    for (uint32_t d = 0; d < defs.size(); ++d) {
      const uint32_t r = defs[d].var;
      if (r >= fn.numRegisters) continue;
      RegisterFacts &f = state.facts[r];
      if (!f.known) {
        f.known = true;
        f.level = Uniformity::CtaUniform;
      }
      f.level = join(f.level, fd->def(i, d));
      f.inLoop |= reachable && loops.loopOf(block) != kNone;
      partial[r] = partial[r] || defs[d].partial;
      if (++writes[r] > 1) {
        f.remat = false;
        continue;
      }
      const Affine &form = fd->defForm(i, d);
      int tidTerms = 0, component = -1;
      if (form.known() && form.allConst())
        for (int c = 0; c < 3; ++c)
          if (!form.coef(c + 1).isZero()) {
            ++tidTerms;
            component = c;
          }
      const unsigned width = ptx::bitWidth(fn.declOf(r).type);
      f.remat = form.known() && form.allConst() && width == form.width() &&
                ((width == 32 && tidTerms <= 1) || (width == 64 && tidTerms == 0));
      f.constant = form.coef(0).value;
      f.tidComponent = component;
      f.coefficient = component >= 0 ? form.coef(component + 1).value : 0;
    }
  }
  // A phi-node joins the web's values under the decision that chose between
  // them: a divergent branch makes the web divergent however uniform each
  // write is (the lanes of one warp would store different values in its
  // slot). A web with a phi-node is not one value to recompute either.
  const SSA &ssa = am.get<SSAAnalysis>(fn);
  std::vector<bool> merged(fn.numRegisters, false);
  for (const Phi &phi : ssa.phis()) {
    if (phi.var >= fn.numRegisters) continue;
    merged[phi.var] = true;
    RegisterFacts &f = state.facts[phi.var];
    if (f.known) f.level = join(f.level, fd->valueLevel(phi.value));
  }
  for (uint32_t r = 0; r < fn.numRegisters; ++r)
    if (partial[r] || merged[r]) state.facts[r].remat = false;

  // Loads from memory no thread writes during the kernel, at an address that
  // is the same wherever the value lives: the value and the address register
  // each one SSA value (one write, no phi-node), so every path from a new
  // write of the address to a read of the value passes the load again.
  const ptx::Module &m = am.module();
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    const ptx::Instruction &in = fn.instrs[i];
    if (in.opcode != ptx::Opcode::Ld || in.hasGuard || in.numOperands != 2) continue;
    auto ops = fn.operandsOf(in);
    if (ops[0].kind != ptx::OperandKind::Register || ops[0].selector != ptx::Selector::None ||
        ops[1].kind != ptx::OperandKind::Address)
      continue;
    const uint32_t r = ops[0].id;
    if (r >= fn.numRegisters || writes[r] != 1 || partial[r] || merged[r] || du.defs(i).size() != 1) continue;
    const ptx::InstrDesc &desc = m.desc(in);
    const ptx::Mod space = desc.firstOfKind(ptx::ModKind::Space);
    const bool readOnly = space == ptx::Mod::Const || (space == ptx::Mod::Param && fn.isKernel) ||
                          (space == ptx::Mod::Global && desc.has(ptx::Mod::Nc));
    if (!readOnly || desc.has(ptx::Mod::V2) || desc.has(ptx::Mod::V4) || desc.has(ptx::Mod::V8)) continue;
    if (ops[1].base == ptx::AddressBase::Register &&
        (ops[1].id >= fn.numRegisters || writes[ops[1].id] != 1 || partial[ops[1].id] || merged[ops[1].id]))
      continue;
    if (ops[1].base == ptx::AddressBase::None) continue;
    // Only the kernel's own parameters: a call's return value is a .param
    // that the call writes, declared in a scope of its own.
    if (space == ptx::Mod::Param) {
      bool parameter = false;
      for (const ptx::Variable &v : fn.params)
        parameter |= ops[1].base == ptx::AddressBase::Symbol && v.name == ops[1].id;
      if (!parameter) continue;
    }
    RegisterFacts &f = state.facts[r];
    f.reload = true;
    f.loadDesc = in.desc;
    f.address = ops[1];
  }
}

namespace {

bool inMemory(SpillClass c) {
  return c == SpillClass::Local || c == SpillClass::CtaShared || c == SpillClass::WarpShared;
}

ptx::Operand slotAddress(const Placement &p, const SpillState &state) {
  switch (p.cls) {
  case SpillClass::Local: return ptx::symbolAddress(state.localArea, p.offset);
  case SpillClass::CtaShared: return ptx::symbolAddress(state.ctaArea, p.offset);
  default: return ptx::registerAddress(state.warpBase, p.offset);
  }
}

/// Whether `in` is spill code moving register `r` to or from the slot of
/// `p`: a piece's own reload or store, which goes when the piece is spilled
/// in turn (the value is in the slot already).
bool movesSlot(const ptx::Function &fn, const ptx::Instruction &in, uint32_t r, const Placement &p,
               const SpillState &state) {
  if ((in.opcode != ptx::Opcode::Ld && in.opcode != ptx::Opcode::St) || in.numOperands != 2 || in.hasGuard)
    return false;
  auto ops = fn.operandsOf(in);
  const bool load = in.opcode == ptx::Opcode::Ld;
  const ptx::Operand &value = ops[load ? 0 : 1], &address = ops[load ? 1 : 0];
  const ptx::Operand slot = slotAddress(p, state);
  return value.kind == ptx::OperandKind::Register && value.id == r && value.selector == ptx::Selector::None &&
         address.kind == ptx::OperandKind::Address && address.base == slot.base && address.id == slot.id &&
         address.value == slot.value;
}

/// Where code that runs once before loop `l` goes: at the end of the one
/// block that enters the loop from outside and leads only into it, before
/// its branch or after its last instruction when it falls through. None
/// (instr == kNone) when the loop has no such block or is irreducible.
struct InsertPoint {
  uint32_t instr = kNone;
  bool after = false;
};

InsertPoint preheaderOf(const ptx::Function &fn, const Cfg &cfg, const LoopForest &loops, uint32_t l) {
  const Loop &loop = loops.loop(l);
  if (loop.irreducible()) return {};
  const uint32_t header = loop.headers.front();
  uint32_t outside = kNone;
  for (uint32_t p : cfg.preds(header)) {
    if (loops.contains(l, p) || p == outside) continue;
    if (outside != kNone) return {};
    outside = p;
  }
  if (outside == kNone || outside >= cfg.numBlocks() || !cfg.reachable(outside)) return {};
  for (uint32_t s : cfg.succs(outside))
    if (s != header) return {};
  const uint32_t last = cfg.terminator(outside);
  if (last == kNone) return {};
  return {last, !ptx::InstrTable::get().has(fn.instrs[last].opcode, ptx::iflag::Terminator)};
}

/// A new placement for register `r`, spilled for the first time, chosen by
/// the lattice (state.mode) and the room left in the shared areas.
Placement choosePlacement(const ptx::Function &fn, uint32_t r, uint32_t writeCount, uint32_t firstWrite,
                          std::span<const int32_t> index, SpillState &state) {
  const ptx::RegisterDecl decl = fn.declOf(r);
  const unsigned bytes = std::max(1u, ptx::bitWidth(decl.type) / 8);
  const RegisterFacts facts = r < state.facts.size() ? state.facts[r] : RegisterFacts{};
  Placement p;
  if (state.mode == SpillMode::Divergence && facts.known && writeCount) {
    if (facts.remat && writeCount == 1) {
      p.cls = SpillClass::Remat;
      p.constant = facts.constant;
      p.tidComponent = facts.tidComponent;
      p.coefficient = facts.coefficient;
      p.defInstr = firstWrite;
    } else if (state.reload && facts.reload && writeCount == 1 &&
               (facts.address.base != ptx::AddressBase::Register ||
                (index[facts.address.id] < 0 && !(facts.address.id < state.spilledBefore.size() &&
                                                  state.spilledBefore[facts.address.id])))) {
      p.cls = SpillClass::Reload;
      p.loadDesc = facts.loadDesc;
      p.address = facts.address;
      p.defInstr = firstWrite;
    } else if (fn.isKernel && facts.level != Uniformity::Divergent) {
      // A CTA slot is shared by warps that run at their own pace: only a
      // value written once per thread can live there.
      const bool cta = facts.level == Uniformity::CtaUniform && !facts.inLoop;
      const uint32_t need =
          cta ? align(state.ctaBytes, bytes) + bytes
              : state.ctaBytes + state.maxWarps * (align(state.warpSlotBytes, bytes) + bytes);
      const uint32_t total = cta ? need + state.maxWarps * state.warpSlotBytes : need;
      if (total <= state.sharedLimit) p.cls = cta ? SpillClass::CtaShared : SpillClass::WarpShared;
    }
  }
  switch (p.cls) {
  case SpillClass::Remat:
  case SpillClass::Reload: break;
  case SpillClass::CtaShared:
    p.offset = align(state.ctaBytes, bytes);
    state.ctaBytes = p.offset + bytes;
    break;
  case SpillClass::WarpShared:
    p.offset = align(state.warpSlotBytes, bytes);
    state.warpSlotBytes = p.offset + bytes;
    break;
  case SpillClass::Local:
    p.offset = align(state.localBytes, bytes);
    state.localBytes = p.offset + bytes;
    break;
  }
  ++state.spilled[static_cast<size_t>(p.cls)];
  return p;
}

/// One instruction's mention of a spilled register (a partial write reads).
struct Mention {
  uint32_t instr = 0;
  bool reads = false, writes = false;
};

/// What the rewrite does at a mention: name a piece (loading it before,
/// storing it after), name a temporary of its own (piece == kNone), or erase
/// the instruction (a spilled piece's own load or store).
struct Action {
  uint32_t reg = 0;
  uint32_t piece = kNone;
  bool load = false, store = false, erase = false;
};

} // namespace

void insertSpillCode(ptx::Module &m, ptx::Function &fn, AnalysisManager &am, const LiveIntervals &live,
                     std::span<const uint32_t> spilled, unsigned budget, SpillState &state) {
  const DefUse &du = am.get<DefUseAnalysis>(fn);
  const Cfg &cfg = am.get<CfgAnalysis>(fn);
  const LoopForest &loops = am.get<LoopAnalysis>(fn);
  const uint32_t numRegisters = fn.numRegisters;
  std::vector<int32_t> index(numRegisters, -1); // register -> position in `spilled`
  for (size_t k = 0; k < spilled.size(); ++k) index[spilled[k]] = static_cast<int32_t>(k);
  state.placementOf.resize(numRegisters, -1);
  state.regionOf.resize(numRegisters);

  // Mentions of each spilled register, in instruction order.
  std::vector<std::vector<Mention>> mentions(spilled.size());
  auto mention = [&](uint32_t var, uint32_t i) -> Mention * {
    if (var >= numRegisters || index[var] < 0) return nullptr;
    std::vector<Mention> &list = mentions[index[var]];
    if (list.empty() || list.back().instr != i) list.push_back({i});
    return &list.back();
  };
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    for (const Use &u : du.uses(i))
      if (Mention *x = mention(u.var, i)) x->reads = true;
    for (const Def &d : du.defs(i))
      if (Mention *x = mention(d.var, i)) {
        x->writes = true;
        x->reads |= d.partial;
      }
  }

  for (size_t k = 0; k < spilled.size(); ++k) {
    const uint32_t r = spilled[k];
    if (state.placementOf[r] >= 0) continue; // a piece: its placement is its register's
    uint32_t writeCount = 0, firstWrite = kNone;
    for (const Mention &x : mentions[k])
      if (x.writes) {
        if (!writeCount++) firstWrite = x.instr;
      }
    state.placementOf[r] = static_cast<int32_t>(state.placements.size());
    state.placements.push_back(choosePlacement(fn, r, writeCount, firstWrite, index, state));
  }

  std::vector<InsertPoint> preheader(loops.loops().size());
  for (uint32_t l = 0; l < preheader.size(); ++l) preheader[l] = preheaderOf(fn, cfg, loops, l);

  // Units live at each position (LiveIntervals.h) once the spilled
  // registers are gone, with a temporary at each of their mentions: a piece
  // is made only where it fits beside them, so that it is smaller than what
  // was spilled and the next round can keep it.
  std::vector<int32_t> pressure;
  if (state.split) {
    std::vector<int32_t> diff(2 * fn.instrs.size() + 3, 0);
    auto add = [&](uint32_t from, uint32_t to, int32_t units) {
      diff[std::min<size_t>(from, diff.size() - 1)] += units;
      diff[std::min<size_t>(to, diff.size() - 1)] -= units;
    };
    for (const LiveInterval &iv : live.intervals())
      if (iv.units && !(iv.reg < numRegisters && index[iv.reg] >= 0))
        for (const LiveRange &range : iv.ranges) add(range.start, range.end, iv.units);
    for (size_t k = 0; k < spilled.size(); ++k)
      for (const Mention &x : mentions[k])
        add(2 * x.instr, 2 * x.instr + 2, static_cast<int32_t>(unitsOf(fn.declOf(spilled[k]))));
    pressure.resize(diff.size());
    int32_t running = 0;
    for (size_t q = 0; q < diff.size(); ++q) pressure[q] = running += diff[q];
  }
  auto fits = [&](uint32_t from, uint32_t to, unsigned units) {
    for (uint32_t q = from; q < to && q < pressure.size(); ++q)
      if (pressure[q] + static_cast<int32_t>(units) > static_cast<int32_t>(budget)) return false;
    return true;
  };
  auto occupy = [&](uint32_t from, uint32_t to, unsigned units) {
    for (uint32_t q = from; q < to && q < pressure.size(); ++q) pressure[q] += static_cast<int32_t>(units);
  };
  // Where a value the loop writes is stored once the loop is left: the
  // first instruction of each block it exits to, when only the loop enters
  // that block (leaving the function needs no store). Empty when some exit
  // has no such place: then the loop gets no piece for values it writes.
  std::vector<std::vector<uint32_t>> exitStores(loops.loops().size());
  std::vector<bool> dedicatedExits(loops.loops().size(), false);
  for (uint32_t l = 0; l < exitStores.size(); ++l) {
    bool ok = preheader[l].instr != kNone;
    for (uint32_t e : loops.loop(l).exitBlocks) {
      if (!ok || e == cfg.exit()) continue;
      for (uint32_t pred : cfg.preds(e)) ok &= loops.contains(l, pred);
      ok &= fn.blocks[e].numInstrs > 0;
      if (ok) exitStores[l].push_back(fn.blocks[e].firstInstr);
    }
    dedicatedExits[l] = ok;
    if (!ok) exitStores[l].clear();
  }
  // The positions a register loaded at the end of loop l's preheader, used
  // in the loop and stored at its exits is live at, in layout ranges.
  auto loopSpan = [&](uint32_t l) {
    std::vector<LiveRange> spans;
    const uint32_t t = preheader[l].instr;
    spans.push_back({2 * t, 2 * t + 2});
    for (uint32_t b : loops.loop(l).blocks)
      if (fn.blocks[b].numInstrs)
        spans.push_back(
            {2 * fn.blocks[b].firstInstr, 2 * (fn.blocks[b].firstInstr + fn.blocks[b].numInstrs)});
    for (uint32_t i : exitStores[l]) spans.push_back({2 * i, 2 * i + 2});
    return spans;
  };

  // What the rewrite does at each mention: split into pieces by loop and
  // block where the value lives in memory.
  std::vector<std::vector<Action>> actions(fn.instrs.size());
  struct PieceCode { // a piece's load before its loop, or store where the loop is left
    InsertPoint at;
    uint32_t piece;
  };
  std::vector<PieceCode> hoisted, sunk;                     // loads before loops, stores after them
  std::vector<uint32_t> writtenIn(loops.loops().size(), 0); // stamp k+1: loop writes spilled[k]
  auto newPiece = [&](uint32_t r, SpillRegion region) {
    const uint32_t piece = newRegister(m, fn, fn.declOf(r), state);
    state.unspillable[piece] = false;
    state.placementOf.resize(fn.numRegisters, -1);
    state.regionOf.resize(fn.numRegisters);
    state.placementOf[piece] = state.placementOf[r];
    state.regionOf[piece] = region;
    return piece;
  };
  for (size_t k = 0; k < spilled.size(); ++k) {
    const uint32_t r = spilled[k];
    const Placement &p = state.placements[state.placementOf[r]];
    const SpillRegion region = state.regionOf[r];
    const std::vector<Mention> &list = mentions[k];
    if (!state.split || !inMemory(p.cls)) {
      for (const Mention &x : list) actions[x.instr].push_back({r});
      continue;
    }
    const auto stamp = static_cast<uint32_t>(k + 1);
    for (const Mention &x : list) {
      const uint32_t b = cfg.blockOf(x.instr);
      if (x.writes && b < cfg.numBlocks())
        for (uint32_t l = loops.loopOf(b); l != kNone; l = loops.loop(l).parent) writtenIn[l] = stamp;
    }
    const unsigned units = unitsOf(fn.declOf(r));
    // The outermost loop inside the region that holds block b, can be
    // entered with r in a register (and left with it, when the loop writes
    // r) and has room for it throughout.
    std::vector<std::pair<uint32_t, uint32_t>> loopPieces; // (loop, piece)
    std::vector<uint32_t> noRoom;
    auto loopPieceFor = [&](uint32_t b) {
      uint32_t best = kNone;
      if (region.kind == SpillRegion::Block || b >= cfg.numBlocks() || !cfg.reachable(b)) return best;
      for (uint32_t l = loops.loopOf(b); l != kNone; l = loops.loop(l).parent) {
        if (region.kind == SpillRegion::Loop && l == region.id) break;
        if (preheader[l].instr == kNone || (writtenIn[l] == stamp && !dedicatedExits[l])) continue;
        const bool made =
            std::any_of(loopPieces.begin(), loopPieces.end(), [&](auto &e) { return e.first == l; });
        if (!made && std::find(noRoom.begin(), noRoom.end(), l) == noRoom.end()) {
          const std::vector<LiveRange> spans = loopSpan(l);
          if (!std::all_of(spans.begin(), spans.end(),
                           [&](const LiveRange &x) { return fits(x.start, x.end, units); })) {
            noRoom.push_back(l);
            continue;
          }
        } else if (!made) {
          continue;
        }
        best = l;
      }
      return best;
    };
    for (size_t j = 0; j < list.size();) {
      const Mention &x = list[j];
      const uint32_t b = cfg.blockOf(x.instr);
      if (region.kind != SpillRegion::Whole && movesSlot(fn, fn.instrs[x.instr], r, p, state)) {
        actions[x.instr].push_back({r, kNone, false, false, true});
        ++j;
        continue;
      }
      if (const uint32_t l = loopPieceFor(b); l != kNone) {
        auto it = std::find_if(loopPieces.begin(), loopPieces.end(), [&](auto &e) { return e.first == l; });
        if (it == loopPieces.end()) {
          for (const LiveRange &x : loopSpan(l)) occupy(x.start, x.end, units);
          const uint32_t piece = newPiece(r, {SpillRegion::Loop, l});
          loopPieces.emplace_back(l, piece);
          hoisted.push_back({preheader[l], piece});
          if (writtenIn[l] == stamp)
            for (uint32_t i : exitStores[l]) sunk.push_back({{i, false}, piece});
          it = std::prev(loopPieces.end());
        }
        actions[x.instr].push_back({r, it->second});
        ++j;
        continue;
      }
      // The run of mentions in block b outside loop pieces.
      size_t end = j + 1;
      while (end < list.size() && cfg.blockOf(list[end].instr) == b &&
             !movesSlot(fn, fn.instrs[list[end].instr], r, p, state))
        ++end;
      // Within it, a chain of mentions keeps r in one register while each
      // gap between two of them has room for it.
      for (size_t q = j + 1; q < end; ++q)
        if (!fits(2 * list[q - 1].instr + 2, 2 * list[q].instr, units)) {
          end = q;
          break;
        }
      if (end - j < 2 || region.kind == SpillRegion::Block) {
        actions[x.instr].push_back({r});
        ++j;
        continue;
      }
      occupy(2 * x.instr + 2, 2 * list[end - 1].instr, units);
      const uint32_t piece = newPiece(r, {SpillRegion::Block, b});
      size_t lastWrite = end;
      for (size_t q = j; q < end; ++q)
        if (list[q].writes) lastWrite = q;
      bool loaded = false;
      for (size_t q = j; q < end; ++q) {
        actions[list[q].instr].push_back({r, piece, list[q].reads && !loaded, q == lastWrite});
        loaded = true;
      }
      j = end;
    }
  }

  Emitter emit(m, fn);
  ptx::BodyEdit edit(fn);
  const std::string fnName(m.str(fn.name));
  auto needArea = [&](SpillClass c) {
    if (c == SpillClass::Local && !state.localArea) {
      ptx::Variable v;
      v.name = state.localArea = m.names.intern("__ptxvm_spill_local");
      v.space = ptx::Mod::Local;
      v.type = ptx::Type::B8;
      v.alignment = 16;
      v.dims = {16};
      fn.body.insert(fn.body.begin(), {ptx::StmtKind::Variable, 1, static_cast<uint32_t>(fn.locals.size())});
      fn.locals.push_back(v);
    } else if (c == SpillClass::CtaShared && !state.ctaArea) {
      state.ctaArea = sharedArea(m, fn, "__ptxvm_spill_cta_" + fnName);
    } else if (c == SpillClass::WarpShared && !state.warpArea) {
      state.warpArea = sharedArea(m, fn, "__ptxvm_spill_warp_" + fnName);
      // warpBase = area + (linear thread index / 32) * bytes per warp.
      ptx::RegisterDecl b32;
      b32.type = ptx::Type::B32;
      const uint32_t w = state.warpBase = newRegister(m, fn, b32, state);
      const analysis::LaunchShape shape = analysis::LaunchShape::ofFunction(fn);
      using ptx::SpecialReg;
      auto reg = ptx::registerOperand;
      auto sreg = [](SpecialReg r, ptx::Selector s) { return ptx::specialOperand(r, s); };
      const bool linear = shape.kind == analysis::LaunchShape::Kind::Linear ||
                          (shape.kind == analysis::LaunchShape::Kind::Exact && shape.y == 1 && shape.z == 1);
      const uint32_t t = newRegister(m, fn, b32, state);
      if (linear) {
        edit.insertAtEntry(emit("mov.u32", {reg(w), sreg(SpecialReg::Tid, ptx::Selector::X)}));
      } else {
        edit.insertAtEntry(emit("mov.u32", {reg(w), sreg(SpecialReg::Tid, ptx::Selector::Z)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Ntid, ptx::Selector::Y)}));
        edit.insertAtEntry(emit("mul.lo.u32", {reg(w), reg(w), reg(t)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Tid, ptx::Selector::Y)}));
        edit.insertAtEntry(emit("add.u32", {reg(w), reg(w), reg(t)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Ntid, ptx::Selector::X)}));
        edit.insertAtEntry(emit("mul.lo.u32", {reg(w), reg(w), reg(t)}));
        edit.insertAtEntry(emit("mov.u32", {reg(t), sreg(SpecialReg::Tid, ptx::Selector::X)}));
        edit.insertAtEntry(emit("add.u32", {reg(w), reg(w), reg(t)}));
      }
      edit.insertAtEntry(emit("shr.u32", {reg(w), reg(w), ptx::intOperand(5)}));
      ptx::Instruction scale = emit("mul.lo.u32", {reg(w), reg(w), ptx::intOperand(0)});
      state.strideOperand = scale.firstOperand + 2;
      edit.insertAtEntry(scale);
      edit.insertAtEntry(emit("mov.u32", {reg(t), ptx::symbolOperand(state.warpArea)}));
      edit.insertAtEntry(emit("add.u32", {reg(w), reg(w), reg(t)}));
    }
  };
  for (uint32_t r : spilled) needArea(state.placements[state.placementOf[r]].cls);

  const ptx::InstrTable &table = ptx::InstrTable::get();
  auto spellingOf = [&](const Placement &p, uint32_t r) {
    const std::string width = std::to_string(std::max(8u, ptx::bitWidth(fn.declOf(r).type)));
    return (p.cls == SpillClass::Local ? ".local.b" : ".shared.b") + width;
  };
  auto load = [&](const Placement &p, uint32_t r) {
    return emit("ld" + spellingOf(p, r), {ptx::registerOperand(r), slotAddress(p, state)});
  };
  auto store = [&](const Placement &p, uint32_t r) {
    return emit("st" + spellingOf(p, r), {slotAddress(p, state), ptx::registerOperand(r)});
  };
  // Stores sunk out of loops go first: a load of the same slot for the
  // exit block's first instruction must read what the loop wrote.
  for (const PieceCode &h : sunk)
    edit.insertBefore(h.at.instr, store(state.placements[state.placementOf[h.piece]], h.piece));
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    const uint32_t block = cfg.blockOf(i);
    const double frequency =
        block < cfg.numBlocks() && cfg.reachable(block) ? blockFrequency(loops, block) : 1;
    bool eraseDef = false;
    for (const Action &action : actions[i]) {
      const uint32_t r = action.reg;
      const Placement &p = state.placements[state.placementOf[r]];
      auto rename = [&](uint32_t to) {
        ptx::forEachRegister(fn, fn.instrs[i], [&](uint32_t &reg) {
          if (reg == r) reg = to;
        });
      };
      if (action.erase) {
        edit.erase(i);
        continue;
      }
      if (action.piece != kNone) {
        if (action.load) edit.insertBefore(i, load(p, action.piece));
        rename(action.piece);
        if (action.store) edit.insertAfter(i, store(p, action.piece));
        continue;
      }
      const ptx::RegisterDecl decl = fn.declOf(r);
      const std::string width = std::to_string(std::max(8u, ptx::bitWidth(decl.type)));
      bool reads = false, written = false, partial = false;
      for (const Use &u : du.uses(i)) reads |= u.var == r;
      for (const Def &d : du.defs(i))
        if (d.var == r) {
          written = true;
          partial |= d.partial;
        }
      reads |= partial;
      if (p.cls == SpillClass::Reload && i == p.defInstr && !reads) {
        // Every read loads the value again.
        eraseDef = true;
        continue;
      }
      if (p.cls == SpillClass::Remat && i == p.defInstr) {
        const uint32_t flags = table.flags(fn.instrs[i].opcode, m.desc(fn.instrs[i]).modifiers());
        const uint32_t effects = ptx::iflag::Store | ptx::iflag::Atomic | ptx::iflag::Call |
                                 ptx::iflag::Barrier | ptx::iflag::WarpSync | ptx::iflag::Terminator |
                                 ptx::iflag::Texture | ptx::iflag::Tensor | ptx::iflag::Load |
                                 ptx::iflag::CarryOut;
        if (!(flags & effects) && du.defs(i).size() == 1 && !reads) {
          eraseDef = true;
          continue;
        }
      }
      const uint32_t t = newRegister(m, fn, decl, state);
      if (reads) {
        if (p.cls == SpillClass::Remat) {
          ++state.remats;
          state.rematOps += frequency;
          if (p.tidComponent < 0) {
            edit.insertBefore(i,
                              emit("mov.b" + width, {ptx::registerOperand(t), ptx::intOperand(p.constant)}));
          } else {
            edit.insertBefore(i, emit("mov.u32", {ptx::registerOperand(t),
                                                  ptx::specialOperand(ptx::SpecialReg::Tid,
                                                                      componentSelector(p.tidComponent))}));
            if (p.coefficient != 1 || p.constant != 0)
              edit.insertBefore(
                  i, emit("mad.lo.s32", {ptx::registerOperand(t), ptx::registerOperand(t),
                                         ptx::intOperand(p.coefficient), ptx::intOperand(p.constant)}));
          }
        } else if (p.cls == SpillClass::Reload) {
          ++state.loads;
          state.reloadOps += frequency;
          ptx::Instruction reload = fn.instrs[p.defInstr];
          const ptx::Operand ops[] = {ptx::registerOperand(t), p.address};
          reload.firstOperand = static_cast<uint32_t>(fn.operands.size());
          reload.numOperands = 2;
          reload.hasGuard = false;
          fn.operands.insert(fn.operands.end(), std::begin(ops), std::end(ops));
          edit.insertBefore(i, reload);
        } else {
          edit.insertBefore(i, load(p, t));
        }
      }
      if (written && inMemory(p.cls)) edit.insertAfter(i, store(p, t));
      rename(t);
    }
    if (eraseDef) edit.erase(i);
  }
  // Reloads hoisted out of loops go last: a store at the same place (the
  // value written at the end of the loop's preheader) must come first.
  for (const PieceCode &h : hoisted) {
    const Placement &p = state.placements[state.placementOf[h.piece]];
    if (h.at.after)
      edit.insertAfter(h.at.instr, load(p, h.piece));
    else
      edit.insertBefore(h.at.instr, load(p, h.piece));
  }
  edit.apply();
  state.spilledBefore.resize(fn.numRegisters, false);
  for (uint32_t r : spilled) state.spilledBefore[r] = true;
}

void countSpillAccesses(const ptx::Function &fn, AnalysisManager &am, SpillState &state) {
  // The pieces that kept a register (the others were split again).
  state.pieces = state.hoisted = 0;
  for (uint32_t r = 0; r < state.regionOf.size(); ++r)
    if (state.regionOf[r].kind != SpillRegion::Whole &&
        !(r < state.spilledBefore.size() && state.spilledBefore[r])) {
      ++state.pieces;
      state.hoisted += state.regionOf[r].kind == SpillRegion::Loop;
    }
  const Cfg &cfg = am.get<CfgAnalysis>(fn);
  const LoopForest &loops = am.get<LoopAnalysis>(fn);
  for (uint32_t i = 0; i < fn.instrs.size(); ++i) {
    const ptx::Instruction &in = fn.instrs[i];
    if ((in.opcode != ptx::Opcode::Ld && in.opcode != ptx::Opcode::St) || in.numOperands != 2) continue;
    const bool isLoad = in.opcode == ptx::Opcode::Ld;
    const ptx::Operand &address = fn.operandsOf(in)[isLoad ? 1 : 0];
    if (address.kind != ptx::OperandKind::Address) continue;
    const bool symbol = address.base == ptx::AddressBase::Symbol;
    const bool local = symbol && state.localArea && address.id == state.localArea;
    const bool shared = (symbol && state.ctaArea && address.id == state.ctaArea) ||
                        (address.base == ptx::AddressBase::Register && address.id == state.warpBase);
    if (!local && !shared) continue;
    const uint32_t block = cfg.blockOf(i);
    ++(isLoad ? state.loads : state.stores);
    (local ? state.localOps : state.sharedOps) +=
        block < cfg.numBlocks() && cfg.reachable(block) ? blockFrequency(loops, block) : 1;
  }
}

void finishSpillAreas(ptx::Module &m, ptx::Function &fn, SpillState &state) {
  auto resize = [&](ptx::Name name, uint32_t bytes) {
    for (ptx::Variable &v : m.globals)
      if (v.name == name) v.dims = {std::max(bytes, 1u)};
    for (ptx::Variable &v : fn.locals)
      if (v.name == name) v.dims = {std::max(bytes, 1u)};
  };
  if (state.localArea) resize(state.localArea, align(state.localBytes, 16));
  if (state.ctaArea) resize(state.ctaArea, align(state.ctaBytes, 16));
  const uint32_t stride = align(state.warpSlotBytes, 16);
  if (state.warpArea) resize(state.warpArea, stride * state.maxWarps);
  if (state.strideOperand != UINT32_MAX) fn.operands[state.strideOperand].value = stride;
}

} // namespace regalloc
